//! Parts of the stage that read the live simulation themselves, when they render.
//!
//! The page used to build every view model at every step and hand them down. A part that
//! builds its own only does so when it renders, so a part kept back off screen while the
//! run plays (`held.rs`) costs nothing; one whose view model came out the same renders no
//! further (its child compares its props).

use super::{
    flights::Flights, partition_log::PartitionLog, producer_card::ProducerCard,
    space_time::SpaceTime,
};
use crate::i18n::{I18n, Lang};
use crate::state::Selection;
use crate::view_model;
use eos_core::ids::{NodeId, Tp};
use eos_core::sim::Simulation;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The live simulation and its version: equal while the run has not moved (the simulation
/// is mutated in place, so the version is what tells that it changed).
#[derive(Clone)]
pub struct SimRef {
    pub sim: Rc<RefCell<Simulation>>,
    pub version: u64,
}

impl PartialEq for SimRef {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version && Rc::ptr_eq(&self.sim, &other.sim)
    }
}

/// What a part draws from the simulation.
pub trait Part: PartialEq + 'static {
    fn view(&self, sim: &Simulation, lang: Lang) -> Html;
}

#[derive(Properties, PartialEq)]
pub struct LiveProps<P: Part> {
    pub sim: SimRef,
    pub part: P,
}

#[function_component(Live)]
pub fn live<P: Part>(props: &LiveProps<P>) -> Html {
    let lang = use_context::<I18n>().unwrap_or_default().lang;
    // The page mutates the run only in its reducer, never while rendering.
    match props.sim.sim.try_borrow() {
        Ok(sim) => props.part.view(&sim, lang),
        Err(_) => Html::default(),
    }
}

/// One replica's log.
#[derive(PartialEq)]
pub struct LogPart {
    pub tp: Tp,
    pub broker: u8,
    pub selected: Option<Selection>,
    pub on_select: Callback<Selection>,
}

impl Part for LogPart {
    fn view(&self, sim: &Simulation, lang: Lang) -> Html {
        let Some(p) = view_model::partition(sim, self.tp, self.broker, lang) else {
            return Html::default();
        };
        html! { <PartitionLog partition={p} selected={self.selected} on_select={self.on_select.clone()} /> }
    }
}

/// One producer's card.
#[derive(PartialEq)]
pub struct ProducerPart {
    pub index: usize,
    pub selected: bool,
    pub on_select: Callback<Selection>,
}

impl Part for ProducerPart {
    fn view(&self, sim: &Simulation, lang: Lang) -> Html {
        let Some(p) = view_model::producer(sim, self.index, lang) else {
            return Html::default();
        };
        html! { <ProducerCard selected={self.selected} producer={p} on_select={self.on_select.clone()} /> }
    }
}

/// The messages on the wire.
#[derive(PartialEq)]
pub struct WirePart {
    pub selected: Option<Selection>,
    pub on_select: Callback<Selection>,
}

impl Part for WirePart {
    fn view(&self, sim: &Simulation, lang: Lang) -> Html {
        let (flights, more) = view_model::in_flight_shown(sim, lang, super::flights::MAX_SHOWN);
        html! { <Flights flights={flights} more={more} selected={self.selected} on_select={self.on_select.clone()} /> }
    }
}

/// The space-time diagram.
#[derive(PartialEq)]
pub struct DiagramPart {
    pub selected: Option<Selection>,
    pub on_select: Callback<Selection>,
}

impl Part for DiagramPart {
    fn view(&self, sim: &Simulation, lang: Lang) -> Html {
        let diagram = view_model::diagram::diagram_in(
            sim,
            view_model::diagram::WINDOW_COLUMNS,
            lang,
            viewport(),
        );
        html! { <SpaceTime diagram={diagram} selected={self.selected} on_select={self.on_select.clone()} /> }
    }
}

/// A phone's window (up to 560 px wide, as `style.css` has it) shows the drawing in all but
/// 73 px of its width (the page's and the card's padding, measured); a wider one is wide,
/// its diagram's frame as wide as the page (at most 1,600 px) less 78 px of padding
/// (measured) and 17 px for a scroll bar. `innerWidth` is read without a layout.
fn viewport() -> view_model::diagram::Viewport {
    use view_model::diagram::Viewport;
    #[cfg(target_arch = "wasm32")]
    let width = web_sys::window()
        .and_then(|w| w.inner_width().ok())
        .and_then(|w| w.as_f64());
    #[cfg(not(target_arch = "wasm32"))]
    let width: Option<f64> = None;
    match width {
        Some(w) if w <= 560.0 => Viewport::Phone {
            visible: (w - 73.0).max(120.0),
        },
        Some(w) => Viewport::Wide {
            frame: Some(w.min(1600.0) - 95.0),
        },
        None => Viewport::Wide { frame: None },
    }
}

/// Which producer a card is for.
pub fn producer_node(index: usize) -> NodeId {
    NodeId::Producer(u8::try_from(index).unwrap_or(u8::MAX))
}
