//! What the import worker (`src/bin/eos-codec.rs`) does, as pure functions: read a scenario
//! file (TOML or JSON) with the core's own parser and validation, pack it for a link
//! (deflate + base64url) and unpack it again, and export a scenario as TOML or a run as
//! JSON. The TOML parser and the JSON writer live only in the worker, which the page loads
//! the first time it needs one of these; the page itself decodes JSON only.
//!
//! Requests and answers are plain text: a command on the first line, its argument after.
//! An answer starts with `ok` or `err`; an error answer lists one problem a line.

use crate::permalink::{self, Link, Source};
use eos_core::lesson::schema::ScenarioSource;
use eos_core::lesson::LessonError;
use eos_core::scenario::limits::MAX_FILE_BYTES;
use eos_core::{Lesson, RunLimit, Scenario, ScenarioError};

/// Reads a scenario file: JSON when it starts with `{`, TOML otherwise.
pub fn read(text: &str) -> Result<Scenario, Vec<String>> {
    if text.len() > MAX_FILE_BYTES {
        return Err(vec![format!(
            "the file is {} bytes; the limit is {MAX_FILE_BYTES}",
            text.len()
        )]);
    }
    let result = if text.trim_start().starts_with('{') {
        serde_json::from_str(text)
            .map_err(|e| ScenarioError::Parse {
                message: format!("not a scenario in JSON: {e}"),
            })
            .and_then(Scenario::from_file)
    } else {
        Scenario::parse(text)
    };
    result.map_err(problems)
}

/// One line per problem: for an invalid scenario, each field with what is wrong with it.
pub fn problems(error: ScenarioError) -> Vec<String> {
    match error {
        ScenarioError::Invalid(fields) => fields.iter().map(|f| f.to_string()).collect(),
        // One problem, whose lines (a TOML error's excerpt and caret) stay together.
        other => vec![other.to_string().trim().to_string()],
    }
}

/// Reads a lesson file's TOML, without validating it: the page validates and checks it
/// (`share::lesson_from_worker`), so that the worker carries no lesson rules. The answer is
/// `lesson\npayload\nscenario payload\nwire`: the text packed for the lesson's link; an
/// inline scenario's JSON packed for a scenario link (empty for a lesson on a built-in, or
/// an inline scenario that does not validate, whose errors the page lists); base64url of
/// `wire` for the page.
pub fn read_lesson(text: &str) -> Result<String, Vec<String>> {
    let file = Lesson::read_file(text).map_err(lesson_problems)?;
    let scenario = match &file.scenario {
        ScenarioSource::Inline(inline) => {
            let mut inline = (**inline).clone();
            if let Some(seed) = file.seed {
                inline.seed = seed;
            }
            Scenario::from_file(inline).map_or(String::new(), |s| pack(&to_json(&s)))
        }
        ScenarioSource::Builtin(_) => String::new(),
    };
    let wire = crate::wire::to_bytes(&file).map_err(|e| vec![e.to_string()])?;
    Ok(format!(
        "lesson\n{}\n{scenario}\n{}",
        pack(text),
        base64url_encode(&wire)
    ))
}

/// One line per problem: for an invalid lesson, each field with what is wrong with it.
pub fn lesson_problems(error: LessonError) -> Vec<String> {
    match error {
        LessonError::Invalid(fields) => fields.iter().map(|f| f.to_string()).collect(),
        other => vec![other.to_string().trim().to_string()],
    }
}

/// A scenario's file as the page reads it, and as a link carries it.
pub fn to_json(scenario: &Scenario) -> String {
    serde_json::to_string(&scenario.file).unwrap_or_default()
}

pub fn pack(json: &str) -> String {
    base64url_encode(&miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9))
}

pub fn unpack(payload: &str) -> Result<String, String> {
    unpack_what(payload, "scenario")
}

/// Unpacks a link's payload, naming what it carries (`scenario` or `lesson`) if it cannot.
fn unpack_what(payload: &str, what: &str) -> Result<String, String> {
    let bytes = base64url_decode(payload)
        .ok_or_else(|| format!("the {what} in the link is not base64url"))?;
    let text = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, MAX_FILE_BYTES).map_err(
        |_| format!("the {what} in the link is damaged or inflates past {MAX_FILE_BYTES} bytes"),
    )?;
    String::from_utf8(text).map_err(|_| format!("the {what} in the link is not UTF-8"))
}

