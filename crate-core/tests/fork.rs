//! The fork: one change, both futures. The runs agree until the change first matters, and
//! the records whose fate differs are named.

use eos_core::builtin;
use eos_core::fork::{change_name, changes, fork};
use eos_core::kafka::processor::Guarantee;
use eos_core::lesson::{Flip, TryAction};

#[test]
fn idempotence_flipped_removes_the_duplicate_a_lost_ack_made() {
    let s = builtin::get("lost-ack-idempotence-off").expect("built-in");
    let names: Vec<String> = changes(&s).iter().map(change_name).collect();
    assert!(names.contains(&"idempotence".to_string()), "{names:?}");
    assert!(
        !names.contains(&"unaligned".to_string()),
        "no Flink job: {names:?}"
    );
    let f = fork(&s, None, &TryAction::Flip(Flip::Idempotence), 0).expect("a fork");
    assert_eq!(f.as_is.report.outcome.duplicates, 3);
    assert_eq!(f.changed.report.outcome.duplicates, 0);
    assert!(f.diverged_at.is_some_and(|d| d >= 1), "{:?}", f.diverged_at);
    let v0 = f
        .fates
        .iter()
        .find(|d| d.subject == eos_core::fork::Subject::Record("v0".into()))
        .expect("v0's fate differs");
    assert_ne!(v0.as_is, v0.changed);
    assert!(!f.as_is.events.is_empty() && f.as_is.events.iter().all(|(step, _)| *step > 0));
}

#[test]
fn the_runs_agree_until_the_change_matters_and_events_start_after_the_fork() {
    let s = builtin::get("txn-timeout-abort").expect("built-in");
    let flip = TryAction::Flip(Flip::Isolation);
    assert!(changes(&s).contains(&flip));
    let f = fork(&s, None, &flip, 5).expect("a fork");
    let d = f
        .diverged_at
        .expect("reading aborted records changes the run");
    assert!(d > 1, "the same start: diverged at {d}");
    assert!(f
        .as_is
        .events
        .iter()
        .chain(&f.changed.events)
        .all(|(step, _)| *step > 5));
    // Each reader switched isolation level, and what one of them read changed with it.
    let (a, b) = (&f.as_is.report.reads, &f.changed.report.reads);
    assert!(a.iter().all(|(name, r)| b[name].isolation != r.isolation));
    assert!(
        a.iter().any(|(name, r)| b[name].records != r.records),
        "{a:?} vs {b:?}"
    );
}

#[test]
fn a_guarantee_is_offered_only_where_processors_are_not_under_it_and_a_change_that_does_not_apply_is_refused(
) {
    let s = builtin::get("rpw-crash-exactly-once").expect("built-in");
    let c = changes(&s);
    assert!(c.contains(&TryAction::Guarantee(Guarantee::AtLeastOnce)));
    assert!(!c.contains(&TryAction::Guarantee(Guarantee::ExactlyOnce)));
    let f = fork(&s, None, &TryAction::Guarantee(Guarantee::AtLeastOnce), 0).expect("a fork");
    assert!(
        f.changed.report.outcome.duplicates > 0,
        "at-least-once duplicates after the crash"
    );
    let plain = builtin::get(builtin::DEFAULT).expect("built-in");
    assert!(fork(&plain, None, &TryAction::Flip(Flip::Unaligned), 0).is_err());
}

/// A Flink scenario offers its own settings first: the fork's first choice is about the job,
/// not a Kafka client feeding it.
#[test]
fn a_flink_scenario_offers_its_checkpoint_settings_first() {
    let s = builtin::get("flink-backpressure-aligned").expect("built-in");
    let c = changes(&s);
    assert_eq!(c.first(), Some(&TryAction::Flip(Flip::Unaligned)), "{c:?}");
    assert!(c.contains(&TryAction::Flip(Flip::Idempotence)), "{c:?}");
}
