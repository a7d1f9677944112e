//! The simulator against hardware counters collected on real GPUs (`tests/hardware/`, Nsight
//! Compute tables), as `warpweave validate --hardware` prints it and the `hardware_compare`
//! test checks it.
//!
//! ```text
//!  results/*.csv (ncu rows: preset, workload, params, split fit|holdout, trace?, counters)
//!    each row ─> built-in workload (or the trace recorded on the card) on the row's preset
//!              ─> cycle mode: elapsed cycles     memory mode: hit rates, sector counts
//!    per file and split: MAPE, mean signed error, Pearson correlation per metric
//! ```
//! `fit` rows set a preset constant: their error is training error. Rows with a recorded trace
//! whose simulated warp instruction count is off the card's by more than [`INSTS_MAX_OFF`] are
//! left out (the tracer could not rebuild the kernel's stream) and listed. The comparison runs
//! with `l2.warm_from_memcpy = false` (run.sh flushes the caches before each kernel) and keeps
//! the preset's launch latency (ncu's elapsed cycles include it).
//!
//! Cycles are compared like with like: a row's `measure` column says what its `sm_cycles`
//! holds, `ncu` (the default: Nsight Compute's elapsed cycles, compared with a kernel's
//! `cycles`) or `duration` (a measured kernel duration times the SM clock, compared with its
//! `duration_cycles`, which leave out the launch cycles only Nsight Compute counts).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::engine::{ModelChoice, Simulator};
use crate::mem::functional;
use crate::trace::opcodes::Arch;
use crate::trace::open::open_path;
use crate::trace::TraceSource;
use crate::workload::{self, Params};
use crate::{config, Error, Result};

/// Overrides of every comparison run.
pub const SETS: [&str; 1] = ["l2.warm_from_memcpy=false"];
/// Traced rows whose warp instruction count is off the card's by more than this (%) are left
/// out.
pub const INSTS_MAX_OFF: f64 = 15.0;

/// The metrics compared: our name and the CSV column.
pub const METRICS: [(&str, &str); 7] = [
    ("cycles", "sm_cycles"),
    ("l1_hit_pct", "l1_hit_pct"),
    ("l2_hit_pct", "l2_hit_pct"),
    ("l2_read_sectors", "l2_read_sectors"),
    ("l2_write_sectors", "l2_write_sectors"),
    ("dram_read_sectors", "dram_read_sectors"),
    ("dram_write_sectors", "dram_write_sectors"),
];

