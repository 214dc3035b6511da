//! `unclean.leader.election.enable`: with no in-sync replica up, the controller may elect one
//! out of sync. The partition is back, and what the old leader had beyond it is lost, even
//! acknowledged with acks=all; the old leader truncates it when it returns. Off (Kafka's
//! default), the partition waits offline for an in-sync replica.

use eos_core::ids::{NodeId, RecordId};
use eos_core::report::Report;
use eos_core::sim::Note;
use eos_core::{builtin, RunLimit, Scenario};

mod support;
use support::{run, step_notes as notes};

/// (step, elected broker, lost records) of each unclean election.
fn unclean(sim: &eos_core::Simulation) -> Vec<(u64, NodeId, Vec<RecordId>)> {
    notes(sim)
        .into_iter()
        .filter_map(|(step, n)| match n {
            Note::UncleanLeaderElected {
                broker,
                lost_records,
                ..
            } => Some((step, broker, lost_records)),
            _ => None,
        })
        .collect()
}

#[test]
fn an_unclean_election_loses_the_acknowledged_record_for_good() {
    let s = builtin::get("unclean-election-loss").expect("built-in");
    let (sim, report) = run(&s);
    let elections = unclean(&sim);
    assert_eq!(elections.len(), 1, "{elections:?}");
    let (step, broker, lost) = &elections[0];
    assert_eq!(*broker, NodeId::Broker(1));
    assert_eq!(lost, &vec![RecordId(0)]);
    // v0 was acknowledged, and is lost; the anomaly names the election among its causes.
    let v0 = &report.deliveries[0];
    assert_eq!(
        (v0.record.as_str(), v0.status.as_str()),
        ("v0", "delivered")
    );
    assert_eq!(report.outcome.lost, 1);
    let anomaly = report
        .anomalies
        .iter()
        .find(|a| a.kind == "lost-write")
        .expect("a lost write");
    assert!(anomaly.events.contains(step), "{anomaly:?}");
    // The old leader, back, follows the new one and drops v0 from its own log.
    assert!(
        notes(&sim).iter().any(|(_, n)| matches!(n,
            Note::LogTruncated { broker: NodeId::Broker(0), dropped, .. } if dropped == &vec![RecordId(0)])),
        "broker 0 truncates v0"
    );
    // Writes go on on the new leader: the reader reads v1 alone.
    assert_eq!(report.reads["reader"].records, 1);
    // acks=all's promise is void after an unclean election: no invariant claims it.
    assert!(
        report.invariants.iter().all(|i| i.holds),
        "{:?}",
        report.invariants
    );
}

#[test]
fn with_unclean_election_off_the_partition_waits_for_the_old_leader_and_keeps_the_record() {
    let text = eos_core::scenario::builtin::text("unclean-election-loss").expect("built-in");
    let off = text.replace(
        "unclean_leader_election = true",
        "unclean_leader_election = false",
    );
    assert_ne!(off, text);
    let (sim, report) = run(&Scenario::parse(&off).expect("parses"));
    assert!(unclean(&sim).is_empty());
    assert!(notes(&sim)
        .iter()
        .any(|(_, n)| matches!(n, Note::PartitionOffline { .. })));
    assert_eq!(report.outcome.lost, 0);
    assert_eq!(report.reads["reader"].records, 2);
    // The wait is the price: v1 is delivered only once the old leader is back (40 s).
    let v1 = &report.deliveries[1];
    assert!(v1.delivered_at_ms.is_some_and(|t| t >= 40_000), "{v1:?}");
    // Meanwhile the producer, told the partition has no leader, sends it nothing and asks
    // for metadata again every second: one lost attempt (before it knew), then the one that
    // lands.
    let waits = notes(&sim)
        .iter()
        .filter(|(_, n)| matches!(n, Note::LeaderAwaited { .. }))
        .count();
    assert!(waits >= 10, "{waits} metadata rounds while offline");
    assert_eq!(v1.attempts, 2, "{v1:?}");
}

