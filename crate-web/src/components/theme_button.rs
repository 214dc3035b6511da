//! The theme: as the system says, light or dark, chosen in the header and kept in
//! `localStorage`. An instructor on a projector often wants the light one whatever the
//! laptop says. index.html's script turns the choice (or the system's theme) into a
//! `data-theme` attribute on `<html>`, which style.css reads.

use crate::i18n::{I18n, S};
use yew::prelude::*;

const KEY: &str = "eos-theme";

/// The themes in the order a click goes through them.
const THEMES: [&str; 3] = ["auto", "light", "dark"];

/// What a click on `theme` chooses next.
pub fn next(theme: &str) -> &'static str {
    let i = THEMES.iter().position(|t| *t == theme).unwrap_or(0);
    THEMES[(i + 1) % THEMES.len()]
}

/// Hands the choice to index.html's script, which also follows the system's theme in "auto".
fn apply(theme: &str) {
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else {
        return;
    };
    if let Some(f) = js_sys::Reflect::get(&window, &"eosApplyTheme".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    {
        let _ = f.call1(&window, &theme.into());
    }
}

#[function_component(ThemeButton)]
pub fn theme_button() -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let theme = use_state(|| {
        let kept = crate::storage::get(KEY).unwrap_or_default();
        THEMES.into_iter().find(|t| *t == kept).unwrap_or("auto")
    });
    use_effect_with(*theme, |t| apply(t));
    let onclick = {
        let theme = theme.clone();
        Callback::from(move |_: MouseEvent| {
            let n = next(*theme);
            crate::storage::set(KEY, n);
            theme.set(n);
        })
    };
    let (icon, label) = match *theme {
        "light" => ("☀", S::ThemeLight),
        "dark" => ("☾", S::ThemeDark),
        _ => ("◐", S::ThemeAuto),
    };
    html! {
        <button id="theme" class="lang theme" {onclick} aria-label={i18n.t(label)} title={i18n.t(label)}>
            <span aria-hidden="true">{ icon }</span>
        </button>
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_click_goes_auto_light_dark_and_round() {
        assert_eq!(super::next("auto"), "light");
        assert_eq!(super::next("light"), "dark");
        assert_eq!(super::next("dark"), "auto");
        assert_eq!(super::next("anything else"), "light");
    }
}
