//! `warpweave run`: simulate a trace on a GPU and print a summary (optionally JSON).
//!
//! ```text
//!  --gpu preset|file.toml ─> config::load ─> --set k=v overrides ─> validated GpuConfig
//!  --trace DIR|FILE|builtin:NAME[:k=v,..] ─> TraceSource ─> Simulator::run_for (slices)
//!  ─> SimResult ─> summary text on stdout, --json FILE (config, models, trace hash, version)
//! ```

use clap::Args;
use warpweave::config::{self, GpuConfig};
use warpweave::engine::compare::prepared_simulator;
use warpweave::engine::{compare, Mode, ModelChoice, RunStatus};
use warpweave::trace::annotate::{Annotated, SassCtrl};
use warpweave::trace::check::{Policy, UnknownOpcodes};
use warpweave::trace::TraceSource;
use warpweave::{Error, Result};

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// GPU preset id (rtx2080ti, a100, ...) or a TOML file.
    #[arg(long, default_value = "rtx2080ti")]
    pub gpu: String,
    /// Accel-Sim trace folder or kernelslist.g, a .traceg file, a compact trace, or
    /// builtin:NAME[:key=value,...] for a built-in workload (or --launch: execute SASS).
    #[arg(long, required_unless_present = "launch")]
    pub trace: Option<String>,
    /// Config overrides, e.g. --set sm.subcores=2 --set features.war_check=false.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Named mode: cycle (the default, as in the browser), hybrid (analytical ALU), fast
    /// (analytical ALU and memory path), memory (functional caches only). `--model` then adjusts
    /// single modules.
    #[arg(long)]
    pub mode: Option<String>,
    /// Module models, e.g. --model memory=analytical --model frontend=perfect.
    #[arg(long = "model", value_name = "MODULE=MODEL")]
    pub model: Vec<String>,
    /// Keep the analytical memory's functional pre-pass as a file in DIR (keyed by trace hash
    /// and cache-relevant config), so later runs skip it.
    #[arg(long = "prepass-cache", value_name = "DIR")]
    pub prepass_cache: Option<String>,
    /// Write the full result (config, models, trace hash, statistics) as JSON.
    #[arg(long)]
    pub json: Option<String>,
    /// Step the SMs of a cycle on all cores (same as --threads 0; results are identical).
    #[arg(long)]
    pub parallel: bool,
    /// Threads stepping the SMs of a cycle: 0 = all cores, 1 = serial. Results are identical
    /// for any count; cycles with few busy SMs step serially anyway.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Compiler control bits for the trace from this `cuobjdump -sass` listing of the binary it
    /// was recorded from (plain, .gz, .zst or .xz), joined by kernel name and PC as CTAs are
    /// decoded (as `annotate` does, without writing a file). With --launch: the listing whose
    /// kernel is executed.
    #[arg(long, value_name = "FILE")]
    pub sass: Option<std::path::PathBuf>,
    /// Stop after this many cycles (0: run to the end).
    #[arg(long, default_value_t = 0)]
    pub max_cycles: u64,
    /// No progress line on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Unknown opcodes and kernels with CTAs missing.
    #[command(flatten)]
    pub checks: CheckArgs,
    /// Timeline views (--show-pipeline, --cycles, --animate, --timeline).
    #[command(flatten)]
    pub views: crate::cmd_run_views::ViewArgs,
    /// Execution from SASS (--launch, --kernel, --cuda, --emit-trace, --out-buffers, --check).
    #[command(flatten)]
    pub exec: crate::cmd_run_exec::ExecArgs,
}

/// How strictly the commands that simulate read their traces (`trace::check::Policy`).
#[derive(Args, Debug, Clone, Default)]
pub struct CheckArgs {
    /// Opcodes the architecture's table does not know: `error` refuses the trace, naming the
    /// opcode and where it is; `warn` simulates them as integer ALU instructions and names
    /// them in the result's warnings.
    #[arg(long, value_name = "error|warn", default_value = "error", value_parser = ["error", "warn"])]
    pub unknown_opcodes: String,
    /// Simulate kernels whose trace lacks some CTAs (cut short) with the CTAs it has, with a
    /// warning saying how many are missing (without it, an error).
    #[arg(long)]
    pub allow_partial: bool,
    /// Most warp instructions a reader holds for one CTA (8 addresses count as one); a trace
    /// whose CTA declares or holds more is refused. Default: WARPWEAVE_MAX_CTA_INSTS, else
    /// 1048576 (about 72 MB).
    #[arg(long, value_name = "N")]
    pub max_cta_insts: Option<u64>,
}

