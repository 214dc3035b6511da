//! `auto.offset.reset`: where a consumer with no committed offset starts. `earliest` (the
//! simulator's default) reads the log from its start; `latest` (the Java consumer's default)
//! asks the leader where the log ends (ListOffsets) and skips what is already there; `none`
//! makes `poll()` throw, and the application stops.

use eos_core::sim::Note;
use eos_core::{builtin, Scenario};

mod support;
use support::run;

const NAME: &str = "consumer-reset-latest";

fn notes(sim: &eos_core::Simulation) -> Vec<Note> {
    sim.trace()
        .iter()
        .flat_map(|r| r.notes.iter().cloned())
        .collect()
}

fn with_reset(policy: &str) -> Scenario {
    let text = eos_core::scenario::builtin::text(NAME).expect("built-in");
    let changed = text.replace(
        "auto_offset_reset = \"latest\"",
        &format!("auto_offset_reset = \"{policy}\""),
    );
    assert!(changed.contains(policy));
    let changed = changed
        .split("[expect]")
        .next()
        .unwrap_or_default()
        .to_string();
    Scenario::parse(&changed).expect("parses")
}

#[test]
fn latest_starts_at_the_log_end_and_the_records_before_it_go_unseen() {
    let (sim, report) = run(&builtin::get(NAME).expect("built-in"));
    let all = notes(&sim);
    // The lookup, then the start at the high watermark: five records were there.
    assert!(all
        .iter()
        .any(|n| matches!(n, Note::OffsetLookup { past_end: None, .. })));
    let starts: Vec<u64> = all
        .iter()
        .filter_map(|n| match n {
            Note::StartsAtLatest { offset, .. } => Some(*offset),
            _ => None,
        })
        .collect();
    assert_eq!(starts, vec![5]);
    assert!(all
        .iter()
        .any(|n| matches!(n, Note::StartsAtLatest { .. }) && n.notable().is_some()));
    let reads = &report.reads["audit"];
    assert_eq!(reads.records, 5);
    // The oracle names the five the reader skipped: readable, never read.
    let unseen: Vec<&str> = report
        .anomalies
        .iter()
        .filter(|a| a.kind == "unseen")
        .map(|a| a.detail.as_str())
        .collect();
    assert_eq!(unseen.len(), 5, "{unseen:?}");
    for (i, detail) in unseen.iter().enumerate() {
        assert!(detail.starts_with(&format!("record v{i} ")), "{detail}");
    }
    assert_eq!((report.outcome.lost, report.outcome.duplicates), (0, 0));
    // The ListOffsets round trip is on the wire like any request.
    let kinds: Vec<&str> = sim
        .trace()
        .iter()
        .filter_map(|r| match &r.what {
            eos_core::sim::simulation::StepKind::Deliver { kind, .. } => Some(kind.name()),
            _ => None,
        })
        .collect();
    assert!(kinds.contains(&"list_offsets") && kinds.contains(&"list_offsets_response"));
}

#[test]
fn earliest_reads_everything_and_none_stops_at_once() {
    let (sim, report) = run(&with_reset("earliest"));
    assert_eq!(report.reads["audit"].records, 10);
    assert!(notes(&sim)
        .iter()
        .all(|n| !matches!(n, Note::OffsetLookup { .. } | Note::StartsAtLatest { .. })));
    assert!(report.anomalies.iter().all(|a| a.kind != "unseen"));

    let (sim, report) = run(&with_reset("none"));
    assert_eq!(report.reads["audit"].records, 0);
    let all = notes(&sim);
    let failed = all
        .iter()
        .position(|n| matches!(n, Note::NoResetPolicy { past_end: None, .. }))
        .expect("poll() throws");
    assert!(matches!(all[failed + 1], Note::ConsumerStopped { .. }));
    assert!(all[failed].notable().is_some());
}

#[test]
fn a_committed_offset_wins_over_the_reset_policy() {
    // The consumer commits, crashes and comes back: it resumes from its commit, with no
    // ListOffsets, and reads nothing twice beyond what it had not committed.
    let text = eos_core::scenario::builtin::text(NAME).expect("built-in");
    let text = text.split("[expect]").next().unwrap_or_default().to_string()
        + "\n[[faults]]\nat_ms = 3800\naction = \"crash\"\ntarget = \"audit\"\nrestart_after_ms = 300\n";
    let text = text.replace(
        "start_ms = 2200",
        "start_ms = 2200\nauto_commit_interval_ms = 500",
    );
    let (sim, report) = run(&Scenario::parse(&text).expect("parses"));
    let all = notes(&sim);
    let lookups = all
        .iter()
        .filter(|n| matches!(n, Note::OffsetLookup { .. }))
        .count();
    assert_eq!(lookups, 1, "only the first start looks the end up");
    assert!(all.iter().any(|n| matches!(
        n,
        Note::ResumedFromCommitted { offsets, .. } if offsets.iter().any(|(_, o)| o.is_some())
    )));
    assert!(report.reads["audit"].records >= 5);
}

#[test]
fn an_unknown_policy_is_refused_by_name() {
    let text = eos_core::scenario::builtin::text(NAME)
        .expect("built-in")
        .replace(
            "auto_offset_reset = \"latest\"",
            "auto_offset_reset = \"newest\"",
        );
    let err = Scenario::parse(&text).expect_err("refused").to_string();
    assert!(
        err.contains("consumers[0].auto_offset_reset")
            && err.contains("\"earliest\", \"latest\", \"none\""),
        "{err}"
    );
}

/// The fork offers auto.offset.reset where a consumer names it, and its futures differ by
/// the five skipped records.
#[test]
fn the_fork_flips_auto_offset_reset() {
    use eos_core::lesson::try_it::{Flip, TryAction};
    let s = builtin::get(NAME).expect("built-in");
    let change = TryAction::Flip(Flip::OffsetReset);
    assert!(eos_core::fork::changes(&s).contains(&change));
    assert_eq!(
        eos_core::fork::change_label(&s, &change),
        "auto.offset.reset (audit): latest → earliest"
    );
    let f = eos_core::fork::fork(&s, None, &change, 0).expect("applies");
    assert_eq!(f.as_is.report.reads["audit"].records, 5);
    assert_eq!(f.changed.report.reads["audit"].records, 10);
    assert!(f.diverged_at.is_some());
    // Not offered where no consumer names it (every reader starts at the log's start).
    let other = builtin::get("consumer-restart-from-commit").expect("built-in");
    assert!(!eos_core::fork::changes(&other).contains(&change));
    // A lesson's try-it may still flip it there.
    assert!(eos_core::lesson::try_it::TryIt {
        action: change.clone(),
        text: Default::default(),
    }
    .apply(&other)
    .is_ok());
}
