//! A producer's connection is one TCP stream: what follows a lost message on it is stuck
//! until the client closes the connection after a request timeout (SEMANTICS §2; the Java
//! client and librdkafka both disconnect on a request timeout).

use eos_core::ids::{RecordId, Tp};
use eos_core::kafka::KafkaError;
use eos_core::sim::note::DropReason;
use eos_core::sim::observe::leader_replica;
use eos_core::sim::Note;
use eos_core::{Report, Scenario, Simulation, StepOutcome};

const P0: Tp = Tp {
    topic: 0,
    partition: 0,
};

fn run(text: &str) -> (Simulation, Report) {
    let scenario = Scenario::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = scenario.simulation(None);
    assert_eq!(
        sim.run(eos_core::RunLimit::Completion),
        StepOutcome::Finished
    );
    let report = Report::of("stall", &sim);
    (sim, report)
}

/// One idempotent Java producer (request timeout 1 s) sending to a one-partition topic,
/// with the given sends and faults, and a reader.
fn producer_scenario(sends: &str, faults: &str) -> String {
    format!(
        r#"
version = 1
name = "stall"
[[topics]]
name = "t"
partitions = 1
[[producers]]
name = "app"
client = "java"
enable_idempotence = true
request_timeout_ms = 1000
linger_ms = 0
[[producers.sends]]
topic = "t"
{sends}
{faults}
[[consumers]]
name = "reader"
topic = "t"
start_ms = 5000
"#
    )
}

/// Three sends 1 ms apart (at 10, 11 and 12 ms), with one fault armed at `at_ms`.
fn three_sends_fault_at(at_ms: u64, fault: &str) -> String {
    producer_scenario(
        "at_ms = 10\ncount = 3\ninterval_us = 1000",
        &format!("[[faults]]\nat_ms = {at_ms}\n{fault}"),
    )
}

fn three_sends(fault: &str) -> String {
    three_sends_fault_at(0, fault)
}

fn notes(sim: &Simulation) -> impl Iterator<Item = &Note> {
    sim.trace().iter().flat_map(|s| s.notes.iter())
}

fn log_values(sim: &Simulation) -> Vec<u32> {
    let (_, replica) = leader_replica(sim, P0).expect("a live leader");
    replica
        .log
        .records_below(u64::MAX)
        .map(|r| r.value.0)
        .collect()
}

#[test]
fn a_dropped_request_stalls_the_ones_behind_it_until_the_timeout_closes_the_connection() {
    let (sim, r) = run(&three_sends("action = \"drop\"\nmessage = \"produce\""));
    // v1 and v2 never reach the broker: they are stuck behind v0 on the same connection.
    let stuck = notes(&sim)
        .filter(|n| {
            matches!(
                n,
                Note::MessageDropped {
                    why: DropReason::StalledConnection,
                    ..
                }
            )
        })
        .count();
    assert_eq!(stuck, 2);
    // So the broker never sees a gap in the sequence, and never refuses anything.
    assert!(!notes(&sim).any(|n| matches!(
        n,
        Note::AppendRejected {
            error: KafkaError::OutOfOrderSequenceNumber,
            ..
        }
    )));
    // v0's timeout closes the connection; the other two fail with it and are retried.
    let closed: Vec<&Vec<RecordId>> = notes(&sim)
        .filter_map(|n| match n {
            Note::ConnectionClosed { records, .. } => Some(records),
            _ => None,
        })
        .collect();
    assert_eq!(closed, vec![&vec![RecordId(1), RecordId(2)]]);
    // They fail as timed out, like the request whose timeout closed the connection (the
    // Java Sender's REQUEST_TIMED_OUT, librdkafka's _TIMED_OUT).
    let timed_out: Vec<&Vec<RecordId>> = notes(&sim)
        .filter_map(|n| match n {
            Note::RetryScheduled {
                records,
                reason: KafkaError::RequestTimedOut,
                ..
            } => Some(records),
            _ => None,
        })
        .collect();
    assert_eq!(
        timed_out,
        vec![&vec![RecordId(0)], &vec![RecordId(1)], &vec![RecordId(2)]]
    );
    // On the new connection everything arrives, once and in send order.
    assert_eq!(log_values(&sim), vec![0, 1, 2]);
    assert_eq!(r.outcome.duplicates, 0);
    assert_eq!(r.outcome.lost, 0);
}

#[test]
fn acks_stuck_behind_a_lost_one_count_against_lose_ack() {
    // "Lose the next 3 acks": one lost, two stuck behind it. The retries' answers, on the new
    // connection, arrive.
    let (sim, r) = run(&three_sends(
        "action = \"lose_ack\"\ntopic = \"t\"\ncount = 3",
    ));
    let lost: Vec<bool> = notes(&sim)
        .filter_map(|n| match n {
            Note::AckLost { behind, .. } => Some(*behind),
            _ => None,
        })
        .collect();
    assert_eq!(lost, vec![false, true, true]);
    let timeouts = notes(&sim)
        .filter(|n| matches!(n, Note::RequestTimedOut { .. }))
        .count();
    assert_eq!(
        timeouts, 1,
        "one timeout, one reconnect, then every answer arrives"
    );
    assert!(r.deliveries.iter().all(|d| d.status == "delivered"));
    assert_eq!(log_values(&sim), vec![0, 1, 2]);
}

#[test]
fn a_corrupt_request_is_refused_without_stalling_the_connection() {
    // v1 (sent at 11 ms) arrives damaged: refused, retried; v2 behind it still arrives.
    let (sim, _) = run(&three_sends_fault_at(
        11,
        "action = \"corrupt\"\ntopic = \"t\"",
    ));
    assert!(notes(&sim).any(|n| matches!(
        n,
        Note::AppendRejected {
            error: KafkaError::CorruptMessage,
            ..
        }
    )));
    assert!(!notes(&sim).any(|n| matches!(
        n,
        Note::ConnectionClosed { .. } | Note::MessageDropped { .. } | Note::AckLost { .. }
    )));
    assert_eq!(log_values(&sim), vec![0, 1, 2]);
}

#[test]
fn a_crash_of_the_broker_ends_the_stall() {
    // v0's ack is lost at 10 ms; the broker crashes at 200 ms and is back at 300 ms; v1 goes
    // at 500 ms, before v0's request times out (1 s). The restarted broker's answer to v1
    // travels on a new connection: it is not stuck behind the old loss. (With a session
    // timeout of 0 the controller fences the crash at once, so the restart registers at
    // once; otherwise it would be refused until the old session expired.)
    let text = producer_scenario(
        "at_ms = 10\ncount = 2\ninterval_us = 490000",
        "[[faults]]\nat_ms = 0\naction = \"lose_ack\"\ntopic = \"t\"\n\
         [[faults]]\nat_ms = 200\naction = \"crash\"\ntarget = \"broker-0\"\nrestart_after_ms = 100\n\
         [cluster]\nbroker_session_timeout_ms = 0",
    );
    let (sim, r) = run(&text);
    assert!(
        !notes(&sim).any(|n| matches!(n, Note::AckLost { behind: true, .. })),
        "a restart opens new connections"
    );
    let v1_acked_before_the_timeout = r
        .deliveries
        .get(1)
        .and_then(|d| d.delivered_at_ms)
        .is_some_and(|at| at < 1000);
    assert!(v1_acked_before_the_timeout, "{:#?}", r.deliveries);
    assert!(r.deliveries.iter().all(|d| d.status == "delivered"));
}
