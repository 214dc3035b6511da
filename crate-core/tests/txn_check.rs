//! KIP-890 at the partition leader: under transaction protocol 2 the client sends no
//! AddPartitionsToTxn nor AddOffsetsToTxn, and each leader (and the group coordinator, for the
//! offsets) adds its partition to the transaction before it stores the first write; under
//! protocol 1 the client adds, and the leader only verifies. A busy coordinator is asked again
//! every 20 ms for up to 100 ms, then the write is refused with the retriable
//! CONCURRENT_TRANSACTIONS; a late copy of a write is refused, and opens no transaction; a
//! marker written while a write waits voids its check.

use eos_core::builtin;
use eos_core::ids::NodeId;
use eos_core::kafka::protocol::MessageKind;
use eos_core::kafka::txn_check::CheckFailure;
use eos_core::kafka::KafkaError;
use eos_core::report::Report;
use eos_core::sim::simulation::{Simulation, StepKind};
use eos_core::sim::Note;
use eos_core::time::{ms, SimTime};
use eos_core::{RunLimit, Scenario};

fn run(text: &str) -> Simulation {
    let mut sim = Scenario::parse(text).expect("valid").simulation(None);
    sim.run(RunLimit::Completion);
    sim
}

fn run_builtin(name: &str) -> Simulation {
    let mut sim = builtin::get(name).expect("built-in").simulation(None);
    sim.run(RunLimit::Completion);
    sim
}

fn notes(sim: &Simulation) -> impl Iterator<Item = (SimTime, &Note)> + '_ {
    sim.trace()
        .iter()
        .flat_map(|r| r.notes.iter().map(move |n| (r.time, n)))
}

/// Senders of every delivered message of this kind.
fn senders(sim: &Simulation, of: MessageKind) -> Vec<NodeId> {
    sim.trace()
        .iter()
        .filter_map(|r| match &r.what {
            StepKind::Deliver { kind, from, .. } if *kind == of => Some(*from),
            _ => None,
        })
        .collect()
}

/// Why and how each held write was refused.
fn refusals(sim: &Simulation) -> Vec<(CheckFailure, KafkaError)> {
    notes(sim)
        .filter_map(|(_, n)| match n {
            Note::TxnPartitionCheckFailed {
                cause, answered, ..
            } => Some((*cause, *answered)),
            _ => None,
        })
        .collect()
}

fn under_protocol_1(text: &str) -> String {
    format!("{text}\n[cluster]\ntransaction_protocol = 1\n")
}

/// Two transactions over two partitions, with read-process-write's offsets in neither: a
/// plain transactional producer.
const TWO_TRANSACTIONS: &str = r#"
version = 1
name = "two-transactions"
[[topics]]
name = "events"
partitions = 2
[[producers]]
name = "app"
transactional_id = "app-tx"
[[producers.transactions]]
[[producers.transactions.sends]]
topic = "events"
partition = 0
key = "a"
[[producers.transactions.sends]]
topic = "events"
partition = 1
key = "b"
[[producers.transactions]]
[[producers.transactions.sends]]
topic = "events"
partition = 0
key = "c"
[[consumers]]
name = "reader"
topic = "events"
isolation = "read_committed"
start_ms = 2000
"#;

#[test]
fn under_protocol_2_the_leaders_add_the_partitions_and_the_client_adds_none() {
    let sim = run(TWO_TRANSACTIONS);
    let adders = senders(&sim, MessageKind::AddPartitionsToTxn);
    assert!(!adders.is_empty());
    assert!(
        adders.iter().all(|n| matches!(n, NodeId::Broker(_))),
        "{adders:?}"
    );
    // One addition per partition and transaction: events-0 and events-1, then events-0.
    let adds: Vec<bool> = notes(&sim)
        .filter_map(|(_, n)| match n {
            Note::TxnPartitionCheck {
                add, again: false, ..
            } => Some(*add),
            _ => None,
        })
        .collect();
    assert_eq!(adds, [true, true, true]);
    // Every record was held before it was stored: no append precedes its partition's check.
    let mut checked = Vec::new();
    for (_, n) in notes(&sim) {
        match n {
            Note::TxnPartitionCheck { records, .. } => checked.extend(records.iter().copied()),
            Note::Appended { records, .. } => {
                for r in records {
                    assert!(checked.contains(r), "{r} stored unchecked");
                }
            }
            _ => {}
        }
    }
    let report = Report::of("two-transactions", &sim);
    assert_eq!((report.outcome.duplicates, report.outcome.lost), (0, 0));
    assert_eq!(sim.consumers[0].reads.len(), 3);
}

