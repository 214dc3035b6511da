use yew::prelude::*;

/// Inline SVG icons: no icon font, no request, and the same on every machine.
pub fn icon(name: &str) -> Html {
    let path = match name {
        "reset" => "M4 4h2v16H4zM20 5v14L8 12z",
        "back" => "M18 5v14L7 12z",
        "play" => "M7 5v14l11-7z",
        "pause" => "M6 5h4v14H6zM14 5h4v14h-4z",
        "step" => "M6 5v14l11-7z",
        "end" => "M4 5v14l12-7zM18 4h2v16h-2z",
        "prev-event" => "M11 5v14L2 12zM21 5v14l-9-7z",
        "next-event" => "M3 5v14l9-7zM13 5v14l9-7z",
        _ => "",
    };
    html! {
        <svg class="icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
            <path d={path} fill="currentColor" />
        </svg>
    }
}
