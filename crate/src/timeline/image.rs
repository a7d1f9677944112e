//! The pipeline picture as bitmaps: each character of the [`Canvas`] is a 12x20 cell with its
//! glyph drawn from the embedded DejaVu Sans Mono by `ab_glyph` (anti-aliased: the glyph's
//! coverage in four steps between the cell's background and text colour), a warp's
//! instructions on that warp's colour. PNG (one frame) and animated GIF (one frame per cycle,
//! like seed 003's animations), encoded by the image-rs project's `png` and `gif` crates (pure
//! Rust, wasm-safe, the same bytes for the same bitmap).
//!
//! ```text
//!  Canvas ──glyph cells──> Bitmap (palette indices) ──> png(): indexed PNG
//!                                                   └─> gif(): GIF89a, looping, one frame each
//! ```

use super::ascii::{draw_frame, Canvas, Layout, WARP_COLOURS};
use super::Timeline;
use crate::plot::font;
use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use std::collections::BTreeMap;

const CW: usize = 12;
const CH: usize = 20;
/// Glyph size in pixels: DejaVu Sans Mono's advance (0.6 em) is 10 px of the 12 px cell.
const FONT_PX: f32 = 17.0;
/// Shades between a cell's background and its text colour (partly covered pixels).
const SHADES: u8 = 3;

/// The base colours: background, text, heading, then the warp colours.
pub const BASE: [[u8; 3]; 9] = [
    [255, 255, 255],
    [20, 20, 20],
    [20, 40, 140],
    [255, 150, 150],
    [150, 220, 150],
    [250, 220, 120],
    [150, 180, 255],
    [230, 160, 230],
    [140, 220, 220],
];
const BG: u8 = 0;
const FG: u8 = 1;
const HEADING: u8 = 2;

/// The (background, text) colour pairs the picture draws: plain text, headings, and text on
/// each warp's colour.
fn pairs() -> Vec<(u8, u8)> {
    let mut v = vec![(BG, FG), (BG, HEADING)];
    v.extend((1..=WARP_COLOURS).map(|c| (2 + c, FG)));
    v
}

/// The picture's palette: [`BASE`], then [`SHADES`] blends of each colour pair.
pub fn palette() -> Vec<[u8; 3]> {
    let mut p = BASE.to_vec();
    for (bg, fg) in pairs() {
        let (b, f) = (BASE[bg as usize], BASE[fg as usize]);
        for s in 1..=SHADES {
            let t = f32::from(s) / f32::from(SHADES + 1);
            p.push(std::array::from_fn(|i| {
                (f32::from(b[i]) + (f32::from(f[i]) - f32::from(b[i])) * t).round() as u8
            }));
        }
    }
    p
}

/// Palette index of coverage `level` (0: background .. SHADES + 1: text) of pair `pair`.
fn shade(pairs: &[(u8, u8)], pair: usize, level: u8) -> u8 {
    match level {
        0 => pairs[pair].0,
        l if l > SHADES => pairs[pair].1,
        l => BASE.len() as u8 + pair as u8 * SHADES + l - 1,
    }
}

/// Rasterised glyph cells (coverage level per pixel), drawn once per character.
struct Glyphs {
    font: FontRef<'static>,
    cells: BTreeMap<char, Vec<u8>>,
}

impl Glyphs {
    fn new() -> Glyphs {
        Glyphs {
            font: FontRef::try_from_slice(font::MONO).expect("the embedded font parses"),
            cells: BTreeMap::new(),
        }
    }

    fn cell(&mut self, ch: char) -> &[u8] {
        let font = &self.font;
        self.cells.entry(ch).or_insert_with(|| {
            let mut cov = vec![0u8; CW * CH];
            let sf = font.as_scaled(PxScale::from(FONT_PX));
            let id = font.glyph_id(ch);
            let x = ((CW as f32 - sf.h_advance(id)) / 2.0).round();
            let base = ((CH as f32 - (sf.ascent() - sf.descent())) / 2.0 + sf.ascent()).round();
            let g = id.with_scale_and_position(FONT_PX, point(x, base));
            if let Some(o) = font.outline_glyph(g) {
                let b = o.px_bounds();
                o.draw(|gx, gy, c| {
                    let (px, py) = (b.min.x as i32 + gx as i32, b.min.y as i32 + gy as i32);
                    if (0..CW as i32).contains(&px) && (0..CH as i32).contains(&py) {
                        let l = (c * f32::from(SHADES + 1)).round() as u8;
                        cov[py as usize * CW + px as usize] = l.min(SHADES + 1);
                    }
                });
            }
            cov
        })
    }
}

