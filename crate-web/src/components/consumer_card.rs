use crate::view_model::ConsumerVm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ConsumerCardProps {
    pub consumer: ConsumerVm,
}

#[function_component(ConsumerCard)]
pub fn consumer_card(props: &ConsumerCardProps) -> Html {
    let c = &props.consumer;
    html! {
        <article class={classes!("card", "consumer", c.status)}>
            <h3>{ format!("Consumer {}", c.name) }</h3>
            <p class="settings">{ &c.isolation }</p>
            if !c.group.is_empty() { <p class="group">{ &c.group }</p> }
            <p class="reads">{ &c.read }</p>
        </article>
    }
}
