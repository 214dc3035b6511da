//! SEMANTICS §7 items 14 and 15 for the read-process-write processor, over random crash
//! schedules: exactly-once output equals the failure-free run's, at-least-once never loses,
//! at-most-once never duplicates; invariants hold after every step.

use eos_core::compare::with_guarantee;
use eos_core::ids::RecordId;
use eos_core::kafka::processor::{Guarantee, Phase};
use eos_core::oracle::invariants::{self, violations};
use eos_core::oracle::TxnOutcome;
use eos_core::report::Report;
use eos_core::{RunLimit, Scenario, Simulation, StepOutcome};
use proptest::prelude::*;

fn scenario(records: u32, interval_ms: u64, faults: &str, seed: u64) -> Scenario {
    scenario_committing(records, interval_ms, faults, seed, None)
}

/// The same, with the processor's `commit_interval_ms` set when `commit` is.
fn scenario_committing(
    records: u32,
    interval_ms: u64,
    faults: &str,
    seed: u64,
    commit: Option<u64>,
) -> Scenario {
    scenario_with(records, interval_ms, faults, seed, commit, ("java", 2))
}

/// The same, with the source producer imitating `client` (librdkafka's is not idempotent)
/// and the cluster on transaction protocol `protocol`.
fn scenario_with(
    records: u32,
    interval_ms: u64,
    faults: &str,
    seed: u64,
    commit: Option<u64>,
    (client, protocol): (&str, u8),
) -> Scenario {
    let commit = commit.map_or(String::new(), |c| format!("commit_interval_ms = {c}"));
    let text = format!(
        r#"
version = 1
name = "rpw-property"
seed = {seed}
[cluster]
transaction_protocol = {protocol}
[network]
jitter_us = 300
[[topics]]
name = "in"
partitions = 2
[[topics]]
name = "out"
partitions = 2
[[producers]]
name = "source"
client = "{client}"
linger_ms = 0
[[producers.sends]]
topic = "in"
key_prefix = "k"
count = {records}
interval_us = {interval}
[[processors]]
name = "proc"
guarantee = "exactly-once"
input = "in"
output = "out"
start_ms = 3
poll_interval_ms = 10
request_timeout_ms = 300
transaction_timeout_ms = 2000
{commit}
{faults}
[[consumers]]
name = "reader"
topic = "out"
isolation = "read_committed"
start_ms = 20000
[limits]
max_steps = 300000
"#,
        interval = interval_ms * 1000
    );
    Scenario::parse(&text).unwrap_or_else(|e| panic!("generated scenario is invalid: {e}\n{text}"))
}

/// Runs step by step, checking the invariants after every step.
fn run_checked(s: &Scenario, what: &str) -> Report {
    Report::of(s.name(), &simulate_checked(s, what))
}

/// The same, handing back the finished simulation.
fn simulate_checked(s: &Scenario, what: &str) -> Simulation {
    let mut sim = s.simulation(None);
    loop {
        match sim.step() {
            StepOutcome::Stepped => {}
            StepOutcome::Finished => break,
            StepOutcome::LimitReached => panic!("{what}: step limit reached"),
        }
        let broken = violations(&sim);
        assert!(
            broken.is_empty(),
            "{what}: invariant broken at step {}: {broken:?}",
            sim.steps()
        );
        // Kafka Streams initialises its transactional producer before it reads: an
        // exactly-once processor asks for no offsets and fetches nothing without its id.
        for p in &sim.processors {
            let reading = matches!(p.phase, Phase::Resuming { .. }) || !p.in_flight.is_empty();
            assert!(
                p.settings.guarantee != Guarantee::ExactlyOnce
                    || !reading
                    || p.producer.producer_id >= 0,
                "{what}: step {}: processor reads before initTransactions ({:?})",
                sim.steps(),
                p.phase
            );
        }
    }
    sim
}