impl CheckArgs {
    pub fn policy(&self) -> Result<Policy> {
        Ok(Policy {
            unknown_opcodes: UnknownOpcodes::parse(&self.unknown_opcodes)?,
            allow_partial: self.allow_partial,
            max_cta_insts: max_cta_insts(self.max_cta_insts)?,
        })
    }
}

/// The environment variable that sets the bound on a CTA's warp instructions where no
/// `--max-cta-insts` is given (also for `convert` and `annotate`).
pub const MAX_CTA_INSTS_VAR: &str = "WARPWEAVE_MAX_CTA_INSTS";

/// The bound on a CTA's warp instructions: `flag`, else [`MAX_CTA_INSTS_VAR`], else
/// [`warpweave::trace::check::DEFAULT_MAX_CTA_INSTS`].
pub fn max_cta_insts(flag: Option<u64>) -> Result<u64> {
    let bad = |v: &str| {
        Error::other(format!(
            "{v}: expected a whole number of warp instructions, at least 1"
        ))
    };
    if let Some(n) = flag {
        return (n > 0)
            .then_some(n)
            .ok_or_else(|| bad(&format!("--max-cta-insts {n}")));
    }
    match std::env::var(MAX_CTA_INSTS_VAR) {
        Ok(v) => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                let shown: String = v.chars().take(40).collect();
                bad(&format!("{MAX_CTA_INSTS_VAR}={shown:?}"))
            }),
        Err(_) => Ok(warpweave::trace::check::DEFAULT_MAX_CTA_INSTS),
    }
}

/// Opens a trace: built-in workload, compact file, or Accel-Sim text (folder or file), read
/// under `policy`.
pub fn open_trace(
    spec: &str,
    cfg: &GpuConfig,
    policy: Policy,
) -> Result<Box<dyn TraceSource + Send>> {
    warpweave::trace::open::open_spec_with(spec, warpweave::trace::open::default_arch(cfg), policy)
}

/// Opens `spec` as [`open_trace`] does, its control bits joined from `sass` when given.
fn open_joined(
    spec: &str,
    cfg: &GpuConfig,
    sass: Option<&SassCtrl>,
    policy: Policy,
) -> Result<Box<dyn TraceSource + Send>> {
    let src = open_trace(spec, cfg, policy)?;
    match sass {
        Some(s) => Ok(Box::new(Annotated::new(src, s)?)),
        None => Ok(src),
    }
}

/// Refuses, before anything runs, an output (`(flag, path)`) that is one of the inputs: a
/// trace's files, or `files` (GPU TOML files, a SASS listing) where they exist.
pub fn refuse_outputs_over_inputs(
    traces: &[String],
    files: &[String],
    outputs: &[(&str, Option<&String>)],
) -> Result<()> {
    use std::path::{Path, PathBuf};
    use warpweave::outfile::{refuse_overwrite, trace_inputs, Output};
    let mut inputs: Vec<PathBuf> = traces.iter().flat_map(|t| trace_inputs(t)).collect();
    inputs.extend(files.iter().map(PathBuf::from).filter(|p| p.exists()));
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let outputs: Vec<Output> = outputs
        .iter()
        .filter_map(|(what, p)| {
            p.map(|p| Output {
                what,
                path: Path::new(p),
                folder: false,
            })
        })
        .collect();
    refuse_overwrite(&outputs, &inputs)
}

/// Config from `--gpu` and `--set`.
pub fn load_config(gpu: &str, sets: &[String]) -> Result<GpuConfig> {
    let mut cfg = config::load(gpu)?;
    config::apply_overrides(&mut cfg, sets)?;
    Ok(cfg)
}

