//! A process's live timers (`pending_timers_of`, what the producer cards draw as rings) are
//! the whole queue's live timers (`pending_timers`) for that process, at every step.

use eos_core::builtin;
use eos_core::ids::NodeId;
use eos_core::Simulation;

fn check_every_step(name: &str) -> usize {
    let mut sim: Simulation = builtin::get(name).expect("a built-in").simulation(None);
    let mut seen = 0;
    for _ in 0..5_000 {
        let nodes: Vec<NodeId> = (0..sim.producers.len())
            .map(|i| NodeId::Producer(i as u8))
            .collect();
        for node in nodes {
            let mut all: Vec<String> = sim
                .pending_timers()
                .filter(|(_, n, _)| *n == node)
                .map(|(t, _, timer)| format!("{t} {timer:?}"))
                .collect();
            let mut one: Vec<String> = sim
                .pending_timers_of(node)
                .map(|(t, timer)| format!("{t} {timer:?}"))
                .collect();
            all.sort();
            one.sort();
            assert_eq!(one, all, "{name}: {node:?} at step {}", sim.steps());
            seen += one.len();
        }
        if sim.step() != eos_core::sim::simulation::StepOutcome::Stepped {
            break;
        }
    }
    seen
}

#[test]
fn one_process_timers_are_the_queue_timers_of_that_process() {
    // Retries after a lost ack, and a producer that crashes and restarts (its old
    // incarnation's timers must not count).
    let seen = check_every_step("lost-ack-idempotence-on")
        + check_every_step("txn-producer-crash-restart");
    assert!(seen > 0, "timers were pending at some step");
}
