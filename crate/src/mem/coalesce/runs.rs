//! The coalescer's shape path: line requests straight from (base, [`AddrShape`], width, mask)
//! in O(lines), never looking at a lane's address (issue 6).
//!
//! ```text
//!  shape: runs of `run` lanes, stride s inside a run, stride2 between the runs' first lanes
//!  run 0: lanes j0..        ─┐  each run is one arithmetic sequence: its lines follow in
//!  run 1: lanes j0+run..     ├─ address order (s > 0), reverse order (s < 0) or one access
//!  ...                      ─┘  (s = 0); a line's lanes are a range [k, k1] of the run
//!  lines of later runs merge into the lines of earlier ones (first-touch order kept)
//! ```
//! Exactly the lane-by-lane path's requests (tests compare them): the same lines in the same
//! first-touch order, sectors, bytes, lanes and byte cover. Declines (the caller then takes the
//! lane paths) when lanes of a run overlap (`0 < |s| < width`), an access is wider than a line,
//! the geometry is not a power of two, or an address would leave the 64-bit space.

use super::{range_cover, LineReq};
use crate::trace::AddrShape;

/// The lanes (bits of the mask) of active-lane index ranges.
struct LaneMap {
    mask: u32,
    /// The mask is one run of set bits from bit `tz`.
    contiguous: bool,
    tz: u32,
}

impl LaneMap {
    fn new(mask: u32) -> Self {
        let tz = mask.trailing_zeros().min(31);
        let contiguous = ((mask >> tz) as u64 + 1).is_power_of_two();
        LaneMap {
            mask,
            contiguous,
            tz,
        }
    }

    /// Lanes of active indices `j0..=j1`.
    #[inline]
    fn bits(&self, j0: u32, j1: u32) -> u32 {
        if self.contiguous {
            (((2u64 << j1) - (1u64 << j0)) << self.tz) as u32
        } else {
            // A mask with holes (divergent lanes): drop the lowest j0 set bits, keep the
            // next j1 - j0 + 1.
            let mut m = self.mask;
            for _ in 0..j0 {
                m &= m - 1;
            }
            let mut rest = m;
            for _ in j0..=j1 {
                rest &= rest.wrapping_sub(1);
            }
            m & !rest
        }
    }
}

/// Sectors of bytes `[lo, hi)` of a line (`lo < hi`), as the lane paths compute them.
#[inline]
fn sectors(lo: u64, hi: u64, ss: u32) -> u8 {
    let (s0, s1) = (lo >> ss, (hi - 1) >> ss);
    (((2u64 << s1) - (1u64 << s0)) & 0xff) as u8
}

/// Geometry and output of one access.
struct Ctx<'a> {
    w: u64,
    lb: u64,
    ss: u32,
    lanes: LaneMap,
    out: &'a mut Vec<LineReq>,
    /// Entries of `out` made by earlier runs (a run's own lines are distinct).
    keep: usize,
}

