//! Lessons: one TOML file each (`lessons/*.toml`), a scenario plus ordered, bilingual
//! narration steps tied to points of the run, predict-then-reveal questions whose answers are
//! read from the simulation, and "try it" prompts. See `docs/lesson-format.md`.
//!
//! `Lesson::parse` checks everything that can be checked without running (fields, names,
//! both languages, no raw HTML); `Lesson::build` runs the simulation once, headless, to find
//! the step of every narration point; `Lesson::check` also verifies every question's answer.

pub mod builtin;
pub mod error;
pub mod limits;
pub mod point;
pub mod probe;
pub mod question;
pub mod schema;
pub mod text;
pub mod try_it;
pub mod walk;

pub use builtin::builtin_lessons;
pub use error::LessonError;
pub use point::Until;
pub use probe::Probe;
pub use question::{grade, Answer, Choice, Grade, Question, QuestionKind};
pub use schema::LessonFile;
pub use text::{Lang, Text};
pub use try_it::{Flip, TryAction, TryIt};
pub use walk::ResolvedStep;

use crate::kafka::processor::Guarantee;
use crate::scenario::{FieldError, Scenario, ScenarioError};
use crate::sim::{observe, Simulation};
use schema::{QuestionSpec, ScenarioSource, StepSpec, TryItSpec};
use serde::{Deserialize, Serialize};
use text::TextRule;

/// How a check reports a run: `Report::of`, or `Report::counts` without the invariants.
type ReportFn = fn(&str, &Simulation) -> crate::report::Report;

/// The only supported format version.
pub const VERSION: u32 = 1;

const LINE: TextRule = TextRule {
    max_chars: limits::MAX_LINE_CHARS,
    russian_letters: true,
};
const PROSE: TextRule = TextRule {
    max_chars: limits::MAX_TEXT_CHARS,
    russian_letters: true,
};
const LABEL: TextRule = TextRule {
    max_chars: limits::MAX_LINE_CHARS,
    russian_letters: false,
};

/// A narration step, validated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LessonStep {
    pub until: Until,
    pub text: Text,
    pub spotlight: Option<String>,
    pub question: Option<Question>,
    pub try_it: Vec<TryIt>,
    pub chart: Option<schema::ChartSpec>,
}

/// A lesson that parsed and validated: every name resolves and both languages are there.
#[derive(Clone, Debug, PartialEq)]
pub struct Lesson {
    pub file: LessonFile,
    pub steps: Vec<LessonStep>,
    scenario: Scenario,
}

/// What `Lesson::check` found: the points and how long the run is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checked {
    pub resolved: Vec<ResolvedStep>,
    /// Steps run to reach the last point.
    pub steps: u64,
    pub time_ms: u64,
}

/// Whether a lesson's `scenario = "..."` names a scenario file rather than a built-in.
pub fn is_scenario_path(name: &str) -> bool {
    name.ends_with(".toml") || name.contains('/')
}

/// Whether a file is a lesson rather than a scenario: it has a top-level `kind = "lesson"`
/// line (scenario files cannot: they reject unknown fields). Decided on the text, so that a
/// lesson with a TOML error is still reported as a lesson.
pub fn is_lesson(text: &str) -> bool {
    kind_line(text).is_some_and(|v| v.starts_with("\"lesson\"") || v.starts_with("'lesson'"))
}

/// The value of the top-level `kind = ...` line (one before the first table header), as
/// written, quotes included. Tables may have `kind` fields of their own (a Flink operator's).
pub fn kind_line(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim_start)
        .take_while(|line| !line.starts_with('['))
        .find_map(|line| {
            Some(
                line.strip_prefix("kind")?
                    .trim_start()
                    .strip_prefix('=')?
                    .trim(),
            )
        })
}

