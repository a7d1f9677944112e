//! The simulator as a sweep runner: GPU preset + `[set]` + axis overrides -> config; workload
//! -> trace source; mode -> model choice; engine -> flat metrics.
//!
//! ```text
//!  Job ─> GpuConfig (config::load, apply_override..., validate) ─┐
//!      ─> TraceSource (workload::generate | trace file)          ─┼─> Simulator::run_to_end
//!      ─> ModelChoice (mode)                                     ─┘        │
//!         [("cycles", ..), ("ipc", ..), ("warp_insts", ..), ("stall.<kind>", ..)] <┘
//! ```
//! Only deterministic numbers become metrics (no wall time), so a sweep's CSV is the same on
//! every machine, thread count and chunking.

use super::plan::{Job, Plan, WorkloadSource};
use super::run::{JobRunner, Metrics};
use crate::analytic::PrepassCache;
use crate::config::{self, GpuConfig};
use crate::engine::compare::prepared_simulator;
use crate::engine::{ModelChoice, SimResult};
use crate::stats::StallKind;
use crate::trace::check::Policy;
use crate::trace::TraceSource;
use crate::workload::{self, Params};
use crate::{Error, Result};

/// Runs plan jobs on the simulator. `base_dir` is the plan's folder: relative trace and config
/// paths resolve there.
#[derive(Clone, Debug, Default)]
pub struct SimRunner {
    pub base_dir: String,
    /// How strictly trace files are read (unknown opcodes, kernels with CTAs missing).
    pub policy: Policy,
}

/// A sweep mode as a model choice: `cycle`, `hybrid` and `fast` mean exactly what the CLI's
/// `--mode` means ([`ModelChoice::named`]); `default` is what the engine does when nobody asks
/// (cycle SM, analytical memory side); or a list `alu=cycle,memory=analytical`.
pub fn model_for_mode(mode: &str) -> Result<ModelChoice> {
    Ok(match mode {
        "default" => ModelChoice::default(),
        "cycle" | "hybrid" | "fast" => ModelChoice::named(mode)?,
        list if list.contains('=') => {
            let mut m = ModelChoice::default();
            for kv in list.split(',') {
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| {
                        Error::other(format!(
                            "sweep plan key `modes`: `{kv}`: expected module=model"
                        ))
                    })?;
                m.set(k.trim(), v.trim())?;
            }
            m
        }
        other => {
            return Err(Error::other(format!(
                "sweep plan key `modes`: `{other}` is not a mode; {}allowed: default, cycle, hybrid, fast, or module=model,...",
                crate::error::did_you_mean(other, ["default", "cycle", "hybrid", "fast"])
            )))
        }
    })
}

impl SimRunner {
    pub fn new(base_dir: impl Into<String>) -> Self {
        SimRunner {
            base_dir: base_dir.into(),
            policy: Policy::STRICT,
        }
    }

    fn resolve(&self, p: &str) -> String {
        if p.starts_with('/') || self.base_dir.is_empty() {
            p.to_string()
        } else {
            format!("{}/{p}", self.base_dir.trim_end_matches('/'))
        }
    }

    /// The configuration of one run: preset (or TOML path), `[set]`, axis values, validated.
    pub fn config(&self, plan: &Plan, job: &Job) -> Result<GpuConfig> {
        let spec = if plan.gpu.ends_with(".toml") {
            self.resolve(&plan.gpu)
        } else {
            plan.gpu.clone()
        };
        let mut cfg = config::load(&spec)?;
        for (k, v) in plan.overrides(job) {
            config::apply_override(&mut cfg, k, v)?;
        }
        cfg.validate()?;
        Ok(cfg)
    }

    /// The trace of one run.
    pub fn source(
        &self,
        plan: &Plan,
        job: &Job,
        cfg: &GpuConfig,
    ) -> Result<Box<dyn TraceSource + Send>> {
        match &plan.workloads[job.workload].source {
            WorkloadSource::Builtin { name, params } => {
                let p = Params {
                    pairs: params.clone(),
                };
                Ok(Box::new(workload::generate(name, &p)?))
            }
            WorkloadSource::Trace { path } => {
                let arch = crate::trace::open::default_arch(cfg);
                crate::trace::open::open_spec_with(&self.resolve(path), arch, self.policy)
            }
        }
    }

