//! Compares the simulator with hardware counters collected by `tests/hardware/run.sh` (Nsight
//! Compute on a real GPU): for every ncu CSV under `tests/hardware/results/`, each row's
//! workload is regenerated from its name and parameters (or, where the row names a `trace`,
//! read from that trace, recorded on the card by the Compute Sanitizer tracer) and simulated on
//! the row's preset, `cycle` mode for elapsed cycles and `memory` mode for hit rates and sector
//! counts.
//!
//! Every row is marked `fit` (a preset constant was fitted to it) or `holdout` (none was).
//! The test prints MAPE, mean signed error and Pearson correlation per metric for each split
//! apart, `fit` being training error. It fails when the holdout cycles MAPE of a file exceeds
//! its bound ([`HOLDOUT_CYCLES_MAPE_MAX`]), its L2 hit-rate MAPE [`L2_HIT_MAPE_MAX`], its DRAM
//! read-sector MAPE [`DRAM_READ_MAPE_MAX`], or a pointer-chase row (the latency calibration)
//! is off by more than [`CHASE_MAX`]. Rows whose trace does not hold the card's instruction
//! count within [`INSTS_MAX_OFF`] (the tracer's importer could not rebuild a loop with no
//! memory access) are listed and left out. Skipped, with a message, when no results exist.
//!
//! Model settings for the comparison: `l2.warm_from_memcpy = false` (run.sh uses
//! `--cache-control all`, which flushes the caches before the kernel). The preset's
//! `sm.kernel_launch_latency` stays: ncu's `sm__cycles_elapsed.max` includes the launch (a
//! one-CTA vecadd takes 5,289 cycles on the H100), and the h100 preset's latency is that
//! measurement.

use std::path::{Path, PathBuf};

use warpweave::config;
use warpweave::engine::{ModelChoice, Simulator};
use warpweave::mem::functional;
use warpweave::trace::opcodes::Arch;
use warpweave::trace::open::open_path;
use warpweave::trace::TraceSource;
use warpweave::workload::{self, Params};

const SETS: [&str; 1] = ["l2.warm_from_memcpy=false"];

/// Bounds on the holdout cycles MAPE per file: what the model reaches now, so a change that
/// makes it worse fails (issue 30's goal is 10%, with 12% as the test's limit; not met yet,
/// see tests/hardware/README.md for what carries the rest).
const HOLDOUT_CYCLES_MAPE_MAX: [(&str, f64); 2] = [("h100.csv", 14.0), ("h100-holdout.csv", 14.5)];
/// Rows with a recorded trace whose simulated warp instruction count is off the card's by
/// more than this (%) are left out of the figures.
const INSTS_MAX_OFF: f64 = 15.0;
/// Pointer chases measure the L1, L2 and DRAM load-to-use latencies the preset is fitted to.
const CHASE_MAX: f64 = 5.0;
/// Seed 004's L2 hit-rate error, the goal for the L2 (h100: 4.2% today, SMs' traffic).
const L2_HIT_MAPE_MAX: f64 = 15.86;
/// Seed 004's DRAM transaction error, the goal for DRAM reads (h100: 14.7% today).
const DRAM_READ_MAPE_MAX: f64 = 16.85;

fn results_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/hardware/results")
}

