//! A task with several inputs takes whichever input has a record (Flink's
//! `StreamMultipleInputProcessor`): it never waits on an item an upstream is still
//! processing while another input has data.

use eos_core::ids::{NodeId, RecordId};
use eos_core::sim::{FlinkNote, Note};
use eos_core::{RunLimit, Scenario};

/// One record through a 300 ms map on one input; three records straight from a source on the
/// other, arriving while the map is busy.
const TWO_SPEEDS: &str = r#"
version = 1
name = "two-speeds"
[[topics]]
name = "fast"
[[topics]]
name = "slow"
[[producers]]
name = "web"
linger_ms = 0
[[producers.sends]]
at_ms = 0
topic = "slow"
key = "s"
[[producers.sends]]
at_ms = 150
topic = "fast"
key = "f"
count = 3
[flink]
checkpointing = "CHECKPOINTING"
checkpoint_interval_ms = 1000
stop_ms = 1500
[[flink.operators]]
name = "sf"
kind = "source"
topic = "fast"
[[flink.operators]]
name = "ss"
kind = "source"
topic = "slow"
[[flink.operators]]
name = "slowmap"
kind = "map"
inputs = ["ss"]
processing_us = 300000
[[flink.operators]]
name = "count"
kind = "count"
inputs = ["sf", "slowmap"]
[[flink.operators]]
name = "store"
kind = "upsert"
inputs = ["count"]
"#;

/// (time in µs, record) of each record the task named `count-0` counts, in order.
fn counted(checkpointing: &str) -> Vec<(u64, RecordId)> {
    let s = Scenario::parse(&TWO_SPEEDS.replace("CHECKPOINTING", checkpointing)).expect("parses");
    let count = s
        .simulation(None)
        .names
        .tasks
        .iter()
        .position(|t| t == "count-0")
        .expect("count-0");
    let mut sim = s.simulation(None);
    sim.run(RunLimit::Completion);
    sim.trace()
        .iter()
        .flat_map(|r| r.notes.iter().map(move |n| (r.time, n)))
        .filter_map(|(time, n)| match n {
            Note::Flink(FlinkNote::Processed { task, record, .. })
                if *task == NodeId::Task(count as u8) =>
            {
                Some((time, *record))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_two_input_task_takes_the_fast_input_while_the_slow_one_is_busy() {
    for mode in ["at-least-once", "exactly-once"] {
        let seen = counted(mode);
        let at = |id: u32| {
            seen.iter()
                .find(|(_, r)| *r == RecordId(id))
                .map(|(t, _)| *t)
                .unwrap_or_else(|| panic!("{mode}: v{id} counted: {seen:?}"))
        };
        // v0 leaves the map 300 ms after it entered; v1–v3 are counted as they arrive, long
        // before it.
        for fast in 1..=3 {
            assert!(
                at(fast) + 150_000 < at(0),
                "{mode}: v{fast} waited for v0: {seen:?}"
            );
        }
    }
}
