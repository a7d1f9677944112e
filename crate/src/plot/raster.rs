//! PNG of a laid-out [`Chart`] (see [`super::draw`]): the same shapes as the SVG, rasterised at
//! twice the SVG's pixel size with the built-in 5x7 font and no anti-aliasing, into a palette
//! image written by the timeline's PNG encoder. Deterministic: the same chart, the same bytes.
//!
//! ```text
//!  Drawing ──fill rects, thick lines, discs, glyphs──> Bitmap (palette index per pixel) ──> PNG
//! ```

use super::draw::{layout, Anchor, Label, Shape};
use super::Chart;
use crate::timeline::font::glyph;
use crate::timeline::image::{png_with_palette, Bitmap};

/// Output pixels per SVG pixel.
pub const SCALE: f64 = 2.0;

/// `#rgb`, `#rrggbb` or `white`/`black` as RGB; anything else is black.
fn rgb(css: &str) -> [u8; 3] {
    let hex = |s: &str| u8::from_str_radix(s, 16).unwrap_or(0);
    match css {
        "white" => [255, 255, 255],
        s if s.len() == 7 && s.starts_with('#') => [hex(&s[1..3]), hex(&s[3..5]), hex(&s[5..7])],
        s if s.len() == 4 && s.starts_with('#') => {
            let d = |i: usize| hex(&s[i..i + 1]) * 17;
            [d(1), d(2), d(3)]
        }
        _ => [0, 0, 0],
    }
}

struct Canvas {
    bm: Bitmap,
    palette: Vec<[u8; 3]>,
}

impl Canvas {
    fn colour(&mut self, css: &str) -> u8 {
        let c = rgb(css);
        match self.palette.iter().position(|p| *p == c) {
            Some(i) => i as u8,
            None => {
                self.palette.push(c);
                (self.palette.len() - 1) as u8
            }
        }
    }

    fn set(&mut self, x: i64, y: i64, c: u8) {
        if x >= 0 && y >= 0 && (x as usize) < self.bm.w && (y as usize) < self.bm.h {
            let w = self.bm.w;
            self.bm.px[y as usize * w + x as usize] = c;
        }
    }

    /// Fills output pixels whose centres lie in [x0, x1) x [y0, y1) (output coordinates).
    fn fill(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, c: u8) {
        let (xa, xb) = ((x0 - 0.5).ceil() as i64, (x1 - 0.5).ceil() as i64);
        let (ya, yb) = ((y0 - 0.5).ceil() as i64, (y1 - 0.5).ceil() as i64);
        for y in ya..yb {
            for x in xa..xb {
                self.set(x, y, c);
            }
        }
    }

    /// A line of width `wd` (output pixels) from a to b: a square stamped along it.
    fn line(&mut self, a: (f64, f64), b: (f64, f64), wd: f64, c: u8) {
        let steps = ((b.0 - a.0).abs().max((b.1 - a.1).abs()).ceil() as usize).max(1);
        let half = wd / 2.0;
        for i in 0..=steps {
            let t = i as f64 / steps as f64;
            let (x, y) = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
            self.fill(x - half, y - half, x + half, y + half, c);
        }
    }

    fn disc(&mut self, cx: f64, cy: f64, r: f64, c: u8) {
        let (ya, yb) = ((cy - r).floor() as i64, (cy + r).ceil() as i64);
        let (xa, xb) = ((cx - r).floor() as i64, (cx + r).ceil() as i64);
        for y in ya..=yb {
            for x in xa..=xb {
                let (dx, dy) = (x as f64 + 0.5 - cx, y as f64 + 0.5 - cy);
                if dx * dx + dy * dy <= r * r {
                    self.set(x, y, c);
                }
            }
        }
    }

