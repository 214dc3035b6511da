//! Lesson mode, wired: the open lesson drives the playground (load its scenario, seek to each
//! narration point), grades predictions, applies try-it prompts, spotlights the named
//! element, keeps progress in `localStorage`, and listens for PageDown/PageUp (clickers).

use crate::components::{lesson_nav::LessonNav, lesson_panel::LessonPanel};
use crate::i18n::{I18n, S};
use crate::lesson_state::{
    asking, grade_at, seek_target, LessonAction, LessonUi, Mode, Progress, Revealed, PROGRESS_KEY,
};
use crate::permalink::{LessonPlace, Source};
use crate::share::{ImportedLesson, LessonStart};
use crate::state::{Action, Opened, Playground};
use crate::view_model::lesson as vm;
use eos_core::lesson::schema::ScenarioSource;
use eos_core::lesson::{Answer, ResolvedStep};
use eos_core::Lesson;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// One lesson of the shared list, cheap to clone into callbacks.
#[derive(Clone)]
struct LessonRef(Rc<Vec<Lesson>>, usize);

/// The lesson offered to a reader who opened a scenario and no lesson yet: the first that
/// runs this scenario, else the first whose scenario is in its group (a Flink scenario
/// offers a Flink lesson, not the first lesson's idempotent producer).
fn offered_lesson(lessons: &[Lesson], scenario: &str) -> Option<usize> {
    let name = |l: &Lesson| crate::lessons::scenario_name(l);
    let builtins = crate::builtins::list();
    let group = |n: &str| builtins.iter().find(|b| b.name == n).map(|b| &b.group);
    lessons
        .iter()
        .position(|l| name(l) == scenario)
        .or_else(|| {
            let g = group(scenario)?;
            lessons.iter().position(|l| group(&name(l)) == Some(g))
        })
}

impl std::ops::Deref for LessonRef {
    type Target = Lesson;
    fn deref(&self) -> &Lesson {
        &self.0[self.1]
    }
}

#[derive(Properties, PartialEq)]
pub struct LessonModeProps {
    pub playground: UseReducerDispatcher<Playground>,
    /// The playground's version and scenario: to re-apply the spotlight after each render
    /// and to notice the reader picking another scenario.
    pub version: u64,
    pub scenario_name: String,
    /// Where to start, from the page's link.
    pub start: LessonStart,
    /// In an iframe: the narration alone, no navigator.
    #[prop_or_default]
    pub embed: bool,
    /// Told where the reader is (`None` away from the lessons), for the page's link.
    pub on_place: Callback<Option<LessonPlace>>,
    /// Told which stage element the step points at (none away from the lessons).
    #[prop_or_default]
    pub on_spot: Callback<crate::spot::Spot>,
    /// A lesson the reader imported (or opened by its link): first in the list, and opened
    /// where it says when it arrives.
    #[prop_or_default]
    pub imported: Option<ImportedLesson>,
    /// Counts scenarios imported from a file: each one leaves lesson mode (even one named
    /// like the lesson's).
    #[prop_or_default]
    pub scenario_imports: u32,
    /// The Share menu. In lesson mode it is the last of the lesson navigator's buttons, so
    /// that Tab reaches them in the order they are seen; elsewhere, first.
    #[prop_or_default]
    pub share: Html,
    /// Told whether a question waits for its answer: the run holds still until then (the
    /// playback bar's forward controls and keys wait).
    #[prop_or_default]
    pub on_asking: Callback<bool>,
}

/// A start not yet made: the page's link, or an imported lesson's (which waits for that
/// lesson, first in the list, to be open), with a notice to show once it is loaded.
struct PendingStart {
    start: LessonStart,
    imported: bool,
    notice: Option<String>,
}

/// What loads the lesson's run at step 0: a built-in by name, or the lesson's own scenario
/// (inline, or under the lesson's seed) as it is, linked as an imported scenario when the
/// import worker packed one.
fn load(lesson: &Lesson, imported: Option<&ImportedLesson>) -> Action {
    match (&lesson.file.scenario, lesson.file.seed) {
        (ScenarioSource::Builtin(name), None) => Action::Load(name.clone()),
        _ => Action::Open(Box::new(Opened::at_start(
            match imported.and_then(|i| i.scenario_payload.as_ref()) {
                Some(payload) => Source::Custom(payload.to_string()),
                None => Source::Builtin(crate::lessons::scenario_name(lesson)),
            },
            lesson.scenario().clone(),
        ))),
    }
}

