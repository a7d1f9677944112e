//! The functional pre-pass of the analytical memory model (seed 000 section III-D2: per-PC hit
//! rates from a functional cache simulation), computed once per (trace, cache-relevant config)
//! and reused by every run and mode that needs it.
//!
//! ```text
//!  key = FNV-64( PREPASS_VERSION, trace hash, JSON of [gpu] [sm] [l1d] [shmem]
//!                [const_cache] [l2] )          (everything mem::functional reads)
//!  PrepassCache::get(key) ──hit──> Arc<Prepass>
//!        │ miss
//!        ├─ file cache (native, optional): DIR/prepass-<key>.json
//!        └─ mem::functional::run_with(full = false) ──> per-PC rates + totals ──> stored
//! ```
//! A config change in any of those sections gives another key, so a stale entry is never
//! used; a change elsewhere (latencies, scheduler, NoC, DRAM) keeps the entry, since the
//! functional pass does not read them. The file is JSON and carries its key (the checksum of
//! its inputs) and a checksum of its whole content, so a renamed, corrupt or edited file (even
//! one whose rates are all in range) is refused and recomputed, never trusted.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::PcRates;
use crate::config::GpuConfig;
use crate::mem::functional::{self, FunctionalReport};
use crate::trace::{Fnv64, TraceSource};
use crate::Result;

/// Bumped whenever the functional pass or this file's format changes meaning.
pub const PREPASS_VERSION: u64 = 3;

/// What a timing mode with an analytical memory path needs from the functional pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prepass {
    pub key: String,
    pub rates: Vec<PcRates>,
    pub l1_hit_rate: f64,
    pub l2_hit_rate: f64,
    pub dram_sectors: u64,
    /// DRAM sectors read and written (L2 write-backs) by the whole trace.
    pub dram_read_sectors: u64,
    pub dram_write_sectors: u64,
    /// FNV-64 of this pre-pass as JSON with this field empty ([`Prepass::content_sum`]).
    pub checksum: String,
}

impl Prepass {
    /// Runs the functional pass over `src` (without the reuse profiles and shared-memory
    /// counts, which it does not need) and keeps what the timing modes read.
    pub fn compute(key: u64, cfg: &GpuConfig, src: &mut dyn TraceSource) -> Result<Self> {
        Ok(Self::from_report(
            key,
            &functional::run_with(cfg, src, false)?,
        ))
    }

    pub fn from_report(key: u64, rep: &FunctionalReport) -> Self {
        let (l1, l2, d) = totals(rep);
        let reads = rep.kernels.iter().map(|k| k.dram_read_sectors).sum();
        let writes = rep.kernels.iter().map(|k| k.dram_write_sectors).sum();
        let mut p = Prepass {
            key: key_hex(key),
            rates: pc_rates(rep),
            l1_hit_rate: l1,
            l2_hit_rate: l2,
            dram_sectors: d,
            dram_read_sectors: reads,
            dram_write_sectors: writes,
            checksum: String::new(),
        };
        p.checksum = p.content_sum();
        p
    }

    /// The checksum of everything but `checksum`: FNV-64 of the JSON with that field empty
    /// (floats are written so that they read back to the same bits).
    pub fn content_sum(&self) -> String {
        let mut bare = self.clone();
        bare.checksum.clear();
        let mut h = Fnv64::new();
        h.write(serde_json::to_string(&bare).unwrap_or_default().as_bytes());
        key_hex(h.finish())
    }
}

fn key_hex(k: u64) -> String {
    format!("{k:016x}")
}

/// The cache key of a trace (by its content hash) under a config.
pub fn key(trace_hash: &str, cfg: &GpuConfig) -> u64 {
    let mut h = Fnv64::new();
    h.write_u64(PREPASS_VERSION);
    h.write(trace_hash.as_bytes());
    h.write(&[0]);
    // Every section mem::functional (cache geometry, carve-out, occupancy, address map, opcode
    // classes) reads. serde_json writes struct fields in declaration order: deterministic.
    let parts = [
        serde_json::to_string(&cfg.gpu),
        serde_json::to_string(&cfg.sm),
        serde_json::to_string(&cfg.l1d),
        serde_json::to_string(&cfg.shmem),
        serde_json::to_string(&cfg.const_cache),
        serde_json::to_string(&cfg.l2),
    ];
    for p in parts {
        h.write(p.unwrap_or_default().as_bytes());
        h.write(&[0]);
    }
    h.finish()
}

