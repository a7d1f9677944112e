//! wasm-bindgen API (browser build, only on wasm32).
//!
//! The page never touches the wasm: one module Web Worker (`www/worker.js`) owns it and talks to
//! the page with plain messages. Everything that crosses the boundary is plain data: strings
//! (JSON text for results, parsed by the Worker) and numbers as `f64` / `u32` (serde-wasm-bindgen
//! rejects `u64` above 2^53, and `JSON.stringify` fails on BigInt). Every export returns
//! `Result<_, JsError>`, whose message is the library's `Error` text (file, line, key).
//! The logic lives in `session` (platform-independent, tested natively); this file only binds.
//!
//! ```text
//!  page (main.js) ──postMessage──> worker.js ──calls──> SimHandle / catalog functions
//!        ^                            │   SimHandle.fromWorkload(name, paramsJson, configToml, mode)
//!        │                            │   SimHandle.fromFiles(names, datas, configToml, mode)
//!        │                            │   SimHandle.fromSass(listing, name, specToml, configToml, mode)
//!        │                            │   handle.record(sm, from, to)   (optional, before runFor)
//!        │                            │   handle.runFor(cycles) -> {phase, cycles, ctasDone, ...}
//!        └── progress/result/error ───┘   handle.resultJson() / handle.timelineJson() -> String
//!                                         chromeTrace(resultJson, windowJson?) -> String (export)
//! ```

use wasm_bindgen::prelude::*;

use crate::session::{self, config as sconf, input, Session};
use crate::workload;

/// Called once by `init()`: routes Rust panics to `console.error` with a readable message, so
/// the Worker can report them instead of failing silently.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

fn js_err(e: crate::Error) -> JsError {
    JsError::new(&e.to_string())
}

fn to_js<T: serde::Serialize>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&e.to_string()))
}

fn pairs_from_json(json: &str, what: &str) -> Result<Vec<(String, String)>, JsError> {
    if json.trim().is_empty() {
        return Ok(Vec::new());
    }
    let v: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| JsError::new(&format!("{what}: not a JSON object: {e}")))?;
    let m = v
        .as_object()
        .ok_or_else(|| JsError::new(&format!("{what}: expected a JSON object of key: value")))?;
    Ok(m.iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string()),
            )
        })
        .collect())
}

/// The library version (the same string the CLI prints).
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}

/// The built-in workloads: `[{name, summary, params: [{name, default, doc, min, max, choices}]}]`.
#[wasm_bindgen(js_name = workloads)]
pub fn workloads() -> Result<JsValue, JsError> {
    #[derive(serde::Serialize)]
    struct P {
        name: &'static str,
        default: &'static str,
        doc: &'static str,
        min: f64,
        max: f64,
        choices: Vec<&'static str>,
    }
    #[derive(serde::Serialize)]
    struct W {
        name: &'static str,
        summary: &'static str,
        params: Vec<P>,
    }
    let list: Vec<W> = workload::list()
        .iter()
        .map(|d| W {
            name: d.name,
            summary: d.summary,
            params: d
                .params
                .iter()
                .map(|p| P {
                    name: p.name,
                    default: p.default,
                    doc: p.doc,
                    min: p.min as f64,
                    max: p.max as f64,
                    choices: p.choices.to_vec(),
                })
                .collect(),
        })
        .collect();
    to_js(&list)
}

/// GPU preset ids in display order.
#[wasm_bindgen(js_name = presetIds)]
pub fn preset_ids() -> Vec<String> {
    sconf::preset_ids()
}

/// A config flattened to `[[key, value], ...]`: the preset `presetId` with `overridesJson`
/// (`{"l1d.cache.size_kb": "64"}`) applied. Errors name the bad key.
#[wasm_bindgen(js_name = configKeys)]
pub fn config_keys(preset_id: &str, overrides_json: &str) -> Result<JsValue, JsError> {
    let cfg = sconf::effective(preset_id, &pairs_from_json(overrides_json, "overrides")?)
        .map_err(js_err)?;
    to_js(&sconf::flatten(&cfg))
}

