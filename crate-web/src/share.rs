//! Sharing, on the page's side: the URL, the import worker, files, downloads and images,
//! through the small JavaScript glue in `share.js`. What can be pure (reading a worker's
//! answer, turning it into a scenario to open) is, and is tested natively.

use crate::permalink::{LessonPlace, Link, Source};
use crate::state::{Opened, Selection};
use eos_core::lesson::LessonFile;
use eos_core::{Lesson, Scenario};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The import worker's loader, as Trunk writes it next to `index.html`.
pub const WORKER_URL: &str = "./eos-codec_loader.js";
/// The largest scenario file the page reads (the core's own limit).
pub const MAX_IMPORT_BYTES: u32 = eos_core::scenario::limits::MAX_FILE_BYTES as u32;

#[wasm_bindgen(module = "/src/share.js")]
extern "C" {
    #[wasm_bindgen(js_name = codecRequest)]
    fn codec_request(url: &str, request: &str, done: &JsValue);
    #[wasm_bindgen(js_name = workerBytes)]
    fn worker_bytes_js(url: &str, done: &JsValue);
    #[wasm_bindgen(js_name = locationQuery)]
    pub fn location_query() -> String;
    #[wasm_bindgen(js_name = replaceQuery)]
    pub fn replace_query(query: &str);
    #[wasm_bindgen(js_name = linkFor)]
    pub fn link_for(query: &str) -> String;
    #[wasm_bindgen(js_name = copyText)]
    fn copy_text_js(text: &str, done: &JsValue);
    #[wasm_bindgen(js_name = downloadText)]
    pub fn download_text(name: &str, mime: &str, text: &str);
    #[wasm_bindgen(js_name = readFile)]
    fn read_file_js(event: &JsValue, max_bytes: u32, done: &JsValue);
    #[wasm_bindgen(js_name = svgText)]
    pub fn svg_text(selector: &str) -> String;
    #[wasm_bindgen(js_name = svgFromMarkup)]
    pub fn svg_from_markup(markup: &str) -> String;
    #[wasm_bindgen(js_name = downloadSvgText)]
    pub fn download_svg_text(name: &str, svg: &str);
    #[wasm_bindgen(js_name = downloadPng)]
    fn download_png_js(name: &str, svg: &str, done: &JsValue);
}

/// The import worker's answer: a body, or one problem a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Ok(String),
    Err(Vec<String>),
}

pub fn parse_answer(text: &str) -> Answer {
    match text.split_once('\n') {
        Some(("ok", body)) => Answer::Ok(body.to_string()),
        Some(("err", lines)) => {
            Answer::Err(lines.lines().map(|l| l.replace('\u{1f}', "\n")).collect())
        }
        _ => Answer::Err(vec!["the import worker gave no answer".into()]),
    }
}

/// Asks the import worker (loading it the first time).
/// (The callbacks here are boxed so that each wrapper is compiled once, not once per caller.)
pub fn ask(command: &str, argument: &str, done: Box<dyn FnOnce(Answer)>) {
    let callback = Closure::once_into_js(move |text: String| done(parse_answer(&text)));
    codec_request(WORKER_URL, &format!("{command}\n{argument}"), &callback);
}

/// Loads a worker that says one thing, its bytes, and ends: `done(None)` if it fails.
pub fn worker_bytes(url: &str, done: Box<dyn FnOnce(Option<Vec<u8>>)>) {
    worker_bytes_js(
        url,
        &Closure::once_into_js(move |bytes: Option<Vec<u8>>| done(bytes)),
    );
}

pub fn copy_text(text: &str, done: Box<dyn FnOnce(bool)>) {
    copy_text_js(text, &Closure::once_into_js(move |ok: bool| done(ok)));
}

/// Reads the first file of a change (file picker) or drop event: `done(name, Ok(text))`.
pub fn read_file(event: &JsValue, done: Box<dyn FnOnce(String, Result<String, String>)>) {
    let callback = Closure::once_into_js(move |name: String, text: String, error: String| {
        done(
            name,
            if error.is_empty() {
                Ok(text)
            } else {
                Err(error)
            },
        )
    });
    read_file_js(event, MAX_IMPORT_BYTES, &callback);
}

pub fn download_png(name: &str, svg: &str, done: Box<dyn FnOnce(String)>) {
    download_png_js(name, svg, &Closure::once_into_js(move |e: String| done(e)));
}

