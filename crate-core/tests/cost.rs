//! The cost sweep (`eos_core::cost`) and the commit interval it sweeps
//! (`commit_interval_ms`, Kafka Streams' `commit.interval.ms`).

use eos_core::builtin;
use eos_core::cost::{check_values, sweep_commit_interval, CostError, CostPoint, MAX_POINTS};
use eos_core::report::Report;
use eos_core::{RunLimit, Scenario};

fn lane<'a>(points: &'a [CostPoint], guarantee: &str) -> Vec<&'a CostPoint> {
    points.iter().filter(|p| p.guarantee == guarantee).collect()
}

#[test]
fn exactly_once_pays_in_latency_that_grows_with_the_commit_interval() {
    let scenario = builtin::get("rpw-cost").expect("built-in");
    let values = [10, 50, 200];
    let points = sweep_commit_interval(&scenario, &values, None).expect("sweeps");
    assert_eq!(points.len(), 3 * values.len());
    let eos = lane(&points, "exactly-once");
    let alo = lane(&points, "at-least-once");
    for (e, a) in eos.iter().zip(&alo) {
        assert_eq!(e.measured, 40, "every output read: {e:?}");
        assert_eq!(a.measured, 40, "every output read: {a:?}");
        assert!(
            e.mean_latency_us > a.mean_latency_us * 2,
            "exactly-once waits for the commit: {e:?} vs {a:?}"
        );
        assert!(e.p95_latency_us >= e.mean_latency_us);
        assert_eq!((e.duplicates, e.lost, a.duplicates, a.lost), (0, 0, 0, 0));
    }
    assert!(
        eos.windows(2)
            .all(|w| w[0].mean_latency_us < w[1].mean_latency_us),
        "longer transactions, later outputs: {eos:?}"
    );
    // Holding longer, a transaction carries more records: fewer messages per record.
    assert!(
        eos[0].messages_per_record_milli > eos[2].messages_per_record_milli,
        "{eos:?}"
    );
    // At the shortest interval exactly-once sends more than at-least-once.
    assert!(eos[0].messages_per_record_milli > alo[0].messages_per_record_milli);
}

#[test]
fn the_sweep_is_deterministic() {
    let scenario = builtin::get("rpw-cost").expect("built-in");
    let a = sweep_commit_interval(&scenario, &[20, 80], Some(3)).expect("sweeps");
    let b = sweep_commit_interval(&scenario, &[20, 80], Some(3)).expect("sweeps");
    assert_eq!(a, b);
}

#[test]
fn bad_sweeps_are_refused_with_a_reason() {
    let scenario = builtin::get("rpw-cost").expect("built-in");
    let too_many: Vec<u64> = (1..=MAX_POINTS as u64 + 1).collect();
    assert_eq!(
        check_values(&too_many),
        Err(CostError::TooManyPoints {
            count: MAX_POINTS + 1
        })
    );
    assert_eq!(check_values(&[]), Err(CostError::NoPoints));
    let e = sweep_commit_interval(&scenario, &[0], None).expect_err("0 ms");
    assert!(e.to_string().contains("out of range"), "{e}");
    let e = sweep_commit_interval(
        &builtin::get("seed-frozen-broker").expect("built-in"),
        &[10],
        None,
    )
    .expect_err("no processor");
    assert!(e.to_string().contains("no read-process-write stage"), "{e}");
}

fn with_commit_interval(name: &str, interval: Option<u64>) -> Report {
    let mut file = builtin::get(name).expect("built-in").file;
    for p in &mut file.processors {
        p.commit_interval_ms = interval;
    }
    let scenario = Scenario::from_file(file).expect("valid");
    let mut sim = scenario.simulation(None);
    sim.run(RunLimit::Completion);
    Report::of(name, &sim)
}

#[test]
fn at_least_once_committing_less_often_replays_more_after_a_crash() {
    let every_batch = with_commit_interval("rpw-crash-at-least-once", None);
    let every_200_ms = with_commit_interval("rpw-crash-at-least-once", Some(200));
    let (a, b) = (
        every_batch.processing.expect("a processor"),
        every_200_ms.processing.expect("a processor"),
    );
    assert_eq!((a.duplicates, a.lost), (1, 0));
    assert!(b.duplicates > a.duplicates, "{b:?}");
    assert_eq!(b.lost, 0, "at-least-once still loses nothing");
}

#[test]
fn exactly_once_holding_a_transaction_across_polls_survives_the_crash() {
    for interval in [None, Some(30), Some(200)] {
        let report = with_commit_interval("rpw-crash-exactly-once", interval);
        let p = report.processing.expect("a processor");
        assert_eq!(
            (p.duplicates, p.lost),
            (0, 0),
            "commit interval {interval:?}"
        );
        assert_eq!(p.visible_outputs, p.inputs, "commit interval {interval:?}");
        assert!(
            report.invariants.iter().all(|i| i.holds),
            "{:?}",
            report.invariants
        );
    }
}

#[test]
fn a_commit_interval_out_of_range_is_refused() {
    let mut file = builtin::get("rpw-cost").expect("built-in").file;
    file.processors[0].commit_interval_ms = Some(0);
    let e = Scenario::from_file(file).expect_err("0 ms");
    assert!(e.to_string().contains("commit_interval_ms"), "{e}");
}

#[test]
fn latency_runs_to_readable_not_to_whenever_a_reader_polls() {
    // Its reader starts at 3 s. Latency is measured to the moment an output is readable, so
    // it does not collapse to "the reader's start" for every guarantee.
    let scenario = builtin::get("rpw-crash-exactly-once").expect("built-in");
    let points = sweep_commit_interval(&scenario, &[10, 200], None).expect("sweeps");
    for p in &points {
        assert!(p.measured > 0, "{p:?}");
        assert!(
            p.mean_latency_us < 1_000_000,
            "not the reader's start: {p:?}"
        );
    }
    let eos = lane(&points, "exactly-once");
    let alo = lane(&points, "at-least-once");
    assert!(
        eos[1].mean_latency_us > alo[1].mean_latency_us,
        "a 200 ms transaction holds its outputs: {eos:?} vs {alo:?}"
    );
    assert!(eos[1].mean_latency_us > eos[0].mean_latency_us, "{eos:?}");
}
