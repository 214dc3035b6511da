use super::activate;
use crate::i18n::{I18n, S};
use crate::state::Selection;
use crate::view_model::ProcessorVm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ProcessorCardProps {
    pub processor: ProcessorVm,
    pub selected: bool,
    pub on_select: Callback<Selection>,
}

/// A read-process-write application, coloured by its guarantee.
#[function_component(ProcessorCard)]
pub fn processor_card(props: &ProcessorCardProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let p = &props.processor;
    let (click, key) = activate(&props.on_select, Selection::Node(p.node));
    html! {
        <article tabindex="0" data-spot={p.name.clone()} title={i18n.f(S::InspectProcessor, &[&p.name])}
            onclick={click} onkeydown={key}
            class={classes!(props.selected.then_some("selected"), "card", "processor", p.guarantee, p.status)}>
            <h3>{ i18n.f(S::ProcessorTitle, &[&p.name]) }</h3>
            <p class="guarantee">{ p.guarantee }</p>
            <p class="identity">{ i18n.f(S::PhaseN, &[&p.phase]) }</p>
            <p class="reads">{ &p.processed }</p>
            <p class="settings">{ &p.client }</p>
        </article>
    }
}
