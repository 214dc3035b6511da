//! What Flink's components report, for the trace, the narration and the oracle.

use super::names::Names;
use super::note::Notable;
use crate::ids::{NodeId, RecordId, Tp};
use crate::kafka::errors::KafkaError;
use crate::time::{format_duration, SimTime};

/// "1 record", "3 records".
fn count(n: u64) -> String {
    if n == 1 {
        "1 record".into()
    } else {
        format!("{n} records")
    }
}
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "flink")]
pub enum FlinkNote {
    CheckpointTriggered {
        id: u64,
        last: bool,
        /// The job's other checkpoints may be unaligned (unaligned, or an aligned timeout).
        unaligned_job: bool,
        /// A savepoint's: the checkpoints still pending, which it does not wait for.
        #[serde(default)]
        pending: Vec<u64>,
    },
    BarrierEmitted {
        task: NodeId,
        id: u64,
        positions: Vec<(Tp, u64)>,
    },
    BarrierReceived {
        task: NodeId,
        id: u64,
        /// Aligned: the channel is blocked until the other barriers arrive.
        blocked: bool,
        /// Unaligned: the barrier overtook the records queued ahead of it.
        #[serde(default)]
        overtook: bool,
        /// The channel's upstream subtask, and how many of the task's input channels have
        /// had this barrier, of how many (Flink aligns per channel: an input from a parallel
        /// operator is a channel per upstream subtask).
        #[serde(default)]
        from: Option<NodeId>,
        #[serde(default)]
        arrived: u32,
        #[serde(default)]
        channels: u32,
    },
    SwitchedToUnaligned {
        task: NodeId,
        id: u64,
    },
    SnapshotTaken {
        task: NodeId,
        id: u64,
        unaligned: bool,
        /// From the task's first barrier to its last: an alignment under EXACTLY_ONCE, a
        /// spread under AT_LEAST_ONCE (`tracked`), where no input is blocked.
        alignment: SimTime,
        #[serde(default)]
        tracked: bool,
        /// The barrier went on downstream (false for a sink, which has no output).
        #[serde(default)]
        forwarded: bool,
    },
    CheckpointAcked {
        id: u64,
        task: NodeId,
        acks: u32,
        of: u32,
    },
    CheckpointCompleted {
        id: u64,
        duration: SimTime,
        alignment: SimTime,
        /// The stop's savepoint.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        last: bool,
    },
    CheckpointExpired {
        id: u64,
        acks: u32,
        of: u32,
        /// The stop's savepoint: the stop fails, and is tried again.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        last: bool,
        /// The stop's last attempt: the run cancels the job instead of trying again.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        gives_up: bool,
    },
    NotifyReceived {
        task: NodeId,
        id: u64,
    },
    StopRequested,
    JobFinished {
        checkpoint: u64,
    },
    /// The stop's savepoint failed `attempts` times: the run cancels the job.
    JobCancelled {
        attempts: u32,
    },
    SourceEmitted {
        task: NodeId,
        record: RecordId,
        tp: Tp,
        offset: u64,
    },
    Processed {
        task: NodeId,
        record: RecordId,
        count: Option<u64>,
    },
    Looped {
        task: NodeId,
        record: RecordId,
        passes_left: u8,
    },
    SinkWrote {
        task: NodeId,
        record: RecordId,
        /// "upsert", "append" or the transactional id.
        how: String,
        /// The two-phase-commit sink: the partition it writes the record to, and its key.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<(Tp, Option<u32>)>,
    },
    SinkTxnBegun {
        task: NodeId,
        transactional_id: String,
        /// The transaction it leaves, which had nothing written: committed as is, a no-op
        /// that Kafka never hears of.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        empty_before: Option<String>,
    },
    SinkPreCommitted {
        task: NodeId,
        transactional_id: String,
        checkpoint: u64,
        records: u32,
    },
    SinkCommitted {
        task: NodeId,
        transactional_id: String,
        checkpoint: u64,
        /// The output records the transaction held.
        records: Vec<RecordId>,
        /// A restored transaction committed again (`recoverAndCommit`).
        #[serde(default)]
        recovered: bool,
    },
    /// Kafka refused the commit (the transaction had timed out and been aborted); Flink's
    /// `KafkaCommitter` discards it as failed for a known reason (no failover), so the
    /// records are lost without the job failing.
    SinkCommitRejected {
        task: NodeId,
        transactional_id: String,
        checkpoint: u64,
        records: Vec<RecordId>,
        error: KafkaError,
    },
    RecoverAndCommit {
        task: NodeId,
        transactional_id: String,
        checkpoint: u64,
    },
    LingeringAborted {
        task: NodeId,
        transactional_id: String,
    },
    JobFailing {
        cause: String,
        /// The restart strategy, and its delay before the jitter.
        #[serde(default)]
        strategy: crate::flink::config::RestartStrategy,
        #[serde(default)]
        backoff: SimTime,
        /// The checkpoints pending at the failure: aborted with it.
        #[serde(default)]
        aborted: Vec<u64>,
    },
    JobRestored {
        checkpoint: Option<u64>,
        replayed: u32,
        /// How long after the failure.
        #[serde(default)]
        after: SimTime,
    },
    /// At a restore: records that were on a loop edge when the restored checkpoint was taken.
    /// `on_loop` of them, of which `records` had not left the job (to its sink) before the
    /// failure: those are lost.
    LoopRecordsLost {
        records: u32,
        #[serde(default)]
        checkpoint: u64,
        #[serde(default)]
        on_loop: u32,
    },
    /// A cancelled 2PC sink closes its writer, which aborts the transaction it has open
    /// (Flink's KafkaWriter `close()`: `abortCurrentProducer`, best effort).
    WriterClosedAborting {
        task: NodeId,
        transactional_id: String,
    },
    /// The lingering-transaction probe after a restore reached an id never used (its
    /// InitProducerId answered epoch 0): nothing lingers past it, and the probe stops.
    LingeringProbeEnded {
        task: NodeId,
        transactional_id: String,
    },
    /// `notifyCheckpointComplete(notified)` commits, with that checkpoint's transaction,
    /// `earlier` ones (id, checkpoint, whether that checkpoint expired) still pending: their
    /// own checkpoint expired, or its notification never came.
    SinkCommitsEarlier {
        task: NodeId,
        notified: u64,
        earlier: Vec<(String, u64, bool)>,
    },
    /// The sink's InitProducerId had no answer within `request.timeout.ms`: it asks again,
    /// `to` the coordinator its client finds now.
    SinkInitTimedOut {
        task: NodeId,
        transactional_id: String,
        waited: SimTime,
        to: NodeId,
    },
}

