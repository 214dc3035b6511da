use super::activate;
use crate::i18n::{I18n, S};
use crate::state::Selection;
use crate::view_model::timers::TimerVm;
use crate::view_model::ProducerVm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ProducerCardProps {
    pub producer: ProducerVm,
    pub selected: bool,
    pub on_select: Callback<Selection>,
}

#[function_component(ProducerCard)]
pub fn producer_card(props: &ProducerCardProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let p = &props.producer;
    let spot = crate::spot::use_spot();
    let (click, key) = activate(&props.on_select, Selection::Node(p.node));
    html! {
        <article tabindex="0" data-spot={p.name.clone()} title={i18n.f(S::InspectProducer, &[&p.name])}
            onclick={click} onkeydown={key}
            class={classes!(props.selected.then_some("selected"), "card", "producer", p.status, spot.class(&p.name))}>
            <h3>{ i18n.f(S::ProducerTitle, &[&p.name]) }</h3>
            <p class="settings">{ &p.settings }</p>
            <p class="identity">{ &p.identity }</p>
            <p class="counts">{ i18n.f(S::ProducerCounts, &[&p.in_flight, &p.waiting]) }</p>
            { for p.stuck.iter().map(|s| html! { <p class="stuck" role="status">{ s }</p> }) }
            if !p.timers.is_empty() {
                <ul class="timers" aria-label={i18n.t(S::Timers)}>
                    { for p.timers.iter().map(timer_ring) }
                    if p.more_timers > 0 { <li class="more">{ i18n.f(S::MoreN, &[&p.more_timers]) }</li> }
                </ul>
            }
        </article>
    }
}

/// Circumference of the ring (r = 9): the filled arc is the time left.
const RING: f64 = 56.55;

/// One countdown: a ring emptying as the deadline nears, what it waits for, the time left.
fn timer_ring(t: &TimerVm) -> Html {
    let filled = RING * f64::from(t.remaining) / 1000.0;
    html! {
        <li class={classes!("timer", t.kind)} title={t.title.clone()}>
            <svg class="ring" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
                <circle class="track" cx="12" cy="12" r="9" />
                <circle class="left" cx="12" cy="12" r="9"
                    stroke-dasharray={format!("{} {}", filled.round() as i64, RING.ceil() as i64)} />
            </svg>
            <span class="label">{ &t.label }</span>
            <span class="left">{ "· " }{ &t.left }</span>
        </li>
    }
}
