use super::icon::icon;
use crate::i18n::{I18n, S};
use crate::state::{Action, SPEEDS};
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub on_action: Callback<Action>,
    pub playing: bool,
    pub finished: bool,
    pub at_start: bool,
    pub clock: String,
    pub trace_hash: String,
    pub step: u64,
    pub total_steps: u64,
    pub speed: u32,
    /// In a lesson: a way back up to the step's text from wherever "Show where" went.
    #[prop_or_default]
    pub lesson: bool,
    /// In a lesson, whose narration box is below the first screen: the current step's
    /// narration as a caption under the buttons (None before the first step).
    #[prop_or_default]
    pub now: Option<crate::view_model::NowVm>,
}

fn speed_label(quarters: u32) -> String {
    match quarters {
        1 => "0.25×".into(),
        2 => "0.5×".into(),
        q => format!("{}×", q / 4),
    }
}

/// Reset, step back, play/pause, step, run to end; the keyboard does the same (see app.rs).
#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let t = |s: S| i18n.t(s);
    // The page scrolls what it brings into view clear of this bar, by its height as it is.
    let bar = use_node_ref();
    {
        let bar = bar.clone();
        use_effect_with((), move |_| {
            let tracked = bar
                .cast::<web_sys::Element>()
                .map(|el| crate::placement::BarHeight::new(&el));
            move || drop(tracked)
        });
    }
    let button = |id: &'static str,
                  glyph: &'static str,
                  label: &'static str,
                  key: &'static str,
                  action: Action,
                  disabled: bool| {
        let cb = props.on_action.clone();
        // A press that reaches the start or the end disables the button pressed: the focus
        // moves to the way back (or on), not out of sight.
        let then: &'static [&'static str] = match id {
            "reset" | "prev-event" | "step-back" => &["step", "play", "run-to-end"],
            _ => &["step-back", "reset"],
        };
        html! {
            <button id={id} class="ctl" disabled={disabled} title={format!("{label} ({key})")}
                aria-keyshortcuts={key}
                onclick={Callback::from(move |_| {
                    cb.emit(action.clone());
                    super::keep_focus_near(id, then);
                })}>
                { icon(glyph) }<span>{label}</span>
            </button>
        }
    };
    html! {
        <nav class="controls" id="controls" tabindex="-1" aria-label={t(S::Playback)} ref={bar}>
            { button("reset", "reset", t(S::Reset), "Home", Action::Reset, props.at_start) }
            { button("prev-event", "prev-event", t(S::PreviousEvent), "Shift+ArrowLeft", Action::PreviousNotable, props.at_start) }
            { button("step-back", "back", t(S::Back), "ArrowLeft", Action::StepBack, props.at_start) }
            { button("play", if props.playing { "pause" } else { "play" }, if props.playing { t(S::Pause) } else { t(S::Play) }, "Space", Action::TogglePlay, props.finished) }
            { button("step", "step", t(S::Step), "ArrowRight", Action::Step, props.finished) }
            { button("next-event", "next-event", t(S::NextEvent), "Shift+ArrowRight", Action::NextNotable, props.finished) }
            { button("run-to-end", "end", t(S::End), "End", Action::RunToEnd, props.finished) }
            <label class="speed" title={t(S::Speed)}>
                <span class="label">{ t(S::Speed) }</span>
                <select id="speed" aria-label={t(S::PlaybackSpeed)} onchange={{
                    let cb = props.on_action.clone();
                    Callback::from(move |e: Event| {
                        if let Some(s) = e.target_dyn_into::<HtmlSelectElement>() {
                            if let Ok(q) = s.value().parse::<u32>() {
                                cb.emit(Action::SetSpeed(q));
                            }
                        }
                    })
                }}>
                    { for SPEEDS.iter().map(|q| html! {
                        <option value={q.to_string()} selected={*q == props.speed}>{ speed_label(*q) }</option>
                    }) }
                </select>
            </label>
            <input id="scrub" class="scrub" type="range" min="0" max={props.total_steps.to_string()}
                value={props.step.to_string()} aria-label={t(S::Scrub)}
                aria-valuetext={i18n.f(S::StepOfTotal, &[&props.step, &props.total_steps])}
                oninput={{
                    let cb = props.on_action.clone();
                    Callback::from(move |e: InputEvent| {
                        if let Some(i) = e.target_dyn_into::<HtmlInputElement>() {
                            if let Ok(step) = i.value().parse::<u64>() {
                                cb.emit(Action::Seek(step));
                            }
                        }
                    })
                }} />
            if props.lesson {
                <button id="to-lesson" class="ctl" title={t(S::BackToLesson)} onclick={Callback::from(|_: MouseEvent| {
                    let panel = web_sys::window()
                        .and_then(|w| w.document())
                        .and_then(|d| d.get_element_by_id("lesson-panel"));
                    if let Some(el) = panel {
                        el.scroll_into_view();
                    }
                })}>{"↑ "}<span>{ t(S::Lesson) }</span></button>
            }
            // The clock over the trace hash, so the bar stays one row at 1280 px.
            <span class="when">
                <span id="clock" class="clock" aria-live={if props.playing { "off" } else { "polite" }}>{ &props.clock }</span>
                <span id="trace-hash" class="trace-hash" title={t(S::TraceHashTip)}>
                    { &props.trace_hash }
                </span>
            </span>
            if props.lesson {
                { now_line(props.now.as_ref(), &i18n) }
            }
        </nav>
    }
}

/// The caption: the step's sentences, two lines at most (the log has them whole); a press
/// moves the focus to the step's line in the log. Before the first step, how to start.
fn now_line(now: Option<&crate::view_model::NowVm>, i18n: &I18n) -> Html {
    let Some(now) = now else {
        return html! { <p id="now-line" class="now-line idle">{ i18n.t(S::PressStep) }</p> };
    };
    let to_log = Callback::from(|_: MouseEvent| {
        let line = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector("#event-log .current .step").ok().flatten())
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        match line {
            Some(line) => {
                let _ = line.focus();
            }
            // The log's filter hides this step: its box, then.
            None => {
                if let Some(log) = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.query_selector("section.events").ok().flatten())
                {
                    log.scroll_into_view();
                }
            }
        }
    });
    html! {
        <button id="now-line" class={classes!("now-line", now.tone)} title={i18n.t(S::NowLineTip)} onclick={to_log}>
            <span class="now-step">{ format!("#{}", now.step) }</span>
            // The narration is English (`i18n.rs`).
            <span class="now-text" lang="en">{ &now.text }</span>
        </button>
    }
}
