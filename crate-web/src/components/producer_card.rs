use super::activate;
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
    let p = &props.producer;
    let (click, key) = activate(&props.on_select, Selection::Node(p.node));
    html! {
        <article tabindex="0" data-spot={p.name.clone()} title={format!("Inspect producer {} (Enter)", p.name)}
            onclick={click} onkeydown={key}
            class={classes!(props.selected.then_some("selected"), "card", "producer", p.status)}>
            <h3>{ format!("Producer {}", p.name) }</h3>
            <p class="settings">{ &p.settings }</p>
            <p class="identity">{ &p.identity }</p>
            <p class="counts">{ format!("{} in flight · {} awaiting an answer", p.in_flight, p.waiting) }</p>
        </article>
    }
}
