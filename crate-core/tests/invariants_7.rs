//! SEMANTICS §7, items 1–7 (the idempotent producer and replication), one named test each.
//! Items 1, 5 and 6 are checked on the final logs directly, not only through the oracle.

use eos_core::builtin;
use eos_core::ids::{RecordId, Tp};
use eos_core::kafka::partition_log::{sequence_add, FetchedRecord, StoredBatch};
use eos_core::kafka::KafkaError;
use eos_core::oracle::invariants::violations;
use eos_core::oracle::DeliveryStatus;
use eos_core::sim::note::DropReason;
use eos_core::sim::observe::{leader_replica, partitions};
use eos_core::sim::Note;
use eos_core::{Report, Scenario, Simulation, StepOutcome};
use std::collections::BTreeMap;

const P0: Tp = Tp {
    topic: 0,
    partition: 0,
};

fn run_text(label: &str, text: &str) -> Simulation {
    let scenario = Scenario::parse(text).unwrap_or_else(|e| panic!("{label}: {e}"));
    let mut sim = scenario.simulation(None);
    loop {
        match sim.step() {
            StepOutcome::Stepped => {}
            StepOutcome::Finished => break,
            StepOutcome::LimitReached => panic!("{label}: step limit"),
        }
        let broken = violations(&sim);
        assert!(
            broken.is_empty(),
            "{label}, step {}: {broken:#?}",
            sim.steps()
        );
    }
    sim
}

/// Runs to the end without checking on the way (for tests that look at the final logs).
fn run_to_end(label: &str, text: &str) -> Simulation {
    let scenario = Scenario::parse(text).unwrap_or_else(|e| panic!("{label}: {e}"));
    let mut sim = scenario.simulation(None);
    assert_eq!(
        sim.run(eos_core::RunLimit::Completion),
        StepOutcome::Finished,
        "{label}"
    );
    sim
}

fn run_builtin(name: &str) -> Simulation {
    run_text(name, builtin::text(name).expect("a built-in"))
}

fn leader_log(sim: &Simulation, tp: Tp) -> Vec<FetchedRecord> {
    let (_, r) = leader_replica(sim, tp).expect("a live leader");
    r.log.records_below(u64::MAX).collect()
}

fn copies_of(sim: &Simulation, tp: Tp, value: u32) -> usize {
    leader_log(sim, tp)
        .iter()
        .filter(|r| r.value == RecordId(value))
        .count()
}

/// Batches of idempotent producers in every live leader's log, per (partition, pid), in
/// offset order.
fn idempotent_batches(sim: &Simulation) -> BTreeMap<(Tp, i64), Vec<StoredBatch>> {
    let mut out: BTreeMap<(Tp, i64), Vec<StoredBatch>> = BTreeMap::new();
    for tp in partitions(sim) {
        let Some((_, r)) = leader_replica(sim, tp) else {
            continue;
        };
        for b in r.log.batches().iter().filter(|b| b.producer_id >= 0) {
            out.entry((tp, b.producer_id)).or_default().push(b.clone());
        }
    }
    out
}

fn notes(sim: &Simulation) -> impl Iterator<Item = &Note> {
    sim.trace().iter().flat_map(|s| s.notes.iter())
}

/// An idempotent producer whose first batch expires (delivery timeout) while the broker is
/// frozen: it bumps its epoch and the next batch starts again at sequence 0.
const EPOCH_BUMP: &str = r#"
version = 1
name = "epoch-bump"
[[topics]]
name = "t"
[[producers]]
name = "app"
client = "java"
enable_idempotence = true
linger_ms = 0
request_timeout_ms = 1000
delivery_timeout_ms = 2000
retry_backoff_ms = 100
[[producers.sends]]
at_ms = 10
topic = "t"
key = "a"
[[producers.sends]]
at_ms = 6000
topic = "t"
key = "b"
count = 3
interval_us = 10000
[[faults]]
at_ms = 10
action = "freeze"
target = "broker-0"
duration_ms = 5000
[[consumers]]
name = "reader"
topic = "t"
start_ms = 8000
"#;

/// The first produce request is held up in the network for 5 s and its only retry is lost:
/// the batch expires, the producer bumps its epoch and sends the next batch with epoch 1.
/// Then the epoch-0 original arrives.
const STALE_EPOCH: &str = r#"
version = 1
name = "stale-epoch"
[[topics]]
name = "t"
[[producers]]
name = "app"
client = "java"
enable_idempotence = true
linger_ms = 0
request_timeout_ms = 1000
delivery_timeout_ms = 2000
retry_backoff_ms = 100
[[producers.sends]]
at_ms = 10
topic = "t"
key = "a"
[[producers.sends]]
at_ms = 3000
topic = "t"
key = "b"
[[faults]]
at_ms = 0
action = "delay"
message = "produce"
extra_ms = 5000
[[faults]]
at_ms = 20
action = "drop"
message = "produce"
[[consumers]]
name = "reader"
topic = "t"
start_ms = 8000
"#;

