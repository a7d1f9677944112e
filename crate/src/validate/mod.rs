//! Validation suite (`warpweave validate`): microbenchmarks as the GPU microbenchmarking papers
//! run them, simulated on a preset, next to the figure published for that GPU.
//!
//! ```text
//!  preset ──> for each metric: workload (chain / mem_chase / stream_load)
//!               short run ──┐
//!               long run  ──┴─> difference ─> latency | ops/cycle/SM | bytes/cycle | GB/s
//!         ──> Row { metric, unit, simulated, published (value, board, citation), error % }
//!
//!  L2 step (slow, `--metrics l2_step_kb`): 512-chain chase, -dlcm=cg
//!   cycles/load  DRAM ........................ ___________
//!                                           _/
//!                mid  - - - - - - - - - - -/  <- bisected footprint (2%)
//!                L2  _____________________/
//!                    L2/2                  L2            2 x L2    footprint
//! ```
//! Sources: Jia et al. 2018 (Volta) and 2019 (Turing T4) for pointer-chase and dependent-chain
//! latencies and L1 throughput, Abdelkhalik et al. 2022 for the A100, the CUDA programming
//! guide for per-SM throughput and the shared-memory bank rule, vendor L2 sizes and DRAM
//! bandwidth (`published.rs` holds every figure, its citation and how it was checked). Rows
//! without a published figure are printed with the simulated value alone. The h100 rows are
//! vendor figures only: the preset is calibrated from published figures, not from our own
//! measurements (`tests/hardware/run.sh` collects those once a GPU is lent).

#[cfg(not(target_arch = "wasm32"))]
pub mod hardware;
pub mod held_out;
pub mod measure;
#[cfg(not(target_arch = "wasm32"))]
pub mod probes;
pub mod published;
#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::config::{self, GpuConfig};
use crate::Result;
pub use published::{lookup, Published, PUBLISHED};

/// Rows within this relative error of the published figure pass (`validate` test).
pub const TOLERANCE_PCT: f64 = 5.0;

/// One metric of the suite.
#[derive(Clone, Copy, Debug)]
pub struct Metric {
    pub id: &'static str,
    pub name: &'static str,
    pub unit: &'static str,
    /// How it is measured (printed by `validate --list` and in the docs).
    pub how: &'static str,
    /// Runs only when named (`--metrics`): it simulates many passes over the whole L2.
    pub slow: bool,
}

const fn m(id: &'static str, name: &'static str, unit: &'static str, how: &'static str) -> Metric {
    Metric {
        id,
        name,
        unit,
        how,
        slow: false,
    }
}

