//! Predict-then-reveal questions and their grading. The right answer is what the question's
//! probe reads from the simulation at the step's point.

use super::probe::Probe;
use super::text::Text;
use super::Lesson;
use super::LessonError;
use crate::sim::Simulation;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub prompt: Text,
    pub kind: QuestionKind,
    pub probe: Probe,
    pub explanation: Option<Text>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// "How many …?": the lesson's answer is the number the probe must read.
    Number { answer: i64 },
    /// Pick one. Either every choice carries the probe value it stands for, or `expect`
    /// says what the probe reads when `answer` is right.
    Choice {
        choices: Vec<Choice>,
        answer: u32,
        expect: Option<i64>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub text: Text,
    pub value: Option<i64>,
}

/// What the reader answered, or what is right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// The index of a choice, from 0.
    Choice(u32),
    Number(i64),
}

/// The verdict on a revealed answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grade {
    pub correct: bool,
    /// What the probe reads from the simulation given to `grade`.
    pub actual: i64,
    /// The right answer as the simulation shows it; `None` when its state matches none of
    /// the choices (the simulation is not at the step's point, or the lesson is wrong —
    /// `eos-sim check` rules the latter out).
    pub right: Option<Answer>,
    pub explanation: Option<Text>,
}

impl Question {
    /// The right answer for what the probe reads.
    pub fn right_answer(&self, actual: i64) -> Option<Answer> {
        match &self.kind {
            QuestionKind::Number { .. } => Some(Answer::Number(actual)),
            QuestionKind::Choice {
                answer,
                expect: Some(expect),
                ..
            } => (*expect == actual).then_some(Answer::Choice(*answer)),
            QuestionKind::Choice { choices, .. } => choices
                .iter()
                .position(|c| c.value == Some(actual))
                .and_then(|i| u32::try_from(i).ok())
                .map(Answer::Choice),
        }
    }

    /// Why the lesson's stated answer disagrees with the probe's reading, if it does.
    pub(crate) fn disagreement(&self, actual: i64) -> Option<String> {
        let probe = self.probe.describe();
        match &self.kind {
            QuestionKind::Number { answer } => (*answer != actual).then(|| {
                format!("the lesson says {answer}, but probe {probe} reads {actual} here")
            }),
            QuestionKind::Choice {
                answer,
                expect: Some(expect),
                ..
            } => (*expect != actual).then(|| {
                format!(
                    "the lesson expects probe {probe} to read {expect} (choice {answer} right), but it reads {actual} here"
                )
            }),
            QuestionKind::Choice { answer, .. } => match self.right_answer(actual) {
                Some(Answer::Choice(i)) if i == *answer => None,
                Some(Answer::Choice(i)) => Some(format!(
                    "the lesson says choice {answer}, but probe {probe} reads {actual} here, which is choice {i}"
                )),
                _ => Some(format!(
                    "probe {probe} reads {actual} here, and no choice has that value"
                )),
            },
        }
    }
}

/// Grades `given` for the question of narration step `step_index`, against `sim` — which the
/// caller has advanced to that step's point (`ResolvedStep::step`).
pub fn grade(
    lesson: &Lesson,
    step_index: usize,
    given: Answer,
    sim: &Simulation,
) -> Result<Grade, LessonError> {
    let Some(step) = lesson.steps.get(step_index) else {
        return Err(LessonError::one(
            format!("steps[{step_index}]"),
            format!("the lesson has {} steps", lesson.steps.len()),
        ));
    };
    let Some(q) = &step.question else {
        return Err(LessonError::one(
            format!("steps[{step_index}].question"),
            "this step asks no question",
        ));
    };
    let actual = q.probe.read(sim);
    let right = q.right_answer(actual);
    Ok(Grade {
        correct: right == Some(given),
        actual,
        right,
        explanation: q.explanation.clone(),
    })
}
