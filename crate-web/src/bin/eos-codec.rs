//! The import worker: a Web Worker that reads, packs and exports scenarios for the page
//! (see `eos_web::codec`). It holds the TOML parser and the JSON writer, so the page loads
//! them only when someone imports, exports or opens a link to an imported scenario.
//!
//! A request is `ID\nCOMMAND\nARGUMENT`; the answer is `ID\n` and `codec::handle`'s answer.
//! Once ready it says `ready`.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
        let request = e.data().as_string().unwrap_or_default();
        let (id, body) = request.split_once('\n').unwrap_or(("0", ""));
        let answer = eos_web::codec::handle(body);
        let _ = reply.post_message(&JsValue::from_str(&format!("{id}\n{answer}")));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker does: there is no later moment to drop it.
    on_message.forget();
    // Messages sent before the handler was set are lost: the page waits for this.
    let _ = scope.post_message(&JsValue::from_str("ready"));
}
