//! A broker that goes down and stays down. The producer's record fails after
//! `message.timeout.ms`; with nothing left to send, the application closes the producer,
//! and the run ends instead of retrying InitProducerId for ever.

use eos_core::builtin;
use eos_core::ids::{NodeId, Tp};
use eos_core::kafka::protocol::MessageKind;
use eos_core::oracle::ledger::DeliveryStatus;
use eos_core::scenario::schema::FaultSpec;
use eos_core::sim::simulation::StepKind;
use eos_core::sim::simulation::StepOutcome;
use eos_core::sim::FlinkNote;
use eos_core::sim::Note;
use eos_core::RunLimit;

fn crash_broker_at(at_ms: u64) -> eos_core::Scenario {
    crash_broker_of("seed-frozen-broker", at_ms)
}

/// Built-in `name` with broker 0 crashed at `at_ms`, for good.
fn crash_broker_of(name: &str, at_ms: u64) -> eos_core::Scenario {
    let base = builtin::get(name).expect("built-in");
    base.with_fault(FaultSpec {
        at_ms,
        action: "crash".into(),
        target: Some("broker-0".into()),
        count: 1,
        ..Default::default()
    })
    .expect("a valid fault")
}

#[test]
fn a_producer_with_nothing_left_to_send_closes_and_the_run_ends() {
    for at_ms in [1, 3, 5, 4_000] {
        let scenario = crash_broker_at(at_ms);
        let mut sim = scenario.simulation(None);
        let end = sim.run(RunLimit::Completion);
        assert_eq!(
            end,
            StepOutcome::Finished,
            "crash at {at_ms} ms: the run ends"
        );
        assert!(
            sim.steps() < 1_000,
            "crash at {at_ms} ms: {} steps",
            sim.steps()
        );
        let status = sim.ledger.records[0].final_status();
        assert_ne!(status, DeliveryStatus::Delivered, "crash at {at_ms} ms");
        let closed = sim
            .trace()
            .iter()
            .flat_map(|r| &r.notes)
            .filter(|n| matches!(n, Note::ProducerClosed { .. }))
            .count();
        // Down before the producer id arrives: the producer is still asking when its record
        // fails, and closes. Later, it already has its id and asks nothing more.
        assert_eq!(closed, usize::from(at_ms == 1), "crash at {at_ms} ms");
        // Nothing is asked of the broker after the close.
        let last_ask = sim.trace().iter().rposition(|r| {
            r.notes
                .iter()
                .any(|n| matches!(n, Note::ProducerIdRequested { .. }))
        });
        let close_at = sim.trace().iter().position(|r| {
            r.notes
                .iter()
                .any(|n| matches!(n, Note::ProducerClosed { .. }))
        });
        if closed == 1 {
            assert!(
                last_ask < close_at,
                "crash at {at_ms} ms: no InitProducerId after the close"
            );
        }
    }
}

#[test]
fn a_producer_still_holding_records_keeps_asking() {
    // Crashed before the producer id arrives, restarted before the record times out: the
    // producer keeps asking, gets its id and delivers.
    let scenario = crash_broker_at(1)
        .with_fault(FaultSpec {
            at_ms: 8_000,
            action: "restart".into(),
            target: Some("broker-0".into()),
            count: 1,
            ..Default::default()
        })
        .expect("a valid fault");
    let mut sim = scenario.simulation(None);
    assert_eq!(sim.run(RunLimit::Completion), StepOutcome::Finished);
    assert_eq!(
        sim.ledger.records[0].final_status(),
        DeliveryStatus::Delivered
    );
    assert!(!sim
        .trace()
        .iter()
        .flat_map(|r| &r.notes)
        .any(|n| matches!(n, Note::ProducerClosed { .. })));
}

/// A reader that starts after its partition's leader died asks a live broker for the
/// cluster's metadata first, as a real client asks its bootstrap servers, and fetches from
/// the new leader at once: it does not wait out a request timeout against the dead one.
#[test]
fn a_client_that_starts_after_a_leader_moved_reads_from_the_new_leader_at_once() {
    for name in ["acks1-leader-crash-loss", "acks-all-leader-crash-no-loss"] {
        let mut sim = builtin::get(name).expect("built-in").simulation(None);
        sim.run(RunLimit::Completion);
        let reader = sim.consumers[0].node();
        let learned = sim.trace().iter().find(|r| {
            r.notes.iter().any(|n| {
                matches!(n, Note::MetadataLearned { client, leaders }
                    if *client == reader && leaders.iter().all(|(_, b)| *b == 1))
            })
        });
        let learned = learned.unwrap_or_else(|| panic!("{name}: the reader learns the leader"));
        let first_read = sim
            .trace()
            .iter()
            .find(|r| {
                r.notes
                    .iter()
                    .any(|n| matches!(n, Note::Read { consumer, .. } if *consumer == reader))
            })
            .unwrap_or_else(|| panic!("{name}: the reader reads"));
        let waited = first_read.time.saturating_sub(learned.time);
        assert!(
            waited < eos_core::time::ms(10),
            "{name}: the first read came {waited} µs after the start"
        );
    }
}