/// The follower is still down when the leader is fenced: the partition goes offline, and
/// the controller elects the follower, out of sync, when it registers again.
#[test]
fn a_replica_out_of_sync_that_registers_again_is_elected_then() {
    let text = eos_core::scenario::builtin::text("unclean-election-loss").expect("built-in");
    let crashed = text.replace(
        "action = \"freeze\"\ntarget = \"broker-1\"\nduration_ms = 12000",
        "action = \"crash\"\ntarget = \"broker-1\"\nrestart_after_ms = 30000",
    );
    assert_ne!(crashed, text);
    let (sim, report) = run(&Scenario::parse(&crashed).expect("parses"));
    let all = notes(&sim);
    let offline = all
        .iter()
        .find(|(_, n)| matches!(n, Note::PartitionOffline { unclean: true, .. }))
        .map(|(step, _)| *step)
        .expect("offline first");
    let elections = unclean(&sim);
    assert_eq!(elections.len(), 1, "{elections:?}");
    let (step, broker, lost) = &elections[0];
    assert!(*step > offline);
    assert_eq!(*broker, NodeId::Broker(1));
    assert_eq!(lost, &vec![RecordId(0)]);
    assert!(sim.trace().iter().any(|r| r.step == *step
        && r.notes.iter().any(|n| matches!(
            n,
            Note::Restarted {
                node: NodeId::Broker(1)
            } | Note::BrokerRegistration { .. }
        ))));
    assert_eq!(report.outcome.lost, 1);
}

/// The fork offers the flip where a topic has two replicas or more.
#[test]
fn the_fork_flips_unclean_leader_election() {
    use eos_core::lesson::try_it::{Flip, TryAction};
    let s = builtin::get("unclean-election-loss").expect("built-in");
    let change = TryAction::Flip(Flip::UncleanElection);
    assert!(eos_core::fork::changes(&s).contains(&change));
    assert_eq!(
        eos_core::fork::change_label(&s, &change),
        "unclean.leader.election.enable (orders): true → false"
    );
    let f = eos_core::fork::fork(&s, None, &change, 0).expect("applies");
    assert_eq!(f.as_is.report.outcome.lost, 1);
    assert_eq!(f.changed.report.outcome.lost, 0);
    let single = builtin::get("lost-ack-idempotence-off").expect("built-in");
    assert!(!eos_core::fork::changes(&single).contains(&change));
}

/// A reader that read the acknowledged record before the unclean election read what Kafka
/// then lost: no invariant calls that a simulator bug (it voids acks=all's promises).
#[test]
fn a_read_before_an_unclean_election_breaks_no_invariant() {
    let text = eos_core::scenario::builtin::text("unclean-election-loss").expect("built-in");
    let early = text.replace("start_ms = 45000", "start_ms = 10100");
    assert_ne!(early, text);
    let (sim, report) = run(&Scenario::parse(&early).expect("parses"));
    assert!(!unclean(&sim).is_empty());
    assert!(
        notes(&sim).iter().any(|(_, n)| matches!(n,
            Note::Read { records, .. } if records.iter().any(|(_, id)| *id == RecordId(0)))),
        "the reader read v0 before the election"
    );
    assert!(
        report.invariants.iter().all(|i| i.holds),
        "{:?}",
        report.invariants
    );
}

/// The unclean-election scenario with its reader polling from before the election to 70 s
/// (`extra`: more consumer settings).
fn reader_through_the_election(extra: &str) -> Scenario {
    let text = eos_core::scenario::builtin::text("unclean-election-loss").expect("built-in");
    let changed = text.replace(
        "start_ms = 45000",
        &format!("start_ms = 10100\nstop_ms = 70000\n{extra}"),
    );
    assert_ne!(changed, text);
    Scenario::parse(&changed).expect("parses")
}

