//! The page's language as a hook: read from `localStorage` or the browser once, remembered
//! when changed, and set on `<html lang>` for screen readers and hyphenation. Russian's texts
//! come from a worker (`russian.rs`), loaded the first time the page is read in Russian.

use crate::i18n::{code, initial, I18n, Lang, LANG_KEY};
use yew::prelude::*;

/// `failed` hears the worker's failure (the page shows `russian::FAILED`).
#[hook]
pub fn use_i18n(failed: Callback<()>) -> I18n {
    let wanted = use_state(|| {
        initial(
            crate::storage::get(LANG_KEY).as_deref(),
            crate::storage::browser_language().as_deref(),
        )
    });
    // Russian whose texts could not be loaded (`crate::start` asked before drawing) opens
    // in English, and says why.
    let lang = use_state(|| match *wanted {
        Lang::Ru if crate::russian::failed() => Lang::En,
        l => l,
    });
    let russian = use_state_eq(crate::russian::loaded);
    // The latest `failed`, read when the worker answers: a new callback at every render must
    // not make the context new at every render.
    let failed = {
        let latest = use_mut_ref(|| failed.clone());
        *latest.borrow_mut() = failed;
        latest
    };
    use_effect_with(*lang, |lang| {
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("lang", code(*lang));
        }
    });
    {
        let failed = failed.clone();
        let fell_back = *wanted != *lang;
        use_effect_with((), move |_| {
            if fell_back {
                failed.borrow().emit(());
            }
        });
    }
    // A page that opened in Russian without its texts (the worker was slow) asks again, and
    // turns to English if they do not come.
    {
        let (russian, failed, setter) = (russian.clone(), failed.clone(), lang.setter());
        use_effect_with((*lang, *russian), move |(lang, loaded)| {
            if *lang == Lang::Ru && !*loaded {
                load(russian.setter(), None, failed, Some(setter));
            }
        });
    }
    // Built once: the context compares equal from one render of the page to the next, so
    // the components reading it (every log cell, every arrow) are not all drawn again at
    // every step. Russian is switched to when its texts are here: until then, and if they
    // do not come, the page stays as it was.
    let set = use_callback(
        (lang.setter(), russian.setter()),
        move |l: Lang, (setter, russian)| {
            if l == Lang::Ru && !crate::russian::loaded() {
                load(russian.clone(), Some(setter.clone()), failed.clone(), None);
            } else {
                crate::storage::set(LANG_KEY, code(l));
                setter.set(l);
            }
        },
    );
    I18n {
        lang: *lang,
        russian: *russian,
        set,
    }
}

/// Loads the Russian texts; then marks them loaded and, with `switch`, turns to Russian (and
/// remembers it); or tells `failed` and, with `fall_back`, turns to English (not remembered:
/// a reload tries Russian again).
fn load(
    russian: UseStateSetter<bool>,
    switch: Option<UseStateSetter<Lang>>,
    failed: std::rc::Rc<std::cell::RefCell<Callback<()>>>,
    fall_back: Option<UseStateSetter<Lang>>,
) {
    crate::russian::load(Box::new(move |ok| {
        if ok {
            russian.set(true);
            if let Some(s) = switch {
                crate::storage::set(LANG_KEY, code(Lang::Ru));
                s.set(Lang::Ru);
            }
        } else {
            failed.borrow().emit(());
            if let Some(s) = fall_back {
                s.set(Lang::En);
            }
        }
    }));
}