/// Twenty records, five in flight, a produce request dropped and another overtaken.
const FIVE_IN_FLIGHT_REORDERING_NETWORK: &str = r#"
version = 1
name = "five-in-flight"
[[topics]]
name = "t"
[[producers]]
name = "app"
client = "java"
enable_idempotence = true
max_in_flight_requests_per_connection = 5
linger_ms = 0
request_timeout_ms = 1000
[[producers.sends]]
at_ms = 10
topic = "t"
key_prefix = "k-"
count = 20
interval_us = 1000
[[faults]]
at_ms = 12
action = "drop"
message = "produce"
[[faults]]
at_ms = 15
action = "delay"
message = "produce"
extra_ms = 4
count = 2
[[consumers]]
name = "reader"
topic = "t"
start_ms = 6000
"#;

/// The acks of v0 and v1 are lost and v0's retry is dropped: v0 expires (delivery timeout)
/// and the producer bumps its epoch while v1, already appended, waits out its retry
/// backoff. v1's next attempt must still be recognised (same pid, epoch and sequence).
const BUMP_WHILE_A_RETRY_WAITS: &str = r#"
version = 1
name = "bump-while-a-retry-waits"
[[topics]]
name = "t"
[[producers]]
name = "app"
client = "java"
enable_idempotence = true
linger_ms = 0
request_timeout_ms = 300
delivery_timeout_ms = 1000
retry_backoff_ms = 200
[[producers.sends]]
at_ms = 10
topic = "t"
key_prefix = "k-"
count = 2
interval_us = 690000
[[faults]]
at_ms = 0
action = "lose_ack"
topic = "t"
count = 2
[[faults]]
at_ms = 100
action = "drop"
message = "produce"
[[consumers]]
name = "reader"
topic = "t"
start_ms = 5000
"#;

/// Three records at once, five in flight; the first two produce requests are lost, the
/// third lands first.
const HEAD_OF_LINE_LOST: &str = r#"
version = 1
name = "head-of-line-lost"
seed = 0
[network]
latency_us = 100
[[topics]]
name = "t"
[[producers]]
name = "app"
client = "java"
enable_idempotence = true
max_in_flight_requests_per_connection = 5
linger_ms = 0
request_timeout_ms = 200
delivery_timeout_ms = 400
retry_backoff_ms = 102
[[producers.sends]]
at_ms = 56
topic = "t"
count = 3
[[faults]]
at_ms = 0
action = "drop"
message = "produce"
count = 2
[[consumers]]
name = "reader"
topic = "t"
start_ms = 5000
"#;

/// §7.1: per (partition, pid, epoch) sequences are contiguous; a new epoch starts at 0.
fn assert_sequences_contiguous(label: &str, sim: &Simulation) -> usize {
    let mut epoch_changes = 0;
    for ((tp, pid), batches) in idempotent_batches(sim) {
        assert_eq!(
            batches[0].base_sequence, 0,
            "{label}: {tp:?} pid {pid} starts at sequence {}",
            batches[0].base_sequence
        );
        for pair in batches.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if a.epoch == b.epoch {
                assert_eq!(
                    b.base_sequence,
                    sequence_add(a.last_sequence(), 1),
                    "{label}: {tp:?} pid {pid} epoch {}: sequence {} follows {}",
                    b.epoch,
                    b.base_sequence,
                    a.last_sequence()
                );
            } else {
                epoch_changes += 1;
                assert_eq!(
                    b.base_sequence, 0,
                    "{label}: {tp:?} pid {pid}: epoch {} starts at sequence {}",
                    b.epoch, b.base_sequence
                );
            }
        }
    }
    epoch_changes
}

#[test]
fn item1_sequences_are_contiguous_and_a_new_epoch_starts_at_zero() {
    let mut epoch_changes = 0;
    let mut checked = 0;
    for name in [
        "seed-frozen-broker",
        "lost-ack-idempotence-on",
        "retry-outside-window",
        "in-flight-order-idempotence-on",
        "producer-restart-new-pid",
    ] {
        let sim = run_builtin(name);
        checked += idempotent_batches(&sim).len();
        epoch_changes += assert_sequences_contiguous(name, &sim);
    }
    for (label, text) in [
        ("epoch-bump", EPOCH_BUMP),
        ("five-in-flight", FIVE_IN_FLIGHT_REORDERING_NETWORK),
    ] {
        let sim = run_text(label, text);
        checked += idempotent_batches(&sim).len();
        epoch_changes += assert_sequences_contiguous(label, &sim);
    }
    assert!(checked >= 7, "too few idempotent logs checked: {checked}");
    assert!(
        epoch_changes >= 1,
        "no run exercised an epoch change; the new-epoch rule went unchecked"
    );
}