/// The crash scenarios with the leader's first copy delayed 50 ms instead of dropped, and a
/// controller that fences the crashed leader 10 ms after the crash.
fn delayed_copy_quick_fence(name: &str) -> eos_core::Scenario {
    let text = builtin::text(name).expect("built-in");
    let changed = text
        .replace(
            "action = \"drop\"\nfrom = \"broker-0\"",
            "action = \"delay\"\nextra_ms = 50\nfrom = \"broker-0\"",
        )
        .replace(
            "brokers = 2\n",
            "brokers = 2\nbroker_session_timeout_ms = 10\n",
        );
    assert_eq!(changed.matches("extra_ms = 50").count(), 1, "{name}");
    assert!(changed.contains("broker_session_timeout_ms = 10"), "{name}");
    eos_core::Scenario::parse(&changed).expect("valid")
}

/// The crashed leader's replication, delayed on the wire, reaches broker 1 after broker 1
/// became the leader: it is fenced by its older leader epoch, and the step says so (it used
/// to be a silent step whose message read "delivered").
#[test]
fn a_deposed_leaders_late_replication_is_ignored_and_narrated() {
    for name in ["acks1-leader-crash-loss", "acks-all-leader-crash-no-loss"] {
        let mut sim = delayed_copy_quick_fence(name).simulation(None);
        sim.run(RunLimit::Completion);
        let rec = sim
            .trace()
            .iter()
            .find(|r| {
                r.notes
                    .iter()
                    .any(|n| matches!(n, Note::StaleReplicationIgnored { .. }))
            })
            .unwrap_or_else(|| panic!("{name}: the late replication is narrated"));
        let Some(Note::StaleReplicationIgnored {
            broker,
            from,
            leader_epoch,
            current_epoch,
            ..
        }) = rec.notes.first()
        else {
            panic!("{name}: {:?}", rec.notes);
        };
        assert_eq!(
            (*broker, *from, *leader_epoch, *current_epoch),
            (NodeId::Broker(1), NodeId::Broker(0), 0, 1),
            "{name}"
        );
        assert!(matches!(
            rec.what,
            StepKind::Deliver {
                kind: MessageKind::Replicate,
                ..
            }
        ));
        let text = eos_core::sim::narration::narrate(&sim.names, &rec.notes[0]);
        assert!(
            text.contains("(leader epoch 0): it knows leader epoch 1 and no longer follows"),
            "{text}"
        );
    }
}

/// A scenario's text, run to its end (which it must reach).
fn run_to_end(text: &str) -> eos_core::Simulation {
    let mut sim = eos_core::Scenario::parse(text)
        .expect("valid")
        .simulation(None);
    assert_eq!(sim.run(RunLimit::Completion), StepOutcome::Finished);
    sim
}

/// When (in µs) the first step whose notes `pred` matches happened, and its notes.
fn first_note(
    sim: &eos_core::Simulation,
    pred: impl Fn(&Note) -> bool,
) -> Option<(u64, Vec<Note>)> {
    sim.trace()
        .iter()
        .find(|r| r.notes.iter().any(&pred))
        .map(|r| (r.time, r.notes.clone()))
}

