//! Records per second through a checkpointed Flink job: a Kafka source, a keyed count and a
//! two-phase-commit Kafka sink (3 operators), checkpoints every 100 ms simulated, N input
//! records. Run: `cargo bench -p eos-core --bench flink` (results in BENCHMARKS.md).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use eos_core::{RunLimit, Scenario};
use std::time::Duration;

fn scenario(records: u32) -> Scenario {
    // 10 µs between input records; the run stops once the input is drained.
    let stop_ms = u64::from(records) / 100 + 200;
    let text = format!(
        r#"
version = 1
name = "bench-flink-{records}"
[[topics]]
name = "in"
partitions = 2
[[topics]]
name = "out"
[[producers]]
name = "app"
client = "java"
linger_ms = 5
[[producers.sends]]
topic = "in"
key_prefix = "k"
count = {records}
interval_us = 10
[flink]
checkpoint_interval_ms = 100
stop_ms = {stop_ms}
channel_capacity = 64
[[flink.operators]]
name = "source"
kind = "source"
topic = "in"
parallelism = 2
processing_us = 1
[[flink.operators]]
name = "count"
kind = "count"
inputs = ["source"]
processing_us = 1
[[flink.operators]]
name = "sink"
kind = "kafka-2pc"
topic = "out"
inputs = ["count"]
processing_us = 1
[limits]
max_steps = 100000000
"#
    );
    Scenario::parse(&text).expect("the benchmark scenario is valid")
}

fn records_through(s: &Scenario) -> u64 {
    let mut sim = s.simulation_without_trace(None);
    sim.run(RunLimit::Completion);
    assert!(sim.is_finished(), "the run completes");
    let job = sim.flink.as_ref().expect("a job");
    assert!(job.coordinator.history.len() > 1, "checkpoints were taken");
    job.read.values().map(|n| u64::from(*n)).sum()
}

fn flink(c: &mut Criterion) {
    let mut group = c.benchmark_group("flink_records_per_second");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(15))
        .warm_up_time(Duration::from_secs(2));
    for records in [10_000u32, 50_000] {
        let s = scenario(records);
        let through = records_through(&s);
        assert_eq!(
            through,
            u64::from(records),
            "every record went through once"
        );
        group.throughput(Throughput::Elements(through));
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

criterion_group!(benches, flink);
criterion_main!(benches);
