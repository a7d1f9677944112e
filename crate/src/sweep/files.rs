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

/// A sweep plan's text: a regular file no larger than any GPU TOML (plans are a few KiB).
fn read_plan(path: &Path) -> Result<String> {
    crate::infile::read_text_bounded(path, crate::infile::MAX_CONFIG_BYTES, "sweep plan")
}

fn write(path: &Path, text: impl AsRef<[u8]>) -> Result<()> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            fs::create_dir_all(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
        }
    }
    crate::outfile::write_file(path, text)
}

/// Absolute form of `p` (without resolving links).
pub fn absolute(p: &Path) -> Result<PathBuf> {
    std::path::absolute(p).map_err(|e| Error::io(p.display().to_string(), e))
}

/// Loads and parses a plan file; the second value is its folder (relative paths resolve there).
pub fn load_plan(path: &Path) -> Result<(Plan, PathBuf)> {
    let text = read_plan(path)?;
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

/// The file beside a local sweep's results where each finished run is appended as it completes
/// (one JSON line each, after a header line naming the plan), so a stopped sweep keeps its runs
/// and `--resume` runs only the others.
pub const POINTS_FILE: &str = "points.jsonl";

/// A local sweep's record of finished runs ([`POINTS_FILE`]).
pub struct Journal {
    path: PathBuf,
    file: std::sync::Mutex<fs::File>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct JournalHeader {
    plan: String,
    plan_hash: String,
    runs: usize,
}

impl Journal {
    /// Checks the output folder and opens its journal before any run: `out` must be a folder
    /// (created if missing) that can be written. With `resume`, the runs already recorded for
    /// the same plan are returned (a last line cut short by a stop is dropped); without it, a
    /// journal that holds runs of an unfinished sweep is refused rather than lost, and any other
    /// is started over.
    pub fn open(plan: &Plan, out: &Path, resume: bool) -> Result<(Journal, Vec<JobResult>)> {
        let shown = out.display().to_string();
        if out.exists() && !out.is_dir() {
            return Err(Error::other(format!(
                "--out {shown}: is a file, expected a folder for the results"
            )));
        }
        fs::create_dir_all(out).map_err(|e| Error::io(&shown, e))?;
        let path = out.join(POINTS_FILE);
        let pshown = path.display().to_string();
        let runs = plan.job_count();
        let mut done: Vec<JobResult> = Vec::new();
        let mut keep_bytes = 0usize;
        if path.exists() {
            let text = read(&path)?;
            let mut lines = text.split_inclusive('\n');
            let header = lines.next().unwrap_or("");
            let h: Option<JournalHeader> = header
                .strip_suffix('\n')
                .and_then(|l| serde_json::from_str(l).ok());
            let same_plan = h
                .as_ref()
                .is_some_and(|h| h.plan_hash == plan.hash && h.runs == runs);
            let mut seen = vec![false; runs];
            if same_plan {
                keep_bytes = header.len();
                for (i, line) in lines.enumerate() {
                    // A line without its newline was cut short by a stop: run that point again.
                    let Some(l) = line.strip_suffix('\n') else {
                        break;
                    };
                    let r: JobResult = serde_json::from_str(l)
                        .map_err(|e| Error::parse(&pshown, i as u64 + 2, "run", e.to_string()))?;
                    if r.id >= runs || seen[r.id] {
                        return Err(Error::parse(
                            &pshown,
                            i as u64 + 2,
                            "id",
                            format!("run {} is not a new run of the plan's {runs}", r.id),
                        ));
                    }
                    seen[r.id] = true;
                    keep_bytes += line.len();
                    done.push(r);
                }
            }
            if resume && !same_plan && h.is_some() {
                return Err(Error::other(format!(
                    "--resume: {pshown} holds runs of another plan (or an edited one); \
                     name another --out or delete it"
                )));
            }
            if !resume {
                if same_plan && !done.is_empty() && done.len() < runs {
                    return Err(Error::other(format!(
                        "{pshown} holds {} of the {runs} runs of an unfinished sweep of this \
                         plan: add --resume to run the others, or delete it to start over",
                        done.len()
                    )));
                }
                done.clear();
                keep_bytes = 0;
            }
        }
        let mut f = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&pshown, e))?;
        f.set_len(keep_bytes as u64)
            .map_err(|e| Error::io(&pshown, e))?;
        use std::io::{Seek, Write};
        f.seek(std::io::SeekFrom::End(0))
            .map_err(|e| Error::io(&pshown, e))?;
        if keep_bytes == 0 {
            let h = JournalHeader {
                plan: plan.name.clone(),
                plan_hash: plan.hash.clone(),
                runs,
            };
            let line = serde_json::to_string(&h).map_err(|e| Error::other(e.to_string()))?;
            writeln!(f, "{line}").map_err(|e| Error::io(&pshown, e))?;
        }
        Ok((
            Journal {
                path,
                file: std::sync::Mutex::new(f),
            },
            done,
        ))
    }

    /// Appends one finished run (one `write` of a whole line, safe from several threads).
    pub fn append(&self, r: &JobResult) -> Result<()> {
        use std::io::Write;
        let mut line = serde_json::to_string(r).map_err(|e| Error::other(e.to_string()))?;
        line.push('\n');
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        f.write_all(line.as_bytes())
            .map_err(|e| Error::io(self.path.display().to_string(), e))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Writes one chunk's part file.
pub fn write_part(part: &Part, path: &Path) -> Result<()> {
    let text = serde_json::to_string(part).map_err(|e| Error::other(e.to_string()))?;
    // Written beside and renamed, so a collector never reads half a part.
    write(path, &text)
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
        plan_text: read_plan(plan_path)?,
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
