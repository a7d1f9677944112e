//! The results table: one row per run in id order, label columns then metric columns. The same
//! table feeds the CSV and the plots, whether the runs were local or came back from SLURM parts.
//!
//! ```text
//!  id,workload,mode,<axis keys...>,<metrics...>
//!  0,vecmul,cycle,1,1,5123,0.84
//! ```

use super::plan::Plan;
use super::run::JobResult;
use crate::{Error, Result};

/// Rows of a finished sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub columns: Vec<String>,
    /// Number of leading label columns (id, workload, mode, axes); metrics follow.
    pub label_count: usize,
    pub rows: Vec<Row>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub labels: Vec<String>,
    /// One value per metric column; `None` where a run did not report that metric.
    pub values: Vec<Option<f64>>,
}

impl Table {
    /// Builds the table; `results` must hold every run of the plan exactly once (any order).
    pub fn build(plan: &Plan, results: &[JobResult]) -> Result<Table> {
        let n = plan.job_count();
        let mut by_id: Vec<Option<&JobResult>> = vec![None; n];
        for r in results {
            let slot = by_id.get_mut(r.id).ok_or_else(|| {
                Error::other(format!(
                    "{}: result for run {} but the plan has {n} runs",
                    plan.file, r.id
                ))
            })?;
            if slot.is_some() {
                return Err(Error::other(format!(
                    "{}: run {} reported twice",
                    plan.file, r.id
                )));
            }
            *slot = Some(r);
        }
        let missing: Vec<usize> = (0..n).filter(|&i| by_id[i].is_none()).collect();
        if !missing.is_empty() {
            let shown: Vec<String> = missing.iter().take(10).map(|i| i.to_string()).collect();
            let more = if missing.len() > 10 {
                format!(" and {} more", missing.len() - 10)
            } else {
                String::new()
            };
            return Err(Error::other(format!(
                "{}: {} of {n} runs have no result: {}{more}",
                plan.file,
                missing.len(),
                shown.join(", ")
            )));
        }
        // Metric columns: union in first-seen order, walking runs by id (deterministic).
        let mut metrics: Vec<&str> = Vec::new();
        for r in by_id.iter().flatten() {
            for (k, _) in &r.metrics {
                if !metrics.contains(&k.as_str()) {
                    metrics.push(k);
                }
            }
        }
        let mut columns: Vec<String> = plan.label_columns().iter().map(|s| s.to_string()).collect();
        let label_count = columns.len();
        columns.extend(metrics.iter().map(|m| m.to_string()));
        let rows = by_id
            .iter()
            .flatten()
            .map(|r| Row {
                labels: plan.labels(&plan.job(r.id)),
                values: metrics
                    .iter()
                    .map(|m| r.metrics.iter().find(|(k, _)| k == m).map(|(_, v)| *v))
                    .collect(),
            })
            .collect();
        Ok(Table {
            columns,
            label_count,
            rows,
        })
    }

    /// Index of a column by name.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// The text of cell `col` of `row` (labels as given, metrics formatted as in the CSV).
    pub fn cell(&self, row: &Row, col: usize) -> String {
        if col < self.label_count {
            row.labels[col].clone()
        } else {
            row.values[col - self.label_count]
                .map(fmt_num)
                .unwrap_or_default()
        }
    }

    /// The table as CSV (RFC 4180 quoting, `\n` line ends).
    pub fn to_csv(&self) -> String {
        let mut s = String::new();
        let head: Vec<String> = self.columns.iter().map(|c| csv_field(c)).collect();
        s.push_str(&head.join(","));
        s.push('\n');
        for r in &self.rows {
            let cells: Vec<String> = (0..self.columns.len())
                .map(|c| csv_field(&self.cell(r, c)))
                .collect();
            s.push_str(&cells.join(","));
            s.push('\n');
        }
        s
    }
}

/// Integers print without a fraction; other values in Rust's shortest round-trip form.
pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows_by_id_with_union_of_metrics() {
        let plan = Plan::parse(
            "gpu = \"g\"\n[[workload]]\nname = \"w\"\nlabel = \"a,b\"\n[axes]\nk = [1, 2]\n",
            "p.toml",
        )
        .unwrap();
        let results = vec![
            JobResult {
                id: 1,
                metrics: vec![("cycles".into(), 20.0), ("ipc".into(), 0.25)],
            },
            JobResult {
                id: 0,
                metrics: vec![("cycles".into(), 10.0)],
            },
        ];
        let t = Table::build(&plan, &results).unwrap();
        assert_eq!(
            t.to_csv(),
            "id,workload,mode,k,cycles,ipc\n0,\"a,b\",cycle,1,10,\n1,\"a,b\",cycle,2,20,0.25\n"
        );
        let e = Table::build(&plan, &results[..1]).unwrap_err().to_string();
        assert_eq!(e, "p.toml: 1 of 2 runs have no result: 0");
        let dup = vec![results[0].clone(), results[0].clone()];
        assert_eq!(
            Table::build(&plan, &dup).unwrap_err().to_string(),
            "p.toml: run 1 reported twice"
        );
    }

    #[test]
    fn numbers_format_stably() {
        assert_eq!(fmt_num(5123.0), "5123");
        assert_eq!(fmt_num(-2.0), "-2");
        assert_eq!(fmt_num(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(fmt_num(1e20), "100000000000000000000");
    }
}
