use crate::view_model::EventVm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub events: Vec<EventVm>,
}

/// The core's narration, newest at the bottom, the current step highlighted.
#[function_component(EventLog)]
pub fn event_log(props: &EventLogProps) -> Html {
    html! {
        <section class="events" aria-label="What happened">
            <h2>{"What happened"}</h2>
            <ol id="event-log">
                { for props.events.iter().map(|e| html! {
                    <li class={classes!("event", e.tone, e.current.then_some("current"))}>
                        <span class="step">{ format!("#{}", e.step) }</span>
                        <span class="time">{ &e.time }</span>
                        <span class="text">{ &e.text }</span>
                    </li>
                }) }
                if props.events.is_empty() {
                    <li class="event hint">{"Press Step (→) to run the first event."}</li>
                }
            </ol>
        </section>
    }
}
