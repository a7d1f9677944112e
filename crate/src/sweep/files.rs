//! The file side of sweeps (native only): load a plan, write a sweep's CSV, JSON and SVG charts,
//! write and read chunk parts, emit the SLURM folder, collect it.
//!
//! ```text
//!  OUT/results.csv   OUT/results.json   OUT/plots/<metric>-vs-<x>-<group>.svg|.png
//!  DIR/sweep.json  DIR/sweep.sbatch  DIR/logs/  DIR/part-<i>.json   (SLURM)
//! ```

use std::fs;
use std::path::{Path, PathBuf};

use super::charts::charts;
use super::chunk::{merge_parts, Manifest, Part, MANIFEST_FILE, MANIFEST_FORMAT, SCRIPT_FILE};
use super::plan::Plan;
use super::run::JobResult;
use super::slurm::{script, SlurmOptions};
use super::table::Table;
use crate::{Error, Result};

fn read(path: &Path) -> Result<String> {
    fs::read_to_string(path).map_err(|e| Error::io(path.display().to_string(), e))
}

fn write(path: &Path, text: impl AsRef<[u8]>) -> Result<()> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            fs::create_dir_all(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
        }
    }
    fs::write(path, text).map_err(|e| Error::io(path.display().to_string(), e))
}

/// Absolute form of `p` (without resolving links).
pub fn absolute(p: &Path) -> Result<PathBuf> {
    std::path::absolute(p).map_err(|e| Error::io(p.display().to_string(), e))
}

/// Loads and parses a plan file; the second value is its folder (relative paths resolve there).
pub fn load_plan(path: &Path) -> Result<(Plan, PathBuf)> {
    let text = read(path)?;
    let plan = Plan::parse(&text, &path.display().to_string())?;
    let dir = absolute(path)?
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    Ok((plan, dir))
}

/// What [`write_outputs`] wrote.
#[derive(Debug, Default)]
pub struct Written {
    pub csv: PathBuf,
    pub plots: Vec<PathBuf>,
}

/// Writes `results.csv`, `results.json` (plan hash + results) and one SVG and one PNG per chart under `out`.
pub fn write_outputs(plan: &Plan, results: &[JobResult], out: &Path) -> Result<Written> {
    let table = Table::build(plan, results)?;
    let csv = out.join("results.csv");
    write(&csv, table.to_csv())?;
    let json = serde_json::json!({ "plan": plan.name, "plan_hash": plan.hash, "columns": table.columns, "results": results });
    write(
        &out.join("results.json"),
        &serde_json::to_string_pretty(&json).map_err(|e| Error::other(e.to_string()))?,
    )?;
    let mut plots = Vec::new();
    for c in charts(plan, &table)? {
        let p = out.join("plots").join(&c.file);
        write(&p, c.chart.to_svg())?;
        let png = p.with_extension("png");
        write(&png, c.chart.to_png())?;
        plots.push(p);
        plots.push(png);
    }
    Ok(Written { csv, plots })
}

/// Writes one chunk's part file.
pub fn write_part(part: &Part, path: &Path) -> Result<()> {
    let text = serde_json::to_string(part).map_err(|e| Error::other(e.to_string()))?;
    // Write then rename, so a collector never reads half a part.
    let tmp = path.with_extension("json.tmp");
    write(&tmp, &text)?;
    fs::rename(&tmp, path).map_err(|e| Error::io(path.display().to_string(), e))
}

/// Emits the SLURM folder for `plan_path`: manifest and job-array script of `chunks` tasks.
/// Returns the script path.
pub fn emit_slurm(
    plan_path: &Path,
    dir: &Path,
    chunks: usize,
    binary: &Path,
    opt: &SlurmOptions,
) -> Result<PathBuf> {
    let (plan, _) = load_plan(plan_path)?;
    let runs = plan.job_count();
    if chunks == 0 || chunks > runs.max(1) {
        return Err(Error::other(format!(
            "--chunks {chunks}: expected 1..={} (the plan has {runs} runs)",
            runs.max(1)
        )));
    }
    let dir = absolute(dir)?;
    fs::create_dir_all(dir.join("logs")).map_err(|e| Error::io(dir.display().to_string(), e))?;
    let m = Manifest {
        format: MANIFEST_FORMAT.into(),
        plan_path: absolute(plan_path)?.display().to_string(),
        plan_text: read(plan_path)?,
        plan_hash: plan.hash.clone(),
        runs,
        chunks,
        binary: absolute(binary)?.display().to_string(),
    };
    write(
        &dir.join(MANIFEST_FILE),
        &serde_json::to_string_pretty(&m).map_err(|e| Error::other(e.to_string()))?,
    )?;
    let sp = dir.join(SCRIPT_FILE);
    write(&sp, script(&m, &dir.display().to_string(), &plan.name, opt))?;
    Ok(sp)
}

/// Reads an emitted folder's manifest and parts; returns the plan and all results in id order.
pub fn collect(dir: &Path) -> Result<(Plan, Vec<JobResult>)> {
    let mp = dir.join(MANIFEST_FILE);
    let m: Manifest = serde_json::from_str(&read(&mp)?).map_err(|e| {
        Error::parse(
            mp.display().to_string(),
            e.line() as u64,
            "manifest",
            e.to_string(),
        )
    })?;
    if m.format != MANIFEST_FORMAT {
        return Err(Error::parse(
            mp.display().to_string(),
            0,
            "format",
            format!("expected `{MANIFEST_FORMAT}`"),
        ));
    }
    let plan = Plan::parse(&m.plan_text, &m.plan_path)?;
    let mut names: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| Error::io(dir.display().to_string(), e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.starts_with("part-") && n.ends_with(".json")
        })
        .collect();
    names.sort();
    let mut parts = Vec::with_capacity(names.len());
    for p in names {
        let text = read(&p)?;
        let part: Part = serde_json::from_str(&text).map_err(|e| {
            Error::parse(
                p.display().to_string(),
                e.line() as u64,
                "part",
                e.to_string(),
            )
        })?;
        parts.push((p.display().to_string(), part));
    }
    let results = merge_parts(&plan, m.chunks, &parts)?;
    Ok((plan, results))
}
