//! `eos-sim`: run and check scenarios headless.
//!
//!   eos-sim list
//!   eos-sim run <name|file> [--seed N] [--json] [--trace]
//!   eos-sim check <file|name>...      (scenarios and lessons)
//!   eos-sim lessons

/// `println!` that ends quietly when the reader has gone (`eos-sim list | head`), where
/// std's would panic on the broken pipe.
macro_rules! println {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout().lock(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

use eos_core::lesson::{self, Lang, Lesson, LessonError};
use eos_core::report::Report;
use eos_core::scenario::expect;
use eos_core::sim::narration_repeats::narrate_in;
use eos_core::sim::StepOutcome;
use eos_core::{builtin, RunLimit, Scenario, ScenarioError};
use std::process::ExitCode;

const USAGE: &str = "usage:
  eos-sim list                                   built-in scenarios, one a line
  eos-sim run <name|file> [--seed N] [--json] [--trace]
                                                 run one scenario and report
  eos-sim check <name|file>...                   validate, run, verify `expect`;
                                                 a lesson file (kind = lesson): every
                                                 point reached, every answer right
  eos-sim lessons                                built-in lessons, one a line
  eos-sim compare <name|file> [--seed N] [--json]
                                                 the same faults under at-most-once,
                                                 at-least-once and exactly-once
  eos-sim cost <name|file> [--interval 10,50,100] [--seed N] [--json]
                                                 latency and messages per record of
                                                 each guarantee across commit intervals
  eos-sim outcomes <name|file> [--samples N] [--seed N] [--json]
                                                 visible outputs, duplicates and losses
                                                 over time under each guarantee
  eos-sim help";

/// Samples per lane `eos-sim outcomes` takes unless told.
const DEFAULT_SAMPLES: usize = 10;

/// Takes `--samples N` out of the arguments.
fn take_samples(args: &[String]) -> Result<(Vec<String>, usize), String> {
    let mut rest = Vec::new();
    let mut samples = DEFAULT_SAMPLES;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--samples" {
            let v = it.next().ok_or("--samples needs a whole number")?;
            samples = match v.parse::<usize>() {
                Ok(n) if (1..=eos_core::outcomes::MAX_SAMPLES).contains(&n) => n,
                _ => {
                    return Err(format!(
                        "--samples {v:?}: give a whole number from 1 to {}",
                        eos_core::outcomes::MAX_SAMPLES
                    ))
                }
            };
        } else {
            rest.push(a.clone());
        }
    }
    Ok((rest, samples))
}

/// The commit intervals `eos-sim cost` sweeps unless told (ms).
const DEFAULT_INTERVALS: &[u64] = &[10, 25, 50, 100, 200];

/// Takes `--interval a,b,c` out of the arguments.
fn take_intervals(args: &[String]) -> Result<(Vec<String>, Vec<u64>), String> {
    let mut rest = Vec::new();
    let mut polls = DEFAULT_INTERVALS.to_vec();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--interval" {
            let v = it
                .next()
                .ok_or("--interval needs a list of milliseconds, like 10,50,100")?;
            polls = v
                .split(',')
                .map(|x| {
                    x.trim().parse::<u64>().map_err(|_| {
                        format!("--interval {v:?}: {x:?} is not a whole number of milliseconds")
                    })
                })
                .collect::<Result<_, _>>()?;
        } else {
            rest.push(a.clone());
        }
    }
    Ok((rest, polls))
}

fn load(arg: &str) -> Result<Scenario, ScenarioError> {
    if builtin::text(arg).is_some() {
        return builtin::get(arg);
    }
    let path = std::path::Path::new(arg);
    if path.exists() {
        let meta = std::fs::metadata(path).map_err(|e| ScenarioError::Io {
            path: arg.into(),
            message: e.to_string(),
        })?;
        if meta.len() > eos_core::scenario::limits::MAX_FILE_BYTES as u64 {
            return Err(ScenarioError::TooLarge {
                bytes: meta.len() as usize,
                max: eos_core::scenario::limits::MAX_FILE_BYTES,
            });
        }
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Io {
            path: arg.into(),
            message: e.to_string(),
        })?;
        return Scenario::parse(&text);
    }
    builtin::get(arg)
}

/// What `check` was given: a scenario or a lesson.
enum Checkable {
    Scenario(Box<Scenario>),
    Lesson(Box<Lesson>),
}

