//! The built-in lessons, pre-parsed at build time (see `build.rs`) like the scenarios and
//! embedded in the same binary form (`wire`): the same values
//! `eos_core::lesson::builtin_lessons` parses from TOML, without a TOML parser.
//!
//! Their Russian texts ship apart, in the small worker `eos-lessons-ru`, which a page read in
//! Russian loads (`crate::russian`). Until they are here, each Russian text says it is loading.

use eos_core::lesson::schema::{LessonFile, ScenarioSource};
use eos_core::Lesson;
use std::cell::RefCell;
use std::rc::Rc;

mod generated {
    include!(concat!(env!("OUT_DIR"), "/builtin_lessons.rs"));
}

/// The built-in lessons' Russian texts (per lesson, in the order of
/// `LessonFile::texts_mut`), then the built-in scenarios' Russian titles and summaries (in
/// `builtins::NAMES` order). Only the worker `eos-lessons-ru` refers to them, so only it
/// carries them.
pub static RUSSIAN_BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/lessons_ru.bin"));

/// Per lesson, its Russian texts in the order of `LessonFile::texts_mut`.
pub type Russian = Vec<Vec<Option<String>>>;

thread_local! {
    static RUSSIAN: RefCell<Option<Rc<Russian>>> = const { RefCell::new(None) };
}

/// Every built-in lesson, in course order (the first is the one the page opens on), with its
/// Russian texts if they are loaded.
pub fn all() -> Vec<Lesson> {
    all_with(RUSSIAN.with(|r| r.borrow().clone()).as_deref())
}

/// What a Russian text says until the texts are here (a few milliseconds after the page
/// asks). It is Russian, as the lessons' checks want of a Russian text.
pub const LOADING: &str = "Загружается…";

/// Every built-in lesson with these Russian texts; without them, each Russian text is
/// `LOADING`.
pub fn all_with(russian: Option<&Russian>) -> Vec<Lesson> {
    generated::LESSON_BYTES
        .iter()
        .enumerate()
        .filter_map(|(i, bytes)| {
            let mut file = crate::wire::from_bytes::<LessonFile>(bytes).ok()?;
            let texts = russian.and_then(|r| r.get(i));
            for (k, (en, ru)) in file.texts_mut().into_iter().enumerate() {
                *ru = match texts.and_then(|t| t.get(k).cloned().flatten()) {
                    Some(text) => Some(text),
                    // An English text with no Russian one (an optional text left out) stays so.
                    None if en.is_none() => None,
                    None => Some(LOADING.to_string()),
                };
            }
            Some(file)
        })
        .filter_map(|f| Lesson::from_file_with(f, &crate::builtins::get).ok())
        .collect()
}

/// Reads the worker's bytes and keeps them: false if they are not the texts.
pub fn take_russian(bytes: &[u8]) -> bool {
    type Scenarios = Vec<(Option<String>, Option<String>)>;
    let Ok((texts, scenarios)) = crate::wire::from_bytes::<(Russian, Scenarios)>(bytes) else {
        return false;
    };
    if texts.len() != generated::LESSON_BYTES.len() || !crate::builtins::take_russian(scenarios) {
        return false;
    }
    RUSSIAN.with(|r| *r.borrow_mut() = Some(Rc::new(texts)));
    true
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
    use eos_core::lesson::Lang;

    #[test]
    fn the_pre_parsed_lessons_with_their_russian_equal_the_parsed_toml() {
        let parsed = eos_core::lesson::builtin_lessons();
        assert!(take_russian(RUSSIAN_BYTES));
        assert_eq!(all(), parsed);
        assert_eq!(all()[0].id(), eos_core::lesson::builtin::DEFAULT);
        assert_eq!(all().len(), eos_core::lesson::builtin::BUILTIN.len());
    }

    #[test]
    fn without_the_russian_a_lesson_says_it_is_loading_and_reads_in_english() {
        let parsed = eos_core::lesson::builtin_lessons();
        let waiting = all_with(None);
        assert_eq!(waiting.len(), parsed.len(), "every lesson still validates");
        for (plain, full) in waiting.iter().zip(&parsed) {
            assert_eq!(plain.title().get(Lang::Ru), LOADING);
            assert_eq!(plain.title().get(Lang::En), full.title().get(Lang::En));
            assert_eq!(plain.steps.len(), full.steps.len());
            assert_eq!(
                plain.steps[0].text.get(Lang::En),
                full.steps[0].text.get(Lang::En)
            );
        }
        // Bytes that are not the texts are refused.
        assert!(!take_russian(&[1, 2, 3]));
    }
}
