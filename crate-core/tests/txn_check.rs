//! KIP-890 at the partition leader: under transaction protocol 2 the client sends no
//! AddPartitionsToTxn nor AddOffsetsToTxn, and each leader (and the group coordinator, for the
//! offsets) adds its partition to the transaction before it stores the first write; under
//! protocol 1 the client adds, and the leader only verifies. A busy coordinator is asked again
//! every 20 ms for up to 100 ms, then the write is refused with the retriable
//! NOT_ENOUGH_REPLICAS; a late copy of a write is refused, and opens no transaction.

use eos_core::builtin;
use eos_core::ids::NodeId;
use eos_core::kafka::protocol::MessageKind;
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

/// The coordinator still writes transaction 1's markers (they are delayed) when transaction
/// 2's first record reaches its leader: CONCURRENT_TRANSACTIONS. The leader asks again every
/// 20 ms while less than 100 ms have passed since its first ask; with the markers `delay_ms`
/// late it then refuses the record with NOT_ENOUGH_REPLICAS, which the producer retries. Either way every record commits once.
fn busy_coordinator(delay_ms: u64) -> Simulation {
    run(&format!(
        r#"{TWO_TRANSACTIONS}
[[faults]]
at_ms = 0
action = "delay"
message = "write_txn_markers"
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
        let refused: Vec<KafkaError> = notes(&sim)
            .filter_map(|(_, n)| match n {
                Note::TxnPartitionCheckFailed { answered, .. } => Some(*answered),
                _ => None,
            })
            .collect();
        if gives_up {
            assert!(!refused.is_empty(), "delay {delay}: never gave up");
            assert!(refused.iter().all(|e| *e == KafkaError::NotEnoughReplicas));
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

/// A copy of a record that arrives after its transaction ended finds no open transaction at
/// the leader: the coordinator refuses it (protocol 1: not in the transaction; protocol 2: an
/// older epoch), so nothing is stored and no transaction is left open to pin the LSO.
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
    for (text, error) in [
        (late_copy.clone(), KafkaError::InvalidProducerEpoch),
        (under_protocol_1(&late_copy), KafkaError::InvalidTxnState),
    ] {
        let sim = run(&text);
        let refused: Vec<KafkaError> = notes(&sim)
            .filter_map(|(_, n)| match n {
                Note::TxnPartitionCheckFailed { answered, .. } => Some(*answered),
                _ => None,
            })
            .collect();
        assert_eq!(refused, [error]);
        for b in &sim.brokers {
            for r in b.replicas.values() {
                assert!(r.txn.ongoing().is_empty(), "{:?} left open", r.tp);
                assert_eq!(r.last_stable_offset(), r.high_watermark);
            }
        }
        assert_eq!(sim.consumers[0].reads.len(), 3);
    }
}
