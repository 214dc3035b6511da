//! Checkpointing and runtime settings, with Flink's defaults.

use crate::time::{ms, SimTime};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckpointMode {
    ExactlyOnce,
    AtLeastOnce,
}

impl CheckpointMode {
    pub fn name(self) -> &'static str {
        match self {
            CheckpointMode::ExactlyOnce => "exactly-once",
            CheckpointMode::AtLeastOnce => "at-least-once",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FlinkConfig {
    pub mode: CheckpointMode,
    /// Unaligned checkpoints (exactly-once only, one concurrent checkpoint).
    pub unaligned: bool,
    /// Start aligned; switch to unaligned when alignment takes longer than this.
    pub aligned_timeout: Option<SimTime>,
    pub interval: SimTime,
    /// `execution.checkpointing.timeout`, 10 min by default.
    pub timeout: SimTime,
    pub max_concurrent: u32,
    pub min_pause: SimTime,
    /// Consecutive failed checkpoints tolerated before the job fails over (default 0).
    pub tolerable_failures: u32,
    /// Fixed-delay restart strategy.
    pub restart_delay: SimTime,
    /// Records a channel holds (credit-based flow control); barriers take no credit.
    pub channel_capacity: u32,
    pub channel_latency: SimTime,
    /// The asynchronous phase of a snapshot (upload to checkpoint storage).
    pub upload_time: SimTime,
    /// `enableCheckpointing(interval, mode, force = true)`: allowed on iterative jobs.
    pub force: bool,
    /// When the bounded run stops with a final checkpoint.
    pub stop_at: SimTime,
    pub poll_interval: SimTime,
    /// Output record id = `output_base` + input record id.
    pub output_base: u32,
}

impl FlinkConfig {
    pub const DEFAULT_TIMEOUT: SimTime = ms(600_000);

    pub fn unaligned_allowed(&self) -> bool {
        self.mode == CheckpointMode::ExactlyOnce && self.max_concurrent == 1
    }
}
