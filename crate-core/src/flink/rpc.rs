//! The JobManager ↔ task messages, sent over the simulated network like any other, so they
//! can be delayed or lost (a lost `notifyCheckpointComplete` is a real case).

use super::snapshot::TaskSnapshot;
use crate::kafka::protocol::MessageKind;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rpc {
    /// JobManager → source task: record your position and emit barrier `id`.
    Trigger {
        id: u64,
        attempt: u32,
        /// A stop-with-savepoint: the sources finish after this barrier.
        last: bool,
    },
    /// Task → JobManager: snapshot `id` is taken and uploaded.
    Ack {
        id: u64,
        attempt: u32,
        task: u8,
        snapshot: Box<TaskSnapshot>,
    },
    /// JobManager → every task: checkpoint `id` is complete (commit what it covers).
    Notify { id: u64, attempt: u32 },
    /// JobManager → every task: checkpoint `id` was abandoned (stop aligning for it).
    Abort { id: u64, attempt: u32 },
}

impl Rpc {
    pub fn kind(&self) -> MessageKind {
        match self {
            Rpc::Trigger { .. } => MessageKind::CheckpointTrigger,
            Rpc::Ack { .. } => MessageKind::CheckpointAck,
            Rpc::Notify { .. } => MessageKind::CheckpointNotify,
            Rpc::Abort { .. } => MessageKind::CheckpointAbort,
        }
    }

    pub fn label(&self) -> String {
        match self {
            Rpc::Trigger { id, last: true, .. } => format!("trigger savepoint {id}"),
            Rpc::Trigger { id, .. } => format!("trigger cp {id}"),
            Rpc::Ack { id, .. } => format!("ack cp {id}"),
            Rpc::Notify { id, .. } => format!("cp {id} complete"),
            Rpc::Abort { id, .. } => format!("cp {id} aborted"),
        }
    }
}