#[test]
fn under_protocol_1_the_client_adds_and_the_leaders_only_verify() {
    let sim = run(&under_protocol_1(TWO_TRANSACTIONS));
    let adders = senders(&sim, MessageKind::AddPartitionsToTxn);
    assert!(adders.iter().any(|n| matches!(n, NodeId::Producer(_))));
    let checks: Vec<bool> = notes(&sim)
        .filter_map(|(_, n)| match n {
            Note::TxnPartitionCheck { add, .. } => Some(*add),
            _ => None,
        })
        .collect();
    assert_eq!(checks, [false, false, false]);
    assert_eq!(sim.consumers[0].reads.len(), 3);
}

/// sendOffsetsToTransaction under protocol 2 is one TxnOffsetCommit: the group coordinator
/// adds its offsets partition to the transaction itself.
#[test]
fn under_protocol_2_the_group_coordinator_adds_the_offsets_partition() {
    let sim = run_builtin("rpw-crash-exactly-once");
    assert!(senders(&sim, MessageKind::AddOffsetsToTxn).is_empty());
    let offsets_checks = notes(&sim)
        .filter(|(_, n)| {
            matches!(n, Note::TxnPartitionCheck { records, again: false, .. } if records.is_empty())
        })
        .count();
    let pending = notes(&sim)
        .filter(|(_, n)| matches!(n, Note::TxnOffsetsPending { .. }))
        .count();
    assert!(offsets_checks > 0);
    assert_eq!(
        offsets_checks, pending,
        "one addition per transaction's offsets"
    );
    let text = builtin::text("rpw-crash-exactly-once").expect("built-in");
    let v1 = run(&under_protocol_1(text));
    assert!(!senders(&v1, MessageKind::AddOffsetsToTxn).is_empty());
}

/// Two brokers: transaction 1's marker reaches events-0 at once, but the one for events-1
/// (on the coordinator's broker) is `delay_ms` late, so the coordinator is still completing
/// transaction 1 when transaction 2's first record reaches events-0's leader:
/// CONCURRENT_TRANSACTIONS. The leader asks again every 20 ms while less than 100 ms have
/// passed since its first ask; with the marker 400 ms late it then refuses the record with
/// CONCURRENT_TRANSACTIONS (not converted under protocol 2: KAFKA-18662), which the producer
/// retries. Either way every record commits once.
fn busy_coordinator(delay_ms: u64) -> Simulation {
    let text = TWO_TRANSACTIONS.replace("partitions = 2", "partitions = 2\nreplication_factor = 1");
    run(&format!(
        r#"{text}
[cluster]
brokers = 2
[[faults]]
at_ms = 0
action = "delay"
message = "write_txn_markers"
to = "broker-1"
extra_ms = {delay_ms}
"#
    ))
}

#[test]
fn a_busy_coordinator_is_asked_again_then_the_write_is_refused_as_retriable() {
    for (delay, gives_up) in [(50, false), (400, true)] {
        let sim = busy_coordinator(delay);
        let again: Vec<SimTime> = notes(&sim)
            .filter(|(_, n)| matches!(n, Note::TxnPartitionCheck { again: true, .. }))
            .map(|(t, _)| t)
            .collect();
        assert!(!again.is_empty(), "delay {delay}: never asked again");
        for w in again.windows(2) {
            assert!(w[1] - w[0] >= ms(20), "delay {delay}: {again:?}");
        }
        let refused = refusals(&sim);
        if gives_up {
            assert!(!refused.is_empty(), "delay {delay}: never gave up");
            assert!(
                refused.iter().all(|r| *r
                    == (
                        CheckFailure::Coordinator,
                        KafkaError::ConcurrentTransactions
                    )),
                "delay {delay}: {refused:?}"
            );
            let first_ask = notes(&sim)
                .filter(|(_, n)| matches!(n, Note::TxnPartitionCheck { again: false, .. }))
                .map(|(t, _)| t)
                .nth(2)
                .expect("transaction 2's first check");
            // The last answer that leads to a new ask comes within 100 ms; the ask 20 ms later.
            assert!(
                again
                    .iter()
                    .filter(|t| **t < first_ask + ms(200))
                    .all(|t| *t <= first_ask + ms(125)),
                "delay {delay}: asked again past 100 ms: {again:?}"
            );
        } else {
            assert!(refused.is_empty(), "delay {delay}: {refused:?}");
        }
        let report = Report::of("busy", &sim);
        assert_eq!(
            (report.outcome.duplicates, report.outcome.lost),
            (0, 0),
            "delay {delay}"
        );
        let offsets: Vec<u64> = sim.consumers[0].reads.iter().map(|r| r.offset).collect();
        assert_eq!(offsets.len(), 3, "delay {delay}: {offsets:?}");
    }
}

