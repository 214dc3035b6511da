//! The built-in lessons, pre-parsed at build time (see `build.rs`) like the scenarios and
//! embedded in the same binary form (`wire`): the same values
//! `eos_core::lesson::builtin_lessons` parses from TOML, without a TOML parser.

use eos_core::lesson::schema::{LessonFile, ScenarioSource};
use eos_core::Lesson;

mod generated {
    include!(concat!(env!("OUT_DIR"), "/builtin_lessons.rs"));
}

/// Every built-in lesson, in course order (the first is the one the page opens on).
pub fn all() -> Vec<Lesson> {
    generated::LESSON_BYTES
        .iter()
        .filter_map(|bytes| crate::wire::from_bytes::<LessonFile>(bytes).ok())
        .filter_map(|f| Lesson::from_file_with(f, &crate::builtins::get).ok())
        .collect()
}

/// The built-in scenario a lesson runs (build.rs accepts no other kind).
pub fn scenario_name(lesson: &Lesson) -> String {
    match &lesson.file.scenario {
        ScenarioSource::Builtin(name) => name.clone(),
        ScenarioSource::Inline(f) => f.name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pre_parsed_lessons_equal_the_parsed_toml() {
        let parsed = eos_core::lesson::builtin_lessons();
        assert_eq!(all(), parsed);
        assert_eq!(all()[0].id(), eos_core::lesson::builtin::DEFAULT);
        assert_eq!(all().len(), eos_core::lesson::builtin::BUILTIN.len());
    }
}
