//! One headless run of a lesson's simulation that finds, in order, the step at which each
//! narration point is reached, and reads each question's probe there.

use super::point::{Reached, Until};
use super::probe::Probe;
use crate::scenario::FieldError;
use crate::sim::{Simulation, StepOutcome};
use crate::time::{to_ms, SimTime};
use serde::{Deserialize, Serialize};

/// Where a narration step stands in the run: after `step` steps (0: before the first), at
/// simulated time `time`. The web seeks to `step` to show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolvedStep {
    /// The narration step's index in the lesson.
    pub index: u32,
    pub step: u64,
    pub time: SimTime,
}

pub(crate) struct Walk {
    pub resolved: Vec<ResolvedStep>,
    /// Per narration step, what its question's probe read at its point.
    pub readings: Vec<Option<i64>>,
    pub steps: u64,
    pub end: SimTime,
}

/// Runs `sim` (fresh, with its trace kept) to the end, or until the last point.
pub(crate) fn walk(
    mut sim: Simulation,
    points: &[Until],
    probes: &[Option<&Probe>],
) -> Result<Walk, FieldError> {
    let mut resolved = Vec::with_capacity(points.len());
    let mut readings = Vec::with_capacity(points.len());
    let mut finished = false;
    loop {
        while let Some(point) = points.get(resolved.len()) {
            let i = resolved.len();
            let after = resolved.last().map_or(0, |r: &ResolvedStep| r.step);
            match point.reached(&mut sim, after, finished) {
                Reached::Yes => {
                    resolved.push(ResolvedStep {
                        index: u32::try_from(i).unwrap_or(u32::MAX),
                        step: sim.steps(),
                        time: sim.last_step_at(),
                    });
                    readings.push(probes.get(i).copied().flatten().map(|p| p.read(&sim)));
                }
                Reached::NotYet if finished => {
                    let (end, ms) = (sim.steps(), to_ms(sim.last_step_at()));
                    let why = match point {
                        Until::Step(_) => format!(
                            "the run ends at step {end} ({ms} ms); use a step up to {end}, or until = \"end\""
                        ),
                        _ if after == 0 => {
                            format!("no step of the run has one (it ends at step {end}, {ms} ms)")
                        }
                        _ => format!(
                            "no step after the previous point (step {after}) has one; the run ends at step {end} ({ms} ms)"
                        ),
                    };
                    return Err(FieldError {
                        field: format!("steps[{i}].until"),
                        message: format!("{} is never reached: {why}", point.describe()),
                    });
                }
                Reached::NotYet => break,
                Reached::Passed(why) => {
                    return Err(FieldError {
                        field: format!("steps[{i}].until"),
                        message: format!("{} is never reached: {why}", point.describe()),
                    })
                }
            }
        }
        if resolved.len() == points.len() || finished {
            break;
        }
        match sim.step() {
            StepOutcome::Stepped => {}
            StepOutcome::Finished => finished = true,
            StepOutcome::LimitReached => {
                let i = resolved.len();
                return Err(FieldError {
                    field: format!("steps[{i}].until"),
                    message: format!(
                        "the run hit its step limit ({} steps) before {}: raise the scenario's [limits] max_steps (up to 100000000) or make the run shorter (fewer records)",
                        sim.steps(),
                        points.get(i).map_or_else(String::new, Until::describe)
                    ),
                });
            }
        }
    }
    Ok(Walk {
        resolved,
        readings,
        steps: sim.steps(),
        end: sim.last_step_at(),
    })
}
