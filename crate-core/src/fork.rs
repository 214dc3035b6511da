//! The fork: one change to the scenario (a flipped setting or another guarantee) and both
//! futures side by side. The changed scenario runs from the start with the same seed and
//! fault schedule, so the two runs are identical until the change first makes a difference:
//! the fork says at which step that is, and what each future holds after the step the reader
//! forked at.

use crate::flink::report::LedgerLine;
use crate::kafka::processor::Guarantee;
use crate::lesson::try_it::{idempotence_of, isolation_of, Flip, TryAction, TryIt};
use crate::lesson::Text;
use crate::report::{Delivery, Report};
use crate::scenario::Scenario;
use crate::sim::narration::narrate;
use crate::sim::note::Notable;
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
    /// Notable events after the fork step, from where the futures part: (step, sentence).
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
    /// The sides list their notable events after this step: the fork step, or the step
    /// before the futures part if that is later.
    pub events_after: u64,
    /// The run's names (keys, nodes, records), to show what the reports hold.
    pub names: crate::sim::names::Names,
}

fn run(s: &Scenario, seed: Option<u64>) -> Simulation {
    let mut sim = s.simulation(seed);
    sim.run(RunLimit::Completion);
    sim
}

/// One future: its report, and its notable events after `from`.
fn side(s: &Scenario, seed: Option<u64>, sim: &Simulation, from: u64) -> ForkSide {
    let events = sim
        .trace()
        .iter()
        .filter(|r| r.step > from)
        .flat_map(|r| {
            r.notes
                .iter()
                // A Flink job's feeding producers' acknowledgements would fill the list:
                // its story is checkpoints, failovers and commits.
                .filter(|n| match n.notable() {
                    Some(Notable::Delivered) => sim.flink.is_none(),
                    other => other.is_some(),
                })
                .map(move |n| (r.step, narrate(&sim.names, n)))
        })
        .take(EVENTS_SHOWN)
        .collect();
    let mut report = Report::counts(s.name(), sim);
    // A Flink job's loss or over-count shows against its failure-free twin, not in the
    // Kafka counts (an upsert or append sink writes to no topic).
    if let Some(f) = report.flink.as_mut() {
        f.versus_failure_free = crate::flink::report::versus_failure_free(s, seed, sim);
    }
    ForkSide { report, events }
}

/// What the job did with an input record: how often a source read it, how often it was
/// counted into keyed state, and its output copies in the sinks.
fn flink_fate(l: &LedgerLine) -> String {
    let mut parts = vec![format!("read {}", l.read)];
    if l.counted > 0 {
        parts.push(format!("counted {}", l.counted));
    }
    if l.committed > 0 {
        parts.push(format!("committed {}", l.committed));
    }
    if l.appended > 0 {
        parts.push(format!("appended {}", l.appended));
    }
    parts.join(", ")
}

