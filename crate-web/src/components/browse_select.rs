//! A closed `<select>` browsed with the arrow keys fires `change` at every option (Chrome,
//! Windows): for a picker whose change reloads the run (the scenario, the guarantee), each
//! arrow would throw away the step and the faults added. Here the arrows only browse; Enter
//! picks, a mouse pick picks at once, and leaving the picker without Enter puts back what was
//! picked.

use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// The keys with which a closed select moves among its options.
fn browses(key: &str) -> bool {
    matches!(
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
        Callback::from(move |e: KeyboardEvent| {
            let key = e.key();
            if browses(&key) && !e.alt_key() {
                *browsing.borrow_mut() = true;
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
    }
}
