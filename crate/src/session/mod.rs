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
//! Modes: `cycle`, `hybrid` (analytical ALU pipeline), `fast` (analytical ALU and memory
//! path) and per-module mixes (`alu=cycle,memory=analytical`) drive `engine::Simulator`, whose
//! `ModelChoice::validate` rejects what this build cannot simulate yet (with the key named);
//! `memory` runs the functional memory model (seed 004, `mem::functional`).

pub mod archive;
pub mod config;
pub mod input;

#[cfg(test)]
mod golden;

use serde::Serialize;

use crate::config::GpuConfig;
use crate::engine::{ModelChoice, ModuleModel, RunStatus, Simulator};
use crate::mem::functional;
use crate::timeline::{self, RecordConfig, Timeline};
use crate::trace::opcodes::Arch;
use crate::{Error, Result};
pub use input::Source;

/// How a run is modelled, as the user named it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Functional cache simulation only: hit rates and transactions, no timing.
    Memory,
    /// A timing mode of the engine, by name (`cycle`, `hybrid`, `fast` or the mix as given).
    Timing(String, ModelChoice),
}

impl Mode {
    pub fn parse(s: &str) -> Result<Mode> {
        let s = s.trim();
        let mut m = ModelChoice::default();
        match s {
            "memory" => return Ok(Mode::Memory),
            // The CLI's `--mode` names: `cycle` ticks every module (the cycle memory system
            // included), `hybrid` makes the ALU pipeline analytical, `fast` also the memory path.
            "cycle" | "hybrid" | "fast" => m = ModelChoice::named(s)?,
            _ if s.contains('=') => {
                for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    let (k, v) = part
                        .split_once('=')
                        .ok_or_else(|| Error::other(format!("mode: `{part}` is not module=model")))?;
                    m.set(k.trim(), v.trim())?;
                }
            }
            _ => {
                return Err(Error::other(format!(
                    "`{s}` is not a mode; {}allowed: cycle, hybrid, fast, memory, or a per-module mix like alu=cycle,memory=analytical",
                    crate::error::did_you_mean(s, ["cycle", "hybrid", "fast", "memory"])
                )))
            }
        }
        Ok(Mode::Timing(s.to_string(), m))
    }
    /// Any timing mode whose memory path is analytical (named or a per-module mix) takes its
    /// hit rates from the functional pre-pass, as every CLI run does
    /// (`engine::compare::prepared_simulator`).
    fn wants_pc_rates(&self) -> bool {
        matches!(self, Mode::Timing(_, m) if m.memory == ModuleModel::Analytical)
    }
    pub fn name(&self) -> &str {
        match self {
            Mode::Memory => "memory",
            Mode::Timing(s, _) => s,
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

/// IPC and cache hit rates over time, sampled every `interval` simulated cycles (deterministic:
/// the samples depend on simulated time only, never on how the host slices the run). When 1024
/// points are reached, every other point is dropped and the interval doubles, so the series
/// stays small.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Series {
    pub interval: u64,
    /// Sample cycles.
    pub cycle: Vec<u64>,
    /// Warp instructions per cycle over the interval ending at each sample (whole GPU).
    pub ipc: Vec<f64>,
    /// L1D hits / accesses over the interval ending at each sample, all SMs (`null`: no access
    /// in the interval, or no cycle-level L1 in this mode).
    pub l1_hit_rate: Vec<Option<f64>>,
    /// L2 hits / accesses over the interval, all slices (`null` as for the L1).
    pub l2_hit_rate: Vec<Option<f64>>,
    #[serde(skip)]
    insts: Vec<u64>,
    /// Cumulative (L1 hits, L1 accesses, L2 hits, L2 accesses) at each sample.
    #[serde(skip)]
    caches: Vec<[u64; 4]>,
    #[serde(skip)]
    next_at: u64,
}

/// A sample's cumulative counters: warp instructions and (L1 hits, accesses, L2 hits,
/// accesses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    pub warp_insts: u64,
    pub caches: [u64; 4],
}

const SERIES_MAX: usize = 1024;

