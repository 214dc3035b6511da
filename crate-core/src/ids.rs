//! Identifiers of the simulated processes and of the logical records the oracle follows.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A process in the simulation. Indices are positions in the scenario's lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeId {
    Broker(u8),
    Producer(u8),
    Consumer(u8),
    /// A read-process-write application (consumer + transform + producer).
    Processor(u8),
    /// Flink's JobManager: the checkpoint coordinator and the restart logic.
    JobManager,
    /// One Flink subtask (an operator instance), numbered across the whole job graph.
    Task(u8),
}

impl NodeId {
    pub fn kind(self) -> &'static str {
        match self {
            NodeId::Broker(_) => "broker",
            NodeId::Producer(_) => "producer",
            NodeId::Consumer(_) => "consumer",
            NodeId::Processor(_) => "processor",
            NodeId::JobManager => "jobmanager",
            NodeId::Task(_) => "task",
        }
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeId::Broker(i) => write!(f, "broker-{i}"),
            NodeId::Producer(i) => write!(f, "producer-{i}"),
            NodeId::Consumer(i) => write!(f, "consumer-{i}"),
            NodeId::Processor(i) => write!(f, "processor-{i}"),
            NodeId::JobManager => write!(f, "jobmanager"),
            NodeId::Task(i) => write!(f, "task-{i}"),
        }
    }
}

/// One logical record of the workload: what the application asked to send once. Copies of it
/// in a log carry the same id (it stands for the record's value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RecordId(pub u32);

impl fmt::Display for RecordId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// A topic partition: topic index in the scenario, partition number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Tp {
    pub topic: u16,
    pub partition: u16,
}