/// KRaft's controller fences a crashed broker only when its session expires
/// (`broker.session.timeout.ms`, 9 s by default): the follower becomes leader 9 s after the
/// leader's crash, not at the crash, and the record v1 sent in between waits for it.
#[test]
fn a_crashed_leader_is_replaced_when_its_session_expires() {
    let mut sim = builtin::get("acks1-leader-crash-loss")
        .expect("built-in")
        .simulation(None);
    sim.run(RunLimit::Completion);
    let ms = eos_core::time::ms;
    let (crashed, _) = first_note(&sim, |n| matches!(n, Note::Crashed { .. })).expect("crash");
    let (fenced, notes) =
        first_note(&sim, |n| matches!(n, Note::BrokerFenced { .. })).expect("fenced");
    assert_eq!(fenced, crashed + ms(9_000), "fenced 9 s after the crash");
    assert!(
        matches!(
            notes.first(),
            Some(Note::BrokerFenced {
                broker: NodeId::Broker(0),
                session_timeout_ms: 9_000,
                restarted: false
            })
        ),
        "{notes:?}"
    );
    let (elected, _) = first_note(
        &sim,
        |n| matches!(n, Note::LeaderElected { broker: NodeId::Broker(1), lost_records, .. } if lost_records.len() == 1),
    )
    .expect("broker 1 elected without v0");
    assert_eq!(elected, fenced);
    // Until the fence the metadata names broker 0: every retry of v1 goes there and is lost
    // (no client guesses another leader). After it, the first timeout's disconnect brings
    // fresh metadata naming broker 1, and v1 is stored there.
    assert!(first_note(&sim, |n| matches!(n, Note::NotLeader { .. })).is_none());
    let (refreshed, _) = first_note(&sim, |n| {
        matches!(n, Note::MetadataRefreshed { leaders, .. } if !leaders.is_empty() && leaders.iter().all(|(_, b)| *b == 1))
    })
    .expect("the producer learns the new leader");
    assert!(refreshed > fenced);
    let (acked, _) = first_note(
        &sim,
        |n| matches!(n, Note::Delivered { records, .. } if records.iter().any(|r| r.0 == 1)),
    )
    .expect("v1 acknowledged");
    assert!(acked > fenced, "v1 waits for a leader");
}

/// A broker back before the session of the instance that crashed expired: KRaft's controller
/// refuses the new incarnation's registration (DUPLICATE_BROKER_REGISTRATION) until that
/// session expires, 9 s after the crash; the broker serves nothing meanwhile. Then it fences
/// the old one, moves the leadership, and takes the new registration in the same step.
/// A follower that crashes holds up acks=all until it is fenced (taken out of the ISR).
#[test]
fn a_broker_back_before_its_session_expires_waits_for_it_to_register() {
    let text = builtin::text("acks-all-leader-crash-no-loss").expect("built-in");
    let restarted = text.replace(
        "action = \"crash\"\ntarget = \"broker-0\"",
        "action = \"crash\"\ntarget = \"broker-0\"\nrestart_after_ms = 1000",
    );
    assert_ne!(restarted, text);
    let sim = run_to_end(&restarted);
    let ms = eos_core::time::ms;
    let (refused, _) = first_note(&sim, |n| {
        matches!(
            n,
            Note::BrokerRegistration {
                accepted: false,
                ..
            }
        )
    })
    .expect("refused at its restart");
    assert_eq!(refused, ms(1_020));
    assert!(
        !sim.trace()
            .iter()
            .any(|r| r.notes.iter().any(|n| matches!(n, Note::Restarted { .. }))),
        "no plain restart"
    );
    let fences: Vec<_> = sim
        .trace()
        .iter()
        .filter(|r| {
            r.notes
                .iter()
                .any(|n| matches!(n, Note::BrokerFenced { .. }))
        })
        .collect();
    assert_eq!(fences.len(), 1, "fenced once");
    assert_eq!(fences[0].time, ms(9_020), "when the old session expires");
    for want in [
        |n: &Note| {
            matches!(
                n,
                Note::LeaderElected {
                    broker: NodeId::Broker(1),
                    ..
                }
            )
        },
        |n: &Note| matches!(n, Note::BrokerRegistration { accepted: true, .. }),
    ] {
        assert!(fences[0].notes.iter().any(want), "{:#?}", fences[0].notes);
    }
    // Until then nothing it was sent was served.
    assert!(sim
        .trace()
        .iter()
        .filter(|r| r.time > ms(1_020) && r.time < ms(9_020))
        .flat_map(|r| r.notes.iter())
        .all(|n| !matches!(
            n,
            Note::Appended {
                broker: NodeId::Broker(0),
                ..
            } | Note::FetchServed {
                broker: NodeId::Broker(0),
                ..
            }
        )));

    // The follower crashes instead: the leader holds v0's acks=all answer until the fence.
    let follower = text.replace(
        "action = \"crash\"\ntarget = \"broker-0\"",
        "action = \"crash\"\ntarget = \"broker-1\"",
    );
    let sim = run_to_end(&follower);
    let (fenced, _) = first_note(&sim, |n| matches!(n, Note::BrokerFenced { .. })).expect("fenced");
    assert_eq!(fenced, ms(9_020));
    let (acked, _) = first_note(
        &sim,
        |n| matches!(n, Note::Delivered { records, .. } if records.iter().any(|r| r.0 == 0)),
    )
    .expect("v0 acknowledged");
    assert!(
        acked >= fenced,
        "acks=all waits for the ISR to shrink: {acked}"
    );
}

