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

/// The inputs skipped at a moment are named with the outputs they will never have: at-most-
/// once commits past v7 before its crash, so v7′ never reaches the log. Their number is the
/// moment's "lost"; at-least-once skips none.
#[test]
fn the_skipped_inputs_are_named_with_their_missing_outputs() {
    use eos_core::outcomes::{outcome_now, skipped_now};
    let mut sim = builtin::get("rpw-crash-at-most-once")
        .expect("built-in")
        .simulation(None);
    let mut first_seen = None;
    while !sim.is_finished() {
        sim.step();
        let skipped = skipped_now(&sim);
        let now = outcome_now(&sim, false).expect("a processor");
        assert_eq!(skipped.len() as u64, now.lost, "step {}", sim.steps());
        if first_seen.is_none() && !skipped.is_empty() {
            first_seen = Some(sim.steps());
        }
    }
    let named: Vec<(String, String)> = skipped_now(&sim)
        .into_iter()
        .map(|(i, o)| (sim.names.record(i), sim.names.record(o)))
        .collect();
    assert_eq!(named, [("v7".to_string(), "v7′".to_string())]);
    assert!(first_seen.is_some());
    let mut alo = builtin::get("rpw-crash-at-least-once")
        .expect("built-in")
        .simulation(None);
    alo.run(eos_core::RunLimit::Completion);
    assert!(skipped_now(&alo).is_empty());
}

/// An input that arrives after the processor has stopped polling (here the producer's
/// dropped request is sent again only after its 30 s timeout) has no output, but no stage
/// moved past it: it is unread, not lost, under every guarantee; so exactly-once and
/// at-least-once show no loss. An input at-most-once committed past before processing is
/// still lost.
#[test]
fn an_input_read_by_no_one_is_unread_not_lost() {
    let base = builtin::get("rpw-crash-at-least-once").expect("built-in");
    let mut file = base.file.clone();
    file.faults.push(eos_core::scenario::schema::FaultSpec {
        at_ms: 41,
        action: "drop_on_wire".into(),
        from: Some("shop".into()),
        to: Some("broker-0".into()),
        message: Some("produce".into()),
        topic: Some("orders".into()),
        partition: Some(0),
        count: 1,
        ..Default::default()
    });
    let s = eos_core::Scenario::from_file(file).expect("valid");
    let lanes = compare(&s, None).expect("a processor");
    let late: Vec<String> = (2..12).map(|i| format!("v{i}")).collect();
    for lane in &lanes {
        assert_eq!(lane.lost, 0, "{}: {:?}", lane.guarantee, lane.ledger);
        assert_eq!(lane.unread, late, "{}", lane.guarantee);
        assert_eq!(lane.report.outcome.lost, 0, "{}", lane.guarantee);
        assert!(late.iter().all(|v| lane.ledger.get(v) == Some(&0)));
    }
    let amo = builtin::get("rpw-crash-at-most-once").expect("built-in");
    let lanes = compare(&amo, None).expect("a processor");
    assert!(
        lanes[0].lost >= 1,
        "at-most-once skips: {:?}",
        lanes[0].ledger
    );
    assert!(lanes[0].unread.is_empty(), "{:?}", lanes[0].unread);
}