/// The effective config (preset + overrides) as TOML text.
#[wasm_bindgen(js_name = configToml)]
pub fn config_toml(preset_id: &str, overrides_json: &str) -> Result<String, JsError> {
    let cfg = sconf::effective(preset_id, &pairs_from_json(overrides_json, "overrides")?)
        .map_err(js_err)?;
    Ok(sconf::to_toml(&cfg))
}

/// The key table: `[{key, group, unit, doc, min, max, kind: {type, choices?}}]` (the same table
/// the CLI validates with).
#[wasm_bindgen(js_name = schemaDoc)]
pub fn schema_doc() -> Result<JsValue, JsError> {
    to_js(&crate::config::schema_doc())
}

/// Imports an Accel-Sim gpgpusim.config: returns `{overrides: [[key, value]], warnings: [..]}`,
/// the keys that differ from preset `presetId`.
#[wasm_bindgen(js_name = importAccelsimConfig)]
pub fn import_accelsim_config(preset_id: &str, name: &str, text: &str) -> Result<JsValue, JsError> {
    #[derive(serde::Serialize)]
    struct Out {
        overrides: Vec<(String, String)>,
        warnings: Vec<String>,
    }
    let base = sconf::preset(preset_id).map_err(js_err)?;
    let (cfg, warnings) = sconf::import_accel_sim(name, text).map_err(js_err)?;
    to_js(&Out {
        overrides: sconf::diff(&base, &cfg),
        warnings,
    })
}

/// The keys of a TOML config that differ from preset `presetId`: `[[key, value], ...]` (what a
/// shared URL carries).
#[wasm_bindgen(js_name = configDiff)]
pub fn config_diff(preset_id: &str, toml_text: &str) -> Result<JsValue, JsError> {
    let base = sconf::preset(preset_id).map_err(js_err)?;
    let cfg = sconf::from_toml(toml_text).map_err(js_err)?;
    to_js(&sconf::diff(&base, &cfg))
}

/// The format of an uploaded file from its first bytes: `compact`, `text`, `text+gzip`,
/// `text+zstd`, `text+xz` or `unknown`.
#[wasm_bindgen(js_name = detectFormat)]
pub fn detect_format(head: &[u8]) -> String {
    input::kind_name(head).to_string()
}

/// The SASS gallery: `[{name, summary, listingName, listing, spec}]` (the teaching kernels as
/// nvcc compiled them, each with its launch spec).
#[wasm_bindgen(js_name = sassSamples)]
pub fn sass_samples() -> Result<JsValue, JsError> {
    to_js(&input::sass_samples())
}

/// The Chrome-trace / Perfetto JSON of a finished run, in cycles (1 ns = 1 cycle): the kernels,
/// IPC and hit-rate counters, and the recorded window's tracks when `windowJson` (the
/// `chrome` member of `timelineJson()`, as JSON text) is given.
#[wasm_bindgen(js_name = chromeTrace)]
pub fn chrome_trace(result_json: &str, window_json: Option<String>) -> Result<String, JsError> {
    session::chrome_trace(result_json, window_json.as_deref()).map_err(js_err)
}

/// One run, owned by the Worker and stepped with `runFor`.
#[wasm_bindgen]
pub struct SimHandle {
    s: Session,
}

#[wasm_bindgen]
impl SimHandle {
    /// A run of built-in workload `name` with parameters `paramsJson` (`{"n": "4096"}`),
    /// config `configToml` (a full or partial TOML; empty for the defaults) and `mode`.
    #[wasm_bindgen(js_name = fromWorkload)]
    pub fn from_workload(
        name: &str,
        params_json: &str,
        config_toml: &str,
        mode: &str,
    ) -> Result<SimHandle, JsError> {
        let cfg = sconf::from_toml(config_toml).map_err(js_err)?;
        let params = pairs_from_json(params_json, "workload parameters")?;
        let src = input::open_workload(name, &params).map_err(js_err)?;
        Ok(SimHandle {
            s: Session::new(src, cfg, mode).map_err(js_err)?,
        })
    }

