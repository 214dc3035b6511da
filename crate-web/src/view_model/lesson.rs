//! What the lesson panel and the contents list show, from a lesson, the lesson state and the
//! language. Pure; tested natively.

use crate::i18n::{Lang, S};
use crate::lesson_state::{asking, LessonUi, Progress};
use eos_core::lesson::{Answer, QuestionKind};
use eos_core::Lesson;

#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Correct,
    Incorrect,
    /// Revealed without a prediction.
    Shown,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FeedbackVm {
    pub verdict: Verdict,
    /// "The simulation reads 3" or "The right answer: offset 1".
    pub actual: String,
    pub explanation: Option<String>,
    /// The right choice's index (a choice question), marked among the choices.
    pub right: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct QuestionVm {
    pub prompt: String,
    /// Empty for a number question.
    pub choices: Vec<String>,
    pub asking: bool,
    pub feedback: Option<FeedbackVm>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StepVm {
    pub title: String,
    pub summary: String,
    /// "Step 2 of 6".
    pub position: String,
    pub text: String,
    pub question: Option<QuestionVm>,
    pub try_its: Vec<String>,
    /// A chart to show with the step (shown once its question, if any, is answered).
    pub chart: Option<eos_core::lesson::schema::ChartSpec>,
    pub can_prev: bool,
    pub can_next: bool,
    /// The summary is shown with the first step only, to keep the stage in view.
    pub first: bool,
}

pub fn step(lesson: &Lesson, ui: &LessonUi, lang: Lang) -> StepVm {
    let i = ui.step.min(lesson.steps.len().saturating_sub(1));
    let s = &lesson.steps[i];
    let is_asking = asking(lesson, i, ui.revealed.is_some());
    let question = s.question.as_ref().map(|q| {
        let choices: Vec<String> = match &q.kind {
            QuestionKind::Choice { choices, .. } => choices
                .iter()
                .map(|c| c.text.get(lang).to_string())
                .collect(),
            QuestionKind::Number { .. } => Vec::new(),
        };
        let feedback = ui.revealed.as_ref().map(|r| {
            let verdict = match r.given {
                None => Verdict::Shown,
                Some(_) if r.grade.correct => Verdict::Correct,
                Some(_) => Verdict::Incorrect,
            };
            let right_index = match r.grade.right {
                Some(Answer::Choice(k)) => Some(k),
                _ => None,
            };
            let right = right_index.and_then(|k| choices.get(k as usize).cloned());
            // The reading confirms a choice whose head names it ("offset 5: …", "About 160
            // ms"); beside "No: every task must acknowledge first" a bare "reads 0" would only
            // puzzle, and "No: …, and checkpoint 1 expires" names a 1 that is not the reading.
            let reading = r.grade.actual.to_string();
            let names_it = |label: &str| {
                label
                    .split(':')
                    .next()
                    .unwrap_or_default()
                    .split(|c: char| !c.is_ascii_digit() && c != '-')
                    .any(|w| w == reading)
            };
            let actual = match right {
                Some(label) if label.trim() == reading => S::RightIsReading.f(lang, &[&label]),
                Some(label) if !names_it(&label) => {
                    format!("{}: {label}.", S::RightChoice.get(lang))
                }
                Some(label) => format!(
                    "{}: {label} ({} {}).",
                    S::RightChoice.get(lang),
                    S::SimulationReads.get(lang).to_lowercase(),
                    r.grade.actual
                ),
                None => format!("{} {}.", S::SimulationReads.get(lang), r.grade.actual),
            };
            FeedbackVm {
                verdict,
                actual,
                explanation: r
                    .grade
                    .explanation
                    .as_ref()
                    .map(|e| e.get(lang).to_string()),
                right: right_index,
            }
        });
        QuestionVm {
            prompt: q.prompt.get(lang).to_string(),
            choices,
            asking: is_asking,
            feedback,
        }
    });
    StepVm {
        title: lesson.title().get(lang).to_string(),
        summary: lesson.summary().get(lang).to_string(),
        position: format!(
            "{} {} {} {}",
            S::StepOf.get(lang),
            i + 1,
            S::Of.get(lang),
            lesson.steps.len()
        ),
        text: s.text.get(lang).to_string(),
        question,
        try_its: if is_asking {
            Vec::new()
        } else {
            s.try_it
                .iter()
                .map(|t| t.text.get(lang).to_string())
                .collect()
        },
        chart: s.chart.clone().filter(|_| !is_asking),
        can_prev: i > 0,
        first: i == 0,
        can_next: i + 1 < lesson.steps.len() && !is_asking,
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ContentsEntry {
    pub title: String,
    /// "3/5 steps seen · 1/2 right answers".
    pub progress: String,
    pub current: bool,
    pub done: bool,
}

pub fn contents(
    lessons: &[Lesson],
    progress: &Progress,
    current: usize,
    lang: Lang,
) -> Vec<ContentsEntry> {
    lessons
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let p = progress.of(l);
            let mut text = S::Seen.f(lang, &[&p.seen, &p.steps]);
            if p.questions > 0 {
                text.push_str(" · ");
                text.push_str(&S::Right.f(lang, &[&p.right, &p.questions]));
            }
            ContentsEntry {
                title: l.title().get(lang).to_string(),
                progress: text,
                current: i == current,
                done: p.done(),
            }
        })
        .collect()
}

/// The `data-spot` tokens of a partition's section: its name and its broker's, so that a
/// spotlight on `events-0` or on `broker-0` finds it.
pub fn partition_spots(title: &str, broker: impl std::fmt::Display) -> String {
    format!("{title} broker-{broker}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson_state::Revealed;
    use eos_core::lesson::Grade;

    fn first_question(lesson: &Lesson) -> usize {
        lesson
            .steps
            .iter()
            .position(|s| s.question.is_some())
            .expect("a question")
    }

    #[test]
    fn a_question_waits_then_shows_the_verdict_in_the_language() {
        let lesson = crate::lessons::all().remove(0);
        let i = first_question(&lesson);
        let mut ui = LessonUi {
            step: i,
            ..LessonUi::default()
        };
        let vm = step(&lesson, &ui, Lang::En);
        let q = vm.question.clone().expect("question");
        assert!(q.asking && q.feedback.is_none() && !vm.can_next && vm.try_its.is_empty());
        assert_eq!(
            vm.position,
            format!("Step {} of {}", i + 1, lesson.steps.len())
        );
        ui.revealed = Some(Revealed {
            given: Some(Answer::Number(-5)),
            grade: Grade {
                correct: false,
                actual: 1,
                right: Some(Answer::Number(1)),
                explanation: None,
            },
        });
        let vm = step(&lesson, &ui, Lang::Ru);
        let f = vm.question.expect("q").feedback.expect("feedback");
        assert_eq!(f.verdict, Verdict::Incorrect);
        assert!(
            f.actual.contains("Симуляция") && f.actual.contains('1'),
            "{}",
            f.actual
        );
        assert!(vm.position.starts_with("Шаг"));
        assert_ne!(vm.title, lesson.title().get(Lang::En));
    }

    /// A choice's verdict adds the simulation's reading only when the choice names it.
    #[test]
    fn a_choice_gets_the_reading_only_when_it_names_it() {
        let lessons = crate::lessons::all();
        let verdict = |id: &str, at: usize, actual: i64, right: u32| {
            let lesson = lessons.iter().find(|l| l.id() == id).expect("lesson");
            let ui = LessonUi {
                step: at,
                revealed: Some(Revealed {
                    given: None,
                    grade: Grade {
                        correct: false,
                        actual,
                        right: Some(Answer::Choice(right)),
                        explanation: None,
                    },
                }),
                ..LessonUi::default()
            };
            let vm = step(lesson, &ui, Lang::En);
            let f = vm.question.expect("a question").feedback.expect("shown");
            // The right choice is marked among the choices too.
            assert_eq!(f.right, Some(right));
            f.actual
        };
        // flink-barriers: "Is checkpoint 1 complete?" No (0 completed).
        let no = verdict("flink-barriers", 1, 0, 1);
        assert_eq!(
            no,
            "The right answer: No: every task must acknowledge first."
        );
        // flink-unaligned: "No: …, and checkpoint 1 expires" reads 1 expired checkpoint; the
        // 1 in its words is another number, so no reading is added.
        let expired = verdict("flink-unaligned", 1, 1, 1);
        assert!(!expired.contains("reads"), "{expired}");
        // last-stable-offset: "1: only `plain`"… the right one, 0, is named "0": the bare
        // number is not said twice.
        let zero = verdict("last-stable-offset", 3, 0, 0);
        assert_eq!(zero, "The right answer: 0, as the simulation shows.");
        // A choice naming the reading among other words gets it confirmed.
        let offset = verdict("lost-ack", 3, 5, 2);
        assert!(offset.ends_with("(the simulation reads 5)."), "{offset}");
    }

    #[test]
    fn contents_show_progress_per_lesson() {
        let lessons = crate::lessons::all();
        let p = Progress::default().seen(lessons[1].id(), 0);
        let c = contents(&lessons, &p, 1, Lang::En);
        assert_eq!(c.len(), lessons.len());
        assert!(c[1].current && !c[0].current);
        assert!(c[1].progress.starts_with("1/"), "{}", c[1].progress);
        assert!(c[0].progress.starts_with("0/"));
    }

    #[test]
    fn spotlights_find_partitions_by_name_or_broker() {
        let spots = partition_spots("events-0", 2);
        assert_eq!(spots, "events-0 broker-2");
        for name in ["events-0", "broker-2"] {
            let spot = crate::spot::Spot(Some(name.into()));
            assert_eq!(spot.class(&spots), Some("spotlight"), "{name}");
        }
    }
}
