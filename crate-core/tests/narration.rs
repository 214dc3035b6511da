//! The narration says what happened in words a student can trust: every built-in's every
//! sentence is checked for the slips a review found, and the silent steps it found speak.

use eos_core::builtin;
use eos_core::sim::narration::narrate;
use eos_core::sim::narration_repeats::narrate_in;
use eos_core::sim::Note;
use eos_core::RunLimit;

/// Every sentence of a built-in's run, with its step number.
fn sentences(name: &str) -> Vec<(u64, String)> {
    sentences_of(&builtin::get(name).expect("built-in"))
}

fn sentences_of(scenario: &eos_core::Scenario) -> Vec<(u64, String)> {
    let mut sim = scenario.simulation(None);
    sim.run(RunLimit::Completion);
    sim.trace()
        .iter()
        .flat_map(|r| r.notes.iter().map(|n| (r.step, narrate(&sim.names, n))))
        .collect()
}

fn all_sentences(name: &str) -> String {
    sentences(name)
        .into_iter()
        .map(|(_, s)| s)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_sentence_of_any_built_in_has_a_counting_or_naming_slip() {
    let slips = [
        // "the next 1 append", "1 entries", "partition(s)".
        "the next 1 ",
        "the first 1 ",
        " 1 entries",
        " 1 markers",
        "(s)",
        // Kafka's requests by their names, not snake_case kinds.
        "_response",
        "init producer id",
        // "producer 0" reads like a node; a producer id is said as one.
        "producer 0",
        "producer 1",
        // "so are record v2".
        "so are record ",
        "so are nothing",
        // "drops 1 marker, which are not for the application".
        " 1 marker, which are",
    ];
    for name in builtin::names() {
        for (step, text) in sentences(&name) {
            for slip in slips {
                assert!(!text.contains(slip), "{name} #{step}: {slip:?} in {text}");
            }
        }
    }
}

/// Under protocol 1 a late EndTxn can end the next transaction (KAFKA-17754): here transaction
/// 1's late commit commits transaction 2, whose own EndTxn, delayed, then finds it complete and
/// is answered as a retry. That step used to say nothing, and the producer's next sentence
/// claimed a commit it had not made.
const V1_LATE_END_TXN: &str = r#"
version = 1
name = "v1-end-txn-answered-as-retry"
[cluster]
transaction_protocol = 1
[[topics]]
name = "events"
[[producers]]
name = "app"
transactional_id = "app-tx"
[[producers.transactions]]
[[producers.transactions.sends]]
topic = "events"
key = "t1"
[[producers.transactions]]
[[producers.transactions.sends]]
topic = "events"
key_prefix = "t2-"
count = 2
interval_us = 400000
[[faults]]
at_ms = 0
action = "duplicate"
message = "end_txn"
extra_ms = 600
[[faults]]
at_ms = 100
action = "delay"
message = "end_txn"
extra_ms = 400
"#;

#[test]
fn an_end_txn_answered_as_a_retry_is_said_and_the_producer_only_believes_the_commit() {
    let mut sim = eos_core::Scenario::parse(V1_LATE_END_TXN)
        .expect("valid")
        .simulation(None);
    sim.run(RunLimit::Completion);
    let trace = sim.trace();
    let retry = trace
        .iter()
        .position(|r| {
            r.notes
                .iter()
                .any(|n| matches!(n, Note::TxnEndAnsweredAsRetry { .. }))
        })
        .expect("the coordinator's answer is narrated");
    let said: Vec<String> = trace[retry]
        .notes
        .iter()
        .map(|n| narrate(&sim.names, n))
        .collect();
    assert!(
        said.iter().any(|s| s.contains("already in CompleteCommit")
            && s.contains("Under protocol 1 a retry and a new EndTxn")),
        "{said:?}"
    );
    let ended = trace[retry..]
        .iter()
        .flat_map(|r| r.notes.iter())
        .find(|n| matches!(n, Note::TxnEnded { .. }))
        .map(|n| narrate(&sim.names, n))
        .expect("the producer hears");
    assert!(ended.contains("as far as it knows"), "{ended}");

    // Under protocol 2 the delayed EndTxn carries an older epoch: no protocol 1 caveat.
    let v2 = all_sentences("txn-v2-delayed-endtxn");
    assert!(!v2.contains("Under protocol 1"), "{v2}");
}

/// The stop's savepoint is said to be aligned "unlike this job's checkpoints" only in a job
/// whose checkpoints may be unaligned.
#[test]
fn the_final_checkpoint_is_contrasted_only_in_an_unaligned_job() {
    let phrase = "A savepoint is always aligned";
    assert!(all_sentences("flink-backpressure-unaligned").contains(phrase));
    for name in [
        "flink-backpressure-aligned",
        "flink-at-least-once-overcount",
    ] {
        assert!(!all_sentences(name).contains(phrase), "{name}");
    }
}

/// A read_committed fetch held back by a transaction not yet marked says so; it is not
/// "nothing new". (The broker cannot tell an open transaction from a decided one whose
/// marker has not come: both hold the last stable offset.)
#[test]
fn a_read_committed_reader_held_by_the_last_stable_offset_is_told_why() {
    let text = all_sentences("txn-producer-crash-stalls-readers");
    assert!(
        text.contains("a transaction with no COMMIT or ABORT marker here yet (still open, or decided and its marker not yet written) holds the last stable offset at 0"),
        "{text}"
    );
    assert!(
        !text.contains("has nothing new for early-reader in events-0 from offset 0"),
        "{text}"
    );
}

/// Records read with gaps (markers, aborted records) are not given as a range that
/// suggests more of them.
#[test]
fn a_read_with_gaps_names_its_first_and_last_offsets_not_a_range() {
    let text = all_sentences("seed-commit-abort");
    for line in text.lines().filter(|l| l.contains(" reads ")) {
        if line.contains("between offsets") {
            continue;
        }
        // "reads N records of T (offsets a–b)": b − a + 1 = N.
        let Some((count, range)) = line
            .split_once(" reads ")
            .and_then(|(_, rest)| rest.split_once(" record"))
            .and_then(|(n, rest)| Some((n, rest.split_once("(offsets ")?.1)))
        else {
            continue;
        };
        let Ok(count) = count.parse::<u64>() else {
            continue;
        };
        let range: String = range.chars().take_while(|c| *c != ')').collect();
        let (a, b) = range.split_once('–').expect("a range");
        let (a, b): (u64, u64) = (a.parse().expect("offset"), b.parse().expect("offset"));
        assert_eq!(b - a + 1, count, "{line}");
    }
}

#[test]
fn a_woken_leader_that_was_deposed_is_called_a_zombie_and_its_appends_come_first() {
    let said = sentences("paused-leader-fenced-loss");
    let step_of = |needle: &str| {
        said.iter()
            .find(|(_, s)| s.contains(needle))
            .map(|(step, _)| *step)
            .unwrap_or_else(|| panic!("{needle:?} is said"))
    };
    let woke = step_of("broker 0 wakes up and handles the 5 messages");
    let zombie_append = step_of("broker 0 appends record v1 at offset 1");
    let caught = step_of(
        "broker 0 fetches the metadata it missed while frozen and learns that it no longer \
         leads orders-0. Until now it served it as leader on its old view: a zombie leader.",
    );
    let rejoined = step_of("broker 0 learns that the controller fenced it while it was frozen");
    // The truncation names each record once, with how many copies went.
    step_of("dropping 6 records (v0, v1 ×5)");
    assert!(woke < zombie_append && zombie_append < caught, "{said:?}");
    assert_eq!(rejoined, caught, "one step: it hears the controller");
}

/// A backoff that has reached `retry.backoff.max.ms` is "at most" that: the jitter can only
/// shorten it. Below the cap it is "give or take" the jitter.
#[test]
fn a_capped_backoff_is_said_to_be_at_most_the_cap() {
    let retries: Vec<String> = sentences("acks1-leader-crash-loss")
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| s.contains(" will retry "))
        .collect();
    let capped: Vec<&String> = retries
        .iter()
        .filter(|s| {
            s.contains("after at most 1.000 s: the backoff has reached retry.backoff.max.ms")
        })
        .collect();
    assert_eq!(capped.len(), 1, "{retries:#?}");
    assert!(
        retries
            .iter()
            .filter(|s| s.contains("give or take"))
            .count()
            >= 4
    );
    assert!(
        !retries.iter().any(|s| s.contains("1.000 s, give or take")),
        "{retries:#?}"
    );
}

