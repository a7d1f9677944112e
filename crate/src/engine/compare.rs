//! `compare` (issue 5): the same trace under several modes, side by side, with each mode's
//! error against `cycle`. Library part (no clocks, no files) so the browser can reuse it; the
//! caller measures wall time.
//!
//! ```text
//!  mode cycle  ──Simulator (all modules ticked)──────────────────────────┐
//!  mode hybrid ──Simulator (analytical ALU twin)─────────────────────────┤
//!  mode fast   ──PrepassCache (functional pre-pass, once per trace hash + cache config)
//!                 ─> per-PC hit rates ─> Simulator(analytical ALU + Equation 1 memory with
//!                 bandwidth queues and MSHR merging, seed 000) ──────────┤─> rows ─> table/CSV
//!  mode memory ──mem::functional::run (caches only, no cycles) ──────────┘
//! ```
//! [`run_mode_cached`] shares one pre-pass between every mode and run that needs it; the CLI
//! times it apart (`prepass_s`) so `wall_s` is the simulation alone.

use std::fmt::Write;

use serde::Serialize;

use std::sync::Arc;

use super::{Mode, ModelChoice, ModuleModel, SimResult, Simulator};
use crate::analytic::{PcRates, Prepass, PrepassCache};
use crate::config::GpuConfig;
use crate::core::mem_port::SmMem;
use crate::mem::functional;
use crate::trace::TraceSource;
use crate::Result;

/// One mode's outcome on one trace and GPU.
#[derive(Clone, Debug, Serialize)]
pub struct CompareRow {
    pub trace: String,
    pub gpu: String,
    pub mode: String,
    /// The model of each module (`ModelChoice::describe`), or `functional caches only`.
    pub models: String,
    /// None for `memory` (no timing).
    pub cycles: Option<u64>,
    pub ipc: Option<f64>,
    pub warp_insts: u64,
    pub l1_hit_rate: Option<f64>,
    pub l2_hit_rate: Option<f64>,
    /// DRAM sectors read + written, in every mode (the cycle memory system's DRAM bytes over
    /// the L2 sector size; the functional pass's and `fast`'s sector counts), so the column
    /// compares across modes.
    pub dram_sectors: Option<u64>,
    /// |cycles - cycles(cycle)| / cycles(cycle), percent.
    pub cycle_error_pct: Option<f64>,
    /// Wall time of the simulation itself (a pre-pass the caller timed apart excluded).
    pub wall_s: f64,
    /// Wall time of the functional pre-pass this row needed, when the caller ran it apart
    /// (0 when it came from the cache; None: no pre-pass, or not measured apart).
    pub prepass_s: Option<f64>,
    pub warp_insts_per_s: f64,
    /// wall(cycle) / wall(this).
    pub speedup: Option<f64>,
    /// The run's warnings (kernels run with CTAs missing, unknown opcodes run as integer ALU).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

pub use crate::analytic::prepass::{pc_rates, totals as functional_totals};

impl Simulator<'_> {
    /// Gives every SM's analytical memory the per-PC hit rates of a functional pre-pass.
    pub fn use_pc_rates(&mut self, rates: &[PcRates]) {
        let ib = self.gpu.cfg.frontend.inst_bytes.max(1);
        for sm in &mut self.gpu.sms {
            if let SmMem::Analytic(m) = &mut sm.sh.mem {
                m.set_pc_rates(rates, ib);
            }
        }
    }

    /// What the analytical memory takes from a functional pre-pass: per-PC hit rates, and the
    /// L2 write-backs that share the DRAM bandwidth with the reads.
    pub fn use_prepass(&mut self, p: &Prepass) {
        self.use_pc_rates(&p.rates);
        for sm in &mut self.gpu.sms {
            if let SmMem::Analytic(m) = &mut sm.sh.mem {
                m.set_dram_writes(p.dram_read_sectors, p.dram_write_sectors);
            }
        }
    }
}

/// What one mode produced (before errors and speed-ups are known).
pub enum Outcome {
    Timed {
        result: Box<SimResult>,
        /// The pre-pass of `fast` (hit rates used, and reported).
        prepass: Option<Arc<Prepass>>,
    },
    Functional(functional::FunctionalReport),
}

/// Runs `mode` on a trace; `open` gives a fresh source (the pre-pass needs its own).
/// A timing mode whose memory is analytical takes per-PC hit rates from a functional pre-pass
/// (computed here; see [`run_mode_cached`] to share it between modes and runs).
pub fn run_mode(
    cfg: &GpuConfig,
    mode: Mode,
    open: &mut dyn FnMut() -> Result<Box<dyn TraceSource + Send>>,
) -> Result<Outcome> {
    run_mode_cached(cfg, mode, open, &mut PrepassCache::new())
}

