//! A closed `<select>` browsed with the arrow keys fires `change` at every option (Chrome,
//! Windows): for a picker whose change reloads the run (the scenario, the guarantee), each
//! arrow would throw away the step and the faults added. Here the arrows only browse; Enter
//! picks, a mouse pick picks at once, and leaving the picker without Enter puts back what was
//! picked.

use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// The keys with which a closed select moves among its options: the arrows and their
/// kin, and a letter (type-ahead: the first option that starts with it).
fn browses(key: &str) -> bool {
    let mut chars = key.chars();
    let letter = matches!((chars.next(), chars.next()), (Some(c), None) if c != ' ');
    letter
        || matches!(
            key,
            "ArrowUp"
                | "ArrowDown"
                | "ArrowLeft"
                | "ArrowRight"
                | "Home"
                | "End"
                | "PageUp"
                | "PageDown"
        )
}

pub struct BrowseSelect {
    pub onchange: Callback<Event>,
    pub onkeydown: Callback<KeyboardEvent>,
    pub onblur: Callback<FocusEvent>,
    /// A mouse opens the list: its pick is a pick.
    pub onmousedown: Callback<MouseEvent>,
}

/// Handlers for a select whose pick `on_pick` loads something; `current` is what is loaded.
#[hook]
pub fn use_browse_select(on_pick: Callback<String>, current: String) -> BrowseSelect {
    let browsing = use_mut_ref(|| false);
    let onchange = {
        let (browsing, on_pick) = (browsing.clone(), on_pick.clone());
        Callback::from(move |e: Event| {
            if *browsing.borrow() {
                return;
            }
            if let Some(select) = e.target_dyn_into::<HtmlSelectElement>() {
                on_pick.emit(select.value());
            }
        })
    };
    let onkeydown = {
        let (browsing, on_pick) = (browsing.clone(), on_pick.clone());
        let current_on_escape = current.clone();
        Callback::from(move |e: KeyboardEvent| {
            let key = e.key();
            if browses(&key) && !e.alt_key() && !e.ctrl_key() && !e.meta_key() {
                *browsing.borrow_mut() = true;
            } else if key == "Escape" && std::mem::take(&mut *browsing.borrow_mut()) {
                // Escape puts back what is loaded.
                if let Some(select) = e.target_dyn_into::<HtmlSelectElement>() {
                    select.set_value(&current_on_escape);
                }
            } else if key == " " || e.alt_key() {
                // The list opens: a pick in it is a pick.
                *browsing.borrow_mut() = false;
            } else if key == "Enter" && std::mem::take(&mut *browsing.borrow_mut()) {
                e.prevent_default();
                if let Some(select) = e.target_dyn_into::<HtmlSelectElement>() {
                    on_pick.emit(select.value());
                }
            }
        })
    };
    let onmousedown = {
        let browsing = browsing.clone();
        Callback::from(move |_: MouseEvent| *browsing.borrow_mut() = false)
    };
    let onblur = Callback::from(move |e: FocusEvent| {
        if std::mem::take(&mut *browsing.borrow_mut()) {
            if let Some(select) = e.target_dyn_into::<HtmlSelectElement>() {
                select.set_value(&current);
            }
        }
    });
    BrowseSelect {
        onchange,
        onkeydown,
        onblur,
        onmousedown,
    }
}
