//! Lesson mode: which lesson and narration step are open, the reader's answer, the reveal,
//! and the reader's progress. Pure: the page turns these into seeks of the playground.

use eos_core::lesson::{grade, Answer, Grade, ResolvedStep};
use eos_core::{Lesson, RunLimit};
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::Reducible;

/// Where progress is remembered (`id:seen:right` per lesson, `;`-separated; the numbers are
/// bit masks over narration steps, at most 32 of them).
pub const PROGRESS_KEY: &str = "eos.lessons.progress";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Lesson,
    Playground,
}

/// What the reveal showed: the reader's answer (none if they only asked to see it) and the
/// grade against the simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct Revealed {
    pub given: Option<Answer>,
    pub grade: Grade,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LessonUi {
    pub mode: Mode,
    pub lesson: usize,
    pub step: usize,
    pub choice: Option<Answer>,
    pub revealed: Option<Revealed>,
    /// A try-it prompt (narration step, prompt index) whose scenario is loaded.
    pub trying: Option<(usize, usize)>,
    pub contents_open: bool,
    /// Whether the reader has been in lesson mode: a visit that starts from a playground
    /// link is offered the lessons, not sent "back" to one it never saw.
    pub visited: bool,
}

impl Default for LessonUi {
    fn default() -> Self {
        LessonUi {
            mode: Mode::Lesson,
            lesson: 0,
            step: 0,
            choice: None,
            revealed: None,
            trying: None,
            contents_open: false,
            visited: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum LessonAction {
    Open(usize),
    /// Where a link or an import starts.
    Start(Box<LessonUi>),
    Go(usize),
    Choose(Option<Answer>),
    Reveal(Revealed),
    TryAgain,
    Trying(usize, usize),
    Mode(Mode),
    /// To the playground, out of any try-it run (another scenario was opened).
    Leave,
    ToggleContents,
}

impl Reducible for LessonUi {
    type Action = LessonAction;

    fn reduce(self: Rc<Self>, action: LessonAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            LessonAction::Start(start) => next = *start,
            LessonAction::Open(lesson) => {
                next = LessonUi {
                    lesson,
                    contents_open: false,
                    ..LessonUi::default()
                }
            }
            LessonAction::Go(step) => {
                next.step = step;
                next.choice = None;
                next.revealed = None;
                next.trying = None;
                next.mode = Mode::Lesson;
            }
            LessonAction::Choose(a) => next.choice = a,
            LessonAction::Reveal(r) => next.revealed = Some(r),
            LessonAction::TryAgain => {
                next.revealed = None;
                next.choice = None;
            }
            LessonAction::Trying(step, i) => {
                next.trying = Some((step, i));
                next.mode = Mode::Playground;
            }
            LessonAction::Mode(m) => {
                next.mode = m;
                if m == Mode::Lesson {
                    next.trying = None;
                    next.visited = true;
                }
            }
            LessonAction::Leave => {
                next.mode = Mode::Playground;
                next.trying = None;
            }
            LessonAction::ToggleContents => next.contents_open = !next.contents_open,
        }
        Rc::new(next)
    }
}

/// Whether narration step `i` is waiting for a prediction: it has a question not yet revealed.
pub fn asking(lesson: &Lesson, i: usize, revealed: bool) -> bool {
    !revealed && lesson.steps.get(i).is_some_and(|s| s.question.is_some())
}

/// The step of the run to show for narration step `i`: its point, or, while its question
/// waits for a prediction, the previous step's point (the run has not got there yet).
pub fn seek_target(resolved: &[ResolvedStep], i: usize, asking: bool) -> u64 {
    let at = |j: usize| resolved.get(j).map_or(0, |r| r.step);
    if asking {
        i.checked_sub(1).map_or(0, at)
    } else {
        at(i)
    }
}

/// Grades `given` at narration step `i` on a fresh run advanced to the step's point, so
/// the answer is read from the same state the stage shows after the reveal.
pub fn grade_at(
    lesson: &Lesson,
    resolved: &[ResolvedStep],
    i: usize,
    given: Answer,
) -> Result<Grade, String> {
    let mut sim = lesson.simulation();
    sim.run(RunLimit::Steps(seek_target(resolved, i, false)));
    grade(lesson, i, given, &sim).map_err(|e| e.to_string())
}

/// A number typed by the reader, if it is one.
pub fn parse_number(text: &str) -> Option<i64> {
    text.trim().parse().ok()
}

/// Per lesson id: the narration steps seen and the questions answered right (bit masks).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    by_lesson: BTreeMap<String, (u32, u32)>,
}

/// What the contents list shows for one lesson.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonProgress {
    pub seen: u32,
    pub steps: u32,
    pub right: u32,
    pub questions: u32,
}

impl LessonProgress {
    pub fn done(&self) -> bool {
        self.seen == self.steps && self.right == self.questions
    }
}

fn bit(step: usize) -> u32 {
    u32::try_from(step)
        .ok()
        .and_then(|s| 1u32.checked_shl(s))
        .unwrap_or(0)
}

