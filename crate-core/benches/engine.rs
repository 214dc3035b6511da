//! Simulated events per second: one idempotent Java producer sending N keyed records across
//! 3 partitions with 1% of append acknowledgements lost, and how the time grows with N. And
//! the copy of a finished 12,000-record run that the playground keeps to step back
//! (`Simulation::clone_without_trace`, every 64 to 512 steps while it plays).
//! Run: `cargo bench -p eos-core --bench engine` (results and profile in BENCHMARKS.md).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use eos_core::{RunLimit, Scenario};
use std::time::Duration;

fn scenario(records: u32) -> Scenario {
    let text = format!(
        r#"
version = 1
name = "bench-{records}"
[network]
latency_us = 500
ack_loss_per_million = 10000
[[topics]]
name = "events"
partitions = 3
[[producers]]
name = "app"
client = "java"
request_timeout_ms = 2000
[[producers.sends]]
topic = "events"
key_prefix = "k"
count = {records}
interval_us = 10
[limits]
max_steps = 100000000
"#
    );
    Scenario::parse(&text).expect("the benchmark scenario is valid")
}

fn steps_of(s: &Scenario) -> u64 {
    let mut sim = s.simulation_without_trace(None);
    sim.run(RunLimit::Completion);
    assert!(sim.is_finished(), "the run completes");
    sim.steps()
}

fn engine(c: &mut Criterion) {
    let mut group = c.benchmark_group("events_per_second");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .warm_up_time(Duration::from_secs(2));
    for records in [100_000u32, 300_000, 1_000_000] {
        let s = scenario(records);
        let steps = steps_of(&s);
        group.throughput(Throughput::Elements(steps));
        group.bench_with_input(BenchmarkId::from_parameter(records), &s, |b, s| {
            b.iter(|| {
                let mut sim = s.simulation_without_trace(None);
                sim.run(RunLimit::Completion);
                sim.steps()
            })
        });
    }
    group.finish();
}

fn snapshot(c: &mut Criterion) {
    let mut sim = scenario(12_000).simulation_without_trace(None);
    sim.run(RunLimit::Completion);
    assert!(sim.is_finished(), "the run completes");
    let mut group = c.benchmark_group("snapshot");
    group.sample_size(30);
    group.bench_function("copy of a finished 12,000-record run", |b| {
        b.iter(|| sim.clone_without_trace())
    });
    group.finish();
}

criterion_group!(benches, engine, snapshot);
criterion_main!(benches);