/// One hardware row.
#[derive(Clone, Debug, Serialize)]
pub struct HwRow {
    pub preset: String,
    pub workload: String,
    pub params: Vec<String>,
    pub hw: Vec<(&'static str, f64)>,
    /// `fit` or `holdout` (rows without a `split` column count as holdout).
    pub split: String,
    /// A trace recorded on the card, relative to tests/hardware (empty: the built-in workload).
    pub trace: String,
    pub warp_insts: f64,
    /// What `sm_cycles` holds: `ncu` (elapsed cycles) or `duration` (duration x clock).
    pub measure: String,
}

/// Errors of one metric over the rows of one split.
#[derive(Clone, Debug, Serialize)]
pub struct MetricErr {
    pub metric: &'static str,
    pub mape_pct: f64,
    pub signed_pct: f64,
    pub corr: f64,
    pub n: usize,
}

/// One split (fit or holdout) of one file.
#[derive(Clone, Debug, Serialize)]
pub struct SplitReport {
    pub split: String,
    pub kernels: usize,
    pub metrics: Vec<MetricErr>,
}

impl SplitReport {
    pub fn get(&self, metric: &str) -> Option<&MetricErr> {
        self.metrics.iter().find(|m| m.metric == metric)
    }
}

/// One compared row.
#[derive(Clone, Debug, Serialize)]
pub struct RowResult {
    /// `ncu` or `duration`: which simulated cycles `sim`'s `cycles` holds.
    pub measure: String,
    pub split: String,
    pub workload: String,
    pub params: String,
    pub sim: Vec<(&'static str, f64)>,
    pub hw: Vec<(&'static str, f64)>,
}

impl RowResult {
    pub fn cycles_error_pct(&self) -> f64 {
        let (h, s) = (metric(&self.hw, "cycles"), metric(&self.sim, "cycles"));
        100.0 * (s - h) / h
    }
}

/// One results file.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    pub file: String,
    /// Rows left out, with why.
    pub left_out: Vec<String>,
    pub splits: Vec<SplitReport>,
    pub rows: Vec<RowResult>,
}

impl FileReport {
    pub fn split(&self, s: &str) -> Option<&SplitReport> {
        self.splits.iter().find(|x| x.split == s)
    }
}

/// The value of `m` in a metric list (NaN when absent).
pub fn metric(s: &[(&'static str, f64)], m: &str) -> f64 {
    s.iter().find(|(k, _)| *k == m).map_or(f64::NAN, |x| x.1)
}

/// The ncu tables under `dir` (CSV files whose header has `sm_cycles`), sorted.
pub fn result_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "csv"))
                .filter(|p| {
                    std::fs::read_to_string(p)
                        .is_ok_and(|t| t.lines().next().is_some_and(|h| h.contains("sm_cycles")))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Splits a CSV line, respecting double quotes (run.sh quotes GPU and kernel names).
pub fn split_csv(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut q) = (Vec::new(), String::new(), false);
    for ch in line.chars() {
        match (ch, q) {
            ('"', _) => q = !q,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(ch),
        }
    }
    out.push(cur);
    out
}

/// Reads one ncu table.
pub fn parse_csv(path: &Path) -> Result<Vec<HwRow>> {
    let err = |m: String| Error::other(format!("{}: {m}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    let mut lines = text.lines();
    let head: Vec<&str> = lines
        .next()
        .ok_or_else(|| err("empty".into()))?
        .split(',')
        .collect();
    let col = |name: &str| {
        head.iter()
            .position(|h| *h == name)
            .ok_or_else(|| err(format!("no column {name}")))
    };
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let cells = split_csv(line);
        let cell = |name: &str| -> Result<&String> {
            cells
                .get(col(name)?)
                .ok_or_else(|| err(format!("line {}: no {name}", i + 2)))
        };
        let num = |name: &str| -> Result<f64> {
            let c = cell(name)?;
            c.parse()
                .map_err(|_| err(format!("line {}: {name} = `{c}`", i + 2)))
        };
        let opt = |name: &str| {
            head.iter()
                .position(|h| *h == name)
                .and_then(|i| cells.get(i).cloned())
                .unwrap_or_default()
        };
        let mut hw = Vec::new();
        for (m, c) in METRICS {
            let v = match tex_metric(&head, &cells, m) {
                Some(v) => v,
                None => num(c)?,
            };
            hw.push((m, v));
        }
        rows.push(HwRow {
            split: match opt("split").as_str() {
                "" => "holdout".to_string(),
                s => s.to_string(),
            },
            trace: opt("trace"),
            measure: match opt("measure").as_str() {
                "" | "ncu" => "ncu".to_string(),
                "duration" => "duration".to_string(),
                m => {
                    return Err(err(format!(
                        "line {}: measure = `{m}` (expected ncu or duration)",
                        i + 2
                    )))
                }
            },
            warp_insts: num("warp_insts")?,
            preset: cell("preset")?.clone(),
            workload: cell("workload")?.clone(),
            params: cell("params")?
                .split_whitespace()
                .map(str::to_string)
                .collect(),
            hw,
        });
    }
    Ok(rows)
}

/// The L2 metrics from the SMs' traffic alone (`l2_tex_*` columns, where ncu has them): on the
/// H100 the plain `lts__t_sectors` counts also hold the traffic between the L2's two halves,
/// which the model does not have.
fn tex_metric(head: &[&str], cells: &[String], metric: &str) -> Option<f64> {
    let get = |name: &str| -> Option<f64> {
        let i = head.iter().position(|h| *h == name)?;
        cells.get(i)?.parse().ok()
    };
    let (rd, wr) = (get("l2_tex_read_sectors")?, get("l2_tex_write_sectors")?);
    match metric {
        "l2_read_sectors" => Some(rd),
        "l2_write_sectors" => Some(wr),
        "l2_hit_pct" if rd + wr > 0.0 => {
            let hits = get("l2_tex_read_hit_sectors")? + get("l2_tex_write_hit_sectors")?;
            Some(100.0 * hits / (rd + wr))
        }
        _ => None,
    }
}

/// Simulates one row (`dir`: the results folder; traces are named relative to its parent).
pub fn simulate(row: &HwRow, dir: &Path) -> Result<Vec<(&'static str, f64)>> {
    let sets: Vec<String> = SETS.iter().map(|s| s.to_string()).collect();
    let cfg = config::load_with_overrides(&row.preset, &sets)?;
    let open = || -> Result<Box<dyn TraceSource + Send>> {
        if row.trace.is_empty() {
            let params = Params::parse(&row.params)?;
            Ok(Box::new(workload::generate(&row.workload, &params)?))
        } else {
            open_path(&dir.join("..").join(&row.trace), Arch::Hopper)
        }
    };
    let mut sim = Simulator::new(cfg.clone(), ModelChoice::named("cycle")?, open()?)?;
    let r = sim.run_to_end()?;
    let mut src = open()?;
    let f = functional::run(&cfg, &mut *src)?;
    let (Some(kr), Some(k)) = (r.kernels.first(), f.kernels.first()) else {
        return Err(Error::other(format!("{}: no kernel", row.workload)));
    };
    Ok(vec![
        ("cycles", kr.cycles as f64),
        ("duration_cycles", kr.duration_cycles as f64),
        ("warp_insts", kr.warp_insts as f64),
        ("l1_hit_pct", 100.0 * k.l1.hit_rate),
        // Per sector, as ncu counts.
        (
            "l2_hit_pct",
            100.0 * k.l2.sector_hits as f64 / k.l2.sectors.max(1) as f64,
        ),
        ("l2_read_sectors", k.l1.next_read_sectors as f64),
        ("l2_write_sectors", k.l1.next_write_sectors as f64),
        ("dram_read_sectors", k.dram_read_sectors as f64),
        ("dram_write_sectors", k.dram_write_sectors as f64),
    ])
}

/// Pearson correlation (NaN when either side is constant).
pub fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    if va == 0.0 || vb == 0.0 {
        f64::NAN
    } else {
        cov / (va * vb).sqrt()
    }
}

/// MAPE over rows with a non-zero hardware value, mean signed error (%), correlation, n.
pub fn errors(hw: &[f64], sim: &[f64]) -> (f64, f64, f64, usize) {
    let errs: Vec<f64> = hw
        .iter()
        .zip(sim)
        .filter(|(h, _)| **h != 0.0)
        .map(|(h, s)| 100.0 * (s - h) / h.abs())
        .collect();
    let n = errs.len().max(1) as f64;
    let mape = errs.iter().map(|e| e.abs()).sum::<f64>() / n;
    let signed = errs.iter().sum::<f64>() / n;
    (mape, signed, pearson(hw, sim), errs.len())
}

/// Compares one results file; `sims` simulates the rows (in order).
pub fn compare_file(
    path: &Path,
    sims: impl FnOnce(&[HwRow]) -> Result<Vec<Vec<(&'static str, f64)>>>,
) -> Result<FileReport> {
    let file = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let rows = parse_csv(path)?;
    let sims = sims(&rows)?;
    let mut left_out = Vec::new();
    let mut kept = Vec::new();
    for (r, mut s) in rows.iter().zip(sims) {
        if r.measure == "duration" {
            let d = metric(&s, "duration_cycles");
            if let Some(c) = s.iter_mut().find(|(m, _)| *m == "cycles") {
                c.1 = d;
            }
        }
        let off = 100.0 * (metric(&s, "warp_insts") - r.warp_insts).abs() / r.warp_insts;
        if !r.trace.is_empty() && off > INSTS_MAX_OFF {
            left_out.push(format!(
                "{} {}: {} warp instructions simulated, {} on the card",
                r.workload,
                r.params.join(" "),
                metric(&s, "warp_insts"),
                r.warp_insts
            ));
        } else {
            kept.push(RowResult {
                measure: r.measure.clone(),
                split: r.split.clone(),
                workload: r.workload.clone(),
                params: r.params.join(" "),
                sim: s,
                hw: r.hw.clone(),
            });
        }
    }
    let mut splits = Vec::new();
    for split in ["fit", "holdout"] {
        let sel: Vec<&RowResult> = kept.iter().filter(|r| r.split == split).collect();
        if sel.is_empty() {
            continue;
        }
        let metrics = METRICS
            .iter()
            .map(|(m, _)| {
                let hw: Vec<f64> = sel.iter().map(|r| metric(&r.hw, m)).collect();
                let sim: Vec<f64> = sel.iter().map(|r| metric(&r.sim, m)).collect();
                let (mape_pct, signed_pct, corr, n) = errors(&hw, &sim);
                MetricErr {
                    metric: m,
                    mape_pct,
                    signed_pct,
                    corr,
                    n,
                }
            })
            .collect();
        splits.push(SplitReport {
            split: split.to_string(),
            kernels: sel.len(),
            metrics,
        });
    }
    Ok(FileReport {
        file,
        left_out,
        splits,
        rows: kept,
    })
}

/// Every results file under `dir`, rows simulated on all cores (one at a time without the
/// `parallel` feature).
pub fn compare_dir(dir: &Path) -> Result<Vec<FileReport>> {
    #[cfg(feature = "parallel")]
    use rayon::prelude::*;
    result_files(dir)
        .iter()
        .map(|f| {
            compare_file(f, |rows| {
                #[cfg(feature = "parallel")]
                let it = rows.par_iter();
                #[cfg(not(feature = "parallel"))]
                let it = rows.iter();
                it.map(|r| simulate(r, dir)).collect()
            })
        })
        .collect()
}

/// The reports as text: per file and split, the metric table, then every row's cycles.
pub fn report_text(files: &[FileReport]) -> String {
    let mut s = String::new();
    for f in files {
        for l in &f.left_out {
            let _ = writeln!(s, "{}: left out {l}", f.file);
        }
        for sp in &f.splits {
            let training = if sp.split == "fit" {
                ": training error (preset constants were fitted to these)"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "\n{}, {} rows ({} kernels){training}",
                f.file, sp.split, sp.kernels
            );
            let _ = writeln!(
                s,
                "{:<20} {:>9} {:>9} {:>8}  (n)",
                "metric", "MAPE %", "signed %", "corr"
            );
            for m in &sp.metrics {
                let _ = writeln!(
                    s,
                    "{:<20} {:>9.2} {:>+9.2} {:>8.3}  ({})",
                    m.metric, m.mape_pct, m.signed_pct, m.corr, m.n
                );
            }
        }
        let _ = writeln!(s);
        for r in &f.rows {
            let _ = writeln!(
                s,
                "  {:<7} {} {}: {} hw {} sim {} ({:+.1}%)",
                r.split,
                r.workload,
                r.params,
                if r.measure == "duration" {
                    "duration cycles"
                } else {
                    "cycles"
                },
                metric(&r.hw, "cycles"),
                metric(&r.sim, "cycles"),
                r.cycles_error_pct()
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_reader_handles_quoted_names() {
        let cells = split_csv("h100,\"NVIDIA H100 80GB HBM3\",90,\"void k(int, float)\",12");
        assert_eq!(cells.len(), 5);
        assert_eq!(cells[1], "NVIDIA H100 80GB HBM3");
        assert_eq!(cells[3], "void k(int, float)");
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]) - 1.0).abs() < 1e-12);
        let (mape, signed, _, n) = errors(&[100.0, 0.0, 200.0], &[110.0, 5.0, 180.0]);
        assert_eq!((n, mape, signed), (2, 10.0, 0.0));
    }

    /// An ncu row is compared with the simulated elapsed cycles, a duration row of the same
    /// kernel with the simulated duration: both match here, and each would be off by the
    /// launch cycles only Nsight Compute counts if compared with the other figure.
    #[test]
    fn ncu_and_duration_rows_compare_like_with_like() {
        let dir = std::env::temp_dir().join(format!("ww-hw-measure-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.csv");
        let cols = "preset,workload,params,sm_cycles,l1_hit_pct,l2_hit_pct,l2_read_sectors,\
                    l2_write_sectors,dram_read_sectors,dram_write_sectors,warp_insts,measure";
        let csv = format!(
            "{cols}\nh100,vecadd,n=32,5000,0,0,1,1,1,0,10,ncu\nh100,vecadd,n=32,3500,0,0,1,1,1,0,10,duration\n"
        );
        std::fs::write(&path, csv).unwrap();
        let rep = compare_file(&path, |rows| {
            assert_eq!(rows[0].measure, "ncu");
            assert_eq!(rows[1].measure, "duration");
            let sim = vec![
                ("cycles", 5000.0),
                ("duration_cycles", 3500.0),
                ("warp_insts", 10.0),
            ];
            Ok(vec![sim.clone(), sim])
        })
        .unwrap();
        let errs: Vec<f64> = rep.rows.iter().map(|r| r.cycles_error_pct()).collect();
        assert_eq!(errs, [0.0, 0.0]);
        std::fs::write(&path, format!("{cols}\nh100,v,n=1,1,0,0,1,1,1,0,10,nsys\n")).unwrap();
        let e = parse_csv(&path).unwrap_err().to_string();
        assert!(e.contains("measure = `nsys`"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
