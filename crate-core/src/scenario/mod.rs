//! Scenario files: TOML, `version = 1`, validated field by field with explicit limits.
//! See `docs/scenario-format.md`.

pub mod build;
pub mod build_flink;
pub mod builtin;
pub mod error;
pub mod expect;
pub mod flink_spec;
pub mod limits;
pub mod schema;
pub mod stages;

pub use error::{FieldError, ScenarioError};
pub use schema::ScenarioFile;

use crate::sim::simulation::Setup;
use crate::sim::Simulation;

/// A scenario that parsed and validated: it can always be built.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub file: ScenarioFile,
    setup: Setup,
}

/// What to say when a file that is not a scenario is read as one: a lesson, or a file with
/// a `kind` line (which scenarios do not have) that is not a lesson's.
fn not_a_scenario(text: &str) -> Option<String> {
    if crate::lesson::is_lesson(text) {
        return Some(
            "this is a lesson file (it says kind = \"lesson\"), not a scenario: \
             `eos-sim check` checks lessons and the playground's import opens them; `eos-sim run` \
             takes scenarios"
                .into(),
        );
    }
    if let Some(kind) = crate::lesson::kind_line(text) {
        return Some(format!(
            "kind = {kind}: a scenario file has no `kind`, and a lesson file says kind = \"lesson\""
        ));
    }
    // A lesson without its `kind` line would be read as a scenario with unknown fields.
    let top_level_id = text
        .lines()
        .map(str::trim_start)
        .take_while(|line| !line.starts_with('['))
        .any(|line| {
            line.strip_prefix("id")
                .is_some_and(|r| r.trim_start().starts_with('='))
        });
    let steps = text.lines().any(|line| line.trim() == "[[steps]]");
    (top_level_id && steps).then(|| {
        "this looks like a lesson (it has an `id` and [[steps]]) but does not say so: add kind = \"lesson\" at the top of the file, above the first table header"
            .into()
    })
}

/// Every process a fault can target in `file`: brokers, producers, processors, consumers,
/// Flink tasks and task managers.
pub fn process_names_of(file: &ScenarioFile) -> Vec<String> {
    let brokers = (0..file.cluster.brokers).map(|b| format!("broker-{b}"));
    brokers
        .chain(file.producers.iter().map(|p| p.name.clone()))
        .chain(file.processors.iter().map(|p| p.name.clone()))
        .chain(file.consumers.iter().map(|c| c.name.clone()))
        .chain(flink_process_names_of(file))
        .collect()
}

/// The Flink job's processes a fault can target: its subtasks, then its task managers.
/// The JobManager restarts them itself (a failover), and a task manager can only crash.
pub fn flink_process_names_of(file: &ScenarioFile) -> Vec<String> {
    let Some(f) = file.flink.as_ref() else {
        return Vec::new();
    };
    let mut names = build_flink::task_names(f);
    names.extend((0..f.taskmanagers.max(1)).map(|w| format!("taskmanager-{w}")));
    names
}

/// A whole number that does not fit its field's type (`count = -5`) is told the field's own
/// range, not the type's ("from 1 to 2000000", not "from 0 to 4294967295"): the file is read
/// again with the type's largest value in its place, and the validation, which knows every
/// field's range, says it.
/// `validate` reads the patched text and gives the field errors it breaks (a lesson's too,
/// with its inline scenario's).
pub(crate) fn field_range(
    text: &str,
    e: &toml::de::Error,
    message: &str,
    validate: &dyn Fn(&str) -> Option<Vec<FieldError>>,
) -> Option<String> {
    const TYPES: [(&str, &str, &str); 4] = [
        ("u8", "255", "a whole number from 0 to 255"),
        ("u16", "65535", "a whole number from 0 to 65535"),
        ("u32", "4294967295", "a whole number from 0 to 4294967295"),
        ("u64", "9223372036854775807", "a whole number, 0 or more"),
    ];
    let raw = e.message();
    if !raw.starts_with("invalid value: integer") {
        return None;
    }
    let (_, probe, said) = TYPES
        .iter()
        .find(|(t, _, _)| raw.ends_with(&format!("expected {t}")))?;
    let span = e.span()?;
    let patched = format!(
        "{}{probe}{}",
        text.get(..span.start)?,
        text.get(span.end..)?
    );
    let errors = validate(&patched)?;
    let allowed = errors.iter().find_map(|f| {
        let rest = f.message.strip_prefix(*probe)?;
        let range = rest.split_once("(allowed: ")?.1;
        range.split_once(')').map(|(r, _)| r.to_string())
    })?;
    Some(message.replacen(said, &format!("a whole number from {allowed}"), 1))
}

/// The fields scenario `text` breaks, if it reads and breaks any.
pub(crate) fn invalid_fields(text: &str) -> Option<Vec<FieldError>> {
    invalid_fields_of(&toml::from_str(text).ok()?)
}