/// Every name a step may spotlight in this simulation: processes (`broker-0`, producers,
/// processors, consumers), partitions as the scenario's names print them (`events-0`), and
/// `coordinator` when transactions are in play.
pub fn spotlight_names(sim: &Simulation) -> Vec<String> {
    let mut names: Vec<String> = sim
        .brokers
        .iter()
        .map(|b| format!("broker-{}", b.id))
        .collect();
    names.extend(sim.names.producers.iter().cloned());
    names.extend(sim.names.processors.iter().cloned());
    names.extend(sim.names.consumers.iter().cloned());
    names.extend(
        observe::partitions(sim)
            .into_iter()
            .map(|tp| sim.names.tp(tp)),
    );
    let transactions = sim.producers.iter().any(|p| p.is_transactional())
        || sim
            .processors
            .iter()
            .any(|p| p.settings.guarantee == Guarantee::ExactlyOnce);
    if transactions
        || sim
            .flink
            .as_ref()
            .is_some_and(|j| j.tasks.iter().any(|t| t.sink.is_some()))
    {
        names.push("coordinator".into());
    }
    if let Some(job) = &sim.flink {
        names.push("jobmanager".into());
        names.extend(job.task_names());
    }
    names
}

fn prefixed(prefix: &str, e: ScenarioError) -> Vec<FieldError> {
    match e {
        ScenarioError::Invalid(errors) => errors
            .into_iter()
            .map(|f| FieldError {
                field: format!("{prefix}.{}", f.field),
                message: f.message,
            })
            .collect(),
        other => vec![FieldError {
            field: prefix.to_string(),
            message: other.to_string(),
        }],
    }
}

/// A TOML error with the fix for the two mistakes an author makes most with the top-level
/// keys: one written below a `[table]` header (TOML reads it as that table's), and none at
/// all for the scenario.
fn with_hint(message: String) -> String {
    const TOP: [&str; 5] = ["scenario", "seed", "kind", "version", "id"];
    let hint = if let Some(key) = TOP
        .iter()
        .find(|k| message.contains(&format!("unknown field `{k}`")))
    {
        format!(
            "hint: `{key} = …` is a top-level key: in TOML a key below a `[table]` header belongs to that table, so write it above the first header"
        )
    } else if message.contains("missing field `scenario`") {
        "hint: name the lesson's scenario above the first table header: `scenario = \"seed-frozen-broker\"` (a built-in scenario), `scenario = \"mine.toml\"` (a file beside the lesson), or an inline `[scenario]` table".to_string()
    } else {
        return message;
    };
    format!("{}\n{hint}", message.trim_end())
}

fn check_id(id: &str, errors: &mut Vec<FieldError>) {
    let ok_chars = id
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    let len = id.chars().count();
    if len == 0 || len > limits::MAX_ID_CHARS || !ok_chars {
        errors.push(FieldError {
            field: "id".into(),
            message: format!(
                "\"{id}\" is not an id (1-{} characters: a-z, 0-9 and -)",
                limits::MAX_ID_CHARS
            ),
        });
    }
}

fn question(
    q: &QuestionSpec,
    sim: &Simulation,
    field: &str,
    errors: &mut Vec<FieldError>,
) -> Option<Question> {
    let before = errors.len();
    text::check(&q.prompt, &format!("{field}.prompt"), PROSE, errors);
    if let Some(e) = &q.explanation {
        text::check(e, &format!("{field}.explanation"), PROSE, errors);
    }
    let probe = match Probe::resolve(q, sim, field) {
        Ok(p) => Some(p),
        Err(e) => {
            errors.extend(e);
            None
        }
    };
    let err = |f: &str, message: String| FieldError {
        field: format!("{field}.{f}"),
        message,
    };
    let kind = if q.choices.is_empty() {
        if q.expect.is_some() {
            errors.push(err(
                "expect",
                "is only for choice questions; a number question's answer is the number".into(),
            ));
        }
        QuestionKind::Number { answer: q.answer }
    } else {
        let n = q.choices.len();
        if !(limits::MIN_CHOICES..=limits::MAX_CHOICES).contains(&n) {
            errors.push(err(
                "choices",
                format!(
                    "has {n} choices (allowed: {} to {})",
                    limits::MIN_CHOICES,
                    limits::MAX_CHOICES
                ),
            ));
        }
        for (i, c) in q.choices.iter().enumerate() {
            let t = Text {
                en: c.en.clone(),
                ru: c.ru.clone(),
            };
            text::check(&t, &format!("{field}.choices[{i}]"), LABEL, errors);
        }
        let answer = u32::try_from(q.answer).ok().filter(|a| (*a as usize) < n);
        if answer.is_none() {
            errors.push(err(
                "answer",
                format!(
                    "{} is not a choice (a choice question's answer is an index, 0 to {})",
                    q.answer,
                    n.saturating_sub(1)
                ),
            ));
        }
        let valued = q.choices.iter().filter(|c| c.value.is_some()).count();
        if valued == 0 && q.expect.is_none() {
            errors.push(err(
                "expect",
                "is required when the choices carry no value: say what the probe reads when the answer is right".into(),
            ));
        } else if valued > 0 && valued < n {
            errors.push(err(
                "choices",
                format!("{valued} of {n} choices {} a value; give every choice a value, or none and set expect", if valued == 1 { "has" } else { "have" }),
            ));
        } else if valued == n && q.expect.is_some() {
            errors.push(err(
                "expect",
                "is not used when every choice has a value (the right choice is the one whose value the probe reads)".into(),
            ));
        }
        let mut values: Vec<i64> = q.choices.iter().filter_map(|c| c.value).collect();
        crate::order::sort(&mut values);
        if values.windows(2).any(|w| w[0] == w[1]) {
            errors.push(err(
                "choices",
                "two choices have the same value: the probe could not tell them apart".into(),
            ));
        }
        QuestionKind::Choice {
            choices: q
                .choices
                .iter()
                .map(|c| Choice {
                    text: Text {
                        en: c.en.clone(),
                        ru: c.ru.clone(),
                    },
                    value: c.value,
                })
                .collect(),
            answer: answer.unwrap_or_default(),
            expect: q.expect,
        }
    };
    if errors.len() > before {
        return None;
    }
    Some(Question {
        prompt: q.prompt.clone(),
        kind,
        probe: probe?,
        explanation: q.explanation.clone(),
    })
}