/// A scenario the worker read (`payload\nwire`), to open at step 0.
pub fn opened_from_worker(body: &str) -> Result<Opened, Vec<String>> {
    let (payload, wire) = body
        .split_once('\n')
        .ok_or_else(|| vec!["the import worker's answer is incomplete".to_string()])?;
    let base = crate::builtins::file_from_wire(wire)
        .and_then(Scenario::from_file)
        .map_err(crate::codec::problems)?;
    Ok(Opened::at_start(Source::Custom(payload.to_string()), base))
}

/// A lesson the reader imported, or opened by its link (`lx`): listed first in the lessons.
#[derive(Clone, Debug)]
pub struct ImportedLesson {
    pub lesson: Rc<Lesson>,
    /// What the page's link carries (`lx`).
    pub payload: Rc<str>,
    /// Its inline scenario as a scenario link carries it (`x`), for the playground's link
    /// once the reader leaves the lesson; `None` for a lesson on a built-in.
    pub scenario_payload: Option<Rc<str>>,
    /// Where to open it, and the try-it run's step.
    pub place: LessonPlace,
    pub run_step: u64,
    /// What the page says once it is open (a link's step past the lesson's last).
    pub notice: Option<String>,
    /// Counts imports: the same lesson imported again opens again.
    pub serial: u32,
}

impl PartialEq for ImportedLesson {
    fn eq(&self, other: &Self) -> bool {
        self.serial == other.serial
    }
}

/// A lesson's scenario, found by the page among the built-ins only: it cannot open a second
/// file, so a scenario named by path gets a sentence saying what to do instead.
fn page_scenario(name: &str) -> Result<Scenario, eos_core::ScenarioError> {
    if eos_core::lesson::is_scenario_path(name) {
        return Err(eos_core::ScenarioError::Parse {
            message: "the page cannot open a second file: put the scenario in the lesson as a \
                      [scenario] table, or name a built-in scenario"
                .into(),
        });
    }
    crate::builtins::get(name)
}

/// A lesson the worker read, validated and checked, with what links carry.
#[derive(Debug)]
pub struct ReadLesson {
    pub lesson: Lesson,
    /// The lesson's link payload (`lx`).
    pub payload: Rc<str>,
    /// Its inline scenario's link payload (`x`), if it has one.
    pub scenario_payload: Option<Rc<str>>,
}

/// A lesson the worker read (`lesson\npayload\nscenario payload\nwire`), with its payloads.
pub fn lesson_from_worker(body: &str) -> Result<ReadLesson, Vec<String>> {
    let incomplete = || vec!["the import worker's answer is incomplete".to_string()];
    let mut parts = body
        .strip_prefix("lesson\n")
        .ok_or_else(incomplete)?
        .split('\n');
    let (Some(payload), Some(scenario), Some(wire)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(incomplete());
    };
    let bytes = crate::codec::base64url_decode(wire.trim())
        .ok_or_else(|| vec!["the import worker's answer is not base64url".to_string()])?;
    let file: LessonFile = crate::wire::from_bytes(&bytes)
        .map_err(|e| vec![format!("the import worker's answer is damaged: {e}")])?;
    let lesson =
        Lesson::from_file_with(file, &page_scenario).map_err(crate::codec::lesson_problems)?;
    // Its own id: a built-in's would share that lesson's progress and links.
    if crate::lessons::all().iter().any(|l| l.id() == lesson.id()) {
        return Err(vec![format!(
            "id: \"{}\" is a built-in lesson's id; give your lesson its own, so that its progress and links stay apart",
            lesson.id()
        )]);
    }
    // Checked as `eos-sim check` checks it: every point reached, every answer the run's.
    lesson
        .check_without_invariants()
        .map_err(crate::codec::lesson_problems)?;
    Ok(ReadLesson {
        lesson,
        payload: payload.into(),
        scenario_payload: (!scenario.is_empty()).then(|| scenario.into()),
    })
}

/// What to open for a link to a built-in scenario (a custom one needs the worker first).
pub fn opened_from_link(link: &Link, base: Result<Scenario, String>) -> Opened {
    Opened {
        source: link.source.clone(),
        base,
        seed: link.seed,
        guarantee: link.guarantee,
        faults: link.faults.clone(),
        step: link.step,
        selection: link.message.map(Selection::Message),
        fork: link.fork.clone(),
        notices: link.notices.clone(),
    }
}

