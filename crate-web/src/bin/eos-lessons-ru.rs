//! The page's Russian (the chrome's strings and the built-in lessons' texts), as a Web Worker
//! that posts them to the page once and is done (see `eos_web::russian`). A page read in
//! English never loads it.

use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

fn main() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let bytes = js_sys::Uint8Array::from(eos_web::russian::bundle().as_slice());
    let _ = scope.post_message(&bytes);
}
