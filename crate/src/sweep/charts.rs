//! Charts of a results table, as the plan's `[[plot]]` tables ask: `metric` against column `x`,
//! one series per value of `series`, one chart per combination of the other label columns.
//!
//! ```text
//!  Table ──group by (workload, mode, other axes)──> one Chart each ──> <metric>-<group>.svg
//! ```

use super::plan::{Plan, PlotKind, PlotSpec};
use super::table::Table;
use crate::plot::{Chart, ChartKind, Series};
use crate::{Error, Result};

/// A chart and the file name (without folder) it should be written to.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedChart {
    pub file: String,
    pub chart: Chart,
}

/// The plots a plan asks for, or by default line charts of `cycles` and `ipc` (every metric when
/// neither is reported) against the first axis (series: the second axis) when the plan has axes
/// and no `[[plot]]`.
pub fn plot_specs(plan: &Plan, table: &Table) -> Vec<PlotSpec> {
    if !plan.plots.is_empty() {
        return plan.plots.clone();
    }
    let Some(x) = plan.axes.first() else {
        return Vec::new();
    };
    let series = plan.axes.get(1).map(|a| a.key.clone());
    let metrics = &table.columns[table.label_count..];
    let main: Vec<&String> = metrics
        .iter()
        .filter(|m| m.as_str() == "cycles" || m.as_str() == "ipc")
        .collect();
    let chosen: Vec<&String> = if main.is_empty() {
        metrics.iter().collect()
    } else {
        main
    };
    chosen
        .into_iter()
        .map(|m| PlotSpec {
            metric: m.clone(),
            x: x.key.clone(),
            series: series.clone(),
            kind: PlotKind::Line,
            title: None,
        })
        .collect()
}

/// Every chart of the plan over `table`.
pub fn charts(plan: &Plan, table: &Table) -> Result<Vec<NamedChart>> {
    let mut out = Vec::new();
    for spec in plot_specs(plan, table) {
        out.extend(charts_for(plan, table, &spec)?);
    }
    Ok(out)
}

