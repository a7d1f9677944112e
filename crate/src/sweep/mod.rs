//! Design-space sweeps: a TOML plan of config keys with value lists, workloads and modes expands
//! to independent runs; they run in parallel (or as SLURM array tasks) and come back as one CSV
//! and a set of SVG charts. Seed 003 (the SIMD teaching simulator) is the study this reproduces:
//! warps per processing block x multi-issue (its Figures 6-8) and processing blocks (Figure 9).
//!
//! ```text
//!  plan.toml ─> Plan ─> jobs 0..N ─┬─ local: run_jobs (rayon) ────────────────┐
//!                                  └─ SLURM: sweep.sbatch, task i = run-chunk ─┴─> [JobResult]
//!                                          part-i.json ──collect──────────────────────┘   │
//!                                                      Table ─> results.csv, plots/*.svg+png <┘
//! ```
//!
//! Submodules: `plan` (format, expansion, chunks), `run` (runner trait, executor), `table` (CSV),
//! `charts` (plots of a table), `chunk` (parts, manifest, merge), `slurm` (job-array script),
//! `sim` (the simulator as a runner), `files` (native I/O).

pub mod charts;
pub mod chunk;
pub mod plan;
pub mod run;
pub mod sim;
pub mod slurm;
pub mod table;

#[cfg(not(target_arch = "wasm32"))]
pub mod files;

pub use plan::{chunk_range, Axis, Job, Plan, PlotKind, PlotSpec, WorkloadSource, WorkloadSpec};
pub use run::{run_jobs, Executor, JobResult, JobRunner, Metrics, NoProgress, Progress};
pub use table::Table;
