//! Outcomes over time: the same scenario and fault schedule under the three guarantees,
//! sampled evenly over each run's steps (runs often idle for long stretches of simulated
//! time, say waiting out a transaction timeout, so steps are the even measure). How many inputs have their output visible to read_committed
//! readers, how many extra copies those readers see, and how many inputs were skipped for
//! good: the page draws one line per guarantee.
//!
//! A chain of processors is followed from the first stage's input to the last stage's output
//! (`report::pipeline`).
//!
//! "Skipped" at a moment: an input the first processor's position has moved past (after a restart,
//! its committed offset) that it neither holds nor ever handed to its output client, and
//! whose output nobody sees. An output lost after it was handed over (a crash before the
//! send) is known only at the end: the last point counts every loss, as the report does.

use crate::compare::with_guarantee;
use crate::ids::RecordId;
use crate::kafka::processor::Guarantee;
use crate::oracle::anomalies::readable_copies;
use crate::report::processing;
use crate::scenario::Scenario;
use crate::sim::Simulation;
use crate::time::SimTime;
use crate::{RunLimit, StepOutcome};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The most samples a lane takes (besides the start and the end).
pub const MAX_SAMPLES: usize = 400;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomePoint {
    pub step: u64,
    pub time: SimTime,
    /// Inputs with at least one visible output copy.
    pub visible: u64,
    /// Visible copies beyond the first, over all inputs.
    pub duplicates: u64,
    /// Inputs with no visible output that will not get one (see the module's note).
    pub lost: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeLane {
    pub guarantee: String,
    pub points: Vec<OutcomePoint>,
}

/// The counts at this moment of a run with a processor (`None` without one).
pub fn outcome_now(sim: &Simulation, finished: bool) -> Option<OutcomePoint> {
    let copies = readable_copies(sim);
    let summary = processing(sim, &copies)?;
    let lost = if finished {
        summary.lost
    } else {
        skipped(sim, &copies).len() as u64
    };
    Some(OutcomePoint {
        step: sim.steps(),
        // The last step's time: a finished run's clock may have moved on to a stale timer
        // (a session timeout minutes later) that did nothing.
        time: sim.last_step_at(),
        visible: summary.ledger.values().filter(|n| **n > 0).count() as u64,
        duplicates: summary.duplicates,
        lost,
    })
}

/// The inputs skipped at this moment (see the module's note), each with the output it will
/// never have: (input, output), in record order. Empty without a processor.
pub fn skipped_now(sim: &Simulation) -> Vec<(RecordId, RecordId)> {
    skipped(sim, &readable_copies(sim))
}

fn skipped(
    sim: &Simulation,
    copies: &std::collections::BTreeMap<RecordId, Vec<(crate::ids::Tp, u64)>>,
) -> Vec<(RecordId, RecordId)> {
    let stages = crate::report::pipeline::pipeline(sim);
    let Some(p) = stages.first() else {
        return Vec::new();
    };
    let handled: BTreeSet<_> = crate::order::set_of(
        p.processed
            .iter()
            .chain(p.batch.iter().map(|r| &r.value))
            .chain(p.held.iter().map(|r| &r.value))
            .copied(),
    );
    copies
        .iter()
        .filter(|(id, at)| {
            !handled.contains(*id)
                && at.iter().any(|(tp, offset)| {
                    p.settings.inputs.contains(tp)
                        && p.positions.get(tp).is_some_and(|pos| offset < pos)
                })
        })
        .map(|(id, _)| (*id, crate::report::pipeline::output_through(&stages, *id)))
        .filter(|(_, out)| !copies.contains_key(out))
        .collect()
}

/// One lane per guarantee, each sampled evenly over its own run's steps: its start,
/// `samples - 1` points between (`samples` at most `MAX_SAMPLES`), and its end. Refused without a processor.
pub fn outcomes_over_time(
    s: &Scenario,
    seed: Option<u64>,
    samples: usize,
) -> Result<Vec<OutcomeLane>, String> {
    if s.file.processors.is_empty() {
        return Err(format!(
            "scenario \"{}\" has no read-process-write stage: there are no outcomes to follow",
            s.name()
        ));
    }
    let samples = samples.clamp(1, MAX_SAMPLES) as u64;
    let mut lanes = Vec::new();
    for g in Guarantee::ALL {
        let scenario = with_guarantee(s, g).map_err(|e| e.to_string())?;
        // Once to learn how long the run is, once to sample it.
        let mut probe = scenario.simulation_without_trace(seed);
        probe.run(RunLimit::Completion);
        let total = probe.steps().max(1);
        let mut sim = scenario.simulation_without_trace(seed);
        let mut points = Vec::new();
        points.extend(outcome_now(&sim, false));
        let mut next = 1u64;
        loop {
            let outcome = sim.step();
            if outcome != StepOutcome::Stepped {
                points.extend(outcome_now(&sim, true));
                break;
            }
            let due = u128::from(total) * u128::from(next) / u128::from(samples);
            if u128::from(sim.steps()) >= due && next < samples {
                points.extend(outcome_now(&sim, false));
                next += 1;
            }
        }
        lanes.push(OutcomeLane {
            guarantee: g.name().to_string(),
            points,
        });
    }
    Ok(lanes)
}