impl Progress {
    /// Reads what `encode` wrote; anything malformed is skipped, never an error.
    pub fn parse(text: &str) -> Progress {
        let by_lesson = eos_core::order::map_of(text.split(';').filter_map(|entry| {
            let mut parts = entry.split(':');
            let id = parts.next()?.trim();
            let seen = parts.next()?.trim().parse().ok()?;
            let right = parts.next()?.trim().parse().ok()?;
            (!id.is_empty() && parts.next().is_none()).then(|| (id.to_string(), (seen, right)))
        }));
        Progress { by_lesson }
    }

    pub fn encode(&self) -> String {
        self.by_lesson
            .iter()
            .map(|(id, (seen, right))| format!("{id}:{seen}:{right}"))
            .collect::<Vec<_>>()
            .join(";")
    }

    pub fn seen(&self, id: &str, step: usize) -> Progress {
        let mut next = self.clone();
        next.by_lesson.entry(id.to_string()).or_default().0 |= bit(step);
        next
    }

    pub fn right(&self, id: &str, step: usize) -> Progress {
        let mut next = self.clone();
        next.by_lesson.entry(id.to_string()).or_default().1 |= bit(step);
        next
    }

    pub fn of(&self, lesson: &Lesson) -> LessonProgress {
        let (seen, right) = self.by_lesson.get(lesson.id()).copied().unwrap_or_default();
        let steps = u32::try_from(lesson.steps.len()).unwrap_or(u32::MAX);
        let questions = lesson.steps.iter().filter(|s| s.question.is_some()).count();
        LessonProgress {
            seen: seen.count_ones().min(steps),
            steps,
            right: right.count_ones(),
            questions: u32::try_from(questions).unwrap_or(u32::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eos_core::lesson::QuestionKind;

    #[test]
    fn every_built_in_question_grades_its_own_answer_right_and_another_wrong() {
        for lesson in crate::lessons::all() {
            let (_, resolved) = lesson.build().expect("builds");
            for (i, s) in lesson.steps.iter().enumerate() {
                let Some(q) = &s.question else { continue };
                let (right, wrong) = match &q.kind {
                    QuestionKind::Number { answer } => {
                        (Answer::Number(*answer), Answer::Number(answer + 1))
                    }
                    QuestionKind::Choice {
                        answer, choices, ..
                    } => {
                        let other = (*answer + 1) % u32::try_from(choices.len()).unwrap_or(1);
                        (Answer::Choice(*answer), Answer::Choice(other))
                    }
                };
                let g = grade_at(&lesson, &resolved, i, right).expect("grades");
                assert!(g.correct, "{} step {i}: {g:?}", lesson.id());
                let g = grade_at(&lesson, &resolved, i, wrong).expect("grades");
                assert!(!g.correct, "{} step {i}", lesson.id());
            }
        }
    }

    #[test]
    fn a_question_holds_the_run_at_the_previous_point_until_the_reveal() {
        let lesson = crate::lessons::all().remove(0);
        let (_, resolved) = lesson.build().expect("builds");
        let i = lesson
            .steps
            .iter()
            .position(|s| s.question.is_some())
            .expect("the first lesson asks something");
        assert!(asking(&lesson, i, false));
        assert!(!asking(&lesson, i, true));
        let before = seek_target(&resolved, i, true);
        let at = seek_target(&resolved, i, false);
        assert_eq!(at, resolved[i].step);
        assert_eq!(before, if i == 0 { 0 } else { resolved[i - 1].step });
        assert!(before <= at);
        assert_eq!(seek_target(&resolved, 0, true), 0);
    }

    #[test]
    fn progress_round_trips_and_ignores_garbage() {
        let lesson = crate::lessons::all().remove(0);
        let p = Progress::default()
            .seen(lesson.id(), 0)
            .seen(lesson.id(), 2)
            .seen(lesson.id(), 2)
            .right(lesson.id(), 3);
        let back = Progress::parse(&p.encode());
        assert_eq!(back, p);
        let lp = back.of(&lesson);
        assert_eq!((lp.seen, lp.right), (2, 1));
        assert_eq!(lp.steps as usize, lesson.steps.len());
        assert!(!lp.done());
        assert_eq!(
            Progress::parse("x;;a:b:c;ok:1:0:9;good:3:1"),
            Progress::parse("good:3:1")
        );
        assert_eq!(Progress::parse("").encode(), "");
        assert_eq!(
            p.seen("x", 99),
            p.seen("x", 100),
            "past 32 steps nothing is recorded"
        );
    }

    #[test]
    fn the_reducer_resets_the_answer_when_the_step_changes() {
        let s = Rc::new(LessonUi::default());
        let s = s.reduce(LessonAction::Choose(Some(Answer::Choice(1))));
        assert_eq!(s.choice, Some(Answer::Choice(1)));
        let s = s.reduce(LessonAction::Trying(2, 0));
        assert_eq!(s.mode, Mode::Playground);
        let s = s.reduce(LessonAction::Go(3));
        assert_eq!(
            (s.step, s.choice, s.mode, s.trying),
            (3, None, Mode::Lesson, None)
        );
        let s = s.reduce(LessonAction::Open(4));
        assert_eq!((s.lesson, s.step), (4, 0));
    }
}
