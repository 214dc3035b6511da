//! Helpers the scenario tests share (`mod support;` in each; a test file uses what it needs).
#![allow(dead_code)]

use eos_core::report::Report;
use eos_core::sim::Note;
use eos_core::{RunLimit, Scenario};

/// Runs `s` to its end: the simulation and its report.
pub fn run(s: &Scenario) -> (eos_core::Simulation, Report) {
    let mut sim = s.simulation(None);
    sim.run(RunLimit::Completion);
    let report = Report::of(s.name(), &sim);
    (sim, report)
}

/// (step, note) of every note in the trace.
pub fn step_notes(sim: &eos_core::Simulation) -> Vec<(u64, Note)> {
    sim.trace()
        .iter()
        .flat_map(|r| r.notes.iter().map(move |n| (r.step, n.clone())))
        .collect()
}
