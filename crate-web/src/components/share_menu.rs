//! The Share menu: copy the link, download the scenario or the trace, import a scenario,
//! export the diagram or the partition logs as SVG or PNG. A `<details>` disclosure, so it
//! opens and closes with the keyboard as with the mouse.

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
    let item = |id: &'static str, label: &'static str, action: ShareAction| {
        let cb = props.on_action.clone();
        html! {
            <button id={id} class="ctl share-item" onclick={Callback::from(move |_| cb.emit(action))}>
                { label }
            </button>
        }
    };
    html! {
        <details class="share" id="share-menu">
            <summary class="ctl" aria-label="Share, import and export">{"Share"}</summary>
            <div class="share-panel">
                <label class="share-link">
                    <span class="label">{"Link to this moment"}</span>
                    <input id="share-link" type="text" readonly=true value={props.link.clone()}
                        onfocus={Callback::from(|e: FocusEvent| {
                            if let Some(i) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                                i.select();
                            }
                        })} />
                </label>
                { item("share-copy", "Copy link", ShareAction::CopyLink) }
                <p class="share-group">{"Files"}</p>
                { item("share-scenario", "Download scenario (.toml)", ShareAction::DownloadScenario) }
                { item("share-trace", "Download trace (.json)", ShareAction::DownloadTrace) }
                <label class="ctl share-item import" for="import-file">
                    {"Import scenario… (.toml or .json, or drop it on the page)"}
                </label>
                <input id="import-file" class="visually-hidden" type="file" accept=".toml,.json,text/plain,application/json"
                    onchange={props.on_import.clone()} />
                <p class="share-group">{"Images"}</p>
                <div class="share-row">
                    { item("share-svg", "Diagram SVG", ShareAction::Svg(Picture::Diagram)) }
                    { item("share-png", "Diagram PNG", ShareAction::Png(Picture::Diagram)) }
                </div>
                <div class="share-row">
                    { item("share-logs-svg", "Logs SVG", ShareAction::Svg(Picture::Logs)) }
                    { item("share-logs-png", "Logs PNG", ShareAction::Png(Picture::Logs)) }
                </div>
                if let Some(status) = &props.status {
                    <p id="share-status" class="share-status" role="status">{ status }</p>
                }
            </div>
        </details>
    }
}