/// A link's built-in scenario, or why it cannot be opened.
pub fn builtin_base(name: &str) -> Result<Scenario, String> {
    crate::builtins::get(name).map_err(|e| {
        let reason = match e {
            eos_core::ScenarioError::UnknownBuiltin { name, .. } => {
                let name: String = name.chars().take(40).collect();
                format!("no built-in scenario is called \"{name}\"")
            }
            other => other.to_string(),
        };
        format!("This link cannot be opened: {reason}. Showing the default scenario instead.")
    })
}

/// How lesson mode starts, from the page's link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LessonStart {
    /// No link: the first lesson, at its first step.
    First,
    /// A lesson link, checked against the lesson; `run_step` is the try-it run's step.
    At { place: LessonPlace, run_step: u64 },
    /// A link to the playground (or one that could not be opened): lesson mode waits.
    Away,
}

/// Checks a lesson link against the lessons. An unknown lesson is refused; a step past the
/// lesson's last is its last, and a try-it prompt the step lacks is the step itself, with a
/// notice saying so (the reader keeps the lesson the link names).
pub fn check_place(
    place: &LessonPlace,
    lessons: &[eos_core::Lesson],
) -> Result<(LessonPlace, Option<String>), String> {
    let Some(lesson) = lessons.iter().find(|l| l.id() == place.id) else {
        return Err(format!(
            "This link cannot be opened: no lesson is called \"{}\". Showing the default scenario instead.",
            place.id
        ));
    };
    let steps = lesson.steps.len();
    let mut fixed = place.clone();
    if place.step >= steps {
        fixed.step = steps.saturating_sub(1);
        fixed.trying = None;
        return Ok((
            fixed,
            Some(format!(
                "The lesson \"{}\" has {steps} steps, and the link asks for step {} (ls={}): showing its last step.",
                lesson.title().get(crate::i18n::Lang::En),
                place.step.saturating_add(1),
                place.step
            )),
        ));
    }
    let prompts = lesson.steps.get(place.step).map_or(0, |s| s.try_it.len());
    match place.trying {
        Some(k) if k >= prompts => {
            fixed.trying = None;
            Ok((
                fixed,
                Some(format!(
                    "Step {} of the lesson \"{}\" has no try-it prompt {} (try={k}): showing the step.",
                    place.step + 1,
                    lesson.title().get(crate::i18n::Lang::En),
                    k.saturating_add(1)
                )),
            ))
        }
        _ => Ok((fixed, None)),
    }
}

/// Where lesson mode starts for the page's link (`None`: no query at all).
pub fn lesson_start(
    start: Option<&Result<Link, crate::permalink::LinkError>>,
    lessons: &[eos_core::Lesson],
) -> (LessonStart, Option<String>) {
    match start {
        None => (LessonStart::First, None),
        Some(Err(_)) => (LessonStart::Away, None),
        Some(Ok(link)) => match &link.lesson {
            // An imported lesson's link: the lesson arrives from the import worker.
            Some(place) if place.payload.is_some() => (LessonStart::Away, None),
            Some(place) => match check_place(place, lessons) {
                Ok((place, notice)) => (
                    LessonStart::At {
                        place,
                        run_step: link.step,
                    },
                    joined(&link.notices, notice),
                ),
                Err(e) => (LessonStart::Away, Some(e)),
            },
            None if link.named => (LessonStart::Away, None),
            None => (LessonStart::First, None),
        },
    }
}

/// A link's own notices, then one more: one notice, or none.
pub fn joined(notices: &[String], more: Option<String>) -> Option<String> {
    let all: Vec<&str> = notices
        .iter()
        .map(String::as_str)
        .chain(more.as_deref())
        .collect();
    (!all.is_empty()).then(|| all.join(" "))
}

