//! Small presentational components: props in, callbacks out.

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
pub mod icon;
pub mod import_errors;
pub mod inspector;
pub mod lesson_nav;
pub mod lesson_panel;
pub mod outcome_chart;
pub mod partition_log;
pub mod processor_card;
pub mod producer_card;
pub mod share_menu;
pub mod space_time;
pub mod transactions;

use yew::prelude::*;

/// Click and Enter both open `what`: for elements made focusable with `tabindex="0"`.
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
            if e.key() == "Enter" {
                e.prevent_default();
                cb.emit(what.clone());
            }
        })
    };
    (on_click, on_key)
}
