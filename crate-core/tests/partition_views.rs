//! The page draws the latest cells of each log: `partition_views_last` keeps at most `last`
//! of them, moves its first cell in strides, and still judges duplicates against the whole
//! log.

use eos_core::builtin;
use eos_core::sim::observe::{partition_views, partition_views_last};
use eos_core::sim::simulation::RunLimit;
use eos_core::Simulation;

fn finished(name: &str) -> Simulation {
    let mut sim = builtin::get(name).expect("a built-in").simulation(None);
    sim.run(RunLimit::Completion);
    sim
}

#[test]
fn the_window_keeps_the_latest_cells_and_moves_in_strides() {
    let sim = finished("flink-backpressure-unaligned");
    let whole = partition_views(&sim);
    let long = whole.iter().map(|p| p.cells.len()).max().unwrap_or(0);
    assert!(long > 100, "a long log to cut ({long} cells)");
    for (last, stride) in [(64, 16), (64, 1), (50, 7), (10_000, 16)] {
        let cut = partition_views_last(&sim, last, stride);
        assert_eq!(cut.len(), whole.len());
        for (c, w) in cut.iter().zip(&whole) {
            assert_eq!(
                c.earlier + c.cells.len(),
                w.cells.len(),
                "nothing lost or doubled"
            );
            assert_eq!(
                c.earlier % stride,
                0,
                "the first cell moves in strides of {stride}"
            );
            assert!(c.cells.len() <= last);
            if w.cells.len() >= last {
                assert!(
                    c.cells.len() + stride > last,
                    "at least last - stride + 1 shown"
                );
            }
            assert_eq!(
                c.cells[..],
                w.cells[c.earlier..],
                "the latest cells, as they are"
            );
        }
    }
}

#[test]
fn a_duplicate_is_judged_against_cells_cut_off_the_window() {
    let sim = finished("lost-ack-idempotence-off");
    let whole = partition_views(&sim);
    let dup_at = whole[0]
        .cells
        .iter()
        .position(|c| c.duplicate)
        .expect("a duplicate");
    // Only the duplicate and what follows it are shown: it is still marked.
    let last = whole[0].cells.len() - dup_at;
    let cut = partition_views_last(&sim, last, 1);
    assert!(cut[0].earlier > 0);
    assert!(cut[0].cells[0].duplicate);
}

/// The page draws each replica's log on its own (`partition_view_last`): one by one, in the
/// order `replicas` gives, they are the whole list, leaders first within a partition.
#[test]
fn one_replica_at_a_time_gives_the_same_views_in_the_same_order() {
    for name in [
        "flink-backpressure-unaligned",
        "acks-all-leader-crash-no-loss",
        "txn-producer-crash-restart",
    ] {
        let sim = finished(name);
        let all = partition_views_last(&sim, 64, 16);
        let replicas = eos_core::sim::observe::replicas(&sim);
        assert_eq!(replicas.len(), all.len(), "{name}: one entry per replica");
        assert!(!replicas.is_empty(), "{name}: has logs");
        for ((tp, broker), view) in replicas.iter().zip(&all) {
            assert_eq!((view.tp, view.broker), (*tp, *broker), "{name}: same order");
            let one = eos_core::sim::observe::partition_view_last(&sim, *tp, *broker, 64, 16);
            assert_eq!(one.as_ref(), Some(view), "{name}: same view");
        }
        let followers = all.iter().filter(|p| !p.is_leader).count();
        if name == "acks-all-leader-crash-no-loss" {
            assert!(followers > 0, "{name}: replicated, so followers too");
        }
        for pair in all.windows(2) {
            if pair[0].tp == pair[1].tp {
                assert!(
                    pair[0].is_leader >= pair[1].is_leader,
                    "{name}: leader first"
                );
            }
        }
        let missing = eos_core::sim::observe::partition_view_last(&sim, replicas[0].0, 200, 64, 16);
        assert_eq!(missing, None, "{name}: no such broker");
    }
}