/// KIP-320: the new leader ends leader epoch 0 at offset 0, below the reader's position 1
/// (its log lacks v0): the reader goes back to 0 and reads what the new leader writes there,
/// instead of waiting past the log end for good.
#[test]
fn a_reader_whose_log_parted_goes_back_to_where_its_epoch_ends() {
    let (sim, report) = run(&reader_through_the_election(""));
    let all = notes(&sim);
    let reset = all
        .iter()
        .position(|(_, n)| {
            matches!(
                n,
                Note::PositionReset {
                    from: 1,
                    to: 0,
                    diverged: Some(0),
                    ..
                }
            )
        })
        .expect("the reader's position is reset to where epoch 0 ends");
    let elected = unclean(&sim)
        .first()
        .map(|u| u.0)
        .expect("an unclean election");
    assert!(all[reset].0 > elected, "the reset follows the election");
    assert!(
        all[reset..].iter().any(|(_, n)| matches!(n,
            Note::Read { records, .. } if records.contains(&(0, RecordId(1))))),
        "after the reset the reader reads v1 at offset 0"
    );
    assert!(
        report.anomalies.iter().all(|a| a.kind != "unseen"),
        "no record is left unread behind the old position: {:?}",
        report.anomalies
    );
    assert!(report.invariants.iter().all(|i| i.holds));
}

/// A restarted reader resumes from its committed offset, and the leader epoch committed with
/// it (KIP-320): the new leader ends that epoch below the offset, so it goes back there too,
/// where v1 comes (sent late, at 55 s, for that).
#[test]
fn a_committed_position_is_checked_by_its_committed_epoch() {
    let text = eos_core::scenario::builtin::text("unclean-election-loss").expect("built-in");
    let late = text.replace("at_ms = 25000", "at_ms = 55000");
    assert_ne!(late, text);
    let late = late.replace(
        "start_ms = 45000",
        "start_ms = 10100\nstop_ms = 70000\ngroup = \"audit\"\nauto_commit_interval_ms = 100\n\n[[faults]]\nat_ms = 15000\naction = \"crash\"\ntarget = \"reader\"\nrestart_after_ms = 6000\n",
    );
    let (sim, report) = run(&Scenario::parse(&late).expect("parses"));
    let all = notes(&sim);
    let resumed = all
        .iter()
        .position(|(_, n)| matches!(n, Note::ResumedFromCommitted { .. }))
        .expect("the restarted reader resumes from the group");
    assert!(
        all[resumed..].iter().any(|(_, n)| matches!(
            n,
            Note::PositionReset {
                from: 1,
                to: 0,
                diverged: Some(0),
                ..
            }
        )),
        "its committed offset 1 of epoch 0 is checked: {:?}",
        all.iter()
            .filter(|(_, n)| n.kind_name() == "position_reset")
            .collect::<Vec<_>>()
    );
    assert!(report.anomalies.iter().all(|a| a.kind != "unseen"));
}

/// A Flink Kafka source goes back too; and a checkpoint keeps only its positions (a
/// `KafkaPartitionSplit` holds no leader epoch), so a restore to one past the new leader's
/// log end is OFFSET_OUT_OF_RANGE, and the source starts again from the log's start.
#[test]
fn a_flink_source_goes_back_and_a_restore_past_the_log_end_starts_over() {
    let text = r#"
version = 1
name = "flink-unclean"

[cluster]
brokers = 2

[[topics]]
name = "orders"
partitions = 1
replication_factor = 2
unclean_leader_election = true

[[producers]]
name = "shop"
acks = "all"
request_timeout_ms = 2000
linger_ms = 0

[[producers.sends]]
at_ms = 10000
topic = "orders"
key = "alice"
count = 3
interval_us = 20000

[[producers.sends]]
at_ms = 30000
topic = "orders"
key = "bob"
count = 2
interval_us = 20000

[flink]
checkpointing = "exactly-once"
checkpoint_interval_ms = 1000
restart_delay_ms = 500
stop_ms = 50000

[[flink.operators]]
name = "source"
kind = "source"
topic = "orders"
parallelism = 1

[[flink.operators]]
name = "sink"
kind = "append"
inputs = ["source"]

[[faults]]
at_ms = 0
action = "freeze"
target = "broker-1"
duration_ms = 12000

[[faults]]
at_ms = 10500
action = "crash"
target = "broker-0"
restart_after_ms = 29500

[[faults]]
at_ms = 33000
action = "crash"
target = "sink-0"
"#;
    let (sim, _) = run(&Scenario::parse(text).expect("parses"));
    let resets: Vec<(u64, u64, Option<u32>)> = notes(&sim)
        .into_iter()
        .filter_map(|(_, n)| match n {
            Note::PositionReset {
                from, to, diverged, ..
            } => Some((from, to, diverged)),
            _ => None,
        })
        .collect();
    assert_eq!(
        resets,
        vec![(3, 0, Some(0)), (3, 0, None)],
        "back to where epoch 0 ends, then out of range after the restore"
    );
}