/// As [`run_mode`], with the pre-pass taken from (or stored in) `cache`.
pub fn run_mode_cached(
    cfg: &GpuConfig,
    mode: Mode,
    open: &mut dyn FnMut() -> Result<Box<dyn TraceSource + Send>>,
    cache: &mut PrepassCache,
) -> Result<Outcome> {
    match mode {
        Mode::Memory => {
            let mut src = open()?;
            Ok(Outcome::Functional(functional::run(cfg, &mut *src)?))
        }
        Mode::Timing(m) => {
            let (mut sim, prepass) = prepared_simulator(cfg, m, open, cache)?;
            let result = Box::new(sim.run_to_end()?);
            Ok(Outcome::Timed { result, prepass })
        }
    }
}

/// A simulator for `model` over the trace `open` gives, with the functional pre-pass (from
/// `cache`) attached whenever the memory path is analytical. Every front door builds its
/// simulator here (CLI `run`, `compare`, sweeps; the browser session attaches the same pre-pass
/// from its own functional run), so no analytical-memory run goes without its hit rates: a
/// `--model memory=analytical` run without them took every access as an L1 hit.
pub fn prepared_simulator(
    cfg: &GpuConfig,
    model: ModelChoice,
    open: &mut dyn FnMut() -> Result<Box<dyn TraceSource + Send>>,
    cache: &mut PrepassCache,
) -> Result<(Simulator<'static>, Option<Arc<Prepass>>)> {
    let prepass = if model.memory == ModuleModel::Analytical {
        Some(cache.get(cfg, open)?.0)
    } else {
        None
    };
    let mut sim = Simulator::new(cfg.clone(), model, open()?)?;
    if let Some(p) = &prepass {
        sim.use_prepass(p);
    }
    Ok((sim, prepass))
}

/// A row from an outcome; errors and speed-ups are filled in by [`finish`].
pub fn row(trace: &str, gpu: &str, mode: &str, out: &Outcome, wall_s: f64) -> CompareRow {
    let wall = wall_s.max(1e-9);
    match out {
        Outcome::Functional(rep) => {
            let (l1, l2, d) = functional_totals(rep);
            let insts: u64 = rep.kernels.iter().map(|k| k.mem_instructions).sum();
            CompareRow {
                trace: trace.into(),
                gpu: gpu.into(),
                mode: mode.into(),
                models: "functional caches only (no timing)".into(),
                cycles: None,
                ipc: None,
                warp_insts: insts,
                l1_hit_rate: Some(l1),
                l2_hit_rate: Some(l2),
                dram_sectors: Some(d),
                cycle_error_pct: None,
                wall_s,
                prepass_s: None,
                warp_insts_per_s: insts as f64 / wall,
                speedup: None,
                warnings: rep.warnings.clone(),
            }
        }
        Outcome::Timed { result, prepass } => {
            let (l1, l2, d) = match (&result.memory, prepass) {
                (Some(m), _) => (
                    Some(m.sm.l1.hit_rate()),
                    Some(m.partitions.l2.hit_rate()),
                    Some(
                        (m.partitions.dram.read_bytes + m.partitions.dram.write_bytes)
                            / result.config.l2.cache.sector_bytes.max(1) as u64,
                    ),
                ),
                (None, Some(p)) => (
                    Some(p.l1_hit_rate),
                    Some(p.l2_hit_rate),
                    Some(p.dram_sectors),
                ),
                (None, None) => (None, None, None),
            };
            CompareRow {
                trace: trace.into(),
                gpu: gpu.into(),
                mode: mode.into(),
                models: format!("core={} {}", result.core, result.model.describe()),
                cycles: Some(result.cycles),
                ipc: Some(result.ipc),
                warp_insts: result.warp_insts,
                l1_hit_rate: l1,
                l2_hit_rate: l2,
                dram_sectors: d,
                cycle_error_pct: None,
                wall_s,
                prepass_s: None,
                warp_insts_per_s: result.warp_insts as f64 / wall,
                speedup: None,
                warnings: result.warnings.clone(),
            }
        }
    }
}

/// Fills each row's error and speed-up against the `cycle` row of the same trace and GPU.
pub fn finish(rows: &mut [CompareRow]) {
    let base: Vec<Option<(u64, f64)>> = rows
        .iter()
        .map(|r| {
            rows.iter()
                .find(|b| b.mode == "cycle" && b.trace == r.trace && b.gpu == r.gpu)
                .and_then(|b| b.cycles.map(|c| (c, b.wall_s)))
        })
        .collect();
    for (r, b) in rows.iter_mut().zip(base) {
        if let Some((c, w)) = b {
            r.cycle_error_pct = r
                .cycles
                .map(|x| 100.0 * (x as f64 - c as f64).abs() / (c.max(1) as f64));
            r.speedup = Some(w / r.wall_s.max(1e-9));
        }
    }
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "-".into())
}
fn optf(v: Option<f64>, digits: usize) -> String {
    v.map(|x| format!("{x:.digits$}"))
        .unwrap_or_else(|| "-".into())
}