impl Ctx<'_> {
    /// Adds one line's part of a run: merged into an earlier run's request for the line, or
    /// appended. Returns true when appended.
    #[inline]
    fn emit(&mut self, addr: u64, sectors: u8, bytes: u64, lanes: u32, cover: u128) -> bool {
        if let Some(r) = self.out[..self.keep]
            .iter_mut()
            .rev()
            .find(|r| r.addr == addr)
        {
            r.sectors |= sectors;
            r.bytes += bytes as u32;
            r.lanes |= lanes;
            r.cover |= cover;
            return false;
        }
        self.out.push(LineReq {
            addr,
            sectors,
            bytes: bytes as u32,
            lanes,
            cover,
            full: 0,
        });
        true
    }

    /// Sectors and (`C`) byte cover of lanes `k..=k1` of a run (lane k at `a0 + k * s`) within
    /// line `line`, lane by lane: for runs whose gaps may hold a whole sector.
    #[inline]
    fn sparse<const C: bool>(&self, a0: u64, s: i64, k: u32, k1: u32, line: u64) -> (u8, u128) {
        let (mut secs, mut cover) = (0u8, 0u128);
        for kk in k..=k1 {
            let x = a0.wrapping_add((kk as i64 * s) as u64);
            let lo = x.max(line) - line;
            let hi = (x + self.w).min(line + self.lb) - line;
            secs |= sectors(lo, hi, self.ss);
            if C && self.lb <= 128 {
                cover |= range_cover(lo, hi);
            }
        }
        (secs, cover)
    }

    /// Sectors and (`C`) cover of lanes `k..=k1` of a run that touch bytes `[lo, hi)` of the
    /// line with gaps of `gap` bytes between neighbouring lanes.
    #[inline]
    fn part<const C: bool>(
        &self,
        a0: u64,
        s: i64,
        (k, k1): (u32, u32),
        line: u64,
        (lo, hi): (u64, u64),
    ) -> (u8, u128) {
        let gap = s.unsigned_abs() - self.w;
        if gap == 0 {
            let cover = if C && self.lb <= 128 {
                range_cover(lo, hi)
            } else {
                0
            };
            (sectors(lo, hi, self.ss), cover)
        } else if gap < 1 << self.ss && !C {
            // No gap can hold a whole sector: every sector between the ends is touched.
            (sectors(lo, hi, self.ss), 0)
        } else {
            self.sparse::<C>(a0, s, k, k1, line)
        }
    }

    /// The lines of one run: `cnt` lanes from active index `j0`, lane k at `a0 + k * s`.
    fn run<const C: bool>(&mut self, a0: u64, s: i64, cnt: u32, j0: u32) {
        let (w, lb) = (self.w, self.lb);
        let a = |k: u32| a0.wrapping_add((k as i64 * s) as u64);
        if s == 0 || cnt == 1 {
            // Every lane on one address: its one or two lines, each with all the run's lanes.
            let lanes = self.lanes.bits(j0, j0 + cnt - 1);
            let mut p = a0;
            let end = a0 + w;
            while p < end {
                let line = p & !(lb - 1);
                let seg = end.min(line + lb);
                let (lo, hi) = (p - line, seg - line);
                let cover = if C && lb <= 128 {
                    range_cover(lo, hi)
                } else {
                    0
                };
                let secs = sectors(lo, hi, self.ss);
                self.emit(line, secs, (hi - lo) * cnt as u64, lanes, cover);
                p = seg;
            }
            return;
        }
        let t = s.unsigned_abs();
        let div = |x: u64| {
            if t.is_power_of_two() {
                x >> t.trailing_zeros()
            } else {
                x / t
            }
        };
        let mut k = 0u32;
        if s > 0 {
            let mut line = a0 & !(lb - 1);
            loop {
                let lend = line + lb;
                let k1 = (div(lend - 1 - a0) as u32).min(cnt - 1);
                let (first, last) = (a(k), a(k1));
                let (lo, hi) = (first.max(line) - line, (last + w).min(lend) - line);
                let bytes = (k1 - k + 1) as u64 * w
                    - line.saturating_sub(first)
                    - (last + w).saturating_sub(lend);
                let (secs, cover) = self.part::<C>(a0, s, (k, k1), line, (lo, hi));
                let lanes = self.lanes.bits(j0 + k, j0 + k1);
                self.emit(line, secs, bytes, lanes, cover);
                if last + w > lend {
                    line = lend;
                    k = k1;
                } else if k1 + 1 < cnt {
                    k = k1 + 1;
                    line = a(k) & !(lb - 1);
                } else {
                    break;
                }
            }
        } else {
            // Descending: lines from the top; a lane's two lines are touched low first, so a
            // lane that opens both swaps them.
            let mut line = (a0 + w - 1) & !(lb - 1);
            let mut swap = false;
            loop {
                let lend = line + lb;
                let k1 = (div(a0 + w - line - 1) as u32).min(cnt - 1);
                let (top, bottom) = (a(k), a(k1));
                let (lo, hi) = (bottom.max(line) - line, (top + w).min(lend) - line);
                let bytes = (k1 - k + 1) as u64 * w
                    - (top + w).saturating_sub(lend)
                    - line.saturating_sub(bottom);
                let (secs, cover) = self.part::<C>(a0, s, (k, k1), line, (lo, hi));
                let lanes = self.lanes.bits(j0 + k, j0 + k1);
                let new = self.emit(line, secs, bytes, lanes, cover);
                if swap && new {
                    let n = self.out.len();
                    self.out.swap(n - 1, n - 2);
                }
                if bottom < line {
                    swap = new && k == k1;
                    line -= lb;
                    k = k1;
                } else if k1 + 1 < cnt {
                    swap = false;
                    k = k1 + 1;
                    line = (a(k) + w - 1) & !(lb - 1);
                } else {
                    break;
                }
            }
        }
    }
}

/// The line requests of the access (`mask`'s lanes, the first at `base`, laid out by `shape`)
/// into `out` (empty); false (with `out` partly written) where this path does not apply.
pub(super) fn by_shape<const C: bool>(
    mask: u32,
    base: u64,
    shape: AddrShape,
    w: u64,
    lb: u64,
    sb: u64,
    out: &mut Vec<LineReq>,
) -> bool {
    let (s, s2) = (shape.stride as i64, shape.stride2 as i64);
    let n = mask.count_ones();
    if !lb.is_power_of_two()
        || !sb.is_power_of_two()
        || w > lb
        || (s != 0 && s.unsigned_abs() < w)
        || n == 0
    {
        return false;
    }
    let run = (shape.run as u32).clamp(1, 32);
    let groups = n.div_ceil(run);
    // Every address, and its line's end, inside the 64-bit space (no wrapping): the corners
    // of the grid of runs x lanes bound them.
    let span_g = (groups - 1) as i64 * s2;
    let span_k = (run.min(n) - 1) as i64 * s;
    let lo = base as i128 + span_g.min(0) as i128 + span_k.min(0) as i128;
    let hi = base as i128 + span_g.max(0) as i128 + span_k.max(0) as i128 + (w + lb) as i128;
    if lo < 0 || hi > u64::MAX as i128 {
        return false;
    }
    let mut cx = Ctx {
        w,
        lb,
        ss: sb.trailing_zeros(),
        lanes: LaneMap::new(mask),
        out,
        keep: 0,
    };
    for g in 0..groups {
        cx.keep = cx.out.len();
        let a0 = base.wrapping_add((g as i64 * s2) as u64);
        cx.run::<C>(a0, s, run.min(n - g * run), g * run);
    }
    true
}
