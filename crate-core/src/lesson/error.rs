//! What is wrong with a lesson, said so that an author can fix it: the field path, the value,
//! and what is allowed (the same shape as scenario errors).

use crate::scenario::FieldError;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LessonError {
    TooLarge {
        bytes: usize,
        max: usize,
    },
    /// Not TOML, a wrong type, or an unknown field (toml's message names line and column).
    Parse {
        message: String,
    },
    /// Every rule the lesson breaks, each with its field path (`steps[2].question.answer`).
    Invalid(Vec<FieldError>),
    UnknownBuiltin {
        id: String,
        known: Vec<String>,
    },
    Io {
        path: String,
        message: String,
    },
}

impl LessonError {
    pub(crate) fn one(field: impl Into<String>, message: impl Into<String>) -> LessonError {
        LessonError::Invalid(vec![FieldError {
            field: field.into(),
            message: message.into(),
        }])
    }
}

impl fmt::Display for LessonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LessonError::TooLarge { bytes, max } => {
                write!(f, "the lesson is {bytes} bytes; the limit is {max}")
            }
            LessonError::Parse { message } => write!(f, "{}", message.trim_end()),
            LessonError::Invalid(errors) => {
                let plural = if errors.len() == 1 { "" } else { "s" };
                writeln!(f, "the lesson has {} error{plural}:", errors.len())?;
                // An error of several lines (a scenario file's TOML error with its caret
                // under the line) stays indented under its own dash.
                for e in errors {
                    writeln!(
                        f,
                        "  - {}",
                        e.to_string().trim_end().replace('\n', "\n    ")
                    )?;
                }
                Ok(())
            }
            LessonError::UnknownBuiltin { id, known } => write!(
                f,
                "no built-in lesson is called \"{id}\"; built-in lessons: {}",
                known.join(", ")
            ),
            LessonError::Io { path, message } => write!(f, "cannot read {path}: {message}"),
        }
    }
}

impl std::error::Error for LessonError {}