/// The scenario a link describes, with its seed and the faults added by click.
pub fn scenario_of(link: &Link) -> Result<Scenario, Vec<String>> {
    let base = match &link.source {
        Source::Builtin(name) => eos_core::builtin::get(name).map_err(problems)?,
        Source::Custom(payload) => read(&unpack(payload).map_err(|e| vec![e])?)?,
    };
    permalink::apply(&base, link.seed, link.guarantee, &link.faults).map_err(problems)
}

/// The run a link describes, at its step, as JSON: the step records, the trace hash and the
/// report.
pub fn trace_json(link: &Link) -> Result<String, Vec<String>> {
    let scenario = scenario_of(link)?;
    let mut sim = scenario.simulation(None);
    sim.run(RunLimit::Steps(link.step));
    let mut report = eos_core::report::Report::of(scenario.name(), &sim);
    // Stopped at its last step, as the page said "finished": complete.
    report.completed = sim.nothing_left();
    let value = serde_json::json!({
        "scenario": scenario.name(),
        "seed": sim.seed,
        "step": sim.steps(),
        "trace_hash": format!("{:016x}", sim.trace_hash()),
        "records": sim.trace(),
        "report": report,
    });
    serde_json::to_string_pretty(&value).map_err(|e| vec![e.to_string()])
}

pub fn scenario_toml(link: &Link) -> Result<String, Vec<String>> {
    let scenario = scenario_of(link)?;
    Ok(format!(
        "# Exported from the Exactly-Once Playground: \"{}\", with the faults added on the page.\n{}",
        scenario.name(),
        scenario.to_toml()
    ))
}

/// Answers one request.
pub fn handle(request: &str) -> String {
    let (command, argument) = request.split_once('\n').unwrap_or((request, ""));
    let link = || permalink::parse_query(argument).map_err(|e| vec![e.to_string()]);
    let answer = match command {
        "import" if eos_core::lesson::is_lesson(argument) => read_lesson(argument),
        "import" => read(argument).map(|s| imported(&s)),
        "unpack-lesson" => unpack_what(argument, "lesson")
            .map_err(|e| vec![e])
            .and_then(|text| read_lesson(&text)),
        "unpack" => unpack(argument)
            .map_err(|e| vec![e])
            .and_then(|json| read(&json))
            .map(|s| imported(&s)),
        "toml" => link().and_then(|l| scenario_toml(&l)),
        "trace" => link().and_then(|l| trace_json(&l)),
        _ => Err(vec![format!("unknown request \"{command}\"")]),
    };
    match answer {
        Ok(body) => format!("ok\n{body}"),
        // One problem a line; a problem's own line breaks (a TOML error's excerpt) travel as
        // U+001F, so that it stays one problem (`share::parse_answer` turns them back).
        Err(problems) => {
            let lines: Vec<String> = problems
                .iter()
                .map(|p| p.trim_end().replace('\n', "\u{1f}"))
                .collect();
            format!("err\n{}", lines.join("\n"))
        }
    }
}

