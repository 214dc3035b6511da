//! The Share menu: copy the link, download the scenario or the trace, import a scenario,
//! export the diagram or the partition logs as SVG or PNG. A `<details>` disclosure, so it
//! opens and closes with the keyboard as with the mouse.

use crate::i18n::{Lang, S};
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
    html! {
        <details class="share" id="share-menu">
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
                <label class="ctl share-item import" for="import-file">
                    { t(S::ImportScenario) }
                </label>
                <input id="import-file" class="visually-hidden" type="file" accept=".toml,.json,text/plain,application/json"
                    onchange={props.on_import.clone()} />
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