/// One broker: transaction 1's markers are late, so events-0 still holds transaction 1 (an
/// older epoch) when transaction 2's first record arrives. The leader refuses it at once
/// with CONCURRENT_TRANSACTIONS, without asking the coordinator (KAFKA-18575); the producer
/// retries, and the record commits once.
#[test]
fn a_previous_transaction_still_open_on_the_partition_is_refused_at_once() {
    let sim = run(&format!(
        r#"{TWO_TRANSACTIONS}
[[faults]]
at_ms = 0
action = "delay"
message = "write_txn_markers"
extra_ms = 50
"#
    ));
    let refused = refusals(&sim);
    assert_eq!(
        refused,
        [(
            CheckFailure::PreviousOpen,
            KafkaError::ConcurrentTransactions
        )]
    );
    let report = Report::of("previous-open", &sim);
    assert_eq!((report.outcome.duplicates, report.outcome.lost), (0, 0));
    assert_eq!(sim.consumers[0].reads.len(), 3);
}

/// A copy of a record that arrives after its transaction ended is refused, so nothing is
/// stored and no transaction is left open to pin the LSO. Under protocol 2 the partition knows
/// a newer epoch (the markers carry it) and refuses the copy at once (Kafka 4.1, KAFKA-18042);
/// under protocol 1 the epoch is the same, the leader asks the coordinator, and the partition
/// is in no ongoing transaction: TRANSACTION_ABORTABLE.
#[test]
fn a_late_copy_of_a_write_is_refused_and_opens_no_transaction() {
    let late_copy = format!(
        r#"{TWO_TRANSACTIONS}
[[faults]]
at_ms = 0
action = "duplicate"
message = "produce"
extra_ms = 500
"#
    );
    for (text, checked, error) in [
        (late_copy.clone(), false, KafkaError::InvalidProducerEpoch),
        (
            under_protocol_1(&late_copy),
            true,
            KafkaError::TransactionAbortable,
        ),
    ] {
        let sim = run(&text);
        let refused: Vec<(bool, KafkaError)> = notes(&sim)
            .filter(|(t, _)| *t >= ms(500))
            .filter_map(|(_, n)| match n {
                Note::TxnPartitionCheckFailed { answered, .. } => Some((true, *answered)),
                Note::AppendRejected { error, .. } => Some((false, *error)),
                _ => None,
            })
            .collect();
        assert_eq!(refused, [(checked, error)]);
        for b in &sim.brokers {
            for r in b.replicas.values() {
                assert!(r.txn.ongoing().is_empty(), "{:?} left open", r.tp);
                assert_eq!(r.last_stable_offset(), r.high_watermark);
            }
        }
        assert_eq!(sim.consumers[0].reads.len(), 3);
    }
}

/// Kafka's verification guard: transaction 2's record waits for the coordinator's answer (its
/// delivery delayed) while a late copy of transaction 1's EndTxn(abort) ends transaction 2 on
/// the partition (protocol 1: same epoch). The coordinator's "yes" no longer holds: the record
/// is refused with INVALID_TXN_STATE instead of opening a transaction nothing would end.
#[test]
fn a_marker_written_while_a_write_waits_voids_its_check() {
    let text = r#"
version = 1
name = "guard"
[cluster]
transaction_protocol = 1
[[topics]]
name = "events"
[[producers]]
name = "app"
transactional_id = "app-tx"
[[producers.transactions]]
end = "abort"
[[producers.transactions.sends]]
topic = "events"
key = "t1"
[[producers.transactions]]
at_ms = 600
[[producers.transactions.sends]]
topic = "events"
key = "t2"
[[faults]]
at_ms = 0
action = "duplicate"
message = "end_txn"
extra_ms = 600
[[faults]]
at_ms = 602
action = "delay"
from = "broker-0"
to = "broker-0"
message = "txn_response"
extra_ms = 40
[[consumers]]
name = "reader"
topic = "events"
isolation = "read_committed"
start_ms = 3000
"#;
    let sim = run(text);
    let refused: Vec<(bool, KafkaError)> = notes(&sim)
        .filter_map(|(_, n)| match n {
            Note::TxnPartitionCheckFailed {
                cause, answered, ..
            } => Some((*cause == CheckFailure::MarkerMeanwhile, *answered)),
            _ => None,
        })
        .collect();
    assert_eq!(refused, [(true, KafkaError::InvalidTxnState)]);
    let r = sim.brokers[0].replicas.values().next().expect("a replica");
    assert!(r.txn.ongoing().is_empty());
    assert_eq!(r.last_stable_offset(), r.high_watermark);
}