/// A leader paused (frozen) longer than its session: the controller fences it 9 s into the
/// pause and makes the follower leader; when it thaws it finds itself fenced, registers
/// again and follows. A pause shorter than the session fences nothing.
const FROZEN_LEADER: &str = r#"
version = 1
name = "frozen-leader"
[cluster]
brokers = 2
[[topics]]
name = "orders"
replication_factor = 2
[[producers]]
name = "app"
acks = "all"
request_timeout_ms = 4000
linger_ms = 0
[[producers.sends]]
at_ms = 0
topic = "orders"
key = "order-1"
[[producers.sends]]
at_ms = 100
topic = "orders"
key = "order-2"
[[faults]]
at_ms = 50
action = "freeze"
target = "broker-0"
duration_ms = 15000
[[consumers]]
name = "reader"
topic = "orders"
start_ms = 20000
"#;

#[test]
fn a_leader_frozen_past_its_session_is_fenced_and_rejoins_as_a_follower() {
    let ms = eos_core::time::ms;
    let sim = run_to_end(FROZEN_LEADER);
    let (fenced, notes) =
        first_note(&sim, |n| matches!(n, Note::BrokerFenced { .. })).expect("fenced");
    assert_eq!(fenced, ms(9_050), "9 s into the pause");
    assert!(notes.iter().any(|n| matches!(
        n,
        Note::LeaderElected {
            broker: NodeId::Broker(1),
            ..
        }
    )));
    let (rejoined, _) = first_note(&sim, |n| {
        matches!(
            n,
            Note::BrokerRejoined {
                broker: NodeId::Broker(0)
            }
        )
    })
    .expect("rejoined");
    assert_eq!(rejoined, ms(15_050), "at the thaw");
    // Broker 0 follows broker 1 and has both records; the reader reads them once each.
    let b0 = &sim.brokers[0];
    let r = b0.replicas.values().next().expect("a replica");
    assert_eq!(r.leader, Some(1));
    assert_eq!(r.log.log_end_offset(), 2);
    let outcome = eos_core::report::Outcome::of(&sim);
    assert_eq!((outcome.duplicates, outcome.lost), (0, 0), "{outcome:?}");

    // Paused for 6 s only: heartbeats resume in time, nothing is fenced, broker 0 leads on.
    let short = FROZEN_LEADER.replace("duration_ms = 15000", "duration_ms = 6000");
    let sim = run_to_end(&short);
    assert!(first_note(&sim, |n| matches!(
        n,
        Note::BrokerFenced { .. } | Note::BrokerRejoined { .. }
    ))
    .is_none());
    assert!(!sim.trace().iter().any(|r| matches!(
        &r.what,
        StepKind::Fault {
            fault: eos_core::sim::Fault::SessionExpired { .. }
        }
    )));
    let r = sim.brokers[0].replicas.values().next().expect("a replica");
    assert_eq!(r.leader, Some(0));
}

/// The built-in paused-leader-fenced-loss: an acks=1 record the paused leader never
/// replicated is lost when the controller fences it, and the woken broker truncates it.
#[test]
fn a_paused_acks1_leader_loses_its_unreplicated_record_when_fenced() {
    let ms = eos_core::time::ms;
    let mut sim = builtin::get("paused-leader-fenced-loss")
        .expect("built-in")
        .simulation(None);
    assert_eq!(sim.run(RunLimit::Completion), StepOutcome::Finished);
    let (elected, _) = first_note(&sim, |n| {
        matches!(n, Note::LeaderElected { broker: NodeId::Broker(1), lost_records, .. } if lost_records.len() == 1)
    })
    .expect("broker 1 leads without v0");
    assert_eq!(elected, ms(9_050));
    // Woken, broker 0 first serves the retries that waited in its socket buffer as the
    // leader it still thinks it is: a zombie leader appends them after v0...
    let zombie: Vec<_> = sim
        .trace()
        .iter()
        .filter(|r| r.time == ms(15_050))
        .flat_map(|r| &r.notes)
        .filter(|n| {
            matches!(
                n,
                Note::Appended {
                    broker: NodeId::Broker(0),
                    ..
                }
            )
        })
        .collect();
    assert!(!zombie.is_empty(), "the zombie leader appends what waited");
    // ...then hears the controller, learns it no longer leads, and truncates all of it.
    let (caught, notes) = first_note(&sim, |n| {
        matches!(n, Note::MetadataCaughtUp { broker: NodeId::Broker(0), demoted, .. } if demoted.len() == 1)
    })
    .expect("broker 0 learns it was deposed");
    assert_eq!(caught, ms(15_050));
    assert!(
        notes.iter().any(|n| matches!(
            n,
            Note::LogTruncated { broker: NodeId::Broker(0), to_offset: 0, dropped, .. }
                if dropped.len() == 1 + zombie.len() && dropped[0].0 == 0
        )),
        "v0 and the zombie's appends are dropped: {notes:?}"
    );
    let outcome = eos_core::report::Outcome::of(&sim);
    assert_eq!((outcome.lost, outcome.duplicates), (1, 0));
}

