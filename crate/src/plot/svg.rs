//! SVG rendering of a [`Chart`]: frame, grid, ticks, curves or grouped bars, legend.

use std::fmt::Write;

use super::scale::{tick_label, Scale};
use super::{Chart, ChartKind, PALETTE};

const LEFT: f64 = 72.0;
const RIGHT: f64 = 150.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 52.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Pixel numbers with at most two decimals and no trailing zeros.
fn px(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

pub(super) fn render(c: &Chart) -> String {
    // The legend column grows with its longest label; the plot area keeps its width.
    let longest = c
        .series
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0) as f64;
    let right = RIGHT.max(40.0 + 7.0 * longest);
    let top = if c.subtitle.is_empty() {
        TOP
    } else {
        TOP + 12.0
    };
    let (w, h) = (
        c.width.max(200) as f64 + (right - RIGHT),
        c.height.max(150) as f64 + (top - TOP),
    );
    let (x0, x1, y0, y1) = (LEFT, w - right, h - BOTTOM, top);
    let ys = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|v| v.is_finite());
    let (ymin, ymax) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let yscale = Scale::nice(ymin, ymax, 6, true);
    let categorical = !c.categories.is_empty() || c.kind == ChartKind::Bar;
    let ncat = c
        .categories
        .len()
        .max(c.series.iter().map(|s| s.points.len()).max().unwrap_or(0))
        .max(1);
    // Categorical x: category i is centred in slot i of ncat equal slots.
    let xscale = if categorical {
        Scale {
            lo: -0.5,
            hi: ncat as f64 - 0.5,
            ticks: (0..ncat).map(|i| i as f64).collect(),
        }
    } else {
        let xs = c
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .filter(|v| v.is_finite());
        let (a, b) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        let mut s = Scale::nice(a, b, 8, false);
        if a.is_finite() && b > a {
            // Keep the data edge to edge; ticks inside the data range only.
            s.ticks.retain(|t| *t >= a - 1e-9 && *t <= b + 1e-9);
            s.lo = a;
            s.hi = b;
        }
        s
    };
    let mx = |v: f64| xscale.map(v, x0, x1);
    let my = |v: f64| yscale.map(v, y0, y1);

    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(o, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        o,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        px((x0 + x1) / 2.0),
        esc(&c.title)
    );
    if !c.subtitle.is_empty() {
        let _ = writeln!(
            o,
            r#"<text x="{}" y="40" text-anchor="middle" font-size="12">{}</text>"#,
            px((x0 + x1) / 2.0),
            esc(&c.subtitle)
        );
    }
    // Grid and y ticks.
    for t in &yscale.ticks {
        let y = px(my(*t));
        let _ = writeln!(
            o,
            r##"<line x1="{}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/>"##,
            px(x0),
            px(x1)
        );
        let _ = writeln!(
            o,
            r#"<text x="{}" y="{y}" text-anchor="end" dy="4">{}</text>"#,
            px(x0 - 6.0),
            tick_label(*t)
        );
    }
    // x ticks.
    for t in &xscale.ticks {
        let x = px(mx(*t));
        let label = if categorical {
            c.categories
                .get(*t as usize)
                .cloned()
                .unwrap_or_else(|| format!("{}", *t as i64))
        } else {
            tick_label(*t)
        };
        let _ = writeln!(
            o,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#333"/>"##,
            px(y0),
            px(y0 + 5.0)
        );
        let _ = writeln!(
            o,
            r#"<text x="{x}" y="{}" text-anchor="middle">{}</text>"#,
            px(y0 + 18.0),
            esc(&label)
        );
    }
    let _ = writeln!(
        o,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#333"/>"##,
        px(x0),
        px(y1),
        px(x1 - x0),
        px(y0 - y1)
    );
    let _ = writeln!(
        o,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        px((x0 + x1) / 2.0),
        px(h - 12.0),
        esc(&c.x_label)
    );
    let _ = writeln!(
        o,
        r#"<text x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">{}</text>"#,
        px((y0 + y1) / 2.0),
        px((y0 + y1) / 2.0),
        esc(&c.y_label)
    );

    // Data.
    let ns = c.series.len().max(1) as f64;
    for (i, s) in c.series.iter().enumerate() {
        let col = PALETTE[i % PALETTE.len()];
        match c.kind {
            ChartKind::Line => {
                let pts: Vec<String> = s
                    .points
                    .iter()
                    .filter(|p| p.0.is_finite() && p.1.is_finite())
                    .map(|p| format!("{},{}", px(mx(p.0)), px(my(p.1))))
                    .collect();
                let _ = writeln!(
                    o,
                    r#"<polyline fill="none" stroke="{col}" stroke-width="2" points="{}"/>"#,
                    pts.join(" ")
                );
                for p in pts {
                    let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
                    let _ = writeln!(o, r#"<circle cx="{x}" cy="{y}" r="3" fill="{col}"/>"#);
                }
            }
            ChartKind::Bar => {
                let slot = (x1 - x0) / ncat as f64;
                let bw = slot * 0.8 / ns;
                for p in s.points.iter().filter(|p| p.1.is_finite()) {
                    let left = mx(p.0) - slot * 0.4 + bw * i as f64;
                    let (top, base) = (my(p.1.max(0.0)), my(p.1.min(0.0)));
                    let _ = writeln!(
                        o,
                        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{col}"/>"#,
                        px(left),
                        px(top),
                        px(bw),
                        px(base - top)
                    );
                }
            }
        }
    }
    // Legend.
    for (i, s) in c.series.iter().enumerate() {
        let col = PALETTE[i % PALETTE.len()];
        let y = top + 10.0 + 20.0 * i as f64;
        let _ = writeln!(
            o,
            r#"<rect x="{}" y="{}" width="14" height="10" fill="{col}"/>"#,
            px(x1 + 12.0),
            px(y - 9.0)
        );
        let _ = writeln!(
            o,
            r#"<text x="{}" y="{}">{}</text>"#,
            px(x1 + 32.0),
            px(y),
            esc(&s.name)
        );
    }
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::super::Series;
    use super::*;

    #[test]
    fn line_chart_places_points_exactly() {
        let mut c = Chart::new("t<1>", "x", "y");
        c.series.push(Series {
            name: "a".into(),
            points: vec![(1.0, 0.0), (3.0, 10.0)],
        });
        let s = c.to_svg();
        // x: 1..3 spans 72..490; y: 0..10 spans 348..40.
        assert!(s.contains(r#"points="72,348 490,40""#), "{s}");
        assert!(s.contains("t&lt;1&gt;"));
        assert_eq!(s, c.to_svg());
        assert!(s.starts_with("<svg") && s.ends_with("</svg>\n"));
    }

    #[test]
    fn bar_chart_groups_bars() {
        let mut c = Chart::new("b", "k", "v");
        c.kind = ChartKind::Bar;
        c.categories = vec!["p".into(), "q".into()];
        c.series.push(Series {
            name: "s0".into(),
            points: vec![(0.0, 5.0), (1.0, 10.0)],
        });
        c.series.push(Series {
            name: "s1".into(),
            points: vec![(0.0, 10.0), (1.0, 2.0)],
        });
        let s = c.to_svg();
        // Slot width 209; bar width 209*0.8/2 = 83.6; category 0 centred at 176.5.
        assert!(
            s.contains(r##"<rect x="92.9" y="194" width="83.6" height="154" fill="#0072B2"/>"##),
            "{s}"
        );
        assert!(
            s.contains(r##"<rect x="176.5" y="40" width="83.6" height="308" fill="#D55E00"/>"##),
            "{s}"
        );
        assert_eq!(s.matches("<rect").count(), 2 + 4 + 2);
    }
}