/// A file name for downloads: the scenario's name, then what it holds.
pub fn file_name(scenario: &str, what: &str) -> String {
    let safe: String = scenario
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{safe}{what}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{Action, Playground};
    use std::rc::Rc;
    use yew::Reducible;

    #[test]
    fn worker_answers_are_read() {
        assert_eq!(parse_answer("ok\nA\nB"), Answer::Ok("A\nB".into()));
        assert_eq!(
            parse_answer("err\nx: bad\ny: worse"),
            Answer::Err(vec!["x: bad".into(), "y: worse".into()])
        );
        assert!(matches!(parse_answer("garbage"), Answer::Err(_)));
        assert!(opened_from_worker("no-newline").is_err());
        assert!(opened_from_worker("AAAA\n!!!").is_err());
    }

    /// The whole permalink path: act, make the link, open it in a fresh page, compare.
    #[test]
    fn a_permalink_restores_the_same_step_and_trace_hash() {
        let mut s = Rc::new(Playground::new("seed-frozen-broker"));
        for _ in 0..4 {
            s = s.reduce(Action::Step);
        }
        let crash = crate::state::process_fault("broker-0", "crash", 0);
        s = s.reduce(Action::InjectFault(Box::new(crash)));
        for _ in 0..5 {
            s = s.reduce(Action::Step);
        }
        let query = crate::permalink::format_query(&Link::of(&s, false));
        let restored = open_query(&query);
        assert_eq!(restored.error, None);
        assert_eq!(restored.sim.borrow().steps(), 9);
        assert_eq!(
            restored.sim.borrow().trace_hash(),
            s.sim.borrow().trace_hash()
        );
        assert_eq!(restored.injected, 1);
        assert_eq!(
            crate::permalink::format_query(&Link::of(&restored, false)),
            query
        );
    }

    /// A link opened on a fresh page, as the address bar would.
    fn open_query(query: &str) -> Rc<Playground> {
        let link = crate::permalink::parse_query(query).expect("parses");
        let Source::Builtin(name) = &link.source else {
            panic!("a built-in")
        };
        let opened = opened_from_link(&link, builtin_base(name));
        Rc::new(Playground::new(eos_core::builtin::DEFAULT)).reduce(Action::Open(Box::new(opened)))
    }

    #[test]
    fn a_permalink_carries_the_fork_on_screen() {
        use crate::permalink::ForkAt;
        use eos_core::kafka::processor::Guarantee;
        use eos_core::lesson::try_it::TryAction;
        let mut s = Rc::new(Playground::new("rpw-crash-at-least-once"));
        for _ in 0..6 {
            s = s.reduce(Action::Step);
        }
        let fork = ForkAt {
            change: TryAction::Guarantee(Guarantee::ExactlyOnce),
            step: 6,
        };
        s = s.reduce(Action::SetFork(Some(fork.clone())));
        for _ in 0..3 {
            s = s.reduce(Action::Step);
        }
        assert_eq!(s.fork, Some(fork.clone()), "stepping keeps the fork");
        let query = crate::permalink::format_query(&Link::of(&s, false));
        assert!(query.contains("&step=9&fork=exactly-once@6"), "{query}");
        let restored = open_query(&query);
        assert_eq!(
            (restored.fork.clone(), restored.error.clone()),
            (Some(fork), None)
        );
        assert_eq!(
            crate::permalink::format_query(&Link::of(&restored, false)),
            query
        );
        // A new run lets the fork go; so does the panel.
        assert_eq!(restored.clone().reduce(Action::SetSeed(99)).fork, None);
        assert_eq!(restored.reduce(Action::SetFork(None)).fork, None);
        // A fork the scenario has no setting for, or past its run's end, is left out, said.
        for (query, why) in [
            (
                "?s=seed-frozen-broker&step=3&fork=unaligned@2",
                "fork (unaligned) does not apply",
            ),
            (
                "?s=rpw-crash-at-least-once&fork=exactly-once@999999",
                "past the run's last step",
            ),
        ] {
            let opened = open_query(query);
            let said = opened.error.as_ref().map(|n| n.text(crate::i18n::Lang::En));
            assert_eq!(opened.fork, None, "{query}");
            assert!(said.is_some_and(|t| t.contains(why)), "{query}");
        }
    }

    #[test]
    fn lesson_links_start_lesson_mode_where_they_say_or_explain_why_not() {
        let lessons = crate::lessons::all();
        let first = lessons[0].id().to_string();
        let start = |q: &str| lesson_start(Some(&crate::permalink::parse_query(q)), &lessons);
        assert_eq!(lesson_start(None, &lessons), (LessonStart::First, None));
        assert_eq!(start("?embed"), (LessonStart::First, None));
        assert_eq!(start("?s=seed-commit-abort"), (LessonStart::Away, None));
        // A link with nothing to open but a step that is not one: the first lesson.
        assert_eq!(start("?step=zz"), (LessonStart::First, None));
        assert_eq!(start("?s=%FF"), (LessonStart::Away, None));
        // An imported lesson's link waits for the import worker to read the lesson.
        assert_eq!(start("?lx=AAAA&ls=1"), (LessonStart::Away, None));
        let (at, error) = start(&format!("?lesson={first}&ls=2"));
        assert_eq!(error, None);
        assert!(
            matches!(at, LessonStart::At { place, .. } if place.step == 2 && place.id == first)
        );
        let steps = lessons[0].steps.len();
        // A step past the last opens the last, and says so.
        let (at, error) = start(&format!("?lesson={first}&ls={steps}"));
        assert!(
            matches!(&at, LessonStart::At { place, .. } if place.step == steps - 1 && place.id == first),
            "{at:?}"
        );
        let error = error.unwrap_or_default();
        assert!(
            error.contains(&format!("has {steps} steps"))
                && error.contains("showing its last step"),
            "{error}"
        );
        let (_, error) = start("?lesson=no-such-lesson");
        assert!(error
            .unwrap_or_default()
            .contains("no lesson is called \"no-such-lesson\""));
        let last = steps - 1;
        let tries = lessons[0].steps[last].try_it.len();
        let (at, error) = start(&format!("?lesson={first}&ls={last}&try={tries}"));
        assert!(error.unwrap_or_default().contains("no try-it prompt"));
        assert!(
            matches!(&at, LessonStart::At { place, .. } if place.step == last && place.trying.is_none()),
            "{at:?}"
        );
        if tries > 0 {
            let (at, error) = start(&format!("?lesson={first}&ls={last}&try=0&step=7"));
            assert_eq!(error, None);
            assert!(matches!(at, LessonStart::At { run_step: 7, .. }));
        }
    }

    #[test]
    fn a_link_with_a_value_that_is_not_one_opens_its_scenario_and_says_what_was_left_out() {
        let fresh = Rc::new(Playground::new("seed-commit-abort"));
        let name = "lost-ack-idempotence-off";
        let link =
            crate::permalink::parse_query(&format!("?s={name}&step=-5&g=exactly-once&msg=99999"))
                .expect("opens");
        let s = fresh.reduce(Action::Open(Box::new(opened_from_link(
            &link,
            builtin_base(name),
        ))));
        assert_eq!(
            (s.scenario_name.as_str(), s.sim.borrow().steps()),
            (name, 0)
        );
        let said = s.error_text(crate::i18n::Lang::En).unwrap_or_default();
        assert!(said.contains("step=-5 is not a step number"), "{said}");
        // A guarantee on a scenario without a processor does not apply, and is not kept.
        assert!(said.contains("(g=) does not apply"), "{said}");
        assert_eq!(Link::of(&s, false).guarantee, None);
        // A message the run does not have at the step is not selected.
        assert!(said.contains("selects message 99999"), "{said}");
        assert_eq!(s.selection, None);
    }

    #[test]
    fn a_bad_link_opens_the_default_view_with_a_message_and_a_late_step_the_end() {
        let fresh = Rc::new(Playground::new("seed-commit-abort"));
        let mut link = Link::builtin("no-such-scenario");
        let opened = opened_from_link(&link, builtin_base("no-such-scenario"));
        let s = fresh.clone().reduce(Action::Open(Box::new(opened)));
        assert_eq!(s.scenario_name, eos_core::builtin::DEFAULT);
        assert!(s
            .error_text(crate::i18n::Lang::En)
            .unwrap_or_default()
            .contains("no-such-scenario"));
        link = Link::builtin(eos_core::builtin::DEFAULT);
        link.step = 900_000;
        let opened = opened_from_link(&link, builtin_base(eos_core::builtin::DEFAULT));
        // A step past the end opens the link's scenario at its end.
        let s = fresh.reduce(Action::Open(Box::new(opened)));
        assert_eq!(s.sim.borrow().steps(), s.timeline.total_steps);
        assert!(s
            .error_text(crate::i18n::Lang::En)
            .unwrap_or_default()
            .contains("step 900000"));
    }
}