/// Every metric, in print order.
pub static METRICS: [Metric; 21] = [
    m(
        "lat_l1",
        "L1 hit latency",
        "cycles",
        "pointer chase, stride 128 B, 4 KiB footprint re-read",
    ),
    m(
        "lat_l2",
        "L2 hit latency",
        "cycles",
        "pointer chase over new lines of warm (copied) data",
    ),
    m(
        "lat_dram",
        "DRAM latency",
        "cycles",
        "pointer chase over new lines of cold data, stride 512 B",
    ),
    m(
        "l1_plateau_kb",
        "largest footprint at the L1 plateau",
        "KiB",
        "pointer chase re-reads, footprints doubling from 16 KiB",
    ),
    Metric {
        slow: true,
        ..m(
            "l2_step_kb",
            "footprint of the L2 -> DRAM latency step",
            "KiB",
            "512-chain pointer chase (16 CTAs x 32 lanes, -dlcm=cg), plateaus at 1/2 and 2x the \
             preset's L2, step bisected to 2% (named with --metrics only: slow)",
        )
    },
    m(
        "lat_shmem",
        "shared memory latency",
        "cycles",
        "LDS pointer chase",
    ),
    m(
        "lat_ffma",
        "FFMA dependent latency",
        "cycles",
        "chain of dependent FFMA",
    ),
    m(
        "lat_fadd",
        "FADD dependent latency",
        "cycles",
        "chain of dependent FADD",
    ),
    m(
        "lat_iadd3",
        "IADD3 dependent latency",
        "cycles",
        "chain of dependent IADD3",
    ),
    m(
        "lat_imad",
        "IMAD dependent latency",
        "cycles",
        "chain of dependent IMAD",
    ),
    m(
        "lat_dfma",
        "DFMA dependent latency",
        "cycles",
        "chain of dependent DFMA",
    ),
    m(
        "lat_mufu",
        "MUFU (SFU) dependent latency",
        "cycles",
        "chain of dependent MUFU.EX2",
    ),
    m(
        "lat_hmma",
        "HMMA (tensor) dependent latency",
        "cycles",
        "chain of dependent HMMA",
    ),
    m(
        "tput_fp32",
        "FP32 FFMA throughput",
        "ops/cycle/SM",
        "8 warps x 8 independent FFMA chains",
    ),
    m(
        "tput_fadd",
        "FP32 FADD throughput",
        "ops/cycle/SM",
        "8 warps x 8 independent FADD chains",
    ),
    m(
        "tput_int",
        "INT32 IADD3 throughput",
        "ops/cycle/SM",
        "8 warps x 8 independent IADD3 chains",
    ),
    m(
        "tput_fp64",
        "FP64 DFMA throughput",
        "ops/cycle/SM",
        "8 warps x 8 independent DFMA chains",
    ),
    m(
        "tput_sfu",
        "SFU MUFU throughput",
        "ops/cycle/SM",
        "8 warps x 8 independent MUFU chains",
    ),
    m(
        "shmem_conflict",
        "shared-memory cost per extra conflict way",
        "cycles",
        "LDS word stride 1 vs 8 (8-way), 8 warps x 8 chains (shared memory the bottleneck)",
    ),
    m(
        "bw_l1",
        "L1 load bandwidth",
        "bytes/cycle/SM",
        "one CTA of 8 warps re-reading 16 KiB with LDG.128 (4 against 12 passes: steady state)",
    ),
    m(
        "bw_l2",
        "L2 load bandwidth (all SMs)",
        "bytes/cycle",
        "one CTA per SM, every LDG.128 new, warm data",
    ),
];

/// DRAM bandwidth rows: GB/s at the preset's core clock, and the same as a percentage of the
/// preset's theoretical peak (partitions x bus bytes x transfers per clock x DRAM clock).
pub static DRAM_BW: [Metric; 2] = [
    m(
        "bw_dram",
        "DRAM bandwidth",
        "GB/s",
        "one CTA per SM, every LDG.128 new, cold data; bytes / (cycles / core clock)",
    ),
    m(
        "bw_dram_eff",
        "DRAM bandwidth, % of theoretical peak",
        "%",
        "bw_dram / (partitions x bus width x data rate x DRAM clock)",
    ),
];

/// Every metric of the suite, in print order.
pub fn all_metrics() -> impl Iterator<Item = &'static Metric> {
    METRICS.iter().chain(DRAM_BW.iter())
}

/// The preset's theoretical DRAM bandwidth in GB/s.
pub fn dram_peak_gbs(cfg: &GpuConfig) -> f64 {
    cfg.l2.partitions as f64
        * cfg.dram.bus_width_bytes as f64
        * cfg.dram.data_rate as f64
        * cfg.clocks.dram_mhz
        * 1e6
        / 1e9
}

/// One line of the report.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub gpu: String,
    pub metric: &'static str,
    pub name: &'static str,
    pub unit: &'static str,
    pub simulated: f64,
    pub published: Option<f64>,
    pub measured_on: Option<&'static str>,
    pub source: Option<&'static str>,
    pub checked: Option<&'static str>,
    /// `100 * (simulated - published) / published`.
    pub error_pct: Option<f64>,
}

impl Row {
    fn new(gpu: &str, metric: &Metric, simulated: f64) -> Row {
        let p = lookup(gpu, metric.id);
        Row {
            gpu: gpu.to_string(),
            metric: metric.id,
            name: metric.name,
            unit: metric.unit,
            simulated,
            published: p.map(|p| p.value),
            measured_on: p.map(|p| p.measured_on),
            source: p.map(|p| p.source),
            checked: p.map(|p| p.checked),
            error_pct: p.map(|p| 100.0 * (simulated - p.value) / p.value),
        }
    }
    /// Within [`TOLERANCE_PCT`] (rows without a published figure always pass).
    pub fn passes(&self) -> bool {
        self.error_pct.is_none_or(|e| e.abs() <= TOLERANCE_PCT)
    }
}

