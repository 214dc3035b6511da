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
    /// Opens in the inspector and lessons may spotlight it (false for a copy drawn in a
    /// compared lane, which is another run).
    #[prop_or(true)]
    pub live: bool,
}

/// A read-process-write application, coloured by its guarantee.
#[function_component(ProcessorCard)]
pub fn processor_card(props: &ProcessorCardProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let p = &props.processor;
    let (click, key) = activate(&props.on_select, Selection::Node(p.node));
    let live = props.live;
    let spot = crate::spot::use_spot();
    html! {
        <article tabindex={live.then_some("0")} data-spot={live.then(|| p.name.clone())}
            title={live.then(|| i18n.f(S::InspectProcessor, &[&p.name]))}
            onclick={live.then_some(click)} onkeydown={live.then_some(key)}
            class={classes!(props.selected.then_some("selected"), "card", "processor", p.guarantee, p.status, live.then(|| spot.class(&p.name)).flatten())}>
            <h3>{ i18n.f(S::ProcessorTitle, &[&p.name]) }</h3>
            <p class="guarantee">{ p.guarantee }</p>
            <p class="identity">{ i18n.f(S::PhaseN, &[&p.phase]) }</p>
            <p class="reads">{ &p.processed }</p>
            <p class="settings">{ &p.client }</p>
        </article>
    }
}
