use crate::view_model::ProducerVm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ProducerCardProps {
    pub producer: ProducerVm,
}

#[function_component(ProducerCard)]
pub fn producer_card(props: &ProducerCardProps) -> Html {
    let p = &props.producer;
    html! {
        <article class={classes!("card", "producer", p.status)}>
            <h3>{ format!("Producer {}", p.name) }</h3>
            <p class="settings">{ &p.settings }</p>
            <p class="identity">{ &p.identity }</p>
            <p class="counts">{ format!("{} in flight · {} awaiting an answer", p.in_flight, p.waiting) }</p>
        </article>
    }
}
