//! The sweep plan: a small TOML file naming a GPU preset, fixed overrides, workloads, modes and
//! the axes (config keys with value lists) whose cartesian product is the set of runs.
//!
//! ```text
//!  plan.toml ──parse──> Plan ──expand──> [Job 0, Job 1, ... Job N-1]
//!                                         id = ((workload * modes + mode) * |axis0| + v0) * |axis1| + v1 ...
//! ```
//!
//! Every run gets a stable id, its index in the expanded plan, so chunks (SLURM array tasks) and
//! collection are deterministic and CSV rows are ordered by id whatever the thread count.
//! The format is documented for users in `configs/sweeps/README.md`.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::trace::Fnv64;
use crate::{Error, Result};

/// One built-in workload or one trace on disk.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadSource {
    /// A built-in kernel model (`vecmul`, `transpose`, `matmul`, ...) with its parameters
    /// (name, value as text), in key order.
    Builtin {
        name: String,
        params: Vec<(String, String)>,
    },
    /// A trace folder or file, as written in the plan (relative to the plan's folder).
    Trace { path: String },
}

/// A workload of the plan with the label its CSV rows carry.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadSpec {
    pub label: String,
    pub source: WorkloadSource,
}

/// A swept config key and the values it takes, in plan order, with the keys of `[zip]` that move
/// in step with it (same number of values; value i of each goes with value i of `key`).
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub key: String,
    pub values: Vec<String>,
    pub linked: Vec<(String, Vec<String>)>,
}

impl Axis {
    /// Every key of this axis: `key`, then the linked keys.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.key.as_str()).chain(self.linked.iter().map(|(k, _)| k.as_str()))
    }
}

/// Chart style of a plot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlotKind {
    #[default]
    Line,
    Bar,
}

/// One requested plot: `metric` against the column `x`, one curve per value of `series`; one chart
/// per combination of the remaining columns (workload, mode, other axes).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    pub metric: String,
    pub x: String,
    #[serde(default)]
    pub series: Option<String>,
    #[serde(default)]
    pub kind: PlotKind,
    #[serde(default)]
    pub title: Option<String>,
}

/// A parsed, validated plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub name: String,
    /// The plan file's name as given (for errors and reports).
    pub file: String,
    /// Preset id or path of a GPU TOML file.
    pub gpu: String,
    pub modes: Vec<String>,
    /// Overrides applied to every run before the axis values, in key order.
    pub set: Vec<(String, String)>,
    pub workloads: Vec<WorkloadSpec>,
    pub axes: Vec<Axis>,
    pub plots: Vec<PlotSpec>,
    /// FNV-64 of the plan text: parts of a chunked run must carry the same one.
    pub hash: String,
}

/// One run of an expanded plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// Index in the expanded plan.
    pub id: usize,
    /// Index into [`Plan::workloads`].
    pub workload: usize,
    pub mode: String,
    /// `(key, value)` for every axis key (linked `[zip]` keys after their axis), in axis order.
    pub axes: Vec<(String, String)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    #[serde(default)]
    name: Option<String>,
    gpu: String,
    #[serde(default)]
    modes: Vec<String>,
    #[serde(default)]
    set: toml::Table,
    #[serde(default, rename = "workload")]
    workloads: Vec<WorkloadFile>,
    #[serde(default)]
    axes: toml::Table,
    #[serde(default)]
    zip: toml::Table,
    #[serde(default)]
    axis_order: Vec<String>,
    #[serde(default, rename = "plot")]
    plots: Vec<PlotSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkloadFile {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    trace: Option<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    params: toml::Table,
}

/// Columns every CSV row starts with before the axis keys.
pub const FIXED_COLUMNS: [&str; 3] = ["id", "workload", "mode"];

/// Most runs one plan may expand to (a guard against a typo that multiplies a million runs).
pub const MAX_RUNS: usize = 1_000_000;

impl Plan {
    /// Parses plan text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Plan> {
        let pf: PlanFile = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
        let err = |field: &str, msg: String| Error::parse(file, 0, field, msg);

        let modes = if pf.modes.is_empty() {
            vec!["cycle".to_string()]
        } else {
            pf.modes
        };
        if let Some(m) = modes.iter().find(|m| m.trim().is_empty()) {
            return Err(err("modes", format!("empty mode name `{m}`")));
        }