/// Column names shared by the table and the CSV.
pub const COLUMNS: [&str; 14] = [
    "trace",
    "gpu",
    "mode",
    "cycles",
    "ipc",
    "l1_hit",
    "l2_hit",
    "dram_sectors",
    "err_pct",
    "wall_s",
    "prepass_s",
    "winst_per_s",
    "speedup",
    "models",
];

fn cells(r: &CompareRow) -> [String; 14] {
    [
        r.trace.clone(),
        r.gpu.clone(),
        r.mode.clone(),
        opt(r.cycles),
        optf(r.ipc, 3),
        optf(r.l1_hit_rate, 3),
        optf(r.l2_hit_rate, 3),
        opt(r.dram_sectors),
        optf(r.cycle_error_pct, 2),
        format!("{:.3}", r.wall_s),
        optf(r.prepass_s, 3),
        format!("{:.0}", r.warp_insts_per_s),
        optf(r.speedup, 2),
        r.models.clone(),
    ]
}

/// One aligned text table.
pub fn table_text(rows: &[CompareRow]) -> String {
    let all: Vec<[String; 14]> = rows.iter().map(cells).collect();
    let mut w = COLUMNS.map(str::len);
    for c in &all {
        for (i, s) in c.iter().enumerate() {
            w[i] = w[i].max(s.len());
        }
    }
    let mut s = String::new();
    let line = |s: &mut String, c: &[&str]| {
        for (i, x) in c.iter().enumerate() {
            let _ = write!(s, "{:<width$}  ", x, width = w[i]);
        }
        let _ = writeln!(s);
    };
    line(&mut s, &COLUMNS);
    for c in &all {
        let v: Vec<&str> = c.iter().map(String::as_str).collect();
        line(&mut s, &v);
    }
    s
}

/// CSV with a header line; the models column is quoted.
pub fn csv(rows: &[CompareRow]) -> String {
    let mut s = COLUMNS.join(",");
    s.push('\n');
    for r in rows {
        let c = cells(r);
        let last = c.len() - 1;
        for (i, x) in c.iter().enumerate() {
            if i == last {
                let _ = writeln!(s, "\"{x}\"");
            } else {
                let _ = write!(s, "{x},");
            }
        }
    }
    s
}

/// The named modes `compare` runs by default.
pub const DEFAULT_MODES: [&str; 4] = ["cycle", "hybrid", "fast", "memory"];

/// A mode's model choice for the report, None for `memory`.
pub fn models_of(mode: Mode) -> Option<ModelChoice> {
    match mode {
        Mode::Timing(m) => Some(m),
        Mode::Memory => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{generate, Params};

    #[test]
    fn modes_compare_against_cycle() {
        let mut cfg = GpuConfig::default();
        cfg.gpu.num_sms = 2;
        let t = generate("vecadd", &Params::new()).unwrap();
        let mut rows = Vec::new();
        for name in DEFAULT_MODES {
            let mode = Mode::parse(name).unwrap();
            let mut open = || -> Result<Box<dyn TraceSource + Send>> { Ok(Box::new(t.clone())) };
            let out = run_mode(&cfg, mode, &mut open).unwrap();
            rows.push(row("vecadd", "default", name, &out, 1.0));
        }
        rows[0].wall_s = 4.0;
        finish(&mut rows);
        assert_eq!(rows[0].cycle_error_pct, Some(0.0));
        assert_eq!(rows[1].speedup, Some(4.0));
        assert!(rows[3].cycles.is_none() && rows[3].cycle_error_pct.is_none());
        // Every timing mode issues every warp instruction; the cycle and fast rows agree on
        // the work done.
        assert_eq!(rows[0].warp_insts, rows[1].warp_insts);
        assert_eq!(rows[0].warp_insts, rows[2].warp_insts);
        assert!(rows[2].models.contains("memory=analytical"));
        // The DRAM column counts sectors in every mode (the cycle memory system once counted
        // requests of up to four sectors): a streaming kernel moves the same sectors in all.
        let d = rows[0].dram_sectors;
        assert!(d.is_some_and(|d| d > 0));
        for r in &rows[1..] {
            assert_eq!(r.dram_sectors, d, "{}", r.mode);
        }
        let c = csv(&rows);
        assert_eq!(c.lines().count(), 5);
        assert!(c.starts_with("trace,gpu,mode,cycles"));
    }
}
