//! The GPU presets, embedded with `include_str!` (the browser has no file system). The files
//! live in `configs/` at the repository root, one per GPU, every key with its unit and source.
//!
//! ```text
//!  load("rtx2080ti")                          -> preset, validated
//!  load("base = \"h100\"\n[gpu]\nnum_sms=4")     -> TOML text over a preset, validated
//!  load("my/gpu.toml")                        -> file (native only: load_path)
//! ```
//! A file or text names its `base` preset or sets every key ([`parse_gpu_file`]).

use super::document::{parse_gpu_file, parse_toml};
use super::overrides::apply_overrides;
use super::schema::GpuConfig;
use crate::{Error, Result};

/// (id, file name, embedded text), in the order `config list` prints them.
const PRESETS: &[(&str, &str, &str)] = &[
    (
        "rtx2080ti",
        "configs/rtx2080ti.toml",
        include_str!("../../../configs/rtx2080ti.toml"),
    ),
    (
        "rtx2070s",
        "configs/rtx2070s.toml",
        include_str!("../../../configs/rtx2070s.toml"),
    ),
    (
        "rtx3060",
        "configs/rtx3060.toml",
        include_str!("../../../configs/rtx3060.toml"),
    ),
    (
        "rtx3090",
        "configs/rtx3090.toml",
        include_str!("../../../configs/rtx3090.toml"),
    ),
    (
        "rtx3080ti",
        "configs/rtx3080ti.toml",
        include_str!("../../../configs/rtx3080ti.toml"),
    ),
    (
        "titanv",
        "configs/titanv.toml",
        include_str!("../../../configs/titanv.toml"),
    ),
    (
        "a100",
        "configs/a100.toml",
        include_str!("../../../configs/a100.toml"),
    ),
    (
        "h100",
        "configs/h100.toml",
        include_str!("../../../configs/h100.toml"),
    ),
    (
        "teaching",
        "configs/teaching.toml",
        include_str!("../../../configs/teaching.toml"),
    ),
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
        .ok_or_else(|| {
            Error::config(
                "--gpu",
                format!(
                    "unknown GPU preset `{id}`; {}valid: {}",
                    crate::error::did_you_mean(id, preset_ids()),
                    preset_ids().join(", ")
                ),
            )
        })
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
        return parse_gpu_file("<config text>", spec, preset_text, true);
    }
    Err(Error::config(
        "--gpu",
        format!(
            "unknown GPU preset `{s}`; {}valid: {}",
            crate::error::did_you_mean(s, preset_ids()),
            preset_ids().join(", ")
        ),
    ))
}

/// A TOML file (native only): a regular file of at most
/// [`MAX_CONFIG_BYTES`](crate::infile::MAX_CONFIG_BYTES), refused before it is read otherwise.
#[cfg(not(target_arch = "wasm32"))]
pub fn load_path(path: &std::path::Path) -> Result<GpuConfig> {
    let text = read_toml(path)?;
    parse_gpu_file(&path.display().to_string(), &text, preset_text, true)
}

