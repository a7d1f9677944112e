//! The pipeline picture as bitmaps: each character of the [`Canvas`] is a 6x10 cell drawn with
//! the 5x7 font (scaled x2), a warp's instructions on that warp's colour. PNG (one frame) and
//! animated GIF (one frame per cycle, like seed 003's animations), encoded by the image-rs
//! project's `png` and `gif` crates (pure Rust, wasm-safe, the same bytes for the same bitmap).
//!
//! ```text
//!  Canvas ──raster──> Bitmap (palette indices) ──> png(): indexed PNG
//!                                               └─> gif(): GIF89a, looping, one frame each
//! ```

use super::ascii::{draw_frame, Canvas, Layout, WARP_COLOURS};
use super::font::glyph;
use super::Timeline;

const SCALE: usize = 2;
const CW: usize = 6 * SCALE;
const CH: usize = 10 * SCALE;

/// Palette: background, text, heading, then the warp colours.
pub const PALETTE: [[u8; 3]; 9] = [
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
        let cols = cols.max(cv.width()).max(1);
        let rows = rows.max(cv.lines.len()).max(1);
        let (w, h) = (cols * CW, rows * CH);
        let mut px = vec![BG; w * h];
        for (r, line) in cv.lines.iter().enumerate() {
            for (c, &(ch, col)) in line.iter().enumerate() {
                let (bg, fg) = match col {
                    0 => (BG, FG),
                    c if c <= WARP_COLOURS => (2 + c, FG),
                    _ => (BG, HEADING),
                };
                let g = glyph(ch);
                for y in 0..CH {
                    for x in 0..CW {
                        let (gx, gy) = (x / SCALE, y / SCALE);
                        let on = (1..6).contains(&(gx + 1))
                            && (1..8).contains(&gy)
                            && g[gy - 1] & (0x10 >> gx) != 0;
                        px[(r * CH + y) * w + c * CW + x] = if on { fg } else { bg };
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
    cvs.iter()
        .map(|c| Bitmap::from_canvas(c, cols, rows))
        .collect()
}

/// A palette PNG of `b` in the pipeline view's colours.
pub fn png(b: &Bitmap) -> Vec<u8> {
    png_with_palette(b, &PALETTE)
}

/// A palette PNG of `b` whose pixel values index `palette` (at most 256 colours).
pub fn png_with_palette(b: &Bitmap, palette: &[[u8; 3]]) -> Vec<u8> {
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
    let palette: Vec<u8> = (0..16)
        .flat_map(|i| PALETTE.get(i).copied().unwrap_or([0, 0, 0]))
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