impl FlinkNote {
    pub const KIND_NAMES: [&'static str; 29] = [
        "checkpoint_triggered",
        "barrier_emitted",
        "barrier_received",
        "switched_to_unaligned",
        "snapshot_taken",
        "checkpoint_acked",
        "checkpoint_completed",
        "checkpoint_expired",
        "notify_received",
        "stop_requested",
        "job_finished",
        "job_cancelled",
        "source_emitted",
        "processed",
        "looped",
        "sink_wrote",
        "sink_txn_begun",
        "sink_pre_committed",
        "sink_committed",
        "sink_commit_rejected",
        "recover_and_commit",
        "lingering_aborted",
        "job_failing",
        "job_restored",
        "loop_records_lost",
        "writer_closed_aborting",
        "lingering_probe_ended",
        "sink_commits_earlier",
        "sink_init_timed_out",
    ];

    /// The stable snake_case name of the event (its serialized `flink` tag).
    pub fn kind_name(&self) -> &'static str {
        match self {
            FlinkNote::CheckpointTriggered { .. } => "checkpoint_triggered",
            FlinkNote::BarrierEmitted { .. } => "barrier_emitted",
            FlinkNote::BarrierReceived { .. } => "barrier_received",
            FlinkNote::SwitchedToUnaligned { .. } => "switched_to_unaligned",
            FlinkNote::SnapshotTaken { .. } => "snapshot_taken",
            FlinkNote::CheckpointAcked { .. } => "checkpoint_acked",
            FlinkNote::CheckpointCompleted { .. } => "checkpoint_completed",
            FlinkNote::CheckpointExpired { .. } => "checkpoint_expired",
            FlinkNote::NotifyReceived { .. } => "notify_received",
            FlinkNote::StopRequested => "stop_requested",
            FlinkNote::JobFinished { .. } => "job_finished",
            FlinkNote::JobCancelled { .. } => "job_cancelled",
            FlinkNote::SourceEmitted { .. } => "source_emitted",
            FlinkNote::Processed { .. } => "processed",
            FlinkNote::Looped { .. } => "looped",
            FlinkNote::SinkWrote { .. } => "sink_wrote",
            FlinkNote::SinkTxnBegun { .. } => "sink_txn_begun",
            FlinkNote::SinkPreCommitted { .. } => "sink_pre_committed",
            FlinkNote::SinkCommitted { .. } => "sink_committed",
            FlinkNote::SinkCommitRejected { .. } => "sink_commit_rejected",
            FlinkNote::RecoverAndCommit { .. } => "recover_and_commit",
            FlinkNote::LingeringAborted { .. } => "lingering_aborted",
            FlinkNote::JobFailing { .. } => "job_failing",
            FlinkNote::JobRestored { .. } => "job_restored",
            FlinkNote::LoopRecordsLost { .. } => "loop_records_lost",
            FlinkNote::WriterClosedAborting { .. } => "writer_closed_aborting",
            FlinkNote::LingeringProbeEnded { .. } => "lingering_probe_ended",
            FlinkNote::SinkCommitsEarlier { .. } => "sink_commits_earlier",
            FlinkNote::SinkInitTimedOut { .. } => "sink_init_timed_out",
        }
    }

    pub fn notable(&self) -> Option<Notable> {
        match self {
            FlinkNote::CheckpointCompleted { .. } => Some(Notable::Checkpoint),
            FlinkNote::CheckpointExpired { .. } => Some(Notable::Abort),
            FlinkNote::SinkCommitted { .. } => Some(Notable::Commit),
            FlinkNote::SinkCommitRejected { .. } | FlinkNote::LoopRecordsLost { .. } => {
                Some(Notable::Loss)
            }
            FlinkNote::LingeringAborted { .. } | FlinkNote::WriterClosedAborting { .. } => {
                Some(Notable::Abort)
            }
            FlinkNote::JobFailing { .. }
            | FlinkNote::JobRestored { .. }
            | FlinkNote::JobCancelled { .. } => Some(Notable::Crash),
            _ => None,
        }
    }

    pub fn narrate(&self, names: &Names) -> String {
        let n = |node: &NodeId| names.spoken(*node);
        let rec = |r: &RecordId| names.record(*r);
        match self {
            FlinkNote::CheckpointTriggered { id, last: false, .. } => format!(
                "The JobManager triggers checkpoint {id}: each source records its position and emits barrier {id}."
            ),
            FlinkNote::CheckpointTriggered {
                id,
                last: true,
                unaligned_job,
                pending,
            } => format!(
                "The JobManager stops the job with savepoint {id}: each source reads the rest of its input first, then sends barrier {id} as its last record and finishes.{}{}",
                if *unaligned_job {
                    " A savepoint is always aligned, unlike this job's checkpoints: its barriers wait behind the buffered records."
                } else {
                    ""
                },
                match pending.as_slice() {
                    [] => String::new(),
                    [one] => format!(" It does not wait for checkpoint {one}, still pending: a savepoint is not held back by the limit on concurrent checkpoints (its barriers follow that checkpoint's)."),
                    many => format!(" It does not wait for checkpoints {}, still pending: a savepoint is not held back by the limit on concurrent checkpoints (its barriers follow theirs).", many.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")),
                }
            ),
            FlinkNote::BarrierEmitted { task, id, positions } => {
                let pos: Vec<String> = positions
                    .iter()
                    .map(|(tp, o)| format!("{} at offset {o}", names.tp(*tp)))
                    .collect();
                format!(
                    "{} snapshots its position ({}) and sends barrier {id} downstream.",
                    n(task),
                    if pos.is_empty() { "no partitions".to_string() } else { pos.join(", ") }
                )
            }
            FlinkNote::BarrierReceived { task, id, blocked, overtook, from, arrived, channels } => {
                // "from enrich-0 (1 of 2 input channels)": which channel, and how far along.
                let channel = match from {
                    Some(f) if *channels > 1 => format!(
                        " from {} ({arrived} of {channels} input channels)",
                        n(f)
                    ),
                    Some(f) => format!(" from {}", n(f)),
                    None => " on one input channel".to_string(),
                };
                let others = if channels.saturating_sub(*arrived) == 1 {
                    "the other one"
                } else {
                    "every other one"
                };
                if *blocked {
                    format!(
                        "Barrier {id} reaches {}{channel}: that channel is blocked (its records wait in the buffer) until barrier {id} has arrived on {others}.",
                        n(task)
                    )
                } else if *overtook {
                    format!(
                        "Barrier {id} reaches {}{channel}, ahead of the records queued in that channel (unaligned, it overtook them): they will go into the checkpoint as channel state, and the channel is not blocked.",
                        n(task)
                    )
                } else {
                    format!(
                        "Barrier {id} reaches {}{channel}; the channel is not blocked.",
                        n(task)
                    )
                }
            }
            FlinkNote::SwitchedToUnaligned { task, id } => format!(
                "Checkpoint {id} started longer ago than aligned_checkpoint_timeout (Flink's execution.checkpointing.aligned-checkpoint-timeout): at {} it continues unaligned, and its barriers overtake the records queued ahead of them.",
                n(task)
            ),
            FlinkNote::SnapshotTaken { task, id, unaligned, alignment, tracked, forwarded } => format!(
                "{} takes snapshot {id}{}{}{}.",
                n(task),
                if *unaligned { " (unaligned: in-flight records go into the checkpoint)" } else { "" },
                if *forwarded { " and forwards the barrier" } else { "" },
                match (*alignment > 0, *tracked) {
                    (false, _) => String::new(),
                    (true, false) => format!(" after {} of alignment", format_duration(*alignment)),
                    (true, true) => format!(
                        " {} after its first barrier (no input was blocked)",
                        format_duration(*alignment)
                    ),
                }
            ),
            FlinkNote::CheckpointAcked { id, task, acks, of } => format!(
                "{} acknowledges checkpoint {id} ({acks} of {of}).",
                n(task)
            ),
            FlinkNote::CheckpointCompleted { id, duration, last, .. } => format!(
                "{} {id} is complete after {}: every task acknowledged. notifyCheckpointComplete({id}) goes out.",
                if *last { "The stop's savepoint" } else { "Checkpoint" },
                format_duration(*duration)
            ),
            FlinkNote::CheckpointExpired { id, acks, of, last: false, .. } => format!(
                "Checkpoint {id} expires at the checkpoint timeout with {acks} of {of} acknowledgements: it is discarded."
            ),
            FlinkNote::CheckpointExpired { id, acks, of, last: true, gives_up: true } => format!(
                "The stop's savepoint {id} expires at the checkpoint timeout with {acks} of {of} acknowledgements: the stop fails for the third time, and the run gives up on it."
            ),
            FlinkNote::CheckpointExpired { id, acks, of, last: true, gives_up: false } => format!(
                "The stop's savepoint {id} expires at the checkpoint timeout with {acks} of {of} acknowledgements (a savepoint has the checkpoints' timeout): the stop fails and the job keeps running. The run tries the stop again at once with a new savepoint, as an operator would, three times at most; a failed savepoint does not count against the tolerable checkpoint failures."
            ),
            FlinkNote::NotifyReceived { task, id } => {
                format!("{} learns that checkpoint {id} is complete.", n(task))
            }
            FlinkNote::StopRequested => {
                "The run ends: the JobManager will stop the job with a savepoint once the sources have read their input to the end. (Flink's own stop-with-savepoint stops a source where it is; here the input is read to the end first, so that every run's output, with faults or without, covers all of it.)".into()
            }
            FlinkNote::JobFinished { checkpoint } => format!(
                "The job finished with checkpoint {checkpoint}; the sinks commit what it covers."
            ),
            FlinkNote::JobCancelled { attempts } => format!(
                "The stop's savepoint failed {attempts} times: the run gives up and cancels the job (`flink cancel`), as an operator would. Every task is cancelled, with no savepoint: in-flight records and uncommitted work are gone, and a two-phase-commit sink's pre-committed transactions are left to the next start (or to their timeout)."
            ),
            FlinkNote::SourceEmitted { task, record, tp, offset } => format!(
                "{} reads {} from {} at offset {offset} and emits it.",
                n(task),
                rec(record),
                names.tp(*tp)
            ),
            FlinkNote::Processed { task, record, count: Some(c) } => {
                format!("{} counts {}: the count for its key is now {c}.", n(task), rec(record))
            }
            FlinkNote::Processed { task, record, count: None } => {
                format!("{} processes {}.", n(task), rec(record))
            }
            FlinkNote::Looped { task, record, passes_left } => format!(
                "{} sends {} round the loop edge ({passes_left} {} left).",
                n(task),
                rec(record),
                if *passes_left == 1 { "pass" } else { "passes" }
            ),
            FlinkNote::SinkWrote { task, record, how, .. } => match how.as_str() {
                "upsert" => format!("{} upserts {} into the store (by key).", n(task), rec(record)),
                "append" => format!("{} appends {} to the external log.", n(task), rec(record)),
                tid => format!("{} writes {} in transaction {tid}.", n(task), rec(record)),
            },
            FlinkNote::SinkTxnBegun { task, transactional_id, empty_before: None } => format!(
                "{} begins a transaction: {transactional_id}. It asks the coordinator for the id's producer (InitProducerId, Flink's initTransactions) and waits for the answer in its task thread: until then it takes no record and its snapshot is not done.",
                n(task)
            ),
            FlinkNote::SinkTxnBegun { task, transactional_id, empty_before: Some(empty) } => format!(
                "{} wrote nothing in {empty} since the last barrier: it commits that empty transaction as is (a no-op Kafka never hears of) and begins the next checkpoint's: {transactional_id}, waiting in its task thread for the coordinator's InitProducerId answer.",
                n(task)
            ),
            FlinkNote::SinkPreCommitted { task, transactional_id, checkpoint, records } => format!(
                "{} pre-commits {transactional_id} ({}) on barrier {checkpoint}: flushed, stored in the checkpoint as pending.",
                n(task),
                count(u64::from(*records))
            ),
            FlinkNote::SinkCommitted { task, transactional_id, checkpoint, records, recovered: true } => format!(
                "{}'s recoverAndCommit of {transactional_id} (checkpoint {checkpoint}, {}) succeeds: the transaction is committed. Kafka answers the same whether this call committed it or an earlier one had (a commit is idempotent), so its records are visible once either way.",
                n(task),
                count(records.len() as u64)
            ),
            FlinkNote::SinkCommitted { task, transactional_id, checkpoint, records, recovered: false } => format!(
                "{} commits {transactional_id} (checkpoint {checkpoint}, {}): Kafka has decided the commit; read_committed readers see the records once its COMMIT markers are written.",
                n(task),
                count(records.len() as u64)
            ),
            FlinkNote::SinkCommitRejected { task, transactional_id, checkpoint, records, error } => format!(
                "Kafka refuses to commit {transactional_id} ({}): it was aborted at the transaction timeout. {} discards the commit as failed for a known reason (the committer's `signalFailedWithKnownReason`: no failover) — the {} records of checkpoint {checkpoint} are lost. The job does not fail: only an error in the sink's log says so (\"…most likely signals data loss\").",
                error.name(),
                n(task),
                records.len()
            ),
            FlinkNote::RecoverAndCommit { task, transactional_id, checkpoint } => format!(
                "{} restores checkpoint {checkpoint}'s pending transaction {transactional_id} and commits it (recoverAndCommit).",
                n(task)
            ),
            FlinkNote::LingeringAborted { task, transactional_id } => format!(
                "{} calls InitProducerId on {transactional_id}, an id it used before: that fences the id and aborts any transaction it left open (a lingering one). It tries the next id.",
                n(task)
            ),
            FlinkNote::LingeringProbeEnded { task, transactional_id } => format!(
                "{} calls InitProducerId on {transactional_id} to look for a lingering transaction: the id was never used (epoch 0), so none is left after it, and the search stops. (The coordinator records the new id as Empty.)",
                n(task)
            ),
            FlinkNote::SinkCommitsEarlier { task, notified, earlier } => format!(
                "Checkpoint {notified} is complete: {} commits every transaction still pending in its state up to it, and so also {}. A pre-committed transaction waits there for a checkpoint that completes; whether Kafka still holds it open, the commit's answer tells.",
                n(task),
                earlier
                    .iter()
                    .map(|(id, cp, expired)| if *expired {
                        format!("{id} (pre-committed for checkpoint {cp}, which expired)")
                    } else {
                        format!("{id} (pre-committed for checkpoint {cp}, whose completion it never heard of)")
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            FlinkNote::SinkInitTimedOut { task, transactional_id, waited, to } => format!(
                "{} heard nothing for {} ms (request.timeout.ms) about InitProducerId for {transactional_id}: its client looks the coordinator up again (FindCoordinator) and asks {}.",
                n(task),
                waited / 1000,
                n(to)
            ),
            FlinkNote::WriterClosedAborting { task, transactional_id } => format!(
                "{} is cancelled: closing its KafkaWriter, it aborts the transaction it has open, {transactional_id} (EndTxn(abort), best effort). A writer whose process died cannot; the restored writer aborts it then.",
                n(task)
            ),
            FlinkNote::JobFailing { cause, strategy, backoff, aborted } => format!(
                "The job fails over ({cause}): every task is cancelled; in-flight records and uncommitted work are gone.{} {}",
                match aborted.as_slice() {
                    [] => String::new(),
                    [one] => format!(" Checkpoint {one}, pending, is aborted."),
                    more => format!(" Checkpoints {}, pending, are aborted.", more.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")),
                },
                match strategy {
                    crate::flink::config::RestartStrategy::FixedDelay => format!("It restarts in {} (fixed-delay).", format_duration(*backoff)),
                    crate::flink::config::RestartStrategy::ExponentialDelay => format!(
                        "It restarts in about {} (exponential-delay: ± 10 %, and × 1.5 for each failure that follows within an hour).",
                        format_duration(*backoff)
                    ),
                }
            ),
            FlinkNote::JobRestored { checkpoint: Some(id), replayed, after } => format!(
                "The job restarts from checkpoint {id}, {} after the failure: state restored, sources rewound{}.",
                format_duration(*after),
                if *replayed > 0 { format!(", {replayed} in-flight records replayed from the checkpoint first") } else { String::new() }
            ),
            FlinkNote::JobRestored { checkpoint: None, after, .. } => format!(
                "The job restarts from scratch, {} after the failure: no checkpoint had completed.",
                format_duration(*after)
            ),
            FlinkNote::LoopRecordsLost { records, checkpoint, on_loop } => {
                let were = |n: u32| if n == 1 { "1 record was".to_string() } else { format!("{n} records were") };
                let head = format!(
                    "{} on the iteration's loop edge when checkpoint {checkpoint} was taken: a forced checkpoint of an iterative job does not hold them, and the sources, rewound to it, do not read them again (what entered the loop after the checkpoint is read again), so the restored job never finishes them.",
                    were(*on_loop)
                );
                match on_loop.saturating_sub(*records) {
                    0 => format!("{head} They are lost."),
                    done => format!(
                        "{head} {} left the job before the failure; the other {records} {} lost.",
                        if done == 1 { "1 of them had already".to_string() } else { format!("{done} of them had already") },
                        if *records == 1 { "is" } else { "are" }
                    ),
                }
            }
        }
    }
}
