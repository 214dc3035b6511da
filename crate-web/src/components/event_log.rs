use super::live::SimRef;
use crate::i18n::{I18n, S};
use crate::view_model;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{Element, HtmlSelectElement};
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
}

/// The core's narration, newest at the bottom, the current step highlighted, in a box of its
/// own that follows the newest line while the reader is at its bottom. Earlier lines come
/// a page at a time; a line's step number moves the run there; a filter keeps one process.
#[function_component(EventLog)]
pub fn event_log(props: &EventLogProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let t = |s: S| i18n.t(s);
    let filter = use_state(String::new);
    let shown = use_state(|| FIRST_SHOWN);
    let list = use_node_ref();
    // Whether the box sits at its bottom (then it follows new lines), and, after "earlier
    // events", the distance from the bottom to keep, so the lines read stay in place.
    let stick = use_mut_ref(|| true);
    let keep: Rc<RefCell<Option<i32>>> = use_mut_ref(|| None);
    {
        let (list, stick, keep) = (list.clone(), stick.clone(), keep.clone());
        use_effect_with((props.sim.version, *shown, (*filter).clone()), move |_| {
            if let Some(el) = list.cast::<Element>() {
                if let Some(from_bottom) = keep.borrow_mut().take() {
                    el.set_scroll_top(el.scroll_height() - from_bottom);
                } else if *stick.borrow() {
                    el.set_scroll_top(el.scroll_height());
                }
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
    drop(sim);

    let on_change = {
        let (filter, shown) = (filter.clone(), shown.clone());
        Callback::from(move |e: Event| {
            if let Some(s) = e.target_dyn_into::<HtmlSelectElement>() {
                filter.set(s.value());
                shown.set(FIRST_SHOWN);
            }
        })
    };
    let on_scroll = {
        let (list, stick) = (list.clone(), stick.clone());
        Callback::from(move |_: Event| {
            if let Some(el) = list.cast::<Element>() {
                *stick.borrow_mut() =
                    el.scroll_top() + el.client_height() >= el.scroll_height() - 8;
            }
        })
    };
    let on_earlier = {
        let (list, keep, shown) = (list.clone(), keep.clone(), shown.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(el) = list.cast::<Element>() {
                *keep.borrow_mut() = Some(el.scroll_height() - el.scroll_top());
            }
            shown.set((*shown + PAGE).min(MAX_SHOWN));
        })
    };
    let seek = |step: u64| {
        let cb = props.on_seek.clone();
        Callback::from(move |_: MouseEvent| cb.emit(step))
    };
    html! {
        <section class="events" aria-label={t(S::WhatHappened)}>
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
            <ol id="event-log" ref={list} onscroll={on_scroll} tabindex="0" aria-label={t(S::WhatHappened)}>
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
                            aria-label={i18n.f(S::GoToStep, &[&e.step])}>{ format!("#{}", e.step) }</button>
                        <span class="time">{ &e.time }</span>
                        <span class="text">{ &e.text }</span>
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
        </section>
    }
}
