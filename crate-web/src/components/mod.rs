//! Small presentational components: props in, callbacks out.

pub mod browse_select;
pub mod checkpoint_chart;
pub mod compare_panel;
pub mod consumer_card;
pub mod controls;
pub mod cost_chart;
pub mod embed_bar;
pub mod event_log;
pub mod fault_panel;
pub mod flights;
pub mod flink_stage;
pub mod fork_panel;
pub mod header;
pub mod held;
pub mod icon;
pub mod import_errors;
pub mod inspector;
pub mod lane_stages;
pub mod lesson_nav;
pub mod lesson_panel;
pub mod live;
pub mod outcome_bar;
pub mod outcome_chart;
pub mod partition_log;
pub mod processor_card;
pub mod producer_card;
pub mod rove;
pub mod share_menu;
pub mod space_time;
pub mod theme_button;
pub mod transactions;

use yew::prelude::*;

/// Click, Enter and Space open `what`: for elements made focusable with `tabindex="0"`.
pub fn activate<T: Clone + 'static>(
    cb: &Callback<T>,
    what: T,
) -> (Callback<MouseEvent>, Callback<KeyboardEvent>) {
    let on_click = {
        let (cb, what) = (cb.clone(), what.clone());
        Callback::from(move |_: MouseEvent| cb.emit(what.clone()))
    };
    let on_key = {
        let cb = cb.clone();
        Callback::from(move |e: KeyboardEvent| {
            if matches!(e.key().as_str(), "Enter" | " ") {
                e.prevent_default();
                cb.emit(what.clone());
            }
        })
    };
    (on_click, on_key)
}

/// Moves the keyboard focus to the element with this id, if the page has it.
pub fn focus_by_id(id: &str) {
    use wasm_bindgen::JsCast;
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

/// Moves the focus once the page has drawn what an action shows (a reveal's feedback, a
/// try-it's banner): the button pressed may be gone, and the focus with it.
pub fn focus_soon(id: impl Into<String>) {
    let id = id.into();
    gloo_timers::callback::Timeout::new(0, move || focus_by_id(&id)).forget();
}

/// Once the page has drawn an action's result: if the button pressed went with it (the
/// focus fell to the page's body), the focus goes to the element `id`.
pub fn focus_if_lost(id: &'static str) {
    gloo_timers::callback::Timeout::new(0, move || {
        let lost = web_sys::window()
            .and_then(|w| w.document())
            .is_some_and(|d| {
                d.active_element()
                    .is_none_or(|a| Some(a) == d.body().map(Into::into))
            });
        if lost {
            focus_by_id(id);
        }
    })
    .forget();
}

/// After a press of the control `id`: if the run's end or start has disabled it (End, Reset,
/// Back at step 0), the focus would fall to the page's body, out of sight; it goes to the
/// first of `then` that is enabled.
pub fn keep_focus_near(id: &'static str, then: &'static [&'static str]) {
    use wasm_bindgen::JsCast;
    gloo_timers::callback::Timeout::new(0, move || {
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let disabled = |e: &web_sys::Element| e.has_attribute("disabled");
        if !doc.get_element_by_id(id).is_some_and(|e| disabled(&e)) {
            return;
        }
        if let Some(next) = then
            .iter()
            .filter_map(|n| doc.get_element_by_id(n))
            .find(|e| !disabled(e))
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = next.focus();
        }
    })
    .forget();
}

/// A scenario handed down by reference. Props and memo keys compare the pointer only: the
/// page keeps one `Rc` until the scenario changes (a fault added by click, another scenario
/// loaded), and a copy with the same value only costs a recomputation. Comparing whole
/// scenarios was not free at every frame, and its code was 22 KB of the page.
#[derive(Clone, Debug)]
pub struct SharedScenario(pub std::rc::Rc<eos_core::Scenario>);

impl PartialEq for SharedScenario {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for SharedScenario {
    type Target = eos_core::Scenario;
    fn deref(&self) -> &eos_core::Scenario {
        &self.0
    }
}
