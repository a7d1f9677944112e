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
    /// Modes: cycle, hybrid, fast, memory, or a mix NAME:alu=analytical+noc=cycle.
    #[arg(
        long = "modes",
        default_value = "cycle,hybrid,fast,memory",
        value_delimiter = ','
    )]
    pub modes: Vec<String>,
    /// Config overrides for every run.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    #[arg(long)]
    pub csv: Option<String>,
    #[arg(long)]
    pub json: Option<String>,
    /// Keep the functional pre-pass (per-PC hit rates) of analytical-memory modes as files
    /// in DIR, keyed by trace hash and cache-relevant config (always shared in memory between
    /// the modes of one compare).
    #[arg(long = "prepass-cache", value_name = "DIR")]
    pub prepass_cache: Option<String>,
}

/// `cycle`/`hybrid`/`fast`/`memory`, or `NAME:module=model+module=model` (starting from cycle).
fn parse_mode(s: &str) -> Result<(String, Mode)> {
    if let Some((name, mix)) = s.split_once(':') {
        let mut m = ModelChoice::named("cycle")?;
        m.set_mix(&mix.replace('+', ","))?;
        m.validate()?;
        return Ok((name.to_string(), Mode::Timing(m)));
    }
    Ok((s.to_string(), Mode::parse(s)?))
}

pub fn run(a: &CompareArgs) -> Result<()> {
    crate::cmd_run::refuse_outputs_over_inputs(
        &a.traces,
        &a.gpus,
        &[("--csv", a.csv.as_ref()), ("--json", a.json.as_ref())],
    )?;
    let modes = a
        .modes
        .iter()
        .map(|s| parse_mode(s.trim()))
        .collect::<Result<Vec<_>>>()?;
    let mut rows: Vec<CompareRow> = Vec::new();
    let mut cache = match &a.prepass_cache {
        Some(d) => PrepassCache::with_dir(d),
        None => PrepassCache::new(),
    };
    for gpu in &a.gpus {
        let cfg = load_config(gpu, &a.set)?;
        for trace in &a.traces {
            for (name, mode) in &modes {
                let mut open = || open_trace(trace, &cfg);
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
                eprintln!("{trace} on {gpu}: {name} in {wall:.3} s");
                let mut r = compare::row(trace, gpu, name, &out, wall);
                r.prepass_s = prepass_s;
                rows.push(r);
            }
        }
    }
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