/// `payload\nwire` for a scenario read from a file or a link: what a link carries (its
/// JSON, packed) and what the page decodes (base64url of `wire`).
fn imported(scenario: &Scenario) -> String {
    let wire = crate::wire::to_bytes(&scenario.file).unwrap_or_default();
    format!("{}\n{}", pack(&to_json(scenario)), base64url_encode(&wire))
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// RFC 4648 base64url, without padding.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            let v = ALPHABET.iter().position(|a| a == c)? as u32;
            n |= v << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

// Native only: proptest does not build for wasm32.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ok_body(answer: &str) -> &str {
        answer
            .strip_prefix("ok\n")
            .unwrap_or_else(|| panic!("{answer}"))
    }

    #[test]
    fn base64url_round_trips_and_refuses_garbage() {
        for bytes in [&b""[..], b"f", b"fo", b"foo", b"foob", b"\xff\xfe\x00"] {
            assert_eq!(
                base64url_decode(&base64url_encode(bytes)).as_deref(),
                Some(bytes)
            );
        }
        assert_eq!(base64url_encode(b"foob"), "Zm9vYg");
        assert_eq!(base64url_decode("Zm9vYg=="), Some(b"foob".to_vec()));
        assert_eq!(base64url_decode("Z"), None);
        assert_eq!(base64url_decode("Zm9*"), None);
    }

    #[test]
    fn a_builtin_exported_as_toml_imports_again_with_the_same_run() {
        let mut link = Link::builtin("seed-frozen-broker");
        link.faults.push(eos_core::scenario::schema::FaultSpec {
            at_ms: 3,
            ..crate::state::process_fault("broker-0", "crash", 0)
        });
        let toml = scenario_toml(&link).expect("exports");
        let again = read(&toml).expect("re-imports");
        let original = scenario_of(&link).expect("builds");
        assert_eq!(again.file, original.file);
        let answer = handle(&format!("import\n{toml}"));
        let (payload, wire) = ok_body(&answer).split_once('\n').expect("two parts");
        let from_wire = crate::builtins::file_from_wire(wire).expect("the page decodes it");
        assert_eq!(from_wire, original.file);
        let from_json = read(&unpack(payload).expect("unpacks")).expect("the JSON reads too");
        assert_eq!(from_json.file, original.file);
        let hash = |s: &Scenario| {
            let mut sim = s.simulation(None);
            sim.run(RunLimit::Completion);
            sim.trace_hash()
        };
        assert_eq!(hash(&from_json), hash(&original));
    }

    #[test]
    fn a_packed_scenario_is_small() {
        let s = eos_core::builtin::get("rpw-crash-exactly-once").expect("built-in");
        let payload = pack(&to_json(&s));
        assert!(payload.len() < 2_000, "{} characters", payload.len());
        assert!(payload.len() < permalink::MAX_PAYLOAD_CHARS);
    }

    #[test]
    fn a_broken_file_lists_each_field_error() {
        let text = eos_core::builtin::text("seed-frozen-broker")
            .expect("built-in")
            .replace("brokers = 1", "brokers = 9");
        let answer = handle(&format!("import\n{text}"));
        assert!(answer.starts_with("err\n"), "{answer}");
        assert!(answer.contains("cluster.brokers"), "{answer}");
        let not_toml = handle("import\nversion = = 1");
        assert!(not_toml.starts_with("err\n"), "{not_toml}");
        // A TOML error's excerpt stays one problem, its lines intact.
        match crate::share::parse_answer(&not_toml) {
            crate::share::Answer::Err(problems) => {
                assert_eq!(problems.len(), 1, "{problems:?}");
                assert!(problems[0].contains("\n1 | version = = 1"), "{problems:?}");
            }
            other => panic!("{other:?}"),
        }
        let bad_json = handle("import\n{\"version\": 1, \"nme\": \"x\"}");
        assert!(bad_json.contains("unknown field"), "{bad_json}");
    }

    /// A course author's lesson on an inline scenario, with its own seed.
    const LESSON: &str = include_str!("../../docs/examples/my-lost-ack.toml");

    #[test]
    fn a_lesson_file_imports_as_a_lesson_and_its_link_reopens_it() {
        let parsed = Lesson::parse(LESSON).unwrap_or_else(|e| panic!("{e}"));
        let answer = handle(&format!("import\n{LESSON}"));
        let crate::share::ReadLesson {
            lesson,
            payload,
            scenario_payload,
        } = crate::share::lesson_from_worker(ok_body(&answer)).expect("the page reads it");
        assert_eq!(lesson, parsed);
        // The lesson's seed is its scenario's: what the page loads runs under it.
        assert_eq!((lesson.seed(), lesson.scenario().seed()), (7, 7));
        // Its link carries it whole: the worker reads the payload back to the same lesson.
        assert!(payload.len() < permalink::MAX_LESSON_PAYLOAD_CHARS);
        let again = handle(&format!("unpack-lesson\n{payload}"));
        let back = crate::share::lesson_from_worker(ok_body(&again)).expect("the link reopens it");
        assert_eq!(back.lesson, parsed);
        // Its inline scenario, packed for a scenario link, opens as the same run.
        let packed = scenario_payload.expect("an inline scenario is packed");
        let scenario = read(&unpack(&packed).expect("unpacks")).expect("reads");
        assert_eq!(scenario.file, lesson.scenario().file);
        // Every built-in lesson, prose in two languages, fits in a link; under its own id, a
        // copy opens (on a built-in scenario: no scenario payload).
        for (id, text) in eos_core::lesson::builtin::BUILTIN {
            let copy = text.replacen(&format!("id = \"{id}\""), "id = \"my-copy\"", 1);
            let answer = handle(&format!("import\n{copy}"));
            let read = crate::share::lesson_from_worker(ok_body(&answer))
                .unwrap_or_else(|e| panic!("{id}: {e:?}"));
            assert_eq!(read.scenario_payload, None, "{id}");
            assert!(
                read.payload.len() * 2 < permalink::MAX_LESSON_PAYLOAD_CHARS,
                "{id}: {} characters",
                read.payload.len()
            );
        }
    }

    #[test]
    fn a_lesson_the_page_cannot_show_is_refused_saying_why() {
        // The worker reads the file; the page validates and checks it.
        let err = |text: &str| {
            let opened = match crate::share::parse_answer(&handle(&format!("import\n{text}"))) {
                crate::share::Answer::Ok(body) => crate::share::lesson_from_worker(&body),
                crate::share::Answer::Err(problems) => Err(problems),
            };
            opened
                .map(|r| r.lesson.id().to_string())
                .expect_err("refused")
                .join("\n")
        };
        // A built-in lesson's id: its progress and links would mix with the built-in's.
        let builtin =
            eos_core::lesson::builtin::text(eos_core::lesson::builtin::DEFAULT).expect("built-in");
        let message = err(builtin);
        assert!(message.contains("is a built-in lesson's id"), "{message}");
        let not_toml = err("kind = \"lesson\"\nversion = = 1");
        assert!(not_toml.contains("2 | version = = 1"), "{not_toml}");
        // A wrong answer, as `eos-sim check` refuses it.
        let wrong = err(&LESSON.replace("answer = 2", "answer = 3"));
        assert!(wrong.contains("steps[1].question.answer"), "{wrong}");
        // A scenario named by path: the page cannot open a second file.
        let table = LESSON.find("[scenario]").zip(LESSON.find("[[steps]]"));
        let (from, to) = table.expect("the lesson has both");
        let by_path = LESSON.replace(&LESSON[from..to], "").replacen(
            "id = \"my-lost-ack\"",
            "id = \"my-lost-ack\"\nscenario = \"mine.toml\"",
            1,
        );
        let message = err(&by_path);
        assert!(message.contains("cannot open a second file"), "{message}");
        // Damaged links are refused, never misread.
        assert!(handle("unpack-lesson\nAAAA").starts_with("err\n"));
        assert!(crate::share::lesson_from_worker("lesson\nA\n\n!!!").is_err());
        assert!(crate::share::lesson_from_worker("lesson\nA").is_err());
    }

    #[test]
    fn a_trace_exported_at_a_finished_run_s_last_step_says_it_completed() {
        let mut sim = eos_core::builtin::get("seed-frozen-broker")
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Completion);
        let mut link = Link::builtin("seed-frozen-broker");
        for (step, completed) in [(sim.steps(), true), (sim.steps() - 1, false), (12, false)] {
            link.step = step;
            let json = trace_json(&link).expect("exports");
            let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
            assert_eq!(value["report"]["completed"], completed, "at step {step}");
        }
    }

    #[test]
    fn the_trace_export_carries_the_pages_hash() {
        let mut link = Link::builtin("seed-frozen-broker");
        link.step = 12;
        let json = trace_json(&link).expect("exports");
        let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        let mut sim = eos_core::builtin::get("seed-frozen-broker")
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Steps(12));
        assert_eq!(value["trace_hash"], format!("{:016x}", sim.trace_hash()));
        assert_eq!(value["records"].as_array().map(Vec::len), Some(12));
        assert!(value["report"].is_object());
    }

    #[test]
    fn hostile_payloads_are_refused() {
        assert!(unpack("!!!").is_err());
        assert!(unpack("AAAA").is_err());
        let bomb = base64url_encode(&miniz_oxide::deflate::compress_to_vec(
            &vec![b' '; MAX_FILE_BYTES + 10],
            9,
        ));
        assert!(unpack(&bomb).unwrap_err().contains("inflates past"));
        assert!(handle("nonsense").starts_with("err\n"));
    }

    proptest! {
        #[test]
        fn any_request_is_answered_without_panicking(q in ".{0,200}") {
            let _ = handle(&q);
            let _ = handle(&format!("unpack\n{q}"));
            let _ = handle(&format!("import\n{q}"));
            let _ = handle(&format!("unpack-lesson\n{q}"));
            let _ = crate::share::lesson_from_worker(&format!("lesson\n{q}"));
        }

        #[test]
        fn a_damaged_lesson_is_refused_or_read_without_panicking(
            cut in 0usize..LESSON.len(),
            junk in ".{0,40}",
        ) {
            let mut text: String = LESSON.chars().take(cut).collect();
            text.push_str(&junk);
            // Through the worker and into the page, as an import goes.
            if let crate::share::Answer::Ok(body) =
                crate::share::parse_answer(&handle(&format!("import\n{text}")))
            {
                let _ = crate::share::lesson_from_worker(&body);
            }
        }

        #[test]
        fn base64url_round_trips_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            prop_assert_eq!(base64url_decode(&base64url_encode(&bytes)), Some(bytes));
        }
    }
}
