//! One tab stop for a group of many items (the diagram's arrows, a log's cells, the messages
//! on the wire, a column of the compare table), the "roving tab index" of the ARIA practices:
//! Tab enters the group at one item and leaves it at the next, ↑ and ↓ move inside it. ← and →
//! stay the page's step keys, so a reader who clicked a record can still step the run.
//!
//! An item carries `data-rove` with its key; a key's part before `:` names its group when
//! one container holds several (the compare table's columns, whose stops share a row so that
//! Tab goes from column to column). The container carries `data-roves` and takes
//! `onfocusin` and `onkeydown` (yew hands events down from the app's root, so the container
//! is found from the item, not as the event's current target); an item is a tab stop when
//! its key is the one `Rove::stop` picks (the compare table picks its row from `last`).

use wasm_bindgen::JsCast;
use yew::prelude::*;

const ATTR: &str = "data-rove";

#[derive(Clone, PartialEq)]
pub struct Rove {
    /// The item last focused, by key.
    current: Option<String>,
    /// The container (`data-roves`), for giving the focus back when its item is gone.
    pub container: NodeRef,
    pub onfocusin: Callback<FocusEvent>,
    pub onkeydown: Callback<KeyboardEvent>,
}

/// The group of a key: its part before the first `:`, or the whole container's.
fn group(key: &str) -> &str {
    key.split_once(':').map_or("", |(g, _)| g)
}

fn item_of(target: Option<web_sys::EventTarget>) -> Option<web_sys::Element> {
    target
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|el| el.closest("[data-rove]").ok().flatten())
}

fn focus(el: web_sys::Element) {
    match el.dyn_into::<web_sys::HtmlElement>() {
        Ok(html) => {
            let _ = html.focus();
        }
        Err(el) => {
            if let Ok(svg) = el.dyn_into::<web_sys::SvgElement>() {
                let _ = svg.focus();
            }
        }
    }
}

/// ↑ or ↓ on an item: the focus goes to the previous or next item of its group, in the
/// page's order. Other keys pass.
fn move_focus(e: &KeyboardEvent) {
    let by: isize = match e.key().as_str() {
        "ArrowDown" => 1,
        "ArrowUp" => -1,
        _ => return,
    };
    if e.alt_key() || e.ctrl_key() || e.meta_key() || e.shift_key() {
        return;
    }
    let Some(item) = item_of(e.target()) else {
        return;
    };
    let Some(container) = item.closest("[data-roves]").ok().flatten() else {
        return;
    };
    let key = item.get_attribute(ATTR).unwrap_or_default();
    let Ok(all) = container.query_selector_all("[data-rove]") else {
        return;
    };
    let mut same: Vec<web_sys::Element> = (0..all.length())
        .filter_map(|i| all.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
        .filter(|el| group(&el.get_attribute(ATTR).unwrap_or_default()) == group(&key))
        .collect();
    // Items that say when they happen (`data-at`: the diagram's arrows and marks, drawn in
    // two lists) are visited in time order.
    let at = |el: &web_sys::Element| {
        el.get_attribute("data-at")
            .and_then(|a| a.parse::<i64>().ok())
            .unwrap_or(0)
    };
    eos_core::order::sort_by_key(&mut same, at);
    let Some(at) = same.iter().position(|el| *el == item) else {
        return;
    };
    // The page does not scroll under the arrow keys while the focus moves.
    e.prevent_default();
    if let Some(next) = at.checked_add_signed(by).and_then(|i| same.get(i)) {
        focus(next.clone());
    }
}

/// The focused item left the page (a message arrived, a log folded its first cells, an
/// arrow left the diagram's window): the focus, which fell to the page's body, goes to the
/// group's tab stop, or to the same message drawn elsewhere (its arrow) when the group is
/// empty. A reader who clicked elsewhere keeps that: the item they left is still there.
fn give_focus_back(container: &NodeRef, focused: &std::cell::RefCell<Option<web_sys::Element>>) {
    let Some(gone) = focused.borrow().clone().filter(|el| !el.is_connected()) else {
        return;
    };
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let lost = doc
        .active_element()
        .is_none_or(|a| doc.body().is_some_and(|b| a == *b.as_ref()));
    if !lost {
        return;
    }
    let stop = container.cast::<web_sys::Element>().and_then(|c| {
        c.query_selector("[data-rove][tabindex=\"0\"]")
            .ok()
            .flatten()
    });
    let same = || {
        gone.get_attribute("data-msg").and_then(|id| {
            doc.query_selector(&format!("[data-msg=\"{id}\"][tabindex]"))
                .ok()
                .flatten()
        })
    };
    if let Some(el) = stop.or_else(same) {
        *focused.borrow_mut() = Some(el.clone());
        focus(el);
    }
}

#[hook]
pub fn use_rove() -> Rove {
    let current = use_state_eq(|| None::<String>);
    let container = use_node_ref();
    let focused = use_mut_ref(|| None::<web_sys::Element>);
    let onfocusin = {
        let (set, focused) = (current.setter(), focused.clone());
        Callback::from(move |e: FocusEvent| {
            if let Some(item) = item_of(e.target()) {
                if let Some(key) = item.get_attribute(ATTR) {
                    set.set(Some(key));
                }
                *focused.borrow_mut() = Some(item);
            }
        })
    };
    {
        let (container, focused) = (container.clone(), focused.clone());
        use_effect(move || give_focus_back(&container, &focused));
    }
    Rove {
        current: (*current).clone(),
        container,
        onfocusin,
        onkeydown: Callback::from(|e: KeyboardEvent| move_focus(&e)),
    }
}

impl Rove {
    /// The key that takes the tab stop among the items `present` accepts: the item last
    /// focused if it is still there, else the first of `preferred` there. Plain slices and
    /// `dyn`: one copy of this code for every group in the page.
    pub fn stop(&self, preferred: &[String], present: &dyn Fn(&str) -> bool) -> Option<String> {
        self.current
            .iter()
            .chain(preferred)
            .find(|k| present(k))
            .cloned()
    }

    /// The key of the item last focused, whatever its group.
    pub fn last(&self) -> Option<&str> {
        self.current.as_deref()
    }

    /// `stop` for a container of one group whose keys are numbers (a log's offsets, message
    /// ids).
    pub fn stop_number(
        &self,
        preferred: &[Option<u64>],
        present: &dyn Fn(u64) -> bool,
    ) -> Option<u64> {
        let last = self.current.as_deref().and_then(|k| k.parse::<u64>().ok());
        last.into_iter()
            .chain(preferred.iter().flatten().copied())
            .find(|n| present(*n))
    }
}

/// `tabindex` for an item: "0" for the group's stop, "-1" (focusable by the arrows and by
/// a click) for the others.
pub fn tabindex(is_stop: bool) -> &'static str {
    if is_stop {
        "0"
    } else {
        "-1"
    }
}
