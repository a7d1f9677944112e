//! `warpweave sweep`: run a plan locally in parallel, emit it as a SLURM job array, run one chunk
//! (what each array task does), or collect the chunks into the same CSV and charts.
//!
//! ```text
//!  warpweave sweep PLAN [--out DIR] [-j N]            local: DIR/results.csv, DIR/plots/*.svg+png
//!  warpweave sweep PLAN --emit slurm DIR [--chunks N]  DIR/sweep.sbatch (+ sweep.json)
//!  warpweave sweep run-chunk PLAN --chunk I --of N --out FILE
//!  warpweave sweep collect DIR [--out DIR]
//! ```

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use warpweave::sweep::chunk::{check_chunk, Part};
use warpweave::sweep::files::{self, load_plan};
use warpweave::sweep::sim::SimRunner;
use warpweave::sweep::slurm::SlurmOptions;
use warpweave::sweep::{chunk_range, run_jobs, Executor, Job, JobRunner, NoProgress, Progress};
use warpweave::trace::check::Policy;
use warpweave::{Error, Result};

use crate::cmd_run::CheckArgs;

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    cmd: Option<SweepCmd>,
    /// The sweep plan (TOML; see configs/sweeps/README.md).
    #[arg(required = true)]
    plan: Option<PathBuf>,
    /// Output folder for results.csv, results.json and plots/ (default: sweep-<plan name>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Instead of running, write a job-array script: `--emit slurm DIR`.
    #[arg(long, num_args = 2, value_names = ["KIND", "DIR"])]
    emit: Option<Vec<String>>,
    /// Array tasks for --emit (default: one per run, at most 256).
    #[arg(long)]
    chunks: Option<usize>,
    /// SLURM partition for --emit.
    #[arg(long)]
    partition: Option<String>,
    /// SLURM time limit per task for --emit (e.g. 01:00:00).
    #[arg(long)]
    time: Option<String>,
    /// CPUs per array task for --emit.
    #[arg(long, default_value_t = 1)]
    cpus_per_task: u32,
    /// Threads for local runs (default: all cores).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
    /// Continue a stopped sweep: the runs already in OUT/points.jsonl are kept, the others run
    /// (results identical to an uninterrupted sweep).
    #[arg(long)]
    resume: bool,
    /// Unknown opcodes and kernels with CTAs missing in the plan's trace files (passed on to
    /// every task of --emit slurm).
    #[command(flatten)]
    checks: CheckArgs,
}

#[derive(Subcommand, Debug)]
enum SweepCmd {
    /// Run chunk I of N of a plan and write its part file (what each SLURM array task runs).
    RunChunk {
        plan: PathBuf,
        #[arg(long)]
        chunk: usize,
        #[arg(long)]
        of: usize,
        #[arg(long)]
        out: PathBuf,
        #[arg(short = 'j', long)]
        jobs: Option<usize>,
        #[command(flatten)]
        checks: CheckArgs,
    },
    /// Merge the part files of an emitted folder into results.csv and plots.
    Collect {
        dir: PathBuf,
        /// Output folder (default: DIR).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

struct Bar(crate::progress::Progress);
impl Progress for Bar {
    fn job_done(&self, job: &Job) {
        self.0.inc(&format!("run {} done", job.id));
    }
}

fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        b = b.num_threads(crate::host::cap_threads(n, "--jobs").max(1));
    }
    b.build()
        .map_err(|e| Error::other(format!("thread pool: {e}")))
}

