//! The Share menu: copy the link, download the scenario or the trace, import a scenario,
//! export the diagram or the partition logs as SVG or PNG. A `<details>` disclosure, so it
//! opens and closes with the keyboard as with the mouse.

use crate::i18n::{Lang, S};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// What the menu asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareAction {
    CopyLink,
    DownloadScenario,
    DownloadTrace,
    Svg(Picture),
    Png(Picture),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Picture {
    Diagram,
    Logs,
}

pub struct ShareMenuProps {
    pub lang: Lang,
    pub link: String,
    /// What the last action did ("Link copied", ...), read out politely.
    pub status: Option<String>,
    pub on_action: Callback<ShareAction>,
    /// The file input's change event (the page reads the file).
    pub on_import: Callback<Event>,
}

/// A plain function rather than a component: it has no state of its own, and each
/// component costs the page generic code.
pub fn share_menu(props: &ShareMenuProps) -> Html {
    let t = |s: S| s.get(props.lang);
    let item = |id: &'static str, label: S, action: ShareAction| {
        let cb = props.on_action.clone();
        html! {
            <button id={id} class="ctl share-item" onclick={Callback::from(move |_| cb.emit(action))}>
                { t(label) }
            </button>
        }
    };
    // Escape closes the menu and gives the focus back to its button; so does moving the
    // focus out of it (it would stay open over the controls).
    let close = |details: &web_sys::Element, focus: bool| {
        let _ = details.remove_attribute("open");
        if focus {
            if let Some(summary) = details
                .query_selector("summary")
                .ok()
                .flatten()
                .and_then(|s| s.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = summary.focus();
            }
        }
    };
    // Yew delegates events to the page's root: the event's current target is not the menu.
    let menu = || {
        web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("share-menu"))
    };
    let on_key = Callback::from(move |e: KeyboardEvent| {
        let details = menu();
        if let Some(details) = details.filter(|d| e.key() == "Escape" && d.has_attribute("open")) {
            e.prevent_default();
            e.stop_propagation();
            close(&details, true);
        }
    });
    let on_focusout = Callback::from(move |e: FocusEvent| {
        let details = menu();
        let to = e
            .related_target()
            .and_then(|t| t.dyn_into::<web_sys::Node>().ok());
        if let (Some(details), Some(to)) = (details, to) {
            if !details.contains(Some(&to)) {
                close(&details, false);
            }
        }
    });
    // A file chosen: the menu closes (it covered the import's result or its errors).
    let on_import = {
        let forward = props.on_import.clone();
        Callback::from(move |e: Event| {
            if let Some(details) = menu() {
                close(&details, true);
            }
            forward.emit(e);
        })
    };
    html! {
        <details class="share" id="share-menu" onkeydown={on_key} onfocusout={on_focusout}>
            <summary class="ctl" aria-label={t(S::ShareTip)}>{ t(S::Share) }</summary>
            <div class="share-panel">
                <label class="share-link">
                    <span class="label">{ t(S::LinkHere) }</span>
                    <input id="share-link" type="text" readonly=true value={props.link.clone()}
                        onfocus={Callback::from(|e: FocusEvent| {
                            if let Some(i) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                                i.select();
                            }
                        })} />
                </label>
                { item("share-copy", S::CopyLink, ShareAction::CopyLink) }
                <p class="share-group">{ t(S::Files) }</p>
                { item("share-scenario", S::DownloadScenario, ShareAction::DownloadScenario) }
                { item("share-trace", S::DownloadTrace, ShareAction::DownloadTrace) }
                // The input first, so that its focus ring can show on the label after it.
                <input id="import-file" class="visually-hidden" type="file" accept=".toml,.json,text/plain,application/json"
                    onchange={on_import} />
                <label class="ctl share-item import" for="import-file">
                    { t(S::ImportScenario) }
                </label>
                <p class="share-group">{ t(S::Images) }</p>
                <div class="share-row">
                    { item("share-svg", S::DiagramSvg, ShareAction::Svg(Picture::Diagram)) }
                    { item("share-png", S::DiagramPng, ShareAction::Png(Picture::Diagram)) }
                </div>
                <div class="share-row">
                    { item("share-logs-svg", S::LogsSvg, ShareAction::Svg(Picture::Logs)) }
                    { item("share-logs-png", S::LogsPng, ShareAction::Png(Picture::Logs)) }
                </div>
                if let Some(status) = &props.status {
                    <p id="share-status" class="share-status" role="status">{ status }</p>
                }
            </div>
        </details>
    }
}
