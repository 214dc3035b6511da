//! The built-in lessons, compiled in from `lessons/*.toml`, in course order.

use super::{Lesson, LessonError};

/// The lesson the playground opens on.
pub const DEFAULT: &str = "idempotent-producer";

macro_rules! builtin {
    ($($id:literal),* $(,)?) => {
        /// (id, TOML text) of every built-in lesson, in course order; the first is the default.
        pub const BUILTIN: &[(&str, &str)] = &[
            $(($id, include_str!(concat!("../../../lessons/", $id, ".toml")))),*
        ];
    };
}

builtin!(
    "idempotent-producer",
    "delivery-guarantees",
    "lost-ack",
    "five-batch-window",
    "acks-and-a-paused-leader",
    "the-isr-and-a-network-partition",
    "unclean-leader-election",
    "commit-and-abort",
    "last-stable-offset",
    "a-commit-waiting-for-its-marker",
    "zombie-fencing",
    "read-process-write",
    "flink-barriers",
    "flink-at-least-once",
    "flink-unaligned",
    "flink-two-phase-commit",
    "alo-idempotent-consumer",
    "where-exactly-once-ends",
);

pub fn ids() -> Vec<String> {
    BUILTIN.iter().map(|(id, _)| id.to_string()).collect()
}

pub fn text(id: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(i, _)| *i == id).map(|(_, t)| *t)
}

pub fn get(id: &str) -> Result<Lesson, LessonError> {
    match text(id) {
        Some(t) => Lesson::parse(t),
        None => Err(LessonError::UnknownBuiltin {
            id: id.to_string(),
            known: ids(),
        }),
    }
}

/// Every built-in lesson that parses (all of them, as the tests check), in course order.
pub fn builtin_lessons() -> Vec<Lesson> {
    BUILTIN
        .iter()
        .filter_map(|(_, t)| Lesson::parse(t).ok())
        .collect()
}
