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

/// A TOML error's message with Rust's type names said in words: "expected u32" means
/// nothing to a course author; "expected a whole number from 0 to 4294967295" does.
pub fn plain_types(message: &str) -> String {
    const WORDS: [(&str, &str); 9] = [
        ("u8", "a whole number from 0 to 255"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number from 0 to 4294967295"),
        ("u64", "a whole number, 0 or more"),
        ("usize", "a whole number, 0 or more"),
        ("i32", "a whole number"),
        ("i64", "a whole number"),
        ("f64", "a number"),
        ("f32", "a number"),
    ];
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("expected ") {
        let (before, after) = rest.split_at(at + "expected ".len());
        out.push_str(before);
        let word_end = after
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(after.len());
        let (word, tail) = after.split_at(word_end);
        match WORDS.iter().find(|(rust, _)| *rust == word) {
            Some((_, plain)) => out.push_str(plain),
            None => out.push_str(word),
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod plain_types_tests {
    use super::plain_types;

    #[test]
    fn rust_type_names_become_words_and_the_rest_is_kept() {
        assert_eq!(
            plain_types("invalid value: integer `1000000000000`, expected u32"),
            "invalid value: integer `1000000000000`, expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain_types("invalid value: integer `-5`, expected u64\nline 3"),
            "invalid value: integer `-5`, expected a whole number, 0 or more\nline 3"
        );
        assert_eq!(plain_types("expected a string"), "expected a string");
        assert_eq!(plain_types("expected u32x"), "expected u32x");
        assert_eq!(plain_types("no types here"), "no types here");
    }
}