fn crash_faults(crashes: &[(u64, u64)], lost_acks: u32) -> String {
    let mut out = String::new();
    for (at, after) in crashes {
        out.push_str(&format!(
            "[[faults]]\nat_ms = {at}\naction = \"crash\"\ntarget = \"proc\"\nrestart_after_ms = {after}\n"
        ));
    }
    if lost_acks > 0 {
        out.push_str(&format!(
            "[[faults]]\nat_ms = 0\naction = \"lose_ack\"\ntopic = \"out\"\npartition = 0\ncount = {lost_acks}\n"
        ));
    }
    out
}

#[test]
fn the_three_guarantees_differ_under_one_crash_as_semantics_says() {
    let s = eos_core::builtin::get("rpw-crash-exactly-once").expect("built-in");
    let lanes = eos_core::compare::compare(&s, None).expect("comparable");
    let by = |g: &str| lanes.iter().find(|l| l.guarantee == g).expect("lane");
    assert_eq!(
        (by("exactly-once").duplicates, by("exactly-once").lost),
        (0, 0)
    );
    assert_eq!(
        (by("at-least-once").duplicates, by("at-least-once").lost),
        (1, 0)
    );
    assert_eq!(
        (by("at-most-once").duplicates, by("at-most-once").lost),
        (0, 1)
    );
    for l in &lanes {
        assert!(
            l.report.invariants.iter().all(|i| i.holds),
            "{}: {:?}",
            l.guarantee,
            l.report.invariants
        );
    }
}

#[test]
fn a_scenario_without_a_processor_cannot_be_compared() {
    let s = eos_core::builtin::get("seed-frozen-broker").expect("built-in");
    let err = eos_core::compare::compare(&s, None).unwrap_err();
    assert!(err.contains("no read-process-write stage"), "{err}");
}

#[test]
fn exactly_once_output_equals_the_failure_free_run() {
    let calm = run_checked(&scenario(10, 15, "", 1), "failure-free");
    let crashed = run_checked(
        &scenario(10, 15, &crash_faults(&[(40, 50), (120, 200)], 1), 1),
        "two crashes",
    );
    let calm_p = calm.processing.expect("processing");
    let crashed_p = crashed.processing.expect("processing");
    assert_eq!(
        calm_p.ledger, crashed_p.ledger,
        "per-input visible outputs differ"
    );
    assert!(crashed_p.ledger.values().all(|n| *n == 1));
    assert_eq!(crashed_p.inputs, 10);
}

/// The same outputs written by several transactions with different outcomes must be judged
/// copy by copy: only the committed copies are visible, and `aborted-transactions-invisible`
/// must judge each copy by its own transaction. (It once fired between the COMMIT markers
/// and the EndTxn answer, when the outcome was kept per record and the last one heard was
/// the abort.) The run is checked after every step. The processor's first produce request
/// on out-0 is delayed past its request timeout; the later sequences land first (the broker
/// has no state for the new producer id), the retry of sequence 0 is OUT_OF_ORDER, the
/// transaction aborts and the processor hears so, and the next one writes the same outputs
/// again and commits: copies [aborted, committed].
#[test]
fn outputs_written_again_after_an_abort_are_judged_per_copy() {
    let faults = "[[faults]]\nat_ms = 0\naction = \"delay\"\nmessage = \"produce\"\ntopic = \"out\"\npartition = 0\ncount = 1\nextra_ms = 1000\n";
    let s = scenario(10, 1, faults, 0);
    let sim = simulate_checked(&s, "delayed first request");
    let report = Report::of(s.name(), &sim);
    // The processor's own transactional producer brings in the transaction invariants.
    for name in [
        invariants::COORDINATOR_TRANSITIONS_VALID,
        invariants::PREPARE_COMMIT_COMMITS,
        invariants::ABORTED_NEVER_VISIBLE,
        invariants::NO_COMMIT_AFTER_FENCE,
        invariants::EXPIRED_TRANSACTIONS_ABORTED,
        invariants::COMMITTED_ALL_VISIBLE,
    ] {
        let listed = report.invariants.iter().find(|i| i.name == name);
        assert!(
            listed.is_some_and(|i| i.holds),
            "{name}: {:?}",
            report.invariants
        );
    }
    // v0's output: the first copy's transaction did not commit, the second did; the
    // committed one alone is visible.
    let out = RecordId(sim.processors[0].settings.output_base);
    let e = sim.ledger.get(out).expect("in the ledger");
    let outcomes: Vec<Option<TxnOutcome>> = e.appends.iter().map(|a| a.txn_outcome).collect();
    assert_eq!(
        outcomes,
        [Some(TxnOutcome::Aborted), Some(TxnOutcome::Committed)],
        "{faults}: {:?}",
        e.appends
    );
    assert_eq!(e.txn_outcome, Some(TxnOutcome::Committed));
    let p = report.processing.expect("processing");
    assert_eq!((p.inputs, p.duplicates, p.lost), (10, 0, 0));
    assert!(p.ledger.values().all(|n| *n == 1), "{:?}", p.ledger);
}

