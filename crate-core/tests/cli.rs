//! The `eos-sim` binary: list, run (text and JSON), check, and its errors.

use eos_core::builtin::BUILTIN;
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

const SCENARIOS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios");

fn eos_sim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eos-sim"))
        .args(args)
        .output()
        .expect("the eos-sim binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exited by itself with a non-zero code, with a message and no panic.
fn assert_clean_failure(o: &Output, mentions: &str) {
    let err = stderr(o);
    assert!(
        !o.status.success(),
        "expected failure; stdout: {}",
        stdout(o)
    );
    assert!(o.status.code().is_some(), "killed by a signal: {err}");
    assert!(!err.trim().is_empty(), "no message on stderr");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(mentions),
        "stderr should mention {mentions:?}: {err}"
    );
}

fn run_json(args: &[&str]) -> Value {
    let o = eos_sim(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", stdout(&o)))
}

#[test]
fn list_prints_every_builtin() {
    let o = eos_sim(&["list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let first_words: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for (name, _) in BUILTIN {
        assert!(first_words.contains(name), "{name} missing from:\n{out}");
    }
    assert_eq!(first_words.len(), BUILTIN.len(), "{out}");
    // The group and the summary each start in one column, however long a name is.
    let column = |line: &str, k: usize| {
        let mut words = line
            .char_indices()
            .filter(|(i, c)| !c.is_whitespace() && (*i == 0 || line[..*i].ends_with("  ")));
        words.nth(k).map(|(i, _)| line[..i].chars().count())
    };
    for k in [1, 2] {
        let starts: std::collections::BTreeSet<_> = out.lines().map(|l| column(l, k)).collect();
        assert_eq!(starts.len(), 1, "column {k} starts at {starts:?}:\n{out}");
    }
    let lessons = stdout(&eos_sim(&["lessons"]));
    let starts: std::collections::BTreeSet<_> = lessons.lines().map(|l| column(l, 1)).collect();
    assert_eq!(
        starts.len(),
        1,
        "the titles start at {starts:?}:\n{lessons}"
    );
}

#[test]
fn run_json_has_the_documented_keys() {
    let v = run_json(&["run", "seed-frozen-broker", "--json"]);
    for key in [
        "scenario",
        "seed",
        "steps",
        "end_time_ms",
        "outcome",
        "deliveries",
        "reads",
        "anomalies",
        "invariants",
        "trace_hash",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v:#}");
    }
    assert_eq!(v["scenario"], "seed-frozen-broker");
    assert_eq!(v["seed"], 1);
    assert!(v["steps"].as_u64().is_some_and(|n| n > 0));
    assert!(v["end_time_ms"].as_u64().is_some_and(|t| t > 6000));
    for key in ["duplicates", "lost", "aborted_reads"] {
        assert_eq!(v["outcome"][key], 0, "outcome.{key}: {v:#}");
    }
    let deliveries = v["deliveries"].as_array().expect("deliveries is a list");
    assert_eq!(deliveries.len(), 1);
    let d = &deliveries[0];
    for key in [
        "key",
        "partition",
        "offset",
        "attempts",
        "delivered_at_ms",
        "status",
    ] {
        assert!(d.get(key).is_some(), "deliveries[0] has no {key}: {d:#}");
    }
    assert_eq!(d["key"], "order-42");
    assert_eq!(d["partition"], 0);
    assert_eq!(d["offset"], 0);
    assert_eq!(d["status"], "delivered");
    assert!(d["attempts"].as_u64().is_some_and(|n| n >= 2));
    assert_eq!(v["reads"]["reader"]["records"], 1);
    assert!(v["anomalies"].as_array().is_some_and(|a| a.is_empty()));
    let invariants = v["invariants"].as_array().expect("invariants is a list");
    assert!(!invariants.is_empty());
    assert!(invariants.iter().all(|i| i["holds"] == true), "{v:#}");
    let hash = v["trace_hash"].as_str().expect("trace_hash is a string");
    assert_eq!(hash.len(), 16);
    assert!(hash.chars().all(|c| c.is_ascii_hexdigit()), "{hash}");
}

#[test]
fn run_json_seed_flag_sets_the_seed_and_runs_are_repeatable() {
    let default = run_json(&["run", "seed-frozen-broker", "--json"]);
    let seven = run_json(&["run", "seed-frozen-broker", "--json", "--seed", "7"]);
    assert_eq!(seven["seed"], 7);
    assert_ne!(default["seed"], seven["seed"]);
    let again = run_json(&["run", "seed-frozen-broker", "--seed", "7", "--json"]);
    assert_eq!(seven, again, "the same seed must give the same report");
}

#[test]
fn run_prints_a_text_summary() {
    let o = eos_sim(&["run", "lost-ack-idempotence-off"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("lost-ack-idempotence-off"), "{out}");
    assert!(out.contains("duplicates 3"), "{out}");
}

/// A run stopped by `limits.max_steps` narrates every step it took, its last one too.
#[test]
fn a_trace_cut_by_its_step_limit_narrates_its_last_step() {
    let path = std::env::temp_dir().join(format!(
        "eos-sim-cli-test-{}-max-steps.toml",
        std::process::id()
    ));
    let text = std::fs::read_to_string(format!("{SCENARIOS}/lost-ack-idempotence-off.toml"))
        .unwrap()
        .replace("[[topics]]", "[limits]\nmax_steps = 5\n\n[[topics]]");
    std::fs::write(&path, text).unwrap();
    let file = TempFile(path);
    let o = eos_sim(&["run", &file.0.to_string_lossy(), "--trace"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let last = out
        .lines()
        .rfind(|l| l.starts_with('#'))
        .unwrap_or_default();
    assert!(
        last.starts_with("#5 "),
        "the last narrated step: {last}\n{out}"
    );
    assert!(out.contains("run        5 steps"), "{out}");
}

#[test]
fn check_passes_every_scenario_file() {
    let mut files: Vec<String> = std::fs::read_dir(SCENARIOS)
        .expect("the scenarios directory")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(files.len() >= BUILTIN.len(), "{files:?}");
    let mut args = vec!["check"];
    args.extend(files.iter().map(String::as_str));
    let o = eos_sim(&args);
    assert!(
        o.status.success(),
        "check failed:\n{}\n{}",
        stdout(&o),
        stderr(&o)
    );
    let out = stdout(&o);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("ok ")).count(),
        files.len(),
        "{out}"
    );
    assert!(
        out.contains(&format!("{} passed, 0 failed", files.len())),
        "{out}"
    );
}

struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn check_fails_on_a_broken_expect() {
    let text = std::fs::read_to_string(format!("{SCENARIOS}/seed-frozen-broker.toml")).unwrap();
    assert!(text.contains("duplicates = 0"));
    let broken = text.replace("duplicates = 0", "duplicates = 5");
    let path = std::env::temp_dir().join(format!(
        "eos-sim-cli-test-{}-broken-expect.toml",
        std::process::id()
    ));
    std::fs::write(&path, broken).unwrap();
    let file = TempFile(path);
    let o = eos_sim(&["check", &file.0.to_string_lossy()]);
    assert_clean_failure(&o, "expected duplicates = 5, got 0");
    // Listed like a validation error: one "  - " line per problem.
    assert!(
        stderr(&o).contains("\n  - expected duplicates = 5, got 0"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("0 passed, 1 failed"), "{}", stdout(&o));
}

#[test]
fn check_fails_on_an_invalid_file() {
    let path = std::env::temp_dir().join(format!(
        "eos-sim-cli-test-{}-invalid.toml",
        std::process::id()
    ));
    std::fs::write(
        &path,
        "version = 1\nname = \"x\"\n[cluster]\nbrokers = 9\n[[topics]]\nname = \"t\"\n",
    )
    .unwrap();
    let file = TempFile(path);
    let o = eos_sim(&["check", &file.0.to_string_lossy()]);
    assert_clean_failure(&o, "cluster.brokers");
}

/// A number the field's type cannot hold (negative, too large) is told the field's own
/// range, as an in-type number out of range is, not the type's.
#[test]
fn a_number_that_does_not_fit_its_type_is_told_the_fields_range() {
    for (value, says) in [("-5", "`-5`"), ("4294967296", "`4294967296`")] {
        let path = std::env::temp_dir().join(format!(
            "eos-sim-cli-test-{}-count{value}.toml",
            std::process::id()
        ));
        std::fs::write(
            &path,
            format!(
                "version = 1\nname = \"x\"\n[[topics]]\nname = \"t\"\n[[producers]]\nname = \"p\"\n[[producers.sends]]\ntopic = \"t\"\ncount = {value}\n"
            ),
        )
        .unwrap();
        let file = TempFile(path);
        let o = eos_sim(&["check", &file.0.to_string_lossy()]);
        assert_clean_failure(&o, says);
        let err = stderr(&o);
        assert!(
            err.contains("expected a whole number from 1 to 2000000")
                && !err.contains("from 0 to 4294967295"),
            "{err}"
        );
    }
}

#[test]
fn run_of_an_unknown_scenario_fails_cleanly() {
    let o = eos_sim(&["run", "no-such-thing"]);
    assert_clean_failure(&o, "no-such-thing");
    // It tells what does exist.
    assert!(stderr(&o).contains("seed-frozen-broker"), "{}", stderr(&o));
}

#[test]
fn run_with_a_bad_seed_fails_cleanly() {
    let o = eos_sim(&["run", "x", "--seed", "abc"]);
    assert_clean_failure(&o, "--seed");
    let o = eos_sim(&["run", "seed-frozen-broker", "--seed"]);
    assert_clean_failure(&o, "--seed");
}

#[test]
fn unknown_commands_and_options_fail_cleanly() {
    assert_clean_failure(&eos_sim(&["frobnicate"]), "unknown command");
    assert_clean_failure(&eos_sim(&["run", "seed-frozen-broker", "--fast"]), "--fast");
    assert_clean_failure(&eos_sim(&[]), "usage");
}

#[test]
fn compare_prints_one_row_per_guarantee() {
    let o = eos_sim(&["compare", "rpw-crash-exactly-once"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for g in ["at-most-once", "at-least-once", "exactly-once"] {
        assert!(
            text.lines().any(|l| l.starts_with(g)),
            "row for {g}:\n{text}"
        );
    }
    assert!(text.contains("visible outputs"), "{text}");
}

/// A chain of processors (`mailer` reads `proc`'s output): the table says it counts end to
/// end, and its rows are the chain's.
#[test]
fn compare_names_a_chain_it_counts_end_to_end() {
    let text = std::fs::read_to_string(format!("{SCENARIOS}/rpw-crash-exactly-once.toml")).unwrap();
    let chain = format!(
        "{text}\n[[topics]]\nname = \"mails\"\n\n[[processors]]\nname = \"mailer\"\nguarantee = \"exactly-once\"\ninput = \"invoices\"\noutput = \"mails\"\n"
    );
    let path = std::env::temp_dir().join(format!(
        "eos-sim-cli-test-{}-chain.toml",
        std::process::id()
    ));
    std::fs::write(&path, chain).unwrap();
    let file = TempFile(path);
    let o = eos_sim(&["compare", &file.0.to_string_lossy()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("end to end through the chain billing → mailer"),
        "{out}"
    );
    let plain = stdout(&eos_sim(&["compare", "rpw-crash-exactly-once"]));
    assert!(!plain.contains("end to end"), "{plain}");
}

#[test]
fn compare_json_has_one_full_report_per_guarantee() {
    let v = run_json(&["compare", "rpw-crash-exactly-once", "--json"]);
    let object = v.as_object().expect("an object");
    let keys: Vec<&String> = object.keys().collect();
    assert_eq!(keys, vec!["at-least-once", "at-most-once", "exactly-once"]);
    for (g, report) in object {
        for key in [
            "scenario",
            "seed",
            "outcome",
            "deliveries",
            "invariants",
            "processing",
            "trace_hash",
        ] {
            assert!(report.get(key).is_some(), "{g} lacks {key}");
        }
        assert_eq!(report["processing"]["guarantee"], Value::String(g.clone()));
    }
    assert_eq!(object["exactly-once"]["outcome"]["duplicates"], 0);
    assert_eq!(object["exactly-once"]["outcome"]["lost"], 0);
    assert_eq!(object["at-least-once"]["outcome"]["duplicates"], 1);
    assert_eq!(object["at-most-once"]["outcome"]["lost"], 1);
}

#[test]
fn compare_refuses_a_scenario_without_a_processor() {
    let o = eos_sim(&["compare", "seed-frozen-broker"]);
    assert_clean_failure(&o, "no read-process-write stage");
}

const LESSONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../lessons");

#[test]
fn lessons_lists_every_builtin_lesson_first_the_default() {
    let o = eos_sim(&["lessons"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let ids: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let builtin: Vec<&str> = eos_core::lesson::builtin::BUILTIN
        .iter()
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(ids, builtin);
    assert_eq!(ids.first(), Some(&eos_core::lesson::builtin::DEFAULT));
    assert!(
        out.contains("The idempotent producer and the frozen broker"),
        "{out}"
    );
}

#[test]
fn check_passes_every_lesson_file_and_fails_a_wrong_answer() {
    let mut files: Vec<String> = std::fs::read_dir(LESSONS)
        .expect("the lessons directory")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(files.len() >= eos_core::lesson::builtin::BUILTIN.len());
    let mut args = vec!["check"];
    args.extend(files.iter().map(String::as_str));
    let o = eos_sim(&args);
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    assert_eq!(
        stdout(&o).lines().filter(|l| l.starts_with("ok ")).count(),
        files.len()
    );

    let text = std::fs::read_to_string(format!("{LESSONS}/idempotent-producer.toml")).unwrap();
    assert!(text.contains("answer = 3\n"));
    let path = std::env::temp_dir().join(format!(
        "eos-sim-cli-test-{}-wrong-answer.toml",
        std::process::id()
    ));
    std::fs::write(&path, text.replace("answer = 3\n", "answer = 4\n")).unwrap();
    let file = TempFile(path);
    let o = eos_sim(&["check", &file.0.to_string_lossy()]);
    assert_clean_failure(&o, "steps[3].question.answer: the lesson says 4");
    assert!(stdout(&o).contains("0 passed, 1 failed"), "{}", stdout(&o));

    // An author's copy under the built-in's id checks, with a warning that the playground
    // will not import it; the built-in file itself gets none.
    let path = std::env::temp_dir().join(format!(
        "eos-sim-cli-test-{}-same-id.toml",
        std::process::id()
    ));
    std::fs::write(&path, format!("# my copy\n{text}")).unwrap();
    let file = TempFile(path);
    let o = eos_sim(&["check", &file.0.to_string_lossy()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: ")
            && stderr(&o).contains("\"idempotent-producer\" is a built-in lesson's id"),
        "{}",
        stderr(&o)
    );
    let own = format!("{LESSONS}/idempotent-producer.toml");
    let o = eos_sim(&["check", &own]);
    assert!(
        o.status.success() && !stderr(&o).contains("warning"),
        "{}",
        stderr(&o)
    );
}

/// `eos-sim lessons | head -1`: the reader goes away after one line; eos-sim stops quietly.
/// (The long trace, over 140 KB, outgrows the pipe's buffer, so its writes do hit the
/// closed pipe.)
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    for args in [
        &["lessons"][..],
        &["list"],
        &["run", "flink-backpressure-aligned", "--trace"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_eos-sim"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the eos-sim binary runs");
        let mut first = String::new();
        {
            let out = child.stdout.take().expect("piped");
            BufReader::new(out).read_line(&mut first).expect("a line");
            // The reader is dropped here: the pipe closes.
        }
        let o = child.wait_with_output().expect("it ends");
        assert!(!first.trim().is_empty(), "{args:?}: a first line");
        assert!(
            o.status.success(),
            "{args:?}: {:?} {}",
            o.status,
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn outcomes_json_has_a_lane_per_guarantee_and_bad_samples_are_refused() {
    let v = run_json(&[
        "outcomes",
        "rpw-crash-at-most-once",
        "--samples",
        "5",
        "--json",
    ]);
    let lanes = v.as_array().expect("an array of lanes");
    let names: Vec<&str> = lanes
        .iter()
        .filter_map(|l| l["guarantee"].as_str())
        .collect();
    assert_eq!(names, ["at-most-once", "at-least-once", "exactly-once"]);
    for l in lanes {
        let points = l["points"].as_array().expect("points");
        assert_eq!(points.len(), 6, "start, 4 between, end");
        for key in ["step", "time", "visible", "duplicates", "lost"] {
            assert!(points[0][key].is_u64(), "{key}");
        }
    }
    assert!(
        lanes[0]["points"][5]["lost"].as_u64() > Some(0),
        "at-most-once loses"
    );
    let text = eos_sim(&["outcomes", "rpw-crash-at-most-once"]);
    assert!(stdout(&text).contains("duplicates"));
    assert_clean_failure(
        &eos_sim(&["outcomes", "rpw-crash-at-most-once", "--samples", "0"]),
        "--samples",
    );
    assert_clean_failure(
        &eos_sim(&["outcomes", "seed-frozen-broker"]),
        "no read-process-write",
    );
}

#[test]
fn a_lesson_may_name_its_scenario_file_beside_it() {
    let dir = std::env::temp_dir().join(format!(
        "eos-sim-cli-test-{}-lesson-dir",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = std::fs::read_to_string(format!("{SCENARIOS}/seed-commit-abort.toml")).unwrap();
    std::fs::write(dir.join("mine.toml"), &scenario).unwrap();
    let lesson = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../lessons/commit-and-abort.toml"
    ))
    .unwrap()
    .replace(
        "scenario = \"seed-commit-abort\"",
        "scenario = \"mine.toml\"",
    );
    let path = dir.join("lesson.toml");
    std::fs::write(&path, &lesson).unwrap();
    let o = eos_sim(&["check", &path.to_string_lossy()]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    // The file's own [expect] is checked on the lesson's run.
    std::fs::write(
        dir.join("mine.toml"),
        scenario.replace("aborted_reads = 1", "aborted_reads = 7"),
    )
    .unwrap();
    let o = eos_sim(&["check", &path.to_string_lossy()]);
    assert_clean_failure(&o, "mine.toml: expect: expected aborted_reads = 7, got 1");
    // Its invalid values are listed one a line under its name, as the file's fields...
    std::fs::write(
        dir.join("mine.toml"),
        scenario.replacen(
            "[[producers]]",
            "[network]\nlatency_us = 999999999999\n\n[[producers]]",
            1,
        ),
    )
    .unwrap();
    let o = eos_sim(&["check", &path.to_string_lossy()]);
    assert_clean_failure(
        &o,
        "the lesson has 1 error:\n  - mine.toml: network.latency_us: 999999999999 is out of range",
    );
    // ... and a TOML error's lines stay under its dash.
    std::fs::write(
        dir.join("mine.toml"),
        scenario.replacen("[[producers]]", "[[producers]]\nbogus = 1", 1),
    )
    .unwrap();
    let o = eos_sim(&["check", &path.to_string_lossy()]);
    let err = stderr(&o);
    let at = err
        .find("  - scenario: \"mine.toml\": TOML parse error")
        .expect(&err);
    assert!(
        err[at..]
            .lines()
            .skip(1)
            .take_while(|l| !l.starts_with("check:"))
            .all(|l| l.starts_with("    ")),
        "{err}"
    );
    // A file that is not there is named.
    std::fs::write(&path, lesson.replace("mine.toml", "gone.toml")).unwrap();
    let o = eos_sim(&["check", &path.to_string_lossy()]);
    assert_clean_failure(&o, "\"gone.toml\": cannot read");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The report format's example is "the real output": its hash is what the CLI prints now
/// (a change of behaviour must update the documentation with it).
#[test]
fn the_documented_example_report_has_the_current_trace_hash() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/report-format.md"
    ))
    .expect("the report format's documentation");
    let documented = doc
        .split("\"trace_hash\": \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("an example with a trace hash");
    let o = eos_sim(&["run", "lost-ack-idempotence-off", "--json"]);
    let report: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(report["trace_hash"], documented, "docs/report-format.md");
}

/// The summary says which inputs a read-process-write stage lost or output twice, what an
/// output never handed over is, and how a transactional record's transaction ended.
#[test]
fn the_summary_names_lost_and_doubled_inputs_and_aborted_records() {
    let amo = stdout(&eos_sim(&["run", "rpw-crash-at-most-once"]));
    assert!(
        amo.contains("processing at-most-once: 12 inputs, 11 visible outputs; no output any reader sees, and committed past: v7"),
        "{amo}"
    );
    assert!(amo.contains("v7′    never handed to a producer"), "{amo}");
    assert!(!amo.contains("key null"), "{amo}");
    let alo = stdout(&eos_sim(&["run", "rpw-crash-at-least-once"]));
    assert!(alo.contains("; output more than once: v7"), "{alo}");
    let txn = stdout(&eos_sim(&["run", "seed-commit-abort"]));
    let aborted: Vec<&str> = txn
        .lines()
        .filter(|l| l.ends_with("(transaction aborted)"))
        .collect();
    assert!(
        aborted.len() == 1 && aborted[0].trim_start().starts_with("v2 "),
        "{txn}"
    );
}

/// `--help` anywhere asks for the usage, not for a scenario of that name.
#[test]
fn help_after_a_command_prints_the_usage() {
    for args in [&["check", "--help"][..], &["run", "-h"], &["--help"]] {
        let o = eos_sim(args);
        assert!(o.status.success(), "{args:?}");
        assert!(stdout(&o).starts_with("usage:"), "{args:?}: {}", stdout(&o));
    }
}