/// The lesson state a start from a link gives.
fn starting_ui(start: &LessonStart, lessons: &[Lesson]) -> LessonUi {
    match start {
        LessonStart::First => LessonUi::default(),
        LessonStart::Away => LessonUi {
            mode: Mode::Playground,
            visited: false,
            ..LessonUi::default()
        },
        LessonStart::At { place, .. } => LessonUi {
            lesson: lessons.iter().position(|l| l.id() == place.id).unwrap_or(0),
            step: place.step,
            mode: if place.trying.is_some() {
                Mode::Playground
            } else {
                Mode::Lesson
            },
            trying: place.trying.map(|k| (place.step, k)),
            ..LessonUi::default()
        },
    }
}

#[function_component(LessonMode)]
pub fn lesson_mode(props: &LessonModeProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let serial = props.imported.as_ref().map_or(0, |i| i.serial);
    let lessons = {
        let imported = props.imported.clone();
        // The built-ins' Russian texts come from a worker (`russian.rs`): until they are
        // here, each says it is loading.
        use_memo((serial, i18n.russian), move |_| {
            let mut all: Vec<Lesson> = imported.iter().map(|i| (*i.lesson).clone()).collect();
            all.extend(crate::lessons::all());
            all
        })
    };
    let ui = {
        let (start, lessons) = (props.start.clone(), lessons.clone());
        use_reducer(move || starting_ui(&start, &lessons))
    };
    let progress =
        use_state(|| Progress::parse(&crate::storage::get(PROGRESS_KEY).unwrap_or_default()));
    let index = ui.lesson.min(lessons.len().saturating_sub(1));
    let resolved: Rc<Vec<ResolvedStep>> = use_memo((index, serial, i18n.russian), |(i, _, _)| {
        lessons
            .get(*i)
            .and_then(|l| l.build().ok())
            .map(|(_, r)| r)
            .unwrap_or_default()
    });
    {
        let p = (*progress).clone();
        use_effect_with(p, |p| crate::storage::set(PROGRESS_KEY, &p.encode()));
    }
    let offered = {
        let lessons = lessons.clone();
        *use_memo((props.scenario_name.clone(), serial), move |(name, _)| {
            offered_lesson(&lessons, name)
        })
    };
    if lessons.get(index).is_none() {
        return props.share.clone();
    }
    // Shared, not cloned: a lesson holds its whole scenario.
    let lesson = LessonRef(lessons.clone(), index);
    let scenario = crate::lessons::scenario_name(&lesson);
    let pg = props.playground.clone();
    // The open lesson is the imported one (first in the list).
    let imported = props.imported.clone().filter(|_| index == 0);

    // Show narration step `i` of the open lesson (reloading the lesson's run if the
    // playground has something else), and count it as seen unless its question waits.
    let show = {
        let (pg, ui, progress, resolved, lesson, imported) = (
            pg.clone(),
            ui.clone(),
            progress.clone(),
            resolved.clone(),
            lesson.clone(),
            imported.clone(),
        );
        let elsewhere =
            ui.trying.is_some() || ui.mode == Mode::Playground || props.scenario_name != scenario;
        Callback::from(move |i: usize| {
            if elsewhere {
                pg.dispatch(load(&lesson, imported.as_ref()));
            }
            let ask = asking(&lesson, i, false);
            pg.dispatch(Action::Seek(seek_target(&resolved, i, ask)));
            ui.dispatch(LessonAction::Go(i));
            if !ask {
                progress.set(progress.seen(lesson.id(), i));
            }
        })
    };

    // Opening a lesson loads its scenario at its first step. The first render starts where
    // the page's link says: the first lesson, a lesson's step (or its try-it run), or
    // nowhere (a link to the playground opens that instead).
    let first = use_mut_ref(|| {
        Some(PendingStart {
            start: props.start.clone(),
            imported: false,
            notice: None,
        })
    });
    // An imported lesson arriving opens where it says (its first step, or its link's place).
    {
        let (first, ui, arrived, lessons) = (
            first.clone(),
            ui.clone(),
            props.imported.clone(),
            lessons.clone(),
        );
        use_effect_with(serial, move |_| {
            if let Some(i) = arrived {
                let start = LessonStart::At {
                    place: i.place.clone(),
                    run_step: i.run_step,
                };
                ui.dispatch(LessonAction::Start(Box::new(starting_ui(&start, &lessons))));
                *first.borrow_mut() = Some(PendingStart {
                    start,
                    imported: true,
                    notice: i.notice.clone(),
                });
            }
        });
    }
    {
        let (pg, progress, resolved, lesson, scenario) = (
            pg.clone(),
            progress.clone(),
            resolved.clone(),
            lesson.clone(),
            scenario.clone(),
        );
        let (first, imported) = (first.clone(), imported.clone());
        use_effect_with((index, serial), move |_| {
            if first.borrow().as_ref().is_some_and(|p| p.imported) && imported.is_none() {
                return;
            }
            let pending = first.borrow_mut().take();
            let notice = pending.as_ref().and_then(|p| p.notice.clone());
            let (step, trying) = match pending.map(|p| p.start) {
                Some(LessonStart::Away) => return,
                Some(LessonStart::At { place, run_step }) => {
                    (place.step, place.trying.map(|k| (k, run_step)))
                }
                _ => (0, None),
            };
            if let Some((k, run_step)) = trying {
                let changed = lesson
                    .steps
                    .get(step)
                    .and_then(|s| s.try_it.get(k))
                    .and_then(|t| t.apply(lesson.scenario()).ok());
                if let Some(changed) = changed {
                    // Opened like a link, so a step past the run's end says so.
                    let mut opened = Opened::at_start(Source::Builtin(scenario), changed);
                    opened.step = run_step;
                    opened.notices.extend(notice);
                    pg.dispatch(Action::Open(Box::new(opened)));
                    return;
                }
            }
            let say = |pg: &UseReducerDispatcher<Playground>| {
                if let Some(n) = notice {
                    pg.dispatch(Action::Notice(n));
                }
            };
            pg.dispatch(load(&lesson, imported.as_ref()));
            let ask = asking(&lesson, step, false);
            pg.dispatch(Action::Seek(seek_target(&resolved, step, ask)));
            // After the seek: a step clears the notice.
            say(&pg);
            if !ask {
                progress.set(progress.seen(lesson.id(), step));
            }
        });
    }

    // Picking another scenario in the header leaves lesson mode (a change away from the
    // lesson's scenario, not the page's default showing before the lesson's loads).
    {
        let ui = ui.clone();
        let scenario = scenario.clone();
        let last = use_mut_ref(|| props.scenario_name.clone());
        use_effect_with(props.scenario_name.clone(), move |name| {
            let was = std::mem::replace(&mut *last.borrow_mut(), name.clone());
            if ui.mode == Mode::Lesson && was == scenario && *name != scenario {
                ui.dispatch(LessonAction::Mode(Mode::Playground));
            }
        });
    }

    // An imported scenario leaves the lesson (its name may be the lesson scenario's).
    {
        let ui = ui.clone();
        use_effect_with(props.scenario_imports, move |n| {
            if *n > 0 {
                ui.dispatch(LessonAction::Leave);
            }
        });
    }

    // The page's link follows the reader.
    {
        let place = match (ui.mode, ui.trying) {
            (Mode::Lesson, _) => Some(LessonPlace {
                id: lesson.id().to_string(),
                step: ui.step,
                trying: None,
                payload: imported.as_ref().map(|i| i.payload.clone()),
            }),
            (Mode::Playground, Some((step, k))) => Some(LessonPlace {
                id: lesson.id().to_string(),
                step,
                trying: Some(k),
                payload: imported.as_ref().map(|i| i.payload.clone()),
            }),
            (Mode::Playground, None) => None,
        };
        let on_place = props.on_place.clone();
        use_effect_with(place, move |place| on_place.emit(place.clone()));
    }

    let step_spot = lesson
        .steps
        .get(ui.step)
        .and_then(|s| s.spotlight.clone())
        .filter(|_| ui.mode == Mode::Lesson);
    let has_spot = step_spot.is_some();
    // The stage lights it (spot.rs).
    {
        let on_spot = props.on_spot.clone();
        use_effect_with(step_spot, move |spot| {
            on_spot.emit(crate::spot::Spot(spot.as_deref().map(Into::into)))
        });
    }

    let reveal = {
        let (pg, ui, progress, resolved, lesson) = (
            pg.clone(),
            ui.clone(),
            progress.clone(),
            resolved.clone(),
            lesson.clone(),
        );
        Callback::from(move |given: Option<Answer>| {
            let i = ui.step;
            let probe_with = given.unwrap_or(Answer::Number(i64::MIN));
            if let Ok(grade) = grade_at(&lesson, &resolved, i, probe_with) {
                pg.dispatch(Action::Seek(seek_target(&resolved, i, false)));
                let mut p = progress.seen(lesson.id(), i);
                if given.is_some() && grade.correct {
                    p = p.right(lesson.id(), i);
                }
                progress.set(p);
                ui.dispatch(LessonAction::Reveal(Revealed { given, grade }));
            }
        })
    };
    let is_asking = asking(&lesson, ui.step, ui.revealed.is_some());
    let last = lesson.steps.len().saturating_sub(1);
    // Past a lesson's last step, Next (and a clicker's PageDown) opens the next lesson.
    let next_lesson = (index + 1 < lessons.len()).then_some(index + 1);
    let offer_next_lesson = ui.step >= last && !is_asking && next_lesson.is_some();
    let next = {
        let (show, reveal, choice, step) = (show.clone(), reveal.clone(), ui.choice, ui.step);
        let ui = ui.clone();
        Callback::from(move |_: ()| {
            if is_asking {
                reveal.emit(choice);
                crate::components::focus_soon("feedback");
            } else if step < last {
                show.emit(step + 1);
                // The new step's text takes the focus: a screen reader reads it, and the
                // button pressed may be disabled now (a question waits), which drops it.
                crate::components::focus_soon("lesson-text");
            } else if let Some(i) = next_lesson {
                ui.dispatch(LessonAction::Open(i));
                crate::components::focus_soon("lesson-title");
            }
        })
    };
    let prev = {
        let (show, step) = (show.clone(), ui.step);
        Callback::from(move |_: ()| {
            if step > 0 {
                show.emit(step - 1);
                crate::components::focus_soon("lesson-text");
            }
        })
    };

    // While a question waits for its answer, what would give the answer away (the three
    // lanes, the compare table, the outcome and checkpoint charts: `data-veil` in `style.css`)
    // is hidden: those show the whole run, or the moment the question asks about. The run
    // itself holds still (`on_asking`): stepping on would show the answer.
    {
        let veiled = ui.mode == Mode::Lesson && is_asking;
        let on_asking = props.on_asking.clone();
        use_effect_with(veiled, move |veiled| {
            let root = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.document_element());
            if let Some(root) = &root {
                let _ = root
                    .class_list()
                    .toggle_with_force("lesson-asking", *veiled);
            }
            on_asking.emit(*veiled);
            move || {
                if let Some(root) = root {
                    let _ = root.class_list().remove_1("lesson-asking");
                }
                on_asking.emit(false);
            }
        });
    }

    // PageDown/PageUp (what presentation clickers send) move through the steps.
    {
        let (next, prev) = (next.clone(), prev.clone());
        let active = ui.mode == Mode::Lesson;
        use_effect_with(
            (active, ui.lesson, ui.step, is_asking, ui.choice),
            move |(active, ..)| {
                let active = *active;
                let listener = Closure::<dyn Fn(KeyboardEvent)>::new(move |e: KeyboardEvent| {
                    if !active || e.alt_key() || e.ctrl_key() || e.meta_key() {
                        return;
                    }
                    match e.key().as_str() {
                        "PageDown" => {
                            e.prevent_default();
                            next.emit(());
                        }
                        "PageUp" => {
                            e.prevent_default();
                            prev.emit(());
                        }
                        _ => {}
                    }
                });
                let window = web_sys::window();
                if let Some(w) = &window {
                    let _ = w.add_event_listener_with_callback(
                        "keydown",
                        listener.as_ref().unchecked_ref(),
                    );
                }
                move || {
                    if let Some(w) = window {
                        let _ = w.remove_event_listener_with_callback(
                            "keydown",
                            listener.as_ref().unchecked_ref(),
                        );
                    }
                }
            },
        );
    }

    let entries = vm::contents(&lessons, &progress, index, i18n.lang);
    let on_open = {
        let ui = ui.clone();
        Callback::from(move |i: usize| {
            ui.dispatch(LessonAction::Open(i));
            crate::components::focus_soon("lesson-title");
        })
    };
    let on_toggle = {
        let ui = ui.clone();
        Callback::from(move |_| ui.dispatch(LessonAction::ToggleContents))
    };
    let on_clear = {
        let progress = progress.clone();
        Callback::from(move |_| progress.set(Progress::default()))
    };
    let on_leave = {
        let (pg, ui, name) = (pg.clone(), ui.clone(), props.scenario_name.clone());
        let (lesson, imported, own) = (
            lesson.clone(),
            imported.clone(),
            props.scenario_name == scenario,
        );
        Callback::from(move |_| {
            pg.dispatch(if own {
                load(&lesson, imported.as_ref())
            } else {
                Action::Load(name.clone())
            });
            ui.dispatch(LessonAction::Mode(Mode::Playground));
            // The button is gone with the lesson: the focus goes to the playground's Step
            // (the arrow keys still step the run; on the scenario picker they would browse).
            crate::components::focus_soon("step");
        })
    };
    let on_back = {
        let (ui, show, step) = (ui.clone(), show.clone(), ui.step);
        let (pg, lesson, imported, resolved) = (
            pg.clone(),
            lesson.clone(),
            imported.clone(),
            resolved.clone(),
        );
        // Back from a try-it of a step whose answer was revealed: the answer stays, and the
        // run goes back to the step's own point (not the one before its question).
        let kept = ui.revealed.is_some() && ui.trying.is_some_and(|(s, _)| s == step);
        Callback::from(move |_: MouseEvent| {
            if kept {
                pg.dispatch(load(&lesson, imported.as_ref()));
                pg.dispatch(Action::Seek(seek_target(&resolved, step, false)));
            } else {
                show.emit(step);
            }
            ui.dispatch(LessonAction::Mode(Mode::Lesson));
            crate::components::focus_soon("lesson-title");
        })
    };

    // Embedded, away from the lesson shows nothing, but a try-it run says what it changed.
    if ui.mode == Mode::Playground && props.embed && ui.trying.is_none() {
        return props.share.clone();
    }
    if ui.mode == Mode::Playground {
        let offered = offered.filter(|i| *i < lessons.len()).unwrap_or(index);
        // Another lesson than the one open: it opens at its start.
        let on_offered = if offered == index {
            on_back.clone()
        } else {
            let ui = ui.clone();
            Callback::from(move |_: MouseEvent| {
                ui.dispatch(LessonAction::Open(offered));
                crate::components::focus_soon("lesson-title");
            })
        };
        // The setting the run changed, named as the fork names it ("guarantee (billing):
        // at-least-once → at-most-once"), then the try-it's own words; an added fault has
        // only those.
        let trying = ui.trying.and_then(|(s, k)| {
            let t = lesson.steps.get(s)?.try_it.get(k)?;
            let change = (!matches!(t.action, eos_core::lesson::try_it::TryAction::Inject(_)))
                .then(|| {
                    crate::components::fork_panel::change_in(
                        i18n.lang,
                        lesson.scenario(),
                        &t.action,
                    )
                });
            Some((change, t.text.get(i18n.lang).to_string()))
        });
        return html! {
            <>
            { props.share.clone() }
            // Only the offer of the lessons: a button, without a card around it (at 1280×720
            // every line above the stage counts).
            <section class={classes!("lesson-away", (trying.is_none() && !ui.visited).then_some("offer"))} aria-label={i18n.t(S::Lessons)}>
                if let Some((change, text)) = trying {
                    <div id="trying" class="trying" tabindex="-1">
                        <p><strong>{ i18n.t(S::Trying) }</strong>
                            if let Some(change) = change {
                                // "at-most-once" kept whole at a line's end.
                                {" "}<span class="trying-change">{ change.replace('-', "\u{2011}") }</span>
                            }
                        </p>
                        { crate::markdown::render(&text) }
                    </div>
                }
                if ui.visited {
                    <button id="back-to-lesson" class="primary" onclick={on_back}>
                        {"« "}{ i18n.t(S::BackToLesson) }{ format!(": {}", lesson.title().get(i18n.lang)) }
                    </button>
                } else {
                    <button id="back-to-lesson" class="primary" onclick={on_offered}>
                        { i18n.f(S::StartLessons, &[&lessons[offered].title().get(i18n.lang)]) }{" »"}
                    </button>
                }
            </section>
            </>
        };
    }

    let on_choose = {
        let ui = ui.clone();
        Callback::from(move |a: Option<Answer>| ui.dispatch(LessonAction::Choose(a)))
    };
    let on_reveal = {
        let (reveal, ui_choice, ui) = (reveal.clone(), ui.choice, ui.clone());
        Callback::from(move |given: Option<Answer>| {
            let choice = given.or(ui_choice);
            if choice.is_some() {
                if given.is_some() {
                    ui.dispatch(LessonAction::Choose(given));
                }
                reveal.emit(choice);
                crate::components::focus_soon("feedback");
            }
        })
    };
    let on_show = {
        let reveal = reveal.clone();
        Callback::from(move |_| {
            reveal.emit(None);
            crate::components::focus_soon("feedback");
        })
    };
    let on_try_again = {
        let (pg, ui, resolved, step) = (pg.clone(), ui.clone(), resolved.clone(), ui.step);
        Callback::from(move |_| {
            pg.dispatch(Action::Seek(seek_target(&resolved, step, true)));
            ui.dispatch(LessonAction::TryAgain);
            // Back to the answer (a number field, or the first choice).
            crate::components::focus_soon("answer-number");
            crate::components::focus_soon("choice-0");
        })
    };
    let on_try_it = {
        let (pg, ui, lesson, scenario, step) = (
            pg.clone(),
            ui.clone(),
            lesson.clone(),
            scenario.clone(),
            ui.step,
        );
        Callback::from(move |k: usize| {
            let Some(t) = lesson.steps.get(step).and_then(|s| s.try_it.get(k)) else {
                return;
            };
            if let Ok(changed) = t.apply(lesson.scenario()) {
                pg.dispatch(Action::LoadScenario(scenario.clone(), Rc::new(changed)));
                ui.dispatch(LessonAction::Trying(step, k));
                crate::components::focus_soon("trying");
            }
        })
    };
    let step_vm = vm::step(&lesson, &ui, i18n.lang);
    html! {
        <div class="lesson-mode">
            if !props.embed {
                <LessonNav entries={entries} current={index} open={ui.contents_open}
                    on_toggle={on_toggle} on_open={on_open} on_clear={on_clear} on_leave={on_leave}
                    share={props.share.clone()} />
            }
            <LessonPanel vm={step_vm} choice={ui.choice} on_prev={prev} on_next={next}
                next_lesson={offer_next_lesson} spotlight={has_spot}
                on_choose={on_choose} on_reveal={on_reveal} on_show={on_show}
                on_try_again={on_try_again} on_try_it={on_try_it} />
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::offered_lesson;

    /// A scenario's own lesson is offered first; a scenario no lesson runs offers the first
    /// lesson of its group (a Flink scenario, a Flink lesson).
    #[test]
    fn a_scenario_offers_its_own_lesson_else_one_of_its_group() {
        let lessons = crate::lessons::all();
        let offered = |s: &str| {
            offered_lesson(&lessons, s).map(|i| crate::lessons::scenario_name(&lessons[i]))
        };
        assert_eq!(
            offered("flink-2pc-crash-recovery").as_deref(),
            Some("flink-2pc-crash-recovery")
        );
        let flink = offered("flink-iterative-loop-loss").expect("a Flink lesson");
        assert!(flink.starts_with("flink-"), "{flink}");
        let kafka = offered("acks1-leader-crash-loss").expect("a lesson");
        assert!(!kafka.starts_with("flink-"), "{kafka}");
        assert_eq!(offered("no-such-scenario"), None);
    }
}
