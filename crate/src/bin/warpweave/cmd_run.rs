//! `warpweave run`: simulate a trace on a GPU and print a summary (optionally JSON).
//!
//! ```text
//!  --gpu preset|file.toml ─> config::load ─> --set k=v overrides ─> validated GpuConfig
//!  --trace DIR|FILE|builtin:NAME[:k=v,..] ─> TraceSource ─> Simulator::run_for (slices)
//!  ─> SimResult ─> summary text on stdout, --json FILE (config, models, trace hash, version)
//! ```

use std::path::Path;

use clap::Args;
use warpweave::config::{self, GpuConfig};
use warpweave::engine::{Executor, ModelChoice, RunStatus, Simulator};
use warpweave::trace::accelsim::{AccelSimTrace, OpenOptions};
use warpweave::trace::compact::CompactReader;
use warpweave::trace::opcodes::Arch;
use warpweave::trace::TraceSource;
use warpweave::{Error, Result};

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// GPU preset id (rtx2080ti, a100, ...) or a TOML file.
    #[arg(long, default_value = "rtx2080ti")]
    pub gpu: String,
    /// Accel-Sim trace folder or kernelslist.g, a .traceg file, a compact trace, or
    /// builtin:NAME[:key=value,...] for a built-in workload.
    #[arg(long)]
    pub trace: String,
    /// Config overrides, e.g. --set sm.subcores=2 --set features.war_check=false.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Module models, e.g. --model memory=analytical --model frontend=perfect.
    #[arg(long = "model", value_name = "MODULE=MODEL")]
    pub model: Vec<String>,
    /// Write the full result (config, models, trace hash, statistics) as JSON.
    #[arg(long)]
    pub json: Option<String>,
    /// Step the SMs of a cycle on all cores (results are identical).
    #[arg(long)]
    pub parallel: bool,
    /// Stop after this many cycles (0: run to the end).
    #[arg(long, default_value_t = 0)]
    pub max_cycles: u64,
    /// No progress line on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Timeline views (--show-pipeline, --cycles, --animate, --timeline).
    #[command(flatten)]
    pub views: crate::cmd_run_views::ViewArgs,
}

/// Opens a trace: built-in workload, compact file, or Accel-Sim text (folder or file).
pub fn open_trace(spec: &str, cfg: &GpuConfig) -> Result<Box<dyn TraceSource + Send>> {
    if let Some(rest) = spec.strip_prefix("builtin:") {
        let mut it = rest.splitn(2, ':');
        let name = it.next().unwrap_or_default();
        let items: Vec<&str> = it
            .next()
            .map(|p| p.split(',').filter(|s| !s.is_empty()).collect())
            .unwrap_or_default();
        let params = warpweave::workload::Params::parse(&items)?;
        return Ok(Box::new(warpweave::workload::generate(name, &params)?));
    }
    let path = Path::new(spec);
    if !path.exists() {
        return Err(Error::other(format!("{spec}: no such trace (a folder, kernelslist.g, .traceg, compact file or builtin:NAME)")));
    }
    if path.is_file() {
        let mut magic = [0u8; 8];
        use std::io::Read;
        let n = std::fs::File::open(path)
            .and_then(|mut f| f.read(&mut magic))
            .map_err(|e| Error::io(spec, e))?;
        if n == 8 && magic == warpweave::trace::compact::MAGIC {
            return Ok(Box::new(CompactReader::open(path)?));
        }
    }
    let arch = Arch::from_binary_version(cfg.gpu.compute_capability)
        .or_else(|| Arch::from_name(&cfg.gpu.arch))
        .unwrap_or_default();
    Ok(Box::new(AccelSimTrace::open(
        path,
        OpenOptions { default_arch: arch },
    )?))
}

/// Config from `--gpu` and `--set`.
pub fn load_config(gpu: &str, sets: &[String]) -> Result<GpuConfig> {
    let mut cfg = config::load(gpu)?;
    config::apply_overrides(&mut cfg, sets)?;
    Ok(cfg)
}

pub fn run(a: &RunArgs) -> Result<()> {
    let cfg = load_config(&a.gpu, &a.set)?;
    let mut model = ModelChoice::default();
    for m in &a.model {
        let (k, v) = m
            .split_once('=')
            .ok_or_else(|| Error::config("--model", format!("`{m}`: expected MODULE=MODEL")))?;
        model.set(k.trim(), v.trim())?;
    }
    let src = open_trace(&a.trace, &cfg)?;
    let mut sim = Simulator::new(cfg, model, src)?;
    if a.parallel {
        sim.set_executor(Executor::Parallel);
    }
    crate::cmd_run_views::attach(&a.views, &mut sim)?;
    let started = std::time::Instant::now();
    let slice = 200_000;
    loop {
        let budget = if a.max_cycles > 0 {
            slice.min(a.max_cycles.saturating_sub(sim.now()))
        } else {
            slice
        };
        if budget == 0 {
            eprintln!("stopped at --max-cycles {}", a.max_cycles);
            break;
        }
        match sim.run_for(budget)? {
            RunStatus::Running { cycle } => {
                if !a.quiet {
                    eprint!("\rcycle {cycle} ...");
                }
            }
            RunStatus::Done { .. } => break,
            RunStatus::Deadlock(msg) => return Err(Error::other(msg)),
        }
    }
    if !a.quiet {
        eprint!("\r");
    }
    let res = sim.result();
    crate::cmd_run_views::finish(&a.views, &mut sim)?;
    let secs = started.elapsed().as_secs_f64();
    print!("{}", res.summary_text());
    println!(
        "simulated in {:.3} s: {:.0} warp instructions per second, {:.0} cycles per second",
        secs,
        res.warp_insts as f64 / secs.max(1e-9),
        res.cycles as f64 / secs.max(1e-9)
    );
    if let Some(j) = &a.json {
        let text =
            serde_json::to_string_pretty(&res).map_err(|e| Error::other(format!("JSON: {e}")))?;
        std::fs::write(j, text).map_err(|e| Error::io(j, e))?;
    }
    Ok(())
}
