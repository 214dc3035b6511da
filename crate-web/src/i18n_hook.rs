//! The page's language as a hook: read from `localStorage` or the browser once, remembered
//! when changed, and set on `<html lang>` for screen readers and hyphenation.

use crate::i18n::{code, initial, I18n, Lang, LANG_KEY};
use yew::prelude::*;

#[hook]
pub fn use_i18n() -> I18n {
    let lang = use_state(|| {
        initial(
            crate::storage::get(LANG_KEY).as_deref(),
            crate::storage::browser_language().as_deref(),
        )
    });
    use_effect_with(*lang, |lang| {
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("lang", code(*lang));
        }
    });
    // Built once: the context compares equal from one render of the page to the next, so
    // the components reading it (every log cell, every arrow) are not all drawn again at
    // every step.
    let set = use_callback(lang.setter(), |l: Lang, setter| {
        crate::storage::set(LANG_KEY, code(l));
        setter.set(l);
    });
    I18n { lang: *lang, set }
}
