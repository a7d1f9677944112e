//! A simulation session driven in slices by a host: the browser's Web Worker (through
//! `wasm.rs`), or a test. Platform-independent so that everything here is tested natively and
//! the page's numbers are the library's numbers.
//!
//! ```text
//!  Session::new(source, config, mode)      source: uploaded bytes (input.rs) or a workload
//!     │ run_for(cycles) -> Progress        called repeatedly; the host posts progress and can
//!     │ run_for(cycles) -> Progress        drop the session between slices (cancel)
//!     └ result_json() -> String            { version, mode, gpu, config, trace, result }
//! ```
//!
//! Modes: `memory` runs the functional memory model (seed 004, `mem::functional`). The timing
//! modes (`cycle`, `hybrid`, `fast`, per-module mixes) need the engine (h/sm): until it is merged
//! they return an error that says so; no number is invented.

pub mod config;
pub mod input;

#[cfg(test)]
mod golden;

use serde::Serialize;

use crate::config::GpuConfig;
use crate::mem::functional;
use crate::trace::opcodes::Arch;
use crate::{Error, Result};
pub use input::Source;

/// How a run is modelled, as the user named it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Functional cache simulation only: hit rates and transactions, no timing.
    Memory,
    /// A timing mode of the engine: `cycle`, `hybrid`, `fast` or a per-module mix.
    Timing(String),
}

impl Mode {
    pub fn parse(s: &str) -> Result<Mode> {
        let s = s.trim();
        match s {
            "memory" => Ok(Mode::Memory),
            "cycle" | "hybrid" | "fast" => Ok(Mode::Timing(s.to_string())),
            _ if s.contains('=') => Ok(Mode::Timing(s.to_string())),
            _ => Err(Error::config("mode", format!("`{s}` is not a mode (allowed: cycle, hybrid, fast, memory, or a per-module mix like alu=analytic,mem=cycle)"))),
        }
    }
    pub fn name(&self) -> &str {
        match self {
            Mode::Memory => "memory",
            Mode::Timing(s) => s,
        }
    }
}

/// What a host shows between slices.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// `loading`, `simulating`, `memory`, `done`.
    pub phase: &'static str,
    /// Simulated core cycles so far (f64 in JS; exact below 2^53).
    pub cycles: u64,
    pub ctas_done: u64,
    pub ctas_total: u64,
    /// Kernels finished / in the trace.
    pub kernels_done: u32,
    pub kernels: u32,
    pub done: bool,
}

/// Metadata of the input, printed in every result.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TraceMeta {
    pub name: String,
    pub hash: String,
    pub kernels: Vec<KernelMeta>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KernelMeta {
    pub name: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub ctas: u64,
}

enum State {
    Ready,
    Done(String),
}

/// One run.
pub struct Session {
    source: Source,
    cfg: GpuConfig,
    mode: Mode,
    meta: TraceMeta,
    state: State,
}

/// The architecture whose opcode table classifies kernels with binary version 0.
pub fn arch_of(cfg: &GpuConfig) -> Arch {
    Arch::from_name(&cfg.gpu.arch).or_else(|| Arch::from_binary_version(cfg.gpu.compute_capability)).unwrap_or_default()
}

impl Session {
    pub fn new(mut source: Source, cfg: GpuConfig, mode: &str) -> Result<Session> {
        let mode = Mode::parse(mode)?;
        let kernels = (0..source.kernel_count())
            .map(|k| {
                let i = source.kernel_info(k);
                KernelMeta {
                    name: i.name.clone(),
                    grid: [i.grid.x, i.grid.y, i.grid.z],
                    block: [i.block.x, i.block.y, i.block.z],
                    ctas: i.num_ctas(),
                }
            })
            .collect();
        let meta = TraceMeta { name: source.name().to_string(), hash: source.trace_hash(), kernels };
        let _ = &mut source;
        Ok(Session { source, cfg, mode, meta, state: State::Ready })
    }

