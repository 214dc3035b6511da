//! `replica.lag.time.max.ms`: a leader takes a follower that has lacked its records for
//! longer than this out of the ISR, so `acks=all` stops waiting for it; a follower that
//! catches up comes back. And a retried batch the broker already holds is answered, under
//! `acks=all`, only once the in-sync replicas have it (Kafka's `DelayedProduce`).

use eos_core::ids::{NodeId, Tp};
use eos_core::sim::Note;
use eos_core::time::ms;
use eos_core::{builtin, Scenario};
use proptest::prelude::*;

mod support;
use support::run;

const NAME: &str = "network-partition-isr-shrink";

/// (step, time, note) of every note.
fn notes(sim: &eos_core::Simulation) -> Vec<(u64, u64, Note)> {
    sim.trace()
        .iter()
        .flat_map(|r| r.notes.iter().map(move |n| (r.step, r.time, n.clone())))
        .collect()
}

fn text() -> String {
    eos_core::scenario::builtin::text(NAME)
        .expect("built-in")
        .to_string()
}

fn with(text: &str, from: &str, to: &str) -> Scenario {
    let changed = text.replace(from, to);
    assert_ne!(changed, text, "{from:?} is in the scenario");
    Scenario::parse(&changed).expect("parses")
}

/// Each ISR shrink: (time, followers dropped, ISR after, behind since).
fn shrinks(sim: &eos_core::Simulation) -> Vec<(u64, Vec<u8>, Vec<u8>, u64)> {
    notes(sim)
        .into_iter()
        .filter_map(|(_, t, n)| match n {
            Note::IsrShrunk {
                followers,
                isr,
                behind_since,
                ..
            } => Some((t, followers, isr, behind_since)),
            _ => None,
        })
        .collect()
}

fn expansions(sim: &eos_core::Simulation) -> Vec<u64> {
    notes(sim)
        .into_iter()
        .filter(|(_, _, n)| matches!(n, Note::IsrExpanded { .. }))
        .map(|(_, t, _)| t)
        .collect()
}

#[test]
fn the_leader_stops_waiting_for_a_cut_off_follower_at_its_first_look_past_the_lag() {
    let s = builtin::get(NAME).expect("built-in");
    let (sim, report) = run(&s);
    // The follower's last fetch was at the cut (0.5 s); it lacks v0 from 1.001 s. With a 10 s
    // lag it is out of sync after 10.5 s, and the leader looks every 5 s since its start: at
    // 15 s.
    assert_eq!(shrinks(&sim), vec![(ms(15_000), vec![1], vec![0], ms(500))]);
    let v0 = &report.deliveries[0];
    assert_eq!(v0.status, "delivered");
    assert!(
        v0.delivered_at_ms
            .is_some_and(|t| (15_000..15_010).contains(&t)),
        "{v0:?}"
    );
    assert_eq!(v0.attempts, 1, "answered within request.timeout.ms");
    // The heal at 20 s: the follower catches up and is in sync again before v1 is written,
    // which then waits for both replicas.
    let back = expansions(&sim);
    assert_eq!(back.len(), 1, "{back:?}");
    assert!((ms(20_000)..ms(20_010)).contains(&back[0]), "{back:?}");
    assert_eq!(report.outcome.lost, 0);
    assert_eq!(report.reads["reader"].records, 2);
    let tp = Tp {
        topic: 0,
        partition: 0,
    };
    for b in &sim.brokers {
        let r = b.replicas.get(&tp).expect("a replica on each broker");
        assert_eq!(r.isr, vec![0, 1], "broker {}", b.id);
        assert_eq!(r.log.log_end_offset(), 2, "broker {}", b.id);
    }
    // Both the shrink and the return are notable for the step buttons.
    assert!(notes(&sim)
        .iter()
        .any(|(_, _, n)| matches!(n, Note::IsrShrunk { .. }) && n.notable().is_some()));
}

