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

use warpweave::validate::hardware::{compare_dir, metric, report_text, FileReport};
use warpweave::validate::held_out::{table_source, HeldOut, HELD_OUT};

/// Bounds on the holdout cycles MAPE per file, a little above what the model reaches now
/// (5.8% and 8.3%), so a change that makes it worse fails; issue 30's goal is 10%.
const HOLDOUT_CYCLES_MAPE_MAX: [(&str, f64); 2] = [("h100.csv", 7.0), ("h100-holdout.csv", 10.0)];
/// Pointer chases measure the L1, L2 and DRAM load-to-use latencies the preset is fitted to.
const CHASE_MAX: f64 = 5.0;
/// Seed 004's L2 hit-rate error, the goal for the L2 (h100: 4.2% today, SMs' traffic).
const L2_HIT_MAPE_MAX: f64 = 15.86;
/// Seed 004's DRAM transaction error, the goal for DRAM reads (h100: 14.7% today).
const DRAM_READ_MAPE_MAX: f64 = 16.85;
/// Bounds on each clock probe's mean error per warp (%): what the model reaches now (issue
/// 36's goal is 10% per microbenchmark).
/// Not met yet by `mshr_merge` (a single L2 hit takes ~420 cycles on the card, 262 in the
/// model, whose L2 latency is the pointer chases' average) and `issue_order` (the card
/// interleaves two of the four warps of one sub-core, the model another two and longer).
/// `l1_lines` and `loop_probe` are executed from the listing; their loops pay the taken
/// branch back (`frontend.taken_branch_delay`, fitted to `loop_probe`), which the spill
/// loops of `local_spill` pay too (2.9-4.6% before it, 6.9-9.2% with it).
const PROBE_MAX: [(&str, f64); 7] = [
    ("mshr_merge", 45.0),
    ("local_spill", 10.0),
    ("ifetch", 10.0),
    ("ffma_chain", 1.0),
    // 25% before `frontend.prefetch_interval` (every warp ran its 32 FADDs alone); with it
    // the four warps interleave behind the instruction stream, but not the card's pair.
    ("issue_order", 40.0),
    ("l1_lines", 6.0),
    ("loop_probe", 1.0),
];

fn results_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/hardware/results")
}

/// The bound a file's holdout rows must meet for `metric` (infinite: only printed).
fn bound(file: &str, metric: &str) -> f64 {
    match metric {
        "cycles" => HOLDOUT_CYCLES_MAPE_MAX
            .iter()
            .find(|(f, _)| *f == file)
            .map_or(f64::INFINITY, |x| x.1),
        // The goals of seed 004 hold for the built-in workloads' rows; the traced kernels'
        // figures are printed.
        "l2_hit_pct" if file == "h100.csv" => L2_HIT_MAPE_MAX,
        "dram_read_sectors" if file == "h100.csv" => DRAM_READ_MAPE_MAX,
        _ => f64::INFINITY,
    }
}

/// The held-out table `config show` prints, from these reports.
fn held_out(files: &[FileReport]) -> Vec<HeldOut> {
    let mut out = Vec::new();
    for f in files {
        let (Some(h), Some(fit)) = (f.split("holdout"), f.split("fit")) else {
            continue;
        };
        let c = h.get("cycles").expect("cycles");
        // Every row of the ncu tables is one preset's (the file is named after it).
        let preset = f.file.split(['.', '-']).next().unwrap_or_default();
        out.push(HeldOut {
            preset: Box::leak(preset.to_string().into_boxed_str()),
            file: Box::leak(f.file.clone().into_boxed_str()),
            holdout_kernels: h.kernels,
            holdout_cycles_mape: c.mape_pct,
            holdout_cycles_signed: c.signed_pct,
            holdout_cycles_corr: c.corr,
            fit_kernels: fit.kernels,
            fit_cycles_mape: fit.get("cycles").expect("cycles").mape_pct,
        });
    }
    out
}

#[test]
fn simulator_against_hardware_counters() {
    let dir = results_dir();
    let files = compare_dir(&dir).expect("hardware comparison");
    if files.is_empty() {
        eprintln!(
            "hardware_compare: skipped: no results under {} (run tests/hardware/run.sh PRESET on \
             a GPU machine first; see tests/hardware/README.md)",
            dir.display()
        );
        return;
    }
    eprintln!("{}", report_text(&files));
    for f in &files {
        if let Some(h) = f.split("holdout") {
            for m in &h.metrics {
                let goal = bound(&f.file, m.metric);
                assert!(
                    m.mape_pct <= goal,
                    "{}: holdout {} MAPE {:.2}% over {goal}%",
                    f.file,
                    m.metric,
                    m.mape_pct
                );
            }
        }
        for r in f.rows.iter().filter(|r| r.workload == "pointer_chase") {
            let err = r.cycles_error_pct();
            assert!(
                err.abs() <= CHASE_MAX,
                "{}: {} {}: cycles {err:+.1}% (latency calibration, at most {CHASE_MAX}%, hw {} sim {})",
                f.file,
                r.workload,
                r.params,
                metric(&r.hw, "cycles"),
                metric(&r.sim, "cycles")
            );
        }
    }
    // The table `config show` and the page print must be this comparison's.
    let now = held_out(&files);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/validate/held_out_table.rs");
    let src = table_source(&now);
    if std::env::var_os("WARPWEAVE_REGEN_HELD_OUT").is_some() {
        std::fs::write(&path, &src).expect("write the held-out table");
        return;
    }
    assert_eq!(
        table_source(HELD_OUT),
        src,
        "{} is out of date: run WARPWEAVE_REGEN_HELD_OUT=1 cargo test --release --features cli --test hardware_compare",
        path.display()
    );
}

/// The in-kernel clock probes (`results/h100-probes.csv`): each warp's `clock64()` delta on
/// the card against the simulated issue cycles of the same clock reads. Printed per probe;
/// fails when a probe's mean error exceeds what the model reaches now ([`PROBE_MAX`]).
#[test]
fn in_kernel_clock_probes() {
    let dir = results_dir();
    if !dir.join("h100-probes.csv").exists() {
        eprintln!("no probes in {}: skipped", dir.display());
        return;
    }
    let rep = warpweave::validate::probes::compare(&dir).expect("probes");
    eprintln!("{}", rep.text());
    assert!(!rep.rows.is_empty());
    for (w, p) in rep.probes() {
        let e = rep.probe_error_pct(&w, &p).unwrap();
        let max = PROBE_MAX
            .iter()
            .find(|(n, _)| *n == w)
            .map_or(f64::INFINITY, |x| x.1);
        assert!(e <= max, "{w} {p}: mean |error| {e:.1}% > {max}%");
    }
}
