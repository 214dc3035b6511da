//! Embed mode's controls (`?embed`): reset, back, play, step and where the run is; for an
//! iframe in slides, where a presenter's clicker sends PageDown and PageUp.

use super::icon::icon;
use crate::i18n::{Lang, S};
use crate::state::Action;
use yew::prelude::*;

pub struct EmbedBarProps {
    pub on_action: Callback<Action>,
    pub playing: bool,
    pub finished: bool,
    pub at_start: bool,
    pub title: String,
    pub clock: String,
    /// The same moment in the full playground.
    pub full_link: String,
    pub lang: Lang,
}

/// A plain function rather than a component: it has no state of its own, and each
/// component costs the page generic code.
pub fn embed_bar(props: &EmbedBarProps) -> Html {
    let t = |s: S| s.get(props.lang);
    let button = |id: &'static str,
                  glyph: &'static str,
                  label: &'static str,
                  action: Action,
                  disabled: bool| {
        let cb = props.on_action.clone();
        html! {
            <button id={id} class="ctl" disabled={disabled} title={label}
                onclick={Callback::from(move |_| cb.emit(action.clone()))}>
                { icon(glyph) }<span>{label}</span>
            </button>
        }
    };
    html! {
        <nav class="controls embed-bar" aria-label={t(S::Playback)}>
            { button("reset", "reset", t(S::Reset), Action::Reset, props.at_start) }
            { button("step-back", "back", t(S::Back), Action::StepBack, props.at_start) }
            { button("play", if props.playing { "pause" } else { "play" }, if props.playing { t(S::Pause) } else { t(S::Play) }, Action::TogglePlay, props.finished) }
            { button("step", "step", t(S::Step), Action::Step, props.finished) }
            <span class="embed-title">{ &props.title }</span>
            <span id="clock" class="clock" aria-live="polite">{ &props.clock }</span>
            <a class="embed-open" href={props.full_link.clone()} target="_blank" rel="noopener">{ t(S::OpenInPlayground) }</a>
        </nav>
    }
}
