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

/// `restart-strategy.type`. With checkpointing on and none set, Flink 1.19 and later use
/// exponential-delay (before: fixed-delay, 1 s, no limit on attempts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RestartStrategy {
    /// Every restart waits `restart_delay`.
    FixedDelay,
    /// The first restart waits `restart_delay` (`initial-backoff`); each failure within
    /// [`BACKOFF_RESET`] of the one before multiplies the backoff by 1.5, up to `max_backoff`;
    /// every delay is spread by ± 10 % (`jitter-factor`) (Flink's
    /// `ExponentialDelayRestartBackoffTimeStrategy`, 1.19 defaults).
    #[default]
    ExponentialDelay,
}

impl RestartStrategy {
    pub fn name(self) -> &'static str {
        match self {
            RestartStrategy::FixedDelay => "fixed-delay",
            RestartStrategy::ExponentialDelay => "exponential-delay",
        }
    }
}

/// `restart-strategy.exponential-delay.reset-backoff-threshold`: a failure this long (plus
/// the current backoff) after the one before starts again at the initial backoff.
pub const BACKOFF_RESET: SimTime = ms(3_600_000);
/// `restart-strategy.exponential-delay.jitter-factor`, as a percentage.
pub const BACKOFF_JITTER_PERCENT: u8 = 10;
/// `restart-strategy.exponential-delay.max-backoff` by default.
pub const DEFAULT_MAX_BACKOFF_MS: u64 = 60_000;

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
    #[serde(default)]
    pub restart_strategy: RestartStrategy,
    /// The fixed delay, or exponential-delay's initial backoff.
    pub restart_delay: SimTime,
    /// Exponential-delay's longest backoff.
    #[serde(default)]
    pub max_backoff: SimTime,
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