fn try_it(
    t: &TryItSpec,
    scenario: &Scenario,
    field: &str,
    errors: &mut Vec<FieldError>,
) -> Option<TryIt> {
    let before = errors.len();
    text::check(&t.text, &format!("{field}.text"), PROSE, errors);
    let set = [t.inject.is_some(), t.flip.is_some(), t.guarantee.is_some()]
        .iter()
        .filter(|s| **s)
        .count();
    let action = if set != 1 {
        errors.push(FieldError {
            field: field.to_string(),
            message: format!("has {set} actions; give exactly one of inject, flip, guarantee"),
        });
        None
    } else if let Some(f) = &t.inject {
        Some(TryAction::Inject(Box::new(f.clone())))
    } else if let Some(flip) = &t.flip {
        match Flip::parse(flip) {
            Some(f) => Some(TryAction::Flip(f)),
            None => {
                let known: Vec<&str> = Flip::ALL.iter().map(|f| f.name()).collect();
                errors.push(FieldError {
                    field: format!("{field}.flip"),
                    message: format!(
                        "\"{flip}\" cannot be flipped (allowed: {})",
                        known.join(", ")
                    ),
                });
                None
            }
        }
    } else {
        let g = t.guarantee.clone().unwrap_or_default();
        match Guarantee::parse(&g) {
            Some(g) => Some(TryAction::Guarantee(g)),
            None => {
                errors.push(FieldError {
                    field: format!("{field}.guarantee"),
                    message: format!(
                        "\"{g}\" is not a guarantee (allowed: at-most-once, at-least-once, exactly-once)"
                    ),
                });
                None
            }
        }
    };
    let action = action?;
    let it = TryIt {
        text: t.text.clone(),
        action,
    };
    if let Err(e) = it.apply(scenario) {
        let fault_index = scenario.file.faults.len();
        let errs = match (&it.action, e) {
            // The injected fault is the schedule's last entry: name it by the lesson's path.
            (TryAction::Inject(_), ScenarioError::Invalid(list)) => list
                .into_iter()
                .map(|f| {
                    let local = f
                        .field
                        .strip_prefix(&format!("faults[{fault_index}]"))
                        .map(|rest| format!("{field}.inject{rest}"));
                    FieldError {
                        field: local.unwrap_or_else(|| format!("{field}.inject")),
                        message: f.message,
                    }
                })
                .collect(),
            (_, e) => vec![FieldError {
                field: field.to_string(),
                message: format!("the changed scenario is invalid: {}", e.to_string().trim()),
            }],
        };
        errors.extend(errs);
    }
    (errors.len() == before).then_some(it)
}

