//! The page's Russian: the chrome's strings (`i18n::RUSSIAN`) and the built-in lessons'
//! texts (`lessons::RUSSIAN_BYTES`). Both ship in the small worker `eos-lessons-ru`, which
//! only a page read in Russian loads (29 KB gzipped, against the page's 578 KB). Until they
//! are here the chrome reads in English and each lesson text says it is loading; a page that
//! opens in Russian waits for them a moment before it draws (`crate::start`).
//!
//! The worker posts one message: the chrome's strings, each followed by a NUL, with their
//! length in front (four bytes, little-endian), then the lessons' texts.

use std::cell::RefCell;

/// The worker's loader, as Trunk writes it next to `index.html`.
const WORKER_URL: &str = "./eos-lessons-ru_loader.js";

/// What the page says when the worker fails: in both languages, as the Russian chrome is
/// what did not arrive.
pub const FAILED: &str = "Русский текст не загрузился, поэтому страница остаётся на английском: \
     обновите её, чтобы попробовать снова. The Russian texts did not load, so the page stays \
     in English: reload it to try again.";

/// Told whether the texts came.
type Waiter = Box<dyn FnOnce(bool)>;

thread_local! {
    /// The worker's last answer was not the texts (cleared when they come).
    static FAILED_LAST: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static CHROME: RefCell<Option<Vec<&'static str>>> = const { RefCell::new(None) };
    /// Who waits for the worker's answer: empty when no one asked, or it answered.
    static WAITING: RefCell<Vec<Waiter>> = const { RefCell::new(Vec::new()) };
}

/// The worker's message (only the worker calls it, so only it carries the texts).
pub fn bundle() -> Vec<u8> {
    let mut chrome = Vec::new();
    for s in crate::i18n::RUSSIAN {
        chrome.extend_from_slice(s.as_bytes());
        chrome.push(0);
    }
    let mut out = Vec::with_capacity(4 + chrome.len() + crate::lessons::RUSSIAN_BYTES.len());
    out.extend_from_slice(
        &u32::try_from(chrome.len())
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    out.extend_from_slice(&chrome);
    out.extend_from_slice(crate::lessons::RUSSIAN_BYTES);
    out
}

/// The chrome's strings and the lessons' bytes of a worker's message, if it is one: one
/// string per `S`.
pub fn split(bytes: &[u8]) -> Option<(Vec<&str>, &[u8])> {
    let (len, rest) = bytes.split_first_chunk::<4>()?;
    let len = usize::try_from(u32::from_le_bytes(*len)).ok()?;
    if len > rest.len() {
        return None;
    }
    let (chrome, lessons) = rest.split_at(len);
    let chrome = std::str::from_utf8(chrome).ok()?.strip_suffix('\0')?;
    let strings: Vec<&str> = chrome.split('\0').collect();
    (strings.len() == crate::i18n::S::ALL.len()).then_some((strings, lessons))
}

/// Keeps a worker's message: false, keeping nothing, if it is not one.
pub fn take(bytes: &[u8]) -> bool {
    let Some((strings, lessons)) = split(bytes) else {
        return false;
    };
    if !crate::lessons::take_russian(lessons) {
        return false;
    }
    // Kept for the page's life, as the English strings are: once, ~20 KB.
    let strings = strings
        .into_iter()
        .map(|s| &*Box::leak(s.to_owned().into_boxed_str()))
        .collect();
    CHROME.with(|c| *c.borrow_mut() = Some(strings));
    true
}

/// The Russian chrome string at `index` (an `S`), if it is here. Native builds (the tests)
/// have it built in.
pub fn chrome(index: usize) -> Option<&'static str> {
    #[cfg(not(target_arch = "wasm32"))]
    return crate::i18n::RUSSIAN.get(index).copied();
    #[cfg(target_arch = "wasm32")]
    CHROME.with(|c| c.borrow().as_ref().and_then(|t| t.get(index).copied()))
}

/// Whether the worker's last answer was not the texts: a page that opens after that
/// opens in English.
pub fn failed() -> bool {
    FAILED_LAST.with(|f| f.get()) && !loaded()
}

/// Whether the Russian texts are here.
pub fn loaded() -> bool {
    CHROME.with(|c| c.borrow().is_some())
}

/// Loads the Russian texts once, then `done(true)`; `done(false)` if the worker fails, after
/// which a later call tries again. Calls while it loads wait for the same answer.
pub fn load(done: Waiter) {
    if loaded() {
        return done(true);
    }
    let first = WAITING.with(|w| {
        let mut w = w.borrow_mut();
        w.push(done);
        w.len() == 1
    });
    if !first {
        return;
    }
    crate::share::worker_bytes(
        WORKER_URL,
        Box::new(|bytes: Option<Vec<u8>>| {
            let ok = bytes.is_some_and(|b| take(&b));
            FAILED_LAST.with(|f| f.set(!ok));
            for done in WAITING.with(|w| std::mem::take(&mut *w.borrow_mut())) {
                done(ok);
            }
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Lang, S};

    #[test]
    fn the_workers_message_gives_back_every_chrome_string_and_the_lessons() {
        let bytes = bundle();
        let (strings, lessons) = split(&bytes).expect("the worker's message");
        assert_eq!(strings, crate::i18n::RUSSIAN);
        assert_eq!(lessons, crate::lessons::RUSSIAN_BYTES);
        assert_eq!(strings[S::Reset as usize], "Сброс");
        assert!(take(&bytes));
        assert!(loaded());
        assert_eq!(S::Reset.get(Lang::Ru), "Сброс");
    }

    #[test]
    fn a_message_that_is_not_the_texts_is_refused() {
        let bytes = bundle();
        for bad in [
            &[][..],
            &[1, 2, 3],
            &bytes[..bytes.len() / 3],
            // One string short.
            &[&4u32.to_le_bytes()[..], b"ab\0\0"].concat(),
        ] {
            assert!(
                split(bad).is_none() || !take(bad),
                "{:?}",
                &bad[..bad.len().min(8)]
            );
        }
        let mut wrong_length = bytes.clone();
        wrong_length[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(split(&wrong_length).is_none());
        assert!(!loaded(), "nothing refused is kept");
    }
}