/// An image of palette indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bitmap {
    pub w: usize,
    pub h: usize,
    pub px: Vec<u8>,
}

impl Bitmap {
    /// `cv` drawn on a `cols` x `rows` character grid (at least the canvas' own size).
    pub fn from_canvas(cv: &Canvas, cols: usize, rows: usize) -> Bitmap {
        Bitmap::draw(cv, cols, rows, &mut Glyphs::new())
    }

    fn draw(cv: &Canvas, cols: usize, rows: usize, glyphs: &mut Glyphs) -> Bitmap {
        let cols = cols.max(cv.width()).max(1);
        let rows = rows.max(cv.lines.len()).max(1);
        let (w, h) = (cols * CW, rows * CH);
        let pairs = pairs();
        let mut px = vec![BG; w * h];
        for (r, line) in cv.lines.iter().enumerate() {
            for (c, &(ch, col)) in line.iter().enumerate() {
                let pair = match col {
                    0 => 0,
                    c if c <= WARP_COLOURS => 1 + c as usize,
                    _ => 1,
                };
                let cell = glyphs.cell(ch);
                for y in 0..CH {
                    for x in 0..CW {
                        px[(r * CH + y) * w + c * CW + x] = shade(&pairs, pair, cell[y * CW + x]);
                    }
                }
            }
        }
        Bitmap { w, h, px }
    }
}

/// One bitmap per recorded cycle of SM index `si`, all the same size.
pub fn frames(tl: &Timeline, si: usize) -> Vec<Bitmap> {
    let Some(sm) = tl.sms.get(si) else {
        return Vec::new();
    };
    let lay = Layout::of(&sm.frames);
    let cvs: Vec<Canvas> = (0..sm.frames.len())
        .map(|fi| {
            let mut cv = Canvas::default();
            draw_frame(&mut cv, tl, si, fi, &lay);
            cv
        })
        .collect();
    let cols = cvs.iter().map(Canvas::width).max().unwrap_or(1);
    let rows = cvs.iter().map(|c| c.lines.len()).max().unwrap_or(1);
    let mut glyphs = Glyphs::new();
    cvs.iter()
        .map(|c| Bitmap::draw(c, cols, rows, &mut glyphs))
        .collect()
}

/// A palette PNG of `b` in the pipeline view's colours ([`palette`]).
pub fn png(b: &Bitmap) -> Vec<u8> {
    let palette = palette();
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, b.w as u32, b.h as u32);
    e.set_color(png::ColorType::Indexed);
    e.set_depth(png::BitDepth::Eight);
    e.set_palette(palette.iter().flatten().copied().collect::<Vec<u8>>());
    let mut w = e.write_header().expect("in-memory PNG header");
    w.write_image_data(&b.px).expect("in-memory PNG data");
    w.finish().expect("in-memory PNG end");
    out
}

/// An animated, looping GIF of `frames` (all the same size), `delay_cs` hundredths of a second
/// per frame.
pub fn gif(frames: &[Bitmap], delay_cs: u16) -> Vec<u8> {
    let (w, h) = frames.first().map_or((1, 1), |f| (f.w, f.h));
    let p = palette();
    let palette: Vec<u8> = (0..p.len().next_power_of_two())
        .flat_map(|i| p.get(i).copied().unwrap_or([0, 0, 0]))
        .collect();
    let mut out = Vec::new();
    {
        let mut e = gif::Encoder::new(&mut out, w as u16, h as u16, &palette)
            .expect("in-memory GIF header");
        e.set_repeat(gif::Repeat::Infinite).expect("in-memory GIF");
        for f in frames {
            let frame = gif::Frame {
                width: f.w as u16,
                height: f.h as u16,
                delay: delay_cs,
                buffer: std::borrow::Cow::Borrowed(&f.px),
                ..gif::Frame::default()
            };
            e.write_frame(&frame).expect("in-memory GIF frame");
        }
    }
    out
}
