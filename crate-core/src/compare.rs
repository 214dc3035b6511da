//! One scenario and its fault schedule under the three delivery guarantees: the comparison
//! the playground exists to show (SEMANTICS §1).

use crate::kafka::processor::Guarantee;
use crate::report::Report;
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::Simulation;
use crate::RunLimit;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Per input record, the copies of its output that read_committed readers see.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lane {
    pub guarantee: String,
    pub report: Report,
    /// Input record → visible output copies.
    pub ledger: BTreeMap<String, u32>,
    pub processed: u64,
    pub visible_outputs: u64,
    pub duplicates: u64,
    pub lost: u64,
    /// Inputs with no output that no stage has committed past: the run ended before they
    /// were processed (see `report::Processing::unread`).
    #[serde(default)]
    pub unread: Vec<String>,
    /// Partitions with no live leader at the end (their brokers down): nothing there can be
    /// read, so this lane's counts leave it out; the oracle names those records unavailable.
    #[serde(default)]
    pub offline: Vec<String>,
}

/// The scenario with every processor switched to `g`.
pub fn with_guarantee(s: &Scenario, g: Guarantee) -> Result<Scenario, ScenarioError> {
    let mut file = s.file.clone();
    for p in &mut file.processors {
        p.guarantee = g.name().to_string();
        // The output's idempotence is the author's choice only under at-least-once: the
        // other two fix it (off without retries, on with transactions).
        if g != Guarantee::AtLeastOnce {
            p.enable_idempotence = None;
        }
    }
    Scenario::from_file(file)
}

/// Runs the scenario three times, once per guarantee. Refused when it has no processor.
pub fn compare(s: &Scenario, seed: Option<u64>) -> Result<Vec<Lane>, String> {
    compare_by(s, seed, Report::of)
}

/// The same, with reports that leave out the invariants (`Report::counts`): what the page
/// shows.
pub fn compare_counts(s: &Scenario, seed: Option<u64>) -> Result<Vec<Lane>, String> {
    compare_by(s, seed, Report::counts)
}

fn compare_by(
    s: &Scenario,
    seed: Option<u64>,
    report_of: fn(&str, &Simulation) -> Report,
) -> Result<Vec<Lane>, String> {
    if s.file.processors.is_empty() {
        return Err(format!(
            "scenario \"{}\" has no read-process-write stage ([[processors]]): there is nothing to compare",
            s.name()
        ));
    }
    let mut lanes = Vec::new();
    for g in Guarantee::ALL {
        let scenario = with_guarantee(s, g).map_err(|e| e.to_string())?;
        let mut sim = scenario.simulation_without_trace(seed);
        sim.run(RunLimit::Completion);
        let report = report_of(s.name(), &sim);
        let processing = report.processing.clone().unwrap_or_default();
        lanes.push(Lane {
            guarantee: g.name().to_string(),
            ledger: processing.ledger.clone(),
            processed: processing.processed,
            visible_outputs: processing.visible_outputs,
            duplicates: processing.duplicates,
            lost: processing.lost,
            unread: processing.unread.clone(),
            offline: crate::sim::observe::partitions(&sim)
                .into_iter()
                .filter(|tp| crate::sim::observe::leader_replica(&sim, *tp).is_none())
                .map(|tp| sim.names.tp(tp))
                .collect(),
            report,
        });
    }
    Ok(lanes)
}