/// The records whose fate differs, in record order: each delivery (named as the logs name
/// it: `v4′` for an output), then, for a Flink job, each input's way through the job.
fn fates(a: &Simulation, as_is: &Report, changed: &Report) -> Vec<FateDiff> {
    let number = |name: &str| {
        name.trim_start_matches('v')
            .parse::<u32>()
            .unwrap_or(u32::MAX)
    };
    let mut out: Vec<(u32, u8, FateDiff)> = as_is
        .deliveries
        .iter()
        .filter_map(|d| {
            let e = changed.deliveries.iter().find(|e| e.record == d.record)?;
            let (x, y) = (fate(d), fate(e));
            let id = number(&d.record);
            (x != y).then(|| {
                let record = a.names.record(crate::ids::RecordId(id));
                let diff = FateDiff {
                    record,
                    as_is: x,
                    changed: y,
                };
                (id, 0, diff)
            })
        })
        .collect();
    if let (Some(x), Some(y)) = (&as_is.flink, &changed.flink) {
        let empty = LedgerLine::default();
        let inputs = crate::order::set_of(x.ledger.keys().chain(y.ledger.keys()));
        for input in inputs {
            let (l, m) = (
                x.ledger.get(input).unwrap_or(&empty),
                y.ledger.get(input).unwrap_or(&empty),
            );
            if l != m {
                let diff = FateDiff {
                    record: input.clone(),
                    as_is: flink_fate(l),
                    changed: flink_fate(m),
                };
                out.push((number(input), 1, diff));
            }
        }
    }
    crate::order::sort_by_key(&mut out, |(id, kind, _)| (*id, *kind));
    let mut rows: Vec<FateDiff> = out.into_iter().map(|(_, _, d)| d).collect();
    // The keyed state (or upserted value) each future ends with, where they differ: an
    // over-count is in no record's own story.
    if let (Some(x), Some(y)) = (&as_is.flink, &changed.flink) {
        let d = crate::flink::outcome::diff(&x.output, &y.output);
        rows.extend(d.state_differs.iter().map(|(key, was, is)| FateDiff {
            record: format!(
                "key {}",
                a.names.key(Some(*key)).unwrap_or_else(|| key.to_string())
            ),
            as_is: format!("state {was}"),
            changed: format!("state {is}"),
        }));
    }
    rows
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
    // The events listed start where the futures part: before that they are the same.
    let from = at.max(diverged_at.map_or(at, |d| d.saturating_sub(1)));
    let (as_is, changed) = (side(s, seed, &a, from), side(&other, seed, &b, from));
    let fates = fates(&a, &as_is.report, &changed.report);
    Ok(Fork {
        at,
        diverged_at,
        as_is,
        changed,
        fates,
        events_after: from,
        names: a.names.clone(),
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

    #[test]
    fn a_flink_fork_shows_each_future_against_its_failure_free_run_and_the_inputs_that_differ() {
        // AT_LEAST_ONCE over-counts after the failover; EXACTLY_ONCE does not.
        let s = crate::builtin::get("flink-at-least-once-overcount").expect("built-in");
        let f = fork(&s, None, &TryAction::Flip(Flip::Checkpointing), 0).expect("applies");
        let versus = |side: &ForkSide| {
            side.report
                .flink
                .as_ref()
                .and_then(|x| x.versus_failure_free.clone())
                .expect("compared with the failure-free run")
        };
        let (as_is, changed) = (versus(&f.as_is), versus(&f.changed));
        assert!(!as_is.state_differs.is_empty(), "{as_is:?}");
        assert!(changed.is_empty(), "{changed:?}");
        // Both futures count the replayed records twice; EXACTLY_ONCE's restore takes the
        // first count back, so only the state differs: key alice ends at 46 and at 40.
        let (key, was, is) = as_is.state_differs[0];
        assert_eq!(key, 0);
        let row = f.fates.iter().find(|d| d.record == "key alice");
        assert_eq!(
            row.map(|d| (d.as_is.clone(), d.changed.clone())),
            Some((format!("state {is}"), format!("state {was}"))),
            "{:?}",
            f.fates
        );
    }

    #[test]
    fn fork_rows_name_outputs_as_the_logs_do() {
        // The processor's outputs are v0′…, as on the stage, not their report numbers.
        let s = crate::builtin::get("rpw-crash-at-least-once").expect("built-in");
        let action = TryAction::Guarantee(Guarantee::ExactlyOnce);
        let f = fork(&s, None, &action, 0).expect("applies");
        assert!(!f.fates.is_empty());
        assert!(
            f.fates.iter().any(|d| d.record.ends_with('′')),
            "{:?}",
            f.fates
        );
        // Twelve inputs: a row without ′ is an input, v0 to v11.
        let inputs = f.fates.iter().filter(|d| !d.record.ends_with('′'));
        assert!(
            inputs
                .clone()
                .all(|d| d.record[1..].parse::<u32>().is_ok_and(|n| n < 12)),
            "{:?}",
            f.fates
        );
    }
}