        let mut set = Vec::new();
        flatten("", &toml::Value::Table(pf.set), &mut |k, v| {
            set.push((
                k.to_string(),
                scalar_text(v).ok_or_else(|| err(&format!("set.{k}"), expected_scalar(v)))?,
            ));
            Ok(())
        })?;

        let mut workloads = Vec::new();
        for (i, w) in pf.workloads.into_iter().enumerate() {
            let field = format!("workload[{i}]");
            let mut params = Vec::new();
            flatten("", &toml::Value::Table(w.params), &mut |k, v| {
                let t = scalar_text(v)
                    .ok_or_else(|| err(&format!("{field}.params.{k}"), expected_scalar(v)))?;
                params.push((k.to_string(), t));
                Ok(())
            })?;
            let (source, default_label) = match (w.name, w.trace) {
                (Some(name), None) => {
                    let label = if params.is_empty() {
                        name.clone()
                    } else {
                        let p: Vec<String> =
                            params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        format!("{name}({})", p.join(","))
                    };
                    (WorkloadSource::Builtin { name, params }, label)
                }
                (None, Some(path)) => {
                    if !params.is_empty() {
                        return Err(err(
                            &field,
                            "`params` apply only to built-in workloads (`name`)".into(),
                        ));
                    }
                    let label = path
                        .trim_end_matches('/')
                        .rsplit('/')
                        .next()
                        .unwrap_or(&path)
                        .to_string();
                    (WorkloadSource::Trace { path }, label)
                }
                _ => {
                    return Err(err(
                        &field,
                        "expected exactly one of `name` (built-in) or `trace` (path)".into(),
                    ))
                }
            };
            workloads.push(WorkloadSpec {
                label: w.label.unwrap_or(default_label),
                source,
            });
        }
        if workloads.is_empty() {
            return Err(err(
                "workload",
                "expected at least one [[workload]] table".into(),
            ));
        }
        for (i, w) in workloads.iter().enumerate() {
            if workloads[..i].iter().any(|o| o.label == w.label) {
                return Err(err(
                    &format!("workload[{i}].label"),
                    format!("label `{}` used twice", w.label),
                ));
            }
        }

        let mut axes: Vec<Axis> = Vec::new();
        flatten_axes("", &toml::Value::Table(pf.axes), &mut axes, file)?;
        let mut zipped: Vec<Axis> = Vec::new();
        flatten_axes("", &toml::Value::Table(pf.zip), &mut zipped, file)?;
        if !zipped.is_empty() {
            let mut it = zipped.into_iter();
            let mut first = it.next().expect("not empty");
            for z in it {
                if z.values.len() != first.values.len() {
                    return Err(err(
                        &format!("zip.{}", z.key),
                        format!(
                            "has {} values but zip.{} has {}; zipped keys move together",
                            z.values.len(),
                            first.key,
                            first.values.len()
                        ),
                    ));
                }
                first.linked.push((z.key, z.values));
            }
            axes.push(first);
        }
        if !pf.axis_order.is_empty() {
            // A `[zip]` key named in axis_order becomes its axis's leading (primary) key.
            for k in &pf.axis_order {
                for a in axes.iter_mut() {
                    if let Some(pos) = a.linked.iter().position(|(l, _)| l == k) {
                        let (lk, lv) = a.linked.remove(pos);
                        let old = (
                            std::mem::replace(&mut a.key, lk),
                            std::mem::replace(&mut a.values, lv),
                        );
                        a.linked.insert(0, old);
                    }
                }
            }
            let mut ordered = Vec::with_capacity(axes.len());
            for k in &pf.axis_order {
                let pos = axes
                    .iter()
                    .position(|a| &a.key == k)
                    .ok_or_else(|| err("axis_order", format!("`{k}` is not a key of [axes]")))?;
                ordered.push(axes.remove(pos));
            }
            ordered.append(&mut axes);
            axes = ordered;
        }
        let mut keys: Vec<&str> = Vec::new();
        for k in axes.iter().flat_map(|a| a.keys()) {
            if FIXED_COLUMNS.contains(&k) {
                return Err(err(&format!("axes.{k}"), "reserved column name".into()));
            }
            if set.iter().any(|(s, _)| s == k) {
                return Err(err(
                    &format!("axes.{k}"),
                    "key is also in [set]; keep it in one place".into(),
                ));
            }
            if keys.contains(&k) {
                return Err(err(
                    &format!("axes.{k}"),
                    "key is both in [axes] and [zip]".into(),
                ));
            }
            keys.push(k);
        }

