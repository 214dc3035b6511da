//! Outcomes over time under the three guarantees: the samples follow each run and end where
//! the comparison's report ends.

use eos_core::builtin;
use eos_core::compare::compare;
use eos_core::outcomes::{outcomes_over_time, MAX_SAMPLES};

#[test]
fn each_lane_is_sampled_in_time_order_and_ends_at_the_report() {
    for name in [
        "rpw-crash-at-most-once",
        "rpw-crash-at-least-once",
        "rpw-crash-exactly-once",
    ] {
        let s = builtin::get(name).expect("built-in");
        let lanes = outcomes_over_time(&s, None, 40).expect("a processor");
        let reports = compare(&s, None).expect("a processor");
        assert_eq!(lanes.len(), 3);
        for (lane, report) in lanes.iter().zip(&reports) {
            assert_eq!(lane.guarantee, report.guarantee);
            let p = &lane.points;
            assert!(
                p.len() >= 3 && p.len() <= 42,
                "{name} {}: {} points",
                lane.guarantee,
                p.len()
            );
            assert!(
                p.windows(2)
                    .all(|w| w[0].time <= w[1].time && w[0].step < w[1].step),
                "in order"
            );
            let last = p.last().expect("an end point");
            let visible = report.ledger.values().filter(|n| **n > 0).count() as u64;
            assert_eq!(last.visible, visible, "{name} {}", lane.guarantee);
            assert_eq!(
                last.duplicates, report.duplicates,
                "{name} {}",
                lane.guarantee
            );
            assert_eq!(last.lost, report.lost, "{name} {}", lane.guarantee);
        }
    }
}

#[test]
fn the_crash_shows_as_a_loss_at_most_once_as_duplicates_at_least_once_and_as_neither_exactly_once()
{
    let lanes = |name: &str| {
        outcomes_over_time(&builtin::get(name).expect("built-in"), None, 60).expect("lanes")
    };
    let amo = lanes("rpw-crash-at-most-once");
    let end = |l: &eos_core::outcomes::OutcomeLane| *l.points.last().expect("end");
    // Each built-in crashes the same processor the same way; read each under its own name.
    assert!(
        end(&amo[0]).lost > 0,
        "at-most-once loses: {:?}",
        end(&amo[0])
    );
    let alo = lanes("rpw-crash-at-least-once");
    assert!(
        end(&alo[1]).duplicates > 0,
        "at-least-once duplicates: {:?}",
        end(&alo[1])
    );
    let eos = lanes("rpw-crash-exactly-once");
    for p in &eos[2].points {
        assert_eq!(
            (p.duplicates, p.lost),
            (0, 0),
            "exactly-once at {} µs",
            p.time
        );
    }
    let visible: Vec<u64> = eos[2].points.iter().map(|p| p.visible).collect();
    assert!(
        visible.windows(2).all(|w| w[0] <= w[1]),
        "committed output only grows: {visible:?}"
    );
    assert!(visible[0] == 0 && *visible.last().unwrap_or(&0) > 0);
}

#[test]
fn sampling_is_bounded_and_a_scenario_without_a_processor_is_refused() {
    let s = builtin::get("rpw-crash-exactly-once").expect("built-in");
    let lanes = outcomes_over_time(&s, None, usize::MAX).expect("lanes");
    assert!(lanes.iter().all(|l| l.points.len() <= MAX_SAMPLES + 1));
    let plain = builtin::get(builtin::DEFAULT).expect("built-in");
    let err = outcomes_over_time(&plain, None, 10).expect_err("no processor");
    assert!(err.contains("no read-process-write stage"), "{err}");
}