    pub fn trace(&self) -> &TraceMeta {
        &self.meta
    }

    pub fn config(&self) -> &GpuConfig {
        &self.cfg
    }

    fn ctas_total(&self) -> u64 {
        self.meta.kernels.iter().map(|k| k.ctas).sum()
    }

    /// Advances the run by at most `max_cycles` simulated cycles (the memory mode, which has no
    /// time, runs whole in the first call).
    pub fn run_for(&mut self, max_cycles: u64) -> Result<Progress> {
        let _ = max_cycles;
        if let State::Ready = self.state {
            match &self.mode {
                Mode::Memory => {
                    let rep = functional::run(&self.cfg, &mut *self.source)?;
                    self.state = State::Done(self.envelope(&rep)?);
                }
                Mode::Timing(m) => {
                    return Err(Error::other(format!(
                        "the `{m}` mode needs the timing engine, which this build does not include yet (engine work in progress); choose the `memory` mode"
                    )));
                }
            }
        }
        let total = self.ctas_total();
        let kernels = self.meta.kernels.len() as u32;
        Ok(Progress { phase: "done", cycles: 0, ctas_done: total, ctas_total: total, kernels_done: kernels, kernels, done: true })
    }

    pub fn is_done(&self) -> bool {
        matches!(self.state, State::Done(_))
    }

    /// The whole result as JSON text: version, mode, GPU, effective config, trace metadata and
    /// the model's report. Errors when the run has not finished.
    pub fn result_json(&self) -> Result<&str> {
        match &self.state {
            State::Done(s) => Ok(s),
            State::Ready => Err(Error::other("the run has not finished: call runFor until progress.done")),
        }
    }

    fn envelope<T: Serialize>(&self, result: &T) -> Result<String> {
        #[derive(Serialize)]
        struct Envelope<'a, T> {
            tool: &'static str,
            version: &'static str,
            mode: &'a str,
            gpu: &'a str,
            config: &'a GpuConfig,
            trace: &'a TraceMeta,
            result: &'a T,
        }
        let e = Envelope {
            tool: "warpweave",
            version: crate::VERSION,
            mode: self.mode.name(),
            gpu: &self.cfg.gpu.id,
            config: &self.cfg,
            trace: &self.meta,
            result,
        };
        serde_json::to_string(&e).map_err(|e| Error::other(format!("cannot serialise the result: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_mode_matches_the_library_report() {
        let src = input::open_workload("vecadd", &[("n".into(), "1024".into())]).unwrap();
        let cfg = config::preset("default").unwrap();
        let mut s = Session::new(src, cfg.clone(), "memory").unwrap();
        let p = s.run_for(1000).unwrap();
        assert!(p.done);
        assert_eq!(p.ctas_total, s.trace().kernels.iter().map(|k| k.ctas).sum::<u64>());
        let v: serde_json::Value = serde_json::from_str(s.result_json().unwrap()).unwrap();
        let mut direct_src = input::open_workload("vecadd", &[("n".into(), "1024".into())]).unwrap();
        let direct = functional::run(&cfg, &mut *direct_src).unwrap();
        assert_eq!(v["result"], serde_json::to_value(&direct).unwrap());
        assert_eq!(v["mode"], "memory");
        assert_eq!(v["trace"]["hash"], direct_src.trace_hash());
    }

    #[test]
    fn unknown_mode_names_the_key() {
        assert_eq!(
            Mode::parse("turbo").unwrap_err().to_string(),
            "config key `mode`: `turbo` is not a mode (allowed: cycle, hybrid, fast, memory, or a per-module mix like alu=analytic,mem=cycle)"
        );
    }

    #[test]
    fn result_before_the_end_is_an_error() {
        let src = input::open_workload("vecadd", &[]).unwrap();
        let s = Session::new(src, GpuConfig::default(), "memory").unwrap();
        assert!(s.result_json().is_err());
    }
}
