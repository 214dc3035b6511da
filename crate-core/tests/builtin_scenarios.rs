//! Every built-in scenario runs to completion with every invariant holding after every
//! step, and each one shows the outcome it was written to show (SEMANTICS §8).

use eos_core::builtin::{self, BUILTIN};
use eos_core::ids::{RecordId, Tp};
use eos_core::kafka::partition_log::FetchedRecord;
use eos_core::kafka::KafkaError;
use eos_core::oracle::invariants::violations;
use eos_core::scenario::expect;
use eos_core::sim::observe::leader_replica;
use eos_core::sim::Note;
use eos_core::{Report, Scenario, Simulation, StepOutcome};

const P0: Tp = Tp {
    topic: 0,
    partition: 0,
};

/// Steps one event at a time; after every step no invariant may be broken.
fn run_checked(name: &str, text: &str) -> Simulation {
    let scenario = Scenario::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut sim = scenario.simulation(None);
    loop {
        match sim.step() {
            StepOutcome::Stepped => {}
            StepOutcome::Finished => break,
            StepOutcome::LimitReached => {
                panic!("{name}: hit the step limit after {} steps", sim.steps())
            }
        }
        let broken = violations(&sim);
        assert!(
            broken.is_empty(),
            "scenario {name}, step {}: invariants broken: {broken:#?}\nthe step: {:#?}",
            sim.steps(),
            sim.trace().last()
        );
    }
    assert!(sim.is_finished(), "{name}: not finished");
    sim
}

fn run_builtin(name: &str) -> (Simulation, Report) {
    let text = builtin::text(name).unwrap_or_else(|| panic!("no built-in {name}"));
    let sim = run_checked(name, text);
    let report = Report::of(name, &sim);
    (sim, report)
}

/// Every record the live leader of `tp` holds, in offset order (whole log, not only below HW).
fn leader_log(sim: &Simulation, tp: Tp) -> Vec<FetchedRecord> {
    let (_, replica) = leader_replica(sim, tp).expect("the partition has a live leader");
    replica.log.records_below(u64::MAX).collect()
}

fn offsets_of(log: &[FetchedRecord], value: u32) -> Vec<u64> {
    log.iter()
        .filter(|r| r.value == RecordId(value))
        .map(|r| r.offset)
        .collect()
}

fn anomaly_kinds(r: &Report) -> Vec<&str> {
    r.anomalies.iter().map(|a| a.kind.as_str()).collect()
}

fn all_notes(sim: &Simulation) -> impl Iterator<Item = &Note> {
    sim.trace().iter().flat_map(|s| s.notes.iter())
}

#[test]
fn every_builtin_holds_every_invariant_after_every_step_and_meets_its_expect() {
    assert!(BUILTIN.len() >= 9, "the built-in list shrank");
    for (name, text) in BUILTIN {
        let sim = run_checked(name, text);
        let mut report = Report::of(name, &sim);
        if let Some(f) = report.flink.as_mut() {
            let scenario = Scenario::parse(text).unwrap();
            f.versus_failure_free =
                eos_core::flink::report::versus_failure_free(&scenario, None, &sim);
        }
        assert!(report.completed, "{name}: did not complete");
        assert!(report.steps > 0, "{name}: nothing happened");
        assert!(
            report.invariants.iter().all(|i| i.holds),
            "{name}: {:#?}",
            report.invariants
        );
        let scenario = Scenario::parse(text).unwrap();
        let e = scenario
            .file
            .expect
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: a built-in should pin its outcome"));
        let problems = expect::check(e, &report, &scenario);
        assert!(problems.is_empty(), "{name}: {problems:#?}");
    }
}

#[test]
fn seed_frozen_broker_delivers_once_after_the_freeze() {
    let (sim, r) = run_builtin("seed-frozen-broker");
    assert_eq!(r.deliveries.len(), 1, "{:#?}", r.deliveries);
    let d = &r.deliveries[0];
    assert_eq!(d.status, "delivered");
    assert_eq!(d.key.as_deref(), Some("order-42"));
    assert_eq!(d.partition, Some(0));
    assert_eq!(d.offset, Some(0));
    assert!(d.attempts >= 2, "attempts = {}", d.attempts);
    let at = d.delivered_at_ms.expect("delivered at some time");
    assert!(at > 6005 && at < 8000, "delivered at {at} ms");
    assert_eq!(r.outcome.duplicates, 0);
    assert_eq!(r.outcome.lost, 0);
    let reader = &r.reads["reader"];
    assert_eq!(reader.records, 1);
    assert_eq!(reader.keys, vec![Some("order-42".to_string())]);
    // The log itself: exactly one record, at offset 0.
    let log = leader_log(&sim, P0);
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(offsets_of(&log, 0), vec![0]);
    // The retries reached the broker and were recognised as duplicates.
    assert!(all_notes(&sim).any(|n| matches!(n, Note::DuplicateDetected { .. })));
}