#[test]
fn a_heal_before_the_lag_runs_out_keeps_the_follower_in_sync() {
    let s = with(
        &text(),
        "at_ms = 20000\naction = \"heal\"",
        "at_ms = 8000\naction = \"heal\"",
    );
    let (sim, report) = run(&s);
    assert!(shrinks(&sim).is_empty(), "{:?}", shrinks(&sim));
    assert!(expansions(&sim).is_empty());
    // acks=all waited for the follower: v0 is answered right after the heal.
    let v0 = &report.deliveries[0];
    assert!(
        v0.delivered_at_ms
            .is_some_and(|t| (8_000..8_010).contains(&t)),
        "{v0:?}"
    );
    assert_eq!(report.outcome.lost, 0);
}

#[test]
fn with_min_insync_2_the_shrink_holds_the_high_watermark_until_the_follower_is_back() {
    // Kafka 3.7+ (KIP-966's strict min ISR): fewer in sync than min.insync.replicas, the
    // leader does not move its high watermark, so the write waiting at the shrink is neither
    // readable nor answered; the follower rejoins after the heal and it is acknowledged.
    let two = text().replace("min_insync_replicas = 1", "min_insync_replicas = 2");
    let (sim, report) = run(&Scenario::parse(&two).expect("parses"));
    assert_eq!(shrinks(&sim).len(), 1);
    let all = notes(&sim);
    let hw_moves: Vec<u64> = all
        .iter()
        .filter(|(_, _, n)| matches!(n, Note::HighWatermarkAdvanced { .. }))
        .map(|(_, t, _)| *t)
        .collect();
    assert!(
        hw_moves.first().is_some_and(|t| *t >= ms(20_000)),
        "{hw_moves:?}"
    );
    assert!(
        all.iter()
            .all(|(_, _, n)| !matches!(n, Note::TooFewInSync { .. })),
        "no write was refused"
    );
    let back = expansions(&sim);
    assert!(back.first().is_some_and(|t| *t < ms(20_010)), "{back:?}");
    let v0 = &report.deliveries[0];
    assert_eq!(v0.status, "delivered");
    assert!(
        v0.delivered_at_ms
            .is_some_and(|t| (20_000..20_010).contains(&t)),
        "{v0:?}"
    );
    assert_eq!(v0.attempts, 1);
    assert_eq!((report.outcome.lost, report.outcome.duplicates), (0, 0));
    assert_eq!(report.reads["reader"].records, 2);
    // A write while the ISR is too small is refused before the append.
    let s = with(&two, "at_ms = 25000\ntopic", "at_ms = 16000\ntopic");
    let (sim, report) = run(&s);
    assert!(notes(&sim).iter().any(|(_, t, n)| *t < ms(20_000)
        && matches!(
            n,
            Note::TooFewInSync {
                appended_at: None,
                ..
            }
        )));
    assert_eq!(report.deliveries[1].status, "delivered");
}

#[test]
fn a_follower_with_nothing_to_catch_up_stays_in_sync_however_long_it_is_cut_off() {
    // Kafka's `isCaughtUp`: a follower at the leader's log end is in sync, fetching or not.
    let t = text()
        .replace(
            "at_ms = 20000\naction = \"heal\"",
            "at_ms = 200000\naction = \"heal\"",
        )
        .replace("at_ms = 1000\ntopic", "at_ms = 100000\ntopic")
        .replace("at_ms = 25000\ntopic", "at_ms = 100001\ntopic")
        .replace("start_ms = 30000", "start_ms = 150000");
    let s = Scenario::parse(&t).expect("parses");
    let (sim, report) = run(&s);
    // Idle for 99.5 s while cut off: no shrink then. Its last fetch was at the cut, so once
    // it lacks the writes at 100 s it is out of sync at the next look, at 105 s.
    let got = shrinks(&sim);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, ms(105_000));
    assert_eq!(got[0].3, ms(500));
    assert_eq!(report.outcome.lost, 0);
}

