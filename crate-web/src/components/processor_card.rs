use crate::view_model::ProcessorVm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ProcessorCardProps {
    pub processor: ProcessorVm,
}

/// A read-process-write application, coloured by its guarantee.
#[function_component(ProcessorCard)]
pub fn processor_card(props: &ProcessorCardProps) -> Html {
    let p = &props.processor;
    html! {
        <article class={classes!("card", "processor", p.guarantee, p.status)}>
            <h3>{ format!("Processor {}", p.name) }</h3>
            <p class="guarantee">{ p.guarantee }</p>
            <p class="identity">{ format!("phase: {}", p.phase) }</p>
            <p class="reads">{ &p.processed }</p>
            <p class="settings">{ &p.client }</p>
        </article>
    }
}
