//! Compares the simulator with hardware counters collected by `tests/hardware/run.sh` (Nsight
//! Compute on a real GPU): for every CSV under `tests/hardware/results/`, each row's workload
//! is regenerated from its name and parameters and simulated on the row's preset, `cycle` mode
//! for elapsed cycles and `memory` mode for hit rates and sector counts. Prints MAPE and
//! Pearson correlation per metric, and fails when the cycles MAPE of a file exceeds
//! [`CYCLES_MAPE_MAX`], its L2 hit-rate MAPE [`L2_HIT_MAPE_MAX`], its DRAM read-sector MAPE
//! [`DRAM_READ_MAPE_MAX`], or a pointer-chase row (the
//! latency calibration) is off by more than [`CHASE_MAX`]. Skipped, with a message, when no
//! results exist.
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
use warpweave::workload::{self, Params};

const SETS: [&str; 1] = ["l2.warm_from_memcpy=false"];

/// Issue #9's goal for elapsed cycles: MAPE under 15% (h100, 26 kernels: 12.9% today).
const CYCLES_MAPE_MAX: f64 = 15.0;
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
        rows.push(HwRow {
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
    let params = Params::parse(&row.params).expect("params");
    let trace = workload::generate(&row.workload, &params).expect("workload");
    let mut sim = Simulator::new(
        cfg.clone(),
        ModelChoice::named("cycle").unwrap(),
        Box::new(trace.clone()),
    )
    .unwrap();
    let r = sim.run_to_end().expect("cycle run");
    let mut src = trace;
    let f = functional::run(&cfg, &mut src).expect("memory run");
    let k = &f.kernels[0];
    vec![
        ("cycles", r.kernels[0].cycles as f64),
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

#[test]
fn simulator_against_hardware_counters() {
    let dir = results_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "csv"))
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
        let rows = parse_csv(&f);
        eprintln!("{}: {} kernels", f.display(), rows.len());
        let sims = simulate_all(&rows);
        eprintln!("{:<20} {:>9} {:>8}  (n)", "metric", "MAPE %", "corr");
        for (mi, (m, _)) in METRICS.iter().enumerate() {
            let (mut hw, mut sim) = (Vec::new(), Vec::new());
            for (r, s) in rows.iter().zip(&sims) {
                hw.push(r.hw[mi].1);
                sim.push(s[mi].1);
            }
            // MAPE over rows with a non-zero hardware value (hit rates of 0 have none).
            let errs: Vec<f64> = hw
                .iter()
                .zip(&sim)
                .filter(|(h, _)| **h != 0.0)
                .map(|(h, s)| 100.0 * (s - h).abs() / h.abs())
                .collect();
            let mape = errs.iter().sum::<f64>() / errs.len().max(1) as f64;
            eprintln!(
                "{m:<20} {mape:>9.2} {:>8.3}  ({})",
                pearson(&hw, &sim),
                errs.len()
            );
            let goal = match *m {
                "l2_hit_pct" => L2_HIT_MAPE_MAX,
                "dram_read_sectors" => DRAM_READ_MAPE_MAX,
                _ => f64::INFINITY,
            };
            assert!(
                mape <= goal,
                "{}: {m} MAPE {mape:.2}% over the goal {goal}%",
                f.display()
            );
        }
        let mut errs = Vec::new();
        for (r, s) in rows.iter().zip(&sims) {
            let err = 100.0 * (s[0].1 - r.hw[0].1) / r.hw[0].1;
            eprintln!(
                "  {} {}: cycles hw {} sim {} ({err:+.1}%)",
                r.workload,
                r.params.join(" "),
                r.hw[0].1,
                s[0].1
            );
            if r.workload == "pointer_chase" {
                assert!(
                    err.abs() <= CHASE_MAX,
                    "{}: {} {}: cycles {err:+.1}% (latency calibration, at most {CHASE_MAX}%)",
                    f.display(),
                    r.workload,
                    r.params.join(" ")
                );
            }
            errs.push(err.abs());
        }
        let mape = errs.iter().sum::<f64>() / errs.len() as f64;
        assert!(
            mape <= CYCLES_MAPE_MAX,
            "{}: cycles MAPE {mape:.2}% over the goal {CYCLES_MAPE_MAX}%",
            f.display()
        );
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