#[test]
fn lost_ack_without_idempotence_stores_every_stuck_record_twice() {
    let (sim, r) = run_builtin("lost-ack-idempotence-off");
    // One ack is lost; the acks of v1 and v2 are stuck behind it on the same connection.
    let lost: Vec<bool> = all_notes(&sim)
        .filter_map(|n| match n {
            Note::AckLost { behind, .. } => Some(*behind),
            _ => None,
        })
        .collect();
    assert_eq!(
        lost,
        vec![false, true, true],
        "one lost, two stuck behind it"
    );
    // The timeout closes the connection and fails the other two requests with it.
    let closed: Vec<&Note> = all_notes(&sim)
        .filter(|n| matches!(n, Note::ConnectionClosed { .. }))
        .collect();
    assert_eq!(closed.len(), 1, "{closed:#?}");
    let Note::ConnectionClosed { records, .. } = closed[0] else {
        unreachable!()
    };
    assert_eq!(records, &vec![RecordId(1), RecordId(2)]);
    assert_eq!(r.outcome.duplicates, 3);
    assert!(
        anomaly_kinds(&r).contains(&"duplicate"),
        "{:#?}",
        r.anomalies
    );
    // The Java client puts each retried batch back at the head of the queue: the retries,
    // failed oldest first, go out newest first (v2 at 3, v1 at 4, v0 at 5).
    let log = leader_log(&sim, P0);
    for v in 0..3 {
        let at = offsets_of(&log, v);
        assert_eq!(at, vec![u64::from(v), 5 - u64::from(v)], "v{v}: {log:?}");
        assert_eq!(r.deliveries[v as usize].copies.len(), 2);
    }
    assert_eq!(r.reads["reader"].records, 6);
}

#[test]
fn lost_ack_with_idempotence_answers_with_the_original_offset() {
    let (sim, r) = run_builtin("lost-ack-idempotence-on");
    assert_eq!(r.outcome.duplicates, 0);
    assert!(!anomaly_kinds(&r).contains(&"duplicate"));
    let d = &r.deliveries[0];
    assert_eq!(d.status, "delivered");
    assert_eq!(d.offset, Some(0));
    assert!(d.attempts >= 2, "attempts = {}", d.attempts);
    assert_eq!(offsets_of(&leader_log(&sim, P0), 0), vec![0]);
    assert_eq!(r.reads["reader"].records, 3);
}

#[test]
fn retry_outside_window_is_out_of_order_not_a_duplicate() {
    let (sim, r) = run_builtin("retry-outside-window");
    let rejected = sim.trace().iter().find(|s| {
        s.notes.iter().any(|n| {
            matches!(
                n,
                Note::AppendRejected {
                    error: KafkaError::OutOfOrderSequenceNumber,
                    ..
                }
            )
        })
    });
    assert!(
        rejected.is_some(),
        "no step rejected the late copy with OUT_OF_ORDER_SEQUENCE_NUMBER"
    );
    assert_eq!(r.outcome.duplicates, 0);
    assert!(!anomaly_kinds(&r).contains(&"duplicate"));
    let log = leader_log(&sim, P0);
    assert_eq!(log.len(), 7, "{log:?}");
    for v in 0..7 {
        assert_eq!(offsets_of(&log, v).len(), 1, "v{v}: {log:?}");
    }
    assert_eq!(r.reads["reader"].records, 7);
}

#[test]
fn in_flight_order_without_idempotence_is_reordered() {
    let (sim, r) = run_builtin("in-flight-order-idempotence-off");
    // The damaged batch is refused with a retriable error; the connection keeps flowing, so
    // nothing is lost or stuck and no request times out.
    let corrupt = all_notes(&sim)
        .filter(|n| {
            matches!(
                n,
                Note::AppendRejected {
                    error: KafkaError::CorruptMessage,
                    ..
                }
            )
        })
        .count();
    assert_eq!(corrupt, 1);
    assert!(!all_notes(&sim).any(|n| matches!(
        n,
        Note::RequestTimedOut { .. } | Note::AckLost { .. } | Note::MessageDropped { .. }
    )));
    assert!(
        anomaly_kinds(&r).contains(&"nonmonotonic-send"),
        "{:#?}",
        r.anomalies
    );
    let values: Vec<u32> = leader_log(&sim, P0).iter().map(|r| r.value.0).collect();
    let mut sorted = values.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, vec![0, 1, 2, 3, 4], "every record once");
    assert_ne!(values, sorted, "the log should not be in send order");
}

#[test]
fn in_flight_order_with_idempotence_keeps_send_order() {
    let (sim, r) = run_builtin("in-flight-order-idempotence-on");
    assert!(!anomaly_kinds(&r).contains(&"nonmonotonic-send"));
    let log = leader_log(&sim, P0);
    let by_offset: Vec<u64> = log.iter().map(|r| sim.ledger.send_order(r.value)).collect();
    let mut send_order = by_offset.clone();
    send_order.sort_unstable();
    assert_eq!(by_offset, send_order, "log order differs from send order");
    let values: Vec<u32> = log.iter().map(|r| r.value.0).collect();
    assert_eq!(values, vec![0, 1, 2, 3, 4]);
    assert_eq!(r.reads["reader"].records, 5);
}