pub fn run(a: &RunArgs) -> Result<()> {
    let mut files = vec![a.gpu.clone()];
    files.extend(a.sass.iter().map(|p| p.display().to_string()));
    let e = &a.exec;
    let shown = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
    files.extend(shown(&e.launch));
    files.extend(shown(&e.cuda));
    refuse_outputs_over_inputs(
        a.trace.as_slice(),
        &files,
        &[
            ("--json", a.json.as_ref()),
            ("--timeline", a.views.timeline.as_ref()),
            ("--animate", a.views.animate.as_ref()),
            ("--emit-trace", e.emit_trace.as_ref()),
        ],
    )?;
    let cfg = load_config(&a.gpu, &a.set)?;
    let policy = a.checks.policy()?;
    let executed = if e.launch.is_some() {
        if a.trace.is_some() {
            return Err(Error::other("--launch executes SASS: it takes no --trace"));
        }
        crate::cmd_run_exec::prepare(e, a.sass.as_deref(), &cfg)?
    } else {
        None
    };
    let trace = a.trace.clone().unwrap_or_default();
    let a = &RunArgs {
        trace: Some(trace),
        sass: if executed.is_some() {
            None
        } else {
            a.sass.clone()
        },
        ..a.clone()
    };
    let sass = match &a.sass {
        Some(p) => Some(crate::cmd_annotate::read_sass(p)?),
        None => None,
    };
    let sass = sass.as_ref();
    let open = |cfg: &GpuConfig, sass: Option<&SassCtrl>| -> Result<Box<dyn TraceSource + Send>> {
        match &executed {
            Some(p) => p.open(),
            None => open_joined(a.trace.as_deref().unwrap_or_default(), cfg, sass, policy),
        }
    };
    let mut model = ModelChoice::named("cycle")?;
    if let Some(name) = &a.mode {
        match Mode::parse(name)? {
            Mode::Memory => {
                run_memory(a, open(&cfg, sass)?)?;
                if let Some(p) = &executed {
                    p.finish(e, a.quiet)?;
                }
                return Ok(());
            }
            Mode::Timing(m) => model = m,
        }
    }
    for m in &a.model {
        model.set_mix(m)?;
    }
    // An analytical memory path takes its per-PC hit rates from a functional pre-pass, whether
    // it was named by `--mode fast` or by `--model memory=analytical`.
    let mut cache = match &a.prepass_cache {
        Some(d) => warpweave::analytic::PrepassCache::with_dir(d),
        None => warpweave::analytic::PrepassCache::new(),
    };
    // The pre-pass (when the memory path is analytical and its result is not cached) opens the
    // trace first: that pass shows its own progress.
    let mut prepass_first = model.memory == warpweave::engine::ModuleModel::Analytical;
    let mut opener = || -> Result<Box<dyn TraceSource + Send>> {
        let s = open(&cfg, sass)?;
        if std::mem::take(&mut prepass_first) {
            return Ok(Box::new(crate::counted::Counted::new(
                s, "pre-pass", a.quiet,
            )));
        }
        Ok(s)
    };
    let (mut sim, _) = prepared_simulator(&cfg, model, &mut opener, &mut cache)?;
    let threads = if a.parallel { 0 } else { a.threads };
    sim.set_threads(crate::host::cap_threads(threads, "--threads"))?;
    crate::cmd_run_views::attach(&a.views, &mut sim)?;
    let started = std::time::Instant::now();
    let progress = RunBar::new(&sim, a.quiet);
    // Slices only pace the progress display: a run gives the same result in any slicing.
    let slice = 10_000;
    loop {
        let budget = if a.max_cycles > 0 {
            slice.min(a.max_cycles.saturating_sub(sim.now()))
        } else {
            slice
        };
        if budget == 0 {
            progress
                .bar
                .println(&format!("stopped at --max-cycles {}", a.max_cycles));
            break;
        }
        match sim.run_for(budget)? {
            RunStatus::Running { .. } => progress.update(&sim, started),
            RunStatus::Done { .. } => break,
            RunStatus::Deadlock(msg) => return Err(Error::other(msg)),
        }
    }
    progress.bar.finish();
    if let Some(p) = &executed {
        p.finish(e, a.quiet)?;
    }
    let res = sim.result();
    crate::cmd_run_views::finish(&a.views, &mut sim)?;
    let secs = started.elapsed().as_secs_f64();
    crate::out!("{}", res.summary_text());
    crate::outln!(
        "simulated in {:.3} s: {:.0} warp instructions per second, {:.0} cycles per second",
        secs,
        res.warp_insts as f64 / secs.max(1e-9),
        res.cycles as f64 / secs.max(1e-9)
    );
    // The threads' exchanges (bench/scaling.sh predicts more threads from them).
    let x = sim.gpu.exchanges();
    crate::outln!(
        "thread exchanges {x} in {} cycles ({:.3} per cycle)",
        res.cycles,
        x as f64 / res.cycles.max(1) as f64
    );
    if let Some(kb) = peak_rss_kb() {
        crate::outln!("peak memory {:.1} MB", kb as f64 / 1024.0);
    }
    if let Some(j) = &a.json {
        let text =
            serde_json::to_string_pretty(&res).map_err(|e| Error::other(format!("JSON: {e}")))?;
        warpweave::outfile::write_file(std::path::Path::new(j), text)?;
    }
    Ok(())
}