fn step(
    s: &StepSpec,
    i: usize,
    scenario: &Scenario,
    sim: &Simulation,
    spotlights: &[String],
    errors: &mut Vec<FieldError>,
) -> Option<LessonStep> {
    let before = errors.len();
    let field = format!("steps[{i}]");
    let until = match Until::from_spec(&s.until, &format!("{field}.until")) {
        Ok(u) => Some(u),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    text::check(&s.text, &format!("{field}.text"), PROSE, errors);
    if let Some(name) = &s.spotlight {
        if !spotlights.contains(name) {
            // "broker 0" (as a fault's target may be written) or "Billing": the name meant.
            let meant = spotlights
                .iter()
                .find(|a| a.eq_ignore_ascii_case(&name.trim().replace(' ', "-")))
                .map(|a| format!("; did you mean \"{a}\"?"))
                .unwrap_or_default();
            errors.push(FieldError {
                field: format!("{field}.spotlight"),
                message: format!(
                    "\"{name}\" is not in the simulation{meant} (allowed: {})",
                    spotlights.join(", ")
                ),
            });
        }
    }
    let q = s
        .question
        .as_ref()
        .map(|q| question(q, sim, &format!("{field}.question"), errors));
    if s.try_it.len() > limits::MAX_TRY_ITS {
        errors.push(FieldError {
            field: format!("{field}.try_it"),
            message: format!(
                "has {} entries; the limit is {}",
                s.try_it.len(),
                limits::MAX_TRY_ITS
            ),
        });
    }
    let tries: Vec<Option<TryIt>> = s
        .try_it
        .iter()
        .enumerate()
        .map(|(j, t)| try_it(t, scenario, &format!("{field}.try_it[{j}]"), errors))
        .collect();
    if errors.len() > before {
        return None;
    }
    Some(LessonStep {
        until: until?,
        text: s.text.clone(),
        spotlight: s.spotlight.clone(),
        question: q.flatten(),
        try_it: tries.into_iter().flatten().collect(),
        chart: s.chart.clone(),
    })
}

/// A step's chart: a kind it knows, a built-in scenario it can measure, values it accepts.
fn chart(
    c: &schema::ChartSpec,
    field: &str,
    builtin: &dyn Fn(&str) -> Result<Scenario, ScenarioError>,
    errors: &mut Vec<FieldError>,
) {
    let mut err = |sub: &str, message: String| {
        errors.push(FieldError {
            field: format!("{field}.{sub}"),
            message,
        })
    };
    if c.kind != "cost" {
        err(
            "kind",
            format!("\"{}\" is not a chart (allowed: cost)", c.kind),
        );
    }
    match builtin(&c.scenario) {
        Ok(s) if s.file.processors.is_empty() => err(
            "scenario",
            format!(
                "\"{}\" has no read-process-write stage to measure",
                c.scenario
            ),
        ),
        Ok(_) => {}
        Err(_) => err(
            "scenario",
            format!("\"{}\" is not a built-in scenario", c.scenario),
        ),
    }
    if let Err(e) = crate::cost::check_values(&c.commit_intervals_ms) {
        err("commit_intervals_ms", e.to_string());
    }
}

impl Lesson {
    /// Parses and validates TOML text (without running the simulation).
    pub fn parse(text: &str) -> Result<Lesson, LessonError> {
        Lesson::parse_with(text, &crate::builtin::get)
    }

    /// As `parse`, finding the scenario a lesson names with `scenario` (the command line
    /// also reads scenario files named by path).
    pub fn parse_with(
        text: &str,
        scenario: &dyn Fn(&str) -> Result<Scenario, ScenarioError>,
    ) -> Result<Lesson, LessonError> {
        Lesson::from_file_with(Lesson::read_file(text)?, scenario)
    }

    /// Reads TOML text into a lesson file, without validating it (the import worker reads,
    /// the page validates).
    pub fn read_file(text: &str) -> Result<LessonFile, LessonError> {
        if text.len() > limits::MAX_FILE_BYTES {
            return Err(LessonError::TooLarge {
                bytes: text.len(),
                max: limits::MAX_FILE_BYTES,
            });
        }
        toml::from_str(text).map_err(|e| {
            let message = crate::scenario::error::plain_types(&e.to_string());
            // A number too large for its type in the lesson's inline scenario: the field's
            // own range, as for a scenario file. (Only the scenario is validated: the
            // lesson's own checks would bring the built-ins into the import worker.)
            let range = crate::scenario::field_range(text, &e, &message, &|patched| {
                let file: LessonFile = toml::from_str(patched).ok()?;
                match file.scenario {
                    ScenarioSource::Inline(s) => crate::scenario::invalid_fields_of(&s),
                    ScenarioSource::Builtin(_) => None,
                }
            });
            LessonError::Parse {
                message: with_hint(range.unwrap_or(message)),
            }
        })
    }

    pub fn from_file(file: LessonFile) -> Result<Lesson, LessonError> {
        Lesson::from_file_with(file, &crate::builtin::get)
    }

    /// As `from_file`, finding built-in scenarios with `builtin`: the web app passes its
    /// pre-parsed ones, so that no TOML parser ships to the browser.
    pub fn from_file_with(
        file: LessonFile,
        builtin: &dyn Fn(&str) -> Result<Scenario, ScenarioError>,
    ) -> Result<Lesson, LessonError> {
        let mut errors = Vec::new();
        let mut err = |field: &str, message: String| {
            errors.push(FieldError {
                field: field.into(),
                message,
            })
        };
        if file.kind != "lesson" {
            err("kind", format!("\"{}\" must be \"lesson\"", file.kind));
        }
        if file.version != VERSION {
            err(
                "version",
                format!("{} is not supported (allowed: {VERSION})", file.version),
            );
        }
        check_id(&file.id, &mut errors);
        text::check(&file.title, "title", LINE, &mut errors);
        text::check(&file.summary, "summary", PROSE, &mut errors);
        let scenario = match &file.scenario {
            ScenarioSource::Builtin(name) => match builtin(name) {
                Ok(s) => Some(s),
                // A scenario file named by path (the command line reads those): its own
                // errors, each under the file's name (they are the file's fields, not the
                // lesson's).
                Err(ScenarioError::Invalid(list)) if is_scenario_path(name) => {
                    errors.extend(list.into_iter().map(|f| FieldError {
                        field: format!("{name}: {}", f.field),
                        message: f.message,
                    }));
                    None
                }
                Err(e) if is_scenario_path(name) => {
                    errors.push(FieldError {
                        field: "scenario".into(),
                        message: format!("\"{name}\": {e}"),
                    });
                    None
                }
                // The built-ins' names come from the resolver's error: naming
                // `crate::builtin`'s list here would keep every scenario's TOML text in the
                // page, which resolves built-ins from its own pre-parsed copies.
                Err(e) => {
                    let message = match e {
                        ScenarioError::UnknownBuiltin { known, .. } => format!(
                            "\"{name}\" is not a built-in scenario (built-ins: {})",
                            known.join(", ")
                        ),
                        other => format!("\"{name}\": {other}"),
                    };
                    errors.push(FieldError {
                        field: "scenario".into(),
                        message,
                    });
                    None
                }
            },
            ScenarioSource::Inline(f) => match Scenario::from_file((**f).clone()) {
                Ok(s) => Some(s),
                Err(e) => {
                    errors.extend(prefixed("scenario", e));
                    None
                }
            },
        };
        let n = file.steps.len();
        if n == 0 || n > limits::MAX_STEPS {
            errors.push(FieldError {
                field: "steps".into(),
                message: format!("has {n} steps (allowed: 1 to {})", limits::MAX_STEPS),
            });
        }
        let Some(mut scenario) = scenario else {
            return Err(LessonError::Invalid(errors));
        };
        // The lesson's seed is its scenario's: the page loads `scenario()` as it is, and a
        // try-it prompt changes it, so both run under the seed the points were resolved with.
        if let Some(seed) = file.seed {
            scenario = scenario.with_seed(seed);
        }
        let sim = scenario.simulation(None);
        let spotlights = spotlight_names(&sim);
        let steps: Vec<Option<LessonStep>> = file
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| step(s, i, &scenario, &sim, &spotlights, &mut errors))
            .collect();
        for (i, s) in file.steps.iter().enumerate() {
            if let Some(c) = &s.chart {
                chart(c, &format!("steps[{i}].chart"), builtin, &mut errors);
            }
        }
        if !errors.is_empty() {
            return Err(LessonError::Invalid(errors));
        }
        Ok(Lesson {
            steps: steps.into_iter().flatten().collect(),
            file,
            scenario,
        })
    }

    pub fn id(&self) -> &str {
        &self.file.id
    }

    pub fn title(&self) -> &Text {
        &self.file.title
    }

    pub fn summary(&self) -> &Text {
        &self.file.summary
    }

    /// The scenario the lesson runs (a built-in or its inline `[scenario]`), under the
    /// lesson's seed.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The seed the lesson runs with: its own override, or the scenario's.
    pub fn seed(&self) -> u64 {
        self.file.seed.unwrap_or(self.scenario.seed())
    }

    /// A fresh simulation of the lesson's scenario and seed, at step 0.
    pub fn simulation(&self) -> Simulation {
        self.scenario.simulation(Some(self.seed()))
    }

    fn walk(&self) -> Result<walk::Walk, LessonError> {
        let points: Vec<Until> = self.steps.iter().map(|s| s.until.clone()).collect();
        let probes: Vec<Option<&Probe>> = self
            .steps
            .iter()
            .map(|s| s.question.as_ref().map(|q| &q.probe))
            .collect();
        walk::walk(self.simulation(), &points, &probes).map_err(|e| LessonError::Invalid(vec![e]))
    }

    /// A fresh simulation (at step 0) and, per narration step, the step of the run at which
    /// its point is reached. Runs the simulation once, headless; deterministic.
    pub fn build(&self) -> Result<(Simulation, Vec<ResolvedStep>), LessonError> {
        let w = self.walk()?;
        Ok((self.simulation(), w.resolved))
    }

    /// What the whole run, under the lesson's seed, breaks of the `[expect]` of the lesson's
    /// own scenario, inline or in a file it names (a built-in's is checked with the
    /// built-in).
    fn inline_expect(&self, report: ReportFn) -> Vec<FieldError> {
        // Named as the file's field, like its other errors, or the inline table's.
        let field = match &self.file.scenario {
            ScenarioSource::Inline(_) => Some("scenario.expect".to_string()),
            ScenarioSource::Builtin(name) => {
                is_scenario_path(name).then(|| format!("{name}: expect"))
            }
        };
        let (Some(field), Some(expect)) = (field, &self.scenario.file.expect) else {
            return Vec::new();
        };
        let mut sim = self.scenario.simulation_without_trace(Some(self.seed()));
        sim.run(crate::RunLimit::Completion);
        let report = report(self.scenario.name(), &sim);
        crate::scenario::expect::check(expect, &report, &self.scenario)
            .into_iter()
            .map(|message| FieldError {
                field: field.clone(),
                message,
            })
            .collect()
    }

    /// Everything `eos-sim check` verifies: every point reachable in order, and every
    /// question's answer equal to what its probe reads at its point.
    pub fn check(&self) -> Result<Checked, LessonError> {
        self.check_with(crate::report::Report::of)
    }

    /// As `check`, without the simulator's own invariants among the scenario's
    /// expectations: the page leaves their code out (`eos-sim check` and the property tests
    /// check them).
    pub fn check_without_invariants(&self) -> Result<Checked, LessonError> {
        self.check_with(crate::report::Report::counts)
    }

    fn check_with(&self, report: ReportFn) -> Result<Checked, LessonError> {
        let w = self.walk()?;
        let mut errors = Vec::new();
        for (i, (s, reading)) in self.steps.iter().zip(&w.readings).enumerate() {
            let (Some(q), Some(actual)) = (&s.question, reading) else {
                continue;
            };
            if let Some(why) = q.disagreement(*actual) {
                let at = w.resolved.get(i).map_or(0, |r| r.step);
                errors.push(FieldError {
                    field: format!("steps[{i}].question.answer"),
                    message: format!("{why} (step {at})"),
                });
            }
        }
        errors.extend(self.inline_expect(report));
        if !errors.is_empty() {
            return Err(LessonError::Invalid(errors));
        }
        Ok(Checked {
            resolved: w.resolved,
            steps: w.steps,
            time_ms: crate::time::to_ms(w.end),
        })
    }
}
