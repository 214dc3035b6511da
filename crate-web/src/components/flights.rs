use super::activate;
use crate::i18n::{I18n, S};
use crate::state::Selection;
use crate::view_model::FlightVm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FlightsProps {
    /// The first messages on the wire (and those the step just lost).
    pub flights: Vec<FlightVm>,
    /// How many more are on the wire, not listed.
    #[prop_or_default]
    pub more: usize,
    pub selected: Option<Selection>,
    pub on_select: Callback<Selection>,
    /// Each message opens in the inspector (false for a compared lane, another run).
    #[prop_or(true)]
    pub live: bool,
}

/// The most messages listed (a busy wire draws them all in the space-time diagram; a list
/// of a thousand would only slow every step down).
pub const MAX_SHOWN: usize = 24;

/// Messages on the wire right now; each opens in the inspector (where it can be dropped).
#[function_component(Flights)]
pub fn flights(props: &FlightsProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let t = |s: S| i18n.t(s);
    // Past the first MAX_SHOWN rows, a count: those beyond the list, and those not given.
    let more = props.more + props.flights.len().saturating_sub(MAX_SHOWN);
    // One tab stop for the list (rove.rs): the one last focused, else the selected message,
    // else the first.
    let rove = super::rove::use_rove();
    let shown = || props.flights.iter().take(MAX_SHOWN).filter(|f| !f.lost);
    let chosen = match props.selected {
        Some(Selection::Message(id)) => Some(id),
        _ => None,
    };
    let stop = rove.stop_number(&[chosen, shown().next().map(|f| f.id)], &|id| {
        shown().any(|f| f.id == id)
    });
    html! {
        <section class="flights" aria-label={t(S::OnTheWire)}>
            <h2>{ t(S::OnTheWire) }</h2>
            if props.flights.is_empty() {
                <p class="quiet">{ t(S::NothingInFlight) }</p>
            } else {
                <ul data-roves="" ref={rove.container.clone()} onfocusin={rove.onfocusin.clone()} onkeydown={rove.onkeydown.clone()}>
                    // Keyed in a list of their own (yew matches by key only there).
                    <>{ for props.flights.iter().take(MAX_SHOWN).map(|f| {
                        if f.lost {
                            // Gone with the step just taken: it fades out under a cross.
                            return html! {
                                <li key={f.key} class="lost" aria-label={format!("{} {} {}", f.route, f.label, f.arrives)}>
                                    <span class="route">{ &f.route }</span>
                                    <span class="label">{ &f.label }</span>
                                    <span class="eta">{ &f.arrives }</span>
                                    <span class="cross" aria-hidden="true"></span>
                                </li>
                            };
                        }
                        let sel = Selection::Message(f.id);
                        let (click, key) = activate(&props.on_select, sel);
                        let live = props.live;
                        html! {
                            <li key={f.key} tabindex={live.then_some(super::rove::tabindex(stop == Some(f.id)))}
                                data-rove={live.then(|| f.id.to_string())} role={live.then_some("button")} data-msg={f.id.to_string()}
                                class={classes!((props.selected == Some(sel)).then_some("selected"))}
                                title={live.then(|| t(S::InspectMessageTip))}
                                onclick={live.then_some(click)} onkeydown={live.then_some(key)}>
                                <span class="route">{ &f.route }</span>
                                <span class="label">{ &f.label }</span>
                                <span class="eta">{ &f.arrives }</span>
                                <span class="way" aria-hidden="true">
                                    <span class="dot" style={format!("left: {:.1}%", f.progress as f64 / 10.0)}></span>
                                </span>
                            </li>
                        }
                    }) }</>
                    if more > 0 {
                        <li class="more">{ i18n.f(S::MoreOnTheWire, &[&more]) }</li>
                    }
                </ul>
            }
        </section>
    }
}
