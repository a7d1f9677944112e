//! A [`Chart`] laid out as a short list of shapes in pixel coordinates, which the SVG writer
//! writes out (and the PNG is that SVG rasterised).
//!
//! ```text
//!  Chart ──layout()──> Drawing { w, h, shapes: [Background, Text, Line, Rect, Polyline, Circle] }
//!                          └── svg::render() -> "<svg ...>" ──png::render() (resvg)──> PNG
//! ```

use super::scale::{tick_label, Scale};
use super::{Chart, ChartKind, PALETTE};

const LEFT: f64 = 72.0;
const RIGHT: f64 = 150.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 52.0;

/// Horizontal text alignment at the anchor point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// One drawing primitive. Colours are CSS colours: `#rgb`, `#rrggbb`, `white` or `none`.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// The whole canvas, filled.
    Background {
        fill: &'static str,
    },
    Rect {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        fill: &'static str,
        stroke: Option<&'static str>,
    },
    Line {
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        stroke: &'static str,
    },
    Polyline {
        points: Vec<(f64, f64)>,
        stroke: &'static str,
        width: f64,
    },
    Circle {
        cx: f64,
        cy: f64,
        r: f64,
        fill: &'static str,
    },
    Text(Label),
}

/// Text whose baseline starts, centres or ends at (x, y + dy); `vertical` reads bottom to top.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub x: f64,
    pub y: f64,
    pub text: String,
    pub anchor: Anchor,
    /// Font size in pixels (12 unless said).
    pub size: f64,
    pub dy: f64,
    pub vertical: bool,
}

/// A laid-out chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawing {
    pub w: f64,
    pub h: f64,
    pub shapes: Vec<Shape>,
}

fn text(x: f64, y: f64, s: impl Into<String>, anchor: Anchor) -> Label {
    Label {
        x,
        y,
        text: s.into(),
        anchor,
        size: 12.0,
        dy: 0.0,
        vertical: false,
    }
}

/// Lays `c` out: frame, grid, ticks, labels, curves or grouped bars, legend.
pub fn layout(c: &Chart) -> Drawing {
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

    let mut o = vec![Shape::Background { fill: "white" }];
    o.push(Shape::Text(Label {
        size: 15.0,
        ..text((x0 + x1) / 2.0, 22.0, c.title.clone(), Anchor::Middle)
    }));
    if !c.subtitle.is_empty() {
        o.push(Shape::Text(text(
            (x0 + x1) / 2.0,
            40.0,
            c.subtitle.clone(),
            Anchor::Middle,
        )));
    }
    // Grid and y ticks.
    for t in &yscale.ticks {
        let y = my(*t);
        o.push(Shape::Line {
            x1: x0,
            y1: y,
            x2: x1,
            y2: y,
            stroke: "#ddd",
        });
        o.push(Shape::Text(Label {
            dy: 4.0,
            ..text(x0 - 6.0, y, tick_label(*t), Anchor::End)
        }));
    }
    // x ticks.
    for t in &xscale.ticks {
        let x = mx(*t);
        let label = if categorical {
            c.categories
                .get(*t as usize)
                .cloned()
                .unwrap_or_else(|| format!("{}", *t as i64))
        } else {
            tick_label(*t)
        };
        o.push(Shape::Line {
            x1: x,
            y1: y0,
            x2: x,
            y2: y0 + 5.0,
            stroke: "#333",
        });
        o.push(Shape::Text(text(x, y0 + 18.0, label, Anchor::Middle)));
    }
    o.push(Shape::Rect {
        x: x0,
        y: y1,
        w: x1 - x0,
        h: y0 - y1,
        fill: "none",
        stroke: Some("#333"),
    });
    o.push(Shape::Text(text(
        (x0 + x1) / 2.0,
        h - 12.0,
        c.x_label.clone(),
        Anchor::Middle,
    )));
    o.push(Shape::Text(Label {
        vertical: true,
        ..text(16.0, (y0 + y1) / 2.0, c.y_label.clone(), Anchor::Middle)
    }));

    // Data.
    let ns = c.series.len().max(1) as f64;
    for (i, s) in c.series.iter().enumerate() {
        let col = PALETTE[i % PALETTE.len()];
        match c.kind {
            ChartKind::Line => {
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter(|p| p.0.is_finite() && p.1.is_finite())
                    .map(|p| (mx(p.0), my(p.1)))
                    .collect();
                o.push(Shape::Polyline {
                    points: pts.clone(),
                    stroke: col,
                    width: 2.0,
                });
                for (cx, cy) in pts {
                    o.push(Shape::Circle {
                        cx,
                        cy,
                        r: 3.0,
                        fill: col,
                    });
                }
            }
            ChartKind::Bar => {
                let slot = (x1 - x0) / ncat as f64;
                let bw = slot * 0.8 / ns;
                for p in s.points.iter().filter(|p| p.1.is_finite()) {
                    let left = mx(p.0) - slot * 0.4 + bw * i as f64;
                    let (top, base) = (my(p.1.max(0.0)), my(p.1.min(0.0)));
                    o.push(Shape::Rect {
                        x: left,
                        y: top,
                        w: bw,
                        h: base - top,
                        fill: col,
                        stroke: None,
                    });
                }
            }
        }
    }
    // Legend.
    for (i, s) in c.series.iter().enumerate() {
        let col = PALETTE[i % PALETTE.len()];
        let y = top + 10.0 + 20.0 * i as f64;
        o.push(Shape::Rect {
            x: x1 + 12.0,
            y: y - 9.0,
            w: 14.0,
            h: 10.0,
            fill: col,
            stroke: None,
        });
        o.push(Shape::Text(text(
            x1 + 32.0,
            y,
            s.name.clone(),
            Anchor::Start,
        )));
    }
    Drawing { w, h, shapes: o }
}