/// A Flink source named after the topic it reads is called a subtask in a sentence that
/// names its partition too.
#[test]
fn a_source_named_after_its_topic_is_told_from_its_partition() {
    // The built-in's topics renamed back to its sources' names.
    let text = builtin::text("flink-at-least-once-overcount")
        .expect("built-in")
        .replace("\"click-events\"", "\"clicks\"")
        .replace("\"order-events\"", "\"orders\"");
    let scenario = eos_core::Scenario::parse(&text).expect("valid");
    let text: Vec<String> = sentences_of(&scenario)
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    let text = text.join("\n");
    assert!(text.contains("subtask clicks-0 reads v0 from clicks-0 at offset 0"));
    assert!(!text.contains("for clicks-0 in clicks-0"));
}

/// A crashed broker answers nothing, not even with a refused connection: the narration
/// says why clients only time out, and that its log on disk stays.
#[test]
fn a_crashed_broker_is_said_to_refuse_nothing() {
    let text = all_sentences("acks1-leader-crash-loss");
    assert!(text.contains(
        "broker 0 crashes: whatever it held in memory is gone; its log on disk stays. Nothing answers for it, not even a refused connection"
    ));
}

/// A request other than Produce that times out is said before the connection closes, and a
/// batch sent after an epoch bump names its epoch.
#[test]
fn a_timed_out_init_producer_id_and_a_bumped_epoch_are_said() {
    let frozen_from_the_start = eos_core::Scenario::parse(
        r#"
version = 1
name = "init-timeout"
[[topics]]
name = "events"
[[producers]]
name = "app"
request_timeout_ms = 1000
[[producers.sends]]
at_ms = 0
topic = "events"
key = "a"
[[faults]]
at_ms = 0
action = "freeze"
target = "broker-0"
duration_ms = 5000
"#,
    )
    .expect("valid");
    let said = sentences_of(&frozen_from_the_start);
    assert!(
        said.iter().any(|(_, s)| s
            == "app heard nothing for 1000 ms (request.timeout.ms) about its InitProducerId request: it closes its connection to broker 0 and will open a new one."),
        "{said:#?}"
    );
    // Three records expire in a frozen broker's buffer: the producer bumps its epoch
    // (KIP-360), and the next record goes out at epoch 1 from sequence 0.
    let expired = eos_core::Scenario::parse(
        r#"
version = 1
name = "epoch-bump"
[[topics]]
name = "events"
[[producers]]
name = "app"
request_timeout_ms = 2000
delivery_timeout_ms = 3000
linger_ms = 0
[[producers.sends]]
at_ms = 3
topic = "events"
key = "a"
count = 3
interval_us = 1000
[[producers.sends]]
at_ms = 6000
topic = "events"
key = "b"
[[faults]]
at_ms = 4
action = "freeze"
target = "broker-0"
duration_ms = 5000
"#,
    )
    .expect("valid");
    let said = sentences_of(&expired);
    assert!(
        said.iter()
            .any(|(_, s)| s
                .starts_with("app sends record v3 with producer id 0, epoch 1, sequence 0 ")),
        "{said:#?}"
    );
    assert!(!said.iter().any(|(_, s)| s.contains("epoch 0, sequence")));
}

