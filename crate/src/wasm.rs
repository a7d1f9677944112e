//! wasm-bindgen API (browser build, only on wasm32).
//!
//! The page never touches the wasm: one module Web Worker (`www/worker.js`) owns it and talks to
//! the page with plain messages. Everything that crosses the boundary is plain serialisable data;
//! counters become `f64`, `u32` or strings (serde-wasm-bindgen rejects `u64` above 2^53).
//!
//! ```text
//!  page (main.js) ──postMessage──> worker.js ──calls──> this module (Rust)
//!        ^                            │  init(), version(), ...
//!        └──── progress / result / error messages
//! ```

use wasm_bindgen::prelude::*;

/// Called once by `init()`: routes Rust panics to `console.error` with a readable message, so
/// the Worker can report them instead of failing silently.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The library version (the same string the CLI prints).
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}
