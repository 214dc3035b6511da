//! A two-phase-commit sink gets each checkpoint's transactional producer in its task thread
//! (Flink's `getTransactionalProducer(checkpointId + 1)`: initTransactions): its snapshot,
//! its acknowledgement and its next record wait for the coordinator's answer.

use eos_core::ids::NodeId;
use eos_core::sim::{FlinkNote, Note};
use eos_core::{RunLimit, Scenario};

/// The sink's second transactional id is coordinated by broker 1, frozen from 190 to 590 ms:
/// its InitProducerId waits there.
const FROZEN_COORDINATOR: &str = r#"
version = 1
name = "frozen-coordinator"
[cluster]
brokers = 2
[[topics]]
name = "in"
[[topics]]
name = "out"
partitions = 2
[[producers]]
name = "web"
linger_ms = 0
[[producers.sends]]
topic = "in"
key_prefix = "r-"
count = 10
interval_us = 20000
[flink]
checkpoint_interval_ms = 200
stop_ms = 1500
[[flink.operators]]
name = "source"
kind = "source"
topic = "in"
[[flink.operators]]
name = "sink"
kind = "kafka-2pc"
topic = "out"
inputs = ["source"]
[[faults]]
at_ms = 190
action = "freeze"
target = "broker-1"
duration_ms = 400
[[consumers]]
name = "reader"
topic = "out"
isolation = "read_committed"
start_ms = 3000
"#;

#[test]
fn the_sink_acknowledges_and_writes_only_once_its_next_producer_is_ready() {
    let s = Scenario::parse(FROZEN_COORDINATOR).expect("parses");
    let sink = NodeId::Task(1);
    let mut sim = s.simulation(None);
    sim.run(RunLimit::Completion);
    let notes: Vec<(u64, &Note)> = sim
        .trace()
        .iter()
        .flat_map(|r| r.notes.iter().map(move |n| (r.time, n)))
        .collect();
    let thaw = notes
        .iter()
        .find(|(_, n)| matches!(n, Note::Thawed { .. }))
        .map(|(t, _)| *t)
        .expect("broker 1 thaws");
    let begun = notes
        .iter()
        .find(|(_, n)| matches!(n, Note::Flink(FlinkNote::SinkTxnBegun { transactional_id, .. }) if transactional_id == "flink-sink-0-2"))
        .map(|(t, _)| *t)
        .expect("the second transaction begins");
    assert!(begun < thaw);
    // Its acknowledgement of checkpoint 1 and its writes in the new transaction wait for the
    // coordinator, frozen meanwhile.
    let acked = notes
        .iter()
        .find(|(_, n)| matches!(n, Note::Flink(FlinkNote::CheckpointAcked { task, id: 1, .. }) if *task == sink))
        .map(|(t, _)| *t)
        .expect("the sink acknowledges checkpoint 1");
    assert!(
        acked > thaw,
        "acknowledged at {acked} µs, before the thaw at {thaw}"
    );
    let early_write = notes.iter().any(|(t, n)| {
        *t < thaw
            && matches!(n, Note::Flink(FlinkNote::SinkWrote { how, .. }) if how == "flink-sink-0-2")
    });
    assert!(
        !early_write,
        "a record written in flink-sink-0-2 before its producer was ready"
    );
    // Nothing is lost or doubled: the wait is only a delay.
    let report = eos_core::report::Report::of(s.name(), &sim);
    assert_eq!((report.outcome.lost, report.outcome.duplicates), (0, 0));
    assert_eq!(report.reads["reader"].records, 10);
}
