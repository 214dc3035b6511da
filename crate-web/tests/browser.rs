//! Browser tests: mount the real app in headless Chromium, act, and read the DOM.
#![cfg(target_arch = "wasm32")]

use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Document, Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("a document")
}

async fn mount() -> Element {
    // The page keeps its state in its URL; a test starts from a bare one, not the link the
    // previous test's page left.
    js_sys::eval("history.replaceState(null, '', location.pathname)").expect("a history");
    let root = document().create_element("div").expect("div");
    document()
        .body()
        .expect("body")
        .append_child(&root)
        .expect("append");
    yew::Renderer::<eos_web::app::App>::with_root(root.clone()).render();
    TimeoutFuture::new(20).await;
    // The page opens on the first lesson; these tests drive the free playground.
    if let Some(leave) = root
        .query_selector("#leave-lesson")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    {
        leave.click();
        TimeoutFuture::new(20).await;
    }
    root
}

async fn click(root: &Element, selector: &str) {
    let el: HtmlElement = root
        .query_selector(selector)
        .expect("selector")
        .unwrap_or_else(|| panic!("{selector} exists"))
        .dyn_into()
        .expect("an HTML element");
    el.click();
    TimeoutFuture::new(5).await;
}

fn count(root: &Element, selector: &str) -> u32 {
    root.query_selector_all(selector)
        .expect("selector")
        .length()
}

fn text(root: &Element, selector: &str) -> String {
    root.query_selector(selector)
        .ok()
        .flatten()
        .and_then(|e| e.text_content())
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn stepping_grows_the_event_log_and_then_the_partition_log() {
    let root = mount().await;
    assert!(text(&root, "#clock").starts_with("step 0"));
    assert_eq!(count(&root, "li.cell"), 0);
    let mut events_before = count(&root, "#event-log li.event:not(.hint):not(.earlier)");
    for _ in 0..5 {
        click(&root, "#step").await;
        let now = count(&root, "#event-log li.event:not(.hint):not(.earlier)");
        assert!(now > events_before || now >= 14, "each step adds narration");
        events_before = now;
    }
    assert!(text(&root, "#clock").starts_with("step 5"));
    let mut guard = 0;
    while count(&root, "ol.log[data-partition=\"events-0\"] li.cell") == 0 {
        click(&root, "#step").await;
        guard += 1;
        assert!(guard < 60, "the record should land within 60 steps");
    }
    assert!(text(&root, "ol.log[data-partition=\"events-0\"]").contains("v0"));
    root.remove();
}

#[wasm_bindgen_test]
async fn step_back_returns_to_the_previous_step() {
    let root = mount().await;
    for _ in 0..4 {
        click(&root, "#step").await;
    }
    let at_four = text(&root, "main");
    click(&root, "#step").await;
    click(&root, "#step-back").await;
    assert!(text(&root, "#clock").starts_with("step 4"));
    assert_eq!(text(&root, "main"), at_four);
    root.remove();
}

/// A part kept back while playing (`components/held.rs`): off screen it does not redraw,
/// on screen it does (unless it is `still`); it catches up when playback stops or when it
/// scrolls into view.
#[wasm_bindgen_test]
async fn a_held_part_redraws_only_in_view_or_when_not_held() {
    use eos_web::components::held::{Held, HeldProps};
    use yew::prelude::*;
    let place = |top: &str| {
        let root = document().create_element("div").expect("div");
        root.set_attribute(
            "style",
            &format!("position: absolute; left: 0; top: {top}; width: 200px; height: 40px"),
        )
        .expect("style");
        document()
            .body()
            .expect("body")
            .append_child(&root)
            .expect("append");
        root
    };
    let still_props = |n: u32, hold: bool, still: bool| HeldProps {
        children: html! { <span class="n">{ n }</span> },
        hold,
        class: classes!("probe"),
        still,
    };
    let props = |n: u32, hold: bool| still_props(n, hold, false);
    let (near, far) = (place("0px"), place("30000px"));
    let mut shown =
        yew::Renderer::<Held>::with_root_and_props(near.clone(), props(1, true)).render();
    let mut hidden =
        yew::Renderer::<Held>::with_root_and_props(far.clone(), props(1, true)).render();
    // Let the observers report where each part is.
    TimeoutFuture::new(150).await;
    shown.update(props(2, true));
    hidden.update(props(2, true));
    TimeoutFuture::new(30).await;
    assert_eq!(text(&near, ".n"), "2", "in view: redrawn while held");
    assert_eq!(text(&far, ".n"), "1", "out of view: kept back while held");
    hidden.update(props(3, false));
    TimeoutFuture::new(30).await;
    assert_eq!(text(&far, ".n"), "3", "not held: redrawn off screen too");
    hidden.update(props(4, true));
    TimeoutFuture::new(30).await;
    assert_eq!(text(&far, ".n"), "3", "held again");
    far.set_attribute(
        "style",
        "position: absolute; left: 0; top: 60px; width: 200px; height: 40px",
    )
    .expect("style");
    TimeoutFuture::new(150).await;
    assert_eq!(text(&far, ".n"), "4", "scrolled into view: caught up");
    // A still part waits while held even in view, and catches up when playback stops.
    shown.update(still_props(5, true, true));
    TimeoutFuture::new(30).await;
    assert_eq!(text(&near, ".n"), "2", "still: kept back in view too");
    shown.update(still_props(6, false, true));
    TimeoutFuture::new(30).await;
    assert_eq!(text(&near, ".n"), "6", "still, not held: redrawn");
    shown.destroy();
    hidden.destroy();
}
