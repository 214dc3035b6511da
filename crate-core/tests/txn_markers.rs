//! Transaction markers are written with acks=-1, as Kafka writes them: a leader refuses one
//! while its ISR is below `min.insync.replicas` (NOT_ENOUGH_REPLICAS), the coordinator sends
//! it again, and a marker written is answered only once the in-sync replicas have it, so
//! the coordinator completes a transaction only when every marker is replicated.

use eos_core::ids::NodeId;
use eos_core::kafka::txn_coordinator::marker_backoff_ms;
use eos_core::kafka::KafkaError;
use eos_core::report::Report;
use eos_core::sim::Note;
use eos_core::time::ms;
use eos_core::{RunLimit, Scenario};
use proptest::prelude::*;

mod support;
use support::{run, step_notes as notes};

const NAME: &str = "txn-marker-min-isr";

fn text() -> String {
    eos_core::scenario::builtin::text(NAME)
        .expect("built-in")
        .to_string()
}

fn first(sim: &eos_core::Simulation, what: impl Fn(&Note) -> bool) -> Option<u64> {
    notes(sim)
        .into_iter()
        .find(|(_, n)| what(n))
        .map(|(s, _)| s)
}

fn completed(n: &Note) -> bool {
    matches!(n, Note::TxnTransition { to, .. } if to.starts_with("Complete"))
}

/// Every marker answer that waited is released by the leader's high watermark passing the
/// marker, before the coordinator completes the transaction.
fn waits_end_before_completion(sim: &eos_core::Simulation) -> Result<(), String> {
    let all = notes(sim);
    let Some(done) = all.iter().find(|(_, n)| completed(n)).map(|(s, _)| *s) else {
        return Ok(());
    };
    for (step, n) in &all {
        let Note::MarkerWaitsForReplicas {
            broker, tp, offset, ..
        } = n
        else {
            continue;
        };
        if *step > done {
            continue;
        }
        let passed = all.iter().any(|(s, m)| {
            *s >= *step
                && *s <= done
                && matches!(m, Note::HighWatermarkAdvanced { broker: b, tp: t, high_watermark }
                    if b == broker && t == tp && *high_watermark > *offset)
        });
        if !passed {
            return Err(format!(
                "the marker at {offset} waited at step {step}, but the transaction completed at step {done} before the high watermark passed it"
            ));
        }
    }
    Ok(())
}

/// (time, backoff in ms, attempt) of each MarkersRetried.
fn retries_at(sim: &eos_core::Simulation) -> Vec<(u64, u64, u32)> {
    sim.trace()
        .iter()
        .flat_map(|r| {
            r.notes.iter().filter_map(move |n| match n {
                Note::MarkersRetried {
                    backoff_ms,
                    attempt,
                    ..
                } => Some((r.time, *backoff_ms, *attempt)),
                _ => None,
            })
        })
        .collect()
}

/// The run's invariants hold and the reader gets the record, once.
fn sound(report: &Report) {
    assert!(
        report.invariants.iter().all(|i| i.holds),
        "{:?}",
        report.invariants
    );
    assert_eq!(report.reads["committed-reader"].records, 1);
}

/// One chain of retries at a time: each retry comes after the backoff its previous one
/// announced, unless a new round of sends (a resend) started it afresh.
fn one_chain_at_a_time(sim: &eos_core::Simulation) -> Result<(), String> {
    let retries = retries_at(sim);
    for pair in retries.windows(2) {
        let ((t1, backoff, _), (t2, _, attempt)) = (pair[0], pair[1]);
        if attempt != 0 && t2 < t1 + ms(backoff) {
            return Err(format!("{retries:?}"));
        }
    }
    Ok(())
}

/// A marker appended while the ISR still counts a dead follower waits for it; once the
/// follower is fenced the high watermark is held (strict min ISR), the answer times out
/// after request.timeout.ms, and the coordinator's sends are refused until it is back.
#[test]
fn a_marker_answer_held_past_the_request_timeout_is_sent_again() {
    let t = text()
        .replace("extra_ms = 10000", "extra_ms = 1000")
        .replace("restart_after_ms = 15000", "restart_after_ms = 60000")
        .replace("max_empty_polls = 8", "max_empty_polls = 80");
    let t = t.split("[expect]").next().unwrap_or_default().to_string();
    let s = Scenario::parse(&t).expect("parses");
    // Held from the append at 1.015 s until the request's timeout, 30 s later.
    let mut held = s.simulation(None);
    let waiting = |sim: &eos_core::Simulation| sim.brokers[0].marker_waits.len();
    held.run(RunLimit::Until(ms(30_900)));
    assert_eq!(waiting(&held), 1);
    held.run(RunLimit::Until(ms(31_100)));
    assert_eq!(
        waiting(&held),
        0,
        "answered REQUEST_TIMED_OUT at the timeout"
    );
    let (sim, report) = run(&s);
    sound(&report);
    let at = |what: &dyn Fn(&Note) -> bool| {
        sim.trace()
            .iter()
            .find(|r| r.notes.iter().any(what))
            .map(|r| r.time)
    };
    let waited = at(&|n| matches!(n, Note::MarkerWaitsForReplicas { .. })).expect("waits");
    let refused = at(&|n| matches!(n, Note::MarkerRefused { .. })).expect("refused");
    // Sent again 30 s after the first send, not before.
    assert!(refused >= waited + ms(30_000), "{waited} {refused}");
    assert!(refused < waited + ms(31_000), "{waited} {refused}");
    one_chain_at_a_time(&sim).expect("one chain");
}