#[test]
fn a_retry_of_a_stored_batch_waits_for_the_replicas_under_acks_all() {
    // A request timeout shorter than the lag: the retry finds v0 stored, and its answer is
    // held like the first one's, so nothing is acknowledged that only the leader has.
    let s = with(
        &text(),
        "acks = \"all\"\n",
        "acks = \"all\"\nrequest_timeout_ms = 3000\ndelivery_timeout_ms = 60000\n",
    );
    let (sim, report) = run(&s);
    let all = notes(&sim);
    let dup_at = all
        .iter()
        .find(|(_, _, n)| matches!(n, Note::DuplicateDetected { .. }))
        .map(|(step, _, _)| *step)
        .expect("the retry is de-duplicated");
    let held = all.iter().any(|(step, _, n)| {
        *step == dup_at && matches!(n, Note::AckWaitsForReplicas { base_offset: 0, .. })
    });
    assert!(held, "the duplicate's answer waits for the replicas");
    // Still answered only at the shrink, not when the retry arrived.
    let v0 = &report.deliveries[0];
    assert!(v0.delivered_at_ms.is_some_and(|t| t >= 15_000), "{v0:?}");
    assert_eq!((report.outcome.lost, report.outcome.duplicates), (0, 0));
    // Under acks=1 the leader answers at once; the follower lags all the same, and leaves
    // the ISR at the same look (the shrink does not depend on the producers' acks).
    let s = with(&text(), "acks = \"all\"", "acks = \"1\"");
    let (sim, report) = run(&s);
    let v0 = &report.deliveries[0];
    assert!(v0.delivered_at_ms.is_some_and(|t| t < 1_010), "{v0:?}");
    assert_eq!(shrinks(&sim).len(), 1);
    assert_eq!(shrinks(&sim)[0].0, ms(15_000));
}

#[test]
fn the_leader_crashing_after_the_shrink_takes_the_acknowledged_record_with_it() {
    // The window the shrink opens: v0 acknowledged with only the leader holding it. The
    // leader dies before the heal; the follower, out of sync, cannot be elected (unclean
    // election is off), so the partition is offline, and with unclean election on, v0 is
    // lost.
    let t = text().replace(
        "[[consumers]]",
        "[[faults]]\nat_ms = 17000\naction = \"crash\"\ntarget = \"broker-0\"\n\n[[consumers]]",
    );
    let t = t.replace("[expect]", "[expect_unused]");
    let t = t
        .split("[expect_unused]")
        .next()
        .unwrap_or_default()
        .to_string();
    let (sim, _) = run(&Scenario::parse(&t).expect("parses"));
    assert!(notes(&sim)
        .iter()
        .any(|(_, _, n)| matches!(n, Note::PartitionOffline { unclean: false, .. })));
    let unclean = t.replace(
        "replication_factor = 2\n",
        "replication_factor = 2\nunclean_leader_election = true\n",
    );
    let (sim, report) = run(&Scenario::parse(&unclean).expect("parses"));
    assert!(notes(&sim).iter().any(|(_, _, n)| matches!(
        n,
        Note::UncleanLeaderElected { broker: NodeId::Broker(1), lost_records, .. } if lost_records.len() == 1
    )));
    assert_eq!(report.deliveries[0].status, "delivered");
    assert!(report.outcome.lost >= 1, "{:?}", report.outcome);
}