impl Series {
    fn new(interval: u64) -> Self {
        Series {
            interval,
            next_at: interval,
            ..Default::default()
        }
    }
    fn record(&mut self, cycle: u64, s: Sample) {
        if self.cycle.last() == Some(&cycle) {
            self.insts.pop();
            self.cycle.pop();
            self.caches.pop();
        }
        self.cycle.push(cycle);
        self.insts.push(s.warp_insts);
        self.caches.push(s.caches);
        self.next_at = cycle + self.interval;
        if self.cycle.len() >= SERIES_MAX {
            fn keep<T: Copy>(v: &mut Vec<T>) {
                let w: Vec<T> = v.iter().copied().skip(1).step_by(2).collect();
                *v = w;
            }
            keep(&mut self.cycle);
            keep(&mut self.insts);
            keep(&mut self.caches);
            self.interval *= 2;
            self.next_at = self.cycle.last().copied().unwrap_or(0) + self.interval;
        }
    }
    fn finish(&mut self) {
        let mut prev = (0u64, 0u64);
        self.ipc = self
            .cycle
            .iter()
            .zip(&self.insts)
            .map(|(&c, &n)| {
                let r = if c > prev.0 {
                    (n - prev.1) as f64 / (c - prev.0) as f64
                } else {
                    0.0
                };
                prev = (c, n);
                r
            })
            .collect();
        let rate = |h: u64, a: u64| (a > 0).then(|| h as f64 / a as f64);
        let mut p = [0u64; 4];
        let (mut l1, mut l2) = (Vec::new(), Vec::new());
        for c in &self.caches {
            l1.push(rate(c[0] - p[0], c[1] - p[1]));
            l2.push(rate(c[2] - p[2], c[3] - p[3]));
            p = *c;
        }
        self.l1_hit_rate = l1;
        self.l2_hit_rate = l2;
    }
}

/// The cumulative counters a sample takes (instructions; L1 and L2 hits and accesses).
fn sample(sim: &Simulator<'_>) -> Sample {
    let mut s = Sample::default();
    for sm in &sim.gpu.sms {
        s.warp_insts += sm.sh.stats.warp_insts;
        if let Some(m) = sm.sh.mem.cycle_stats() {
            s.caches[0] += m.l1.hits;
            s.caches[1] += m.l1.accesses;
        }
    }
    if let crate::engine::MemPartitions::Cycle(p) = &sim.gpu.partitions {
        let l2 = p.stats().l2;
        s.caches[2] = l2.hits;
        s.caches[3] = l2.accesses;
    }
    s
}

enum State {
    /// Memory mode before its run; timing modes before `Simulator::new`.
    Ready,
    Running(Box<Simulator<'static>>),
    Done(String),
    Taken,
}

/// Simulated cycles between two IPC samples at the start (doubles as the run grows).
const SERIES_INTERVAL: u64 = 64;

/// One run.
pub struct Session {
    source: Option<Source>,
    cfg: GpuConfig,
    mode: Mode,
    meta: TraceMeta,
    state: State,
    series: Series,
    /// A timeline recorder is attached (`record`).
    recording: bool,
    timeline: Option<Timeline>,
}

/// The longest window `record` accepts (the page draws every cycle of it).
pub const MAX_RECORD_CYCLES: u64 = 2000;

/// A recorded window as the page shows it: the frames, and per SM per frame the seed 003
/// picture as plain text, exactly the lines `warpweave run --show-pipeline --color never`
/// prints for that cycle.
#[derive(Serialize)]
pub struct TimelineView<'a> {
    pub timeline: &'a Timeline,
    pub text: Vec<Vec<String>>,
    /// The window as Chrome-trace / Perfetto JSON (`run --timeline out.json`'s content).
    pub chrome: serde_json::Value,
}

/// The Chrome-trace / Perfetto export of a finished run (one cycle reads as one nanosecond):
/// `result_json` is the envelope `Session::result_json` returns, `window_json` the recorded
/// window's `chrome` document from `Session::timeline_json`, if any
/// ([`timeline::chrome::run_trace`]).
pub fn chrome_trace(result_json: &str, window_json: Option<&str>) -> Result<String> {
    let parse = |what: &str, t: &str| {
        serde_json::from_str::<serde_json::Value>(t)
            .map_err(|e| Error::other(format!("chrome trace: {what} is not JSON: {e}")))
    };
    let env = parse("the result", result_json)?;
    let window = window_json.map(|w| parse("the window", w)).transpose()?;
    serde_json::to_string(&timeline::chrome::run_trace(&env, window.as_ref()))
        .map_err(|e| Error::other(format!("cannot serialise the trace: {e}")))
}