#[test]
fn a_marker_is_refused_below_min_insync_and_sent_again_until_the_follower_is_back() {
    let s = Scenario::parse(&text()).expect("parses");
    let (sim, report) = run(&s);
    sound(&report);
    // The producer hears its commit before any marker is written: the decision is made.
    let told = first(&sim, |n| matches!(n, Note::TxnEnded { commit: true, .. })).expect("told");
    let refused = first(
        &sim,
        |n| matches!(n, Note::MarkerRefused { isr, min_insync: 2, .. } if isr == &vec![0]),
    )
    .expect("the marker is refused");
    assert!(told < refused, "told at {told}, refused at {refused}");
    // Sent again, backing off 100 ms doubling up to 1 s, each time for NOT_ENOUGH_REPLICAS.
    let retries: Vec<(u64, u32, KafkaError)> = notes(&sim)
        .into_iter()
        .filter_map(|(_, n)| match n {
            Note::MarkersRetried {
                backoff_ms,
                attempt,
                error,
                ..
            } => Some((backoff_ms, attempt, error)),
            _ => None,
        })
        .collect();
    assert!(retries.len() >= 5, "{retries:?}");
    for (i, (backoff, attempt, error)) in retries.iter().enumerate() {
        assert_eq!(*attempt as usize, i);
        assert_eq!(*backoff, marker_backoff_ms(*attempt));
        assert_eq!(*error, KafkaError::NotEnoughReplicas);
    }
    assert_eq!(
        retries.iter().map(|r| r.0).take(6).collect::<Vec<_>>(),
        vec![100, 200, 400, 800, 1000, 1000]
    );
    // The marker is written only once the follower is back in the ISR; its answer waits for
    // the follower's copy; then the transaction completes, and the reader reads.
    let back = first(&sim, |n| {
        matches!(
            n,
            Note::IsrExpanded {
                follower: NodeId::Broker(1),
                ..
            }
        )
    })
    .expect("back in the ISR");
    let written = first(&sim, |n| matches!(n, Note::MarkerWritten { .. })).expect("written");
    assert!(back < written, "back at {back}, written at {written}");
    assert!(notes(&sim)
        .iter()
        .all(|(s, n)| !matches!(n, Note::MarkerRefused { .. }) || *s < back));
    let waited = first(&sim, |n| {
        matches!(n, Note::MarkerWaitsForReplicas { offset: 1, .. })
    });
    assert_eq!(waited, Some(written));
    let done = first(&sim, completed).expect("completes");
    let read = first(&sim, |n| matches!(n, Note::Read { .. })).expect("read");
    assert!(written < done && done < read, "{written} {done} {read}");
    waits_end_before_completion(&sim).expect("replicated first");
}

#[test]
fn without_the_crash_the_marker_is_written_at_once_and_waits_only_for_the_copy() {
    let t = text().replace(
        "[[faults]]\nat_ms = 100\naction = \"crash\"",
        "[[faults]]\nat_ms = 100000\naction = \"crash\"",
    );
    let s = Scenario::parse(&t).expect("parses");
    let (sim, report) = run(&s);
    assert_eq!(report.reads["committed-reader"].records, 1);
    assert_eq!(
        first(&sim, |n| matches!(n, Note::MarkerRefused { .. })),
        None
    );
    assert_eq!(
        first(&sim, |n| matches!(n, Note::MarkersRetried { .. })),
        None
    );
    assert!(first(&sim, |n| matches!(n, Note::MarkerWaitsForReplicas { .. })).is_some());
    waits_end_before_completion(&sim).expect("replicated first");
}

/// A transaction over two single-replica partitions; broker 1, leader of `orders-1`, dies at
/// 0.5 s and is fenced at 9.5 s (the partition offline), the EndTxn arrives at 10 s, and the
/// broker is back after `back_after` ms.
fn offline_partition(back_after: Option<u64>) -> Scenario {
    let restart = back_after.map_or(String::new(), |ms| format!("restart_after_ms = {ms}"));
    let text = format!(
        r#"
version = 1
name = "leaderless-marker"
[cluster]
brokers = 2
[[topics]]
name = "orders"
partitions = 2
[[producers]]
name = "shop"
transactional_id = "shop-tx"
[[producers.transactions]]
end = "commit"
[[producers.transactions.sends]]
topic = "orders"
partition = 0
key = "a"
[[producers.transactions.sends]]
topic = "orders"
partition = 1
key = "b"
[[faults]]
at_ms = 0
action = "delay"
message = "end_txn"
extra_ms = 10000
[[faults]]
at_ms = 500
action = "crash"
target = "broker-1"
{restart}
"#
    );
    Scenario::parse(&text).expect("parses")
}

