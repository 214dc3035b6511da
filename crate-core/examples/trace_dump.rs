//! Prints every step of a scenario with its node and kind (a debugging aid):
//! `cargo run -p eos-core --example trace_dump -- scenarios/x.toml [from] [to]`.

use eos_core::scenario::Scenario;
use eos_core::sim::narration::narrate;
use eos_core::sim::RunLimit;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: trace_dump FILE [from] [to]");
        return;
    };
    let from: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let to: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(u64::MAX);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            return;
        }
    };
    let scenario = match Scenario::parse(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            return;
        }
    };
    let mut sim = scenario.simulation(None);
    sim.run(RunLimit::Completion);
    for r in sim.trace() {
        if r.step < from || r.step > to {
            continue;
        }
        let node = r.node.map(|n| sim.names.node(n)).unwrap_or_default();
        println!("#{} {}us [{}] {:?}", r.step, r.time, node, r.what);
        for n in &r.notes {
            println!("      {}", narrate(&sim.names, n));
        }
    }
}