    /// Runs one job to the end and returns the engine's full result.
    pub fn simulate(&self, plan: &Plan, job: &Job) -> Result<SimResult> {
        let cfg = self.config(plan, job)?;
        let model = model_for_mode(&job.mode)?;
        let mut open = || self.source(plan, job, &cfg);
        let mut cache = PrepassCache::new();
        prepared_simulator(&cfg, model, &mut open, &mut cache)?
            .0
            .run_to_end()
    }
}

/// The flat metrics of a result: totals, then the stall (CPI) stack.
pub fn metrics(r: &SimResult) -> Metrics {
    let mut m: Metrics = vec![
        ("cycles".into(), r.cycles as f64),
        ("warp_insts".into(), r.warp_insts as f64),
        ("thread_insts".into(), r.thread_insts as f64),
        ("ipc".into(), r.ipc),
        ("kernels".into(), r.kernels.len() as f64),
    ];
    for k in StallKind::ALL {
        m.push((format!("stall.{}", k.name()), r.stall_stack.get(k) as f64));
    }
    m
}

impl JobRunner for SimRunner {
    fn run(&self, plan: &Plan, job: &Job) -> Result<Metrics> {
        Ok(metrics(&self.simulate(plan, job)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_map_to_models() {
        assert_eq!(model_for_mode("default").unwrap(), ModelChoice::default());
        let h = model_for_mode("hybrid").unwrap();
        assert_eq!(h, ModelChoice::named("hybrid").unwrap());
        assert_eq!(
            (h.alu, h.frontend, h.memory),
            (
                crate::engine::ModuleModel::Analytical,
                crate::engine::ModuleModel::Analytical,
                crate::engine::ModuleModel::Cycle
            )
        );
        let l = model_for_mode("alu=cycle,memory=analytical").unwrap();
        assert_eq!(l, ModelChoice::default());
        let e = model_for_mode("turbo").unwrap_err().to_string();
        assert!(
            e.starts_with("sweep plan key `modes`: `turbo` is not a mode"),
            "{e}"
        );
    }

    #[test]
    fn fast_takes_the_functional_pre_pass_like_the_cli() {
        // Without the pre-pass the analytical memory path takes every access as an L1 hit.
        let plan = Plan::parse(
            "gpu = \"teaching\"\nmodes = [\"fast\"]\n[[workload]]\nname = \"vecadd\"\nparams = { n = 8192 }\n",
            "p.toml",
        )
        .unwrap();
        let job = plan.job(0);
        let runner = SimRunner::default();
        let swept = runner.simulate(&plan, &job).unwrap();
        let cfg = runner.config(&plan, &job).unwrap();
        let fast = crate::engine::Mode::parse("fast").unwrap();
        let lone = match crate::engine::compare::run_mode(&cfg, fast, &mut || {
            runner.source(&plan, &job, &cfg)
        })
        .unwrap()
        {
            crate::engine::compare::Outcome::Timed { result, prepass } => {
                assert!(prepass.is_some());
                result
            }
            _ => unreachable!("fast is a timing mode"),
        };
        assert_eq!(swept.cycles, lone.cycles);
        let bare = crate::engine::Simulator::new(
            cfg.clone(),
            model_for_mode("fast").unwrap(),
            runner.source(&plan, &job, &cfg).unwrap(),
        )
        .unwrap()
        .run_to_end()
        .unwrap();
        assert!(
            bare.cycles < swept.cycles,
            "{} vs {}",
            bare.cycles,
            swept.cycles
        );
    }

    #[test]
    fn bad_override_names_the_run_and_key() {
        let plan = Plan::parse(
            "gpu = \"teaching\"\nmodes = [\"default\"]\n[[workload]]\nname = \"vecadd\"\n[axes]\n\"sm.nonsense\" = [1]\n",
            "p.toml",
        )
        .unwrap();
        let e = SimRunner::default()
            .run(&plan, &plan.job(0))
            .unwrap_err()
            .to_string();
        assert!(e.contains("sm.nonsense"), "{e}");
    }
}
