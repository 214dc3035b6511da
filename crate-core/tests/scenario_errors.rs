//! Malformed scenarios never panic, and every error names the field, the value and what is
//! allowed.

use eos_core::builtin::BUILTIN;
use eos_core::scenario::limits::MAX_FILE_BYTES;
use eos_core::scenario::FieldError;
use eos_core::{RunLimit, Scenario, ScenarioError};
use proptest::prelude::*;

const BASE: &str = r#"
version = 1
name = "base"

[[topics]]
name = "t"
partitions = 2

[[producers]]
name = "app"

[[producers.sends]]
topic = "t"

[[consumers]]
name = "reader"
topic = "t"
"#;

fn parse_err(text: &str) -> ScenarioError {
    match Scenario::parse(text) {
        Ok(s) => panic!("expected an error, it parsed as {:?}", s.name()),
        Err(e) => e,
    }
}

/// The field errors of a scenario that is valid TOML but breaks a rule.
fn field_errors(text: &str) -> Vec<FieldError> {
    match parse_err(text) {
        ScenarioError::Invalid(errors) => {
            assert!(!errors.is_empty());
            errors
        }
        other => panic!("expected field errors, got {other:?}"),
    }
}

fn error_for<'a>(errors: &'a [FieldError], field: &str) -> &'a FieldError {
    errors
        .iter()
        .find(|e| e.field == field)
        .unwrap_or_else(|| panic!("no error for {field}: {errors:#?}"))
}

#[test]
fn the_base_scenario_is_valid() {
    let s = Scenario::parse(BASE).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.name(), "base");
}

