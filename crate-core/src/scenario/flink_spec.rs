//! The `[flink]` table of a scenario: checkpointing settings and the job graph.

use serde::{Deserialize, Serialize};

fn default_mode() -> String {
    "exactly-once".into()
}
fn default_interval() -> u64 {
    1_000
}
fn default_timeout() -> u64 {
    600_000
}
fn one_u32() -> u32 {
    1
}
fn default_restart() -> u64 {
    1_000
}
fn default_restart_strategy() -> String {
    "exponential-delay".into()
}
fn default_max_backoff() -> u64 {
    crate::flink::config::DEFAULT_MAX_BACKOFF_MS
}
fn default_capacity() -> u32 {
    16
}
fn default_channel_latency() -> u64 {
    200
}
fn default_upload() -> u64 {
    5
}
fn default_stop() -> u64 {
    10_000
}
fn default_poll() -> u64 {
    100
}
fn one_u8() -> u8 {
    1
}
fn default_processing() -> u64 {
    100
}
fn default_txn_timeout() -> u64 {
    900_000
}
fn default_prefix() -> String {
    "flink-sink".into()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlinkSpec {
    /// `exactly-once` (aligned barriers) or `at-least-once`.
    #[serde(default = "default_mode")]
    pub checkpointing: String,
    #[serde(default)]
    pub unaligned: bool,
    /// Start aligned, switch to unaligned after this long (0 or absent: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aligned_checkpoint_timeout_ms: Option<u64>,
    #[serde(default = "default_interval")]
    pub checkpoint_interval_ms: u64,
    #[serde(default = "default_timeout")]
    pub checkpoint_timeout_ms: u64,
    #[serde(default = "one_u32")]
    pub max_concurrent_checkpoints: u32,
    #[serde(default)]
    pub min_pause_ms: u64,
    #[serde(default)]
    pub tolerable_failed_checkpoints: u32,
    /// `exponential-delay` (Flink's default since 1.19) or `fixed-delay`.
    #[serde(default = "default_restart_strategy")]
    pub restart_strategy: String,
    /// The fixed delay, or exponential-delay's initial backoff.
    #[serde(default = "default_restart")]
    pub restart_delay_ms: u64,
    /// Exponential-delay's longest backoff.
    #[serde(default = "default_max_backoff")]
    pub restart_max_backoff_ms: u64,
    #[serde(default = "default_capacity")]
    pub channel_capacity: u32,
    #[serde(default = "default_channel_latency")]
    pub channel_latency_us: u64,
    #[serde(default = "default_upload")]
    pub upload_ms: u64,
    /// Checkpointing of an iterative job needs `force = true` (and loses loop-edge records).
    #[serde(default)]
    pub force: bool,
    /// The bounded run stops here with a final checkpoint (once the input is drained).
    #[serde(default = "default_stop")]
    pub stop_ms: u64,
    #[serde(default = "default_poll")]
    pub poll_interval_ms: u64,
    /// Workers the subtasks are spread over (round-robin); a fault can crash
    /// `taskmanager-N` with every subtask on it.
    #[serde(default = "one_u8")]
    pub taskmanagers: u8,
    pub operators: Vec<OperatorSpec>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperatorSpec {
    pub name: String,
    /// source, map, count, iterate, kafka-2pc, upsert, append
    pub kind: String,
    #[serde(default = "one_u8")]
    pub parallelism: u8,
    /// Upstream operators by name (none for a source).
    #[serde(default)]
    pub inputs: Vec<String>,
    #[serde(default = "default_processing")]
    pub processing_us: u64,
    /// Source and kafka-2pc: the topic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// Iterate: passes round the loop edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<u8>,
    /// kafka-2pc: `transaction.timeout.ms` of its Kafka transactions.
    #[serde(default = "default_txn_timeout")]
    pub transaction_timeout_ms: u64,
    #[serde(default = "default_prefix")]
    pub transactional_id_prefix: String,
}
