//! The job graph: operators with a parallelism, expanded into subtasks joined by channels.

use crate::ids::Tp;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SinkKind {
    /// `TwoPhaseCommitSinkFunction` / Sink V2 over Kafka transactions: one transactional id
    /// per subtask and checkpoint, `{prefix}-{subtask}-{checkpoint}`.
    KafkaTwoPhase {
        topic: u16,
        partitions: u16,
        transaction_timeout_ms: u64,
        prefix: String,
    },
    /// An idempotent upsert into a key-value store, keyed by the business key.
    Upsert,
    /// A plain append to an external log, without transactions.
    Append,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OperatorKind {
    /// A Kafka source; subtask `s` reads the partitions `p` with `p % parallelism == s`.
    Source {
        partitions: Vec<Tp>,
    },
    /// Stateless: one output per input.
    Map,
    /// Keyed count (state: key → count); its inputs are partitioned by key.
    Count,
    /// An iteration: a record goes round the loop edge `passes` times, then downstream.
    Iterate {
        passes: u8,
    },
    Sink(SinkKind),
}

impl OperatorKind {
    pub fn name(&self) -> &'static str {
        match self {
            OperatorKind::Source { .. } => "source",
            OperatorKind::Map => "map",
            OperatorKind::Count => "count",
            OperatorKind::Iterate { .. } => "iterate",
            OperatorKind::Sink(SinkKind::KafkaTwoPhase { .. }) => "kafka-2pc",
            OperatorKind::Sink(SinkKind::Upsert) => "upsert",
            OperatorKind::Sink(SinkKind::Append) => "append",
        }
    }

    pub fn is_keyed(&self) -> bool {
        matches!(
            self,
            OperatorKind::Count | OperatorKind::Sink(SinkKind::Upsert)
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OperatorDef {
    pub name: String,
    pub kind: OperatorKind,
    pub parallelism: u8,
    /// Upstream operators (indices into the job's operator list).
    pub inputs: Vec<usize>,
    /// Processing time per record.
    pub processing: SimTime,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChannelDef {
    pub from: u8,
    pub to: u8,
    /// A feedback edge of an iteration: carries no barriers; not part of snapshots.
    pub loop_edge: bool,
}

/// How a task spreads its output over one downstream operator's subtasks.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OutputGroup {
    pub channels: Vec<usize>,
    pub keyed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TaskDef {
    pub operator: usize,
    pub subtask: u8,
    /// Input channels, in a fixed order.
    pub inputs: Vec<usize>,
    pub outputs: Vec<OutputGroup>,
    /// The loop edge back to itself (iterations).
    pub feedback: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Topology {
    pub tasks: Vec<TaskDef>,
    pub channels: Vec<ChannelDef>,
}

/// Expands operators into subtasks and channels: all-to-all between operators of different
/// parallelism or into a keyed operator, one-to-one (forward) otherwise.
pub fn expand(operators: &[OperatorDef]) -> Topology {
    let mut first_task = Vec::with_capacity(operators.len());
    let mut tasks = Vec::new();
    for (oi, op) in operators.iter().enumerate() {
        first_task.push(tasks.len());
        for s in 0..op.parallelism {
            tasks.push(TaskDef {
                operator: oi,
                subtask: s,
                inputs: Vec::new(),
                outputs: Vec::new(),
                feedback: None,
            });
        }
    }
    let mut channels = Vec::new();
    for (oi, op) in operators.iter().enumerate() {
        for &ui in &op.inputs {
            let Some(up) = operators.get(ui) else {
                continue;
            };
            let keyed = op.kind.is_keyed();
            let forward = !keyed && up.parallelism == op.parallelism;
            for us in 0..up.parallelism {
                let from = first_task[ui] + usize::from(us);
                let mut group = OutputGroup {
                    channels: Vec::new(),
                    keyed,
                };
                for ds in 0..op.parallelism {
                    if forward && ds != us {
                        continue;
                    }
                    let to = first_task[oi] + usize::from(ds);
                    let c = channels.len();
                    channels.push(ChannelDef {
                        from: from as u8,
                        to: to as u8,
                        loop_edge: false,
                    });
                    group.channels.push(c);
                    tasks[to].inputs.push(c);
                }
                tasks[from].outputs.push(group);
            }
        }
        if matches!(op.kind, OperatorKind::Iterate { .. }) {
            for s in 0..op.parallelism {
                let t = first_task[oi] + usize::from(s);
                let c = channels.len();
                channels.push(ChannelDef {
                    from: t as u8,
                    to: t as u8,
                    loop_edge: true,
                });
                tasks[t].feedback = Some(c);
            }
        }
    }
    Topology { tasks, channels }
}

/// The channel a record takes within one output group.
pub fn route(group: &OutputGroup, key: Option<u32>, id: u32, round_robin: &mut u64) -> usize {
    let n = group.channels.len().max(1);
    let i = if group.keyed {
        key.unwrap_or(id) as usize % n
    } else if n == 1 {
        0
    } else {
        let i = (*round_robin % n as u64) as usize;
        *round_robin += 1;
        i
    };
    group.channels.get(i).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(name: &str, kind: OperatorKind, parallelism: u8, inputs: Vec<usize>) -> OperatorDef {
        OperatorDef {
            name: name.into(),
            kind,
            parallelism,
            inputs,
            processing: 0,
        }
    }

    #[test]
    fn forward_keyed_and_loop_edges() {
        let ops = vec![
            op(
                "src",
                OperatorKind::Source { partitions: vec![] },
                2,
                vec![],
            ),
            op("map", OperatorKind::Map, 2, vec![0]),
            op("count", OperatorKind::Count, 1, vec![1]),
            op("it", OperatorKind::Iterate { passes: 1 }, 1, vec![2]),
        ];
        let t = expand(&ops);
        assert_eq!(t.tasks.len(), 6);
        // src[0] → map[0] and src[1] → map[1] (forward).
        assert_eq!(t.tasks[0].outputs[0].channels.len(), 1);
        assert_eq!(t.channels[t.tasks[0].outputs[0].channels[0]].to, 2);
        // Both maps feed the single counter, keyed.
        assert_eq!(t.tasks[4].inputs.len(), 2);
        assert!(t.tasks[2].outputs[0].keyed);
        // The iteration has a loop edge to itself, which is not among its inputs.
        let fb = t.tasks[5].feedback.expect("loop edge");
        assert!(t.channels[fb].loop_edge);
        assert!(!t.tasks[5].inputs.contains(&fb));
    }

    #[test]
    fn keyed_routing_is_stable_and_rebalance_rotates() {
        let g = OutputGroup {
            channels: vec![7, 8, 9],
            keyed: true,
        };
        let mut rr = 0;
        assert_eq!(route(&g, Some(4), 0, &mut rr), 8);
        assert_eq!(route(&g, Some(4), 1, &mut rr), 8);
        let g = OutputGroup {
            channels: vec![7, 8],
            keyed: false,
        };
        assert_eq!(route(&g, None, 0, &mut rr), 7);
        assert_eq!(route(&g, None, 0, &mut rr), 8);
    }
}
