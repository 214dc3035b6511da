//! What is wrong with a scenario, said so that an author can fix it: the field, the value,
//! and what is allowed.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// A path such as `producers[0].request_timeout_ms`.
    pub field: String,
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenarioError {
    TooLarge {
        bytes: usize,
        max: usize,
    },
    /// Not TOML, a wrong type, or an unknown field (toml's message names line and column).
    Parse {
        message: String,
    },
    Invalid(Vec<FieldError>),
    UnknownBuiltin {
        name: String,
        known: Vec<String>,
    },
    Io {
        path: String,
        message: String,
    },
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::TooLarge { bytes, max } => {
                write!(f, "the scenario is {bytes} bytes; the limit is {max}")
            }
            ScenarioError::Parse { message } => write!(f, "{}", message.trim_end()),
            ScenarioError::Invalid(errors) => {
                let plural = if errors.len() == 1 { "" } else { "s" };
                writeln!(f, "the scenario has {} error{plural}:", errors.len())?;
                for e in errors {
                    writeln!(f, "  - {e}")?;
                }
                Ok(())
            }
            ScenarioError::UnknownBuiltin { name, known } => write!(
                f,
                "no built-in scenario is called \"{name}\" and no such file exists; built-in scenarios: {}",
                known.join(", ")
            ),
            ScenarioError::Io { path, message } => write!(f, "cannot read {path}: {message}"),
        }
    }
}

impl std::error::Error for ScenarioError {}