/// Which metrics to run: all, or only those with a published figure for the preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    All,
    Published,
}

/// Runs the suite on preset `gpu` (an id) and returns one row per metric.
pub fn run_preset(gpu: &str, scope: Scope) -> Result<Vec<Row>> {
    let cfg = config::preset(gpu)?;
    run(&cfg, scope, &[])
}

/// Measures `metric` on `cfg`.
pub fn measure(cfg: &GpuConfig, id: &str) -> Result<f64> {
    use measure::*;
    let sms = cfg.gpu.num_sms as u64;
    Ok(match id {
        "lat_l1" => chase_latency(cfg, true, 128, Some(4096))?,
        "lat_l2" => chase_latency(cfg, true, 128, None)?,
        "lat_dram" => chase_latency(cfg, false, 512, None)?,
        "l1_plateau_kb" => l1_plateau_kb(cfg)?,
        "l2_step_kb" => l2_step_kb(cfg, l2_total_kb(cfg), StepChase::SUITE)?,
        "lat_shmem" => shmem_latency(cfg)?,
        "lat_ffma" => chain_latency(cfg, "ffma")?,
        "lat_fadd" => chain_latency(cfg, "fadd")?,
        "lat_iadd3" => chain_latency(cfg, "iadd3")?,
        "lat_imad" => chain_latency(cfg, "imad")?,
        "lat_dfma" => chain_latency(cfg, "dfma")?,
        "lat_mufu" => chain_latency(cfg, "mufu")?,
        "lat_hmma" => chain_latency(cfg, "hmma")?,
        "tput_fp32" => chain_throughput(cfg, "ffma", 16)?,
        "tput_fadd" => chain_throughput(cfg, "fadd", 16)?,
        "tput_int" => chain_throughput(cfg, "iadd3", 16)?,
        "tput_fp64" => chain_throughput(cfg, "dfma", 4)?,
        "tput_sfu" => chain_throughput(cfg, "mufu", 8)?,
        "shmem_conflict" => (bank_access_cycles(cfg, 8)? - bank_access_cycles(cfg, 1)?) / 7.0,
        "bw_l1" => stream_bandwidth(cfg, 1, true, true, 8, (4, 12))?,
        "bw_l2" => stream_bandwidth(cfg, sms, false, true, 4, (1, 3))?,
        "bw_dram" => {
            let bpc = stream_bandwidth(cfg, sms, false, false, 2, (2, 4))?;
            bpc * cfg.clocks.core_mhz * 1e6 / 1e9
        }
        "bw_dram_eff" => 100.0 * measure(cfg, "bw_dram")? / dram_peak_gbs(cfg),
        _ => {
            return Err(crate::Error::other(format!(
                "validate: unknown metric `{id}`"
            )))
        }
    })
}

/// The largest footprint (KiB, doubling from 16) whose re-reads stay at the L1 plateau (under
/// the midpoint between the L1 and L2 latencies).
fn l1_plateau_kb(cfg: &GpuConfig) -> Result<f64> {
    let l1 = measure::chase_latency(cfg, true, 128, Some(4096))?;
    let l2 = measure::chase_latency(cfg, true, 128, None)?;
    let mid = (l1 + l2) / 2.0;
    let mut last = 0.0;
    let mut kb = 16u64;
    while kb <= 1024 {
        let lat = measure::chase_latency(cfg, true, 128, Some(kb * 1024))?;
        if lat > mid {
            break;
        }
        last = kb as f64;
        kb *= 2;
    }
    Ok(last)
}

/// Runs the suite on `cfg`: every metric in `scope`, or only those named in `only` (ids;
/// an unknown id is an error naming the known ones).
pub fn run(cfg: &GpuConfig, scope: Scope, only: &[&str]) -> Result<Vec<Row>> {
    run_with(cfg, scope, only, &mut |_| {})
}

