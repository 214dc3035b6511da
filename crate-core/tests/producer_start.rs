//! A producer the application starts later (`start_ms`): nothing happens for it before then,
//! a crash and restart before that moment does not start it early, and the first instance of
//! a transactional id gets epoch 0, as the coordinator's first InitProducerId gives it.

use eos_core::builtin;
use eos_core::ids::NodeId;
use eos_core::scenario::schema::FaultSpec;
use eos_core::sim::simulation::Simulation;
use eos_core::sim::Note;
use eos_core::time::{ms, SimTime};
use eos_core::{RunLimit, Scenario};

const NEW: NodeId = NodeId::Producer(1);

fn zombie() -> Scenario {
    builtin::get("zombie-fencing").expect("built-in")
}

/// When each producer-id request and assignment of `node` happened, with the epoch assigned.
fn asks_and_epochs(sim: &Simulation, node: NodeId) -> (Vec<SimTime>, Vec<i16>) {
    let (mut asks, mut epochs) = (Vec::new(), Vec::new());
    for rec in sim.trace() {
        for n in &rec.notes {
            match n {
                Note::ProducerIdRequested { producer, .. } if *producer == node => {
                    asks.push(rec.time)
                }
                Note::ProducerIdAssigned {
                    producer, epoch, ..
                } if *producer == node => epochs.push(*epoch),
                _ => {}
            }
        }
    }
    (asks, epochs)
}

#[test]
fn a_later_instance_starts_at_its_time_and_the_first_gets_epoch_0() {
    let mut sim = zombie().simulation(None);
    sim.run(RunLimit::Completion);
    let (old_asks, old_epochs) = asks_and_epochs(&sim, NodeId::Producer(0));
    assert_eq!(
        (old_asks.first(), old_epochs.as_slice()),
        (Some(&0), &[0][..])
    );
    let (new_asks, new_epochs) = asks_and_epochs(&sim, NEW);
    assert_eq!(new_asks.first(), Some(&ms(1_000)), "{new_asks:?}");
    assert!(new_epochs.iter().all(|e| *e > 0), "{new_epochs:?}");
    // Nothing happens at the new instance before its start.
    let first = sim
        .trace()
        .iter()
        .find(|r| r.node == Some(NEW))
        .expect("the new instance acts");
    assert_eq!(first.time, ms(1_000));
}

/// The new instance's first producer-id request when it crashes at `at_ms` and comes back
/// `restart_after_ms` later.
fn first_ask_with_crash(at_ms: u64, restart_after_ms: u64) -> Vec<SimTime> {
    let crashed = zombie()
        .with_fault(FaultSpec {
            at_ms,
            action: "crash".into(),
            target: Some("new-instance".into()),
            restart_after_ms: Some(restart_after_ms),
            count: 1,
            ..Default::default()
        })
        .expect("a valid fault");
    let mut sim = crashed.simulation(None);
    sim.run(RunLimit::Completion);
    asks_and_epochs(&sim, NEW).0
}

#[test]
fn a_restart_before_the_start_waits_for_it() {
    let asks = first_ask_with_crash(200, 300);
    assert_eq!(asks.first(), Some(&ms(1_000)), "{asks:?}");
    // Restarted after its start, it starts at once.
    let asks = first_ask_with_crash(1_050, 100);
    assert!(asks.contains(&ms(1_150)), "{asks:?}");
}

#[test]
fn a_start_past_the_limit_is_refused_by_name() {
    let text = builtin::text("zombie-fencing").expect("built-in");
    assert!(text.contains("start_ms = 1000\n"));
    let bad = text.replacen("start_ms = 1000\n", "start_ms = 90000000\n", 1);
    let err = Scenario::parse(&bad).expect_err("refused").to_string();
    assert!(err.contains("producers[1].start_ms"), "{err}");
}