/// Per-PC hit rates of a functional pass, merged over kernels by PC.
pub fn pc_rates(rep: &FunctionalReport) -> Vec<PcRates> {
    let mut acc: BTreeMap<u32, (u64, u64, u64, u64)> = BTreeMap::new();
    for k in &rep.kernels {
        for p in &k.per_pc {
            let e = acc.entry(p.pc).or_default();
            e.0 += p.requests;
            e.1 += p.l1_hits;
            e.2 += p.l2_hits;
            e.3 += p.dram;
        }
    }
    let r = |a: u64, b: u64| if b == 0 { 1.0 } else { a as f64 / b as f64 };
    acc.into_iter()
        .filter(|(_, v)| v.0 > 0)
        .map(|(pc, (n, l1, l2, d))| PcRates {
            pc,
            l1_hit_rate: r(l1, n),
            l2_hit_rate: r(l2, l2 + d),
        })
        .collect()
}

/// Totals of a functional pass: (L1 hit rate, L2 hit rate, DRAM sectors).
pub fn totals(rep: &FunctionalReport) -> (f64, f64, u64) {
    let (mut a1, mut h1, mut a2, mut h2, mut d) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for k in &rep.kernels {
        a1 += k.l1.accesses;
        h1 += k.l1.hits;
        a2 += k.l2.accesses;
        h2 += k.l2.hits;
        d += k.dram_read_sectors + k.dram_write_sectors;
    }
    let r = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    (r(h1, a1), r(h2, a2), d)
}

/// The largest pre-pass file read: one line of rates per memory PC of the trace, far below
/// this for any real one.
#[cfg(not(target_arch = "wasm32"))]
const MAX_FILE_BYTES: u64 = 256 << 20;

/// Where a pre-pass came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Computed,
    Memory,
    File,
}

/// Pre-passes by key: in memory for one process (`compare` runs several modes over one
/// trace), optionally backed by a folder of JSON files (native CLI only).
#[derive(Debug, Default)]
pub struct PrepassCache {
    mem: BTreeMap<u64, Arc<Prepass>>,
    /// Folder of `prepass-<key>.json` files.
    pub dir: Option<std::path::PathBuf>,
    /// Functional passes actually run (for tests and reports).
    pub computed: u64,
}

