//! Flink's end-to-end outcome: what the sinks made visible, compared with the failure-free
//! run of the same scenario and seed (SEMANTICS §7 items 19–22).

use super::graph::{OperatorKind, SinkKind};
use super::job::Job;
use crate::ids::RecordId;
use crate::oracle::anomalies::readable_copies;
use crate::sim::Simulation;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a finished job left behind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlinkOutput {
    /// Two-phase-commit sinks: copies of each input record's output visible to
    /// read_committed readers of the sink topic.
    #[serde(with = "crate::serde_pairs")]
    pub committed: BTreeMap<RecordId, u32>,
    /// Append sink: copies of each input record in the external log.
    #[serde(with = "crate::serde_pairs")]
    pub appended: BTreeMap<RecordId, u32>,
    /// Upsert sink: key → value.
    #[serde(with = "crate::serde_pairs")]
    pub upserts: BTreeMap<u32, u64>,
    /// Keyed operator state: key → count, summed over subtasks.
    #[serde(with = "crate::serde_pairs")]
    pub state: BTreeMap<u32, u64>,
}

impl FlinkOutput {
    pub fn of(sim: &Simulation) -> Option<FlinkOutput> {
        let job = sim.flink.as_ref()?;
        let mut committed = BTreeMap::new();
        if has_2pc(job) {
            let base = job.config.output_base;
            for (id, copies) in readable_copies(sim) {
                if id.0 >= base {
                    committed.insert(RecordId(id.0 - base), copies.len() as u32);
                }
            }
        }
        Some(FlinkOutput {
            committed,
            appended: job.external.appended_copies(),
            upserts: crate::order::map_of(job.external.upserts.iter().map(|(k, (v, _))| (*k, *v))),
            state: job.state(),
        })
    }
}

/// The job writes to Kafka through a two-phase-commit sink (its other sinks write to an
/// external store the ledger does not follow).
pub fn has_2pc(job: &Job) -> bool {
    job.operators
        .iter()
        .any(|o| matches!(o.kind, OperatorKind::Sink(SinkKind::KafkaTwoPhase { .. })))
}

/// The differences between a run and its failure-free twin.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlinkDiff {
    /// Records the failure-free run output and this run did not (or fewer copies).
    pub lost: Vec<RecordId>,
    /// Records with more copies than in the failure-free run.
    pub duplicated: Vec<RecordId>,
    /// Keys whose state or upserted value differs: (key, failure-free, this run).
    pub state_differs: Vec<(u32, u64, u64)>,
}

impl FlinkDiff {
    pub fn is_empty(&self) -> bool {
        self.lost.is_empty() && self.duplicated.is_empty() && self.state_differs.is_empty()
    }
}

fn copies_diff(
    expected: &BTreeMap<RecordId, u32>,
    got: &BTreeMap<RecordId, u32>,
    diff: &mut FlinkDiff,
) {
    for (id, n) in expected {
        let g = got.get(id).copied().unwrap_or(0);
        if g < *n {
            diff.lost.push(*id);
        }
    }
    for (id, g) in got {
        if *g > expected.get(id).copied().unwrap_or(0) {
            diff.duplicated.push(*id);
        }
    }
}

fn values_diff(expected: &BTreeMap<u32, u64>, got: &BTreeMap<u32, u64>, diff: &mut FlinkDiff) {
    let keys: std::collections::BTreeSet<u32> =
        crate::order::set_of(expected.keys().chain(got.keys()).copied());
    for k in keys {
        let (e, g) = (
            expected.get(&k).copied().unwrap_or(0),
            got.get(&k).copied().unwrap_or(0),
        );
        if e != g && !diff.state_differs.iter().any(|(key, ..)| *key == k) {
            diff.state_differs.push((k, e, g));
        }
    }
}

pub fn diff(failure_free: &FlinkOutput, run: &FlinkOutput) -> FlinkDiff {
    let mut d = FlinkDiff::default();
    copies_diff(&failure_free.committed, &run.committed, &mut d);
    copies_diff(&failure_free.appended, &run.appended, &mut d);
    crate::order::sort(&mut d.lost);
    d.lost.dedup();
    crate::order::sort(&mut d.duplicated);
    d.duplicated.dedup();
    values_diff(&failure_free.upserts, &run.upserts, &mut d);
    values_diff(&failure_free.state, &run.state, &mut d);
    d
}