/// An unaligned barrier is said to overtake records only when some are queued in its
/// channel: with none, the checkpoint holds no channel state and the sentence says so.
#[test]
fn an_unaligned_barrier_overtakes_only_records_that_are_there() {
    use eos_core::sim::FlinkNote;
    let overtaking = |scenario: &eos_core::Scenario| {
        let mut sim = scenario.simulation(None);
        sim.run(RunLimit::Completion);
        let n = sim
            .trace()
            .iter()
            .flat_map(|r| r.notes.iter())
            .filter(|n| {
                matches!(
                    n,
                    Note::Flink(FlinkNote::BarrierReceived { overtook: true, .. })
                )
            })
            .count();
        (n, eos_core::report::Report::of(scenario.name(), &sim))
    };
    let quiet = eos_core::Scenario::parse(
        &eos_core::scenario::builtin::text("flink-barrier-walkthrough")
            .expect("built-in")
            .replace("[flink]\n", "[flink]\nunaligned = true\n"),
    )
    .expect("valid");
    let (n, report) = overtaking(&quiet);
    let flink = report.flink.expect("a Flink job");
    assert!(flink.unaligned);
    assert!(flink
        .checkpoints
        .iter()
        .all(|c| c.channel_state_records == 0));
    assert_eq!(n, 0);
    let (n, report) = overtaking(&builtin::get("flink-backpressure-unaligned").expect("built-in"));
    let flink = report.flink.expect("a Flink job");
    assert!(flink
        .checkpoints
        .iter()
        .any(|c| c.channel_state_records > 0));
    assert!(n > 0);
}

