//! What flows through a Flink job: records and checkpoint barriers.

use crate::ids::RecordId;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// A record inside the job. `id` is the input record it derives from (one output per input
/// in every operator here), so the oracle can follow it from the source to the sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FRecord {
    pub id: RecordId,
    pub key: Option<u32>,
    /// For a counting operator's output: the key's count after this record.
    pub count: u64,
    /// For an iterative operator: passes around the loop still to go.
    pub passes: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Item {
    Record(FRecord),
    /// Checkpoint barrier `id`; `triggered_at` lets a task measure the aligned timeout.
    Barrier {
        id: u64,
        triggered_at: SimTime,
    },
}
