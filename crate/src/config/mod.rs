//! GPU configuration: one [`GpuConfig`] value, loaded from a preset TOML (configs/), changed by
//! `--set key=value` overrides, validated once, printed in every result.
//!
//! Every field is plain data. Units are in the field names or their doc comments: `_kb` KiB,
//! `_bytes` bytes, `_mhz` MHz, latencies in cycles of the block's own clock domain. The key
//! table in [`keys`] gives each key's unit, range and doc, and drives validation, the browser
//! schema and the documented TOML output.
//!
//! ```text
//!   configs/*.toml ──include_str!──> preset(id) ─┐
//!   --gpu path.toml / TOML text ──> load(spec) ──┼──> apply_overrides(--set k=v ...) ──> validate()
//!   gpgpusim.config + trace.config ──> import ───┘         (once, errors name the key)
//! ```
//!
//! Submodules: `schema` (the structs, with defaults), `keys` (the key table), `validate`,
//! `overrides`, `document` (TOML in/out with file:line errors), `presets` (the embedded
//! GPUs) and `accel` (Accel-Sim gpgpusim.config + trace.config import).

pub mod accel;
pub mod document;
pub mod keys;
pub mod overrides;
#[cfg(test)]
mod preset_rows;
#[cfg(test)]
mod preset_specs;
pub mod presets;
pub mod schema;
pub mod validate;

pub use accel::{import_accel_sim, parse_cache_string, AccelCache, ImportResult, ImportWarning};
pub use document::{parse_toml, to_toml_documented, to_toml_with_sources};
pub use keys::{schema_doc, KeyDoc, KeyKind};
pub use overrides::{apply_override, apply_overrides};
#[cfg(not(target_arch = "wasm32"))]
pub use presets::load_path;
pub use presets::{load, load_str, load_with_overrides, preset, preset_ids, preset_text};
pub use schema::*;
pub use validate::cache_sets;

/// Fuzz entry point: parse bytes as a GPU TOML and validate; apply one override when the
/// input has a `#set key=value` first line. Never panics, whatever the input.
pub fn fuzz_config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(mut cfg) = parse_toml("fuzz", text) {
        let _ = to_toml_documented(&cfg);
        if let Some(set) = text.lines().next().and_then(|l| l.strip_prefix("#set ")) {
            let _ = apply_overrides(&mut cfg, &[set]);
        }
    }
    let _ = accel::parse_cache_string(text);
    let _ = accel::import_accel_sim(("fuzz.config", text), ("trace.config", ""));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzz_entry_survives_odd_inputs() {
        for input in [
            &b""[..],
            b"\xff\xfe",
            b"[gpu]\nnum_sms = 99999999999999999999\n",
            b"[l1d]\nshmem_options_kb = [1, \"a\"]\n",
            b"#set l1d.cache.assoc=0\n[gpu]\nnum_sms = 4\n",
            b"[l1d.cache]\nsize_kb = 4294967295\nline_bytes = 0\n",
            b"[l2.cache]\nline_bytes = 128\nsector_bytes = 0\n",
            b"[sm]\nsubcores = 0\nmax_warps = 0\n",
            b"S:0:0:0,L:B:m:L:P,A:0:0,0:0,0",
            b"-gpgpu_cache:dl1 S:99999999999:128:64,L:T:m:L:L,A:256:32,16:0,32\n-gpgpu_n_clusters 0",
            b"-gpgpu_clock_domains \"1:2",
            b"-gpgpu_n_clusters 4000000000\n-gpgpu_n_cores_per_cluster 4000000000\n-gpgpu_compute_capability_major 4294967295\n",
            b"-gpgpu_cache:dl2 S:4294967295:4294967295:4294967295,L:B:m:L:P,A:192:4\n-gpgpu_l2_rop_latency 4294967295\n-dram_latency 4294967295\n",
            b"-gpgpu_shmem_size 4294967295\n-gpgpu_cache:dl1 N:4194303:1024:1,L:T:m:L:L,A:256:32\n",
        ] {
            fuzz_config(input);
        }
    }
}
