use super::live::SimRef;
use crate::i18n::{I18n, S};
use crate::view_model;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Lines shown before the reader asks for earlier ones.
pub const FIRST_SHOWN: usize = 14;
/// Lines added by each "earlier events".
pub const PAGE: usize = 100;
/// The most lines the log holds; earlier steps are reached with the scrub bar.
pub const MAX_SHOWN: usize = 1_000;

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub sim: SimRef,
    /// Moves the run to a step (a line's step number is a button).
    pub on_seek: Callback<u64>,
    /// Read the current step's lines out (screen readers): off while playing, when they
    /// would queue up faster than they can be spoken.
    pub announce: bool,
}

/// The core's narration, newest at the bottom, the current step highlighted, in a box of its
/// own that keeps to the newest line. Earlier lines come
/// a page at a time; a line's step number moves the run there; a filter keeps one process.
#[function_component(EventLog)]
pub fn event_log(props: &EventLogProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let t = |s: S| i18n.t(s);
    let filter = use_state(String::new);
    let shown = use_state(|| FIRST_SHOWN);
    // After a line's step number moved the run, the box goes back to its newest line (the
    // line clicked), wherever the reader had scrolled: a write, done once, never a read.
    let scroller = use_node_ref();
    let to_newest = use_mut_ref(|| false);
    {
        let (scroller, to_newest) = (scroller.clone(), to_newest.clone());
        use_effect_with(props.sim.version, move |_| {
            if std::mem::take(&mut *to_newest.borrow_mut()) {
                if let Some(el) = scroller.cast::<web_sys::Element>() {
                    el.set_scroll_top(0);
                }
            }
        });
    }
    let rove = super::rove::use_rove();
    // When "earlier events" loads the last page it goes away with the focus on it: the focus
    // moves to the oldest line's step number (the first line added), not to the page's body.
    let loaded = use_mut_ref(|| false);
    {
        let (loaded, list) = (loaded.clone(), rove.container.clone());
        use_effect_with(*shown, move |_| {
            if !std::mem::take(&mut *loaded.borrow_mut()) {
                return;
            }
            let Some(list) = list.cast::<web_sys::Element>() else {
                return;
            };
            if list
                .query_selector("#events-earlier")
                .ok()
                .flatten()
                .is_some()
            {
                return;
            }
            if let Some(first) = list
                .query_selector("button.step")
                .ok()
                .flatten()
                .and_then(|b| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(b).ok())
            {
                let _ = first.focus();
            }
        });
    }
    let Ok(sim) = props.sim.sim.try_borrow() else {
        return Html::default();
    };
    let components = view_model::components(&sim, i18n.lang);
    // A filter for a process this scenario does not have (the scenario changed) keeps none.
    let only = view_model::parse_component(&filter)
        .filter(|_| components.iter().any(|(value, _)| *value == *filter));
    let (events, earlier) = view_model::events_page(&sim, *shown, only, i18n.lang);
    // One tab stop for the lines' step buttons (rove.rs; ↑/↓ move among them): the one last
    // focused, else the current step's line, else the newest. A line per stop took dozens of
    // Tabs to cross the log.
    let stop = rove.stop_number(
        &[
            events.iter().find(|e| e.current).map(|e| e.id),
            events.last().map(|e| e.id),
        ],
        &|id| events.iter().any(|e| e.id == id),
    );
    drop(sim);
    let said: Vec<&str> = if props.announce {
        events
            .iter()
            .filter(|e| e.current)
            .map(|e| e.text.as_str())
            .collect()
    } else {
        Vec::new()
    };

    let on_change = {
        let (filter, shown) = (filter.clone(), shown.clone());
        Callback::from(move |e: Event| {
            if let Some(s) = e.target_dyn_into::<HtmlSelectElement>() {
                filter.set(s.value());
                shown.set(FIRST_SHOWN);
            }
        })
    };
    let on_earlier = {
        let (shown, loaded) = (shown.clone(), loaded.clone());
        Callback::from(move |_: MouseEvent| {
            *loaded.borrow_mut() = true;
            shown.set((*shown + PAGE).min(MAX_SHOWN))
        })
    };
    let seek = |step: u64| {
        let (cb, to_newest) = (props.on_seek.clone(), to_newest.clone());
        Callback::from(move |_: MouseEvent| {
            *to_newest.borrow_mut() = true;
            cb.emit(step);
        })
    };
    html! {
        <section class="events" aria-label={t(S::WhatHappened)}>
            // The narration stays English: say so to a screen reader's voice.
            <p class="visually-hidden" aria-live="polite" lang="en" id="narration-live">{ said.join(" ") }</p>
            <div class="events-head">
                <h2>{ t(S::WhatHappened) }</h2>
                <label class="filter">
                    <span class="label">{ t(S::Show) }</span>
                    <select id="event-filter" aria-label={t(S::ShowEventsOf)} onchange={on_change}>
                        <option value="" selected={only.is_none()}>{ t(S::EveryProcess) }</option>
                        { for components.iter().map(|(value, label)| html! {
                            <option value={value.clone()} selected={*value == *filter}>{ label }</option>
                        }) }
                    </select>
                </label>
            </div>
            // A box whose scroll origin is its bottom (`.event-scroll` is a reversed column
            // around the list): it shows the newest line and keeps to it as lines come, and
            // earlier lines added above leave the lines being read where they are.
            // Not a tab stop of its own: its lines' step buttons are one (rove.rs), and the
            // focus moving among them scrolls the box.
            <div class="event-scroll" ref={scroller}>
            <ol id="event-log" lang="en" data-roves="" ref={rove.container.clone()}
                onfocusin={rove.onfocusin.clone()} onkeydown={rove.onkeydown.clone()}>
                if earlier && *shown < MAX_SHOWN {
                    <li class="event earlier">
                        <button id="events-earlier" onclick={on_earlier}>{ i18n.f(S::EarlierEvents, &[&PAGE]) }</button>
                    </li>
                } else if earlier {
                    <li class="event hint">{ i18n.f(S::EventsCapped, &[&MAX_SHOWN]) }</li>
                }
                // Keyed in a list of their own: as the log scrolls, lines move, not rewrite.
                <>{ for events.iter().map(|e| html! {
                    <li key={e.id} class={classes!("event", e.tone, e.current.then_some("current"))}
                        aria-current={e.current.then_some("step")}>
                        <button class="step" onclick={seek(e.step)} title={i18n.f(S::GoToStep, &[&e.step])}
                            data-rove={e.id.to_string()} tabindex={super::rove::tabindex(stop == Some(e.id))}
                            aria-label={i18n.f(S::GoToStep, &[&e.step])}
                            aria-describedby={format!("event-text-{}", e.id)}>{ format!("#{}", e.step) }</button>
                        <span class="time">{ &e.time }</span>
                        // The button's description: a screen reader says what happened, not
                        // only the step it goes to.
                        <span class="text" id={format!("event-text-{}", e.id)}>{ breakable(&e.text) }</span>
                    </li>
                }) }</>
                if events.is_empty() {
                    if only.is_none() {
                        <li class="event hint">{ t(S::PressStep) }</li>
                    } else {
                        <li class="event hint">{ t(S::NothingForProcess) }</li>
                    }
                }
            </ol>
            </div>
        </section>
    }
}

/// A protocol or setting name too long for the log's column ("CONCURRENT_TRANSACTIONS",
/// "transaction.abort.timed.out.transaction.cleanup.interval.ms") may break after an
/// underscore or a dot rather than anywhere inside it. A shorter one ("REQUEST_TIMED_OUT")
/// stays whole and moves to the next line.
pub(crate) fn breakable(text: &str) -> Html {
    const LONG: usize = 20;
    let joint = |c: char| c == '_' || c == '.';
    if !text.split(' ').any(|w| w.len() > LONG && w.contains(joint)) {
        return html! { { text } };
    }
    html! { for text.split_inclusive(' ').map(|word| if word.len() > LONG {
        html! { for word.split_inclusive(joint).map(|part| html! { <>{ part }<wbr /></> }) }
    } else {
        html! { { word } }
    }) }
}