fn charts_for(plan: &Plan, t: &Table, spec: &PlotSpec) -> Result<Vec<NamedChart>> {
    let col = |name: &str| {
        t.column(name).ok_or_else(|| {
            Error::other(format!(
                "plot: no column `{name}` in the results ({:?})",
                t.columns
            ))
        })
    };
    let m = col(&spec.metric)?;
    if m < t.label_count {
        return Err(Error::other(format!(
            "plot: `{}` is a label column, not a metric",
            spec.metric
        )));
    }
    let x = col(&spec.x)?;
    let s = spec.series.as_deref().map(col).transpose()?;
    // Group columns: labels other than id, x and series, and the `[zip]` keys that move with
    // x or series (they are the same dimension).
    let same_dim = |c: usize| {
        let name = t.columns[c].as_str();
        plan.axes
            .iter()
            .filter(|a| a.keys().any(|k| k == name))
            .flat_map(|a| a.keys())
            .any(|k| k == spec.x || spec.series.as_deref() == Some(k))
    };
    let group_cols: Vec<usize> = (1..t.label_count)
        .filter(|&c| c != x && Some(c) != s && !same_dim(c))
        .collect();

    // Distinct values in first-seen (= plan) order.
    fn distinct(v: impl Iterator<Item = String>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in v {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }
    let key = |r: &super::table::Row| group_cols.iter().map(|&c| t.cell(r, c)).collect::<Vec<_>>();
    let groups = distinct(t.rows.iter().map(|r| key(r).join("\u{1f}")));
    let xs = distinct(t.rows.iter().map(|r| t.cell(r, x)));
    let numeric_x = spec.kind == PlotKind::Line && xs.iter().all(|v| v.parse::<f64>().is_ok());
    let series_names = match s {
        Some(sc) => distinct(t.rows.iter().map(|r| t.cell(r, sc))),
        None => vec![spec.metric.clone()],
    };

    let mut out = Vec::new();
    for g in &groups {
        let rows: Vec<&super::table::Row> = t
            .rows
            .iter()
            .filter(|r| &key(r).join("\u{1f}") == g)
            .collect();
        let gvals: Vec<String> = group_cols
            .iter()
            .map(|&c| format!("{}={}", t.columns[c], t.cell(rows[0], c)))
            .collect();
        let title = spec
            .title
            .clone()
            .unwrap_or_else(|| format!("{} vs {}", spec.metric, spec.x));
        let mut chart = Chart::new(title, spec.x.clone(), spec.metric.clone());
        chart.subtitle = gvals.join(", ");
        chart.kind = match spec.kind {
            PlotKind::Line => ChartKind::Line,
            PlotKind::Bar => ChartKind::Bar,
        };
        if !numeric_x {
            chart.categories = xs.clone();
        }
        for name in &series_names {
            let label = match s {
                // The last part of a dotted key keeps the legend short: issue_width=2.
                Some(sc) => format!(
                    "{}={name}",
                    t.columns[sc].rsplit('.').next().unwrap_or(&t.columns[sc])
                ),
                None => name.clone(),
            };
            let mut points = Vec::new();
            for r in rows
                .iter()
                .filter(|r| s.is_none_or(|sc| &t.cell(r, sc) == name))
            {
                let Some(y) = r.values[m - t.label_count] else {
                    continue;
                };
                let xv = t.cell(r, x);
                let xp = if numeric_x {
                    xv.parse::<f64>().unwrap_or(f64::NAN)
                } else {
                    xs.iter().position(|v| v == &xv).unwrap_or(0) as f64
                };
                points.push((xp, y));
            }
            chart.series.push(Series {
                name: label,
                points,
            });
        }
        let file = sanitize(&format!(
            "{}-vs-{}{}{}",
            spec.metric,
            spec.x,
            if gvals.is_empty() { "" } else { "-" },
            group_cols
                .iter()
                .map(|&c| t.cell(rows[0], c))
                .collect::<Vec<_>>()
                .join("-")
        )) + ".svg";
        out.push(NamedChart { file, chart });
    }
    Ok(out)
}

/// A file name from free text: ASCII letters, digits, `.`, `-`, `_`; everything else `_`.
pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::run::JobResult;
    use super::*;

    #[test]
    fn one_chart_per_workload_one_series_per_value() {
        let plan = Plan::parse(
            "gpu = \"g\"\n[[workload]]\nname = \"a\"\n[[workload]]\nname = \"b\"\n[axes]\nw = [1, 2, 4]\nm = [1, 2]\naxis_order = []\n[[plot]]\nmetric = \"cycles\"\nx = \"w\"\nseries = \"m\"\n",
            "p.toml",
        );
        // `axis_order = []` inside [axes] is an empty list: rejected. Plans put it at top level.
        assert!(plan.is_err());
        let plan = Plan::parse(
            "gpu = \"g\"\naxis_order = [\"w\"]\n[[workload]]\nname = \"a\"\n[[workload]]\nname = \"b\"\n[axes]\nw = [1, 2, 4]\nm = [1, 2]\n[[plot]]\nmetric = \"cycles\"\nx = \"w\"\nseries = \"m\"\n",
            "p.toml",
        )
        .unwrap();
        let results: Vec<JobResult> = (0..plan.job_count())
            .map(|id| JobResult {
                id,
                metrics: vec![("cycles".into(), 100.0 - id as f64)],
            })
            .collect();
        let t = Table::build(&plan, &results).unwrap();
        let cs = charts(&plan, &t).unwrap();
        assert_eq!(cs.len(), 2);
        assert_eq!(cs[1].file, "cycles-vs-w-b-cycle.svg");
        assert_eq!(cs[1].chart.title, "cycles vs w");
        assert_eq!(cs[1].chart.subtitle, "workload=b, mode=cycle");
        let s = &cs[1].chart.series;
        assert_eq!(s[0].name, "m=1");
        // Workload b is ids 6..12; w outer, m inner: m=1 rows are 6, 8, 10.
        assert_eq!(s[0].points, vec![(1.0, 94.0), (2.0, 92.0), (4.0, 90.0)]);
        assert_eq!(s[1].points, vec![(1.0, 93.0), (2.0, 91.0), (4.0, 89.0)]);
        assert!(cs[1].chart.categories.is_empty());
    }
}