#[test]
fn an_unknown_top_level_field_is_named() {
    let text = BASE.replace("name = \"base\"", "name = \"base\"\ncolour = \"red\"");
    let e = parse_err(&text);
    assert!(matches!(e, ScenarioError::Parse { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("colour"), "{msg}");
    assert!(msg.contains("unknown field"), "{msg}");
}

#[test]
fn an_unknown_nested_field_is_named() {
    let text = BASE.replace(
        "name = \"app\"",
        "name = \"app\"\nenable_idempotency = true",
    );
    let msg = parse_err(&text).to_string();
    assert!(msg.contains("enable_idempotency"), "{msg}");
    assert!(msg.contains("unknown field"), "{msg}");
}

#[test]
fn a_wrong_type_is_named() {
    let text = format!("{BASE}\n[cluster]\nbrokers = \"three\"\n");
    let e = parse_err(&text);
    assert!(matches!(e, ScenarioError::Parse { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("brokers"), "{msg}");
    assert!(msg.contains("invalid type"), "{msg}");
    assert!(msg.contains("three"), "{msg}");
}

#[test]
fn version_2_is_refused() {
    let errors = field_errors(&BASE.replace("version = 1", "version = 2"));
    let e = error_for(&errors, "version");
    assert!(e.message.contains('2'), "{e}");
    assert!(e.message.contains("allowed: 1"), "{e}");
}

#[test]
fn nine_brokers_names_field_value_and_range() {
    let text = format!("{BASE}\n[cluster]\nbrokers = 9\n");
    let e = parse_err(&text);
    let msg = e.to_string();
    assert!(msg.contains("cluster.brokers"), "{msg}");
    assert!(msg.contains('9'), "{msg}");
    assert!(msg.contains("1 to 3"), "{msg}");
    let ScenarioError::Invalid(errors) = e else {
        panic!("expected field errors")
    };
    let b = error_for(&errors, "cluster.brokers");
    assert!(b.message.contains("9 is out of range"), "{b}");
}

#[test]
fn an_unknown_topic_in_a_send_is_named() {
    let text = BASE.replace(
        "[[producers.sends]]\ntopic = \"t\"",
        "[[producers.sends]]\ntopic = \"nope\"",
    );
    let errors = field_errors(&text);
    let e = error_for(&errors, "producers[0].sends[0].topic");
    assert!(e.message.contains("\"nope\""), "{e}");
    assert!(e.message.contains("not a declared topic"), "{e}");
}

#[test]
fn sends_whose_last_record_falls_past_the_day_are_refused() {
    let sends = |at: u64, count: u32, interval: u64| {
        BASE.replace(
            "[[producers.sends]]\ntopic = \"t\"",
            &format!("[[producers.sends]]\ntopic = \"t\"\nat_ms = {at}\ncount = {count}\ninterval_us = {interval}"),
        )
    };
    // 2,000 records a minute apart: each number is in range, the last send is not.
    let errors = field_errors(&sends(0, 2_000, 60_000_000));
    let e = error_for(&errors, "producers[0].sends[0].interval_us");
    assert!(
        e.message.contains("sends its last record at 119940000 ms"),
        "{e}"
    );
    assert!(e.message.contains("past the limit of 86400000 ms"), "{e}");
    // Ending exactly at the limit is allowed.
    assert!(Scenario::parse(&sends(86_399_999, 2, 1_000)).is_ok());
    assert!(Scenario::parse(&sends(86_399_999, 3, 1_000)).is_err());
}

#[test]
fn idempotence_with_six_in_flight_is_refused_in_kafkas_words() {
    let text = BASE.replace(
        "name = \"app\"",
        "name = \"app\"\nenable_idempotence = true\nmax_in_flight_requests_per_connection = 6",
    );
    let errors = field_errors(&text);
    let e = error_for(&errors, "producers[0]");
    assert!(e.message.contains("at most 5"), "{e}");
    assert!(
        e.message.contains("max.in.flight.requests.per.connection"),
        "{e}"
    );
    // Without idempotence six is fine.
    let ok = text.replace("enable_idempotence = true", "enable_idempotence = false");
    Scenario::parse(&ok).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_fault_on_an_unknown_process_is_named() {
    let text = format!(
        "{BASE}\n[[faults]]\nat_ms = 10\naction = \"freeze\"\ntarget = \"ghost\"\nduration_ms = 100\n"
    );
    let errors = field_errors(&text);
    let e = error_for(&errors, "faults[0].target");
    assert!(e.message.contains("\"ghost\""), "{e}");
    assert!(e.message.contains("not a process"), "{e}");
    // broker-1 does not exist in a one-broker cluster either.
    let errors = field_errors(&text.replace("ghost", "broker-1"));
    assert!(error_for(&errors, "faults[0].target")
        .message
        .contains("broker-1"));
}

#[test]
fn every_error_is_reported_at_once() {
    let text = format!("{BASE}\n[cluster]\nbrokers = 9\n").replace("version = 1", "version = 2");
    let errors = field_errors(&text);
    error_for(&errors, "version");
    error_for(&errors, "cluster.brokers");
    let shown = ScenarioError::Invalid(errors).to_string();
    assert!(shown.contains("2 errors"), "{shown}");
}

#[test]
fn a_300_kb_file_is_too_large() {
    let text = format!("{BASE}\n# {}\n", "x".repeat(300 * 1024));
    match Scenario::parse(&text) {
        Err(ScenarioError::TooLarge { bytes, max }) => {
            assert_eq!(bytes, text.len());
            assert_eq!(max, MAX_FILE_BYTES);
            let msg = ScenarioError::TooLarge { bytes, max }.to_string();
            assert!(msg.contains(&bytes.to_string()), "{msg}");
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

#[test]
fn an_empty_string_is_a_clear_error() {
    let e = parse_err("");
    assert!(matches!(e, ScenarioError::Parse { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("version"), "{msg}");
}

#[test]
fn text_that_is_not_toml_is_a_parse_error() {
    let e = parse_err("this is [not toml");
    assert!(matches!(e, ScenarioError::Parse { .. }), "{e:?}");
    assert!(!e.to_string().is_empty());
}

fn no_panic(text: &str) -> Result<(), TestCaseError> {
    let outcome = std::panic::catch_unwind(|| match Scenario::parse(text) {
        // A valid scenario must also build and run (a bounded number of steps).
        Ok(s) => {
            let mut sim = s.simulation_without_trace(None);
            sim.run(RunLimit::Steps(2_000));
            String::new()
        }
        Err(e) => e.to_string(),
    });
    prop_assert!(outcome.is_ok(), "parsing or running panicked on:\n{text}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        no_panic(&text)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        no_panic(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn damaged_builtins_never_panic(
        which in 0..BUILTIN.len(),
        cut in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        with in "[ -~\n]{0,8}",
    ) {
        let text = BUILTIN[which].1;
        let chars: Vec<char> = text.chars().collect();
        // Truncated at a random point.
        let truncated: String = chars[..cut.index(chars.len() + 1)].iter().collect();
        no_panic(&truncated)?;
        // A random few characters spliced in at a random point.
        let i = at.index(chars.len() + 1);
        let spliced: String = chars[..i].iter().copied().chain(with.chars()).chain(chars[i..].iter().copied()).collect();
        no_panic(&spliced)?;
    }

    #[test]
    fn wild_numbers_never_panic(
        field in prop::sample::select(vec![
            "seed", "version",
        ]),
        value in any::<i64>(),
    ) {
        let text = BASE.replace(&format!("{field} = 1"), &format!("{field} = {value}"));
        let text = if field == "seed" { format!("seed = {value}\n{BASE}") } else { text };
        no_panic(&text)?;
    }

    #[test]
    fn wild_values_in_producer_and_fault_fields_never_panic(
        field in prop::sample::select(vec![
            "request_timeout_ms", "delivery_timeout_ms", "linger_ms", "retries",
            "max_in_flight_requests_per_connection", "batch_max_records", "retry_backoff_ms",
        ]),
        value in prop_oneof![0u64..100, any::<u32>().prop_map(u64::from), any::<u64>()],
        fault_ms in prop_oneof![0u64..5_000, any::<u64>()],
        count in prop_oneof![1u32..10, any::<u32>()],
    ) {
        // Values past i64::MAX are not TOML integers: clamp so that the text stays TOML.
        let value = value.min(i64::MAX as u64);
        let fault_ms = fault_ms.min(i64::MAX as u64);
        let text = BASE.replace("name = \"app\"", &format!("name = \"app\"\n{field} = {value}"));
        let text = format!(
            "{text}\n[[faults]]\nat_ms = {fault_ms}\naction = \"delay\"\nmessage = \"produce\"\nextra_ms = {fault_ms}\ncount = {count}\n"
        );
        no_panic(&text)?;
    }
}

#[test]
fn a_lesson_read_as_a_scenario_is_called_a_lesson() {
    let lesson = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../lessons/lost-ack.toml"
    ))
    .expect("a built-in lesson");
    let message = parse_err(&lesson).to_string();
    assert!(message.starts_with("this is a lesson file"), "{message}");
    // A misspelt kind is named, with what a lesson says.
    let message = parse_err("kind = \"Lesson\"\nversion = 1\n").to_string();
    assert!(
        message.contains("kind = \"Lesson\"") && message.contains("kind = \"lesson\""),
        "{message}"
    );
    // A `kind` inside a table (a Flink operator's) is not the file's: the TOML error stays.
    let text = format!("{BASE}\n[flink]\nkind = \"source\"\nbogus = 1\n");
    let message = parse_err(&text).to_string();
    assert!(message.contains("unknown field"), "{message}");
}

#[test]
fn a_fault_on_an_unknown_process_lists_the_scenarios_processes() {
    let text = format!("{BASE}\n[[faults]]\nat_ms = 5\naction = \"crash\"\ntarget = \"ap\"\n");
    let message = parse_err(&text).to_string();
    assert!(
        message.contains("\"ap\" is not a process (this scenario's: broker-0, app, reader)"),
        "{message}"
    );
}

/// What a course author's slips get: a lesson without `kind` is told to add it, a number
/// too large for its type inside a lesson's scenario is given the field's own range, and an
/// input naming no operator lists those it may name, without a second, false error.
#[test]
fn an_authors_slips_get_a_message_that_says_the_fix() {
    let lesson_without_kind = r#"
version = 1
id = "mine"
title = { en = "Mine" }
summary = { en = "Mine." }
scenario = "seed-frozen-broker"

[[steps]]
text = { en = "Hello." }
"#;
    let message = parse_err(lesson_without_kind).to_string();
    assert!(
        message.contains("this looks like a lesson")
            && message.contains("add kind = \"lesson\" at the top of the file"),
        "{message}"
    );
    let huge = r#"
kind = "lesson"
version = 1
id = "mine"
title = { en = "Mine" }
summary = { en = "Mine." }

[scenario]
version = 1
name = "mine"
[[scenario.topics]]
name = "t"
[[scenario.producers]]
name = "app"
[[scenario.producers.sends]]
topic = "t"
count = 1000000000000

[[steps]]
until = "end"
text = { en = "Hello." }
"#;
    let message = eos_core::lesson::Lesson::parse(huge)
        .expect_err("too many records")
        .to_string();
    assert!(
        message.contains("expected a whole number from 1 to 2000000"),
        "{message}"
    );
    let flink = eos_core::scenario::builtin::text("flink-barrier-walkthrough")
        .expect("built-in")
        .replace("inputs = [\"map\"]", "inputs = [\"mapp\"]");
    let errors = field_errors(&flink);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        errors[0].message,
        "\"mapp\" is not an operator (declared before \"sink\": \"source\", \"map\")",
    );
}
