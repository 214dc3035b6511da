use crate::i18n::{I18n, S};
use crate::view_model::EventVm;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub events: Vec<EventVm>,
    /// (value, label) per process, for the filter.
    pub components: Vec<(String, String)>,
    /// The filter's value; empty for every process.
    pub filter: String,
    pub on_filter: Callback<String>,
}

/// The core's narration, newest at the bottom, the current step highlighted; filtered to
/// one process on request.
#[function_component(EventLog)]
pub fn event_log(props: &EventLogProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let t = |s: S| i18n.t(s);
    let on_change = {
        let cb = props.on_filter.clone();
        Callback::from(move |e: Event| {
            if let Some(s) = e.target_dyn_into::<HtmlSelectElement>() {
                cb.emit(s.value());
            }
        })
    };
    html! {
        <section class="events" aria-label={t(S::WhatHappened)}>
            <div class="events-head">
                <h2>{ t(S::WhatHappened) }</h2>
                <label class="filter">
                    <span class="label">{ t(S::Show) }</span>
                    <select id="event-filter" aria-label={t(S::ShowEventsOf)} onchange={on_change}>
                        <option value="" selected={props.filter.is_empty()}>{ t(S::EveryProcess) }</option>
                        { for props.components.iter().map(|(value, label)| html! {
                            <option value={value.clone()} selected={*value == props.filter}>{ label }</option>
                        }) }
                    </select>
                </label>
            </div>
            <ol id="event-log">
                // Keyed in a list of their own: as the log scrolls, lines move, not rewrite.
                <>{ for props.events.iter().map(|e| html! {
                    <li key={e.id} class={classes!("event", e.tone, e.current.then_some("current"))}
                        aria-current={e.current.then_some("step")}>
                        <span class="step">{ format!("#{}", e.step) }</span>
                        <span class="time">{ &e.time }</span>
                        <span class="text">{ &e.text }</span>
                    </li>
                }) }</>
                if props.events.is_empty() {
                    if props.filter.is_empty() {
                        <li class="event hint">{ t(S::PressStep) }</li>
                    } else {
                        <li class="event hint">{ t(S::NothingForProcess) }</li>
                    }
                }
            </ol>
        </section>
    }
}
