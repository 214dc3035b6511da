//! `min.insync.replicas`: an `acks=all` write needs that many replicas in sync. Fewer, and
//! the leader refuses it before the append (NOT_ENOUGH_REPLICAS), and holds its high
//! watermark, so a write appended before the shrink waits (Kafka 3.7+).

use eos_core::sim::Note;
use eos_core::{builtin, Scenario};

mod support;
use support::run;

fn builtin_text(name: &str) -> String {
    eos_core::scenario::builtin::text(name)
        .expect("built-in")
        .to_string()
}

/// (appended_at) of every TooFewInSync note.
fn refusals(sim: &eos_core::Simulation) -> Vec<Option<u64>> {
    let notes = sim.trace().iter().flat_map(|r| r.notes.iter());
    notes
        .filter_map(|n| match n {
            Note::TooFewInSync { appended_at, .. } => Some(*appended_at),
            _ => None,
        })
        .collect()
}

#[test]
fn a_leader_alone_in_sync_loses_what_it_acknowledged_unless_min_isr_refuses_it() {
    let text = builtin_text("acks-all-isr-shrunk-loss");
    let (sim, report) = run(&builtin::get("acks-all-isr-shrunk-loss").expect("built-in"));
    assert_eq!(report.outcome.lost, 1);
    assert!(refusals(&sim).is_empty());
    // A dead leader replicates nothing: the follower, back after the leader's crash, copies
    // nothing from it.
    let crash = sim
        .trace()
        .iter()
        .find(|r| r.notes.iter().any(|n| matches!(n, Note::Crashed { .. })))
        .map(|r| r.step)
        .expect("the leader crashes");
    let copied_after = sim
        .trace()
        .iter()
        .filter(|r| r.step > crash)
        .flat_map(|r| r.notes.iter())
        .any(|n| matches!(n, Note::Replicated { .. }));
    assert!(!copied_after);

    let two = Scenario::parse(&text.replace("min_insync_replicas = 1", "min_insync_replicas = 2"))
        .expect("valid");
    let (sim, report) = run(&two);
    assert_eq!(report.outcome.lost, 0);
    let refused = refusals(&sim);
    assert!(
        !refused.is_empty() && refused.iter().all(Option::is_none),
        "{refused:?}"
    );
    // Refused, then unanswered once the leader is down: never acknowledged.
    assert_ne!(report.deliveries[0].status, "delivered");
}

/// The ISR shrinks below min.insync.replicas under a waiting write: the leader holds the
/// write's answer and its high watermark (Kafka 3.7+), the producer gives up on it after
/// request.timeout.ms and retries; refused until the follower is back, the retry without
/// idempotence then stores the record a second time.
#[test]
fn timed_out_after_the_append_a_retry_without_idempotence_stores_it_twice() {
    let text = builtin_text("min-isr-retry-duplicate");
    let (sim, report) = run(&builtin::get("min-isr-retry-duplicate").expect("built-in"));
    let refused = refusals(&sim);
    assert!(
        refused.len() >= 3 && refused.iter().all(Option::is_none),
        "{refused:?}"
    );
    let timed_out = sim
        .trace()
        .iter()
        .flat_map(|r| r.notes.iter())
        .any(|n| matches!(n, Note::RequestTimedOut { .. }));
    assert!(timed_out, "the first attempt times out");
    // Nothing readable while the ISR was too small: the high watermark first moves once the
    // follower is back (35 s).
    let first_hw = sim
        .trace()
        .iter()
        .find(|r| {
            r.notes
                .iter()
                .any(|n| matches!(n, Note::HighWatermarkAdvanced { .. }))
        })
        .map(|r| r.time)
        .expect("the high watermark moves");
    assert!(first_hw >= eos_core::time::ms(35_000), "{first_hw}");
    assert_eq!((report.outcome.duplicates, report.outcome.lost), (1, 0));
    // With idempotence the retry is recognised once the follower is back.
    let on =
        Scenario::parse(&text.replace("enable_idempotence = false", "enable_idempotence = true"))
            .expect("valid");
    let (sim, report) = run(&on);
    assert_eq!((report.outcome.duplicates, report.outcome.lost), (0, 0));
    assert_eq!(report.deliveries[0].status, "delivered");
    assert!(sim
        .trace()
        .iter()
        .flat_map(|r| r.notes.iter())
        .any(|n| matches!(n, Note::DuplicateDetected { .. })));
}

#[test]
fn min_insync_replicas_above_the_replication_factor_is_refused_by_name() {
    let text = builtin_text("min-isr-retry-duplicate")
        .replace("min_insync_replicas = 2", "min_insync_replicas = 3");
    let err = Scenario::parse(&text)
        .expect_err("3 of 2 replicas")
        .to_string();
    assert!(
        err.contains("topics[0].min_insync_replicas")
            && err.contains("allowed: 1 to 2, the topic's replication_factor"),
        "{err}"
    );
    let zero = builtin_text("min-isr-retry-duplicate")
        .replace("min_insync_replicas = 2", "min_insync_replicas = 0");
    assert!(Scenario::parse(&zero).is_err());
}

/// The fork offers `min.insync.replicas` where a topic has two replicas or more: on the
/// shrunk-ISR loss, 1 → 2 turns the acknowledged loss into a refused write.
#[test]
fn the_fork_flips_min_insync_replicas() {
    use eos_core::lesson::try_it::{Flip, TryAction};
    let s = builtin::get("acks-all-isr-shrunk-loss").expect("built-in");
    let change = TryAction::Flip(Flip::MinInsync);
    assert!(eos_core::fork::changes(&s).contains(&change));
    assert_eq!(
        eos_core::fork::change_label(&s, &change),
        "min.insync.replicas (orders): 1 → 2"
    );
    let f = eos_core::fork::fork(&s, None, &change, 0).expect("applies");
    assert_eq!(f.as_is.report.outcome.lost, 1);
    assert_eq!(f.changed.report.outcome.lost, 0);
    assert!(f.diverged_at.is_some());
    // A scenario with no replicated topic is not offered it.
    let single = builtin::get("lost-ack-idempotence-off").expect("built-in");
    assert!(!eos_core::fork::changes(&single).contains(&change));
}
