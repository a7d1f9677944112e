//! Chunked runs (one per SLURM array task) and their collection.
//!
//! ```text
//!  emit:     DIR/sweep.json (manifest: plan text + hash, runs, chunks)   DIR/sweep.sbatch
//!  task i:   warpweave sweep run-chunk PLAN --chunk i --of N --out DIR/part-i.json
//!  collect:  DIR/part-*.json ──check hash, chunks, ids──> [JobResult] in id order ──> Table
//! ```
//!
//! A part records the hash of the plan text it ran, so a plan edited between submit and collect
//! is caught instead of silently mixing runs.

use serde::{Deserialize, Serialize};

use super::plan::{chunk_range, Plan};
use super::run::JobResult;
use crate::{Error, Result};

/// Format tag of part files.
pub const PART_FORMAT: &str = "warpweave-sweep-part/1";
/// Format tag of the manifest.
pub const MANIFEST_FORMAT: &str = "warpweave-sweep/1";
/// Manifest file name inside an emitted folder.
pub const MANIFEST_FILE: &str = "sweep.json";
/// Job-array script file name inside an emitted folder.
pub const SCRIPT_FILE: &str = "sweep.sbatch";

/// The results of one chunk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Part {
    pub format: String,
    pub plan_hash: String,
    pub runs: usize,
    pub chunk: usize,
    pub of: usize,
    pub results: Vec<JobResult>,
}

impl Part {
    pub fn new(plan: &Plan, chunk: usize, of: usize, results: Vec<JobResult>) -> Part {
        Part {
            format: PART_FORMAT.into(),
            plan_hash: plan.hash.clone(),
            runs: plan.job_count(),
            chunk,
            of,
            results,
        }
    }
}

/// What `--emit slurm` leaves beside the script, so `collect` needs only the folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    /// Absolute path of the plan file the tasks read.
    pub plan_path: String,
    /// The plan text as it was when emitted (collect parses this copy).
    pub plan_text: String,
    pub plan_hash: String,
    pub runs: usize,
    pub chunks: usize,
    /// Absolute path of the CLI binary the tasks call.
    pub binary: String,
}

/// Checks that the chunk numbers are sane for `plan`.
pub fn check_chunk(plan: &Plan, chunk: usize, of: usize) -> Result<()> {
    if of == 0 || chunk >= of {
        return Err(Error::other(format!(
            "--chunk {chunk} --of {of}: expected 0 <= chunk < of"
        )));
    }
    if of > plan.job_count().max(1) {
        return Err(Error::other(format!(
            "--of {of}: the plan has only {} runs; use at most that many chunks",
            plan.job_count()
        )));
    }
    Ok(())
}

/// Merges parts (named by their file for errors) into results for every run, in id order.
pub fn merge_parts(plan: &Plan, chunks: usize, parts: &[(String, Part)]) -> Result<Vec<JobResult>> {
    let n = plan.job_count();
    let mut seen = vec![false; chunks];
    let mut out: Vec<JobResult> = Vec::with_capacity(n);
    for (file, p) in parts {
        let bad = |field: &str, msg: String| Error::parse(file.as_str(), 0, field, msg);
        if p.format != PART_FORMAT {
            return Err(bad(
                "format",
                format!("expected `{PART_FORMAT}`, found `{}`", p.format),
            ));
        }
        if p.plan_hash != plan.hash {
            return Err(bad(
                "plan_hash",
                format!(
                    "part ran plan {} but the manifest has {}: was the plan edited?",
                    p.plan_hash, plan.hash
                ),
            ));
        }
        if p.runs != n || p.of != chunks || p.chunk >= chunks {
            return Err(bad(
                "chunk",
                format!(
                    "part is chunk {} of {} over {} runs; expected one of {chunks} over {n}",
                    p.chunk, p.of, p.runs
                ),
            ));
        }
        if std::mem::replace(&mut seen[p.chunk], true) {
            return Err(bad("chunk", format!("chunk {} appears twice", p.chunk)));
        }
        let range = chunk_range(n, p.chunk, p.of);
        let ids: Vec<usize> = p.results.iter().map(|r| r.id).collect();
        if ids != range.clone().collect::<Vec<_>>() {
            return Err(bad(
                "results",
                format!("expected runs {}..{} in order", range.start, range.end),
            ));
        }
        out.extend(p.results.iter().cloned());
    }
    let missing: Vec<String> = (0..chunks)
        .filter(|&c| !seen[c])
        .map(|c| c.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(Error::other(format!(
            "{}: {} of {chunks} chunks have no part file (array tasks {}): did they fail? see their logs",
            plan.file,
            missing.len(),
            missing.join(",")
        )));
    }
    out.sort_by_key(|r| r.id);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan::parse(
            "gpu = \"g\"\n[[workload]]\nname = \"w\"\n[axes]\nk = [1, 2, 3, 4, 5]\n",
            "p.toml",
        )
        .unwrap()
    }

    fn part(p: &Plan, c: usize, of: usize) -> (String, Part) {
        let results = chunk_range(p.job_count(), c, of)
            .map(|id| JobResult {
                id,
                metrics: vec![("x".into(), id as f64 * 1.5)],
            })
            .collect();
        (format!("part-{c}.json"), Part::new(p, c, of, results))
    }

    #[test]
    fn merge_in_any_order_round_trips_json() {
        let p = plan();
        let parts: Vec<(String, Part)> = [2, 0, 1]
            .iter()
            .map(|&c| {
                let (f, part) = part(&p, c, 3);
                let back: Part =
                    serde_json::from_str(&serde_json::to_string(&part).unwrap()).unwrap();
                (f, back)
            })
            .collect();
        let r = merge_parts(&p, 3, &parts).unwrap();
        assert_eq!(
            r.iter().map(|r| r.id).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 4]
        );
        assert_eq!(r[3].metrics[0].1, 4.5);
    }

    #[test]
    fn merge_reports_missing_and_foreign_parts() {
        let p = plan();
        let e = merge_parts(&p, 3, &[part(&p, 0, 3), part(&p, 2, 3)])
            .unwrap_err()
            .to_string();
        assert_eq!(e, "p.toml: 1 of 3 chunks have no part file (array tasks 1): did they fail? see their logs");
        let (f, mut x) = part(&p, 0, 3);
        x.plan_hash = "0000".into();
        let e = merge_parts(&p, 3, &[(f, x)]).unwrap_err().to_string();
        assert!(
            e.starts_with("part-0.json: plan_hash: part ran plan 0000"),
            "{e}"
        );
        let e = merge_parts(&p, 3, &[part(&p, 0, 3), part(&p, 0, 3)])
            .unwrap_err()
            .to_string();
        assert_eq!(e, "part-0.json: chunk: chunk 0 appears twice");
        assert!(check_chunk(&p, 3, 3).is_err());
        assert!(check_chunk(&p, 0, 6).is_err());
        assert!(check_chunk(&p, 4, 5).is_ok());
    }
}