        let plan = Plan {
            name: pf.name.unwrap_or_else(|| {
                file.rsplit('/')
                    .next()
                    .unwrap_or(file)
                    .trim_end_matches(".toml")
                    .to_string()
            }),
            file: file.to_string(),
            gpu: pf.gpu,
            modes,
            set,
            workloads,
            axes,
            plots: pf.plots,
            hash: {
                let mut h = Fnv64::new();
                h.write(text.as_bytes());
                h.hex()
            },
        };
        let n = plan.job_count();
        if n > MAX_RUNS {
            return Err(err(
                "axes",
                format!("plan expands to {n} runs; at most {MAX_RUNS} allowed"),
            ));
        }
        let columns = plan.label_columns();
        for (i, p) in plan.plots.iter().enumerate() {
            if !columns.contains(&p.x.as_str()) {
                return Err(err(
                    &format!("plot[{i}].x"),
                    format!("`{}` is not a column; expected one of {columns:?}", p.x),
                ));
            }
            if let Some(s) = &p.series {
                if !columns.contains(&s.as_str()) || s == &p.x {
                    return Err(err(
                        &format!("plot[{i}].series"),
                        format!("`{s}` is not a column other than x; expected one of {columns:?}"),
                    ));
                }
            }
        }
        Ok(plan)
    }

    /// Number of runs: workloads x modes x product of axis lengths.
    pub fn job_count(&self) -> usize {
        self.axes.iter().fold(
            self.workloads.len().saturating_mul(self.modes.len()),
            |n, a| n.saturating_mul(a.values.len()),
        )
    }

    /// The run with this id (workload slowest, then mode, then axes in order, last axis fastest).
    pub fn job(&self, id: usize) -> Job {
        let mut rest = id;
        let mut idx = vec![0usize; self.axes.len()];
        for (i, a) in self.axes.iter().enumerate().rev() {
            idx[i] = rest % a.values.len();
            rest /= a.values.len();
        }
        let mode = rest % self.modes.len();
        let workload = rest / self.modes.len();
        Job {
            id,
            workload,
            mode: self.modes[mode].clone(),
            axes: self
                .axes
                .iter()
                .zip(idx)
                .flat_map(|(a, i)| {
                    std::iter::once((a.key.clone(), a.values[i].clone()))
                        .chain(a.linked.iter().map(move |(k, v)| (k.clone(), v[i].clone())))
                })
                .collect(),
        }
    }

    /// Every run in id order.
    pub fn jobs(&self) -> Vec<Job> {
        (0..self.job_count()).map(|i| self.job(i)).collect()
    }

    /// The label columns of the CSV: id, workload, mode, then the axis keys.
    pub fn label_columns(&self) -> Vec<&str> {
        FIXED_COLUMNS
            .iter()
            .copied()
            .chain(self.axes.iter().flat_map(|a| a.keys()))
            .collect()
    }

    /// The label values of a run, matching [`Plan::label_columns`].
    pub fn labels(&self, job: &Job) -> Vec<String> {
        let mut v = vec![
            job.id.to_string(),
            self.workloads[job.workload].label.clone(),
            job.mode.clone(),
        ];
        v.extend(job.axes.iter().map(|(_, x)| x.clone()));
        v
    }

    /// Every override of a run in the order they apply: `[set]`, then the axis values.
    pub fn overrides<'a>(&'a self, job: &'a Job) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        self.set
            .iter()
            .chain(job.axes.iter())
            .map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// The ids of chunk `chunk` of `of` over `n` runs: contiguous, sizes differing by at most one.
pub fn chunk_range(n: usize, chunk: usize, of: usize) -> std::ops::Range<usize> {
    let of = of.max(1);
    let lo = (n as u128 * chunk as u128 / of as u128) as usize;
    let hi = (n as u128 * (chunk as u128 + 1) / of as u128) as usize;
    lo.min(n)..hi.min(n)
}

fn toml_error(text: &str, file: &str, e: &toml::de::Error) -> Error {
    let line = e
        .span()
        .map(|s| text[..s.start.min(text.len())].lines().count().max(1) as u64)
        .unwrap_or(0);
    let line = match e.span() {
        Some(s) if text[..s.start.min(text.len())].ends_with('\n') => line + 1,
        _ => line,
    };
    Error::parse(file, line, "toml", e.message().trim().to_string())
}

