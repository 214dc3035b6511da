//! The built-in lessons' Russian texts, as a Web Worker that posts them to the page once
//! and is done (see `eos_web::lessons`). A page read in English never loads it: the texts
//! are about a third of the lessons' bytes.

use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

fn main() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let bytes = js_sys::Uint8Array::from(eos_web::lessons::RUSSIAN_BYTES);
    let _ = scope.post_message(&bytes);
}
