//! What a task puts into a checkpoint, and what the coordinator keeps of a checkpoint.

use super::record::FRecord;
use crate::ids::{RecordId, Tp};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A pre-committed Kafka transaction of a two-phase-commit sink, waiting for
/// `notifyCheckpointComplete` (Sink V2: a committable).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Committable {
    /// The checkpoint whose barrier pre-committed it.
    pub checkpoint: u64,
    pub transactional_id: String,
    pub producer_id: i64,
    pub epoch: i16,
    pub partitions: Vec<Tp>,
    /// The output records it holds.
    pub records: Vec<RecordId>,
    /// Restored from a checkpoint and committed again (`recoverAndCommit`): Kafka may have
    /// committed it already.
    #[serde(default)]
    pub recovered: bool,
}

/// One channel's in-flight records stored by an unaligned checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChannelState {
    pub channel: usize,
    /// Input side (recorded by the receiver) comes first in stream order, then the output
    /// side (records the sender's barrier overtook).
    pub input_side: bool,
    pub records: Vec<FRecord>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TaskSnapshot {
    pub task: u8,
    pub checkpoint: u64,
    /// Keyed count state.
    #[serde(with = "crate::serde_pairs")]
    pub counts: BTreeMap<u32, u64>,
    /// A source's positions: the next offset to emit, per partition.
    #[serde(with = "crate::serde_pairs")]
    pub positions: crate::vec_map::VecMap<Tp, u64>,
    /// A two-phase-commit sink's pending transactions.
    pub pending: Vec<Committable>,
    pub channel_state: Vec<ChannelState>,
    /// Per input channel: records taken before the snapshot (for invariant 16).
    pub consumed: Vec<(usize, u64)>,
    /// Per output channel: records sent before the barrier.
    pub sent_before_barrier: Vec<(usize, u64)>,
    pub unaligned: bool,
    /// From the first barrier to the snapshot.
    pub alignment: SimTime,
    /// When the synchronous part ran.
    pub taken_at: SimTime,
    /// Records on the loop edges into this task when it took the snapshot: an iterative
    /// job's forced checkpoint holds none of them.
    #[serde(default)]
    pub loop_in_flight: Vec<crate::ids::RecordId>,
}

impl TaskSnapshot {
    pub fn channel_records(&self) -> usize {
        self.channel_state.iter().map(|c| c.records.len()).sum()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointOutcome {
    Pending,
    Completed,
    /// Timed out: discarded.
    Expired,
    /// Abandoned by a failover or subsumed.
    Aborted,
}

/// The checkpoint timeline the UI draws and the report prints.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CheckpointStat {
    pub id: u64,
    pub attempt: u32,
    pub triggered_at: SimTime,
    pub finished_at: Option<SimTime>,
    pub outcome: CheckpointOutcome,
    /// (task, when its acknowledgement arrived)
    pub acks: Vec<(u8, SimTime)>,
    /// The longest alignment among the tasks.
    pub alignment: SimTime,
    /// Flink's start delay: the longest time from the trigger until a task's first barrier
    /// reached it (under backpressure, barriers wait behind the records queued ahead).
    #[serde(default)]
    pub start_delay: SimTime,
    /// Tasks (other than sources, which the trigger reaches directly) whose first barrier
    /// has not arrived yet: while any has not, the start delay is not known.
    #[serde(default)]
    pub barriers_awaited: u32,
    pub unaligned_tasks: u32,
    pub channel_state_records: u32,
    pub last: bool,
}

impl CheckpointStat {
    pub fn duration(&self) -> Option<SimTime> {
        self.finished_at
            .map(|f| f.saturating_sub(self.triggered_at))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CompletedCheckpoint {
    pub id: u64,
    pub completed_at: SimTime,
    #[serde(with = "crate::serde_pairs")]
    pub snapshots: crate::vec_map::VecMap<u8, TaskSnapshot>,
}