#[test]
fn a_bad_lag_is_refused_with_its_field_named() {
    for bad in ["0", "3600001"] {
        let t = text().replace(
            "replica_lag_time_max_ms = 10000",
            &format!("replica_lag_time_max_ms = {bad}"),
        );
        let err = Scenario::parse(&t).expect_err("refused").to_string();
        assert!(err.contains("cluster.replica_lag_time_max_ms"), "{err}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Whatever the timing of the cut, the heal and the lag: a record acknowledged with
    /// acks=all is never lost while the leader lives; the ISR only ever holds the leader and
    /// followers with everything below the high watermark; a shrink comes no sooner than the
    /// lag after the follower last had everything, on the leader's schedule.
    #[test]
    fn shrinks_follow_the_lag_and_nothing_acknowledged_is_lost(
        cut in 0u64..5_000,
        heal in 5_000u64..60_000,
        lag in 1_000u64..20_000,
        second in 2_000u64..40_000,
    ) {
        let t = text()
            .replace("replica_lag_time_max_ms = 10000", &format!("replica_lag_time_max_ms = {lag}"))
            .replace("at_ms = 500\naction = \"partition\"", &format!("at_ms = {cut}\naction = \"partition\""))
            .replace("at_ms = 20000\naction = \"heal\"", &format!("at_ms = {heal}\naction = \"heal\""))
            .replace("at_ms = 25000\ntopic", &format!("at_ms = {second}\ntopic"))
            .replace("start_ms = 30000", "start_ms = 70000");
        let t = t.split("[expect]").next().unwrap_or_default().to_string();
        let s = Scenario::parse(&t).expect("parses");
        let (sim, report) = run(&s);
        prop_assert_eq!(report.outcome.lost, 0);
        prop_assert_eq!(report.outcome.duplicates, 0);
        prop_assert_eq!(report.reads["reader"].records, 2);
        prop_assert!(report.invariants.iter().all(|i| i.holds), "{:?}", report.invariants);
        let interval = ms(lag / 2).max(1);
        // The follower lacks records from the first write the leader takes after the cut.
        let lacks_from = notes(&sim)
            .iter()
            .find(|(_, t, n)| *t >= ms(cut) && matches!(n, Note::Appended { .. }))
            .map(|(_, t, _)| *t);
        for (at, followers, isr, since) in shrinks(&sim) {
            prop_assert!(at > since + ms(lag), "shrunk at {} behind since {}", at, since);
            prop_assert!(since <= ms(cut).max(ms(1_001)), "since {}", since);
            prop_assert_eq!(at % interval, 0, "on the schedule");
            let armed = lacks_from.unwrap_or(0);
            prop_assert!(
                at - interval < (since + ms(lag) + 1).max(armed),
                "at the first look past the lag: {} (since {}, lacks from {})", at, since, armed
            );
            prop_assert_eq!(followers, vec![1]);
            prop_assert_eq!(isr, vec![0]);
        }
        // In the end both replicas are back in sync with the whole log.
        let tp = Tp { topic: 0, partition: 0 };
        for b in &sim.brokers {
            let r = b.replicas.get(&tp).expect("a replica");
            prop_assert_eq!(&r.isr, &vec![0, 1]);
            prop_assert_eq!(r.log.log_end_offset(), 2);
        }
    }
}

/// A leader frozen while its follower lags, and replaced meanwhile: its look, held while
/// it was frozen, fires when it thaws, still deaf to the controller. It shrinks nothing and
/// acknowledges nothing on its old view (Kafka's controller refuses an AlterPartition from a
/// deposed leader); it learns it was replaced, and the write goes to the new leader.
#[test]
fn a_thawed_deposed_leader_shrinks_nothing_and_acknowledges_nothing() {
    let t = text()
        .replace(
            "[[consumers]]",
            "[[faults]]\nat_ms = 2000\naction = \"freeze\"\ntarget = \"broker-0\"\nduration_ms = 15000\n\n[[consumers]]",
        )
        .replace("start_ms = 30000", "start_ms = 40000");
    let t = t.split("[expect]").next().unwrap_or_default().to_string();
    let (sim, report) = run(&Scenario::parse(&t).expect("parses"));
    // No shrink from broker 0: fenced at 11 s, its follower (in sync) led from then.
    assert!(shrinks(&sim).is_empty(), "{:?}", shrinks(&sim));
    assert!(notes(&sim).iter().any(|(_, _, n)| matches!(
        n,
        Note::LeaderElected {
            broker: NodeId::Broker(1),
            ..
        }
    )));
    // Nothing acknowledged is lost: v0, lost with the old leader's log tail, is written
    // again to the new leader and read once.
    assert_eq!((report.outcome.lost, report.outcome.duplicates), (0, 0));
    assert_eq!(report.deliveries[0].status, "delivered");
    assert!(
        report.invariants.iter().all(|i| i.holds),
        "{:?}",
        report.invariants
    );
}