/// One hardware row: the workload line and the measured metrics.
struct HwRow {
    preset: String,
    workload: String,
    params: Vec<String>,
    hw: Vec<(&'static str, f64)>,
    /// `fit` or `holdout` (the `split` column; rows without one count as holdout).
    split: String,
    /// A trace recorded on the card, relative to tests/hardware (empty: the built-in workload).
    trace: String,
    warp_insts: f64,
}

const METRICS: [(&str, &str); 7] = [
    ("cycles", "sm_cycles"),
    ("l1_hit_pct", "l1_hit_pct"),
    ("l2_hit_pct", "l2_hit_pct"),
    ("l2_read_sectors", "l2_read_sectors"),
    ("l2_write_sectors", "l2_write_sectors"),
    ("dram_read_sectors", "dram_read_sectors"),
    ("dram_write_sectors", "dram_write_sectors"),
];

fn parse_csv(path: &Path) -> Vec<HwRow> {
    let text = std::fs::read_to_string(path).expect("read results CSV");
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |name: &str| {
        head.iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{}: no column {name}", path.display()))
    };
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        // run.sh quotes only the GPU name and kernel name; split respecting quotes.
        let cells = split_csv(line);
        let num = |name: &str| -> f64 {
            let c = &cells[col(name)];
            c.parse()
                .unwrap_or_else(|_| panic!("{}:{}: {name} = `{c}`", path.display(), i + 2))
        };
        let opt = |name: &str| {
            head.iter()
                .position(|h| *h == name)
                .and_then(|i| cells.get(i).cloned())
                .unwrap_or_default()
        };
        rows.push(HwRow {
            split: match opt("split").as_str() {
                "" => "holdout".to_string(),
                s => s.to_string(),
            },
            trace: opt("trace"),
            warp_insts: num("warp_insts"),
            preset: cells[col("preset")].clone(),
            workload: cells[col("workload")].clone(),
            params: cells[col("params")]
                .split_whitespace()
                .map(str::to_string)
                .collect(),
            hw: METRICS
                .iter()
                .map(|(m, c)| (*m, tex_metric(&head, &cells, m).unwrap_or_else(|| num(c))))
                .collect(),
        });
    }
    rows
}

/// The L2 metrics from the SMs' traffic alone (`l2_tex_*` columns, run.sh asks for them where
/// ncu knows them): on the H100 the plain `lts__t_sectors` counts also hold the traffic between
/// the L2's two halves (1.5x the reads of a vecadd), which the model does not have. `None` for
/// other metrics, or rows without the columns.
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