/// What the page shows for sharing, and whether it is embedded (see `use_sharing`).
pub struct Sharing {
    pub embed: bool,
    /// Where lesson mode starts, from the page's link.
    pub lesson_start: LessonStart,
    /// The same moment in the full playground (for embed mode's link out).
    pub full_link: String,
    pub menu: yew::Html,
    pub import_errors: yew::Html,
    pub on_dragover: yew::Callback<yew::DragEvent>,
    pub on_drop: yew::Callback<yew::DragEvent>,
    /// A lesson imported from a file or opened by its link.
    pub imported_lesson: Option<ImportedLesson>,
    /// How many scenarios were imported from a file: each one leaves lesson mode.
    pub scenario_imports: u32,
    /// The link carries a scenario or lesson the worker is still reading: the page shows
    /// that it is opening it, not the default scenario behind it.
    pub opening: bool,
}

/// Opens the page's link once, keeps the URL in step with what is shown, and serves the
/// Share menu, imports by file picker or drop, and exports.
#[yew::hook]
pub fn use_sharing(
    state: &yew::UseReducerHandle<crate::state::Playground>,
    place: Option<LessonPlace>,
    lang: crate::i18n::Lang,
) -> Sharing {
    use crate::components::import_errors::{import_errors, ImportErrorsProps};
    use crate::components::share_menu::{share_menu, Picture, ShareAction, ShareMenuProps};
    use crate::i18n::S;
    use crate::state::Action;
    use yew::prelude::*;

    let start = use_memo((), |_| {
        let query = location_query();
        (!query.is_empty()).then(|| crate::permalink::parse_query(&query))
    });
    let embed = matches!(&*start, Some(Ok(link)) if link.embed);
    let lesson = use_memo((), {
        let start = start.clone();
        move |_| lesson_start(start.as_ref().as_ref(), &crate::lessons::all())
    });
    let pending = use_state(|| {
        matches!(&*start, Some(Ok(l)) if matches!(l.source, Source::Custom(_))
            || l.lesson.as_ref().is_some_and(|p| p.payload.is_some()))
    });
    let status = use_state(|| None::<String>);
    let import_error = use_state(|| None::<(String, Vec<String>)>);
    let imported_lesson = use_state(|| None::<ImportedLesson>);
    // Counts scenarios imported from a file: each one leaves lesson mode.
    let scenario_imports = use_state(|| 0u32);
    // Opens a lesson the worker read, where `place` says (its id is the lesson's own).
    let open_lesson = {
        let imported_lesson = imported_lesson.clone();
        Rc::new(
            move |read: ReadLesson,
                  place: LessonPlace,
                  run_step: u64,
                  notices: &[String]|
                  -> Result<(), String> {
                let ReadLesson {
                    lesson,
                    payload,
                    scenario_payload,
                } = read;
                let place = LessonPlace {
                    id: lesson.id().to_string(),
                    ..place
                };
                let (place, notice) = check_place(&place, std::slice::from_ref(&lesson))?;
                let mut notice = joined(notices, notice);
                let chars = payload.chars().count();
                if chars > crate::permalink::MAX_LESSON_PAYLOAD_CHARS {
                    notice = joined(
                        &notice.into_iter().collect::<Vec<_>>(),
                        Some(format!(
                            "This lesson is too long to travel in a link: packed, it is {chars} characters, and a link carries {}. It is open in this tab only: share the file itself.",
                            crate::permalink::MAX_LESSON_PAYLOAD_CHARS
                        )),
                    );
                }
                let serial = imported_lesson.as_ref().map_or(0, |i| i.serial) + 1;
                imported_lesson.set(Some(ImportedLesson {
                    lesson: Rc::new(lesson),
                    payload,
                    scenario_payload,
                    place,
                    run_step,
                    notice,
                    serial,
                }));
                Ok(())
            },
        )
    };

    {
        let (state, pending, lesson) = (state.clone(), pending.clone(), lesson.clone());
        let open_lesson = open_lesson.clone();
        use_effect_with((), move |_| {
            // A lesson link that opens, with something changed (a step past the lesson's
            // last): lesson mode loads the lesson, and the page says what was changed.
            if let (LessonStart::At { .. }, Some(notice)) = &*lesson {
                state.dispatch(Action::Notice(notice.clone()));
                return;
            }
            let open = move |o: Opened| state.dispatch(Action::Open(Box::new(o)));
            let refused = |lines: Vec<String>| {
                Err(format!(
                    "This link cannot be opened: {}. Showing the default scenario instead.",
                    lines.join("; ")
                ))
            };
            // An imported lesson's link: the worker reads the lesson it carries.
            if let Some(Ok(Link {
                lesson: Some(place),
                step,
                notices,
                ..
            })) = &*start
            {
                if let Some(payload) = &place.payload {
                    let (place, step, notices) = (place.clone(), *step, notices.clone());
                    ask(
                        "unpack-lesson",
                        payload,
                        Box::new(move |answer| {
                            pending.set(false);
                            let opened = match answer {
                                Answer::Ok(body) => lesson_from_worker(&body),
                                Answer::Err(lines) => Err(lines),
                            }
                            .map_err(|lines| {
                                format!(
                                    "This link cannot be opened: {}. Showing the default scenario instead.",
                                    lines.join("; ")
                                )
                            })
                            .and_then(|read| open_lesson(read, place, step, &notices));
                            if let Err(e) = opened {
                                open(opened_from_link(
                                    &Link::builtin(eos_core::builtin::DEFAULT),
                                    Err(e),
                                ));
                            }
                        }),
                    );
                    return;
                }
            }
            match (&*start, &lesson.1) {
                (_, Some(refused)) => open(opened_from_link(
                    &Link::builtin(eos_core::builtin::DEFAULT),
                    Err(refused.clone()),
                )),
                (None, _) => {}
                // Lesson mode opens its lesson's scenario itself.
                (Some(Ok(link)), _) if !link.named => {}
                (Some(Err(e)), _) => open(opened_from_link(
                    &Link::builtin(eos_core::builtin::DEFAULT),
                    Err(e.to_string()),
                )),
                (Some(Ok(link)), _) => match &link.source {
                    Source::Builtin(name) => open(opened_from_link(link, builtin_base(name))),
                    Source::Custom(payload) => {
                        let link = link.clone();
                        ask(
                            "unpack",
                            payload,
                            Box::new(move |answer| {
                                let base = match answer {
                                    Answer::Ok(body) => match opened_from_worker(&body) {
                                        Ok(o) => o.base,
                                        Err(lines) => refused(lines),
                                    },
                                    Answer::Err(lines) => refused(lines),
                                };
                                pending.set(false);
                                open(opened_from_link(&link, base));
                            }),
                        );
                    }
                },
            }
        });
    }

    // What the worker rebuilds the run from (downloads), and what the page's link shows:
    // the same, or in lesson mode the lesson and its step.
    let query = crate::permalink::format_query(&Link::of(state, false));
    let page_link = |embed: bool| {
        let mut link = Link::of(state, embed);
        link.lesson = place.clone();
        crate::permalink::format_query(&link)
    };
    let shared = page_link(false);
    {
        let embedded = page_link(embed);
        // Not while playing: the step changes every frame, and Chromium spends milliseconds
        // on each history entry. The link catches up when playback stops.
        use_effect_with(
            (embedded, *pending, state.playing),
            |(q, pending, playing)| {
                if !*pending && !*playing {
                    replace_query(q);
                }
            },
        );
    }

    let read_and_import = {
        let (state, status, import_error) = (state.clone(), status.clone(), import_error.clone());
        let scenario_imports = scenario_imports.clone();
        // Where the reader is in the lessons, when the file is picked.
        let at = place.clone();
        Callback::from(move |event: JsValue| {
            let (state, status, import_error) =
                (state.clone(), status.clone(), import_error.clone());
            let (open_lesson, scenario_imports) = (open_lesson.clone(), scenario_imports.clone());
            let at = at.clone();
            read_file(
                &event,
                Box::new(move |name, text| {
                    let text = match text {
                        Ok(t) => t,
                        Err(e) => return import_error.set(Some((name, vec![e]))),
                    };
                    status.set(Some(S::Reading.f(lang, &[&name])));
                    ask(
                        "import",
                        &text,
                        Box::new(move |answer| {
                            let opened = match answer {
                                Answer::Ok(body) if body.starts_with("lesson\n") => {
                                    let opened = lesson_from_worker(&body).and_then(|read| {
                                        // The lesson open again (its author edited it): the
                                        // step the reader is on, else the first.
                                        let step = at
                                            .as_ref()
                                            .filter(|p| {
                                                p.payload.is_some() && p.id == read.lesson.id()
                                            })
                                            .map_or(0, |p| {
                                                p.step
                                                    .min(read.lesson.steps.len().saturating_sub(1))
                                            });
                                        let first = LessonPlace {
                                            id: String::new(),
                                            step,
                                            trying: None,
                                            payload: None,
                                        };
                                        open_lesson(read, first, 0, &[]).map_err(|e| vec![e])
                                    });
                                    match opened {
                                        Ok(()) => {
                                            import_error.set(None);
                                            status.set(Some(S::Imported.f(lang, &[&name])));
                                        }
                                        Err(lines) => {
                                            status.set(None);
                                            import_error.set(Some((name, lines)));
                                        }
                                    }
                                    return;
                                }
                                Answer::Ok(body) => opened_from_worker(&body),
                                Answer::Err(lines) => Err(lines),
                            };
                            match opened {
                                Ok(o) => {
                                    import_error.set(None);
                                    status.set(Some(S::Imported.f(lang, &[&name])));
                                    state.dispatch(Action::Open(Box::new(o)));
                                    scenario_imports.set(*scenario_imports + 1);
                                }
                                Err(lines) => {
                                    status.set(None);
                                    import_error.set(Some((name, lines)));
                                }
                            }
                        }),
                    );
                }),
            );
        })
    };

    let on_action = {
        let (status, query, shared) = (status.clone(), query.clone(), shared.clone());
        let sim = state.sim.clone();
        let name = state.scenario_name.clone();
        Callback::from(move |action: ShareAction| {
            let done = {
                let status = status.clone();
                move |text: String| status.set(Some(text))
            };
            let download = |command: &'static str, file: String, mime: &'static str, what: S| {
                let done = done.clone();
                done(what.get(lang).to_string());
                ask(
                    command,
                    &query,
                    Box::new(move |answer| match answer {
                        Answer::Ok(body) => {
                            download_text(&file, mime, &body);
                            done(S::Downloaded.f(lang, &[&file]));
                        }
                        Answer::Err(lines) => done(S::CouldNotExport.f(lang, &[&lines.join("; ")])),
                    }),
                );
            };
            let picture = |which: Picture| match which {
                Picture::Diagram => (svg_text("#space-time"), file_name(&name, "-diagram")),
                Picture::Logs => {
                    let partitions = crate::view_model::partitions(&sim.borrow(), lang);
                    (
                        svg_from_markup(&crate::export::logs_svg(&partitions, lang)),
                        file_name(&name, "-logs"),
                    )
                }
            };
            match action {
                ShareAction::CopyLink => copy_text(
                    &link_for(&shared),
                    Box::new(move |ok| {
                        done(if ok {
                            S::LinkCopied.get(lang).to_string()
                        } else {
                            S::CouldNotCopy.get(lang).to_string()
                        })
                    }),
                ),
                ShareAction::DownloadScenario => download(
                    "toml",
                    file_name(&name, ".toml"),
                    "application/toml",
                    S::PreparingScenario,
                ),
                ShareAction::DownloadTrace => download(
                    "trace",
                    file_name(&name, "-trace.json"),
                    "application/json",
                    S::PreparingTrace,
                ),
                ShareAction::Svg(which) => {
                    let (svg, file) = picture(which);
                    download_svg_text(&format!("{file}.svg"), &svg);
                    done(S::Downloaded.f(lang, &[&format!("{file}.svg")]));
                }
                ShareAction::Png(which) => {
                    let (svg, file) = picture(which);
                    let file = format!("{file}.png");
                    let name = file.clone();
                    download_png(
                        &file,
                        &svg,
                        Box::new(move |error| {
                            done(if error.is_empty() {
                                S::Downloaded.f(lang, &[&name])
                            } else {
                                S::CouldNotExport.f(lang, &[&error])
                            })
                        }),
                    );
                }
            }
        })
    };

    let on_import = {
        let read = read_and_import.clone();
        Callback::from(move |e: Event| read.emit(e.into()))
    };
    let on_drop = {
        let read = read_and_import;
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            read.emit(e.into());
        })
    };
    let on_close = {
        let import_error = import_error.clone();
        Callback::from(move |_| import_error.set(None))
    };
    let full_link = link_for(&shared);
    Sharing {
        embed,
        lesson_start: lesson.0.clone(),
        menu: share_menu(&ShareMenuProps {
            lang,
            link: full_link.clone(),
            status: (*status).clone(),
            on_action,
            on_import,
        }),
        import_errors: match &*import_error {
            Some((file, problems)) => import_errors(&ImportErrorsProps {
                lang,
                file: file.clone(),
                problems: problems.clone(),
                on_close,
            }),
            None => html! {},
        },
        on_dragover: Callback::from(|e: DragEvent| e.prevent_default()),
        on_drop,
        imported_lesson: (*imported_lesson).clone(),
        scenario_imports: *scenario_imports,
        opening: *pending,
        full_link,
    }
}