impl PrepassCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// With a file cache under `dir` (created on first store).
    pub fn with_dir(dir: impl Into<std::path::PathBuf>) -> Self {
        PrepassCache {
            dir: Some(dir.into()),
            ..Self::default()
        }
    }

    /// The pre-pass of the trace `open` gives under `cfg`: from memory, from the file cache, or
    /// computed (and stored in both).
    pub fn get(
        &mut self,
        cfg: &GpuConfig,
        open: &mut dyn FnMut() -> Result<Box<dyn TraceSource + Send>>,
    ) -> Result<(Arc<Prepass>, Origin)> {
        let mut src = open()?;
        let k = key(&src.trace_hash(), cfg);
        if let Some(p) = self.mem.get(&k) {
            return Ok((p.clone(), Origin::Memory));
        }
        if let Some(p) = self.load(k) {
            let p = Arc::new(p);
            self.mem.insert(k, p.clone());
            return Ok((p, Origin::File));
        }
        let p = Arc::new(Prepass::compute(k, cfg, &mut *src)?);
        self.computed += 1;
        self.store(&p);
        self.mem.insert(k, p.clone());
        Ok((p, Origin::Computed))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn path(&self, k: u64) -> Option<std::path::PathBuf> {
        self.dir
            .as_ref()
            .map(|d| d.join(format!("prepass-{}.json", key_hex(k))))
    }

    /// A stored pre-pass with the right key and an intact checksum, or None (missing,
    /// unreadable, oversized, edited, or not ours).
    #[cfg(not(target_arch = "wasm32"))]
    fn load(&self, k: u64) -> Option<Prepass> {
        let text =
            crate::infile::read_text_bounded(&self.path(k)?, MAX_FILE_BYTES, "pre-pass").ok()?;
        let p: Prepass = serde_json::from_str(&text).ok()?;
        (p.key == key_hex(k) && p.checksum == p.content_sum()).then_some(p)
    }
    #[cfg(target_arch = "wasm32")]
    fn load(&self, _k: u64) -> Option<Prepass> {
        None
    }

    /// Best effort: a cache that cannot be written only costs the next run the pre-pass.
    #[cfg(not(target_arch = "wasm32"))]
    fn store(&self, p: &Prepass) {
        let Some(dir) = &self.dir else { return };
        let Ok(k) = u64::from_str_radix(&p.key, 16) else {
            return;
        };
        let Some(path) = self.path(k) else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        if let Ok(text) = serde_json::to_string(p) {
            // Write then rename, so a reader never sees half a file.
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, &path).is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
        }
    }
    #[cfg(target_arch = "wasm32")]
    fn store(&self, _p: &Prepass) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{generate, Params};

    fn open_vecadd() -> impl FnMut() -> Result<Box<dyn TraceSource + Send>> {
        let t = generate("vecadd", &Params::new()).unwrap();
        move || Ok(Box::new(t.clone()) as Box<dyn TraceSource + Send>)
    }

    #[test]
    fn computed_once_per_trace_and_cache_config() {
        let mut cfg = GpuConfig::default();
        cfg.gpu.num_sms = 2;
        let mut cache = PrepassCache::new();
        let mut open = open_vecadd();
        let (a, o1) = cache.get(&cfg, &mut open).unwrap();
        let (b, o2) = cache.get(&cfg, &mut open).unwrap();
        assert_eq!((o1, o2), (Origin::Computed, Origin::Memory));
        assert!(Arc::ptr_eq(&a, &b));
        // A latency or DRAM change does not touch the functional pass: same entry.
        let mut lat = cfg.clone();
        lat.analytic.dram_latency += 100;
        lat.dram.timing.t_cl += 3;
        assert_eq!(cache.get(&lat, &mut open).unwrap().1, Origin::Memory);
        assert_eq!(cache.computed, 1);
        // A cache geometry change is another key, and its rates are those of a fresh pass.
        let mut small = cfg.clone();
        small.l2.cache.size_kb /= 4;
        small.l1d.cache.assoc *= 2;
        assert_ne!(key("h", &small), key("h", &cfg));
        let (c, o3) = cache.get(&small, &mut open).unwrap();
        assert_eq!(o3, Origin::Computed);
        let fresh = functional::run(&small, &mut *open().unwrap()).unwrap();
        assert_eq!(c.rates, pc_rates(&fresh));
        assert_eq!(cache.computed, 2);
        // The lighter pre-pass (no SDCM, no shared counts) gives the same hit counts as the full functional mode.
        let full = functional::run(&cfg, &mut *open().unwrap()).unwrap();
        assert_eq!(a.rates, pc_rates(&full));
        assert_eq!(
            (a.l1_hit_rate, a.l2_hit_rate, a.dram_sectors),
            totals(&full)
        );
    }

    #[test]
    fn file_cache_round_trip_and_refuses_foreign_files() {
        let dir = std::env::temp_dir().join(format!("ww-prepass-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut cfg = GpuConfig::default();
        cfg.gpu.num_sms = 2;
        let mut open = open_vecadd();
        let (a, o) = PrepassCache::with_dir(&dir).get(&cfg, &mut open).unwrap();
        assert_eq!(o, Origin::Computed);
        // A second process finds the file.
        let mut second = PrepassCache::with_dir(&dir);
        let (b, o) = second.get(&cfg, &mut open).unwrap();
        assert_eq!((o, second.computed), (Origin::File, 0));
        assert_eq!(*a, *b);
        // A file whose key does not match its name is not trusted; nor is a corrupt one.
        let path = dir.join(format!("prepass-{}.json", a.key));
        let mut other = (*a).clone();
        other.key = "0000000000000000".into();
        other.rates.clear();
        std::fs::write(&path, serde_json::to_string(&other).unwrap()).unwrap();
        let mut third = PrepassCache::with_dir(&dir);
        let (c, o) = third.get(&cfg, &mut open).unwrap();
        assert_eq!((o, c.rates.clone()), (Origin::Computed, a.rates.clone()));
        std::fs::write(&path, "{ not json").unwrap();
        let (_, o) = PrepassCache::with_dir(&dir).get(&cfg, &mut open).unwrap();
        assert_eq!(o, Origin::Computed);
        // An edited file whose values are all in range: its checksum no longer matches.
        let mut edited = (*a).clone();
        edited.l1_hit_rate = (edited.l1_hit_rate + 0.25).min(1.0) / 2.0;
        if let Some(r) = edited.rates.first_mut() {
            r.l2_hit_rate = 1.0 - r.l2_hit_rate;
        }
        assert_ne!(edited, *a);
        std::fs::write(&path, serde_json::to_string(&edited).unwrap()).unwrap();
        let (e, o) = PrepassCache::with_dir(&dir).get(&cfg, &mut open).unwrap();
        assert_eq!((o, &*e), (Origin::Computed, &*a));
        // ... also with its checksum recomputed, but the key of other inputs.
        edited.key = "0123456789abcdef".into();
        edited.checksum = edited.content_sum();
        std::fs::write(&path, serde_json::to_string(&edited).unwrap()).unwrap();
        let (_, o) = PrepassCache::with_dir(&dir).get(&cfg, &mut open).unwrap();
        assert_eq!(o, Origin::Computed);
        // The file rewritten by the last computation is used as is.
        let (_, o) = PrepassCache::with_dir(&dir).get(&cfg, &mut open).unwrap();
        assert_eq!(o, Origin::File);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