/// The fields scenario `file` breaks, if any.
pub(crate) fn invalid_fields_of(file: &ScenarioFile) -> Option<Vec<FieldError>> {
    match build::build(file) {
        Err(ScenarioError::Invalid(errors)) => Some(errors),
        _ => None,
    }
}

impl Scenario {
    /// Parses and validates TOML text.
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        if text.len() > limits::MAX_FILE_BYTES {
            return Err(ScenarioError::TooLarge {
                bytes: text.len(),
                max: limits::MAX_FILE_BYTES,
            });
        }
        let file: ScenarioFile = toml::from_str(text).map_err(|e| ScenarioError::Parse {
            message: not_a_scenario(text).unwrap_or_else(|| {
                let message = error::plain_types(&e.to_string());
                field_range(text, &e, &message, &invalid_fields).unwrap_or(message)
            }),
        })?;
        Scenario::from_file(file)
    }

    pub fn from_file(file: ScenarioFile) -> Result<Scenario, ScenarioError> {
        let setup = build::build(&file)?;
        Ok(Scenario { file, setup })
    }

    pub fn name(&self) -> &str {
        &self.file.name
    }

    pub fn seed(&self) -> u64 {
        self.file.seed
    }

    /// Whether each non-transactional producer is idempotent as its client resolves it
    /// (on by default only while acks, retries and max.in.flight allow it).
    pub fn plain_producers_idempotent(&self) -> Vec<bool> {
        self.setup
            .producers
            .iter()
            .filter(|p| p.txn.is_none())
            .map(|p| p.config.enable_idempotence)
            .collect()
    }

    /// The same scenario with one more fault in its schedule (validated like any other).
    pub fn with_fault(&self, fault: schema::FaultSpec) -> Result<Scenario, ScenarioError> {
        let mut file = self.file.clone();
        file.faults.push(fault);
        Scenario::from_file(file)
    }

    /// How many records the scenario's producers send in all: their sends and their
    /// transactions' sends.
    pub fn records_sent(&self) -> u64 {
        self.file
            .producers
            .iter()
            .flat_map(|p| {
                p.sends
                    .iter()
                    .chain(p.transactions.iter().flat_map(|t| t.sends.iter()))
            })
            .map(|s| u64::from(s.count))
            .sum()
    }

    /// Every process a fault can target, by the name a scenario uses for it.
    pub fn process_names(&self) -> Vec<String> {
        process_names_of(&self.file)
    }

    /// The Flink job's subtasks and task managers (`flink_process_names_of`).
    pub fn flink_process_names(&self) -> Vec<String> {
        flink_process_names_of(&self.file)
    }

    /// The scenario as TOML again (for export).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(&self.file).unwrap_or_default()
    }

    /// A fresh simulation of this scenario; `seed` overrides the file's.
    pub fn simulation(&self, seed: Option<u64>) -> Simulation {
        let mut setup = self.setup.clone();
        if let Some(s) = seed {
            setup.seed = s;
        }
        Simulation::new(setup)
    }

    /// The same scenario with its run cut at `max_steps` at most (the page keeps every step
    /// to step back through, so it runs shorter than the CLI may).
    /// The same scenario under another seed.
    pub fn with_seed(mut self, seed: u64) -> Scenario {
        self.setup.seed = seed;
        self.file.seed = seed;
        self
    }

    pub fn with_step_cap(mut self, max_steps: u64) -> Scenario {
        self.setup.max_steps = self.setup.max_steps.min(max_steps);
        self.file.limits.max_steps = self.file.limits.max_steps.min(max_steps);
        self
    }

    /// The same, without keeping the per-step trace (for long headless runs).
    pub fn simulation_without_trace(&self, seed: Option<u64>) -> Simulation {
        let mut setup = self.setup.clone();
        if let Some(s) = seed {
            setup.seed = s;
        }
        setup.keep_trace = false;
        Simulation::new(setup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_added_fault_joins_the_schedule_and_a_bad_one_is_refused() {
        let s = builtin::get(builtin::DEFAULT).expect("built-in");
        let before = s.file.faults.len();
        let more = s
            .with_fault(schema::FaultSpec {
                at_ms: 3,
                action: "crash".into(),
                target: Some("broker-0".into()),
                count: 1,
                ..Default::default()
            })
            .expect("valid");
        assert_eq!(more.file.faults.len(), before + 1);
        let err = s
            .with_fault(schema::FaultSpec {
                at_ms: 3,
                action: "crash".into(),
                target: Some("nobody".into()),
                count: 1,
                ..Default::default()
            })
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"nobody\" is not a process"), "{err}");
        assert_eq!(s.process_names(), vec!["broker-0", "app", "reader"]);
    }
}