/// A built-in scenario name, a file (a lesson if it says `kind = "lesson"`), or a built-in
/// lesson id, in that order.
fn load_checkable(arg: &str) -> Result<Checkable, String> {
    let path = std::path::Path::new(arg);
    if builtin::text(arg).is_none() && path.is_file() {
        let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
        let max = eos_core::scenario::limits::MAX_FILE_BYTES.max(lesson::limits::MAX_FILE_BYTES);
        if meta.len() > max as u64 {
            return Err(format!(
                "the file is {} bytes; the limit is {max}",
                meta.len()
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| {
            LessonError::Io {
                path: arg.into(),
                message: e.to_string(),
            }
            .to_string()
        })?;
        if lesson::is_lesson(&text) {
            // A lesson may name its scenario's file, relative to the lesson's own.
            let dir = path.parent().unwrap_or(std::path::Path::new("."));
            let scenario = |name: &str| {
                if !lesson::is_scenario_path(name) {
                    return builtin::get(name);
                }
                let file = dir.join(name);
                if !file.is_file() {
                    return Err(ScenarioError::Io {
                        path: file.display().to_string(),
                        message: "no such file".into(),
                    });
                }
                load(&file.to_string_lossy())
            };
            let l = Lesson::parse_with(&text, &scenario).map_err(|e| e.to_string())?;
            // The playground refuses an author's lesson under a built-in's id (progress and
            // links would mix): warn here, where the author checks it (a changed copy of a
            // built-in still checks; the built-in files themselves say nothing).
            if lesson::builtin::text(l.id()).is_some_and(|own| own != text) {
                eprintln!(
                    "warning: {arg}: id: \"{}\" is a built-in lesson's id: the playground will not import this file; give your lesson its own id, so that its progress and links stay apart",
                    l.id()
                );
            }
            return Ok(Checkable::Lesson(Box::new(l)));
        }
    }
    if builtin::text(arg).is_none() && lesson::builtin::text(arg).is_some() {
        return lesson::builtin::get(arg)
            .map(|l| Checkable::Lesson(Box::new(l)))
            .map_err(|e| e.to_string());
    }
    load(arg)
        .map(|s| Checkable::Scenario(Box::new(s)))
        .map_err(|e| e.to_string())
}

/// Problems of one scenario against its `expect` (or its invariants), and the ok line.
fn check_scenario(s: &Scenario) -> (Vec<String>, String) {
    let (report, _) = run(s, None, false);
    let problems = s
        .file
        .expect
        .as_ref()
        .map(|e| expect::check(e, &report, s))
        .unwrap_or_else(|| {
            let mut p: Vec<String> = report
                .invariants
                .iter()
                .filter(|i| !i.holds)
                .map(|i| format!("invariant {} is broken", i.name))
                .collect();
            if !report.completed {
                p.push("the run hit its step limit".into());
            }
            p
        });
    let ok = format!("{} steps, {} ms", report.steps, report.end_time_ms);
    (problems, ok)
}

/// "1 question", "2 questions".
fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

fn check_lesson(l: &Lesson) -> (Vec<String>, String) {
    match l.check() {
        Ok(c) => (
            Vec::new(),
            format!(
                "lesson {}, {}, {}, {} steps, {} ms",
                l.id(),
                counted(c.resolved.len(), "point"),
                counted(
                    l.steps.iter().filter(|s| s.question.is_some()).count(),
                    "question"
                ),
                c.steps,
                c.time_ms
            ),
        ),
        Err(LessonError::Invalid(errors)) => (
            errors.iter().map(ToString::to_string).collect(),
            String::new(),
        ),
        Err(e) => (vec![e.to_string()], String::new()),
    }
}

/// How often a long run says how far it is (about 20 s at the engine's rate).
const PROGRESS_EVERY: u64 = 5_000_000;

/// Runs a scenario to its end: the report, and the run's names (keys, nodes) to print it.
fn run(
    scenario: &Scenario,
    seed: Option<u64>,
    trace: bool,
) -> (Report, eos_core::sim::names::Names) {
    let mut sim = if trace {
        scenario.simulation(seed)
    } else {
        scenario.simulation_without_trace(seed)
    };
    if trace {
        loop {
            let outcome = sim.step();
            if outcome != StepOutcome::Stepped {
                break;
            }
            let trace = sim.trace();
            if let Some((at, rec)) = trace.iter().enumerate().next_back() {
                let t = eos_core::time::format_duration(rec.time);
                for note in &rec.notes {
                    let line = narrate_in(&sim.names, trace, at, note);
                    println!("#{:<5} {:>10}  {line}", rec.step, t);
                }
            }
        }
    } else {
        // A long run (up to `limits.max_steps`, 100,000,000) says on stderr how far it is,
        // every PROGRESS_EVERY steps, rather than minutes of silence.
        loop {
            let next = sim.steps().saturating_add(PROGRESS_EVERY);
            let outcome = sim.run(RunLimit::Steps(next));
            // `Stepped`: the chunk's steps are done and the run goes on.
            if outcome != StepOutcome::Stepped || sim.at_step_limit() {
                break;
            }
            eprintln!(
                "eos-sim: step {} at {} simulated (limits.max_steps {})…",
                sim.steps(),
                eos_core::time::format_duration(sim.now()),
                sim.max_steps
            );
        }
    }
    let mut report = Report::of(scenario.name(), &sim);
    if let Some(f) = report.flink.as_mut() {
        f.versus_failure_free = eos_core::flink::report::versus_failure_free(scenario, seed, &sim);
    }
    (report, sim.names.clone())
}

fn print_summary(r: &Report, names: &eos_core::sim::names::Names) {
    println!("scenario   {}", r.scenario);
    println!("seed       {}", r.seed);
    println!(
        "run        {} steps, {} ms simulated{}",
        r.steps,
        r.end_time_ms,
        if r.completed {
            ""
        } else {
            " (STEP LIMIT REACHED)"
        }
    );
    println!(
        "outcome    duplicates {}, lost {}, aborted reads {}",
        r.outcome.duplicates, r.outcome.lost, r.outcome.aborted_reads
    );
    if let Some(p) = &r.processing {
        print_processing(p);
    }
    println!("deliveries");
    for d in r.deliveries.iter().take(20) {
        if d.producer.is_empty() && d.topic.is_none() {
            println!("  {:<6} never handed to a producer", d.record);
            continue;
        }
        // A transaction's record: how its transaction ended, which decides if it is read.
        let txn = match d.transaction.as_deref() {
            Some("aborted") => "  (transaction aborted)",
            Some("undecided") => "  (transaction undecided)",
            _ => "",
        };
        println!(
            "  {:<6} key {:<14} {:<12} {:<14} offset {:<6} attempts {:<3} at {}{txn}",
            d.record,
            d.key.clone().unwrap_or_else(|| "null".into()),
            format!(
                "{}-{}",
                d.topic.clone().unwrap_or_default(),
                d.partition.map_or("?".into(), |p| p.to_string())
            ),
            d.status,
            d.offset.map_or("-".into(), |o| o.to_string()),
            d.attempts,
            d.delivered_at_ms.map_or("-".into(), |t| format!("{t} ms")),
        );
    }
    if r.deliveries.len() > 20 {
        println!("  … {} more", r.deliveries.len() - 20);
    }
    for (name, reads) in &r.reads {
        println!(
            "reads      {name} ({}): {} records",
            reads.isolation, reads.records
        );
    }
    if r.anomalies.is_empty() {
        println!("anomalies  none");
    } else {
        println!("anomalies");
        for a in &r.anomalies {
            println!("  {:<18} {} (steps {:?})", a.kind, a.detail, a.events);
        }
    }
    let broken: Vec<_> = r.invariants.iter().filter(|i| !i.holds).collect();
    println!(
        "invariants {} checked, {} broken",
        r.invariants.len(),
        broken.len()
    );
    for i in broken {
        println!(
            "  BROKEN {}: {}",
            i.name,
            i.detail.clone().unwrap_or_default()
        );
    }
    if let Some(f) = &r.flink {
        print_flink(f, names);
    }
    println!("trace      {}", r.trace_hash);
}

/// The read-process-write stage: which inputs came out twice, and which not at all.
fn print_processing(p: &eos_core::report::Processing) {
    let with = |pick: fn(u32) -> bool| -> Vec<&str> {
        let inputs = p
            .ledger
            .iter()
            .filter(|(input, copies)| pick(**copies) && !p.unread.iter().any(|u| u == *input));
        inputs.map(|(input, _)| input.as_str()).collect()
    };
    let (twice, never) = (with(|c| c > 1), with(|c| c == 0));
    let mut line = format!(
        "processing {}: {} inputs, {} visible outputs",
        p.guarantee, p.inputs, p.visible_outputs
    );
    if !twice.is_empty() {
        line.push_str(&format!("; output more than once: {}", twice.join(", ")));
    }
    if !never.is_empty() {
        line.push_str(&format!(
            "; no output any reader sees, and committed past: {}",
            never.join(", ")
        ));
    }
    if !p.unread.is_empty() {
        line.push_str(&format!("; not yet processed: {}", p.unread.join(", ")));
    }
    println!("{line}");
}

fn print_flink(f: &eos_core::flink::report::FlinkReport, names: &eos_core::sim::names::Names) {
    let key = |k: &u32| names.key(Some(*k)).unwrap_or_else(|| k.to_string());
    let mode = match (f.unaligned, f.aligned_checkpoint_timeout_ms) {
        (true, Some(t)) => format!(" (aligned, unaligned after {t} ms)"),
        (true, None) => " (unaligned)".into(),
        _ => String::new(),
    };
    let end = match f.end.as_str() {
        "finished" => "",
        "cancelled" => "; job cancelled (its stop's savepoints failed)",
        _ => "; job still running when the run ended",
    };
    println!(
        "flink      {}{mode}: {} checkpoints completed, {} expired, {} aborted; {} failovers{end}",
        f.checkpointing, f.completed, f.expired, f.aborted, f.failovers
    );
    if f.checkpoints.len() > 16 {
        println!("  (the first 16 of {} checkpoints)", f.checkpoints.len());
    }
    // AT_LEAST_ONCE blocks no input: the time from a task's first barrier to its last is
    // their spread, not an alignment.
    let align = if f.checkpointing == "at-least-once" {
        "barrier spread"
    } else {
        "alignment"
    };
    for c in f.checkpoints.iter().take(16) {
        println!(
            "  cp {:<3} {:<9} triggered at {:>6} ms  took {:>7}  start delay {:>7}  {align} {:>8}  acks {:<2} channel state {}{}",
            c.id,
            c.outcome,
            c.triggered_at_ms,
            c.duration_ms.map_or("-".into(), |d| format!("{d} ms")),
            // Expired before every barrier arrived: the delay was longer than its run.
            match (c.start_delay_ms, c.outcome.as_str(), c.duration_ms) {
                (Some(d), _, _) => format!("{d} ms"),
                (None, "expired", Some(d)) => format!(">{d} ms"),
                _ => "-".into(),
            },
            eos_core::time::format_duration(c.alignment_us),
            c.acks,
            c.channel_state_records,
            if c.savepoint { "  (the stop's savepoint)" } else { "" }
        );
    }
    let o = &f.output;
    if !o.committed.is_empty() {
        println!(
            "  2pc sink   {} records committed",
            o.committed.values().sum::<u32>()
        );
    }
    if !o.appended.is_empty() {
        println!(
            "  append     {} records appended",
            o.appended.values().sum::<u32>()
        );
    }
    if !o.upserts.is_empty() {
        let v: Vec<String> = o
            .upserts
            .iter()
            .take(12)
            .map(|(k, v)| format!("{}={v}", key(k)))
            .collect();
        let more = o.upserts.len().saturating_sub(12);
        println!(
            "  upsert     {} keys: {}{}",
            o.upserts.len(),
            v.join(" "),
            if more > 0 {
                format!(" … {more} more")
            } else {
                String::new()
            }
        );
    }
    if let Some(d) = &f.versus_failure_free {
        if f.end != "finished" {
            // A job cut short has not processed its input: set against a finished run, or
            // one cut short the same way, its output says nothing of the faults.
            println!("  vs failure-free run: not compared (the job did not finish)");
        } else if d.is_empty() {
            println!("  vs failure-free run: identical");
        } else {
            println!(
                "  vs failure-free run: {} lost, {} duplicated, {} keys differ",
                d.lost.len(),
                d.duplicated.len(),
                d.state_differs.len()
            );
            for (k, e, g) in d.state_differs.iter().take(8) {
                println!("    key {}: failure-free {e}, this run {g}", key(k));
            }
        }
    }
}

struct Options {
    target: String,
    seed: Option<u64>,
    json: bool,
    trace: bool,
}

/// `<name|file> [--seed N] [--json] [--trace]`, as `run` and `compare` take them.
fn parse_options(args: &[String], command: &str, allow_trace: bool) -> Result<Options, String> {
    let mut target = None;
    let (mut seed, mut json, mut trace) = (None, false, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seed" => seed = Some(parse_seed(it.next())?),
            "--json" => json = true,
            "--trace" if allow_trace => trace = true,
            flag if flag.starts_with("--") => {
                return Err(format!("unknown option {flag}\n{USAGE}"))
            }
            other if target.is_none() => target = Some(other.to_string()),
            other => return Err(format!("unexpected argument {other:?}\n{USAGE}")),
        }
    }
    let target =
        target.ok_or_else(|| format!("{command} needs a scenario name or file\n{USAGE}"))?;
    Ok(Options {
        target,
        seed,
        json,
        trace,
    })
}

fn parse_seed(v: Option<&String>) -> Result<u64, String> {
    let v = v.ok_or("--seed needs a number")?;
    v.parse::<u64>()
        .map_err(|_| format!("--seed {v:?} is not a whole number from 0 to {}", u64::MAX))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fail = |msg: String| {
        eprintln!("eos-sim: {msg}");
        ExitCode::from(2)
    };
    // `eos-sim check --help` and the like ask for the usage, not for a file called so.
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match args.first().map(String::as_str) {
        Some("list") => {
            // Columns as wide as their longest entry.
            let all = builtin::list();
            let name = all
                .iter()
                .map(|i| i.name.chars().count())
                .max()
                .unwrap_or(0);
            let group = all
                .iter()
                .map(|i| i.group.chars().count())
                .max()
                .unwrap_or(0);
            for info in &all {
                println!(
                    "{:<name$}  {:<group$}  {}",
                    info.name, info.group, info.summary
                );
            }
            ExitCode::SUCCESS
        }
        Some("lessons") => {
            let all = lesson::builtin_lessons();
            let id = all
                .iter()
                .map(|l| l.id().chars().count())
                .max()
                .unwrap_or(0);
            for l in &all {
                println!("{:<id$}  {}", l.id(), l.title().get(Lang::En));
            }
            ExitCode::SUCCESS
        }
        Some("run") => {
            let Options {
                target,
                seed,
                json,
                trace,
            } = match parse_options(&args[1..], "run", true) {
                Ok(o) => o,
                Err(e) => return fail(e),
            };
            let scenario = match load(&target) {
                Ok(s) => s,
                Err(e) => return fail(format!("{target}: {e}")),
            };
            let (report, names) = run(&scenario, seed, trace && !json);
            if json {
                match serde_json::to_string_pretty(&report) {
                    Ok(s) => println!("{s}"),
                    Err(e) => return fail(format!("cannot write the report: {e}")),
                }
            } else {
                print_summary(&report, &names);
            }
            ExitCode::SUCCESS
        }
        Some("check") => {
            let targets: Vec<&String> = args.iter().skip(1).collect();
            if targets.is_empty() {
                return fail(format!("check needs at least one file or name\n{USAGE}"));
            }
            let (mut passed, mut failed) = (0, 0);
            for t in targets {
                let checked = match load_checkable(t) {
                    Err(e) => Err(e),
                    Ok(Checkable::Scenario(s)) => Ok(check_scenario(&s)),
                    Ok(Checkable::Lesson(l)) => Ok(check_lesson(&l)),
                };
                match checked {
                    Err(e) => {
                        failed += 1;
                        eprintln!("FAIL {t}: {}", e.trim_end());
                    }
                    Ok((problems, ok)) if problems.is_empty() => {
                        passed += 1;
                        println!("ok   {t} ({ok})");
                    }
                    Ok((problems, _)) => {
                        failed += 1;
                        eprintln!("FAIL {t}:");
                        for p in problems {
                            eprintln!("  - {p}");
                        }
                    }
                }
            }
            println!("check: {passed} passed, {failed} failed");
            if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Some("compare") => {
            let Options {
                target, seed, json, ..
            } = match parse_options(&args[1..], "compare", false) {
                Ok(o) => o,
                Err(e) => return fail(e),
            };
            let scenario = match load(&target) {
                Ok(s) => s,
                Err(e) => return fail(format!("{target}: {e}")),
            };
            let lanes = match eos_core::compare::compare(&scenario, seed) {
                Ok(l) => l,
                Err(e) => return fail(e),
            };
            if json {
                let object: serde_json::Map<String, serde_json::Value> = lanes
                    .iter()
                    .filter_map(|l| {
                        serde_json::to_value(&l.report)
                            .ok()
                            .map(|v| (l.guarantee.clone(), v))
                    })
                    .collect();
                match serde_json::to_string_pretty(&object) {
                    Ok(s) => println!("{s}"),
                    Err(e) => return fail(format!("cannot write the report: {e}")),
                }
            } else {
                println!(
                    "scenario {} (seed {})",
                    scenario.name(),
                    seed.unwrap_or(scenario.seed())
                );
                let stages = lanes
                    .first()
                    .and_then(|l| l.report.processing.as_ref())
                    .map(|p| p.stages.join(" → "))
                    .unwrap_or_default();
                if !stages.is_empty() {
                    println!("end to end through the chain {stages}: each input's output from the last stage");
                }
                println!(
                    "{:<15} {:>9} {:>16} {:>11} {:>6} {:>7}",
                    "guarantee", "processed", "visible outputs", "duplicates", "lost", "unread"
                );
                for l in &lanes {
                    println!(
                        "{:<15} {:>9} {:>16} {:>11} {:>6} {:>7}",
                        l.guarantee,
                        l.processed,
                        l.visible_outputs,
                        l.duplicates,
                        l.lost,
                        l.unread.len()
                    );
                }
                if lanes.iter().any(|l| !l.unread.is_empty()) {
                    println!("unread: inputs no stage committed past before the run ended (a restarted processor would read them): not lost");
                }
            }
            ExitCode::SUCCESS
        }
        Some("cost") => {
            let (rest, polls) = match take_intervals(&args[1..]) {
                Ok(x) => x,
                Err(e) => return fail(e),
            };
            let Options {
                target, seed, json, ..
            } = match parse_options(&rest, "cost", false) {
                Ok(o) => o,
                Err(e) => return fail(e),
            };
            let scenario = match load(&target) {
                Ok(s) => s,
                Err(e) => return fail(format!("{target}: {e}")),
            };
            let points = match eos_core::cost::sweep_commit_interval(&scenario, &polls, seed) {
                Ok(p) => p,
                Err(e) => return fail(e.to_string()),
            };
            if json {
                match serde_json::to_string_pretty(&points) {
                    Ok(s) => println!("{s}"),
                    Err(e) => return fail(format!("cannot write the points: {e}")),
                }
            } else {
                println!(
                    "{:<15} {:>8} {:>13} {:>12} {:>13} {:>5} {:>5}",
                    "guarantee",
                    "commit ms",
                    "mean latency",
                    "p95 latency",
                    "msgs/record",
                    "dup",
                    "lost"
                );
                for p in &points {
                    println!(
                        "{:<15} {:>8} {:>10.1} ms {:>9.1} ms {:>13.2} {:>5} {:>5}",
                        p.guarantee,
                        p.commit_interval_ms,
                        p.mean_latency_us as f64 / 1000.0,
                        p.p95_latency_us as f64 / 1000.0,
                        p.messages_per_record_milli as f64 / 1000.0,
                        p.duplicates,
                        p.lost
                    );
                }
            }
            ExitCode::SUCCESS
        }
        Some("outcomes") => {
            let (rest, samples) = match take_samples(&args[1..]) {
                Ok(x) => x,
                Err(e) => return fail(e),
            };
            let Options {
                target, seed, json, ..
            } = match parse_options(&rest, "outcomes", false) {
                Ok(o) => o,
                Err(e) => return fail(e),
            };
            let scenario = match load(&target) {
                Ok(s) => s,
                Err(e) => return fail(format!("{target}: {e}")),
            };
            let lanes = match eos_core::outcomes::outcomes_over_time(&scenario, seed, samples) {
                Ok(l) => l,
                Err(e) => return fail(e),
            };
            if json {
                match serde_json::to_string_pretty(&lanes) {
                    Ok(s) => println!("{s}"),
                    Err(e) => return fail(format!("cannot write the outcomes: {e}")),
                }
            } else {
                for lane in &lanes {
                    println!("{}", lane.guarantee);
                    println!(
                        "{:>7} {:>10} {:>8} {:>11} {:>5}",
                        "step", "time ms", "visible", "duplicates", "lost"
                    );
                    for p in &lane.points {
                        println!(
                            "{:>7} {:>10.1} {:>8} {:>11} {:>5}",
                            p.step,
                            p.time as f64 / 1000.0,
                            p.visible,
                            p.duplicates,
                            p.lost
                        );
                    }
                }
            }
            ExitCode::SUCCESS
        }
        Some("help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => fail(format!("unknown command {other:?}\n{USAGE}")),
        None => fail(USAGE.to_string()),
    }
}