pub fn run(a: &SweepArgs) -> Result<()> {
    match &a.cmd {
        Some(SweepCmd::RunChunk {
            plan,
            chunk,
            of,
            out,
            jobs,
            checks,
        }) => run_chunk(plan, (*chunk, *of), out, *jobs, checks.policy()?),
        Some(SweepCmd::Collect { dir, out }) => {
            let (plan, results) = files::collect(dir)?;
            let w = files::write_outputs(&plan, &results, out.as_deref().unwrap_or(dir))?;
            crate::outln!(
                "{} runs -> {} ({} plots)",
                results.len(),
                w.csv.display(),
                w.plots.len()
            );
            Ok(())
        }
        None => {
            let plan_path = a
                .plan
                .as_deref()
                .ok_or_else(|| Error::other("sweep: expected a plan file"))?;
            if let Some(e) = &a.emit {
                if e[0] != "slurm" {
                    return Err(Error::other(format!("--emit {}: expected `slurm`", e[0])));
                }
                let (plan, _) = load_plan(plan_path)?;
                let chunks = a.chunks.unwrap_or_else(|| plan.job_count().clamp(1, 256));
                let bin =
                    std::env::current_exe().map_err(|e| Error::io("current executable", e))?;
                a.checks.policy()?;
                let mut run_args = vec![
                    "--unknown-opcodes".to_string(),
                    a.checks.unknown_opcodes.clone(),
                ];
                if a.checks.allow_partial {
                    run_args.push("--allow-partial".into());
                }
                let opt = SlurmOptions {
                    partition: a.partition.clone(),
                    time: a.time.clone(),
                    cpus_per_task: a.cpus_per_task,
                    run_args,
                };
                let script = files::emit_slurm(plan_path, Path::new(&e[1]), chunks, &bin, &opt)?;
                crate::outln!(
                    "{} runs in {chunks} array tasks: sbatch {}",
                    plan.job_count(),
                    script.display()
                );
                crate::outln!("then: {} sweep collect {}", bin.display(), e[1]);
                return Ok(());
            }
            local(
                plan_path,
                a.out.clone(),
                a.jobs,
                (a.quiet, a.resume),
                a.checks.policy()?,
            )
        }
    }
}

fn local(
    plan_path: &Path,
    out: Option<PathBuf>,
    threads: Option<usize>,
    (quiet, resume): (bool, bool),
    policy: Policy,
) -> Result<()> {
    let (plan, dir) = load_plan(plan_path)?;
    let out = out.unwrap_or_else(|| PathBuf::from(format!("sweep-{}", plan.name)));
    // The output folder is checked and the journal opened before any run; each finished run is
    // appended to it as it completes, so a stopped sweep keeps its runs.
    let (journal, done) = files::Journal::open(&plan, &out, resume)?;
    if !done.is_empty() {
        eprintln!(
            "resuming: {} of {} runs already in {}",
            done.len(),
            plan.job_count(),
            journal.path().display()
        );
    }
    let mut have = vec![false; plan.job_count()];
    for r in &done {
        have[r.id] = true;
    }
    let jobs: Vec<Job> = plan.jobs().into_iter().filter(|j| !have[j.id]).collect();
    let sim = SimRunner {
        policy,
        ..SimRunner::new(dir.display().to_string())
    };
    let runner = |p: &warpweave::sweep::Plan, j: &Job| -> Result<warpweave::sweep::Metrics> {
        let m = sim.run(p, j)?;
        journal.append(&warpweave::sweep::JobResult {
            id: j.id,
            metrics: m.clone(),
        })?;
        Ok(m)
    };
    let progress = Bar(crate::progress::Progress::new(
        "sweep",
        jobs.len() as u64,
        "runs",
        quiet,
    ));
    let new = pool(threads)?
        .install(|| run_jobs(&plan, &jobs, &runner, Executor::Parallel, &progress))?;
    progress.0.finish();
    let mut results = done;
    results.extend(new);
    results.sort_by_key(|r| r.id);
    let w = files::write_outputs(&plan, &results, &out)?;
    crate::outln!(
        "{} runs -> {} ({} plots)",
        results.len(),
        w.csv.display(),
        w.plots.len()
    );
    Ok(())
}

fn run_chunk(
    plan_path: &Path,
    (chunk, of): (usize, usize),
    out: &Path,
    threads: Option<usize>,
    policy: Policy,
) -> Result<()> {
    let (plan, dir) = load_plan(plan_path)?;
    check_chunk(&plan, chunk, of)?;
    let jobs: Vec<Job> = chunk_range(plan.job_count(), chunk, of)
        .map(|i| plan.job(i))
        .collect();
    let runner = SimRunner {
        policy,
        ..SimRunner::new(dir.display().to_string())
    };
    let results = pool(threads)?
        .install(|| run_jobs(&plan, &jobs, &runner, Executor::Parallel, &NoProgress))?;
    files::write_part(&Part::new(&plan, chunk, of, results), out)
}
