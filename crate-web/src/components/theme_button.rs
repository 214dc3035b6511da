//! The theme: as the system says, light or dark, chosen in the header and kept in
//! `localStorage`. An instructor on a projector often wants the light one whatever the
//! laptop says. index.html's script turns the choice (or the system's theme) into a
//! `data-theme` attribute on `<html>`, which style.css reads.

use crate::i18n::{I18n, S};
use yew::prelude::*;

const KEY: &str = "eos-theme";

/// The themes a choice can name ("auto" follows the system).
const THEMES: [&str; 3] = ["auto", "light", "dark"];

/// What a click on `theme` chooses next, on a system whose own theme is `system` ("light"
/// or "dark"): from "auto" the other theme, so that the first click always changes what is
/// seen (on a light system, auto → light changed nothing); then the system's own, chosen;
/// then back to "auto".
pub fn next(theme: &str, system: &str) -> &'static str {
    let (own, other) = if system == "light" {
        ("light", "dark")
    } else {
        ("dark", "light")
    };
    match theme {
        t if t == other => own,
        t if t == own => "auto",
        _ => other,
    }
}

/// A theme's name in the button's label: the one now, or (`to`) the one a click chooses.
fn word(theme: &str, to: bool) -> S {
    match theme {
        "light" => S::ThemeLight,
        "dark" => S::ThemeDark,
        _ if to => S::ThemeToAuto,
        _ => S::ThemeAuto,
    }
}

/// The system's own theme (index.html's script sets it on `<html>`).
fn system_theme() -> String {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|e| e.get_attribute("data-system-theme"))
        .unwrap_or_else(|| "dark".to_string())
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
            let n = next(*theme, &system_theme());
            crate::storage::set(KEY, n);
            theme.set(n);
        })
    };
    let icon = match *theme {
        "light" => "☀",
        "dark" => "☾",
        _ => "◐",
    };
    let label = i18n.f(
        S::ThemeNow,
        &[
            &i18n.t(word(*theme, false)),
            &i18n.t(word(next(*theme, &system_theme()), true)),
        ],
    );
    html! {
        <button id="theme" class="lang theme" {onclick} aria-label={label.clone()} title={label}>
            <span aria-hidden="true">{ icon }</span>
        </button>
    }
}

#[cfg(test)]
mod tests {
    use super::next;

    /// Each click changes what is seen, and the third comes back to the system's theme:
    /// on a light system auto → dark → light → auto, on a dark one auto → light → dark → auto.
    #[test]
    fn every_click_changes_the_theme_seen_and_the_third_returns_to_auto() {
        assert_eq!(next("auto", "light"), "dark");
        assert_eq!(next("dark", "light"), "light");
        assert_eq!(next("light", "light"), "auto");
        assert_eq!(next("auto", "dark"), "light");
        assert_eq!(next("light", "dark"), "dark");
        assert_eq!(next("dark", "dark"), "auto");
        assert_eq!(next("anything else", "dark"), "light");
    }

    /// The label names what a click chooses, in the order `next` cycles (it once named the
    /// order before the cycle changed: "as the system's (click for light)" led to dark).
    #[test]
    fn the_label_names_the_theme_a_click_chooses() {
        use crate::i18n::{Lang, S};
        let label = |theme: &str, system: &str| {
            S::ThemeNow.f(
                Lang::En,
                &[
                    &super::word(theme, false).get(Lang::En),
                    &super::word(next(theme, system), true).get(Lang::En),
                ],
            )
        };
        assert_eq!(
            label("auto", "light"),
            "Theme: as the system's (click for dark)"
        );
        assert_eq!(label("dark", "light"), "Theme: dark (click for light)");
        assert_eq!(
            label("light", "light"),
            "Theme: light (click for the system's)"
        );
        assert_eq!(
            label("auto", "dark"),
            "Theme: as the system's (click for light)"
        );
    }
}
