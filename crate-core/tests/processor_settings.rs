//! What a course author can set and check on a read-process-write processor: its output's
//! idempotence, `[[expect.deliveries]]` on its outputs, and the producer probes on its
//! output client; and the order of its start under exactly-once (initTransactions first).

use eos_core::compare::with_guarantee;
use eos_core::kafka::processor::Guarantee;
use eos_core::lesson::{grade, Answer, Lesson};
use eos_core::report::Report;
use eos_core::scenario::expect;
use eos_core::sim::Note;
use eos_core::{RunLimit, Scenario, ScenarioError};

/// Four inputs, one at-least-once processor whose first output append loses its ack.
fn text(processor_extra: &str, tail: &str) -> String {
    format!(
        r#"
version = 1
name = "rpw-settings"
[[topics]]
name = "in"
[[topics]]
name = "out"
[[producers]]
name = "source"
linger_ms = 0
[[producers.sends]]
topic = "in"
key_prefix = "k"
count = 4
interval_us = 10000
[[processors]]
name = "proc"
guarantee = "at-least-once"
input = "in"
output = "out"
poll_interval_ms = 10
request_timeout_ms = 300
{processor_extra}
[[faults]]
at_ms = 0
action = "lose_ack"
topic = "out"
[[consumers]]
name = "reader"
topic = "out"
start_ms = 5000
{tail}
"#
    )
}

fn parse(t: &str) -> Scenario {
    Scenario::parse(t).unwrap_or_else(|e| panic!("{e}\n{t}"))
}

fn report(s: &Scenario) -> Report {
    let mut sim = s.simulation(None);
    sim.run(RunLimit::Completion);
    assert!(sim.is_finished(), "the run finishes");
    Report::of(s.name(), &sim)
}

fn errors(t: &str) -> Vec<(String, String)> {
    match Scenario::parse(t) {
        Err(ScenarioError::Invalid(e)) => e.into_iter().map(|e| (e.field, e.message)).collect(),
        other => panic!("expected field errors, got {other:?}"),
    }
}

#[test]
fn an_idempotent_at_least_once_output_is_not_written_twice_by_its_retry() {
    let off = report(&parse(&text("", "")));
    let on = report(&parse(&text("enable_idempotence = true", "")));
    // The lost ack makes the output client retry: without idempotence the broker appends the
    // batch again; with it, the broker recognises the sequence.
    let p_off = off.processing.expect("processing");
    let p_on = on.processing.expect("processing");
    assert!(p_off.duplicates >= 1, "{p_off:?}");
    assert_eq!((p_on.duplicates, p_on.lost), (0, 0), "{p_on:?}");
    assert_eq!(p_on.visible_outputs, 4);
    // The source is untouched by the setting.
    assert_eq!(off.outcome.lost, 0);
}

#[test]
fn idempotence_the_guarantee_cannot_have_is_refused() {
    for (guarantee, value, says) in [
        ("exactly-once", "false", "transactional"),
        ("at-most-once", "true", "acks=all"),
    ] {
        let t = text(&format!("enable_idempotence = {value}"), "")
            .replace("\"at-least-once\"", &format!("\"{guarantee}\""));
        let e = errors(&t);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].0, "processors[0].enable_idempotence");
        assert!(e[0].1.contains(says), "{}", e[0].1);
    }
    // Compare and the fork switch the guarantee: the setting is kept only where it applies.
    let s = parse(&text("enable_idempotence = true", ""));
    for g in Guarantee::ALL {
        let switched = with_guarantee(&s, g).unwrap_or_else(|e| panic!("{}: {e}", g.name()));
        let kept = switched.file.processors[0].enable_idempotence;
        assert_eq!(kept.is_some(), g == Guarantee::AtLeastOnce, "{}", g.name());
    }
}

#[test]
fn expectations_can_name_a_processors_output() {
    // Input v0's output is v0′ (the report names it so): the retried one, sent twice.
    let pinned = text(
        "",
        "[[expect.deliveries]]\nrecord = 0\noutput = \"proc\"\nstatus = \"delivered\"\nmin_attempts = 2\n\
         [[expect.deliveries]]\nrecord = 0\nstatus = \"delivered\"\nmax_attempts = 1\n",
    );
    let s = parse(&pinned);
    let r = report(&s);
    let e = s.file.expect.as_ref().expect("expect");
    assert_eq!(expect::check(e, &r, &s), Vec::<String>::new());
    // The same expectation on the input fails, naming the record.
    let wrong = parse(&pinned.replace("max_attempts = 1", "min_attempts = 2"));
    let r = report(&wrong);
    let problems = expect::check(wrong.file.expect.as_ref().expect("expect"), &r, &wrong);
    assert_eq!(
        problems,
        vec!["expected record v0 to take at least 2 attempts, it took 1".to_string()]
    );
    // And an output that fails names the output.
    let wrong = parse(&pinned.replace("min_attempts = 2\n", "max_attempts = 1\n"));
    let r = report(&wrong);
    let problems = expect::check(wrong.file.expect.as_ref().expect("expect"), &r, &wrong);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("expected proc's output of record v0 (v0′) to take at most 1"),
        "{problems:?}"
    );
    // A stage may read an earlier stage's output, not a later one's: a loop is refused.
    let looped = format!(
        "{pinned}[[processors]]\nname = \"back\"\nguarantee = \"at-least-once\"\ninput = \"out\"\noutput = \"in\"\n"
    );
    let e = errors(&looped);
    assert_eq!(e[0].0, "processors[0].input", "{e:?}");
    assert!(
        e[0].1
            .contains("written by processor \"back\", which comes later"),
        "{}",
        e[0].1
    );
    // An unknown processor is refused with its field.
    let e = errors(&pinned.replace("output = \"proc\"", "output = \"nope\""));
    assert_eq!(e[0].0, "expect.deliveries[0].output");
    assert!(e[0].1.contains("(processors: proc)"), "{}", e[0].1);
}

