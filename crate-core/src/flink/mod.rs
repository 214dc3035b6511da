//! Apache Flink on the same engine (SEMANTICS §4–§5): a job graph of subtasks joined by
//! bounded FIFO channels, checkpoint barriers (aligned, at-least-once, unaligned, aligned
//! with a timeout), a checkpoint coordinator, restart from the latest completed checkpoint,
//! and sinks (a two-phase-commit sink writing Kafka transactions through the brokers, an
//! idempotent upsert store, a plain append store). Kafka is the replayable source.

pub mod channel;
pub mod config;
pub mod coordinator;
pub mod external;
pub mod graph;
pub mod invariants;
pub mod job;
pub mod kafka_sink;
pub mod outcome;
pub mod record;
pub mod recovery;
pub mod report;
pub mod restart;
pub mod rpc;
pub mod snapshot;
pub mod source;
pub mod task;

pub use config::{CheckpointMode, FlinkConfig};
pub use job::Job;
pub use record::FRecord;

use serde::{Deserialize, Serialize};

/// Flink's timers. Task timers carry the job attempt they were set in: a restart voids them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlinkTimer {
    /// JobManager: time for the next periodic checkpoint.
    Trigger { attempt: u32 },
    /// JobManager: the checkpoint's timeout.
    Expire { id: u64 },
    /// JobManager: the restart delay is over; restore and go.
    Restart { attempt: u32 },
    /// JobManager: stop with a final checkpoint (the bounded run's end).
    Stop,
    /// Task: take the next item from the inputs (or the next fetched record, for a source).
    /// `wake` numbers the task's Process timers: an idle task woken earlier by a record on
    /// another input voids the later timer it had set.
    Process {
        attempt: u32,
        #[serde(default)]
        wake: u32,
    },
    /// Source task: fetch from Kafka.
    Poll { attempt: u32 },
    /// Task: the asynchronous part of snapshot `id` is uploaded; acknowledge it.
    Uploaded { attempt: u32, id: u64 },
    /// Task: aligned checkpoint `id` has waited longer than the aligned-checkpoint timeout.
    AlignmentTimeout { attempt: u32, id: u64 },
    /// Sink task: ask the transaction coordinator again (it was busy).
    SinkRetry { attempt: u32 },
    /// Sink task, cancelled at a failover: close the writer (a timer of a task whose
    /// process died is void, so only a live one closes).
    CloseWriter { attempt: u32 },
    /// Sink task: InitProducerId `request` had no answer within `request.timeout.ms` (its
    /// coordinator's broker died): ask again, where the coordinator is now.
    SinkInitTimeout { attempt: u32, request: u64 },
}