#[test]
fn item1_epoch_bump_run_restarts_sequences_in_the_log() {
    let sim = run_text("epoch-bump", EPOCH_BUMP);
    assert!(
        notes(&sim).any(|n| matches!(n, Note::EpochBumped { new_epoch: 1, .. })),
        "the producer should bump its epoch after the expiry"
    );
    let all = idempotent_batches(&sim);
    assert_eq!(all.len(), 1, "one producer id on one partition");
    let batches = all.values().next().unwrap();
    let epochs: Vec<(i16, i32)> = batches.iter().map(|b| (b.epoch, b.base_sequence)).collect();
    assert_eq!(epochs.first(), Some(&(0, 0)), "{epochs:?}");
    assert!(epochs.contains(&(1, 0)), "epoch 1 starts at 0: {epochs:?}");
    // The expired record was left in doubt, and it is stored exactly once.
    let v0 = sim.ledger.get(RecordId(0)).unwrap();
    assert_eq!(v0.final_status(), DeliveryStatus::Indeterminate);
    assert_eq!(copies_of(&sim, P0, 0), 1);
}

#[test]
fn item2_idempotent_lost_ack_retry_is_recognised_with_the_original_offset() {
    let sim = run_builtin("lost-ack-idempotence-on");
    assert!(notes(&sim).any(|n| matches!(n, Note::AckLost { base_offset: 0, .. })));
    assert_eq!(copies_of(&sim, P0, 0), 1, "a second record was created");
    let dup = notes(&sim).find_map(|n| match n {
        Note::DuplicateDetected {
            original_offset,
            records,
            ..
        } if records.contains(&RecordId(0)) => Some(*original_offset),
        _ => None,
    });
    assert_eq!(dup, Some(0), "the broker must recognise the retry of v0");
    let answer = notes(&sim).find_map(|n| match n {
        Note::Delivered {
            records,
            base_offset,
            duplicate_answer,
            ..
        } if records.contains(&RecordId(0)) => Some((*base_offset, *duplicate_answer)),
        _ => None,
    });
    assert_eq!(
        answer,
        Some((Some(0), true)),
        "retry answered with offset 0"
    );
    let e = sim.ledger.get(RecordId(0)).unwrap();
    assert_eq!(e.acked_offset, Some(0));
    assert!(e.attempts >= 2);
    let stored = leader_log(&sim, P0);
    assert_eq!(stored[0].value, RecordId(0), "offset 0 holds v0");
}