/// A produce request that waited in a frozen acks=all leader's socket buffer: the woken
/// zombie leader appends it and waits for a follower that now leads; when it hears the
/// controller it answers NOT_LEADER_OR_FOLLOWER, and the producer's retry to the new leader
/// stores the record once.
#[test]
fn a_zombie_acks_all_leader_answers_not_leader_when_it_catches_up() {
    let ms = eos_core::time::ms;
    let patient = FROZEN_LEADER.replace("request_timeout_ms = 4000", "request_timeout_ms = 30000");
    let sim = run_to_end(&patient);
    let (waits, _) = first_note(&sim, |n| {
        matches!(
            n,
            Note::AckWaitsForReplicas {
                broker: NodeId::Broker(0),
                base_offset: 1,
                ..
            }
        )
    })
    .expect("the zombie appends v1 and waits for its follower");
    assert_eq!(waits, ms(15_050));
    let (caught, notes) =
        first_note(&sim, |n| matches!(n, Note::MetadataCaughtUp { .. })).expect("caught up");
    assert_eq!(caught, waits);
    assert!(notes.contains(&Note::MetadataCaughtUp {
        broker: NodeId::Broker(0),
        demoted: vec![Tp {
            topic: 0,
            partition: 0
        }],
        answered: 1,
    }));
    assert!(notes
        .iter()
        .any(|n| matches!(n, Note::BrokerRejoined { .. })));
    let (stored, _) = first_note(&sim, |n| {
        matches!(
            n,
            Note::Appended {
                broker: NodeId::Broker(1),
                base_offset: 1,
                ..
            }
        )
    })
    .expect("the retry reaches the new leader");
    assert!(stored > caught);
    let outcome = eos_core::report::Outcome::of(&sim);
    assert_eq!((outcome.lost, outcome.duplicates), (0, 0), "{outcome:?}");
    // Both brokers end with the same two records.
    for b in &sim.brokers {
        let r = b.replicas.values().next().expect("a replica");
        assert_eq!(r.log.log_end_offset(), 2, "broker {}", b.id);
    }
}

/// A partition whose only replica is on a broker frozen past its session goes offline; the
/// frozen broker does not hear that, and when it thaws it applies what it missed and leads
/// again, so a transaction decided meanwhile gets its markers. (A property test's case: the
/// coordinator once waited for a leader forever.)
#[test]
fn an_offline_partition_whose_only_replica_was_frozen_leads_again_at_the_thaw() {
    let text = r#"
version = 1
name = "only-replica-frozen"
[cluster]
brokers = 2
broker_session_timeout_ms = 1
[[topics]]
name = "t"
[[producers]]
name = "p0"
transactional_id = "tx-0"
[[producers.transactions]]
at_ms = 797
end = "commit"
[[producers.transactions.sends]]
topic = "t"
key_prefix = "k-"
count = 2
interval_us = 202000
[[faults]]
at_ms = 0
action = "freeze"
target = "broker-0"
duration_ms = 1642
[[consumers]]
name = "c0"
topic = "t"
isolation = "read_committed"
start_ms = 5000
"#;
    let sim = run_to_end(text);
    assert!(first_note(&sim, |n| matches!(n, Note::PartitionOffline { .. })).is_some());
    let (caught, _) = first_note(&sim, |n| matches!(n, Note::MetadataCaughtUp { .. }))
        .expect("it applies what it missed");
    assert_eq!(caught, eos_core::time::ms(1_642));
    assert!(first_note(&sim, |n| matches!(n, Note::MarkerWritten { .. })).is_some());
    let outcome = eos_core::report::Outcome::of(&sim);
    assert_eq!((outcome.lost, outcome.duplicates), (0, 0), "{outcome:?}");
    assert_eq!(
        sim.brokers[0]
            .replicas
            .values()
            .next()
            .and_then(|r| r.leader),
        Some(0)
    );
}

/// A client that starts while a deposed leader is still frozen asks a broker that can answer:
/// it learns the new leader, not the frozen broker's stale view.
#[test]
fn a_client_starting_during_the_pause_learns_the_new_leader() {
    let late = FROZEN_LEADER.replace("start_ms = 20000", "start_ms = 12000");
    let sim = run_to_end(&late);
    let (learned, _) = first_note(&sim, |n| {
        matches!(n, Note::MetadataLearned { client: NodeId::Consumer(0), leaders } if leaders.iter().all(|(_, l)| *l == 1))
    })
    .expect("the reader learns broker 1 leads");
    assert_eq!(learned, eos_core::time::ms(12_000));
}

