//! The built-in scenarios, compiled in from `scenarios/*.toml`.

use super::schema::in_lang;
use super::{Scenario, ScenarioError};
use crate::lesson::Lang;
use serde::{Deserialize, Serialize};

/// The scenario the playground opens on.
pub const DEFAULT: &str = "seed-frozen-broker";

macro_rules! builtin {
    ($($name:literal),* $(,)?) => {
        /// (name, TOML text) of every built-in scenario, in picker order.
        pub const BUILTIN: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../../../scenarios/", $name, ".toml")))),*
        ];
    };
}

builtin!(
    "seed-frozen-broker",
    "lost-ack-idempotence-off",
    "lost-ack-idempotence-on",
    "retry-outside-window",
    "in-flight-order-idempotence-off",
    "in-flight-order-idempotence-on",
    "producer-restart-new-pid",
    "acks1-leader-crash-loss",
    "acks-all-leader-crash-no-loss",
    "acks-all-isr-shrunk-loss",
    "network-partition-isr-shrink",
    "min-isr-retry-duplicate",
    "unclean-election-loss",
    "paused-leader-fenced-loss",
    "consumer-restart-from-commit",
    "consumer-reset-latest",
    "seed-commit-abort",
    "rpw-crash-exactly-once",
    "rpw-crash-at-least-once",
    "rpw-crash-at-most-once",
    "rpw-cost",
    "zombie-fencing",
    "txn-timeout-abort",
    "txn-producer-crash-stalls-readers",
    "txn-producer-crash-restart",
    "txn-crash-after-prepare-commit",
    "txn-coordinator-crash-after-prepare-commit",
    "txn-coordinator-failover",
    "txn-marker-min-isr",
    "txn-v1-delayed-endtxn",
    "txn-v2-delayed-endtxn",
    "flink-barrier-walkthrough",
    "flink-alignment-two-inputs",
    "flink-at-least-once-overcount",
    "flink-backpressure-aligned",
    "flink-backpressure-unaligned",
    "flink-backpressure-aligned-timeout",
    "flink-2pc-crash-recovery",
    "flink-2pc-txn-timeout-loss",
    "flink-iterative-loop-loss",
    "flink-upsert-vs-append",
);

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuiltinInfo {
    pub name: String,
    pub title: String,
    pub summary: String,
    pub group: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title_ru: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_ru: Option<String>,
}

impl BuiltinInfo {
    /// The title in `lang`; the English one where there is no translation.
    pub fn title_in(&self, lang: Lang) -> &str {
        in_lang(&self.title, self.title_ru.as_deref(), lang)
    }

    /// The summary in `lang`; the English one where there is no translation.
    pub fn summary_in(&self, lang: Lang) -> &str {
        in_lang(&self.summary, self.summary_ru.as_deref(), lang)
    }
}

pub fn names() -> Vec<String> {
    BUILTIN.iter().map(|(n, _)| n.to_string()).collect()
}

pub fn text(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

pub fn get(name: &str) -> Result<Scenario, ScenarioError> {
    match text(name) {
        Some(t) => Scenario::parse(t),
        None => Err(ScenarioError::UnknownBuiltin {
            name: name.to_string(),
            known: names(),
        }),
    }
}

/// Every built-in scenario that parses (all of them, as a test checks).
pub fn list() -> Vec<BuiltinInfo> {
    BUILTIN
        .iter()
        .filter_map(|(_, t)| Scenario::parse(t).ok())
        .map(|s| BuiltinInfo {
            name: s.file.name.clone(),
            title: s.file.title.clone(),
            summary: s.file.summary.clone(),
            group: s.file.group.clone(),
            title_ru: s.file.title_ru.clone(),
            summary_ru: s.file.summary_ru.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses_and_is_named_as_its_file() {
        for (name, text) in BUILTIN {
            let s = Scenario::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(s.name(), *name);
            assert!(
                !s.file.title.is_empty() && !s.file.summary.is_empty(),
                "{name}"
            );
        }
        assert_eq!(list().len(), BUILTIN.len());
        assert!(text(DEFAULT).is_some());
    }

    #[test]
    fn every_builtin_has_a_russian_title_and_summary() {
        let cyrillic = |t: &str| t.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c));
        for info in list() {
            let (title, summary) = (info.title_in(Lang::Ru), info.summary_in(Lang::Ru));
            assert!(cyrillic(title) && cyrillic(summary), "{}", info.name);
            assert_eq!(info.title_in(Lang::En), info.title, "{}", info.name);
            assert_eq!(info.summary_in(Lang::En), info.summary, "{}", info.name);
        }
    }

    #[test]
    fn a_missing_translation_falls_back_to_english() {
        let mut s = get(DEFAULT).expect("built-in");
        s.file.title_ru = None;
        s.file.summary_ru = Some("  ".into());
        assert_eq!(s.file.title_in(Lang::Ru), s.file.title);
        assert_eq!(s.file.summary_in(Lang::Ru), s.file.summary);
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let err = get("nope").unwrap_err().to_string();
        assert!(err.contains("seed-frozen-broker"), "{err}");
    }
}
