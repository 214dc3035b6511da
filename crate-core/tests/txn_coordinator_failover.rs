//! The transaction coordinator's broker is fenced: another replica of its
//! `__transaction_state` partition becomes the coordinator, loads its transactions and
//! carries them on, and the clients find it (FindCoordinator) after their requests to the
//! dead one time out.

use eos_core::ids::NodeId;
use eos_core::sim::Note;
use eos_core::{builtin, Scenario};

mod support;
use support::run;

fn notes(sim: &eos_core::Simulation) -> Vec<(u64, &Note)> {
    let steps = sim.trace().iter();
    steps
        .flat_map(|r| r.notes.iter().map(move |n| (r.step, n)))
        .collect()
}

#[test]
fn another_broker_takes_the_open_transaction_over_and_it_commits() {
    let (sim, report) = run(&builtin::get("txn-coordinator-failover").expect("built-in"));
    let all = notes(&sim);
    let moved = all
        .iter()
        .find_map(|(step, n)| match n {
            Note::TxnCoordinatorMoved { from, to, ids } => Some((*step, *from, *to, ids.clone())),
            _ => None,
        })
        .expect("the coordination moves");
    assert_eq!(
        (moved.1, moved.2, moved.3),
        (
            NodeId::Broker(0),
            NodeId::Broker(1),
            vec!["app-tx".to_string()]
        )
    );
    let found = all
        .iter()
        .find_map(|(step, n)| match n {
            Note::TxnCoordinatorFound {
                coordinator,
                resent,
                ..
            } => Some((*step, *coordinator, *resent)),
            _ => None,
        })
        .expect("the producer finds it");
    assert!(found.0 > moved.0);
    assert_eq!(found.1, NodeId::Broker(1));
    assert_eq!(
        found.2,
        Some(eos_core::kafka::protocol::MessageKind::EndTxn)
    );
    assert!(all
        .iter()
        .any(|(step, n)| *step > found.0 && matches!(n, Note::TxnEnded { commit: true, .. })));
    assert_eq!(report.reads["committed-reader"].records, 3);
    assert_eq!((report.outcome.lost, report.outcome.duplicates), (0, 0));
}

#[test]
fn the_new_coordinator_aborts_a_transaction_past_its_timeout_and_the_readers_move_on() {
    let text = eos_core::scenario::builtin::text("txn-coordinator-failover")
        .expect("built-in")
        .replace(
            "transaction_timeout_ms = 60000",
            "transaction_timeout_ms = 5000",
        );
    let (sim, report) = run(&Scenario::parse(&text).expect("valid"));
    let all = notes(&sim);
    assert!(all.iter().any(|(_, n)| matches!(
        n,
        Note::TxnTimedOut {
            coordinator: NodeId::Broker(1),
            ..
        }
    )));
    // The producer's late EndTxn(commit) is refused: its epoch was bumped by the abort.
    assert!(all
        .iter()
        .any(|(_, n)| matches!(n, Note::ProducerFenced { .. })));
    assert!(!all
        .iter()
        .any(|(_, n)| matches!(n, Note::TxnEnded { commit: true, .. })));
    // The ABORT markers are written: nothing holds the last stable offset, and the
    // read_committed reader reads past the aborted records to the end.
    assert_eq!(report.reads["committed-reader"].records, 0);
    assert_eq!(report.outcome.aborted_reads, 0);
    for b in &sim.brokers {
        for r in b.replicas.values().filter(|r| r.is_leader(b.id)) {
            assert_eq!(r.last_stable_offset(), r.high_watermark, "{:?}", r.tp);
        }
    }
}

#[test]
fn a_frozen_coordinator_that_wakes_after_the_move_answers_not_coordinator() {
    // A single broker's partition, and the coordinator frozen past its (1 ms) session: the
    // coordination moves to broker 1 while broker 0 holds the InitProducerId.
    let text = r#"
version = 1
name = "frozen-coordinator"
[cluster]
brokers = 2
broker_session_timeout_ms = 1
[[topics]]
name = "t"
[[producers]]
name = "p0"
transactional_id = "tx-0"
[[producers.transactions]]
end = "commit"
[[producers.transactions.sends]]
topic = "t"
key = "k"
[[faults]]
at_ms = 0
action = "freeze"
target = "broker-0"
duration_ms = 1642
[[consumers]]
name = "c0"
topic = "t"
isolation = "read_committed"
start_ms = 5000
"#;
    let (sim, report) = run(&Scenario::parse(text).expect("valid"));
    let all = notes(&sim);
    let refused = all
        .iter()
        .position(|(_, n)| {
            matches!(
                n,
                Note::NotCoordinator {
                    broker: NodeId::Broker(0),
                    ..
                }
            )
        })
        .expect("the woken broker refuses");
    let found = all
        .iter()
        .position(|(_, n)| {
            matches!(
                n,
                Note::TxnCoordinatorFound {
                    coordinator: NodeId::Broker(1),
                    ..
                }
            )
        })
        .expect("the producer finds the new coordinator");
    assert!(refused < found);
    assert_eq!(report.reads["c0"].records, 1);
}

#[test]
fn nothing_moves_where_nothing_is_transactional() {
    let (sim, _) = run(&builtin::get("acks-all-leader-crash-no-loss").expect("built-in"));
    assert!(!notes(&sim)
        .iter()
        .any(|(_, n)| matches!(n, Note::TxnCoordinatorMoved { .. })));
    assert!(sim.brokers.iter().all(|b| b.coordinator_moves.is_empty()));
}
