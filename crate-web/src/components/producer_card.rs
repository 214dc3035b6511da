use super::activate;
use crate::i18n::{I18n, S};
use crate::state::Selection;
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
    let (click, key) = activate(&props.on_select, Selection::Node(p.node));
    html! {
        <article tabindex="0" data-spot={p.name.clone()} title={i18n.f(S::InspectProducer, &[&p.name])}
            onclick={click} onkeydown={key}
            class={classes!(props.selected.then_some("selected"), "card", "producer", p.status)}>
            <h3>{ i18n.f(S::ProducerTitle, &[&p.name]) }</h3>
            <p class="settings">{ &p.settings }</p>
            <p class="identity">{ &p.identity }</p>
            <p class="counts">{ i18n.f(S::ProducerCounts, &[&p.in_flight, &p.waiting]) }</p>
        </article>
    }
}
