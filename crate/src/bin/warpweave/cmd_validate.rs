//! `warpweave validate`: the microbenchmark suite on one or more presets, each row next to the
//! figure published for that GPU, with its citation and the error (library: `validate`).

use clap::Args;
use warpweave::validate::{self, Row, Scope, TOLERANCE_PCT};
use warpweave::{Error, Result};

use crate::cmd_run::load_config;

#[derive(Args, Debug, Clone)]
pub struct ValidateArgs {
    /// GPU presets or TOML files (comma-separated), or `all` for every preset with published
    /// figures (titanv, rtx2080ti, a100, h100).
    #[arg(long = "gpu", default_value = "all", value_delimiter = ',')]
    pub gpus: Vec<String>,
    /// Only these metrics (ids as `--list` prints them). The slow L2-step sweep (`l2_step_kb`)
    /// runs only when named here.
    #[arg(long = "metrics", value_delimiter = ',')]
    pub metrics: Vec<String>,
    /// Only the metrics with a published figure for the GPU.
    #[arg(long)]
    pub published_only: bool,
    /// Config overrides for every GPU.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Print JSON instead of the table.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV instead of the table.
    #[arg(long)]
    pub csv: bool,
    /// Exit with status 1 when a row is further than 5% from its published figure.
    #[arg(long)]
    pub check: bool,
    /// List the metrics and how each is measured, then exit.
    #[arg(long)]
    pub list: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Compare with the hardware counters measured on real GPUs (the ncu tables in DIR,
    /// tests/hardware/results by default): MAPE, mean signed error and correlation per metric,
    /// the rows constants were fitted to (training error) apart from the held-out ones.
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = "tests/hardware/results")]
    pub hardware: Option<String>,
}

pub fn run(a: &ValidateArgs) -> Result<()> {
    if let Some(dir) = &a.hardware {
        return hardware(std::path::Path::new(dir), a.json);
    }
    if a.list {
        for m in validate::all_metrics() {
            crate::outln!("{:<16} {:<14} {} ({})", m.id, m.unit, m.name, m.how);
        }
        return Ok(());
    }
    let gpus: Vec<String> = if a.gpus.iter().any(|g| g == "all") {
        validate::validated_presets()
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        a.gpus.clone()
    };
    let scope = if a.published_only {
        Scope::Published
    } else {
        Scope::All
    };
    let only: Vec<&str> = a.metrics.iter().map(|s| s.trim()).collect();
    let mut rows: Vec<Row> = Vec::new();
    let mut cfgs = Vec::new();
    for g in &gpus {
        cfgs.push(load_config(g, &a.set)?);
    }
    let total: usize = cfgs
        .iter()
        .map(|c| validate::planned(c, scope, &only).len())
        .sum();
    let progress = crate::progress::Progress::new("validate", total as u64, "metrics", a.quiet);
    for cfg in &cfgs {
        let gpu = cfg.gpu.id.clone();
        rows.extend(validate::run_with(cfg, scope, &only, &mut |id| {
            progress.inc(&format!("{gpu} {id}"))
        })?);
    }
    progress.finish();
    if a.json {
        let s =
            serde_json::to_string_pretty(&rows).map_err(|e| Error::other(format!("JSON: {e}")))?;
        crate::outln!("{s}");
    } else if a.csv {
        crate::out!("{}", validate::csv(&rows));
    } else {
        crate::out!("{}", validate::table_text(&rows));
    }
    let bad: Vec<&Row> = rows.iter().filter(|r| !r.passes()).collect();
    if a.check && !bad.is_empty() {
        let names: Vec<String> = bad
            .iter()
            .map(|r| format!("{} {}", r.gpu, r.metric))
            .collect();
        return Err(Error::other(format!(
            "{} row(s) further than {TOLERANCE_PCT}% from the published figure: {}",
            bad.len(),
            names.join(", ")
        )));
    }
    Ok(())
}

/// `validate --hardware DIR`.
fn hardware(dir: &std::path::Path, json: bool) -> Result<()> {
    use warpweave::validate::hardware;
    if !dir.is_dir() {
        return Err(Error::other(format!(
            "{}: no such folder of hardware results (tests/hardware/results in a clone of the repository)",
            dir.display()
        )));
    }
    let files = hardware::compare_dir(dir)?;
    if files.is_empty() {
        return Err(Error::other(format!(
            "{}: no Nsight Compute tables (CSV files with an sm_cycles column)",
            dir.display()
        )));
    }
    if json {
        let s =
            serde_json::to_string_pretty(&files).map_err(|e| Error::other(format!("JSON: {e}")))?;
        crate::outln!("{s}");
    } else {
        crate::out!("{}", hardware::report_text(&files));
        if dir.join("h100-probes.csv").exists() {
            let probes = warpweave::validate::probes::compare(dir)?;
            crate::out!("\n{}", probes.text());
        }
    }
    Ok(())
}
