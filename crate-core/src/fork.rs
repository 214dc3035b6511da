//! The fork: one change to the scenario (a flipped setting or another guarantee) and both
//! futures side by side. The changed scenario runs from the start with the same seed and
//! fault schedule, so the two runs are identical until the change first makes a difference:
//! the fork says at which step that is, and what each future holds after the step the reader
//! forked at.

use crate::kafka::processor::Guarantee;
use crate::lesson::try_it::{Flip, TryAction, TryIt};
use crate::lesson::Text;
use crate::report::{Delivery, Report};
use crate::scenario::Scenario;
use crate::sim::narration::narrate;
use crate::sim::Simulation;
use crate::RunLimit;

/// The most notable events each side lists after the fork step.
pub const EVENTS_SHOWN: usize = 10;

/// What can be changed in this scenario: each flip that applies, and each guarantee the
/// processors are not already all under.
pub fn changes(s: &Scenario) -> Vec<TryAction> {
    let mut out: Vec<TryAction> = Flip::ALL
        .into_iter()
        .map(TryAction::Flip)
        .filter(|a| try_it(a).apply(s).is_ok())
        .collect();
    if !s.file.processors.is_empty() {
        out.extend(
            Guarantee::ALL
                .into_iter()
                .filter(|g| s.file.processors.iter().any(|p| p.guarantee != g.name()))
                .map(TryAction::Guarantee),
        );
    }
    out
}

/// A short name for a change: `idempotence`, `guarantee exactly-once`, ...
pub fn change_name(a: &TryAction) -> String {
    match a {
        TryAction::Flip(f) => f.name().to_string(),
        TryAction::Guarantee(g) => format!("guarantee {}", g.name()),
        TryAction::Inject(_) => "a fault".to_string(),
    }
}

fn try_it(action: &TryAction) -> TryIt {
    TryIt {
        text: Text::default(),
        action: action.clone(),
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ForkSide {
    pub report: Report,
    /// Notable events after the fork step: (step, sentence).
    pub events: Vec<(u64, String)>,
}

/// A record whose fate differs between the two futures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FateDiff {
    pub record: String,
    pub as_is: String,
    pub changed: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fork {
    pub at: u64,
    /// The first step at which the runs differ (`None`: the change makes no difference).
    pub diverged_at: Option<u64>,
    pub as_is: ForkSide,
    pub changed: ForkSide,
    pub fates: Vec<FateDiff>,
}

fn run(s: &Scenario, seed: Option<u64>) -> Simulation {
    let mut sim = s.simulation(seed);
    sim.run(RunLimit::Completion);
    sim
}

fn side(s: &Scenario, sim: &Simulation, at: u64) -> ForkSide {
    let events = sim
        .trace()
        .iter()
        .filter(|r| r.step > at)
        .flat_map(|r| {
            r.notes
                .iter()
                .filter(|n| n.notable().is_some())
                .map(move |n| (r.step, narrate(&sim.names, n)))
        })
        .take(EVENTS_SHOWN)
        .collect();
    ForkSide {
        report: Report::counts(s.name(), sim),
        events,
    }
}

/// What happened to a record: its status and where its copies are.
fn fate(d: &Delivery) -> String {
    if d.copies.is_empty() {
        format!("{}, no copy readable", d.status)
    } else {
        format!("{}, {}", d.status, d.copies.join(" "))
    }
}

/// Forks `s` at step `at` with `change` made. Refused when the change does not apply.
pub fn fork(s: &Scenario, seed: Option<u64>, change: &TryAction, at: u64) -> Result<Fork, String> {
    let other = try_it(change).apply(s).map_err(|e| e.to_string())?;
    let (a, b) = (run(s, seed), run(&other, seed));
    let diverged_at = a
        .trace()
        .iter()
        .zip(b.trace())
        .find(|(x, y)| x != y)
        .map(|(x, _)| x.step)
        .or_else(|| {
            let (la, lb) = (a.trace().len(), b.trace().len());
            (la != lb).then(|| la.min(lb) as u64 + 1)
        });
    let (as_is, changed) = (side(s, &a, at), side(&other, &b, at));
    let fates = as_is
        .report
        .deliveries
        .iter()
        .filter_map(|d| {
            let e = changed
                .report
                .deliveries
                .iter()
                .find(|e| e.record == d.record)?;
            let (x, y) = (fate(d), fate(e));
            (x != y).then(|| FateDiff {
                record: d.record.clone(),
                as_is: x,
                changed: y,
            })
        })
        .collect();
    Ok(Fork {
        at,
        diverged_at,
        as_is,
        changed,
        fates,
    })
}