    /// A run of uploaded files: `names[i]` is the (relative) name of `datas[i]` (a Uint8Array).
    #[wasm_bindgen(js_name = fromFiles)]
    pub fn from_files(
        names: Vec<String>,
        datas: js_sys::Array,
        config_toml: &str,
        mode: &str,
    ) -> Result<SimHandle, JsError> {
        let cfg = sconf::from_toml(config_toml).map_err(js_err)?;
        if names.len() as u32 != datas.length() {
            return Err(JsError::new("fromFiles: names and datas differ in length"));
        }
        let files = names
            .into_iter()
            .zip(datas.iter())
            .map(|(n, d)| (n, js_sys::Uint8Array::new(&d).to_vec()))
            .collect();
        let src = input::open_files(files, session::arch_of(&cfg)).map_err(js_err)?;
        Ok(SimHandle {
            s: Session::new(src, cfg, mode).map_err(js_err)?,
        })
    }

    /// A run of a SASS listing (`cuobjdump -sass` text named `listingName`) executed with the
    /// launch spec `specToml` (the CLI's `--launch` file; `crate/src/exec/LAUNCH.md`): every
    /// warp executed functionally, the executed instructions simulated as a trace.
    #[wasm_bindgen(js_name = fromSass)]
    pub fn from_sass(
        listing: &str,
        listing_name: &str,
        spec_toml: &str,
        config_toml: &str,
        mode: &str,
    ) -> Result<SimHandle, JsError> {
        let cfg = sconf::from_toml(config_toml).map_err(js_err)?;
        let src = input::open_sass(
            listing,
            listing_name,
            spec_toml,
            "launch spec",
            session::arch_of(&cfg),
        )
        .map_err(js_err)?;
        Ok(SimHandle {
            s: Session::new(src, cfg, mode).map_err(js_err)?,
        })
    }

    /// Advances by at most `cycles` simulated cycles; returns
    /// `{phase, cycles, ctasDone, ctasTotal, kernelsDone, kernels, done}`.
    #[wasm_bindgen(js_name = runFor)]
    pub fn run_for(&mut self, cycles: f64) -> Result<JsValue, JsError> {
        let p = self.s.run_for(cycles.max(1.0) as u64).map_err(js_err)?;
        to_js(&p)
    }

    /// The trace's metadata: `{name, hash, kernels: [{name, grid, block, ctas}]}`.
    #[wasm_bindgen(js_name = traceInfo)]
    pub fn trace_info(&self) -> Result<JsValue, JsError> {
        to_js(self.s.trace())
    }

    /// Records cycles `from..to` (at most 2000) of SM `sm` for the pipeline and cache views;
    /// call before the first `runFor` (timing modes only).
    pub fn record(&mut self, sm: u32, from: f64, to: f64) -> Result<(), JsError> {
        self.s
            .record(sm, from.max(0.0) as u64, to.max(0.0) as u64)
            .map_err(js_err)
    }

    /// The recorded window as JSON text: `{timeline: {from, to, units, kernels, sms: [{sm,
    /// subcores, frames: [...]}]}, text: [[frame picture, ...] per SM]}`, the text being exactly
    /// what `warpweave run --show-pipeline --color never` prints for each cycle.
    #[wasm_bindgen(js_name = timelineJson)]
    pub fn timeline_json(&self) -> Result<String, JsError> {
        self.s.timeline_json().map_err(js_err)
    }

    /// The finished run as JSON text (the same envelope the JSON export saves).
    #[wasm_bindgen(js_name = resultJson)]
    pub fn result_json(&self) -> Result<String, JsError> {
        self.s.result_json().map(str::to_string).map_err(js_err)
    }
}