/// The metrics [`run`] measures on `cfg`, in order (an unknown id in `only` is left out here
/// and refused by `run`).
pub fn planned(cfg: &GpuConfig, scope: Scope, only: &[&str]) -> Vec<&'static str> {
    let gpu = cfg.gpu.id.as_str();
    all_metrics()
        .filter(|m| !(scope == Scope::Published && lookup(gpu, m.id).is_none()))
        .filter(|m| only.is_empty() || only.contains(&m.id))
        .filter(|m| !m.slow || only.contains(&m.id))
        .map(|m| m.id)
        .collect()
}

/// [`run`], calling `done` with each metric's id once it is measured (for progress).
pub fn run_with(
    cfg: &GpuConfig,
    scope: Scope,
    only: &[&str],
    done: &mut dyn FnMut(&str),
) -> Result<Vec<Row>> {
    for id in only {
        if !all_metrics().any(|m| m.id == *id) {
            let known: Vec<&str> = all_metrics().map(|m| m.id).collect();
            return Err(crate::Error::config(
                "--metrics",
                format!(
                    "unknown metric `{id}`; {}known: {}",
                    crate::error::did_you_mean(id, known.iter().copied()),
                    known.join(", ")
                ),
            ));
        }
    }
    let gpu = cfg.gpu.id.as_str();
    let mut rows = Vec::new();
    let mut dram_gbs = None;
    for id in planned(cfg, scope, only) {
        let Some(metric) = all_metrics().find(|m| m.id == id) else {
            continue;
        };
        let v = match (metric.id, dram_gbs) {
            ("bw_dram_eff", Some(gbs)) => 100.0 * gbs / dram_peak_gbs(cfg),
            _ => measure(cfg, metric.id)
                .map_err(|e| crate::Error::other(format!("validate {gpu} {}: {e}", metric.id)))?,
        };
        if metric.id == "bw_dram" {
            dram_gbs = Some(v);
        }
        rows.push(Row::new(gpu, metric, v));
        done(metric.id);
    }
    Ok(rows)
}

fn fmt_num(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn opt_num(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), fmt_num)
}

/// A plain-text table, then the citations numbered as the rows refer to them.
pub fn table_text(rows: &[Row]) -> String {
    use std::fmt::Write;
    let mut sources: Vec<&str> = Vec::new();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<10} {:<44} {:<15} {:>10} {:>10} {:>8}  {:<12} src",
        "gpu", "metric", "unit", "simulated", "published", "error%", "measured on"
    );
    for r in rows {
        let src = match r.source {
            Some(s) => {
                let i = sources.iter().position(|x| *x == s).unwrap_or_else(|| {
                    sources.push(s);
                    sources.len() - 1
                });
                format!("[{}]", i + 1)
            }
            None => "-".to_string(),
        };
        let err = r
            .error_pct
            .map_or_else(|| "-".to_string(), |e| format!("{e:+.1}"));
        let _ = writeln!(
            out,
            "{:<10} {:<44} {:<15} {:>10} {:>10} {:>8}  {:<12} {}",
            r.gpu,
            r.name,
            r.unit,
            fmt_num(r.simulated),
            opt_num(r.published),
            err,
            r.measured_on.unwrap_or("-"),
            src
        );
    }
    for (i, s) in sources.iter().enumerate() {
        let _ = writeln!(out, "[{}] {}", i + 1, s);
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// CSV with a header line; empty cells where no figure is published.
pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "gpu,metric,name,unit,simulated,published,error_pct,measured_on,checked,source\n",
    );
    for r in rows {
        let cells = [
            r.gpu.clone(),
            r.metric.to_string(),
            r.name.to_string(),
            r.unit.to_string(),
            format!("{}", r.simulated),
            r.published.map_or(String::new(), |v| format!("{v}")),
            r.error_pct.map_or(String::new(), |v| format!("{v:.3}")),
            r.measured_on.unwrap_or("").to_string(),
            r.checked.unwrap_or("").to_string(),
            r.source.unwrap_or("").to_string(),
        ];
        let line: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// The presets the suite has published figures for.
pub fn validated_presets() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for p in PUBLISHED.iter() {
        if !v.contains(&p.gpu) {
            v.push(p.gpu);
        }
    }
    v
}
