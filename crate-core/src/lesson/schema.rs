//! The lesson file as written. Unknown fields are rejected everywhere; names, ranges and
//! answers are checked by `validate` and `walk`.

use super::text::Text;
use crate::scenario::schema::{FaultSpec, ScenarioFile};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LessonFile {
    /// Always `"lesson"`: what tells a lesson file from a scenario file.
    pub kind: String,
    pub version: u32,
    pub id: String,
    pub title: Text,
    pub summary: Text,
    pub scenario: ScenarioSource,
    /// Overrides the scenario's seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    pub steps: Vec<StepSpec>,
}

impl LessonFile {
    /// Every text of the lesson as (English, Russian), in a fixed order: the title, the
    /// summary, then each step's text, question prompt, choices, explanation and try-it
    /// texts. The page ships the built-ins' Russian apart and puts it back by this order.
    pub fn texts_mut(&mut self) -> Vec<(&mut Option<String>, &mut Option<String>)> {
        fn pair(t: &mut Text) -> (&mut Option<String>, &mut Option<String>) {
            (&mut t.en, &mut t.ru)
        }
        let mut out = vec![pair(&mut self.title), pair(&mut self.summary)];
        for step in &mut self.steps {
            out.push(pair(&mut step.text));
            if let Some(q) = &mut step.question {
                out.push(pair(&mut q.prompt));
                out.extend(q.choices.iter_mut().map(|c| (&mut c.en, &mut c.ru)));
                out.extend(q.explanation.as_mut().map(pair));
            }
            out.extend(step.try_it.iter_mut().map(|t| pair(&mut t.text)));
        }
        out
    }
}

/// `scenario = "seed-frozen-broker"` (a built-in) or a `[scenario]` table in the scenario
/// format.
#[derive(Clone, Debug, PartialEq)]
pub enum ScenarioSource {
    Builtin(String),
    Inline(Box<ScenarioFile>),
}

impl Serialize for ScenarioSource {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ScenarioSource::Builtin(name) => s.serialize_str(name),
            ScenarioSource::Inline(file) => file.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ScenarioSource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct SourceVisitor;
        impl<'de> Visitor<'de> for SourceVisitor {
            type Value = ScenarioSource;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a built-in scenario name or a [scenario] table")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ScenarioSource, E> {
                Ok(ScenarioSource::Builtin(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ScenarioSource, A::Error> {
                // Deserialized in place, so toml's errors keep their line and column.
                let file = ScenarioFile::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(ScenarioSource::Inline(Box::new(file)))
            }
        }
        d.deserialize_any(SourceVisitor)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    pub until: UntilSpec,
    pub text: Text,
    /// A process (`broker-0`, a producer's or consumer's name), a partition (`events-0`) or
    /// `coordinator`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spotlight: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<QuestionSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub try_it: Vec<TryItSpec>,
    /// A chart shown with the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart: Option<ChartSpec>,
}

/// `chart = { kind = "cost", scenario = "rpw-cost", commit_intervals_ms = [10, 50, 200] }`:
/// the cost of each guarantee across commit intervals (`eos-sim cost`), computed when shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChartSpec {
    pub kind: String,
    /// A built-in scenario with a read-process-write stage.
    pub scenario: String,
    pub commit_intervals_ms: Vec<u64>,
}

/// `until = "end"` or `until = { notable = "retry" }` (one key of the table).
#[derive(Clone, Debug, PartialEq)]
pub enum UntilSpec {
    Word(String),
    Table(UntilTable),
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UntilTable {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notable: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txn_state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
}

impl Serialize for UntilSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            UntilSpec::Word(w) => s.serialize_str(w),
            UntilSpec::Table(t) => t.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for UntilSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct UntilVisitor;
        impl<'de> Visitor<'de> for UntilVisitor {
            type Value = UntilSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"end\" or a table such as { notable = \"retry\" }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<UntilSpec, E> {
                Ok(UntilSpec::Word(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<UntilSpec, A::Error> {
                let t = UntilTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(UntilSpec::Table(t))
            }
        }
        d.deserialize_any(UntilVisitor)
    }
}

/// A predict-then-reveal question. Without `choices` it asks for a number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionSpec {
    pub prompt: Text,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<ChoiceSpec>,
    /// A number question: the number. A choice question: the index of the right choice.
    pub answer: i64,
    /// A choice question whose choices carry no `value`: what the probe reads when the
    /// right choice is right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<i64>,
    /// Shown after the reveal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Text>,
    /// The probe that reads the answer from the simulation, and its arguments.
    pub probe: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChoiceSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub en: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ru: Option<String>,
    /// What the probe reads when this choice is the right one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
}

/// "Try it": one change to the scenario the reader can make, with text saying what to watch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TryItSpec {
    pub text: Text,
    /// Add this fault to the schedule (the scenario format's `[[faults]]` entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inject: Option<FaultSpec>,
    /// `idempotence`, `isolation`, `transaction_protocol`, `unaligned` or `checkpointing`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flip: Option<String>,
    /// Switch every read-process-write processor to this guarantee.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guarantee: Option<String>,
}