/// The architecture whose opcode table classifies kernels with binary version 0.
pub fn arch_of(cfg: &GpuConfig) -> Arch {
    Arch::from_name(&cfg.gpu.arch)
        .or_else(|| Arch::from_binary_version(cfg.gpu.compute_capability))
        .unwrap_or_default()
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
        let meta = TraceMeta {
            name: source.name().to_string(),
            hash: source.trace_hash(),
            kernels,
        };
        let _ = &mut source;
        let mut sess = Session {
            source: Some(source),
            cfg,
            mode,
            meta,
            state: State::Ready,
            series: Series::new(SERIES_INTERVAL),
            recording: false,
            timeline: None,
        };
        if let Mode::Timing(_, m) = &sess.mode {
            let mut src = sess.source.take().expect("source present");
            // The same pre-pass as the CLI's `run --mode` and `compare`: per-PC hit rates and
            // the L2 write-backs that share DRAM with the reads (`Simulator::use_prepass`).
            let prepass = if sess.mode.wants_pc_rates() {
                Some(crate::analytic::Prepass::compute(0, &sess.cfg, &mut *src)?)
            } else {
                None
            };
            let mut sim = Simulator::new(sess.cfg.clone(), *m, src)?;
            if let Some(p) = &prepass {
                sim.use_prepass(p);
            }
            sess.state = State::Running(Box::new(sim));
        }
        Ok(sess)
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
        let total = self.ctas_total();
        let kernels = self.meta.kernels.len() as u32;
        match std::mem::replace(&mut self.state, State::Taken) {
            State::Ready => {
                let mut src = self
                    .source
                    .take()
                    .ok_or_else(|| Error::other("the session has no trace"))?;
                let rep = functional::run(&self.cfg, &mut *src)?;
                self.state = State::Done(self.envelope(&rep)?);
            }
            State::Running(mut sim) => {
                let end = sim.now().saturating_add(max_cycles.max(1));
                let status = loop {
                    let stop = end.min(self.series.next_at.max(sim.now() + 1));
                    let st = sim.run_for(stop - sim.now())?;
                    if sim.now() >= self.series.next_at {
                        self.series.record(sim.now(), sample(&sim));
                    }
                    match st {
                        RunStatus::Running { .. } if sim.now() < end => continue,
                        other => break other,
                    }
                };
                match status {
                    RunStatus::Running { cycle } => {
                        let runs = &sim.gpu.sched.runs;
                        let p = Progress {
                            phase: "simulating",
                            cycles: cycle,
                            ctas_done: runs.iter().map(|r| r.ctas_done).sum(),
                            ctas_total: total,
                            kernels_done: runs.iter().filter(|r| r.done()).count() as u32,
                            kernels,
                            done: false,
                        };
                        self.state = State::Running(sim);
                        return Ok(p);
                    }
                    RunStatus::Done { cycle } => {
                        let r = sim.result();
                        let mut last = sample(&sim);
                        last.warp_insts = r.warp_insts;
                        self.series.record(cycle, last);
                        self.series.finish();
                        if self.recording {
                            self.timeline = Some(timeline::collect(&mut sim.gpu));
                        }
                        let json = self.envelope(&r)?;
                        self.state = State::Done(json);
                        return Ok(Progress {
                            phase: "done",
                            cycles: cycle,
                            ctas_done: total,
                            ctas_total: total,
                            kernels_done: kernels,
                            kernels,
                            done: true,
                        });
                    }
                    RunStatus::Deadlock(msg) => {
                        return Err(Error::other(format!("the simulation deadlocked: {msg}")))
                    }
                }
            }
            State::Done(j) => self.state = State::Done(j),
            State::Taken => return Err(Error::other("the run stopped on an earlier error")),
        }
        let cycles = 0;
        Ok(Progress {
            phase: "done",
            cycles,
            ctas_done: total,
            ctas_total: total,
            kernels_done: kernels,
            kernels,
            done: true,
        })
    }

    /// Records cycles `from..to` of SM `sm` (before the first `run_for`; timing modes only; at
    /// most [`MAX_RECORD_CYCLES`] cycles). The frames are read with `timeline` after the end.
    pub fn record(&mut self, sm: u32, from: u64, to: u64) -> Result<()> {
        if to.saturating_sub(from) > MAX_RECORD_CYCLES {
            return Err(Error::config(
                "timeline.cycles",
                format!(
                    "{from}..{to} is {} cycles: the page records at most {MAX_RECORD_CYCLES} (the CLI's run --show-pipeline --cycles A..B has no limit)",
                    to.saturating_sub(from)
                ),
            ));
        }
        let State::Running(sim) = &mut self.state else {
            return Err(Error::config(
                "mode",
                "the pipeline view needs a timing mode (cycle, hybrid, fast or a mix), not memory",
            ));
        };
        if sim.now() > 0 || self.recording {
            return Err(Error::other(
                "record must be called once, before the run starts",
            ));
        }
        let rc = RecordConfig {
            from,
            to,
            sms: vec![sm],
            max_frames: MAX_RECORD_CYCLES as usize,
        };
        timeline::attach(&mut sim.gpu, &rc)?;
        self.recording = true;
        Ok(())
    }

    /// The recorded window (after the run ends; `None` when nothing was recorded).
    pub fn timeline(&self) -> Option<&Timeline> {
        self.timeline.as_ref()
    }

    /// The recorded window with its text pictures, as JSON (see [`TimelineView`]).
    pub fn timeline_json(&self) -> Result<String> {
        let tl = self.timeline.as_ref().ok_or_else(|| {
            Error::other("no timeline: call record before the run and read it after the end")
        })?;
        let v = TimelineView {
            timeline: tl,
            text: (0..tl.sms.len())
                .map(|si| timeline::ascii::frame_texts(tl, si))
                .collect(),
            chrome: timeline::chrome::render(tl),
        };
        serde_json::to_string(&v)
            .map_err(|e| Error::other(format!("cannot serialise the timeline: {e}")))
    }

    pub fn is_done(&self) -> bool {
        matches!(self.state, State::Done(_))
    }

    /// The whole result as JSON text: version, mode, GPU, effective config, trace metadata and
    /// the model's report. Errors when the run has not finished.
    pub fn result_json(&self) -> Result<&str> {
        match &self.state {
            State::Done(s) => Ok(s),
            _ => Err(Error::other(
                "the run has not finished: call runFor until progress.done",
            )),
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
            #[serde(skip_serializing_if = "Option::is_none")]
            ipc_over_time: Option<&'a Series>,
            /// The preset's error against the real GPU on held-out kernels, where measured.
            #[serde(skip_serializing_if = "Option::is_none")]
            held_out: Option<String>,
        }
        let id = &self.cfg.gpu.id;
        let held_out = crate::validate::held_out::summary(id).map(|h| {
            if crate::config::preset(id).is_ok_and(|p| p == self.cfg) {
                h
            } else {
                format!("{h} (measured on the preset as shipped; this configuration differs)")
            }
        });
        let e = Envelope {
            tool: "warpweave",
            version: crate::VERSION,
            mode: self.mode.name(),
            gpu: &self.cfg.gpu.id,
            config: &self.cfg,
            trace: &self.meta,
            result,
            ipc_over_time: matches!(self.mode, Mode::Timing(..)).then_some(&self.series),
            held_out,
        };
        serde_json::to_string(&e)
            .map_err(|e| Error::other(format!("cannot serialise the result: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_mode_matches_the_library_report() {
        let src = input::open_workload("vecadd", &[("n".into(), "1024".into())]).unwrap();
        let cfg = config::preset("teaching").unwrap();
        let mut s = Session::new(src, cfg.clone(), "memory").unwrap();
        let p = s.run_for(1000).unwrap();
        assert!(p.done);
        assert_eq!(
            p.ctas_total,
            s.trace().kernels.iter().map(|k| k.ctas).sum::<u64>()
        );
        let v: serde_json::Value = serde_json::from_str(s.result_json().unwrap()).unwrap();
        let mut direct_src =
            input::open_workload("vecadd", &[("n".into(), "1024".into())]).unwrap();
        let direct = functional::run(&cfg, &mut *direct_src).unwrap();
        assert_eq!(v["result"], serde_json::to_value(&direct).unwrap());
        assert_eq!(v["mode"], "memory");
        assert_eq!(v["trace"]["hash"], direct_src.trace_hash());
    }

    #[test]
    fn chrome_trace_of_a_recorded_run_holds_kernels_counters_and_window() {
        let cfg = config::preset("teaching").unwrap();
        let src = input::open_workload("vecadd", &[("n".into(), "1024".into())]).unwrap();
        let mut s = Session::new(src, cfg, "cycle").unwrap();
        s.record(0, 10, 30).unwrap();
        while !s.run_for(1000).unwrap().done {}
        let result = s.result_json().unwrap();
        let view: serde_json::Value = serde_json::from_str(&s.timeline_json().unwrap()).unwrap();
        let window = view["chrome"].to_string();
        let t = chrome_trace(result, Some(&window)).unwrap();
        assert_eq!(t, chrome_trace(result, Some(&window)).unwrap());
        let t: serde_json::Value = serde_json::from_str(&t).unwrap();
        let ev = t["traceEvents"].as_array().unwrap();
        let kernel = ev.iter().find(|e| e["cat"] == "kernel").unwrap();
        let env: serde_json::Value = serde_json::from_str(result).unwrap();
        let cycles = env["result"]["kernels"][0]["cycles"].as_u64().unwrap();
        assert_eq!(
            (kernel["dur"].as_f64().unwrap() * 1000.0).round() as u64,
            cycles
        );
        assert!(ev.iter().any(|e| e["ph"] == "C" && e["name"] == "core"));
        assert!(ev
            .iter()
            .any(|e| e["args"]["name"] == "SM 0 memory pipeline 0"));
        assert_eq!(t["otherData"]["window"], serde_json::json!([10, 30]));
        let e = chrome_trace("{", None).unwrap_err().to_string();
        assert!(e.contains("not JSON"), "{e}");
    }

    #[test]
    fn unknown_mode_lists_the_modes_and_the_nearest() {
        assert_eq!(
            Mode::parse("turbo").unwrap_err().to_string(),
            "`turbo` is not a mode; allowed: cycle, hybrid, fast, memory, or a per-module mix like alu=cycle,memory=analytical"
        );
        assert!(Mode::parse("hybird")
            .unwrap_err()
            .to_string()
            .contains("did you mean `hybrid`?"));
    }

    #[test]
    fn cycle_mode_in_slices_equals_one_run_to_the_end() {
        let cfg = config::preset("teaching").unwrap();
        let src = input::open_workload("vecadd", &[("n".into(), "2048".into())]).unwrap();
        let mut s = Session::new(src, cfg.clone(), "cycle").unwrap();
        let mut slices = 0;
        let mut last = 0;
        let p = loop {
            let p = s.run_for(50).unwrap();
            slices += 1;
            assert!(p.cycles >= last, "cycles go forward");
            last = p.cycles;
            if p.done {
                break p;
            }
            assert!(p.ctas_done <= p.ctas_total);
        };
        assert!(slices > 2, "a 50-cycle slice ends before the kernel does");
        let v: serde_json::Value = serde_json::from_str(s.result_json().unwrap()).unwrap();
        let direct = {
            let src = input::open_workload("vecadd", &[("n".into(), "2048".into())]).unwrap();
            let mut sim = Simulator::new(cfg, ModelChoice::named("cycle").unwrap(), src).unwrap();
            sim.run_to_end().unwrap()
        };
        assert_eq!(v["result"]["cycles"].as_u64().unwrap(), direct.cycles);
        assert_eq!(p.cycles, direct.cycles);
        assert_eq!(v["result"], serde_json::to_value(&direct).unwrap());
        // IPC over time: samples every 64 cycles, the last at the end; the average of the
        // per-interval IPCs weighted by their lengths is the whole run's IPC.
        let t = &v["ipc_over_time"];
        let cyc: Vec<u64> = t["cycle"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        let ipc: Vec<f64> = t["ipc"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(*cyc.last().unwrap(), direct.cycles);
        assert!(cyc.windows(2).all(|w| w[1] > w[0]));
        assert_eq!(cyc[0], 64);
        let mut prev = 0;
        let insts: f64 = cyc
            .iter()
            .zip(&ipc)
            .map(|(&c, &r)| {
                let d = (c - prev) as f64;
                prev = c;
                r * d
            })
            .sum();
        assert!(
            (insts - direct.warp_insts as f64).abs() < 1e-6,
            "{insts} vs {}",
            direct.warp_insts
        );
    }

    #[test]
    fn series_halves_when_full() {
        let mut s = Series::new(10);
        for i in 1..=1024u64 {
            let caches = [i, 2 * i, 0, 0];
            s.record(
                i * 10,
                Sample {
                    warp_insts: i * 5,
                    caches,
                },
            );
        }
        assert_eq!(s.interval, 20);
        assert_eq!(s.cycle.len(), 512);
        assert_eq!(s.cycle[0], 20);
        assert_eq!(s.next_at, 10240 + 20);
        s.finish();
        assert_eq!(s.ipc[0], 0.5);
        assert_eq!(s.ipc[1], 0.5);
        assert_eq!(s.l1_hit_rate[..2], [Some(0.5), Some(0.5)]);
        assert_eq!(s.l2_hit_rate[..2], [None, None]);
    }

    #[test]
    fn mixes_name_the_module_key() {
        let e = Mode::parse("alu=cycle,cache=cycle")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`cache` is not a module"), "{e}");
        assert_eq!(
            Mode::parse("alu=cycle").unwrap(),
            Mode::Timing("alu=cycle".into(), ModelChoice::default())
        );
        // The named modes are the CLI's `--mode`.
        for n in ["cycle", "hybrid", "fast"] {
            assert_eq!(
                Mode::parse(n).unwrap(),
                Mode::Timing(n.into(), ModelChoice::named(n).unwrap())
            );
        }
    }

    #[test]
    fn fast_takes_the_same_pre_pass_as_the_cli() {
        // vecadd writes: the pre-pass's L2 write-backs share DRAM with the reads, so a
        // session that took only the per-PC hit rates ran fewer cycles than `run --mode fast`.
        let cfg = config::preset("titanv").unwrap();
        let params = [("n".to_string(), "524288".to_string())];
        let mut s = Session::new(
            input::open_workload("vecadd", &params).unwrap(),
            cfg.clone(),
            "fast",
        )
        .unwrap();
        let p = s.run_for(u64::MAX).unwrap();
        assert!(p.done);
        let mut open = || input::open_workload("vecadd", &params);
        let cli = match crate::engine::compare::run_mode(
            &cfg,
            crate::engine::Mode::parse("fast").unwrap(),
            &mut open,
        )
        .unwrap()
        {
            crate::engine::compare::Outcome::Timed { result, .. } => result.cycles,
            crate::engine::compare::Outcome::Functional(_) => unreachable!("a timing mode"),
        };
        assert_eq!(p.cycles, cli);
    }

    #[test]
    fn a_mix_with_analytical_memory_takes_the_pre_pass_like_the_cli() {
        // `alu=cycle` keeps the default analytical memory path: its hit rates come from the
        // functional pre-pass, as for `run --model alu=cycle` (all L1 hits without it).
        let cfg = config::preset("titanv").unwrap();
        let params = [("n".to_string(), "65536".to_string())];
        let mut s = Session::new(
            input::open_workload("vecadd", &params).unwrap(),
            cfg.clone(),
            "alu=cycle",
        )
        .unwrap();
        let p = s.run_for(u64::MAX).unwrap();
        assert!(p.done);
        let mut open = || input::open_workload("vecadd", &params);
        let mut cache = crate::analytic::PrepassCache::new();
        let model = ModelChoice::default();
        let (mut sim, pre) =
            crate::engine::compare::prepared_simulator(&cfg, model, &mut open, &mut cache).unwrap();
        assert!(pre.is_some());
        assert_eq!(p.cycles, sim.run_to_end().unwrap().cycles);
        let bare = Simulator::new(cfg, model, open().unwrap())
            .unwrap()
            .run_to_end()
            .unwrap();
        assert_ne!(p.cycles, bare.cycles);
    }

    #[test]
    fn result_before_the_end_is_an_error() {
        let src = input::open_workload("vecadd", &[]).unwrap();
        let s = Session::new(src, config::preset("teaching").unwrap(), "memory").unwrap();
        assert!(s.result_json().is_err());
    }
}
