//! wasm-bindgen API (browser build).
