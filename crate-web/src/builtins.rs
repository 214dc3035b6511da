//! The built-in scenarios, pre-parsed at build time (see `build.rs`): the same values
//! `eos_core::builtin` parses from TOML, without shipping a TOML parser to the browser.

use eos_core::scenario::builtin::{self, BuiltinInfo};
use eos_core::{Scenario, ScenarioError};

mod generated {
    // The generated values name these; which ones depends on the scenarios.
    #[allow(unused_imports)]
    use eos_core::scenario::flink_spec::*;
    #[allow(unused_imports)]
    use eos_core::scenario::schema::AcksValue::{Number, Text};
    #[allow(unused_imports)]
    use eos_core::scenario::schema::*;
    include!(concat!(env!("OUT_DIR"), "/builtin_files.rs"));
}

/// A built-in scenario by name, validated like a parsed one.
pub fn get(name: &str) -> Result<Scenario, ScenarioError> {
    match generated::builtin_file(name) {
        Some(file) => Scenario::from_file(file),
        None => Err(ScenarioError::UnknownBuiltin {
            name: name.to_string(),
            known: builtin::names(),
        }),
    }
}

/// Every built-in scenario's name, title, summary and group, in picker order.
pub fn list() -> Vec<BuiltinInfo> {
    builtin::BUILTIN
        .iter()
        .filter_map(|(name, _)| generated::builtin_file(name))
        .map(|f| BuiltinInfo {
            name: f.name,
            title: f.title,
            summary: f.summary,
            group: f.group,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pre_parsed_scenarios_equal_the_parsed_toml() {
        for (name, text) in builtin::BUILTIN {
            let parsed = Scenario::parse(text).expect("parses");
            let pre = get(name).expect("pre-parsed");
            assert_eq!(pre.file, parsed.file, "{name}");
        }
        assert_eq!(list(), builtin::list());
        assert!(get("nope").is_err());
    }
}
