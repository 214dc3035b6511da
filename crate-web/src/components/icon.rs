use yew::prelude::*;

/// Inline SVG icons: no icon font, no request, and the same on every machine.
pub fn icon(name: &str) -> Html {
    let path = match name {
        "reset" => "M4 4h2v16H4zM20 5v14L8 12z",
        // One step is a chevron, playing a filled triangle: told apart without their words.
        "back" => "M15.5 4 7.5 12l8 8 2-2-6-6 6-6z",
        "play" => "M7 5v14l11-7z",
        "pause" => "M6 5h4v14H6zM14 5h4v14h-4z",
        "step" => "M8.5 4l8 8-8 8-2-2 6-6-6-6z",
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
