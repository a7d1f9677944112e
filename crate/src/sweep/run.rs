//! Running the jobs of a plan: independent runs, serially or in parallel (rayon, feature
//! `parallel`), results always returned in run-id order.
//!
//! ```text
//!  [Job 3, Job 4, Job 5] ──par_iter──> runner.run(job) ──> [JobResult 3, 4, 5]   (order kept)
//!                                            └─ progress.job_done()
//! ```
//!
//! The runner is a tiny trait so the orchestration does not care what a run is: the simulator
//! (`sim::SimRunner`), or a closure in tests.

use serde::{Deserialize, Serialize};

use super::plan::{Job, Plan};
use crate::{Error, Result};

/// The flat metrics of one run, in the order the runner reports them.
pub type Metrics = Vec<(String, f64)>;

/// Runs one job of a plan.
pub trait JobRunner: Sync {
    fn run(&self, plan: &Plan, job: &Job) -> Result<Metrics>;
}

/// Any `Fn(&Plan, &Job) -> Result<Metrics>` is a runner.
impl<F> JobRunner for F
where
    F: Fn(&Plan, &Job) -> Result<Metrics> + Sync,
{
    fn run(&self, plan: &Plan, job: &Job) -> Result<Metrics> {
        self(plan, job)
    }
}

/// Told when a job finishes; the CLI draws a progress bar, the default does nothing.
pub trait Progress: Sync {
    fn job_done(&self, _job: &Job) {}
}

/// A progress sink that ignores everything.
pub struct NoProgress;
impl Progress for NoProgress {}

/// The outcome of one run: its id and metrics (labels come from the plan).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    pub id: usize,
    pub metrics: Metrics,
}

/// How to run a list of jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Executor {
    Serial,
    /// Rayon's global pool (falls back to serial without the `parallel` feature).
    Parallel,
}

/// Runs `jobs` and returns their results in the order of `jobs`; the first failing job (lowest
/// position) becomes the error, naming the run and its labels.
pub fn run_jobs(
    plan: &Plan,
    jobs: &[Job],
    runner: &dyn JobRunner,
    exec: Executor,
    progress: &dyn Progress,
) -> Result<Vec<JobResult>> {
    let one = |job: &Job| -> Result<JobResult> {
        let r = runner.run(plan, job).map_err(|e| job_error(plan, job, &e));
        progress.job_done(job);
        Ok(JobResult {
            id: job.id,
            metrics: r?,
        })
    };
    match exec {
        #[cfg(feature = "parallel")]
        Executor::Parallel => {
            use rayon::prelude::*;
            let v: Vec<Result<JobResult>> = jobs.par_iter().map(one).collect();
            v.into_iter().collect()
        }
        _ => jobs.iter().map(one).collect(),
    }
}

fn job_error(plan: &Plan, job: &Job, e: &Error) -> Error {
    let labels: Vec<String> = plan
        .label_columns()
        .iter()
        .zip(plan.labels(job))
        .skip(1)
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    Error::other(format!(
        "{}: run {} ({}): {e}",
        plan.file,
        job.id,
        labels.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan::parse(
            "gpu = \"g\"\n[[workload]]\nname = \"w\"\n[axes]\na = [1, 2, 3]\nb = [10, 20]\n",
            "p.toml",
        )
        .unwrap()
    }

    fn product(_: &Plan, j: &Job) -> Result<Metrics> {
        let a: f64 = j.axes[0].1.parse().unwrap();
        let b: f64 = j.axes[1].1.parse().unwrap();
        Ok(vec![("prod".into(), a * b), ("id".into(), j.id as f64)])
    }

    #[test]
    fn parallel_equals_serial_in_id_order() {
        let p = plan();
        let jobs = p.jobs();
        let s = run_jobs(&p, &jobs, &product, Executor::Serial, &NoProgress).unwrap();
        let par = run_jobs(&p, &jobs, &product, Executor::Parallel, &NoProgress).unwrap();
        assert_eq!(s, par);
        let prods: Vec<f64> = s.iter().map(|r| r.metrics[0].1).collect();
        assert_eq!(prods, vec![10.0, 20.0, 20.0, 40.0, 30.0, 60.0]);
    }

    #[test]
    fn failing_job_names_its_labels() {
        let p = plan();
        let fail = |_: &Plan, j: &Job| -> Result<Metrics> {
            if j.id >= 3 {
                Err(Error::config("b", "too big"))
            } else {
                Ok(vec![])
            }
        };
        let e = run_jobs(&p, &p.jobs(), &fail, Executor::Parallel, &NoProgress)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "p.toml: run 3 (workload=w, mode=cycle, a=2, b=20): config key `b`: too big"
        );
    }
}
