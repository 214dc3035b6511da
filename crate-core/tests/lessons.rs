//! Lessons: every built-in one checks; wrong answers, unreachable points, missing Russian and
//! raw HTML are refused with the field that is wrong; try-it prompts do what their text
//! says; malformed input never panics.

use eos_core::lesson::builtin::{self, BUILTIN, DEFAULT};
use eos_core::lesson::try_it::acks_of;
use eos_core::lesson::{
    builtin_lessons, grade, is_lesson, Answer, Lang, Lesson, LessonError, TryAction,
};
use eos_core::report::Report;
use eos_core::scenario::FieldError;
use eos_core::{RunLimit, Simulation};
use proptest::prelude::*;

/// A small valid lesson on an inline scenario; tests break one thing in it at a time.
const BASE: &str = r#"
kind = "lesson"
version = 1
id = "base"

[title]
en = "A lost ack"
ru = "Потерянное подтверждение"

[summary]
en = "One record, one lost ack."
ru = "Одна запись, одно потерянное подтверждение."

[scenario]
version = 1
name = "inline"

[[scenario.topics]]
name = "payments"

[[scenario.producers]]
name = "app"
enable_idempotence = false
request_timeout_ms = 2000
linger_ms = 0

[[scenario.producers.sends]]
topic = "payments"
key = "payment-0"

[[scenario.faults]]
at_ms = 0
action = "lose_ack"
topic = "payments"

[[scenario.consumers]]
name = "reader"
topic = "payments"
start_ms = 5000

[[steps]]
until = { notable = "loss" }
spotlight = "payments-0"
text = { en = "The ack is lost.", ru = "Подтверждение потерялось." }

[[steps]]
until = "end"
spotlight = "reader"
text = { en = "Two copies.", ru = "Две копии." }
[steps.question]
probe = "records_read"
consumer = "reader"
answer = 2
prompt = { en = "How many records?", ru = "Сколько записей?" }
"#;

fn invalid(text: &str) -> Vec<FieldError> {
    match Lesson::parse(text) {
        Ok(l) => panic!("expected an error, {} parsed", l.id()),
        Err(LessonError::Invalid(errors)) => errors,
        Err(other) => panic!("expected field errors, got: {other}"),
    }
}

fn check_errors(text: &str) -> Vec<FieldError> {
    let lesson = Lesson::parse(text).unwrap_or_else(|e| panic!("{e}"));
    match lesson.check() {
        Ok(c) => panic!("expected the check to fail, it passed: {c:?}"),
        Err(LessonError::Invalid(errors)) => errors,
        Err(other) => panic!("expected field errors, got: {other}"),
    }
}

fn fields(errors: &[FieldError]) -> Vec<&str> {
    errors.iter().map(|e| e.field.as_str()).collect()
}

fn run_to(sim: &mut Simulation, step: u64) {
    sim.run(RunLimit::Steps(step));
    assert_eq!(sim.steps(), step);
}

#[test]
fn the_base_lesson_checks_and_resolves_its_points() {
    let lesson = Lesson::parse(BASE).unwrap_or_else(|e| panic!("{e}"));
    let checked = lesson.check().unwrap_or_else(|e| panic!("{e}"));
    let (sim, resolved) = lesson.build().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sim.steps(), 0, "build hands back a fresh simulation");
    assert_eq!(checked.resolved, resolved);
    assert_eq!(resolved.len(), 2);
    assert!(resolved[0].step > 0 && resolved[0].step < resolved[1].step);
    // The first point is the step whose notes carry the lost ack.
    let mut traced = lesson.simulation();
    traced.run(RunLimit::Completion);
    let rec = &traced.trace()[usize::try_from(resolved[0].step - 1).expect("fits")];
    assert!(
        rec.notes.iter().any(|n| n.kind_name() == "ack_lost"),
        "{rec:?}"
    );
    assert_eq!(resolved[1].step, traced.steps(), "end is the last step");
}

