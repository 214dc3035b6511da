//! Faults on messages already on the wire (`drop_on_wire`, `delay_on_wire`): what a click on
//! a message in flight injects. They name a link, a kind and a count, not a message id, so
//! that the recomputed run hits the same message and stays reproducible.

use eos_core::builtin;
use eos_core::scenario::schema::FaultSpec;
use eos_core::sim::fault::Fault;
use eos_core::sim::simulation::StepKind;
use eos_core::sim::Note;
use eos_core::time::{ms, to_ms};
use eos_core::{RunLimit, Scenario, Simulation};

/// The seed scenario after its first Produce leaves the producer (step 6, at 5 ms).
fn seed_with_produce_on_wire() -> (Scenario, Simulation) {
    let scenario = builtin::get("seed-frozen-broker").expect("built-in");
    let mut sim = scenario.simulation(None);
    sim.run(RunLimit::Steps(6));
    let flights = sim.in_flight();
    assert_eq!(flights.len(), 1, "{flights:?}");
    assert_eq!(flights[0].kind.name(), "produce");
    (scenario, sim)
}

fn on_wire(action: &str, now_ms: u64, extra_ms: Option<u64>) -> FaultSpec {
    FaultSpec {
        at_ms: now_ms + 1,
        action: action.into(),
        from: Some("app".into()),
        to: Some("broker-0".into()),
        message: Some("produce".into()),
        extra_ms,
        count: 1,
        ..Default::default()
    }
}

fn deliveries_of_produce(sim: &Simulation) -> usize {
    sim.trace()
        .iter()
        .filter(|r| matches!(&r.what, StepKind::Deliver { kind, .. } if kind.name() == "produce"))
        .count()
}

#[test]
fn dropping_the_produce_on_the_wire_keeps_the_past_and_loses_that_attempt() {
    let (scenario, sim) = seed_with_produce_on_wire();
    let past = sim.trace().to_vec();
    let changed = scenario
        .with_fault(on_wire("drop_on_wire", to_ms(sim.now()), None))
        .expect("a valid fault");
    let mut again = changed.simulation(None);
    again.run(RunLimit::Steps(6));
    assert_eq!(again.trace(), past.as_slice(), "the past is unchanged");
    assert_eq!(again.in_flight().len(), 1, "still on the wire at step 6");
    again.run(RunLimit::Completion);
    let dropped = again.trace().iter().any(|r| {
        matches!(
            &r.what,
            StepKind::Fault {
                fault: Fault::DropOnWire { .. }
            }
        ) && r
            .notes
            .iter()
            .any(|n| matches!(n, Note::MessageDropped { .. }))
    });
    assert!(dropped, "the fault step narrates the drop");
    let mut reference = scenario.simulation(None);
    reference.run(RunLimit::Completion);
    assert!(
        deliveries_of_produce(&again) < deliveries_of_produce(&reference),
        "one attempt never reaches the broker"
    );
    // Reproducible: the same schedule gives the same run.
    let mut twice = changed.simulation(None);
    twice.run(RunLimit::Completion);
    assert_eq!(twice.trace_hash(), again.trace_hash());
}

#[test]
fn delaying_the_produce_on_the_wire_moves_its_arrival() {
    let (scenario, sim) = seed_with_produce_on_wire();
    let arrive = sim.in_flight()[0].arrive_at;
    let changed = scenario
        .with_fault(on_wire("delay_on_wire", to_ms(sim.now()), Some(300)))
        .expect("a valid fault");
    let mut again = changed.simulation(None);
    again.run(RunLimit::Steps(7));
    let flights = again.in_flight();
    assert_eq!(flights.len(), 1);
    assert_eq!(flights[0].arrive_at, arrive + ms(300));
}

#[test]
fn a_fault_on_the_wire_with_nothing_to_hit_says_so() {
    let scenario = builtin::get("seed-frozen-broker").expect("built-in");
    let changed = scenario
        .with_fault(on_wire("drop_on_wire", 100, None))
        .expect("a valid fault");
    let mut sim = changed.simulation(None);
    sim.run(RunLimit::Completion);
    let said = sim.trace().iter().any(|r| {
        r.notes.iter().any(
            |n| matches!(n, Note::FaultArmed { description } if description.contains("nothing happens")),
        )
    });
    assert!(said);
}