/// The text of a scalar TOML value as an override or parameter takes it.
fn scalar_text(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(format!("{f:?}")),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn expected_scalar(v: &toml::Value) -> String {
    format!(
        "expected a string, integer, float or boolean, found {}",
        v.type_str()
    )
}

/// Walks nested tables, calling `f` with dotted keys for every non-table leaf (in key order).
fn flatten(
    prefix: &str,
    v: &toml::Value,
    f: &mut dyn FnMut(&str, &toml::Value) -> Result<()>,
) -> Result<()> {
    match v {
        toml::Value::Table(t) => {
            let sorted: BTreeMap<&String, &toml::Value> = t.iter().collect();
            for (k, v) in sorted {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, f)?;
            }
            Ok(())
        }
        _ => f(prefix, v),
    }
}

fn flatten_axes(prefix: &str, v: &toml::Value, out: &mut Vec<Axis>, file: &str) -> Result<()> {
    let field = format!("axes.{prefix}");
    match v {
        toml::Value::Table(t) => {
            let sorted: BTreeMap<&String, &toml::Value> = t.iter().collect();
            for (k, v) in sorted {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten_axes(&key, v, out, file)?;
            }
            Ok(())
        }
        toml::Value::Array(items) => {
            if items.is_empty() {
                return Err(Error::parse(
                    file,
                    0,
                    field,
                    "expected a non-empty list of values",
                ));
            }
            let mut values = Vec::with_capacity(items.len());
            for it in items {
                let t = scalar_text(it)
                    .ok_or_else(|| Error::parse(file, 0, field.clone(), expected_scalar(it)))?;
                if values.contains(&t) {
                    return Err(Error::parse(
                        file,
                        0,
                        field.clone(),
                        format!("value `{t}` listed twice"),
                    ));
                }
                values.push(t);
            }
            out.push(Axis {
                key: prefix.to_string(),
                values,
                linked: Vec::new(),
            });
            Ok(())
        }
        other => Err(Error::parse(
            file,
            0,
            field,
            format!("expected a list of values, found {}", other.type_str()),
        )),
    }
}

/// Fuzz entry point: plan text parsed; an accepted plan expands consistently (every run's
/// labels match the columns, the first, middle and last run exist) and its overrides apply to
/// its preset or fail with an error. Never panics, whatever the input.
pub fn fuzz_plan(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(plan) = Plan::parse(text, "fuzz.toml") else {
        return;
    };
    let n = plan.job_count();
    assert!(n <= MAX_RUNS, "{n} runs accepted");
    let columns = plan.label_columns().len();
    for id in [0, n / 2, n.saturating_sub(1)]
        .into_iter()
        .filter(|&i| i < n)
    {
        let job = plan.job(id);
        assert_eq!(job.id, id);
        assert_eq!(plan.labels(&job).len(), columns);
        if let Ok(mut cfg) = crate::config::preset(&plan.gpu) {
            for (k, v) in plan.overrides(&job) {
                if crate::config::apply_override(&mut cfg, k, v).is_err() {
                    break;
                }
            }
            let _ = cfg.validate();
        }
    }
}