const LESSON: &str = r#"
kind = "lesson"
version = 1
id = "processor-epoch"
scenario = "rpw-crash-exactly-once"
[title]
en = "The processor's epoch"
ru = "Эпоха обработчика"
[summary]
en = "A restart bumps it."
ru = "Перезапуск её повышает."
[[steps]]
until = { note = "crashed" }
text = { en = "It crashes.", ru = "Он падает." }
[[steps]]
until = "end"
text = { en = "It is back.", ru = "Он вернулся." }
[steps.question]
probe = "producer_epoch"
producer = "billing"
answer = 0
prompt = { en = "Its epoch?", ru = "Его эпоха?" }
"#;

#[test]
fn the_producer_probes_read_a_processors_output_client() {
    let lesson = Lesson::parse(LESSON).unwrap_or_else(|e| panic!("{e}"));
    let (mut sim, resolved) = lesson.build().unwrap_or_else(|e| panic!("{e}"));
    sim.run(RunLimit::Steps(resolved[1].step));
    let epoch = sim.processors[0].producer.epoch;
    assert!(epoch > 0, "the restart and the transactions bump the epoch");
    let g =
        grade(&lesson, 1, Answer::Number(i64::from(epoch)), &sim).unwrap_or_else(|e| panic!("{e}"));
    assert!(g.correct, "{g:?}");
    assert_eq!(g.actual, i64::from(epoch));
    // A name that is neither a producer nor a processor lists both kinds.
    let Err(e) = Lesson::parse(&LESSON.replace("producer = \"billing\"", "producer = \"x\""))
    else {
        panic!("an unknown producer parsed");
    };
    let message = e.to_string();
    assert!(
        message.contains("(producers: shop; processors: billing)"),
        "{message}"
    );
}

#[test]
fn a_restarted_exactly_once_processor_reads_after_its_producer_id_and_says_why_it_waits() {
    let s = eos_core::builtin::get("rpw-crash-exactly-once").expect("built-in");
    let mut sim = s.simulation(None);
    sim.run(RunLimit::Completion);
    let node = sim.processors[0].node();
    // From each (re)start: the producer id first, then the committed offsets.
    let mut has_id = false;
    let mut resumed = 0;
    for record in sim.trace() {
        for n in &record.notes {
            match n {
                Note::Restarted { node: who } if *who == node => has_id = false,
                Note::ProducerIdAssigned { producer, .. } if *producer == node => has_id = true,
                Note::ResumedFromCommitted { consumer, .. } if *consumer == node => {
                    assert!(has_id, "resumed before its producer id at #{}", record.step);
                    resumed += 1;
                }
                _ => {}
            }
        }
    }
    assert_eq!(resumed, 2, "its start and its restart");
    // A new instance that meets the old one's transaction still ending is told to wait
    // (CONCURRENT_TRANSACTIONS), and the wait is narrated.
    let s = eos_core::builtin::get("zombie-fencing").expect("built-in");
    let mut sim = s.simulation(None);
    sim.run(RunLimit::Completion);
    let lines: Vec<String> = sim
        .trace()
        .iter()
        .flat_map(|r| r.notes.iter())
        .filter(|n| matches!(n, Note::TxnRetry { .. }))
        .map(|n| eos_core::sim::narration::narrate(&sim.names, n))
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l
                .contains("CONCURRENT_TRANSACTIONS: it is still ending the previous transaction")),
        "{lines:?}"
    );
}

