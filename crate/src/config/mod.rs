//! GPU configuration: one [`GpuConfig`] value, loaded from a preset TOML (configs/), changed by
//! `--set key=value` overrides, validated once, printed in every result.
//!
//! Every field is plain data. Units are in the field names or their doc comments: `_kb` KiB,
//! `_bytes` bytes, `_mhz` MHz, latencies in cycles of the block's own clock domain.
//!
//! Submodules: `schema` (the structs, with defaults), and (owned by the config work) presets,
//! validation, overrides and the Accel-Sim gpgpusim.config import.

pub mod schema;

pub use schema::*;
