//! The Flink part of the JSON report: checkpoint statistics, failovers, what the sinks made
//! visible, and the comparison with the failure-free run.

use super::outcome::{diff, FlinkDiff, FlinkOutput};
use super::snapshot::{CheckpointOutcome, CheckpointStat};
use crate::scenario::Scenario;
use crate::sim::{RunLimit, Simulation};
use crate::time::to_ms;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointLine {
    pub id: u64,
    pub outcome: String,
    pub triggered_at_ms: u64,
    pub duration_ms: Option<u64>,
    pub alignment_ms: u64,
    /// The same in microseconds: an alignment under a millisecond is not 0.
    #[serde(default)]
    pub alignment_us: u64,
    /// The longest time from the trigger until a task's first barrier arrived (Flink's start
    /// delay); `null` while some task never got its barrier (an expired checkpoint's, say).
    #[serde(default)]
    pub start_delay_ms: Option<u64>,
    pub acks: u32,
    pub unaligned_tasks: u32,
    pub channel_state_records: u32,
    /// The savepoint that stops the job (stop-with-savepoint), not a periodic checkpoint.
    #[serde(default)]
    pub savepoint: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlinkReport {
    pub checkpointing: String,
    /// Unaligned checkpoints are enabled (with an aligned checkpoint timeout, each
    /// checkpoint starts aligned).
    pub unaligned: bool,
    /// `execution.checkpointing.aligned-checkpoint-timeout`, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aligned_checkpoint_timeout_ms: Option<u64>,
    /// How the job ended: `finished` (stopped with a savepoint), `cancelled` (the stop's
    /// savepoint kept failing), or `running` / `restarting` when the run ended first.
    #[serde(default)]
    pub end: String,
    pub completed: u32,
    pub expired: u32,
    pub aborted: u32,
    pub failovers: u32,
    /// The checkpoint each restart restored (`null`: from scratch).
    pub restored_from: Vec<Option<u64>>,
    pub checkpoints: Vec<CheckpointLine>,
    pub output: FlinkOutput,
    /// The per-record ledger through the job: input record → how often a source read it,
    /// how often it was counted into keyed state, and its output copies in the sinks.
    pub ledger: BTreeMap<String, LedgerLine>,
    /// Against the same scenario and seed without faults; absent when not computed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub versus_failure_free: Option<FlinkDiff>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerLine {
    pub read: u32,
    pub counted: u32,
    /// Copies visible to read_committed readers of 2PC sink topics.
    pub committed: u32,
    pub appended: u32,
}

fn ledger(job: &crate::flink::Job, output: &FlinkOutput) -> BTreeMap<String, LedgerLine> {
    let mut m: BTreeMap<crate::ids::RecordId, LedgerLine> = BTreeMap::new();
    for (id, n) in &job.read {
        m.entry(*id).or_default().read = *n;
    }
    for (id, n) in &job.counted {
        m.entry(*id).or_default().counted = *n;
    }
    for (id, n) in &output.committed {
        m.entry(*id).or_default().committed = *n;
    }
    for (id, n) in &output.appended {
        m.entry(*id).or_default().appended = *n;
    }
    crate::order::map_of(m.into_iter().map(|(id, l)| (id.to_string(), l)))
}

fn line(s: &CheckpointStat) -> CheckpointLine {
    CheckpointLine {
        id: s.id,
        outcome: match s.outcome {
            CheckpointOutcome::Pending => "pending",
            CheckpointOutcome::Completed => "completed",
            CheckpointOutcome::Expired => "expired",
            CheckpointOutcome::Aborted => "aborted",
        }
        .into(),
        triggered_at_ms: to_ms(s.triggered_at),
        duration_ms: s.duration().map(to_ms),
        alignment_ms: to_ms(s.alignment),
        alignment_us: s.alignment,
        start_delay_ms: (s.barriers_awaited == 0).then(|| to_ms(s.start_delay)),
        acks: s.acks.len() as u32,
        unaligned_tasks: s.unaligned_tasks,
        channel_state_records: s.channel_state_records,
        savepoint: s.last,
    }
}

impl FlinkReport {
    pub fn of(sim: &Simulation) -> Option<FlinkReport> {
        let job = sim.flink.as_ref()?;
        let h = &job.coordinator.history;
        let count = |o: CheckpointOutcome| h.iter().filter(|s| s.outcome == o).count() as u32;
        let output = FlinkOutput::of(sim)?;
        Some(FlinkReport {
            ledger: ledger(job, &output),
            checkpointing: job.config.mode.name().into(),
            unaligned: job.config.unaligned || job.config.aligned_timeout.is_some(),
            aligned_checkpoint_timeout_ms: job.config.aligned_timeout.map(to_ms),
            end: match job.phase {
                super::job::JobPhase::Running => "running",
                super::job::JobPhase::Restarting => "restarting",
                super::job::JobPhase::Finished => "finished",
                super::job::JobPhase::Cancelled => "cancelled",
            }
            .into(),
            completed: count(CheckpointOutcome::Completed),
            expired: count(CheckpointOutcome::Expired),
            aborted: count(CheckpointOutcome::Aborted),
            failovers: job.failovers,
            restored_from: job.restores.iter().map(|r| r.checkpoint).collect(),
            checkpoints: h.iter().map(line).collect(),
            output,
            versus_failure_free: None,
        })
    }
}

/// The scenario's failure-free twin: the same job, input and seed, no faults, and no sink
/// transaction that can time out (each 2PC sink's `transaction.timeout.ms` at the broker's
/// cap, 15 minutes): a timeout shorter than a checkpoint's round trip loses output with no
/// fault at all, and the twin would lose it too and call the run faithful.
pub fn failure_free_output(scenario: &Scenario, seed: Option<u64>) -> Option<FlinkOutput> {
    let mut file = scenario.file.clone();
    file.faults.clear();
    if let Some(job) = file.flink.as_mut() {
        for o in job.operators.iter_mut().filter(|o| o.kind == "kafka-2pc") {
            o.transaction_timeout_ms = 900_000;
        }
    }
    let twin = Scenario::from_file(file).ok()?;
    let mut sim = twin.simulation_without_trace(seed);
    sim.run(RunLimit::Completion);
    FlinkOutput::of(&sim)
}

/// Compares a finished run with its failure-free twin.
pub fn versus_failure_free(
    scenario: &Scenario,
    seed: Option<u64>,
    sim: &Simulation,
) -> Option<FlinkDiff> {
    let run = FlinkOutput::of(sim)?;
    let ff = failure_free_output(scenario, seed)?;
    Some(diff(&ff, &run))
}
