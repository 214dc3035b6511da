//! The fork: one change to the scenario (a flipped setting or another guarantee) and both
//! futures side by side. The changed scenario runs from the start with the same seed and
//! fault schedule, so the two runs are identical until the change first makes a difference:
//! the fork says at which step that is, and what each future holds after the step the reader
//! forked at.

use crate::kafka::processor::Guarantee;
use crate::lesson::try_it::{idempotence_of, isolation_of, Flip, TryAction, TryIt};
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

/// The change as a reader sees it: the setting, from what the scenario has to what the fork
/// gives it (`idempotence: on → off`, `checkpoints: unaligned → aligned`). Mixed values
/// across clients are listed (`on/off`).
pub fn change_label(s: &Scenario, a: &TryAction) -> String {
    let label = match a {
        TryAction::Flip(Flip::TransactionProtocol) => "transaction protocol",
        TryAction::Flip(Flip::Unaligned) => "checkpoints",
        TryAction::Flip(f) => f.name(),
        TryAction::Guarantee(_) => "guarantee",
        TryAction::Inject(_) => return change_name(a),
    };
    let setting = |sc: &Scenario| -> Option<String> {
        let f = &sc.file;
        let values: Vec<String> = match a {
            TryAction::Flip(Flip::Idempotence) => f
                .producers
                .iter()
                .filter(|p| p.transactional_id.is_none())
                .map(|p| (if idempotence_of(p) { "on" } else { "off" }).to_string())
                .collect(),
            TryAction::Flip(Flip::Isolation) => f.consumers.iter().map(isolation_of).collect(),
            TryAction::Flip(Flip::TransactionProtocol) => {
                vec![f.cluster.transaction_protocol.to_string()]
            }
            TryAction::Flip(Flip::Unaligned) => f
                .flink
                .iter()
                .map(|j| (if j.unaligned { "unaligned" } else { "aligned" }).to_string())
                .collect(),
            TryAction::Flip(Flip::Checkpointing) => f
                .flink
                .iter()
                // Flink's own names (no `to_uppercase`: its Unicode tables would ship).
                .map(|j| {
                    (if j.checkpointing == "at-least-once" {
                        "AT_LEAST_ONCE"
                    } else {
                        "EXACTLY_ONCE"
                    })
                    .to_string()
                })
                .collect(),
            TryAction::Guarantee(_) => f.processors.iter().map(|p| p.guarantee.clone()).collect(),
            TryAction::Inject(_) => Vec::new(),
        };
        let mut distinct: Vec<String> = Vec::new();
        for v in values {
            if !distinct.contains(&v) {
                distinct.push(v);
            }
        }
        (!distinct.is_empty()).then(|| distinct.join("/"))
    };
    let after = try_it(a).apply(s).ok();
    match (setting(s), after.as_ref().and_then(setting)) {
        (Some(from), Some(to)) => format!("{label}: {from} → {to}"),
        _ => change_name(a),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_says_which_way_it_flips() {
        let cases = [
            (
                "flink-backpressure-unaligned",
                TryAction::Flip(Flip::Unaligned),
                "checkpoints: unaligned → aligned",
            ),
            (
                "flink-alignment-two-inputs",
                TryAction::Flip(Flip::Idempotence),
                "idempotence: on → off",
            ),
            (
                "flink-at-least-once-overcount",
                TryAction::Flip(Flip::Checkpointing),
                "checkpointing: AT_LEAST_ONCE → EXACTLY_ONCE",
            ),
            (
                "rpw-crash-at-least-once",
                TryAction::Guarantee(Guarantee::ExactlyOnce),
                "guarantee: at-least-once → exactly-once",
            ),
            (
                "lost-ack-idempotence-off",
                TryAction::Flip(Flip::Idempotence),
                "idempotence: off → on",
            ),
            // Two consumers at two levels: both listed, in the scenario's order.
            (
                "seed-commit-abort",
                TryAction::Flip(Flip::Isolation),
                "isolation: read_committed/read_uncommitted → read_uncommitted/read_committed",
            ),
        ];
        for (name, action, expected) in cases {
            let s = crate::builtin::get(name).expect("built-in");
            assert_eq!(change_label(&s, &action), expected, "{name}");
        }
    }
}