/// The COMMIT marker of a partition that had no leader at the decision goes out as soon
/// as it has one again (Kafka's queue for an unknown leader), not at the 30 s resend.
#[test]
fn a_partition_without_a_leader_gets_its_marker_once_it_has_one() {
    let (sim, _) = run(&offline_partition(Some(15_000)));
    let at = |what: &dyn Fn(&Note) -> bool| {
        sim.trace()
            .iter()
            .find(|r| r.notes.iter().any(what))
            .map(|r| r.time)
    };
    let decided = at(&|n| matches!(n, Note::TxnEnded { commit: true, .. })).expect("decided");
    let elected = at(&|n| matches!(n, Note::LeaderElected { .. })).expect("back");
    let marked =
        at(&|n| matches!(n, Note::MarkerWritten { tp, .. } if tp.partition == 1)).expect("marked");
    let done = at(&completed).expect("completes");
    assert!(decided < elected, "{decided} {elected}");
    assert!(
        marked >= elected && marked <= elected + ms(1_100),
        "{elected} {marked}"
    );
    assert!(
        done < decided + ms(30_000),
        "before the resend: {decided} {done}"
    );
}

/// Never back: the looks stop after about 30 s (silent, not steps); the resend timer goes
/// on every 30 s as before, and nothing is sent to no leader.
#[test]
fn the_looks_for_a_leader_stop_and_cost_no_steps() {
    let mut sim = offline_partition(None).simulation(None);
    sim.run(RunLimit::Until(ms(70_000)));
    let steps_after_decision: Vec<u64> = sim
        .trace()
        .iter()
        .filter(|r| r.time > ms(10_100))
        .map(|r| r.time)
        .collect();
    // The resends at 40 s and at 70 s, each a step of its own; nothing in between.
    assert!(steps_after_decision.len() == 2, "{steps_after_decision:?}");
}

/// With one replica the marker's answer goes out with the write: nothing waits.
#[test]
fn a_single_replica_answers_the_marker_at_once() {
    let s = eos_core::builtin::get("seed-commit-abort").expect("built-in");
    let mut sim = s.simulation(None);
    sim.run(RunLimit::Completion);
    assert!(first(&sim, |n| matches!(n, Note::MarkerWritten { .. })).is_some());
    assert_eq!(
        first(&sim, |n| matches!(n, Note::MarkerWaitsForReplicas { .. })),
        None
    );
}

#[test]
fn the_failover_completes_only_after_every_marker_is_replicated() {
    let s = eos_core::builtin::get("txn-coordinator-failover").expect("built-in");
    let mut sim = s.simulation(None);
    sim.run(RunLimit::Completion);
    let waits = notes(&sim)
        .iter()
        .filter(|(_, n)| matches!(n, Note::MarkerWaitsForReplicas { .. }))
        .count();
    assert_eq!(waits, 3, "one per partition, each with two followers");
    waits_end_before_completion(&sim).expect("replicated first");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Whenever the follower dies and comes back, and whenever the EndTxn arrives: the
    /// commit is never lost, the reader gets the record once, the invariants hold, no marker
    /// is written while the ISR is below min.insync.replicas, and the transaction completes
    /// only after its marker is replicated.
    #[test]
    fn the_commit_survives_any_timing(
        crash in 20u64..12_000,
        back_after in 1_000u64..70_000,
        delay in 0u64..20_000,
    ) {
        let t = text()
            .replace("extra_ms = 10000", &format!("extra_ms = {delay}"))
            .replace("at_ms = 100\naction = \"crash\"", &format!("at_ms = {crash}\naction = \"crash\""))
            .replace("restart_after_ms = 15000", &format!("restart_after_ms = {back_after}"))
            .replace("max_empty_polls = 8", "max_empty_polls = 200");
        let s = Scenario::parse(&t).expect("parses");
        let (sim, report) = run(&s);
        prop_assert!(report.invariants.iter().all(|i| i.holds), "{:?}", report.invariants);
        prop_assert_eq!(report.outcome.lost, 0);
        prop_assert_eq!(report.outcome.duplicates, 0);
        prop_assert_eq!(report.reads["committed-reader"].records, 1);
        prop_assert!(first(&sim, completed).is_some());
        prop_assert!(waits_end_before_completion(&sim).is_ok(), "{:?}", waits_end_before_completion(&sim));
        // Each refusal names an ISR smaller than min.insync.replicas.
        for (_, n) in notes(&sim) {
            if let Note::MarkerRefused { isr, min_insync, .. } = n {
                prop_assert!(isr.len() < usize::from(min_insync));
            }
        }
        prop_assert!(one_chain_at_a_time(&sim).is_ok(), "{:?}", one_chain_at_a_time(&sim));
    }
}
