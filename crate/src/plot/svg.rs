//! SVG text of a laid-out [`Chart`] (see [`super::draw`]): one element per shape.

use std::fmt::Write;

use super::draw::{layout, Anchor, Label, Shape};
use super::Chart;

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
    let d = layout(c);
    let (w, h) = (d.w, d.h);
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    for s in &d.shapes {
        let _ = match s {
            Shape::Background { fill } => {
                writeln!(o, r#"<rect width="{w}" height="{h}" fill="{fill}"/>"#)
            }
            Shape::Rect {
                x,
                y,
                w,
                h,
                fill,
                stroke,
            } => {
                let stroke = stroke
                    .map(|s| format!(r#" stroke="{s}""#))
                    .unwrap_or_default();
                writeln!(
                    o,
                    r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{fill}"{stroke}/>"#,
                    px(*x),
                    px(*y),
                    px(*w),
                    px(*h)
                )
            }
            Shape::Line {
                x1,
                y1,
                x2,
                y2,
                stroke,
            } => writeln!(
                o,
                r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{stroke}"/>"#,
                px(*x1),
                px(*y1),
                px(*x2),
                px(*y2)
            ),
            Shape::Polyline {
                points,
                stroke,
                width,
            } => {
                let pts: Vec<String> = points
                    .iter()
                    .map(|p| format!("{},{}", px(p.0), px(p.1)))
                    .collect();
                writeln!(
                    o,
                    r#"<polyline fill="none" stroke="{stroke}" stroke-width="{width}" points="{}"/>"#,
                    pts.join(" ")
                )
            }
            Shape::Circle { cx, cy, r, fill } => writeln!(
                o,
                r#"<circle cx="{}" cy="{}" r="{r}" fill="{fill}"/>"#,
                px(*cx),
                px(*cy)
            ),
            Shape::Text(Label {
                x,
                y,
                text,
                anchor,
                size,
                dy,
                vertical,
            }) => {
                let (x, y) = (px(*x), px(*y));
                let _ = write!(o, r#"<text x="{x}" y="{y}""#);
                match anchor {
                    Anchor::Start => {}
                    Anchor::Middle => o.push_str(r#" text-anchor="middle""#),
                    Anchor::End => o.push_str(r#" text-anchor="end""#),
                }
                if *size != 12.0 {
                    let _ = write!(o, r#" font-size="{size}""#);
                }
                if *dy != 0.0 {
                    let _ = write!(o, r#" dy="{dy}""#);
                }
                if *vertical {
                    let _ = write!(o, r#" transform="rotate(-90 {x} {y})""#);
                }
                writeln!(o, ">{}</text>", esc(text))
            }
        };
    }
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::super::{ChartKind, Series};
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