    /// A label (SVG coordinates); glyph pixels are `k` output pixels, 6 cells per character:
    /// 12 px text gets 2-pixel cells at SCALE 2, the 15 px title 3.
    fn text(&mut self, l: &Label, c: u8) {
        let k: i64 = if l.size > 13.0 { 3 } else { 2 };
        let (x, y, s, anchor, vertical) = (
            l.x * SCALE,
            (l.y + l.dy) * SCALE,
            &l.text,
            l.anchor,
            l.vertical,
        );
        let n = s.chars().count() as i64;
        let len = 6 * k * n - k;
        let shift = match anchor {
            Anchor::Start => 0,
            Anchor::Middle => len / 2,
            Anchor::End => len,
        };
        let (x, y) = (x.round() as i64, y.round() as i64);
        for (i, ch) in s.chars().enumerate() {
            let g = glyph(ch);
            let along = 6 * k * i as i64 - shift;
            for (gy, row) in g.iter().enumerate() {
                for gx in 0..5 {
                    if row & (0x10 >> gx) == 0 {
                        continue;
                    }
                    // Glyph pixel (gx, gy) with its bottom row on the baseline.
                    let (u, v) = (along + gx as i64 * k, (gy as i64 - 7) * k);
                    for a in 0..k {
                        for b in 0..k {
                            if vertical {
                                // Rotated -90 degrees about (x, y): reads bottom to top.
                                self.set(x + v + b, y - u - a, c);
                            } else {
                                self.set(x + u + a, y + v + b, c);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The chart as RGB-palette pixels at [`SCALE`] times the SVG size, plus the palette.
pub fn bitmap(c: &Chart) -> (Bitmap, Vec<[u8; 3]>) {
    let d = layout(c);
    let s = SCALE;
    let (w, h) = ((d.w * s).ceil() as usize, (d.h * s).ceil() as usize);
    let mut cv = Canvas {
        bm: Bitmap {
            w,
            h,
            px: vec![0; w * h],
        },
        palette: vec![[255, 255, 255]],
    };
    for shape in &d.shapes {
        match shape {
            Shape::Background { fill } => {
                let c = cv.colour(fill);
                cv.bm.px.fill(c);
            }
            Shape::Rect {
                x,
                y,
                w,
                h,
                fill,
                stroke,
            } => {
                let (x0, y0, x1, y1) = (x * s, y * s, (x + w) * s, (y + h) * s);
                if *fill != "none" {
                    let c = cv.colour(fill);
                    cv.fill(x0, y0, x1, y1, c);
                }
                if let Some(st) = stroke {
                    let c = cv.colour(st);
                    cv.line((x0, y0), (x1, y0), s, c);
                    cv.line((x1, y0), (x1, y1), s, c);
                    cv.line((x1, y1), (x0, y1), s, c);
                    cv.line((x0, y1), (x0, y0), s, c);
                }
            }
            Shape::Line {
                x1,
                y1,
                x2,
                y2,
                stroke,
            } => {
                let c = cv.colour(stroke);
                cv.line((x1 * s, y1 * s), (x2 * s, y2 * s), s, c);
            }
            Shape::Polyline {
                points,
                stroke,
                width,
            } => {
                let c = cv.colour(stroke);
                for p in points.windows(2) {
                    cv.line(
                        (p[0].0 * s, p[0].1 * s),
                        (p[1].0 * s, p[1].1 * s),
                        width * s,
                        c,
                    );
                }
            }
            Shape::Circle { cx, cy, r, fill } => {
                let c = cv.colour(fill);
                cv.disc(cx * s, cy * s, r * s, c);
            }
            Shape::Text(l) => {
                let c = cv.colour("#000000");
                cv.text(l, c);
            }
        }
    }
    (cv.bm, cv.palette)
}

/// The chart as a PNG file.
pub fn render(c: &Chart) -> Vec<u8> {
    let (bm, palette) = bitmap(c);
    png_with_palette(&bm, &palette)
}

#[cfg(test)]
mod tests {
    use super::super::{ChartKind, Series, PALETTE};
    use super::*;

    fn px(bm: &Bitmap, pal: &[[u8; 3]], x: usize, y: usize) -> [u8; 3] {
        pal[bm.px[y * bm.w + x] as usize]
    }

    #[test]
    fn points_frame_and_legend_land_where_the_svg_puts_them() {
        let mut c = Chart::new("t", "x", "y");
        c.series.push(Series {
            name: "a".into(),
            points: vec![(1.0, 0.0), (3.0, 10.0)],
        });
        let (bm, pal) = bitmap(&c);
        // SVG 640x400 -> 1280x800.
        assert_eq!((bm.w, bm.h), (1280, 800));
        // Point (3, 10) is at SVG (490, 40): the disc's centre pixel is the series colour.
        assert_eq!(px(&bm, &pal, 980, 80), rgb(PALETTE[0]));
        // Halfway along the curve, SVG (281, 194).
        assert_eq!(px(&bm, &pal, 562, 388), rgb(PALETTE[0]));
        // The frame's left edge at SVG x = 72, mid-height; background just inside the frame.
        assert_eq!(px(&bm, &pal, 144, 600), rgb("#333"));
        assert_eq!(px(&bm, &pal, 200, 600), [255, 255, 255]);
        // Legend swatch: SVG rect (502, 41) 14x10.
        assert_eq!(px(&bm, &pal, 2 * 509, 2 * 46), rgb(PALETTE[0]));
        // Corners are background; the image is the same every time.
        assert_eq!(px(&bm, &pal, 0, 0), [255, 255, 255]);
        assert_eq!(render(&c), render(&c));
        assert_eq!(&render(&c)[1..4], b"PNG");
    }

    #[test]
    fn bars_fill_their_rectangles() {
        let mut c = Chart::new("b", "k", "v");
        c.kind = ChartKind::Bar;
        c.categories = vec!["p".into(), "q".into()];
        c.series.push(Series {
            name: "s0".into(),
            points: vec![(0.0, 5.0), (1.0, 10.0)],
        });
        let (bm, pal) = bitmap(&c);
        // Category 0's bar (one series: width 167.2 from x 92.9, top y 194, base 348).
        assert_eq!(px(&bm, &pal, 2 * 100, 2 * 300), rgb(PALETTE[0]));
        assert_eq!(px(&bm, &pal, 2 * 100, 2 * 190), [255, 255, 255]);
        assert_eq!(rgb("#ddd"), [221, 221, 221]);
        assert_eq!(rgb("#0072B2"), [0, 0x72, 0xB2]);
    }
}