/// A reader whose fetches to a crashed leader time out asks for fresh metadata each time: it
/// keeps fetching from the crashed broker while the metadata names it, and moves to the new
/// leader only when the controller has fenced the old one (no guessing, no NOT_LEADER).
#[test]
fn a_reader_whose_fetch_times_out_follows_the_metadata_not_a_guess() {
    let text = builtin::text("acks-all-leader-crash-no-loss").expect("built-in");
    let early = text.replace("start_ms = 14000", "start_ms = 1000");
    assert_ne!(early, text);
    let sim = run_to_end(&early);
    let (fenced, _) = first_note(&sim, |n| matches!(n, Note::BrokerFenced { .. })).expect("fenced");
    let (moved, _) = first_note(&sim, |n| {
        matches!(n, Note::MetadataRefreshed { client: NodeId::Consumer(0), leaders, .. } if !leaders.is_empty() && leaders.iter().all(|(_, b)| *b == 1))
    })
    .expect("the reader learns broker 1 leads");
    assert!(moved > fenced, "only after the fence: {moved} vs {fenced}");
    assert!(first_note(&sim, |n| matches!(n, Note::NotLeader { .. })).is_none());
    let outcome = eos_core::report::Outcome::of(&sim);
    assert_eq!((outcome.lost, outcome.duplicates), (0, 0), "{outcome:?}");
}

/// A Flink Kafka source whose fetch to a crashed leader timed out asks a live broker for fresh
/// metadata, like any Kafka consumer: it does not guess the next broker (which, a follower
/// until the fence, would answer NOT_LEADER_OR_FOLLOWER). It fetches from broker 1 once the
/// controller has moved the leadership there, and reads the record the crash left behind.
#[test]
fn a_flink_source_whose_fetch_times_out_follows_the_metadata_not_a_guess() {
    let text = builtin::text("flink-barrier-walkthrough").expect("built-in");
    let replicated = text
        .replace(
            "group = \"Flink\"\n",
            "group = \"Flink\"\n\n[cluster]\nbrokers = 2\n",
        )
        .replace(
            "name = \"clicks\"\n",
            "name = \"clicks\"\nreplication_factor = 2\n",
        )
        .replace(
            "name = \"enriched\"\n",
            "name = \"enriched\"\nreplication_factor = 2\n",
        )
        .replace(
            "[[consumers]]",
            "[[faults]]\nat_ms = 250\naction = \"crash\"\ntarget = \"broker-0\"\n\n[[consumers]]",
        );
    assert_eq!(replicated.matches("replication_factor").count(), 2);
    assert!(replicated.contains("brokers = 2") && replicated.contains("action = \"crash\""));
    let sim = run_to_end(&replicated);
    let source = NodeId::Task(0);
    let (fenced, _) = first_note(&sim, |n| matches!(n, Note::BrokerFenced { .. })).expect("fenced");
    let (moved, _) = first_note(&sim, |n| {
        matches!(n, Note::MetadataRefreshed { client, leaders, .. }
            if *client == source && !leaders.is_empty() && leaders.iter().all(|(_, b)| *b == 1))
    })
    .expect("the source learns that broker 1 leads");
    assert!(moved > fenced, "only after the fence: {moved} vs {fenced}");
    assert!(first_note(&sim, |n| matches!(n, Note::NotLeader { .. })).is_none());
    // It read nothing after the crash until the move, then what broker 1 holds.
    let emitted = |r: &&eos_core::sim::simulation::StepRecord| {
        r.notes
            .iter()
            .any(|n| matches!(n, Note::Flink(FlinkNote::SourceEmitted { .. })))
    };
    let crash = eos_core::time::ms(250);
    assert!(!sim
        .trace()
        .iter()
        .filter(emitted)
        .any(|r| r.time > crash && r.time < moved));
    assert!(
        sim.trace().iter().filter(emitted).any(|r| r.time > moved),
        "the source reads what broker 1 holds after the move"
    );
    // The stop's savepoints meanwhile wait on the stuck source and expire: the run tries the
    // stop a bounded number of times (this run once hung, retrying for ever).
    let job = sim.flink.as_ref().expect("a Flink job");
    let stops: Vec<_> = job
        .coordinator
        .history
        .iter()
        .filter(|c| c.last)
        .map(|c| c.outcome)
        .collect();
    assert!(
        !stops.is_empty() && stops.len() as u32 <= eos_core::flink::coordinator::STOP_ATTEMPTS,
        "{stops:?}"
    );
    // The sink, blocked in initTransactions for an id broker 0 coordinated, asks again after
    // request.timeout.ms, where coordination moved (broker 1): checkpoint 2 completes then.
    let (retried, _) = first_note(&sim, |n| {
        matches!(n, Note::Flink(FlinkNote::SinkInitTimedOut { to, .. }) if *to == NodeId::Broker(1))
    })
    .expect("the sink asks the new coordinator");
    assert!(retried > fenced);
    let cp2 = job
        .coordinator
        .history
        .iter()
        .find(|c| c.id == 2)
        .expect("checkpoint 2");
    assert_eq!(
        cp2.outcome,
        eos_core::flink::snapshot::CheckpointOutcome::Completed
    );
}

