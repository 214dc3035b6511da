use super::icon::icon;
use crate::state::Action;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub on_action: Callback<Action>,
    pub playing: bool,
    pub finished: bool,
    pub at_start: bool,
    pub clock: String,
    pub trace_hash: String,
}

/// Reset, step back, play/pause, step, run to end; the keyboard does the same (see app.rs).
#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let button = |id: &'static str,
                  glyph: &'static str,
                  label: &'static str,
                  key: &'static str,
                  action: Action,
                  disabled: bool| {
        let cb = props.on_action.clone();
        html! {
            <button id={id} class="ctl" disabled={disabled} title={format!("{label} ({key})")}
                aria-keyshortcuts={key}
                onclick={Callback::from(move |_| cb.emit(action.clone()))}>
                { icon(glyph) }<span>{label}</span>
            </button>
        }
    };
    html! {
        <nav class="controls" aria-label="Playback">
            { button("reset", "reset", "Reset", "Home", Action::Reset, props.at_start) }
            { button("step-back", "back", "Back", "ArrowLeft", Action::StepBack, props.at_start) }
            { button("play", if props.playing { "pause" } else { "play" }, if props.playing { "Pause" } else { "Play" }, "Space", Action::TogglePlay, props.finished) }
            { button("step", "step", "Step", "ArrowRight", Action::Step, props.finished) }
            { button("run-to-end", "end", "End", "End", Action::RunToEnd, props.finished) }
            <span id="clock" class="clock" aria-live="polite">{ &props.clock }</span>
            <span id="trace-hash" class="trace-hash"
                title="Trace hash: the same scenario and seed give the same hash on every machine, in the browser and in eos-sim">
                { &props.trace_hash }
            </span>
        </nav>
    }
}