/// Fresh metadata that finds a partition offline says so, not that no leader moved.
#[test]
fn fresh_metadata_names_an_offline_partition() {
    let said = all_sentences("acks-all-isr-shrunk-loss");
    assert!(
        said.contains("reader gets the fresh metadata it asked for: orders-0 has no leader (offline, no in-sync replica is up)"),
        "{said}"
    );
    assert!(!said.contains(
        "reader gets the fresh metadata it asked for: the controller has moved no leader yet"
    ));
}

/// A barrier is said per input channel, naming the upstream subtask and how many channels
/// have had it: Flink aligns channels, and one input from a parallel operator is several.
#[test]
fn a_barrier_names_its_channel_and_how_many_have_had_it() {
    let two_inputs = all_sentences("flink-alignment-two-inputs");
    assert!(
        two_inputs.contains("Barrier 1 reaches count-0 from clicks-0 (1 of 2 input channels): that channel is blocked (its records wait in the buffer) until barrier 1 has arrived on the other one."),
        "{two_inputs}"
    );
    // One logical input, from a source of parallelism 2: two channels.
    let parallel = all_sentences("flink-2pc-crash-recovery");
    assert!(
        parallel.contains("Barrier 1 reaches count-0 from source-0 (1 of 2 input channels)"),
        "{parallel}"
    );
    // A task with a single channel is not given a count.
    let unaligned = all_sentences("flink-backpressure-unaligned");
    assert!(
        unaligned.contains(
            "Barrier 1 reaches map-0 from source-0, ahead of the records queued in that channel"
        ),
        "{unaligned}"
    );
    assert!(!unaligned.contains("1 of 1 input channels"));
}

/// A transaction pre-committed for a checkpoint that expired stays pending and is committed
/// when a later checkpoint completes; the probe for lingering transactions says where it
/// stops.
#[test]
fn a_later_checkpoint_commits_an_expired_ones_transaction_and_the_probe_says_where_it_stops() {
    let text = r#"
version = 1
name = "expired-2pc"
[[topics]]
name = "in"
[[topics]]
name = "out"
[[producers]]
name = "web"
linger_ms = 0
[[producers.sends]]
topic = "in"
key_prefix = "r-"
count = 20
interval_us = 50000
[flink]
checkpoint_interval_ms = 200
checkpoint_timeout_ms = 100
tolerable_failed_checkpoints = 5
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
at_ms = 390
action = "drop"
from = "source-0"
to = "jobmanager"
message = "checkpoint_ack"
"#;
    let s = eos_core::Scenario::parse(text).expect("parses");
    let said: Vec<String> = sentences_of(&s).into_iter().map(|(_, t)| t).collect();
    let said = said.join("\n");
    assert!(said.contains("Checkpoint 2 expires"), "{said}");
    assert!(
        said.contains("Checkpoint 3 is complete: sink-0 commits every transaction still pending in its state up to it, and so also flink-sink-0-2 (pre-committed for checkpoint 2, which expired)."),
        "{said}"
    );
    let restored = all_sentences("flink-2pc-crash-recovery");
    assert!(
        restored.contains("to look for a lingering transaction: the id was never used (epoch 0)"),
        "{restored}"
    );
}

/// Every sentence of a built-in's run as a log tells it (`narrate_in`: repeats shortened).
fn told(name: &str) -> Vec<String> {
    let scenario = builtin::get(name).expect("built-in");
    let mut sim = scenario.simulation(None);
    sim.run(RunLimit::Completion);
    let trace = sim.trace();
    let mut lines = Vec::new();
    for (at, rec) in trace.iter().enumerate() {
        for note in &rec.notes {
            lines.push(narrate_in(&sim.names, trace, at, note));
        }
    }
    lines
}