/// The text of a GPU TOML file, bounded ([`load_path`]).
#[cfg(not(target_arch = "wasm32"))]
fn read_toml(path: &std::path::Path) -> Result<String> {
    use crate::infile::{read_text_bounded, MAX_CONFIG_BYTES};
    read_text_bounded(path, MAX_CONFIG_BYTES, "GPU TOML")
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

/// [`load`] followed by `key=value` overrides, validated once at the end (so an override may
/// repair a file that is inconsistent on its own).
pub fn load_with_overrides<S: AsRef<str>>(spec: &str, sets: &[S]) -> Result<GpuConfig> {
    let s = spec.trim();
    let mut cfg = if PRESETS.iter().any(|p| p.0 == s) {
        preset(s)?
    } else if s.contains('\n') || s.contains('=') || s.starts_with('[') {
        parse_gpu_file("<config text>", spec, preset_text, false)?
    } else {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let looks_like_path = s.ends_with(".toml") || s.contains('/') || s.contains('\\');
            if !looks_like_path && !std::path::Path::new(s).exists() {
                return Err(Error::config(
                    "--gpu",
                    format!(
                        "unknown GPU preset `{s}`; {}valid: {} (or a path to a .toml file)",
                        crate::error::did_you_mean(s, preset_ids()),
                        preset_ids().join(", ")
                    ),
                ));
            }
            let text = read_toml(std::path::Path::new(s))?;
            parse_gpu_file(s, &text, preset_text, false)?
        }
        #[cfg(target_arch = "wasm32")]
        {
            return load_str(spec);
        }
    };
    apply_overrides(&mut cfg, sets)?;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_id_lists_the_valid_ones() {
        let e = preset("rtx9999").unwrap_err().to_string();
        assert_eq!(
            e,
            "option `--gpu`: unknown GPU preset `rtx9999`; valid: rtx2080ti, rtx2070s, rtx3060, rtx3090, rtx3080ti, titanv, a100, h100, teaching"
        );
        assert!(load_str("rtx9999")
            .unwrap_err()
            .to_string()
            .contains("valid: rtx2080ti"));
    }

    #[test]
    fn load_accepts_ids_text_and_paths() {
        assert_eq!(load("a100").unwrap().gpu.num_sms, 108);
        let c = load("base = \"teaching\"\n[gpu]\nid = \"mine\"\nnum_sms = 4\n").unwrap();
        assert_eq!((c.gpu.id.as_str(), c.gpu.num_sms), ("mine", 4));
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/teaching.toml");
        assert_eq!(load(path.to_str().unwrap()).unwrap().gpu.num_sms, 1);
        let e = load("/nonexistent/gpu.toml").unwrap_err().to_string();
        assert!(e.starts_with("/nonexistent/gpu.toml: "), "{e}");
        // overrides validated once, at the end
        let c = load_with_overrides("rtx2080ti", &["gpu.num_sms=34", "l1d.size_kb=64"]).unwrap();
        assert_eq!((c.gpu.num_sms, c.l1d.cache.size_kb), (34, 64));
        let e = load_with_overrides("rtx9999", &["a=1"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("option `--gpu`: unknown GPU preset `rtx9999`; valid: rtx2080ti,"),
            "{e}"
        );
        let e = load_with_overrides("rtx2080ti", &["l1d.cache.assoc=0"])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "config key `l1d.cache.assoc`: 0 is out of range 1..=1024"
        );
    }

    #[test]
    fn a_gpu_file_names_its_base_preset_or_sets_every_key() {
        // Every preset file sets every key, so `--gpu configs/<id>.toml` reads as the preset.
        for id in preset_ids() {
            let f = parse_gpu_file(id, preset_text(id).unwrap(), preset_text, true).unwrap();
            assert_eq!(f, preset(id).unwrap(), "{id}");
        }
        // An empty file, or one that changes a few keys of nothing, is refused.
        let e = parse_gpu_file("empty.toml", "", preset_text, true)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("empty.toml: base: a GPU file names"), "{e}");
        for text in ["\n# nothing\n[gpu]\n", "[gpu]\nnum_sms = 4\n"] {
            let e = load_str(text).unwrap_err().to_string();
            assert!(
                e.starts_with("<config text>: base: a GPU file names the preset it starts from or sets every key"),
                "{e}"
            );
            assert!(e.contains("keys missing: gpu.id, gpu.name,"), "{e}");
        }
        // A base preset and the keys changed over it.
        let c =
            load("# mine\nbase = \"rtx2080ti\"\n[gpu]\nnum_sms = 34\n[l1d.cache]\nassoc = 64\n")
                .unwrap();
        let mut want = preset("rtx2080ti").unwrap();
        want.gpu.num_sms = 34;
        want.l1d.cache.assoc = 64;
        assert_eq!(c, want);
        assert_eq!(load("base = \"h100\"\n").unwrap(), preset("h100").unwrap());
        // Errors name the file's own line: an unknown base, a base that is no string, a bad key.
        let e = load_str("\nbase = \"rtx9999\"\n").unwrap_err().to_string();
        assert!(
            e.starts_with("<config text>:2: base: unknown GPU preset `rtx9999`; valid: rtx2080ti"),
            "{e}"
        );
        let e = load_str("base = 3\n").unwrap_err().to_string();
        assert!(
            e.starts_with("<config text>:1: base: expected a preset id"),
            "{e}"
        );
        let e = load_str("base = \"h100\"\n[gpu]\nnum_smz = 4\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("<config text>:3: gpu.num_smz: unknown field"),
            "{e}"
        );
        let e = load_str("base = \"h100\"\n[gpu]\n\nnum_sms = 0\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "<config text>:4: gpu.num_sms: 0 is out of range 1..=1024"
        );
        // Overrides still apply after the file, validated once at the end.
        let c = load_with_overrides("base = \"h100\"\n[gpu]\nnum_sms = 0\n", &["gpu.num_sms=7"])
            .unwrap();
        assert_eq!(c.gpu.num_sms, 7);
    }

    /// (id, SMs, sub-cores, core MHz, L1+shared KiB, L2 total KiB, L1 latency, L2 latency, source)
    type Headline = (
        &'static str,
        u32,
        u32,
        f64,
        u32,
        u32,
        u32,
        u32,
        &'static str,
    );
    const HEADLINES: &[Headline] = &[
        (
            "rtx2080ti",
            68,
            4,
            1350.0,
            96,
            5632,
            27,
            163,
            "seed 000 Tables I, II; latencies tuned by `warpweave validate`",
        ),
        (
            "rtx2070s",
            40,
            4,
            1605.0,
            96,
            4096,
            32,
            188,
            "seed 001 Table 1",
        ),
        (
            "rtx3060",
            28,
            4,
            1320.0,
            128,
            3072,
            39,
            187,
            "seed 000 Table I",
        ),
        (
            "rtx3090",
            82,
            4,
            1395.0,
            128,
            6144,
            39,
            187,
            "seed 000 Table I",
        ),
        ("rtx3080ti", 80, 4, 1365.0, 128, 6144, 39, 187, "seed 002"),
        (
            "titanv",
            80,
            4,
            1200.0,
            128,
            4608,
            23,
            168,
            "seed 004 Table 3; latencies tuned by `warpweave validate`",
        ),
        (
            "a100",
            108,
            4,
            1410.0,
            192,
            40960,
            28,
            175,
            "seed 004 sec. 5.4; latencies tuned by `warpweave validate`",
        ),
        (
            "h100",
            132,
            4,
            1980.0,
            256,
            51200,
            27,
            262,
            "H100 whitepaper; latencies fitted to tests/hardware/results/h100.csv",
        ),
        ("teaching", 1, 2, 1000.0, 16, 64, 3, 3, "seed 003"),
    ];

    #[test]
    fn every_preset_loads_and_matches_its_table() {
        assert_eq!(
            preset_ids(),
            HEADLINES.iter().map(|h| h.0).collect::<Vec<_>>()
        );
        for &(id, sms, sub, mhz, unified, l2_kb, l1_lat, l2_lat, src) in HEADLINES {
            let c = preset(id).unwrap();
            c.validate().unwrap();
            assert_eq!(c.gpu.id, id);
            let l2_total = c.l2.partitions * c.l2.subpartitions * c.l2.cache.size_kb;
            let got = (
                c.gpu.num_sms,
                c.sm.subcores,
                c.clocks.core_mhz,
                c.l1d.unified_kb,
                l2_total,
                c.l1d.cache.latency,
                c.l2.cache.latency,
            );
            assert_eq!(
                got,
                (sms, sub, mhz, unified, l2_kb, l1_lat, l2_lat),
                "{id} ({src})"
            );
            // every preset sets every key, each line with its unit and source
            let text = preset_text(id).unwrap();
            let keys = text
                .lines()
                .filter(|l| !l.starts_with('#') && l.contains(" = "))
                .count();
            assert_eq!(keys, crate::config::schema_doc().len(), "{id}");
            assert!(
                text.lines()
                    .filter(|l| !l.starts_with('#') && l.contains(" = "))
                    .all(|l| l.contains(" # ") && l.contains(" | ")),
                "{id}"
            );
        }
    }

    #[test]
    fn paper_details_per_preset() {
        use crate::config::schema::{IndexFn, SchedPolicy, WritePolicy};
        // seed 000 Table II: RTX 2080 Ti
        let c = preset("rtx2080ti").unwrap();
        let l1 = &c.l1d.cache;
        assert_eq!(
            (
                l1.line_bytes,
                l1.sector_bytes,
                l1.mshr_entries,
                l1.mshr_merge,
                c.l1d.banks
            ),
            (128, 32, 256, 8, 4)
        );
        assert!(c.l1d.streaming && l1.write_policy == WritePolicy::WriteThrough);
        let l2 = &c.l2.cache;
        assert_eq!(
            (
                l2.line_bytes,
                l2.sector_bytes,
                l2.mshr_entries,
                l2.mshr_merge
            ),
            (128, 32, 192, 4)
        );
        assert_eq!(
            (l2.write_policy, c.l2.partitions, c.analytic.dram_latency),
            (WritePolicy::WriteBack, 22, 227)
        );
        assert_eq!(
            (
                c.units.int.width,
                c.units.sp.width,
                c.units.sfu.width,
                c.units.mem.width
            ),
            (16, 16, 4, 4)
        );
        // Table II's GTO is the Accel-Sim core's; the preset runs the modern core (CGGTY).
        assert_eq!(
            (c.units.dp.width, c.units.dp.shared, c.scheduler.policy),
            (2, true, SchedPolicy::Cggty)
        );
        assert_eq!(c.core.model, crate::config::CoreModel::Modern);
        // seed 001 Table 1: RTX 2070 SUPER
        let c = preset("rtx2070s").unwrap();
        assert_eq!(
            (c.sm.max_warps, c.sm.registers, c.l2.partitions),
            (32, 65536, 16)
        );
        assert_eq!(
            (
                c.regfile.collector_units,
                c.regfile.ports_per_bank,
                c.frontend.l0i.mshr
            ),
            // Table 1's 2 ports per bank are the Accel-Sim core's; the modern core has 1.
            (2, 1, 1)
        );
        assert_eq!(
            (
                c.units.sp.count,
                c.units.int.count,
                c.units.sfu.count,
                c.units.tensor.count
            ),
            (1, 1, 1, 1)
        );
        // seed 004 Table 3: TITAN V
        let c = preset("titanv").unwrap();
        assert_eq!(c.l1d.shmem_options_kb, vec![0, 8, 16, 32, 64, 96]);
        assert_eq!(
            (c.l1d.cache.size_kb, c.l1d.cache.assoc, c.l2.cache.assoc),
            (32, 4, 32)
        );
        assert_eq!(
            (c.l1d.cache.write_policy, c.l1d.cache.write_allocate),
            (WritePolicy::WriteThrough, true)
        );
        assert_eq!(
            (c.l2.cache.write_policy, c.l2.cache.write_allocate),
            (WritePolicy::WriteBack, true)
        );
        assert_eq!(
            (c.l1d.cache.index, c.gpu.compute_capability),
            (IndexFn::Hash, 70)
        );
        // seed 003: the teaching SM
        let c = preset("teaching").unwrap();
        assert_eq!(
            (
                c.latency.int.latency,
                c.latency.fp32.latency,
                c.analytic.l1_latency,
                c.analytic.dram_latency
            ),
            (2, 3, 3, 3)
        );
        assert_eq!(
            (c.sm.max_warps / c.sm.subcores, c.scheduler.issue_width),
            (4, 1)
        );
    }
}