#[test]
fn item2_a_retry_after_an_epoch_bump_is_not_a_second_record() {
    let sim = run_to_end("bump-while-a-retry-waits", BUMP_WHILE_A_RETRY_WAITS);
    // The schedule did what it says: both acks lost, v0 expired, the epoch was bumped.
    let acks_lost = notes(&sim)
        .filter(|n| matches!(n, Note::AckLost { .. }))
        .count();
    assert_eq!(acks_lost, 2);
    assert!(notes(&sim).any(|n| matches!(n, Note::EpochBumped { .. })));
    let v1_sent: Vec<(i16, i32)> = notes(&sim)
        .filter_map(|n| match n {
            Note::BatchSent {
                records,
                epoch,
                base_sequence,
                ..
            } if records.contains(&RecordId(1)) => Some((*epoch, *base_sequence)),
            _ => None,
        })
        .collect();
    assert!(v1_sent.len() >= 2, "v1 was retried: {v1_sent:?}");
    assert!(
        v1_sent.iter().all(|s| *s == v1_sent[0]),
        "SEMANTICS §2: every attempt of v1 carries the same epoch and sequence: {v1_sent:?}"
    );
    assert_eq!(
        copies_of(&sim, P0, 1),
        1,
        "idempotence on, acks=all: v1 must not be stored twice: {:?}",
        leader_log(&sim, P0)
    );
    let broken = violations(&sim);
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn item3_same_schedule_without_idempotence_makes_exactly_two_copies_of_each_stuck_record() {
    let on_text = builtin::text("lost-ack-idempotence-on").unwrap();
    assert_eq!(on_text.matches("enable_idempotence = true").count(), 1);
    let off_text = on_text.replace("enable_idempotence = true", "enable_idempotence = false");
    let on = run_text("idempotence on", on_text);
    let off = run_text("idempotence off", &off_text);
    assert!(on.producers[0].is_idempotent());
    assert!(!off.producers[0].is_idempotent());
    // v0's ack is lost, and the acks of v1 and v2 are stuck behind it on the connection; the
    // timeout closes it and all three are retried. Without idempotence each is stored twice,
    // with it once.
    for v in 0..3 {
        assert_eq!(copies_of(&on, P0, v), 1, "idempotence on: one copy of v{v}");
        assert_eq!(
            copies_of(&off, P0, v),
            2,
            "idempotence off: two copies of v{v}"
        );
    }
    assert_eq!(Report::of("on", &on).outcome.duplicates, 0);
    assert_eq!(Report::of("off", &off).outcome.duplicates, 3);
}

#[test]
fn item4_a_retry_older_than_five_batches_is_out_of_order_never_appended() {
    let sim = run_builtin("retry-outside-window");
    let pid = sim.producers[0].producer_id;
    let rejected: Vec<&Note> = notes(&sim)
        .filter(|n| {
            matches!(n, Note::AppendRejected {
                error: KafkaError::OutOfOrderSequenceNumber,
                base_sequence: 0,
                records,
                producer_id,
                ..
            } if records.contains(&RecordId(0)) && *producer_id == pid)
        })
        .collect();
    assert_eq!(rejected.len(), 1, "the late copy of batch 0: {rejected:#?}");
    // v0 was appended exactly once, never a second time, and never taken for a duplicate.
    let appends_of_v0 = notes(&sim)
        .filter(|n| matches!(n, Note::Appended { records, .. } if records.contains(&RecordId(0))))
        .count();
    assert_eq!(appends_of_v0, 1);
    assert!(!notes(&sim).any(
        |n| matches!(n, Note::DuplicateDetected { records, .. } if records.contains(&RecordId(0)))
    ));
    assert_eq!(copies_of(&sim, P0, 0), 1);
    // The broker's window really did hold five newer batches, none of them batch 0.
    let (_, r) = leader_replica(&sim, P0).unwrap();
    let entry = r.producers.get(pid).expect("producer state");
    assert_eq!(entry.batches.len(), 5);
    assert!(entry.batches.iter().all(|b| b.first_seq != 0));
}

#[test]
fn item4_contrast_a_retry_inside_the_window_is_a_duplicate_answer() {
    // The same, but the copy arrives 75 ms later: after batch 1, well inside the window.
    let text = builtin::text("retry-outside-window")
        .unwrap()
        .replace("extra_ms = 1000", "extra_ms = 75");
    let sim = run_text("retry-inside-window", &text);
    let dup = notes(&sim).find_map(|n| match n {
        Note::DuplicateDetected {
            records,
            original_offset,
            ..
        } if records.contains(&RecordId(0)) => Some(*original_offset),
        _ => None,
    });
    assert_eq!(dup, Some(0));
    assert!(!notes(&sim).any(|n| matches!(n, Note::AppendRejected { .. })));
    assert_eq!(copies_of(&sim, P0, 0), 1);
}

/// §7.5 on the final log: the producer's acknowledged records appear in send order.
fn assert_send_order(label: &str, sim: &Simulation) {
    let log = leader_log(sim, P0);
    let orders: Vec<u64> = log.iter().map(|r| sim.ledger.send_order(r.value)).collect();
    for w in orders.windows(2) {
        assert!(w[0] < w[1], "{label}: log order {log:?} is not send order");
    }
    for (i, e) in sim.ledger.records.iter().enumerate() {
        if e.final_status() == DeliveryStatus::Delivered {
            assert!(
                log.iter().any(|r| r.value == RecordId(i as u32)),
                "{label}: acknowledged v{i} missing from the log"
            );
        }
    }
}

#[test]
fn item5_five_in_flight_keep_send_order() {
    let sim = run_builtin("in-flight-order-idempotence-on");
    assert_eq!(sim.producers[0].config.max_in_flight, 5);
    assert!(notes(&sim).any(|n| matches!(
        n,
        Note::AppendRejected {
            error: KafkaError::OutOfOrderSequenceNumber,
            ..
        }
    )));
    assert_send_order("in-flight-order-idempotence-on", &sim);
    assert_eq!(leader_log(&sim, P0).len(), 5);

    let sim = run_text("five-in-flight", FIVE_IN_FLIGHT_REORDERING_NETWORK);
    assert!(notes(&sim).any(|n| matches!(n, Note::MessageDelayed { .. })));
    assert_send_order("five-in-flight", &sim);
    assert_eq!(leader_log(&sim, P0).len(), 20);
}

#[test]
fn item5_send_order_survives_losing_the_head_of_the_pipeline() {
    let sim = run_to_end("head-of-line-lost", HEAD_OF_LINE_LOST);
    let dropped = notes(&sim)
        .filter(|n| {
            matches!(
                n,
                Note::MessageDropped {
                    why: DropReason::Fault,
                    ..
                }
            )
        })
        .count();
    assert_eq!(dropped, 2, "two produce requests are lost");
    // The ones sent behind a lost request are stuck on its connection, not appended out of
    // order.
    assert!(notes(&sim).any(|n| matches!(
        n,
        Note::MessageDropped {
            why: DropReason::StalledConnection,
            ..
        }
    )));
    assert_send_order("head-of-line-lost", &sim);
    let broken = violations(&sim);
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn item5_contrast_without_idempotence_the_order_breaks() {
    let sim = run_builtin("in-flight-order-idempotence-off");
    let log = leader_log(&sim, P0);
    let orders: Vec<u64> = log.iter().map(|r| sim.ledger.send_order(r.value)).collect();
    assert!(
        orders.windows(2).any(|w| w[0] > w[1]),
        "expected a reordering: {log:?}"
    );
}

#[test]
fn item6_no_batch_with_a_stale_epoch_is_appended() {
    let sim = run_text("stale-epoch", STALE_EPOCH);
    assert!(notes(&sim).any(|n| matches!(n, Note::EpochBumped { new_epoch: 1, .. })));
    // The epoch-0 original arrived after epoch 1 was stored: fenced, not appended.
    assert!(
        notes(&sim).any(|n| matches!(n,
            Note::AppendRejected { error: KafkaError::InvalidProducerEpoch, epoch: 0, records, .. }
            if records.contains(&RecordId(0))
        )),
        "the late epoch-0 batch should be rejected with INVALID_PRODUCER_EPOCH"
    );
    assert_eq!(copies_of(&sim, P0, 0), 0, "stale batch appended");
    assert_eq!(copies_of(&sim, P0, 1), 1);
    // On the final logs of this and every idempotent built-in: epochs never go down.
    let mut runs = vec![("stale-epoch".to_string(), sim)];
    for name in [
        "seed-frozen-broker",
        "lost-ack-idempotence-on",
        "retry-outside-window",
        "in-flight-order-idempotence-on",
        "producer-restart-new-pid",
    ] {
        runs.push((name.to_string(), run_builtin(name)));
    }
    runs.push(("epoch-bump".into(), run_text("epoch-bump", EPOCH_BUMP)));
    for (label, sim) in &runs {
        for ((tp, pid), batches) in idempotent_batches(sim) {
            for w in batches.windows(2) {
                assert!(
                    w[1].epoch >= w[0].epoch,
                    "{label}: {tp:?} pid {pid}: epoch {} appended after epoch {}",
                    w[1].epoch,
                    w[0].epoch
                );
            }
        }
    }
}

#[test]
fn item7_acks1_leader_crash_can_lose_an_acknowledged_record() {
    // A 'sometimes' property: this is the run where it happens.
    let sim = run_builtin("acks1-leader-crash-loss");
    let v0 = sim.ledger.get(RecordId(0)).unwrap();
    assert_eq!(v0.final_status(), DeliveryStatus::Delivered);
    assert_eq!(v0.acked_offset, Some(0), "v0 was acknowledged at offset 0");
    assert!(
        !v0.appends.is_empty(),
        "v0 was appended on the old leader before it died"
    );
    assert!(notes(&sim).any(|n| matches!(n,
        Note::LeaderElected { lost_records, .. } if lost_records.contains(&RecordId(0)))));
    // The new leader's log does not have it, and nothing readable does.
    let (leader, _) = leader_replica(&sim, P0).unwrap();
    assert_eq!(leader, 1, "broker 1 took over");
    assert_eq!(copies_of(&sim, P0, 0), 0);
    let r = Report::of("acks1", &sim);
    assert_eq!(r.outcome.lost, 1);
    assert!(r.anomalies.iter().any(|a| a.kind == "lost-write"));

    // Contrast: the same crash with acks=all loses nothing.
    let sim = run_builtin("acks-all-leader-crash-no-loss");
    assert_eq!(Report::of("acks-all", &sim).outcome.lost, 0);
    assert_eq!(copies_of(&sim, P0, 0), 1);
}