/// Seed inputs for the fuzz mutation loop: the plans shipped in configs/sweeps/.
pub fn fuzz_seeds() -> Vec<Vec<u8>> {
    [
        include_str!("../../../configs/sweeps/test-2x2.toml"),
        include_str!("../../../configs/sweeps/seed003-blocks.toml"),
        include_str!("../../../configs/sweeps/seed003-warps-issue.toml"),
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = r#"
name = "t"
gpu = "teaching"
modes = ["cycle", "fast"]
set = { "sm.subcores" = 2 }
[[workload]]
name = "vecmul"
params = { n = 256 }
[[workload]]
trace = "traces/my_app/"
[axes]
"sm.max_warps" = [1, 2, 3]
scheduler.issue_width = [1, 2]
"#;

    #[test]
    fn expands_in_id_order_last_axis_fastest() {
        let p = Plan::parse(PLAN, "t.toml").unwrap();
        assert_eq!(p.job_count(), 2 * 2 * 3 * 2);
        assert_eq!(p.axes[0].key, "scheduler.issue_width"); // key order without axis_order
        assert_eq!(p.axes[1].key, "sm.max_warps");
        let j = p.job(13);
        // 13 = ((w*2 + m)*2 + iw)*3 + mw: w=1, m=0, iw=0, mw=1.
        assert_eq!(j.workload, 1);
        assert_eq!(j.mode, "cycle");
        assert_eq!(
            j.axes,
            vec![
                ("scheduler.issue_width".into(), "1".into()),
                ("sm.max_warps".into(), "2".into())
            ]
        );
        assert_eq!(p.labels(&j), vec!["13", "my_app", "cycle", "1", "2"]);
        assert_eq!(p.workloads[0].label, "vecmul(n=256)");
        assert_eq!(p.set, vec![("sm.subcores".to_string(), "2".to_string())]);
        let ov: Vec<_> = p.overrides(&j).collect();
        assert_eq!(
            ov,
            vec![
                ("sm.subcores", "2"),
                ("scheduler.issue_width", "1"),
                ("sm.max_warps", "2")
            ]
        );
        let ids: Vec<usize> = p.jobs().iter().map(|j| j.id).collect();
        assert_eq!(ids, (0..24).collect::<Vec<_>>());
    }

    #[test]
    fn axis_order_reorders() {
        let text = PLAN.replace(
            "name = \"t\"",
            "name = \"t\"\naxis_order = [\"sm.max_warps\"]",
        );
        let p = Plan::parse(&text, "t.toml").unwrap();
        assert_eq!(p.axes[0].key, "sm.max_warps");
        assert_eq!(
            p.job(1).axes[1],
            ("scheduler.issue_width".into(), "2".into())
        );
    }

    #[test]
    fn zip_keys_move_together() {
        let text = "gpu = \"g\"\naxis_order = [\"b\"]\n[[workload]]\nname = \"w\"\n[axes]\nk = [0, 1]\n[zip]\nb = [1, 2, 4]\nw = [4, 8, 16]\n";
        let p = Plan::parse(text, "z.toml").unwrap();
        assert_eq!(p.job_count(), 6);
        assert_eq!(
            p.label_columns(),
            vec!["id", "workload", "mode", "b", "w", "k"]
        );
        assert_eq!(p.labels(&p.job(5)), vec!["5", "w", "cycle", "4", "16", "1"]);
        let bad = text.replace("w = [4, 8, 16]", "w = [4, 8]");
        let e = Plan::parse(&bad, "z.toml").unwrap_err().to_string();
        assert_eq!(
            e,
            "z.toml: zip.w: has 2 values but zip.b has 3; zipped keys move together"
        );
        let lead = text.replace("axis_order = [\"b\"]", "axis_order = [\"w\"]");
        let p = Plan::parse(&lead, "z.toml").unwrap();
        assert_eq!(
            p.label_columns(),
            vec!["id", "workload", "mode", "w", "b", "k"]
        );
        assert_eq!(p.labels(&p.job(5)), vec!["5", "w", "cycle", "16", "4", "1"]);
    }

    #[test]
    fn chunks_cover_every_id_once() {
        for n in [0usize, 1, 5, 7, 100] {
            for of in [1usize, 2, 3, 8] {
                let mut all = Vec::new();
                for c in 0..of {
                    all.extend(chunk_range(n, c, of));
                }
                assert_eq!(all, (0..n).collect::<Vec<_>>(), "n={n} of={of}");
            }
        }
        assert_eq!(chunk_range(7, 1, 3), 2..4);
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let e = Plan::parse("gpu = \"x\"\n[[workload]]\nname = 3\n", "p.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("p.toml:3: toml:"), "{e}");
        let e = Plan::parse(
            "gpu = \"x\"\n[[workload]]\nname = \"a\"\ntrace = \"b\"\n",
            "p.toml",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "p.toml: workload[0]: expected exactly one of `name` (built-in) or `trace` (path)"
        );
        let e = Plan::parse(
            "gpu = \"x\"\n[[workload]]\nname = \"a\"\n[axes]\n\"sm.x\" = []\n",
            "p.toml",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(e, "p.toml: axes.sm.x: expected a non-empty list of values");
        let e = Plan::parse("gpu = \"x\"\n[[workload]]\nname = \"a\"\n[[plot]]\nmetric = \"cycles\"\nx = \"sm.y\"\n", "p.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("p.toml: plot[0].x: `sm.y` is not a column"),
            "{e}"
        );
        let e = Plan::parse("gpu = \"x\"\n", "p.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "p.toml: workload: expected at least one [[workload]] table"
        );
    }
}
