//! `localStorage`, when the browser lets us have it: private modes and disabled storage give
//! `None` and writes that quietly do nothing, never a panic.

fn local() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn get(key: &str) -> Option<String> {
    local()?.get_item(key).ok().flatten()
}

pub fn set(key: &str, value: &str) {
    if let Some(s) = local() {
        let _ = s.set_item(key, value);
    }
}

/// The browser's preferred language (`navigator.language`).
pub fn browser_language() -> Option<String> {
    web_sys::window()?.navigator().language()
}