fn split_csv(line: &str) -> Vec<String> {
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

fn simulate(row: &HwRow) -> Vec<(&'static str, f64)> {
    let cfg = config::load_with_overrides(&row.preset, &SETS).expect("preset");
    let open = || -> Box<dyn TraceSource + Send> {
        if row.trace.is_empty() {
            let params = Params::parse(&row.params).expect("params");
            Box::new(workload::generate(&row.workload, &params).expect("workload"))
        } else {
            let path = results_dir().join("..").join(&row.trace);
            open_path(&path, Arch::Hopper).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        }
    };
    let mut sim =
        Simulator::new(cfg.clone(), ModelChoice::named("cycle").unwrap(), open()).unwrap();
    let r = sim.run_to_end().expect("cycle run");
    let mut src = open();
    let f = functional::run(&cfg, &mut *src).expect("memory run");
    let k = &f.kernels[0];
    vec![
        ("cycles", r.kernels[0].cycles as f64),
        ("warp_insts", r.kernels[0].warp_insts as f64),
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
    ]
}

fn pearson(a: &[f64], b: &[f64]) -> f64 {
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

fn metric(s: &[(&'static str, f64)], m: &str) -> f64 {
    s.iter().find(|(k, _)| *k == m).map_or(f64::NAN, |x| x.1)
}

/// The bound a file's holdout rows must meet for `metric` (infinite: only printed).
fn bound(file: &str, metric: &str) -> f64 {
    match metric {
        "cycles" => HOLDOUT_CYCLES_MAPE_MAX
            .iter()
            .find(|(f, _)| *f == file)
            .map_or(f64::INFINITY, |x| x.1),
        // The goals of seed 004 hold for the built-in workloads' rows; the traced kernels'
        // figures are printed (their code fetches and atomics are not yet modelled).
        "l2_hit_pct" if file == "h100.csv" => L2_HIT_MAPE_MAX,
        "dram_read_sectors" if file == "h100.csv" => DRAM_READ_MAPE_MAX,
        _ => f64::INFINITY,
    }
}

/// MAPE (rows with a non-zero hardware value), mean signed error (%) and Pearson correlation.
fn errors(hw: &[f64], sim: &[f64]) -> (f64, f64, f64, usize) {
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

#[test]
fn simulator_against_hardware_counters() {
    let dir = results_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "csv"))
                // ncu tables only (the probes' and durations' tables have other columns).
                .filter(|p| {
                    std::fs::read_to_string(p)
                        .is_ok_and(|t| t.lines().next().is_some_and(|h| h.contains("sm_cycles")))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    if files.is_empty() {
        eprintln!(
            "hardware_compare: skipped: no results under {} (run tests/hardware/run.sh PRESET on \
             a GPU machine first; see tests/hardware/README.md)",
            dir.display()
        );
        return;
    }
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let rows = parse_csv(&f);
        let sims = simulate_all(&rows);
        let mut kept = Vec::new();
        for (r, s) in rows.iter().zip(&sims) {
            // Only a recorded trace must hold the card's stream; the built-in workloads write
            // the sm_80 sequences (fewer instructions, tests/hardware/README.md).
            let off = 100.0 * (metric(s, "warp_insts") - r.warp_insts).abs() / r.warp_insts;
            if !r.trace.is_empty() && off > INSTS_MAX_OFF {
                eprintln!(
                    "{name}: left out {} {}: {} warp instructions simulated, {} on the card",
                    r.workload,
                    r.params.join(" "),
                    metric(s, "warp_insts"),
                    r.warp_insts
                );
            } else {
                kept.push((r, s));
            }
        }
        for split in ["fit", "holdout"] {
            let sel: Vec<_> = kept.iter().filter(|(r, _)| r.split == split).collect();
            if sel.is_empty() {
                continue;
            }
            eprintln!(
                "\n{name}, {split} rows ({} kernels){}",
                sel.len(),
                if split == "fit" {
                    ": training error (preset constants were fitted to these)"
                } else {
                    ""
                }
            );
            eprintln!(
                "{:<20} {:>9} {:>9} {:>8}  (n)",
                "metric", "MAPE %", "signed %", "corr"
            );
            for (m, _) in METRICS.iter() {
                let hw: Vec<f64> = sel.iter().map(|(r, _)| metric(&r.hw, m)).collect();
                let sim: Vec<f64> = sel.iter().map(|(_, s)| metric(s, m)).collect();
                let (mape, signed, corr, n) = errors(&hw, &sim);
                eprintln!("{m:<20} {mape:>9.2} {signed:>+9.2} {corr:>8.3}  ({n})");
                if split == "holdout" {
                    let goal = bound(&name, m);
                    assert!(
                        mape <= goal,
                        "{name}: holdout {m} MAPE {mape:.2}% over {goal}%"
                    );
                }
            }
        }
        eprintln!();
        for (r, s) in &kept {
            let err = 100.0 * (metric(s, "cycles") - r.hw[0].1) / r.hw[0].1;
            eprintln!(
                "  {:<7} {} {}: cycles hw {} sim {} ({err:+.1}%)",
                r.split,
                r.workload,
                r.params.join(" "),
                r.hw[0].1,
                metric(s, "cycles")
            );
            if r.workload == "pointer_chase" {
                assert!(
                    err.abs() <= CHASE_MAX,
                    "{name}: {} {}: cycles {err:+.1}% (latency calibration, at most {CHASE_MAX}%)",
                    r.workload,
                    r.params.join(" ")
                );
            }
        }
    }
}

/// Simulates every row, spread over the machine's cores (rows are independent).
fn simulate_all(rows: &[HwRow]) -> Vec<Vec<(&'static str, f64)>> {
    use rayon::prelude::*;
    rows.par_iter().map(simulate).collect()
}

#[test]
fn csv_reader_handles_quoted_names() {
    let cells = split_csv("h100,\"NVIDIA H100 80GB HBM3\",90,\"void k(int, float)\",12");
    assert_eq!(cells.len(), 5);
    assert_eq!(cells[1], "NVIDIA H100 80GB HBM3");
    assert_eq!(cells[3], "void k(int, float)");
    assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]) - 1.0).abs() < 1e-12);
}