#[test]
fn every_builtin_lesson_parses_checks_and_is_named_as_its_file() {
    assert_eq!(BUILTIN.first().map(|(id, _)| *id), Some(DEFAULT));
    assert_eq!(builtin_lessons().len(), BUILTIN.len());
    assert!(BUILTIN.len() >= 8);
    for (id, text) in BUILTIN {
        assert!(is_lesson(text), "{id}");
        let lesson = Lesson::parse(text).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(lesson.id(), *id);
        let checked = lesson.check().unwrap_or_else(|e| panic!("{id}: {e}"));
        let n = lesson.steps.len();
        assert!((3..=6).contains(&n), "{id} has {n} narration steps");
        assert_eq!(checked.resolved.len(), n);
        assert!(
            checked.resolved.windows(2).all(|w| w[0].step <= w[1].step),
            "{id}: points out of order"
        );
        assert!(
            lesson.steps.iter().any(|s| s.question.is_some()),
            "{id} asks no question"
        );
        assert!(!lesson.title().get(Lang::Ru).is_empty());
    }
}

#[test]
fn grading_reads_the_simulation_at_the_point() {
    let lesson = builtin::get(DEFAULT).unwrap_or_else(|e| panic!("{e}"));
    let (mut sim, resolved) = lesson.build().unwrap_or_else(|e| panic!("{e}"));
    // Step 4 (index 4) asks how many records events-0 holds once app is acknowledged.
    let i = 4;
    run_to(&mut sim, resolved[i].step);
    let right = grade(&lesson, i, Answer::Choice(0), &sim).unwrap_or_else(|e| panic!("{e}"));
    assert!(right.correct);
    assert_eq!(right.actual, 1);
    assert_eq!(right.right, Some(Answer::Choice(0)));
    let wrong = grade(&lesson, i, Answer::Choice(2), &sim).unwrap_or_else(|e| panic!("{e}"));
    assert!(!wrong.correct);
    assert!(wrong.explanation.is_some());
    // At the start nothing is stored: the state matches no choice.
    let fresh = lesson.simulation();
    let early = grade(&lesson, i, Answer::Choice(0), &fresh).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((early.correct, early.actual, early.right), (false, 0, None));
    // A number question: attempts at the thaw.
    let n = grade(&lesson, 3, Answer::Number(3), &{
        let mut s = lesson.simulation();
        run_to(&mut s, resolved[3].step);
        s
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(n.correct, "{n:?}");
    // No question, or no such step: an error, not a panic.
    assert!(grade(&lesson, 0, Answer::Number(0), &sim).is_err());
    assert!(grade(&lesson, 99, Answer::Number(0), &sim).is_err());
}

#[test]
fn a_wrong_answer_is_refused_naming_the_question() {
    let errors = check_errors(&BASE.replace("answer = 2", "answer = 1"));
    assert_eq!(fields(&errors), vec!["steps[1].question.answer"]);
    let message = &errors[0].message;
    assert!(
        message.contains("the lesson says 1") && message.contains("reads 2"),
        "{message}"
    );
    // A choice question whose right choice is not the one the simulation picks.
    let choice = BASE.replace(
        "answer = 2\n",
        "answer = 0\nchoices = [{ en = \"1\", ru = \"1\", value = 1 }, { en = \"2\", ru = \"2\", value = 2 }]\n",
    );
    let errors = check_errors(&choice);
    assert_eq!(fields(&errors), vec!["steps[1].question.answer"]);
    assert!(
        errors[0].message.contains("which is choice 1"),
        "{errors:?}"
    );
    let fixed = choice.replace("answer = 0\n", "answer = 1\n");
    let lesson = Lesson::parse(&fixed).unwrap_or_else(|e| panic!("{e}"));
    lesson.check().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn an_unreachable_point_is_refused() {
    // No transaction ever commits in this scenario.
    let errors = check_errors(&BASE.replace(
        "until = { notable = \"loss\" }",
        "until = { notable = \"commit\" }",
    ));
    assert_eq!(fields(&errors), vec!["steps[0].until"]);
    assert!(
        errors[0]
            .message
            .contains("is never reached: no step of the run has one"),
        "{errors:?}"
    );
    // A step number past the end says where the run ends and what to write instead.
    let errors = check_errors(&BASE.replace("until = \"end\"", "until = { step = 100000 }"));
    assert_eq!(fields(&errors), vec!["steps[1].until"]);
    assert!(
        errors[0]
            .message
            .starts_with("step 100000 is never reached: the run ends at step ")
            && errors[0].message.contains("or until = \"end\""),
        "{errors:?}"
    );
    // Points must come in order: an absolute step before the previous point.
    let errors = check_errors(&BASE.replace("until = \"end\"", "until = { step = 1 }"));
    assert_eq!(fields(&errors), vec!["steps[1].until"]);
    assert!(
        errors[0].message.contains("before the previous point"),
        "{errors:?}"
    );
    // A time after the run ends.
    let errors = check_errors(&BASE.replace("until = \"end\"", "until = { time_ms = 900000 }"));
    assert!(
        errors[0].message.contains("after the run ends"),
        "{errors:?}"
    );
    // The lesson's own scenario's expectations are checked on its whole run.
    let errors = check_errors(&format!("{BASE}\n[scenario.expect]\nduplicates = 99\n"));
    assert!(
        fields(&errors) == vec!["scenario.expect"]
            && errors[0]
                .message
                .starts_with("expected duplicates = 99, got"),
        "{errors:?}"
    );
    // A time after the last step, though stale timers (transaction timeouts) are still
    // queued beyond it: the run has ended all the same.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../lessons/commit-and-abort.toml"
    ))
    .expect("a built-in lesson")
    .replace("until = \"end\"", "until = { time_ms = 2000 }");
    let errors = check_errors(&text);
    assert!(
        errors.len() == 1 && errors[0].message.contains("after the run ends (at 1308 ms"),
        "{errors:?}"
    );
    let built = Lesson::parse(&BASE.replace("until = \"end\"", "until = { step = 1 }"))
        .unwrap_or_else(|e| panic!("{e}"))
        .build();
    assert!(built.is_err());
}

/// A time point whose run has, before it, only events that make no step (a stale request
/// timeout at 4.1 s, before the reader starts at 5 s) resolves at the last step before it;
/// stepping to find out used to run past it and refuse the point.
#[test]
fn a_time_point_before_only_stale_timers_resolves_at_the_step_before_it() {
    let text = BASE.replace(
        "[[steps]]\nuntil = \"end\"",
        "[[steps]]\nuntil = { time_ms = 4500 }\ntext = { en = \"Quiet.\", ru = \"Тихо.\" }\n\n[[steps]]\nuntil = \"end\"",
    );
    assert_ne!(text, BASE);
    let lesson = Lesson::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let checked = lesson.check().unwrap_or_else(|e| panic!("{e}"));
    let at = &checked.resolved[1];
    let mut traced = lesson.simulation();
    traced.run(RunLimit::Completion);
    let last_before = traced
        .trace()
        .iter()
        .rfind(|r| r.time <= 4_500_000)
        .expect("steps before 4.5 s");
    assert_eq!(at.step, last_before.step);
    assert!(checked.resolved[2].step > at.step);
}

#[test]
fn missing_russian_text_is_refused() {
    let errors = invalid(&BASE.replace("ru = \"Потерянное подтверждение\"\n", ""));
    assert_eq!(fields(&errors), vec!["title.ru"]);
    assert!(errors[0].message.contains("Russian text is required"));
    let errors = invalid(&BASE.replace(
        "text = { en = \"Two copies.\", ru = \"Две копии.\" }",
        "text = { en = \"Two copies.\", ru = \"Two copies.\" }",
    ));
    assert_eq!(fields(&errors), vec!["steps[1].text.ru"]);
    let errors = invalid(&BASE.replace(
        "prompt = { en = \"How many records?\", ru = \"Сколько записей?\" }",
        "prompt = { en = \"How many records?\" }",
    ));
    assert_eq!(fields(&errors), vec!["steps[1].question.prompt.ru"]);
}

#[test]
fn raw_html_is_refused() {
    let errors = invalid(&BASE.replace(
        "The ack is lost.",
        "The ack is <script>alert(1)</script> lost.",
    ));
    assert_eq!(fields(&errors), vec!["steps[0].text.en"]);
    assert!(errors[0].message.contains("raw HTML"), "{errors:?}");
    assert!(errors[0].message.contains("<script"), "{errors:?}");
    let errors = invalid(&BASE.replace("Две копии.", "Две <b>копии</b>."));
    assert_eq!(fields(&errors), vec!["steps[1].text.ru"]);
    // Comparisons and autolinks are Markdown, not HTML.
    Lesson::parse(&BASE.replace("Two copies.", "x < 3 and <https://kafka.apache.org>"))
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn names_probes_and_actions_are_checked_with_their_paths() {
    let errors = invalid(
        &BASE
            .replace("spotlight = \"reader\"", "spotlight = \"broker-7\"")
            .replace("consumer = \"reader\"", "consumer = \"nobody\"")
            .replace(
                "until = { notable = \"loss\" }",
                "until = { notable = \"lost\" }",
            ),
    );
    assert_eq!(
        fields(&errors),
        vec![
            "steps[0].until.notable",
            "steps[1].spotlight",
            "steps[1].question.consumer"
        ]
    );
    assert!(!errors[1].message.contains("did you mean"), "{errors:?}");
    // A name written as a fault's target may be ("broker 0"), or in another case: the one meant.
    for (written, meant) in [("broker 0", "broker-0"), ("Reader", "reader")] {
        let errors = invalid(&BASE.replace(
            "spotlight = \"reader\"",
            &format!("spotlight = \"{written}\""),
        ));
        assert!(
            errors[0].message.starts_with(&format!(
                "\"{written}\" is not in the simulation; did you mean \"{meant}\"? (allowed: "
            )),
            "{errors:?}"
        );
    }
    let errors = invalid(&BASE.replace("probe = \"records_read\"", "probe = \"records\""));
    assert_eq!(fields(&errors), vec!["steps[1].question.probe"]);
    let errors = invalid(&BASE.replace(
        "probe = \"records_read\"\nconsumer = \"reader\"",
        "probe = \"duplicates\"\nconsumer = \"reader\"",
    ));
    assert_eq!(fields(&errors), vec!["steps[1].question.consumer"]);
    // A probe the scenario cannot answer is refused: a processor's, or a Flink job's.
    for probe in ["visible_outputs", "checkpoints_completed"] {
        let errors = invalid(&BASE.replace(
            "probe = \"records_read\"\nconsumer = \"reader\"",
            &format!("probe = \"{probe}\""),
        ));
        assert_eq!(fields(&errors), vec!["steps[1].question.probe"], "{probe}");
    }
    let with_try = |action: &str| {
        format!(
            "{BASE}[[steps.try_it]]\n{action}\ntext = {{ en = \"Try.\", ru = \"Попробуйте.\" }}\n"
        )
    };
    let errors = invalid(&with_try(
        "inject = { at_ms = 0, action = \"freeze\", target = \"nobody\", duration_ms = 5 }",
    ));
    assert_eq!(fields(&errors), vec!["steps[1].try_it[0].inject.target"]);
    let errors = invalid(&with_try("flip = \"replication\""));
    assert_eq!(fields(&errors), vec!["steps[1].try_it[0].flip"]);
    // acks: all (the default) ↔ 1, and back.
    let lesson = Lesson::parse(&with_try("flip = \"acks\"")).unwrap_or_else(|e| panic!("{e}"));
    let flip = &lesson.steps[1].try_it[0];
    let once = flip
        .apply(lesson.scenario())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(acks_of(&once.file.producers[0]), "1");
    let twice = flip.apply(&once).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(acks_of(&twice.file.producers[0]), "all");
    // An idempotent producer needs acks=all: the flip is refused, as Kafka refuses the config.
    let idempotent = with_try("flip = \"acks\"")
        .replace("enable_idempotence = false", "enable_idempotence = true");
    let errors = invalid(&idempotent);
    assert!(
        fields(&errors)
            .iter()
            .all(|f| f.starts_with("steps[1].try_it[0]")),
        "{errors:?}"
    );
    let errors = invalid(&with_try("guarantee = \"exactly-once\""));
    assert_eq!(fields(&errors), vec!["steps[1].try_it[0]"]);
    let lesson =
        Lesson::parse(&with_try("flip = \"idempotence\"")).unwrap_or_else(|e| panic!("{e}"));
    let tries = &lesson.steps[1].try_it;
    assert_eq!(tries.len(), 1);
    let flipped = tries[0]
        .apply(lesson.scenario())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(flipped.file.producers[0].enable_idempotence, Some(true));
    let errors = invalid(&BASE.replace("scenario]\nversion = 1", "scenario]\nversion = 2"));
    assert_eq!(fields(&errors), vec!["scenario.version"]);
}

#[test]
fn a_lessons_seed_is_its_scenarios() {
    let seeded = BASE.replacen("id = \"base\"", "id = \"base\"\nseed = 9", 1);
    let lesson = Lesson::parse(&seeded).unwrap_or_else(|e| panic!("{e}"));
    // The page loads `scenario()` as it is: it must run under the lesson's seed.
    assert_eq!((lesson.seed(), lesson.scenario().seed()), (9, 9));
    assert_eq!(lesson.scenario().simulation(None).seed, 9);
    let unseeded = Lesson::parse(BASE).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(unseeded.seed(), unseeded.scenario().seed());
}

#[test]
fn a_builtin_scenario_can_be_named_and_must_exist() {
    let head = BASE.split("[scenario]").next().unwrap_or_default();
    let named = head.replace(
        "id = \"base\"",
        "id = \"base\"\nscenario = \"lost-ack-idempotence-off\"",
    ) + &BASE[BASE.find("[[steps]]").unwrap_or(0)..];
    let lesson = Lesson::parse(&named).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lesson.scenario().name(), "lost-ack-idempotence-off");
    let errors = invalid(&named.replace("lost-ack-idempotence-off", "no-such-scenario"));
    assert_eq!(fields(&errors), vec!["scenario"]);
    let message = &errors[0].message;
    assert!(
        message.starts_with("\"no-such-scenario\" is not a built-in scenario (built-ins: ")
            && message.contains("lost-ack-idempotence-off"),
        "{message}"
    );
}

/// Runs the changed scenario to the end.
fn report_after(lesson: &Lesson, step: usize, try_index: usize) -> Report {
    let t = &lesson.steps[step].try_it[try_index];
    let scenario = t.apply(lesson.scenario()).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = scenario.simulation_without_trace(Some(lesson.seed()));
    sim.run(RunLimit::Completion);
    Report::of(scenario.name(), &sim)
}

fn last_step_with_try(lesson: &Lesson) -> usize {
    lesson
        .steps
        .iter()
        .rposition(|s| !s.try_it.is_empty())
        .unwrap_or_else(|| panic!("{} has no try-it", lesson.id()))
}

#[test]
fn try_it_prompts_do_what_their_text_says() {
    let get = |id: &str| builtin::get(id).unwrap_or_else(|e| panic!("{id}: {e}"));

    // Idempotence off under the freeze: every attempt is a stored copy.
    let l = get("idempotent-producer");
    let r = report_after(&l, last_step_with_try(&l), 0);
    assert_eq!(r.deliveries[0].copies.len(), 3, "{:?}", r.deliveries[0]);

    // Lost ack with idempotence on: the original offsets 0, 1 and 2, no duplicate.
    let l = get("lost-ack");
    let r = report_after(&l, last_step_with_try(&l), 0);
    let offsets: Vec<Option<u64>> = r.deliveries.iter().map(|d| d.offset).collect();
    assert_eq!(r.outcome.duplicates, 0);
    assert_eq!(offsets, vec![Some(0), Some(1), Some(2)]);

    // Batches in flight without idempotence: v2 and v3 go in at once, the retried v1 after them.
    let l = get("five-batch-window");
    let r = report_after(&l, last_step_with_try(&l), 0);
    assert_eq!(r.deliveries[2].offset, Some(1));
    assert_eq!(r.deliveries[3].offset, Some(2));
    assert_eq!(r.deliveries[1].offset, Some(3));
    assert!(r.anomalies.iter().any(|a| a.kind == "nonmonotonic-send"));

    // Isolation swapped: the readers swap their counts.
    let l = get("commit-and-abort");
    let r = report_after(&l, last_step_with_try(&l), 0);
    assert_eq!(r.reads["committed-reader"].records, 3);
    assert_eq!(r.reads["uncommitted-reader"].records, 2);

    // A restart aborts the open transaction long before the timeout.
    let l = get("last-stable-offset");
    let r = report_after(&l, last_step_with_try(&l), 0);
    assert_eq!(r.reads["early-reader"].records, 1);
    assert!(matches!(
        l.steps[last_step_with_try(&l)].try_it[0].action,
        TryAction::Inject(_)
    ));

    // The appending sink crashed after the restart, before the next checkpoint: a second
    // replay, 43 appended records instead of 30, the upsert store as without a crash.
    let l = get("where-exactly-once-ends");
    let r = report_after(&l, last_step_with_try(&l), 0);
    let f = r.flink.as_ref().expect("a Flink job");
    let appended: u32 = f.ledger.values().map(|x| x.appended).sum();
    assert_eq!((f.failovers, appended), (2, 43), "{f:?}");
    let plain = eos_core::flink::report::failure_free_output(l.scenario(), Some(l.seed()))
        .expect("a Flink job");
    assert_eq!(f.output.upserts, plain.upserts);
    assert_eq!(f.output.upserts.len(), 20);

    // Unaligned under backpressure: the five periodic checkpoints complete in about 30 ms;
    // the savepoint that stops the job, aligned as every savepoint is, expires at the 1 s
    // timeout behind the full buffers, and the second one completes once they have drained.
    let l = get("flink-unaligned");
    let r = report_after(&l, last_step_with_try(&l), 0);
    let f = r.flink.as_ref().expect("a Flink job");
    let lines: Vec<(&str, Option<u64>)> = f
        .checkpoints
        .iter()
        .map(|c| (c.outcome.as_str(), c.duration_ms))
        .collect();
    assert_eq!(lines.len(), 7, "{lines:?}");
    assert!(
        lines[..5]
            .iter()
            .all(|(o, d)| *o == "completed" && d.is_some_and(|ms| (25..=35).contains(&ms))),
        "{lines:?}"
    );
    assert_eq!(lines[5], ("expired", Some(1_000)), "{lines:?}");
    assert!(
        lines[6].0 == "completed" && lines[6].1.is_some_and(|ms| ms < 1_000),
        "{lines:?}"
    );

    // The three guarantees under one crash.
    for id in ["delivery-guarantees", "read-process-write"] {
        let l = get(id);
        let s = last_step_with_try(&l);
        for (i, t) in l.steps[s].try_it.iter().enumerate() {
            let TryAction::Guarantee(g) = t.action else {
                panic!("{id}: expected a guarantee switch");
            };
            let p = report_after(&l, s, i).processing.unwrap_or_default();
            match g.name() {
                "at-most-once" => assert_eq!((p.lost, p.duplicates), (1, 0), "{id}"),
                "at-least-once" => assert_eq!((p.lost, p.duplicates), (0, 1), "{id}"),
                _ => assert_eq!(
                    (p.lost, p.duplicates, p.visible_outputs),
                    (0, 0, 12),
                    "{id}"
                ),
            }
        }
    }
}

#[test]
fn lessons_and_scenarios_are_told_apart() {
    assert!(is_lesson(BASE));
    assert!(!is_lesson(eos_core::builtin::BUILTIN[0].1));
    assert!(is_lesson("kind='lesson'\n= broken"));
    assert!(matches!(
        Lesson::parse("kind = \"lesson\"\n= broken"),
        Err(LessonError::Parse { .. })
    ));
}

#[test]
fn a_lesson_over_the_size_limit_is_refused() {
    let big = format!(
        "{BASE}\n#{}",
        "x".repeat(eos_core::lesson::limits::MAX_FILE_BYTES)
    );
    assert!(matches!(
        Lesson::parse(&big),
        Err(LessonError::TooLarge { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,400}") {
        let _ = Lesson::parse(&text);
        let _ = is_lesson(&text);
    }

    #[test]
    fn a_damaged_lesson_never_panics(cut in 0usize..BASE.len(), junk in ".{0,40}") {
        let mut text = BASE.to_string();
        let at = (0..=cut).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        text.insert_str(at, &junk);
        if let Ok(lesson) = Lesson::parse(&text) {
            let _ = lesson.check();
        }
    }
}

/// The paused-leader lesson's step at `step = 41` is the zombie's moment: broker 0, thawed and
/// not yet caught up, has appended every waiting retry (a change of the model that moves it
/// must move the lesson too); the next step is its catch-up.
#[test]
fn the_zombie_step_of_the_paused_leader_lesson_shows_the_zombie() {
    let lesson = builtin::get("acks-and-a-paused-leader").expect("built-in");
    let (_, resolved) = lesson.build().unwrap_or_else(|e| panic!("{e}"));
    let at = resolved[3].step;
    assert_eq!(at, 41);
    let mut sim = lesson.simulation();
    run_to(&mut sim, at);
    let tp = eos_core::ids::Tp {
        topic: 0,
        partition: 0,
    };
    let deposed = &sim.brokers[0];
    assert!(eos_core::sim::observe::deposed(deposed, tp));
    let log = deposed.replicas.get(&tp).expect("a replica");
    assert_eq!(log.log.log_end_offset(), 6, "v0 and five retries of v1");
    assert!(sim.step() == eos_core::sim::simulation::StepOutcome::Stepped);
    let caught_up = sim.trace().last().expect("a step");
    assert!(caught_up
        .notes
        .iter()
        .any(|n| n.kind_name() == "metadata_caught_up"));
    assert_eq!(resolved[4].step, at + 1);
}

#[test]
fn a_misplaced_or_missing_scenario_line_gets_its_fix() {
    let parse_error = |text: &str| match Lesson::parse(text) {
        Err(LessonError::Parse { message }) => message,
        other => panic!("expected a TOML error, got {other:?}"),
    };
    // Below [summary], TOML reads the line as a field of that table.
    let late = r#"
kind = "lesson"
version = 1
id = "late"

[title]
en = "Late"
ru = "Поздно"

[summary]
en = "Late."
ru = "Поздно."
seed = 3
"#;
    let message = parse_error(late);
    assert!(message.contains("unknown field `seed`"), "{message}");
    assert!(message.ends_with("hint: `seed = …` is a top-level key: in TOML a key below a `[table]` header belongs to that table, so write it above the first header"), "{message}");
    // No scenario at all: the three ways to name one.
    let message = parse_error(&late.replace("seed = 3\n", ""));
    assert!(message.contains("missing field `scenario`"), "{message}");
    assert!(
        message.contains("hint: name the lesson's scenario")
            && message.contains("inline `[scenario]` table"),
        "{message}"
    );
    // Any other TOML error (here an unknown top-level key, the first error in the file) is
    // left as the reader wrote it.
    let message = parse_error(&late.replace("id = \"late\"", "id = \"late\"\nbogus = 1"));
    assert!(message.contains("unknown field `bogus`"), "{message}");
    assert!(!message.contains("hint:"), "{message}");
}