/// A Metadata request fails with the connection it went on: the producer that times out
/// twice against its one frozen broker asks twice, and takes in only the second answer (the
/// first came back on the connection it had closed), after the thaw.
#[test]
fn a_metadata_answer_on_a_closed_connection_is_not_taken() {
    let sim = run_to_end(builtin::text("seed-frozen-broker").expect("built-in"));
    let count = |pred: &dyn Fn(&Note) -> bool| {
        sim.trace()
            .iter()
            .flat_map(|r| &r.notes)
            .filter(|n| pred(n))
            .count()
    };
    let asked = count(&|n| matches!(n, Note::MetadataRequested { .. }));
    let answered = count(&|n| matches!(n, Note::MetadataRefreshed { .. }));
    assert_eq!((asked, answered), (2, 1));
    let (thaw, _) = first_note(&sim, |n| matches!(n, Note::Thawed { .. })).expect("thawed");
    let (got, _) =
        first_note(&sim, |n| matches!(n, Note::MetadataRefreshed { .. })).expect("an answer");
    assert!(got >= thaw);
    // Both requests reached the broker and were answered.
    let responses = sim
        .trace()
        .iter()
        .filter(|r| {
            matches!(
                r.what,
                StepKind::Deliver {
                    kind: MessageKind::MetadataResponse,
                    ..
                }
            )
        })
        .count();
    assert_eq!(responses, 2);
}

/// Both brokers of a replicated partition freeze, one after the other, long enough to be
/// fenced: the partition goes offline. When the second thaws, as the only replica in sync,
/// it leads again, and its high watermark is its log end (the COMMIT marker it had copied
/// included), not the lagging one it had as a follower: a committed record stays committed
/// on the leader, and a read_committed reader that read it (from the first broker, a zombie
/// leader for a moment) read nothing uncommitted. Found by the property test (seed 41).
#[test]
fn a_replica_that_leads_again_after_both_froze_takes_its_log_end_as_high_watermark() {
    let sim = run_to_end(&both_brokers_freeze(239, 1069));
    let (_, notes) = first_note(&sim, |n| {
        matches!(n, Note::HighWatermarkAdvanced { broker, high_watermark: 2, .. } if *broker == NodeId::Broker(0))
    })
    .expect("the high watermark of t-1 on broker 0 reaches 2");
    assert!(notes
        .iter()
        .any(|n| matches!(n, Note::LeaderElected { broker, .. } if *broker == NodeId::Broker(0))));
    let broken: Vec<_> = eos_core::oracle::invariants::violations(&sim);
    assert!(broken.is_empty(), "{broken:?}");
}

/// The same, a millisecond later: the first broker serves the committed record as a zombie
/// leader while the partition is still offline for the controller and the second broker
/// has not yet thawed. No step breaks an invariant: with no live leader there is no
/// committed view to judge a read by (a lagging replica's would call it uncommitted).
#[test]
fn a_read_while_its_partition_has_no_live_leader_is_not_judged_by_a_lagging_replica() {
    let mut sim = eos_core::Scenario::parse(&both_brokers_freeze(240, 1070))
        .expect("valid")
        .simulation(None);
    while sim.step() == StepOutcome::Stepped {
        let broken: Vec<_> = eos_core::oracle::invariants::check_all(&sim)
            .into_iter()
            .filter(|r| !r.holds)
            .collect();
        assert!(broken.is_empty(), "step {}: {broken:?}", sim.steps());
    }
}

