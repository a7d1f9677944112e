//! The wasm API under wasm-bindgen-test: tests/browser/run.sh runs it in node, in a headless
//! Chromium page (`WASM_BINDGEN_USE_BROWSER=1`) and in a dedicated worker
//! (`WASM_BINDGEN_USE_DEDICATED_WORKER=1`, with `CHROMEDRIVER`):
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!  cargo test --target wasm32-unknown-unknown -p warpweave --test wasm_api`.
//! The result JSON of a gallery run must equal, byte for byte, the golden file the native
//! library writes (`session::golden`): wasm == native.
#![cfg(target_arch = "wasm32")]

use warpweave::wasm::{self, SimHandle};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

fn message(e: wasm_bindgen::JsError) -> String {
    let v: JsValue = e.into();
    js_sys::Error::from(v).message().into()
}

#[wasm_bindgen_test]
fn version_is_the_crate_version() {
    assert_eq!(wasm::version(), env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
fn gallery_run_in_slices_equals_the_native_golden() {
    let cfg = warpweave::config::preset_text("teaching").unwrap();
    let mut h = SimHandle::from_workload("vecadd", "{}", cfg, "cycle")
        .map_err(message)
        .unwrap();
    let mut slices = 0;
    loop {
        let p = h.run_for(40.0).map_err(message).unwrap();
        slices += 1;
        let done = js_sys::Reflect::get(&p, &"done".into())
            .unwrap()
            .as_bool()
            .unwrap();
        if done {
            break;
        }
    }
    assert!(slices > 1);
    let got = h.result_json().map_err(message).unwrap();
    assert_eq!(
        got,
        include_str!("../../tests/browser/fixtures/golden/vecadd-cycle.json")
    );
}

#[wasm_bindgen_test]
fn garbage_upload_is_an_error_naming_the_file() {
    let datas = js_sys::Array::new();
    datas.push(&js_sys::Uint8Array::from(&[0u8, 159, 146, 150, 7][..]));
    let e = SimHandle::from_files(vec!["junk.bin".into()], datas, "", "memory")
        .err()
        .map(message)
        .unwrap();
    assert!(
        e.starts_with("junk.bin: format: not a warpweave compact trace"),
        "{e}"
    );
}

#[wasm_bindgen_test]
fn bad_override_names_the_key() {
    let e = wasm::config_toml("teaching", r#"{"sm.max_warps": "0"}"#)
        .err()
        .map(message)
        .unwrap();
    assert!(e.contains("sm.max_warps"), "{e}");
}

#[wasm_bindgen_test]
fn recorded_window_text_equals_the_cli_picture() {
    let cfg = warpweave::config::preset_text("teaching").unwrap();
    let mut h = SimHandle::from_workload("vecadd", "{}", cfg, "cycle")
        .map_err(message)
        .unwrap();
    h.record(0, 20.0, 60.0).map_err(message).unwrap();
    loop {
        let p = h.run_for(1000.0).map_err(message).unwrap();
        if js_sys::Reflect::get(&p, &"done".into())
            .unwrap()
            .as_bool()
            .unwrap()
        {
            break;
        }
    }
    let v: serde_json::Value =
        serde_json::from_str(&h.timeline_json().map_err(message).unwrap()).unwrap();
    let text: String = v["text"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        text + "\n",
        include_str!("../../tests/browser/fixtures/golden/pipeline-vecadd-teaching.txt")
    );
    assert_eq!(
        v["timeline"]["sms"][0]["frames"].as_array().unwrap().len(),
        40
    );
    // The page's Perfetto export: the same document the native library makes.
    let result = h.result_json().map_err(message).unwrap();
    let window = v["chrome"].to_string();
    let t = wasm::chrome_trace(&result, Some(window.clone()))
        .map_err(message)
        .unwrap();
    assert_eq!(
        t,
        warpweave::session::chrome_trace(&result, Some(&window)).unwrap()
    );
    let t: serde_json::Value = serde_json::from_str(&t).unwrap();
    assert!(t["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["args"]["name"] == "SM 0 sub-core 1"));
}

#[wasm_bindgen_test]
fn sass_example_executes_and_equals_the_native_golden() {
    let cfg = warpweave::config::preset_text("teaching").unwrap();
    let s = warpweave::session::input::sass_samples()
        .into_iter()
        .find(|s| s.name == "vecmul")
        .unwrap();
    let mut h = SimHandle::from_sass(s.listing, s.listing_name, s.spec, cfg, "memory")
        .map_err(message)
        .unwrap();
    let p = h.run_for(f64::MAX).map_err(message).unwrap();
    assert!(js_sys::Reflect::get(&p, &"done".into())
        .unwrap()
        .as_bool()
        .unwrap());
    assert_eq!(
        h.result_json().map_err(message).unwrap(),
        include_str!("../../tests/browser/fixtures/golden/sass-vecmul-memory.json")
    );
    let e = SimHandle::from_sass(s.listing, s.listing_name, "grid = 1", cfg, "memory")
        .err()
        .map(message)
        .unwrap();
    assert!(e.contains("launch spec"), "{e}");
}
