//! The built-in scenarios, pre-parsed at build time (see `build.rs`): the same values
//! `eos_core::builtin` parses from TOML, without shipping a TOML parser to the browser.

use eos_core::scenario::builtin::BuiltinInfo;
use eos_core::scenario::ScenarioFile;
use eos_core::{Scenario, ScenarioError};

mod generated {
    include!(concat!(env!("OUT_DIR"), "/builtin_files.rs"));
}

/// Every built-in scenario's name, in picker order. (Not `eos_core::builtin::names()`: that
/// would keep the TOML texts in the page.)
pub use generated::NAMES;

/// A scenario file in the form the import worker sends (base64url of `wire`), not yet
/// validated.
pub fn file_from_wire(text: &str) -> Result<ScenarioFile, ScenarioError> {
    let bytes = crate::codec::base64url_decode(text.trim()).ok_or(ScenarioError::Parse {
        message: "the import worker's answer is not base64url".into(),
    })?;
    crate::wire::from_bytes(&bytes).map_err(|e| ScenarioError::Parse {
        message: format!("the import worker's answer is damaged: {e}"),
    })
}

thread_local! {
    /// The built-ins' Russian titles and summaries, in `NAMES` order, once the Russian
    /// worker has brought them (the page's copies have none: `build.rs`).
    static RUSSIAN: std::cell::RefCell<Vec<(Option<String>, Option<String>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Keeps the built-ins' Russian titles and summaries: false if they are not one per
/// built-in.
pub fn take_russian(texts: Vec<(Option<String>, Option<String>)>) -> bool {
    let fits = texts.len() == NAMES.len();
    if fits {
        RUSSIAN.with(|r| *r.borrow_mut() = texts);
    }
    fits
}

fn builtin_file(name: &str) -> Option<ScenarioFile> {
    let mut file: ScenarioFile =
        generated::builtin_bytes(name).and_then(|bytes| crate::wire::from_bytes(bytes).ok())?;
    if let Some(i) = NAMES.iter().position(|n| *n == name) {
        RUSSIAN.with(|r| {
            if let Some((title, summary)) = r.borrow().get(i) {
                file.title_ru.clone_from(title);
                file.summary_ru.clone_from(summary);
            }
        });
    }
    Some(file)
}

/// A built-in scenario by name, validated like a parsed one.
pub fn get(name: &str) -> Result<Scenario, ScenarioError> {
    match builtin_file(name) {
        Some(file) => Scenario::from_file(file),
        None => Err(ScenarioError::UnknownBuiltin {
            name: name.to_string(),
            known: NAMES.iter().map(|n| n.to_string()).collect(),
        }),
    }
}

/// Every built-in scenario's name, title, summary and group, in picker order.
pub fn list() -> Vec<BuiltinInfo> {
    NAMES
        .iter()
        .filter_map(|name| builtin_file(name))
        .map(|f| info_of(&f))
        .collect()
}

/// A scenario file's name, title, summary and group, as the picker shows them.
pub fn info_of(f: &eos_core::scenario::schema::ScenarioFile) -> BuiltinInfo {
    BuiltinInfo {
        name: f.name.clone(),
        title: f.title.clone(),
        summary: f.summary.clone(),
        group: f.group.clone(),
        title_ru: f.title_ru.clone(),
        summary_ru: f.summary_ru.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pre_parsed_scenarios_equal_the_parsed_toml() {
        // Their Russian titles come with the Russian worker's texts.
        assert!(crate::lessons::take_russian(crate::lessons::RUSSIAN_BYTES));
        for (name, text) in eos_core::builtin::BUILTIN {
            let parsed = Scenario::parse(text).expect("parses");
            let pre = get(name).expect("pre-parsed");
            assert_eq!(pre.file, parsed.file, "{name}");
        }
        assert_eq!(list(), eos_core::builtin::list());
        assert!(get("nope").is_err());
    }

    #[test]
    fn the_pages_copies_have_no_russian_until_the_worker_brings_it() {
        let name = eos_core::builtin::DEFAULT;
        let plain = generated::builtin_bytes(name)
            .and_then(|b| crate::wire::from_bytes::<ScenarioFile>(b).ok())
            .expect("decodes");
        assert_eq!((plain.title_ru, plain.summary_ru), (None, None));
        assert!(!take_russian(Vec::new()), "one per built-in, or none");
    }
}