mod random_timings {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};

    fn config() -> Config {
        Config {
            cases: 32,
            failure_persistence: None,
            rng_seed: RngSeed::Fixed(0x0c1e_a4e1),
            ..Config::default()
        }
    }

    proptest! {
        #![proptest_config(config())]

        /// Whenever the reader polls and the crash comes, through the unclean election: every
        /// invariant holds, the reader ends up reading every record the logs keep (never left
        /// waiting past the new leader's log end), and a reader that read a record the
        /// election lost has its position reset.
        #[test]
        fn a_reader_through_an_unclean_election_reads_what_the_logs_keep(
            seed in 0u64..1_000_000,
            reader_start in 9_000u64..=12_000,
            crash_at in 10_050u64..=11_000,
            second_send in 20_000u64..=60_000,
            read_committed in any::<bool>(),
        ) {
            let text = eos_core::scenario::builtin::text("unclean-election-loss").expect("built-in");
            let isolation = if read_committed { "read_committed" } else { "read_uncommitted" };
            let changed = text
                .replace("at_ms = 10500", &format!("at_ms = {crash_at}"))
                .replace("at_ms = 25000", &format!("at_ms = {second_send}"))
                .replace(
                    "start_ms = 45000",
                    &format!("start_ms = {reader_start}\nstop_ms = 80000\nisolation = \"{isolation}\""),
                )
                .replace("[expect]", "[_unused]");
            let changed = changed.split("[_unused]").next().unwrap_or_default().to_string();
            let s = Scenario::parse(&changed).map_err(|e| TestCaseError::fail(format!("{e}\n{changed}")))?;
            let mut sim = s.simulation(Some(seed));
            sim.run(RunLimit::Completion);
            let report = Report::of(s.name(), &sim);
            prop_assert!(report.invariants.iter().all(|i| i.holds), "{:?}", report.invariants);
            prop_assert!(
                report.anomalies.iter().all(|a| a.kind != "unseen"),
                "a record left unread: {:?}\n{changed}", report.anomalies
            );
            let all = notes(&sim);
            let lost: Vec<RecordId> = unclean(&sim).into_iter().flat_map(|u| u.2).collect();
            let read_lost = all.iter().any(|(_, n)| matches!(n,
                Note::Read { records, .. } if records.iter().any(|(_, id)| lost.contains(id))));
            let reset = all.iter().any(|(_, n)| matches!(n, Note::PositionReset { diverged: Some(_), .. }));
            prop_assert_eq!(read_lost, reset, "a reset exactly when the reader read what the election lost\n{}", changed);
        }
    }
}

/// A processor reads through the same helper: it goes back too, and v1 gets its output.
#[test]
fn a_processor_whose_log_parted_goes_back_too() {
    let text = eos_core::scenario::builtin::text("unclean-election-loss").expect("built-in");
    let with_processor = text.replacen(
        "[[consumers]]",
        "[[topics]]\nname = \"invoices\"\npartitions = 1\nreplication_factor = 2\n\n[[processors]]\nname = \"billing\"\nguarantee = \"at-least-once\"\ninput = \"orders\"\noutput = \"invoices\"\ngroup = \"a\"\nstart_ms = 10050\nmax_empty_polls = 400\n\n[[consumers]]",
        1,
    );
    assert_ne!(with_processor, text);
    let (sim, _) = run(&Scenario::parse(&with_processor).expect("parses"));
    let all = notes(&sim);
    let billing = NodeId::Processor(0);
    let reset = all
        .iter()
        .position(|(_, n)| {
            matches!(n, Note::PositionReset { reader, from: 1, to: 0, diverged: Some(0), .. }
                if *reader == billing)
        })
        .expect("the processor's position is reset");
    assert!(
        all[reset..].iter().any(|(_, n)| matches!(n,
            Note::Read { consumer, records, .. }
                if *consumer == billing && records.contains(&(0, RecordId(1))))),
        "then it reads v1 at offset 0"
    );
}
