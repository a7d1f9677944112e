//! `warpweave compare`: the chosen modes over a set of traces and GPUs, one table (and CSV /
//! JSON) with cycles, IPC, hit rates, DRAM transactions, error against `cycle`, wall time,
//! simulated warp instructions per second and speed-up (library part: `engine::compare`).

use clap::Args;
use warpweave::analytic::prepass::{Origin, PrepassCache};
use warpweave::engine::compare::{self, CompareRow};
use warpweave::engine::{Mode, ModelChoice, ModuleModel};
use warpweave::{Error, Result};

use crate::cmd_run::{load_config, open_trace};

#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// Traces (folder, file, compact or builtin:NAME); repeat or comma-separate.
    #[arg(long = "trace", required = true, value_delimiter = ',')]
    pub traces: Vec<String>,
    /// GPU presets or TOML files; repeat or comma-separate.
    #[arg(long = "gpu", default_value = "rtx2080ti", value_delimiter = ',')]
    pub gpus: Vec<String>,
    /// Modes: cycle, hybrid, fast, memory, or a mix NAME:alu=analytical+noc=cycle; a mode
    /// with `@accelsim`, `@modern` or `@other` runs on that SM core model (`@other`: the one
    /// the GPU does not use by default), e.g. cycle@accelsim.
    #[arg(
        long = "modes",
        default_value = "cycle,cycle@other,hybrid,fast,memory",
        value_delimiter = ','
    )]
    pub modes: Vec<String>,
    /// Config overrides for every run.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Write the table as CSV to this file (one row per trace, GPU and mode).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<String>,
    /// Write every row as JSON to this file (the CSV's columns plus each run's warnings).
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Keep the functional pre-pass (per-PC hit rates) of analytical-memory modes as files
    /// in DIR, keyed by trace hash and cache-relevant config (always shared in memory between
    /// the modes of one compare).
    #[arg(long = "prepass-cache", value_name = "DIR")]
    pub prepass_cache: Option<String>,
    /// No progress on stderr (warnings are still printed).
    #[arg(long, short)]
    pub quiet: bool,
    /// Unknown opcodes and kernels with CTAs missing.
    #[command(flatten)]
    pub checks: crate::cmd_run::CheckArgs,
}

/// The settings of each SM core model that differ between the two (the rest of a preset is
/// the GPU's): the Accel-Sim core with seed 001's front end, register file and GTO; the modern
/// core with modern-gpu-cores.md's.
const ACCELSIM_CORE: &[&str] = &[
    "core.model=accelsim",
    "scheduler.policy=gto",
    "regfile.ports_per_bank=2",
    "frontend.ibuffer_size=2",
    "frontend.fetch_width=2",
    "frontend.decode_width=2",
];
const MODERN_CORE: &[&str] = &[
    "core.model=modern",
    "scheduler.policy=cggty",
    "regfile.banks=2",
    "regfile.ports_per_bank=1",
    "frontend.ibuffer_size=3",
    "frontend.fetch_width=1",
    "frontend.decode_width=1",
    "mem_pipeline.subcore_unit=true",
];

/// A mode's core suffix (`cycle@modern`): the mode, its display name and the core's settings
/// for a GPU whose own core is `own`.
fn split_core(
    s: &str,
    own: warpweave::config::CoreModel,
) -> Result<(&str, String, &'static [&'static str])> {
    use warpweave::config::CoreModel;
    let Some((mode, core)) = s.split_once('@') else {
        return Ok((s, s.to_string(), &[]));
    };
    let model = match core {
        "accelsim" => CoreModel::Accelsim,
        "modern" => CoreModel::Modern,
        "other" if own == CoreModel::Modern => CoreModel::Accelsim,
        "other" => CoreModel::Modern,
        _ => {
            return Err(Error::other(format!(
                "mode `{s}`: unknown core `{core}` (accelsim, modern or other)"
            )))
        }
    };
    let sets = match model {
        CoreModel::Accelsim => ACCELSIM_CORE,
        CoreModel::Modern => MODERN_CORE,
    };
    Ok((mode, format!("{mode}@{}", model.name()), sets))
}