/// `run`'s progress: the fraction of the trace's warp instructions issued (of its CTAs finished
/// where the trace does not say how many instructions it holds), simulated cycles, warp
/// instructions per second and the ETA.
struct RunBar {
    bar: crate::progress::Progress,
    by_insts: bool,
}

impl RunBar {
    fn new(sim: &warpweave::engine::Simulator<'_>, quiet: bool) -> RunBar {
        let p = sim.progress();
        let (total, unit, by_insts) = match p.warp_insts_total {
            Some(n) => (n, "warp instructions", true),
            None => (p.ctas_total, "CTAs", false),
        };
        RunBar {
            bar: crate::progress::Progress::new("run", total, unit, quiet),
            by_insts,
        }
    }

    fn update(&self, sim: &warpweave::engine::Simulator<'_>, started: std::time::Instant) {
        if !self.bar.shown() {
            return;
        }
        let p = sim.progress();
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        let msg = format!(
            "cycle {}, {} warp inst/s",
            p.cycle,
            crate::progress::si(p.warp_insts as f64 / secs)
        );
        let pos = if self.by_insts {
            p.warp_insts
        } else {
            p.ctas_done
        };
        self.bar.set(pos, &msg);
    }
}

/// `--mode memory`: the functional cache pass (`mem::functional::run`), same CLI.
fn run_memory(a: &RunArgs, src: Box<dyn TraceSource + Send>) -> Result<()> {
    let cfg = &load_config(&a.gpu, &a.set)?;
    let started = std::time::Instant::now();
    let mut src = crate::counted::Counted::new(src, "run", a.quiet);
    let rep = warpweave::mem::functional::run(cfg, &mut src);
    drop(src);
    let rep = rep?;
    let secs = started.elapsed().as_secs_f64();
    let (l1, l2, dram) = compare::functional_totals(&rep);
    crate::outln!(
        "warpweave {} — {} on {}",
        env!("CARGO_PKG_VERSION"),
        rep.trace,
        rep.gpu
    );
    crate::outln!("models: functional caches only (mode memory, no timing)");
    crate::outln!("L1 hit rate {l1:.4}   L2 hit rate {l2:.4}   DRAM sectors {dram}");
    for w in &rep.warnings {
        crate::outln!("warning: {w}");
    }
    for k in &rep.kernels {
        crate::outln!(
            "  {:<40} mem insts {:>10}  L1 {:.4}  L2 {:.4}  DRAM rd/wr sectors {}/{}",
            k.name,
            k.mem_instructions,
            k.l1.hit_rate,
            k.l2.hit_rate,
            k.dram_read_sectors,
            k.dram_write_sectors
        );
        crate::out!("{}", k.counters.text());
    }
    crate::outln!("simulated in {secs:.3} s");
    if let Some(j) = &a.json {
        let text =
            serde_json::to_string_pretty(&rep).map_err(|e| Error::other(format!("JSON: {e}")))?;
        warpweave::outfile::write_file(std::path::Path::new(j), text)?;
    }
    Ok(())
}

/// Peak resident memory of this process in KiB (Linux `VmHWM`), for the benchmark table.
fn peak_rss_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