/// The property test's case (seed 41): a committed transaction on a partition replicated
/// on both brokers, which then freeze one after the other, long enough to be fenced
/// (`session_ms`), the second at `second_freeze_ms`; a read_committed reader polls once
/// both have thawed.
fn both_brokers_freeze(session_ms: u64, second_freeze_ms: u64) -> String {
    format!(
        r#"version = 1
name = "generated"
seed = 0

[cluster]
brokers = 2
transaction_protocol = 2
transaction_abort_timed_out_transaction_cleanup_interval_ms = 10000
broker_session_timeout_ms = {session_ms}

[limits]
max_steps = 200000

[[topics]]
name = "t"
partitions = 2
replication_factor = 2

[[producers]]
name = "p0"
transactional_id = "tx-0"
request_timeout_ms = 30000
resend_unconfirmed_on_restart = false
[[producers.transactions]]
at_ms = 0
end = "commit"
[[producers.transactions.sends]]
topic = "t"
key_prefix = "p0t0s0-"
count = 1
interval_us = 0
partition = 1

[[faults]]
at_ms = 830
action = "freeze"
target = "broker-1"
duration_ms = 4876

[[faults]]
at_ms = {second_freeze_ms}
action = "freeze"
target = "broker-0"
duration_ms = 4637

[[consumers]]
name = "c0"
topic = "t"
isolation = "read_committed"
start_ms = 5000
"#
    )
}

/// A restarted broker still refused (its old session lasts) that crashes again comes back
/// again when its own restart is due, and registers when the session expires (property
/// test, transactions: the second restart was lost and the run never ended).
#[test]
fn a_refused_broker_that_crashes_again_still_comes_back() {
    let text = builtin::text("acks-all-leader-crash-no-loss").expect("built-in");
    let twice = text.replace(
        "action = \"crash\"\ntarget = \"broker-0\"",
        "action = \"crash\"\ntarget = \"broker-0\"\nrestart_after_ms = 1\n\n\
         [[faults]]\nat_ms = 30\naction = \"crash\"\ntarget = \"broker-0\"\nrestart_after_ms = 1",
    );
    assert_ne!(twice, text);
    let sim = run_to_end(&twice);
    let refusals = sim
        .trace()
        .iter()
        .flat_map(|r| r.notes.iter())
        .filter(|n| {
            matches!(
                n,
                Note::BrokerRegistration {
                    accepted: false,
                    ..
                }
            )
        })
        .count();
    assert_eq!(refusals, 2, "refused at both restarts");
    let (registered, _) = first_note(&sim, |n| {
        matches!(n, Note::BrokerRegistration { accepted: true, .. })
    })
    .expect("registered once the session expired");
    assert_eq!(registered, eos_core::time::ms(9_020));
}

/// The only broker crashes for good under a read-process-write job (the playground's "crash"
/// on broker-0). The restarted processor asks for its committed offsets every request timeout
/// and hears nothing: each silence is an empty poll, so it stops as its loop would, and the
/// run ends (it used to ask for ever, and every lane hit its step limit). What the down
/// broker holds on disk is unavailable rather than gone, and the oracle says so; an offline
/// partition's committed records break no visibility invariant.
#[test]
fn a_processor_whose_only_broker_stays_down_stops_and_its_records_are_unavailable() {
    let scenario = crash_broker_of("rpw-crash-at-most-once", 58);
    for g in eos_core::kafka::processor::Guarantee::ALL {
        let guarantee = g.name();
        let scenario = eos_core::compare::with_guarantee(&scenario, g)
            .unwrap_or_else(|e| panic!("{guarantee}: {e}"));
        let mut sim = scenario.simulation(None);
        assert_eq!(
            sim.run(RunLimit::Completion),
            StepOutcome::Finished,
            "{guarantee}: the run ends"
        );
        assert!(sim.steps() < 2_000, "{guarantee}: {} steps", sim.steps());
        let report = eos_core::report::Report::of("crash", &sim);
        let lost: Vec<&str> = report
            .anomalies
            .iter()
            .filter(|a| a.kind == "lost-write")
            .map(|a| a.detail.as_str())
            .collect();
        assert!(
            !lost.is_empty(),
            "{guarantee}: the acknowledged records are unreadable"
        );
        for detail in lost {
            assert!(
                detail.ends_with(
                    ": broker 0, down at the end, holds it on disk (unavailable until it restarts)"
                ),
                "{guarantee}: {detail}"
            );
        }
        let broken: Vec<_> = report.invariants.iter().filter(|i| !i.holds).collect();
        assert!(broken.is_empty(), "{guarantee}: {broken:?}");
    }
    // The comparison says which partitions no reader can count (the page explains its
    // empty table with them).
    for lane in eos_core::compare::compare(&scenario, None).expect("a processor") {
        assert_eq!(
            lane.offline,
            ["orders-0", "invoices-0"],
            "{}",
            lane.guarantee
        );
        assert!(
            lane.ledger.is_empty(),
            "{}: no input is readable",
            lane.guarantee
        );
    }
    let lanes = eos_core::compare::compare(
        &builtin::get("rpw-crash-at-most-once").expect("built-in"),
        None,
    )
    .expect("a processor");
    assert!(
        lanes.iter().all(|l| l.offline.is_empty()),
        "every partition has a leader without the crash"
    );
}
