use super::activate;
use crate::i18n::{I18n, S};
use crate::state::Selection;
use crate::view_model::ConsumerVm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ConsumerCardProps {
    pub consumer: ConsumerVm,
    pub selected: bool,
    pub on_select: Callback<Selection>,
}

#[function_component(ConsumerCard)]
pub fn consumer_card(props: &ConsumerCardProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let c = &props.consumer;
    let spot = crate::spot::use_spot();
    let (click, key) = activate(&props.on_select, Selection::Node(c.node));
    html! {
        <article tabindex="0" data-spot={c.name.clone()} title={i18n.f(S::InspectConsumer, &[&c.name])}
            onclick={click} onkeydown={key}
            class={classes!(props.selected.then_some("selected"), "card", "consumer", c.status, spot.class(&c.name))}>
            <h3>{ i18n.f(S::ConsumerTitle, &[&c.name]) }</h3>
            <p class="settings">{ &c.isolation }</p>
            if !c.group.is_empty() { <p class="group">{ &c.group }</p> }
            <p class="reads">{ &c.read }</p>
        </article>
    }
}
