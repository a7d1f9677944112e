//! The GPU presets, embedded with `include_str!` (the browser has no file system). The files
//! live in `configs/` at the repository root, one per GPU, every key with its unit and source.
//!
//! ```text
//!  load("rtx2080ti")        -> preset, validated
//!  load("[gpu]\nnum_sms=4") -> TOML text, validated (missing keys take the defaults)
//!  load("my/gpu.toml")      -> file (native only: load_path)
//! ```

use super::document::parse_toml;
use super::schema::GpuConfig;
use crate::{Error, Result};

/// (id, file name, embedded text), in the order `config list` prints them.
const PRESETS: &[(&str, &str, &str)] = &[
    ("rtx2080ti", "configs/rtx2080ti.toml", include_str!("../../../configs/rtx2080ti.toml")),
    ("rtx2070s", "configs/rtx2070s.toml", include_str!("../../../configs/rtx2070s.toml")),
    ("rtx3060", "configs/rtx3060.toml", include_str!("../../../configs/rtx3060.toml")),
    ("rtx3090", "configs/rtx3090.toml", include_str!("../../../configs/rtx3090.toml")),
    ("rtx3080ti", "configs/rtx3080ti.toml", include_str!("../../../configs/rtx3080ti.toml")),
    ("titanv", "configs/titanv.toml", include_str!("../../../configs/titanv.toml")),
    ("a100", "configs/a100.toml", include_str!("../../../configs/a100.toml")),
    ("h100", "configs/h100.toml", include_str!("../../../configs/h100.toml")),
    ("teaching", "configs/teaching.toml", include_str!("../../../configs/teaching.toml")),
];

/// Ids of every preset (`rtx2080ti`, `a100`, `teaching`, ...).
pub fn preset_ids() -> Vec<&'static str> {
    PRESETS.iter().map(|p| p.0).collect()
}

/// The TOML text of a preset, as shipped.
pub fn preset_text(id: &str) -> Result<&'static str> {
    PRESETS
        .iter()
        .find(|p| p.0 == id)
        .map(|p| p.2)
        .ok_or_else(|| Error::config("gpu", format!("unknown GPU preset `{id}`; valid: {}", preset_ids().join(", "))))
}

/// A preset by id, parsed and validated.
pub fn preset(id: &str) -> Result<GpuConfig> {
    let text = preset_text(id)?;
    let file = PRESETS.iter().find(|p| p.0 == id).map_or("preset", |p| p.1);
    parse_toml(file, text)
}

/// A preset id or TOML text. (A file path needs [`load_path`] / [`load`] on native targets.)
pub fn load_str(spec: &str) -> Result<GpuConfig> {
    let s = spec.trim();
    if PRESETS.iter().any(|p| p.0 == s) {
        return preset(s);
    }
    if s.contains('\n') || s.contains('=') || s.starts_with('[') {
        return parse_toml("<config text>", spec);
    }
    Err(Error::config("gpu", format!("unknown GPU preset `{s}`; valid: {}", preset_ids().join(", "))))
}

/// A TOML file (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn load_path(path: &std::path::Path) -> Result<GpuConfig> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    parse_toml(&path.display().to_string(), &text)
}

/// What `--gpu` accepts: a preset id, a path to a TOML file (native), or TOML text.
pub fn load(spec: &str) -> Result<GpuConfig> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let s = spec.trim();
        let looks_like_path = s.ends_with(".toml") || s.contains('/') || s.contains('\\');
        if !PRESETS.iter().any(|p| p.0 == s) && looks_like_path && !s.contains('\n') {
            return load_path(std::path::Path::new(s));
        }
    }
    load_str(spec)
}