/// `cycle`/`hybrid`/`fast`/`memory`, or `NAME:module=model+module=model` (starting from cycle).
fn parse_mode(s: &str) -> Result<(String, Mode)> {
    if let Some((name, mix)) = s.split_once(':') {
        let mut m = ModelChoice::named("cycle")?;
        m.set_mix(&mix.replace('+', ","))?;
        m.validate()?;
        return Ok((name.to_string(), Mode::Timing(m)));
    }
    // The names come from `--modes`.
    Mode::parse(s)
        .map(|m| (s.to_string(), m))
        .map_err(|e| match e {
            Error::Config { key, msg } if key == "--mode" => Error::config("--modes", msg),
            other => other,
        })
}

pub fn run(a: &CompareArgs) -> Result<()> {
    crate::cmd_run::refuse_outputs_over_inputs(
        &a.traces,
        &a.gpus,
        &[("--csv", a.csv.as_ref()), ("--json", a.json.as_ref())],
    )?;
    // Checked once up front (the core suffix is resolved per GPU).
    for s in &a.modes {
        let (m, _, _) = split_core(s.trim(), Default::default())?;
        parse_mode(m)?;
    }
    let policy = a.checks.policy()?;
    let mut rows: Vec<CompareRow> = Vec::new();
    let mut cache = match &a.prepass_cache {
        Some(d) => PrepassCache::with_dir(d),
        None => PrepassCache::new(),
    };
    let total = (a.gpus.len() * a.traces.len() * a.modes.len()) as u64;
    let progress = crate::progress::Progress::new("compare", total, "runs", a.quiet);
    for gpu in &a.gpus {
        let own = load_config(gpu, &a.set)?;
        for trace in &a.traces {
            for s in &a.modes {
                let (m, name, core_sets) = split_core(s.trim(), own.core.model)?;
                let (_, mode) = parse_mode(m)?;
                let mode = &mode;
                let name = &name;
                let cfg = if core_sets.is_empty() {
                    own.clone()
                } else {
                    let mut sets: Vec<String> = core_sets.iter().map(|x| x.to_string()).collect();
                    sets.extend(a.set.iter().cloned());
                    load_config(gpu, &sets)?
                };
                let mut open = || open_trace(trace, &cfg, policy);
                // The pre-pass is timed apart: it is paid once per (trace, cache config).
                let prepass_s = match mode {
                    Mode::Timing(m) if m.memory == ModuleModel::Analytical => {
                        let t0 = std::time::Instant::now();
                        let (_, origin) = cache.get(&cfg, &mut open)?;
                        Some(if origin == Origin::Computed {
                            t0.elapsed().as_secs_f64()
                        } else {
                            0.0
                        })
                    }
                    _ => None,
                };
                let t0 = std::time::Instant::now();
                let out = compare::run_mode_cached(&cfg, *mode, &mut open, &mut cache)?;
                let wall = t0.elapsed().as_secs_f64();
                if !a.quiet {
                    progress.println(&format!("{trace} on {gpu}: {name} in {wall:.3} s"));
                }
                let mut r = compare::row(trace, gpu, name, &out, wall);
                for w in &r.warnings {
                    progress.println(&format!("warning: {trace} on {gpu}: {name}: {w}"));
                }
                progress.inc(&format!("{trace} on {gpu}: {name}"));
                r.prepass_s = prepass_s;
                rows.push(r);
            }
        }
    }
    progress.finish();
    compare::finish(&mut rows);
    crate::out!("{}", compare::table_text(&rows));
    if let Some(p) = &a.csv {
        warpweave::outfile::write_file(std::path::Path::new(p), compare::csv(&rows))?;
    }
    if let Some(p) = &a.json {
        let text =
            serde_json::to_string_pretty(&rows).map_err(|e| Error::other(format!("JSON: {e}")))?;
        warpweave::outfile::write_file(std::path::Path::new(p), text)?;
    }
    Ok(())
}
