//! The simulator as a sweep runner: GPU preset + `[set]` + axis overrides -> config; workload
//! -> trace source; mode -> model choice; engine -> flat metrics.
//!
//! ```text
//!  Job ─> GpuConfig (preset, overrides) ─┐
//!      ─> TraceSource (built-in | file) ─┼─> engine ─> [("cycles", ..), ("ipc", ..), ...]
//!      ─> mode                          ─┘
//! ```

use super::overrides;
use super::plan::{Job, Plan, WorkloadSource};
use super::run::{JobRunner, Metrics};
use crate::config::GpuConfig;
use crate::{Error, Result};

/// Runs plan jobs on the simulator. `base_dir` is the plan's folder: relative trace and config
/// paths resolve there.
#[derive(Clone, Debug, Default)]
pub struct SimRunner {
    pub base_dir: String,
}

impl SimRunner {
    pub fn new(base_dir: impl Into<String>) -> Self {
        SimRunner { base_dir: base_dir.into() }
    }

    fn resolve(&self, p: &str) -> String {
        if p.starts_with('/') || self.base_dir.is_empty() {
            p.to_string()
        } else {
            format!("{}/{p}", self.base_dir.trim_end_matches('/'))
        }
    }

    /// The configuration of one run.
    pub fn config(&self, plan: &Plan, job: &Job) -> Result<GpuConfig> {
        let mut cfg = self.preset(&plan.gpu)?;
        overrides::apply_all(&mut cfg, plan.overrides(job))?;
        Ok(cfg)
    }

    fn preset(&self, gpu: &str) -> Result<GpuConfig> {
        if gpu.ends_with(".toml") {
            return self.config_file(&self.resolve(gpu));
        }
        preset(gpu)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn config_file(&self, path: &str) -> Result<GpuConfig> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        toml::from_str(&text).map_err(|e| Error::parse(path, 0, "toml", e.message().trim().to_string()))
    }

    #[cfg(target_arch = "wasm32")]
    fn config_file(&self, path: &str) -> Result<GpuConfig> {
        Err(Error::other(format!("{path}: config files cannot be read in the browser")))
    }
}

/// A named GPU preset.
pub fn preset(id: &str) -> Result<GpuConfig> {
    match id {
        "default" => Ok(GpuConfig::default()),
        _ => Err(Error::config("gpu", format!("unknown preset `{id}`; expected `default` or a .toml path"))),
    }
}

impl JobRunner for SimRunner {
    fn run(&self, plan: &Plan, job: &Job) -> Result<Metrics> {
        let _cfg = self.config(plan, job)?;
        match &plan.workloads[job.workload].source {
            WorkloadSource::Builtin { name, .. } => {
                Err(Error::other(format!("workload `{name}`: the simulator engine is not merged into this branch yet")))
            }
            WorkloadSource::Trace { path } => {
                Err(Error::other(format!("trace `{}`: the simulator engine is not merged into this branch yet", self.resolve(path))))
            }
        }
    }
}
