//! What the replicas of a partition hold across a leader's crash: a follower keeps every
//! record the new leader has (it truncates where the logs part, as Kafka's leader-epoch
//! truncation does, not to its high watermark), and a crashed leader changes nothing.

use eos_core::ids::NodeId;
use eos_core::scenario::schema::FaultSpec;
use eos_core::sim::Note;
use eos_core::{builtin, RunLimit, Scenario};

/// Three brokers, every partition on all three; one record each to three partitions, and
/// broker 0 (leader of events-0) crashes for good once they are replicated.
const THREE_REPLICAS: &str = r#"
version = 1
name = "three-replicas-leader-crash"
[cluster]
brokers = 3
[[topics]]
name = "events"
partitions = 3
replication_factor = 3
[[producers]]
name = "app"
[[producers.sends]]
topic = "events"
partition = 0
key = "a"
[[producers.sends]]
topic = "events"
partition = 1
key = "b"
[[producers.sends]]
topic = "events"
partition = 2
key = "c"
[[faults]]
at_ms = 100
action = "crash"
target = "broker-0"
[[consumers]]
name = "reader"
topic = "events"
start_ms = 20000
"#;

fn run(s: &Scenario) -> eos_core::Simulation {
    let mut sim = s.simulation(None);
    sim.run(RunLimit::Completion);
    sim
}

#[test]
fn a_follower_keeps_what_the_new_leader_has() {
    let sim = run(&Scenario::parse(THREE_REPLICAS).expect("valid"));
    let notes = || sim.trace().iter().flat_map(|r| r.notes.iter());
    assert!(
        notes().any(|n| matches!(n, Note::LeaderElected { .. })),
        "broker 0's partition gets a new leader"
    );
    let truncated: Vec<&Note> = notes()
        .filter(|n| matches!(n, Note::LogTruncated { .. }))
        .collect();
    assert!(truncated.is_empty(), "{truncated:?}");
    // Every record is read once, none lost.
    let report = eos_core::report::Report::counts("three-replicas-leader-crash", &sim);
    assert_eq!((report.outcome.lost, report.outcome.duplicates), (0, 0));
    assert_eq!(report.reads.get("reader").map(|r| r.records), Some(3));
}

#[test]
fn a_crashed_broker_changes_nothing_while_it_is_down() {
    // The follower dies first; the leader, holding an acks=all answer for it, dies next.
    // The controller then fences the follower out of the ISR: the dead leader's high
    // watermark must not move for it (nor anything else happen on it).
    let scenario = builtin::get("acks-all-leader-crash-no-loss")
        .expect("built-in")
        .with_fault(FaultSpec {
            at_ms: 1,
            action: "crash".into(),
            target: Some("broker-1".into()),
            count: 1,
            ..Default::default()
        })
        .expect("a valid fault");
    let sim = run(&scenario);
    let mut down: Vec<NodeId> = Vec::new();
    let mut fenced = false;
    for r in sim.trace() {
        for n in &r.notes {
            match n {
                Note::Crashed { node } => down.push(*node),
                Note::Restarted { node, .. } => down.retain(|d| d != node),
                Note::BrokerFenced { .. } => fenced = true,
                Note::HighWatermarkAdvanced { broker, .. } | Note::Replicated { broker, .. } => {
                    assert!(!down.contains(broker), "step {}: {n:?}", r.step)
                }
                _ => {}
            }
        }
    }
    assert!(
        fenced && down.len() == 2,
        "both brokers down and fenced: {down:?}"
    );
}

#[test]
fn a_follower_back_in_sync_is_in_the_controllers_isr_and_can_be_elected() {
    // Broker 0 (the old leader) restarts, catches up with broker 1 and rejoins the ISR;
    // then broker 1 dies. The controller knows broker 0 is in sync: it makes it leader
    // rather than leave the partition offline.
    let fault = |at_ms, action: &str, target: &str| FaultSpec {
        at_ms,
        action: action.into(),
        target: Some(target.into()),
        count: 1,
        ..Default::default()
    };
    let scenario = builtin::get("acks-all-leader-crash-no-loss")
        .expect("built-in")
        .with_fault(fault(9_552, "restart", "broker-0"))
        .and_then(|s| s.with_fault(fault(10_394, "crash", "broker-1")))
        .expect("valid faults");
    let sim = run(&scenario);
    let notes: Vec<&Note> = sim.trace().iter().flat_map(|r| r.notes.iter()).collect();
    let expanded = notes
        .iter()
        .position(|n| {
            matches!(
                n,
                Note::IsrExpanded {
                    follower: NodeId::Broker(0),
                    ..
                }
            )
        })
        .expect("broker 0 rejoins the ISR");
    assert!(!notes
        .iter()
        .any(|n| matches!(n, Note::PartitionOffline { .. })));
    assert!(notes[expanded..].iter().any(|n| matches!(
        n,
        Note::LeaderElected {
            broker: NodeId::Broker(0),
            ..
        }
    )));
}
