//! A part of the page that does not redraw while the run plays and it is out of view.
//!
//! At 16× a step comes every frame, and redrawing parts nobody can see (the logs below the
//! fold, the space-time diagram under the stage) took most of each frame. While `hold` is
//! true (the run is playing) an update that arrives off screen is kept back; the part
//! catches up as soon as it scrolls into view, and whenever playback stops.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit};
use yew::prelude::*;

/// How far outside the viewport a part still counts as in view (so that it is up to date
/// by the time it scrolls in).
const MARGIN: &str = "160px";

#[derive(Properties, PartialEq)]
pub struct HeldProps {
    pub children: Html,
    /// Keep updates back while off screen.
    pub hold: bool,
    /// The wrapper element's classes.
    #[prop_or_default]
    pub class: Classes,
    /// Keep updates back while `hold` even on screen (a part too costly to redraw at every
    /// step of a big run).
    #[prop_or_default]
    pub still: bool,
}

pub enum Msg {
    Seen(bool),
}

type Watch = (IntersectionObserver, Closure<dyn FnMut(js_sys::Array)>);

pub struct Held {
    node: NodeRef,
    on_screen: bool,
    /// An update was kept back.
    stale: bool,
    watch: Option<Watch>,
}

impl Component for Held {
    type Message = Msg;
    type Properties = HeldProps;

    fn create(_ctx: &Context<Self>) -> Self {
        Held {
            node: NodeRef::default(),
            // Until the observer reports, everything counts as in view.
            on_screen: true,
            stale: false,
            watch: None,
        }
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Self::Properties) -> bool {
        self.stale = ctx.props().hold && (!self.on_screen || ctx.props().still);
        !self.stale
    }

    fn update(&mut self, _ctx: &Context<Self>, msg: Msg) -> bool {
        let Msg::Seen(seen) = msg;
        self.on_screen = seen;
        seen && std::mem::take(&mut self.stale)
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        html! {
            <div class={ctx.props().class.clone()} ref={self.node.clone()}>
                { ctx.props().children.clone() }
            </div>
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, first_render: bool) {
        if !first_render {
            return;
        }
        let Some(element) = self.node.cast::<web_sys::Element>() else {
            return;
        };
        let link = ctx.link().clone();
        let on_change = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            // The latest entry says where the part is now.
            let last = entries
                .iter()
                .last()
                .and_then(|e| e.dyn_into::<IntersectionObserverEntry>().ok());
            if let Some(entry) = last {
                link.send_message(Msg::Seen(entry.is_intersecting()));
            }
        });
        let init = IntersectionObserverInit::new();
        init.set_root_margin(MARGIN);
        if let Ok(observer) =
            IntersectionObserver::new_with_options(on_change.as_ref().unchecked_ref(), &init)
        {
            observer.observe(&element);
            self.watch = Some((observer, on_change));
        }
    }

    fn destroy(&mut self, _ctx: &Context<Self>) {
        if let Some((observer, _)) = self.watch.take() {
            observer.disconnect();
        }
    }
}