/// The first answer held back by the last stable offset explains why; the reader's poll
/// after it names the offsets only; the ones after them with nothing changed say so in a
/// few words; a marker refused again is told briefly.
#[test]
fn repeated_lines_of_a_held_reader_and_a_refused_marker_are_told_briefly() {
    let lines = told("txn-marker-min-isr");
    let held: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("committed-reader polls orders-0 at offset 0"))
        .collect();
    assert!(held.len() >= 3, "{held:?}");
    assert!(
        held[0].ends_with(
            ": nothing it may read yet, held at the last stable offset 0 (high watermark 1)."
        ),
        "{held:?}"
    );
    for line in &held[1..] {
        assert!(
            line.ends_with(
                " at offset 0 again: still held at the last stable offset 0 (high watermark 1)."
            ),
            "{line}"
        );
    }
    let answers: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("broker 0 ") && l.contains("committed-reader may read"))
        .collect();
    assert!(answers.len() >= 3, "{answers:?}");
    assert!(
        answers[0].contains("holds the last stable offset at 0"),
        "{answers:?}"
    );
    assert!(
        answers[1..]
            .iter()
            .all(|l| l.contains(" again has nothing ")),
        "{answers:?}"
    );
    let refusals: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("refuses the COMMIT marker"))
        .collect();
    assert!(refusals.len() >= 3, "{refusals:?}");
    assert!(
        refusals[0].contains("markers are written with acks=-1"),
        "{refusals:?}"
    );
    assert!(
        refusals[1..].iter().all(|l| l.ends_with(
            "marker on orders-0 again (NOT_ENOUGH_REPLICAS: 1 in sync, min.insync.replicas=2)."
        )),
        "{refusals:?}"
    );
}

/// A line is told briefly only after the full one it repeats: in every built-in, each
/// shortened line follows a full explanation of the same thing, and a reader's first held
/// poll follows its broker's answer.
#[test]
fn every_shortened_line_follows_its_full_explanation() {
    for name in builtin::names() {
        let name = name.as_str();
        let lines = told(name);
        for (i, line) in lines.iter().enumerate() {
            let before = &lines[..i];
            let full = if let Some((head, _)) = line.split_once(" again: still held") {
                format!("{head}: nothing it may read yet")
            } else if let Some((broker, rest)) = line.split_once(" again has nothing ") {
                let Some((reader_in, _)) = rest.split_once(" from offset ") else {
                    panic!("{name}: {line}");
                };
                let Some((reader, tp)) = reader_in.split_once(" may read in ") else {
                    panic!("{name}: {line}");
                };
                format!("{broker} has nothing {reader} may read yet in {tp}")
            } else if let Some((head, _)) = line.split_once(" again (NOT_ENOUGH_REPLICAS") {
                let Some((broker, marker)) = head.split_once(" refuses the ") else {
                    panic!("{name}: {line}");
                };
                let Some((control, _)) = marker.split_once(" marker on ") else {
                    panic!("{name}: {line}");
                };
                format!("{broker} refuses the {control} marker for producer id")
            } else if let Some((head, _)) = line.split_once(": nothing it may read yet, held at") {
                // The broker's answer before it said why.
                let Some((reader, rest)) = head.split_once(" polls ") else {
                    panic!("{name}: {line}");
                };
                let Some((tp, offset)) = rest.split_once(" at offset ") else {
                    panic!("{name}: {line}");
                };
                let answered = |l: &String| {
                    l.contains(&format!(
                        " has nothing {reader} may read yet in {tp} from offset {offset}:"
                    )) || l.contains(&format!(
                        " again has nothing {reader} may read in {tp} from offset {offset}:"
                    ))
                };
                assert!(
                    before.iter().any(answered),
                    "{name}: {line} without its broker's answer"
                );
                continue;
            } else {
                continue;
            };
            assert!(
                before.iter().any(|l| l.starts_with(&full)),
                "{name}: {line} without an earlier {full}"
            );
        }
        assert!(
            !lines
                .iter()
                .any(|l| l.contains("nothing new") && l.contains(" again")),
            "{name}"
        );
    }
}
