//! The pipeline picture as bitmaps: each character of the [`Canvas`] is a 6x10 cell drawn with
//! the 5x7 font (scaled x2), a warp's instructions on that warp's colour. PNG (one frame) and
//! animated GIF (one frame per cycle, like seed 003's animations), both with a small built-in
//! encoder (zlib from `flate2`, LZW written here), so the library stays pure Rust and wasm-safe.
//!
//! ```text
//!  Canvas ──raster──> Bitmap (palette indices) ──> png(): IHDR PLTE IDAT IEND
//!                                               └─> gif(): GIF89a, loop, LZW frames
//! ```

use super::ascii::{draw_frame, Canvas, Layout, WARP_COLOURS};
use super::font::glyph;
use super::Timeline;
use std::io::Write;

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

fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A palette PNG of `b` in the pipeline view's colours.
pub fn png(b: &Bitmap) -> Vec<u8> {
    png_with_palette(b, &PALETTE)
}

/// A palette PNG of `b` whose pixel values index `palette` (at most 256 colours).
pub fn png_with_palette(b: &Bitmap, palette: &[[u8; 3]]) -> Vec<u8> {
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(b.w as u32).to_be_bytes());
    ihdr.extend_from_slice(&(b.h as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 3, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    let plte: Vec<u8> = palette.iter().flatten().copied().collect();
    chunk(&mut out, b"PLTE", &plte);
    let mut raw = Vec::with_capacity((b.w + 1) * b.h);
    for row in b.px.chunks(b.w.max(1)) {
        raw.push(0);
        raw.extend_from_slice(row);
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&raw).expect("in-memory write");
    let idat = z.finish().expect("in-memory write");
    chunk(&mut out, b"IDAT", &idat);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// LSB-first bit writer into GIF sub-blocks.
struct Bits {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl Bits {
    fn put(&mut self, code: u16, size: u32) {
        self.acc |= (code as u32) << self.n;
        self.n += size;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
}

/// GIF LZW of palette indices below `1 << min`.
fn lzw(px: &[u8], min: u32) -> Vec<u8> {
    let clear = 1u16 << min;
    let eoi = clear + 1;
    let mut dict: std::collections::HashMap<(u16, u8), u16> = Default::default();
    let mut bits = Bits {
        out: Vec::new(),
        acc: 0,
        n: 0,
    };
    let mut size = min + 1;
    let mut next = eoi + 1;
    bits.put(clear, size);
    let Some((&first, rest)) = px.split_first() else {
        bits.put(eoi, size);
        if bits.n > 0 {
            bits.out.push(bits.acc as u8);
        }
        return bits.out;
    };
    let mut prefix = first as u16;
    for &k in rest {
        if let Some(&c) = dict.get(&(prefix, k)) {
            prefix = c;
            continue;
        }
        bits.put(prefix, size);
        // The decoder widens its codes once its table reaches 1 << size (one entry behind us).
        if next >= (1 << size) && size < 12 {
            size += 1;
        }
        if next < 4095 {
            dict.insert((prefix, k), next);
            next += 1;
        } else {
            bits.put(clear, size);
            dict.clear();
            size = min + 1;
            next = eoi + 1;
        }
        prefix = k as u16;
    }
    bits.put(prefix, size);
    if next >= (1 << size) && size < 12 {
        size += 1;
    }
    bits.put(eoi, size);
    if bits.n > 0 {
        bits.out.push(bits.acc as u8);
    }
    bits.out
}

/// An animated, looping GIF of `frames` (all the same size), `delay_cs` hundredths of a second
/// per frame.
pub fn gif(frames: &[Bitmap], delay_cs: u16) -> Vec<u8> {
    let (w, h) = frames.first().map_or((1, 1), |f| (f.w, f.h));
    let mut out = b"GIF89a".to_vec();
    out.extend_from_slice(&(w as u16).to_le_bytes());
    out.extend_from_slice(&(h as u16).to_le_bytes());
    // Global colour table of 16 entries (size field 3), background 0.
    out.extend_from_slice(&[0xF3, 0, 0]);
    for i in 0..16 {
        out.extend_from_slice(&PALETTE.get(i).copied().unwrap_or([0, 0, 0]));
    }
    out.extend_from_slice(b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00");
    for f in frames {
        out.extend_from_slice(&[0x21, 0xF9, 4, 0]);
        out.extend_from_slice(&delay_cs.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.push(0x2C);
        out.extend_from_slice(&[0, 0, 0, 0]);
        out.extend_from_slice(&(f.w as u16).to_le_bytes());
        out.extend_from_slice(&(f.h as u16).to_le_bytes());
        out.push(0);
        out.push(4);
        for block in lzw(&f.px, 4).chunks(255) {
            out.push(block.len() as u8);
            out.extend_from_slice(block);
        }
        out.push(0);
    }
    out.push(0x3B);
    out
}