/// 24 cases by default; `PROPTEST_CASES=300` runs more.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn guarantees_hold_under_random_crash_schedules(
        records in 3u32..14,
        interval_ms in 1u64..30,
        crashes in proptest::collection::vec((5u64..400, 1u64..400), 0..3),
        lost_acks in 0u32..3,
        seed in 0u64..1_000,
        commit in proptest::option::of(1u64..250),
    ) {
        let faults = crash_faults(&crashes, lost_acks);
        let base = scenario_committing(records, interval_ms, &faults, seed, commit);
        let calm = scenario_committing(records, interval_ms, "", seed, commit);
        let reference = run_checked(&calm, "failure-free").processing.expect("processing");
        for g in Guarantee::ALL {
            let s = with_guarantee(&base, g).expect("valid");
            let what = format!("{} seed {seed} commit {commit:?} faults:\n{faults}", g.name());
            let report = run_checked(&s, &what);
            let p = report.processing.expect("processing");
            prop_assert_eq!(p.inputs, u64::from(records), "{}", what);
            match g {
                Guarantee::ExactlyOnce => {
                    prop_assert_eq!(&p.ledger, &reference.ledger, "{}", what);
                }
                Guarantee::AtLeastOnce => prop_assert_eq!(p.lost, 0, "{}", what),
                Guarantee::AtMostOnce => prop_assert_eq!(p.duplicates, 0, "{}", what),
            }
            // Same seed twice, same run.
            let mut again = s.simulation(None);
            again.run(RunLimit::Completion);
            let mut first = s.simulation(None);
            first.run(RunLimit::Completion);
            prop_assert_eq!(again.trace_hash(), first.trace_hash());
        }
    }
}

