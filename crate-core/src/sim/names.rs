//! Human names for processes, partitions and keys, so that narration and the UI speak the
//! scenario's language ("orders-0", "producer app", key "customer-7").

use crate::ids::{NodeId, Tp};
use serde::{Deserialize, Serialize};

/// Keys are interned: a fixed key has one index; a run of distinct keys `{prefix}{i}` has a
/// contiguous range of indices.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KeyRange {
    pub first: u32,
    pub count: u32,
    pub prefix: String,
    pub distinct: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Names {
    pub producers: Vec<String>,
    pub consumers: Vec<String>,
    #[serde(default)]
    pub processors: Vec<String>,
    pub topics: Vec<String>,
    pub keys: Vec<KeyRange>,
    /// Output record ids of read-process-write processors: `[first, first + count)` is the
    /// output of input records `0..count`.
    #[serde(default)]
    pub outputs: Vec<(u32, u32)>,
    /// Flink subtasks: `{operator}-{subtask}`.
    #[serde(default)]
    pub tasks: Vec<String>,
}

impl Names {
    pub fn node(&self, node: NodeId) -> String {
        let named = |list: &Vec<String>, i: u8| list.get(usize::from(i)).cloned();
        match node {
            NodeId::Broker(i) => format!("broker {i}"),
            NodeId::Producer(i) => named(&self.producers, i).unwrap_or_else(|| node.to_string()),
            NodeId::Consumer(i) => named(&self.consumers, i).unwrap_or_else(|| node.to_string()),
            NodeId::Processor(i) => named(&self.processors, i).unwrap_or_else(|| node.to_string()),
            NodeId::JobManager => "JobManager".to_string(),
            NodeId::Task(i) => named(&self.tasks, i).unwrap_or_else(|| node.to_string()),
        }
    }

    /// How narration names a process: as `node` does, except a Flink subtask whose name
    /// reads as a partition's (an operator named after the topic it reads: "clicks-0"), which
    /// is "subtask clicks-0", so that "subtask clicks-0 reads v3 from clicks-0" says which is
    /// which.
    pub fn spoken(&self, node: NodeId) -> String {
        let name = self.node(node);
        let reads_as_partition = matches!(node, NodeId::Task(_))
            && name.rsplit_once('-').is_some_and(|(topic, n)| {
                n.parse::<u32>().is_ok() && self.topics.iter().any(|t| t == topic)
            });
        if reads_as_partition {
            format!("subtask {name}")
        } else {
            name
        }
    }

    pub fn tp(&self, tp: Tp) -> String {
        if crate::kafka::txn_state::is_offsets_partition(tp) {
            return format!("__consumer_offsets-{}", tp.partition);
        }
        let topic = self
            .topics
            .get(usize::from(tp.topic))
            .map_or("topic", String::as_str);
        format!("{topic}-{}", tp.partition)
    }

    /// How a record is shown: `v3`, or `v3′` for a processor's output of `v3`.
    /// A record as the logs name it: `v3` from a producer, `v3′` a stage's output of it,
    /// `v3′′` an output of that output (stages that chain).
    pub fn record(&self, id: crate::ids::RecordId) -> String {
        let mut id = id.0;
        let mut primes = 0;
        // Each step goes back to a smaller number (an output's base is above zero), and a
        // chain has at most four stages.
        while let Some((first, _)) = self
            .outputs
            .iter()
            .find(|(first, count)| *first > 0 && id >= *first && id - first < *count)
        {
            id -= first;
            primes += 1;
        }
        format!("v{id}{}", "′".repeat(primes))
    }

    pub fn key(&self, key: Option<u32>) -> Option<String> {
        let key = key?;
        let range = self
            .keys
            .iter()
            .find(|r| key >= r.first && key < r.first.saturating_add(r.count.max(1)))?;
        Some(if range.distinct {
            format!("{}{}", range.prefix, key - range.first)
        } else {
            range.prefix.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subtask_named_like_a_partition_is_called_a_subtask() {
        let names = Names {
            topics: vec!["clicks".into()],
            tasks: vec!["clicks-0".into(), "count-0".into(), "clicks-x".into()],
            ..Names::default()
        };
        assert_eq!(names.spoken(NodeId::Task(0)), "subtask clicks-0");
        assert_eq!(names.spoken(NodeId::Task(1)), "count-0");
        assert_eq!(names.spoken(NodeId::Task(2)), "clicks-x");
        // The UI's labels keep the plain name.
        assert_eq!(names.node(NodeId::Task(0)), "clicks-0");
    }
}