#[test]
fn acks1_leader_crash_loses_an_acknowledged_record() {
    let (sim, r) = run_builtin("acks1-leader-crash-loss");
    assert_eq!(r.outcome.lost, 1);
    assert!(anomaly_kinds(&r).contains(&"lost-write"));
    let d0 = &r.deliveries[0];
    assert_eq!(d0.status, "delivered");
    assert_eq!(d0.offset, Some(0));
    assert!(d0.copies.is_empty(), "{d0:?}");
    assert!(offsets_of(&leader_log(&sim, P0), 0).is_empty());
    assert_eq!(
        r.reads["reader"].keys,
        vec![Some("order-2".to_string())],
        "the reader sees only the second record"
    );
}

#[test]
fn acks_all_leader_crash_loses_nothing() {
    let (sim, r) = run_builtin("acks-all-leader-crash-no-loss");
    assert_eq!(r.outcome.lost, 0);
    assert!(!anomaly_kinds(&r).contains(&"lost-write"));
    for d in &r.deliveries {
        assert_eq!(d.status, "delivered", "{d:?}");
        assert_eq!(d.copies.len(), 1, "{d:?}");
    }
    assert!(r.deliveries[0].attempts >= 2);
    let log = leader_log(&sim, P0);
    assert_eq!(offsets_of(&log, 0).len(), 1);
    assert_eq!(offsets_of(&log, 1).len(), 1);
    assert_eq!(r.reads["reader"].records, 2);
}

#[test]
fn producer_restart_gets_a_new_pid_and_duplicates() {
    let (sim, r) = run_builtin("producer-restart-new-pid");
    assert_eq!(r.outcome.duplicates, 1);
    let (_, replica) = leader_replica(&sim, P0).unwrap();
    let pids: Vec<i64> = replica
        .log
        .batches()
        .iter()
        .filter(|b| b.records.iter().any(|x| x.value == RecordId(0)))
        .map(|b| b.producer_id)
        .collect();
    assert_eq!(pids.len(), 2, "two copies of v0");
    assert!(pids.iter().all(|p| *p >= 0), "both idempotent: {pids:?}");
    assert_ne!(pids[0], pids[1], "copies must carry different producer ids");
    assert_eq!(
        r.reads["reader"].keys,
        vec![Some("invoice-9".to_string()), Some("invoice-9".to_string())]
    );
}

/// The outcome the page shows as the run goes is the report's, at every step.
#[test]
fn the_outcome_so_far_is_the_reports_at_every_step() {
    for name in [
        "seed-commit-abort",
        "lost-ack-idempotence-off",
        "acks1-leader-crash-loss",
        "rpw-crash-at-most-once",
    ] {
        let scenario = builtin::get(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut sim = scenario.simulation(None);
        let mut seen = eos_core::report::Outcome {
            duplicates: 0,
            lost: 0,
            aborted_reads: 0,
        };
        while sim.step() == StepOutcome::Stepped {
            let so_far = eos_core::report::Outcome::of(&sim);
            assert_eq!(
                so_far,
                Report::of(name, &sim).outcome,
                "{name} at step {}",
                sim.steps()
            );
            seen.duplicates = seen.duplicates.max(so_far.duplicates);
            seen.lost = seen.lost.max(so_far.lost);
            seen.aborted_reads = seen.aborted_reads.max(so_far.aborted_reads);
        }
        assert!(
            seen.duplicates + seen.lost + seen.aborted_reads > 0,
            "{name} shows some anomaly on the way: {seen:?}"
        );
    }
}

/// A restarted consumer is a new one: its auto-commit clock starts at the restart, so it
/// commits nothing until an interval (1 s here) has passed, or until it closes.
#[test]
fn a_restarted_consumer_auto_commits_an_interval_after_its_restart() {
    let (sim, _) = run_builtin("consumer-restart-from-commit");
    let time_of = |hit: &dyn Fn(&Note) -> bool| {
        sim.trace()
            .iter()
            .find(|r| r.notes.iter().any(hit))
            .map(|r| r.time)
    };
    let restarted = time_of(&|n| matches!(n, Note::Restarted { .. })).expect("a restart");
    let stopped = time_of(&|n| matches!(n, Note::ConsumerStopped { .. })).expect("a stop");
    assert!(
        stopped < restarted + 1_000_000,
        "the run ends within the interval"
    );
    let commits_between: Vec<u64> = sim
        .trace()
        .iter()
        .filter(|r| r.time > restarted && r.time < stopped)
        .filter(|r| {
            r.notes
                .iter()
                .any(|n| matches!(n, Note::OffsetsCommitted { .. }))
        })
        .map(|r| r.step)
        .collect();
    assert!(commits_between.is_empty(), "{commits_between:?}");
    // The close commits what was read.
    assert!(sim.trace().iter().any(|r| r.time >= stopped
        && r.notes
            .iter()
            .any(|n| matches!(n, Note::OffsetsCommitted { .. }))));
}