/// The invariants a processor's own configuration brings in, whatever its source producer is.
fn expected_for(g: Guarantee) -> &'static [&'static str] {
    match g {
        // acks=1, no retries, no idempotence, read_uncommitted: nothing of its own.
        Guarantee::AtMostOnce => &[],
        // acks=all, retries without idempotence.
        Guarantee::AtLeastOnce => &[invariants::ACKED_OFFSET_IS_ORIGINAL],
        // Idempotent, transactional, acks=all, reading read_committed.
        Guarantee::ExactlyOnce => &[
            invariants::SEQUENCES_CONTIGUOUS,
            invariants::NO_DUPLICATE_PER_PRODUCER_ID,
            invariants::IDEMPOTENT_SEND_ORDER,
            invariants::NO_STALE_EPOCH_APPEND,
            invariants::ACKED_OFFSET_IS_ORIGINAL,
            invariants::READ_COMMITTED_ISOLATION,
        ],
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// A librdkafka source (not idempotent, acks=all) and a read_uncommitted reader: the
    /// idempotence and isolation invariants hold on the processor's own account, under both
    /// transaction protocols.
    #[test]
    fn processor_invariants_hold_with_a_non_idempotent_source(
        records in 3u32..14,
        interval_ms in 1u64..30,
        crashes in proptest::collection::vec((5u64..400, 1u64..400), 0..3),
        lost_acks in 0u32..3,
        seed in 0u64..1_000,
        commit in proptest::option::of(1u64..250),
        protocol in 1u8..=2,
    ) {
        let faults = crash_faults(&crashes, lost_acks);
        let base = scenario_with(records, interval_ms, &faults, seed, commit, ("librdkafka", protocol));
        let mut file = base.file.clone();
        for c in &mut file.consumers {
            c.isolation = Some("read_uncommitted".to_string());
        }
        let base = Scenario::from_file(file).expect("valid");
        for g in Guarantee::ALL {
            let s = with_guarantee(&base, g).expect("valid");
            let what = format!("{} protocol {protocol} seed {seed} commit {commit:?} faults:\n{faults}", g.name());
            let report = run_checked(&s, &what);
            let listed: Vec<&str> = report.invariants.iter().map(|i| i.name.as_str()).collect();
            for name in expected_for(g) {
                prop_assert!(listed.contains(name), "{}: {} not listed in {:?}", what, name, listed);
            }
            if g != Guarantee::ExactlyOnce {
                prop_assert!(!listed.contains(&invariants::SEQUENCES_CONTIGUOUS), "{}", what);
                prop_assert!(!listed.contains(&invariants::READ_COMMITTED_ISOLATION), "{}", what);
            }
        }
    }
}

/// The base scenario with a second exactly-once processor, `mailer`, reading `proc`'s output
/// (a chain), and crashes of its own. It waits 1.5 s without input before it stops, longer
/// than `proc` can be down.
fn chained(base: &Scenario, mailer_crashes: &[(u64, u64)]) -> Scenario {
    let mut file = base.file.clone();
    file.topics
        .push(toml::from_str("name = \"mails\"\npartitions = 2").expect("a topic"));
    file.processors.push(
        toml::from_str(
            "name = \"mailer\"\nguarantee = \"exactly-once\"\ninput = \"out\"\noutput = \"mails\"\n\
             start_ms = 5\npoll_interval_ms = 10\nmax_empty_polls = 150\nrequest_timeout_ms = 300\ntransaction_timeout_ms = 2000",
        )
        .expect("a processor"),
    );
    for (at, after) in mailer_crashes {
        file.faults.push(
            toml::from_str(&format!(
                "at_ms = {at}\naction = \"crash\"\ntarget = \"mailer\"\nrestart_after_ms = {after}"
            ))
            .expect("a fault"),
        );
    }
    Scenario::from_file(file).unwrap_or_else(|e| panic!("chained scenario: {e}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// Two exactly-once processors in a chain, each crashing at random: the invariants hold
    /// after every step, and every producer record has exactly one committed output of the
    /// second stage (its own number, through the first stage's).
    #[test]
    fn a_chain_of_exactly_once_processors_outputs_each_record_once(
        records in 2u32..10,
        interval_ms in 1u64..30,
        crashes in proptest::collection::vec((5u64..400, 1u64..400), 0..2),
        mailer_crashes in proptest::collection::vec((5u64..400, 1u64..400), 0..2),
        seed in 0u64..1_000,
    ) {
        let faults = crash_faults(&crashes, 0);
        let s = chained(&scenario(records, interval_ms, &faults, seed), &mailer_crashes);
        let what = format!("seed {seed} faults:\n{faults} mailer: {mailer_crashes:?}");
        let report = run_checked(&s, &what);
        let names = s.simulation(None).names;
        for k in 0..u64::from(records) {
            let id = eos_core::scenario::stages::output_of(&s.file, u64::from(records), 1, k)
                .expect("a second stage");
            let name = names.record(eos_core::ids::RecordId(id as u32));
            let d = report.deliveries.iter().find(|d| d.record == name);
            let copies = d.map_or(0, |d| d.copies.len());
            prop_assert_eq!(copies, 1, "{}: record v{} → {} has {} copies", what, k, name, copies);
        }
        // The report's end-to-end count agrees: each input once through both stages.
        let p = report.processing.as_ref().expect("processing");
        prop_assert_eq!(
            (p.inputs, p.visible_outputs, p.duplicates, p.lost),
            (u64::from(records), u64::from(records), 0, 0),
            "{}", what
        );
    }
}