/// A second processor reads the first one's output (a pipeline): every output is numbered in
/// its stage's range, named as an output's output (`v0′′`), checked by `output =` through the
/// chain, and the invariants hold, a re-read input's output included.
#[test]
fn processors_chain_each_output_numbered_in_range() {
    let chain = text(
        "",
        "[[topics]]\nname = \"mails\"\n\
         [[processors]]\nname = \"mailer\"\nguarantee = \"at-least-once\"\nenable_idempotence = true\n\
         input = \"out\"\noutput = \"mails\"\npoll_interval_ms = 10\nmax_empty_polls = 40\n\
         [[consumers]]\nname = \"inbox\"\ntopic = \"mails\"\nstart_ms = 5000\n\
         [[expect.deliveries]]\nrecord = 2\noutput = \"mailer\"\nstatus = \"delivered\"\n",
    );
    let s = parse(&chain);
    let mut sim = s.simulation(None);
    sim.run(RunLimit::Completion);
    let r = Report::of(s.name(), &sim);
    assert!(
        r.invariants.iter().all(|i| i.holds),
        "{:#?}",
        r.invariants.iter().filter(|i| !i.holds).collect::<Vec<_>>()
    );
    // Four inputs; proc's outputs v4–v7; mailer's take v8–v15 (as many as all before),
    // and the report names them as the narration does: mailer's outputs of proc's.
    let delivered: Vec<&str> = r
        .deliveries
        .iter()
        .filter(|d| d.status == "delivered")
        .map(|d| d.record.as_str())
        .collect();
    for v in ["v0′", "v3′", "v0′′", "v1′′", "v2′′", "v3′′"] {
        assert!(
            delivered.contains(&v),
            "{v}: mailer writes the outputs of proc's outputs: {delivered:?}"
        );
    }
    for v in &delivered {
        let input: u32 = v
            .trim_start_matches('v')
            .trim_end_matches('′')
            .parse()
            .expect("vN′…");
        assert!(input < 4, "{v} is named by its inner number: {delivered:?}");
    }
    assert_eq!(sim.names.record(eos_core::ids::RecordId(14)), "v2′′");
    // proc's lost ack made a second copy of one output in `out`; mailer reads both copies
    // and writes that mail twice: idempotence dedupes retries, not a duplicate input.
    assert_eq!(r.outcome.duplicates, 2);
    assert_eq!(r.reads["inbox"].records, 5);
    // `processing` follows each input through both stages: four inputs, each mailed, one
    // of them twice (the review found it counted proc's outputs only).
    let p = r.processing.as_ref().expect("a processing section");
    assert_eq!(p.stages, ["proc", "mailer"]);
    assert_eq!(
        (
            p.inputs,
            p.processed,
            p.visible_outputs,
            p.duplicates,
            p.lost
        ),
        (4, 4, 5, 1, 0),
        "{p:?}"
    );
    let lanes = eos_core::compare::compare_counts(&s, None).expect("lanes");
    assert!(lanes.iter().all(|l| l.ledger.len() == 4), "{lanes:?}");
    let e = s.file.expect.as_ref().expect("expect");
    assert_eq!(expect::check(e, &r, &s), Vec::<String>::new());
}

/// Only the second stage of a chain crashes: Compare counts each input to its last stage's
/// output, so the three guarantees differ as they do for one processor (before, the counts
/// followed the first stage only, which never failed, and all three lanes read "exact").
#[test]
fn compare_counts_a_chain_end_to_end() {
    let s = parse(
        r#"
version = 1
name = "chain-compare"
[[topics]]
name = "in"
[[topics]]
name = "out"
[[topics]]
name = "mails"
[[producers]]
name = "source"
linger_ms = 0
[[producers.sends]]
topic = "in"
count = 6
interval_us = 10000
[[processors]]
name = "proc"
guarantee = "at-least-once"
input = "in"
output = "out"
poll_interval_ms = 10
[[processors]]
name = "mailer"
guarantee = "at-least-once"
input = "out"
output = "mails"
poll_interval_ms = 10
max_empty_polls = 80
[[faults]]
at_ms = 60
action = "crash"
target = "mailer"
restart_after_ms = 100
"#,
    );
    let lanes = eos_core::compare::compare(&s, None).expect("lanes");
    let rows: Vec<(&str, u64, u64, u64, u64)> = lanes
        .iter()
        .map(|l| {
            (
                l.guarantee.as_str(),
                l.processed,
                l.visible_outputs,
                l.duplicates,
                l.lost,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("at-most-once", 5, 5, 0, 1),
            ("at-least-once", 6, 7, 1, 0),
            ("exactly-once", 6, 6, 0, 0),
        ]
    );
    for l in &lanes {
        assert!(l.report.invariants.iter().all(|i| i.holds), "{l:?}");
        let p = l.report.processing.as_ref().expect("processing");
        assert_eq!(p.stages, ["proc", "mailer"]);
    }
    // The outcomes over time end where the report does.
    let over_time = eos_core::outcomes::outcomes_over_time(&s, None, 4).expect("lanes");
    let last: Vec<(u64, u64)> = over_time
        .iter()
        .filter_map(|l| l.points.last().map(|p| (p.duplicates, p.lost)))
        .collect();
    assert_eq!(last, [(0, 1), (1, 0), (0, 0)]);
}
