//! Coalescing: one warp memory instruction (active mask, per-lane addresses, width) becomes line
//! requests with sector masks. The SM's memory pipeline and the functional mode both call
//! [`coalesce`], so both see exactly the same requests. Shared memory instead gets a bank
//! conflict degree ([`shmem_wavefronts`]).
//!
//! ```text
//!  lane addrs ──> [a, a+width) per lane ──> lines touched (one request each, first-touch order)
//!                                        └─> sectors touched within each line (mask)
//!  seed 004 Figure 2: 4 lanes, 64 B stride, 8 B each, 128 B lines, 32 B sectors
//!    -> 2 line requests, 4 sectors (128 B) instead of 2 lines (256 B) without sectors
//! ```
//! Cost (issues 5 and 6: the coalescer was a quarter of a `fast` run): four paths with
//! identical results (tests compare them on random and edge patterns):
//! - by shape ([`runs`]): the trace reader recorded the addresses' [`AddrShape`] (a stride, or
//!   runs of lanes with a stride and a step between runs), so the lines follow from
//!   (base, shape, width, mask) in O(lines), without looking at the lanes;
//! - unit stride (the lines follow from one range), aligned lanes (each lane adds to the line
//!   of the previous lane, or a search), and lane by lane with straddling accesses.
//!
//! The byte cover of each line ([`LineReq::cover`], [`LineReq::full`]) is computed for stores
//! only ([`WarpAccess::store`]): only a store's whole sectors matter (L2 write-validate).
//! Bank conflicts: one pass when no bank holds two distinct words, else a sort.

mod runs;

use crate::config::L1dConfig;
use crate::mem::iface::{AccessKind, MemRequest};
use crate::trace::{AddrShape, MemSpace, OpInfo, OpKind};

/// One coalesced access to one line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineReq {
    /// Line-aligned address.
    pub addr: u64,
    /// Sectors touched (bit i = sector i of the line).
    pub sectors: u8,
    /// Bytes the lanes access in this line.
    pub bytes: u32,
    /// Lanes that touch this line.
    pub lanes: u32,
    /// Bytes of the line the lanes touch (bit i = byte i), for stores to lines of at most 128
    /// bytes (0 for loads and longer lines); `full` is derived from it.
    pub cover: u128,
    /// Sectors every byte of which the lanes touch (stores only, else 0): a store writes them
    /// whole, so an L2 with lazy fetch-on-read never has to fetch them.
    pub full: u8,
}

/// Bytes `[lo, hi)` of a line as a [`LineReq::cover`] mask (`hi <= 128`).
#[inline]
fn range_cover(lo: u64, hi: u64) -> u128 {
    let upto = |n: u64| {
        if n >= 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        }
    };
    upto(hi) & !upto(lo)
}

/// The sectors of a line whose bytes are all in `cover` (lines of at most 128 bytes).
fn full_sectors(cover: u128, lb: u64, sb: u64) -> u8 {
    if lb > 128 || sb == 0 || sb > lb {
        return 0;
    }
    let whole = range_cover(0, sb);
    (0..(lb / sb).min(8))
        .filter(|&s| (cover >> (s * sb)) & whole == whole)
        .fold(0u8, |m, s| m | 1 << s)
}

impl LineReq {
    /// The [`MemRequest`] for this line (the caller fills `tag`, `pc`, `last`).
    pub fn request(&self, kind: AccessKind, space: MemSpace, bypass_l1: bool) -> MemRequest {
        MemRequest {
            kind,
            space,
            addr: self.addr,
            sectors: self.sectors,
            bytes: self.bytes,
            full: self.full,
            bypass_l1,
            shmem_wavefronts: 0,
            ..MemRequest::default()
        }
    }
}

/// One warp memory instruction as the coalescer sees it.
#[derive(Clone, Copy, Debug)]
pub struct WarpAccess<'a> {
    /// Active lanes.
    pub mask: u32,
    /// `addrs[k]` belongs to the k-th set bit of `mask`, as in
    /// [`crate::trace::WarpTrace::addrs`] (lanes beyond `addrs` are ignored).
    pub addrs: &'a [u64],
    /// Bytes per lane.
    pub width: u32,
    /// The addresses' shape ([`crate::trace::TraceInst::shape`]); [`AddrShape::NONE`] when
    /// unknown.
    pub shape: AddrShape,
    /// Compute [`LineReq::cover`] and [`LineReq::full`] (a store); loads leave them 0.
    pub store: bool,
}

/// Coalesces the active lanes' addresses (`addrs[k]` belongs to the k-th set bit of `mask`, as in
/// [`crate::trace::WarpTrace::addrs`]) into line requests, appended to `out` after clearing it,
/// with the byte cover of a store: [`coalesce_access`] of an access without a known shape.
pub fn coalesce(
    mask: u32,
    addrs: &[u64],
    width: u32,
    line_bytes: u32,
    sector_bytes: u32,
    out: &mut Vec<LineReq>,
) {
    let a = WarpAccess {
        mask,
        addrs,
        width,
        shape: AddrShape::NONE,
        store: true,
    };
    coalesce_access(&a, line_bytes, sector_bytes, out);
}

/// Coalesces one access into line requests (first-touch order), appended to `out` after
/// clearing it: from its shape when known, else from the lanes.
pub fn coalesce_access(
    a: &WarpAccess<'_>,
    line_bytes: u32,
    sector_bytes: u32,
    out: &mut Vec<LineReq>,
) {
    if a.store {
        lines::<true>(a, line_bytes, sector_bytes, out);
    } else {
        lines::<false>(a, line_bytes, sector_bytes, out);
    }
}

/// [`coalesce_access`] with the byte cover computed (`C`) or not.
fn lines<const C: bool>(
    a: &WarpAccess<'_>,
    line_bytes: u32,
    sector_bytes: u32,
    out: &mut Vec<LineReq>,
) {
    out.clear();
    let w = a.width.max(1) as u64;
    let lb = line_bytes as u64;
    let sb = sector_bytes.max(1) as u64;
    let (mask, addrs) = (a.mask, a.addrs);
    let n = mask.count_ones() as usize;
    let shaped = a.shape.is_regular() && addrs.len() >= n && n > 0 && {
        debug_assert!(
            a.shape.matches(&addrs[..n]),
            "{:?} does not describe {:x?}",
            a.shape,
            &addrs[..n]
        );
        runs::by_shape::<C>(mask, addrs[0], a.shape, w, lb, sb, out)
    };
    if !shaped
        && !contiguous::<C>(mask, addrs, w, lb, sb, out)
        && !within_lines::<C>(mask, addrs, w, lb, sb, out)
    {
        out.clear();
        by_lane::<C>(mask, addrs, w, lb, sb, out);
    }
    if C && lb <= 128 {
        for r in out.iter_mut() {
            r.full = full_sectors(r.cover, lb, sb);
        }
    }
}

/// The second fast path of [`coalesce`]: no lane's access crosses a line boundary (aligned
/// accesses), so each lane adds to exactly one line, found by comparing with the line of the
/// previous lane first. The line being filled is kept in locals (written back when the line
/// changes) and a lane repeating the previous lane's address adds only its bytes and lane bit
/// (broadcasts, half-warps reading the same row). Returns false (with `out` partly written)
/// when a lane straddles.
fn within_lines<const C: bool>(
    mask: u32,
    addrs: &[u64],
    w: u64,
    lb: u64,
    sb: u64,
    out: &mut Vec<LineReq>,
) -> bool {
    if !lb.is_power_of_two() || !sb.is_power_of_two() || w > lb {
        return false;
    }
    let ss = sb.trailing_zeros();
    let off_mask = lb - 1;
    let wb = w as u32;
    let n = (mask.count_ones() as usize).min(addrs.len());
    let mut m = mask;
    let mut cur = usize::MAX;
    let mut cur_line = u64::MAX;
    let mut prev = u64::MAX;
    let (mut secs, mut bytes, mut lanes, mut cover) = (0u8, 0u32, 0u32, 0u128);
    // One lane's bytes at offset 0, shifted to each lane's offset (`off + w <= lb <= 128`).
    let lane_cover = if C && lb <= 128 { range_cover(0, w) } else { 0 };
    for &a in &addrs[..n] {
        let bit = m & m.wrapping_neg();
        m &= m - 1;
        if a == prev {
            bytes += wb;
            lanes |= bit;
            continue;
        }
        let off = a & off_mask;
        if off + w > lb {
            return false;
        }
        let line = a - off;
        if line != cur_line {
            if let Some(r) = out.get_mut(cur) {
                (r.sectors, r.bytes, r.lanes, r.cover) = (secs, bytes, lanes, cover);
            }
            cur = match out.iter().rposition(|r| r.addr == line) {
                Some(i) => i,
                None => {
                    out.push(LineReq {
                        addr: line,
                        ..LineReq::default()
                    });
                    out.len() - 1
                }
            };
            let r = &out[cur];
            (secs, bytes, lanes, cover) = (r.sectors, r.bytes, r.lanes, r.cover);
            cur_line = line;
        }
        if C && lb <= 128 {
            cover |= lane_cover << off;
        }
        let (s0, s1) = ((off >> ss) as u32, ((off + w - 1) >> ss) as u32);
        secs |= if s0 == s1 {
            1u32.wrapping_shl(s0) as u8
        } else {
            (2u32.wrapping_shl(s1)).wrapping_sub(1u32.wrapping_shl(s0)) as u8
        };
        bytes += wb;
        lanes |= bit;
        prev = a;
    }
    if let Some(r) = out.get_mut(cur) {
        (r.sectors, r.bytes, r.lanes, r.cover) = (secs, bytes, lanes, cover);
    }
    true
}

/// The general path of [`coalesce`]: lane by lane, lines in first-touch order.
fn by_lane<const C: bool>(
    mask: u32,
    addrs: &[u64],
    w: u64,
    lb: u64,
    sb: u64,
    out: &mut Vec<LineReq>,
) {
    let mut m = mask;
    // Sector index by shift when the sector size is a power of two (config validation
    // checks it); the entry of the line touched last is tried first (neighbouring lanes
    // usually share a line), then the others, newest first.
    let shift = sb.is_power_of_two().then(|| sb.trailing_zeros());
    let sector = |off: u64| match shift {
        Some(sh) => off >> sh,
        None => off / sb,
    };
    let mut last = usize::MAX;
    for &a in addrs.iter().take(mask.count_ones() as usize) {
        let lane = m.trailing_zeros();
        m &= m - 1;
        let end = a.saturating_add(w);
        let mut p = a;
        while p < end {
            let line = p & !(lb - 1);
            let seg_end = end.min(line.saturating_add(lb));
            let s0 = sector(p - line);
            let s1 = sector(seg_end - 1 - line);
            let secs = ((((1u32 << (s1 + 1)) - 1) & !((1u32 << s0) - 1)) & 0xff) as u8;
            let bytes = (seg_end - p) as u32;
            let cover = if C && lb <= 128 {
                range_cover(p - line, seg_end - line)
            } else {
                0
            };
            let hit = if out.get(last).is_some_and(|r| r.addr == line) {
                Some(last)
            } else {
                out.iter().rposition(|r| r.addr == line)
            };
            match hit {
                Some(i) => {
                    let r = &mut out[i];
                    r.sectors |= secs;
                    r.bytes += bytes;
                    r.lanes |= 1 << lane;
                    r.cover |= cover;
                    last = i;
                }
                None => {
                    last = out.len();
                    out.push(LineReq {
                        addr: line,
                        sectors: secs,
                        bytes,
                        lanes: 1 << lane,
                        cover,
                        full: 0,
                    });
                }
            }
            if seg_end == u64::MAX {
                break;
            }
            p = seg_end;
        }
    }
}

/// The fast path of [`coalesce`]: the active lanes (a contiguous run of mask bits) access one
/// contiguous range, lane k at `addrs[0] + k * width` (unit stride, the common case). The
/// lines follow from the range in one pass. Returns false (nothing written) otherwise.
fn contiguous<const C: bool>(
    mask: u32,
    addrs: &[u64],
    w: u64,
    lb: u64,
    sb: u64,
    out: &mut Vec<LineReq>,
) -> bool {
    let n = (mask.count_ones() as usize).min(addrs.len());
    if n < 2 || !lb.is_power_of_two() || !sb.is_power_of_two() {
        return false;
    }
    let tz = mask.trailing_zeros();
    if ((mask >> tz) as u64 + 1).count_ones() != 1 || addrs.len() < mask.count_ones() as usize {
        return false;
    }
    let a0 = addrs[0];
    let Some(end) = (n as u64)
        .checked_mul(w)
        .and_then(|len| a0.checked_add(len))
    else {
        return false;
    };
    let mut expect = a0;
    for &a in &addrs[..n] {
        if a != expect {
            return false;
        }
        expect += w;
    }
    let sshift = sb.trailing_zeros();
    let mut p = a0;
    while p < end {
        let line = p & !(lb - 1);
        let seg_end = end.min(line + lb);
        let s0 = (p - line) >> sshift;
        let s1 = (seg_end - 1 - line) >> sshift;
        let secs = ((((1u32 << (s1 + 1)) - 1) & !((1u32 << s0) - 1)) & 0xff) as u8;
        // Lanes k0..=k1 (k-th active lane = lane tz + k) touch [p, seg_end).
        let k0 = (p - a0) / w;
        let k1 = (seg_end - 1 - a0) / w;
        let lanes = ((((1u64 << (k1 + 1)) - 1) & !((1u64 << k0) - 1)) << tz) as u32;
        out.push(LineReq {
            addr: line,
            sectors: secs,
            bytes: (seg_end - p) as u32,
            lanes,
            cover: if C && lb <= 128 {
                range_cover(p - line, seg_end - line)
            } else {
                0
            },
            full: 0,
        });
        p = seg_end;
    }
    true
}

/// Shared-memory bank conflict degree: the number of wavefronts (1 = conflict free) needed to
/// serve the lanes, counting distinct `bank_width`-byte words per bank (the same word is
/// broadcast). Wide accesses touch several words.
pub fn shmem_wavefronts(mask: u32, addrs: &[u64], width: u32, banks: u32, bank_width: u32) -> u32 {
    shmem_access(mask, addrs, width, banks, bank_width).0
}

/// [`shmem_wavefronts`] and the number of distinct words the lanes touch.
pub fn shmem_access(
    mask: u32,
    addrs: &[u64],
    width: u32,
    banks: u32,
    bank_width: u32,
) -> (u32, u32) {
    conflict_free(mask, addrs, width, banks, bank_width)
        .unwrap_or_else(|| shmem_sorted(mask, addrs, width, banks, bank_width))
}

/// The fast path of [`shmem_access`]: one pass with the first word seen per bank. Answers
/// when no bank holds two distinct words (one wavefront: unit stride, broadcast), else
/// `None` (the sorting path counts the conflicts).
fn conflict_free(
    mask: u32,
    addrs: &[u64],
    width: u32,
    banks: u32,
    bank_width: u32,
) -> Option<(u32, u32)> {
    let nb = banks.max(1) as u64;
    let bw = bank_width.max(1) as u64;
    if nb > 64 || !nb.is_power_of_two() || !bw.is_power_of_two() {
        return None;
    }
    let (bs, bm) = (bw.trailing_zeros(), nb - 1);
    let w = width.max(1) as u64;
    let mut used = 0u64;
    let mut first = [0u64; 64];
    let mut distinct = 0u32;
    let mut prev = u64::MAX;
    for &a in addrs.iter().take(mask.count_ones() as usize) {
        // A lane on the previous lane's address adds no word (broadcast rows).
        if a == prev {
            continue;
        }
        prev = a;
        let (f, l) = (a >> bs, (a + w - 1) >> bs);
        if l - f > 8 {
            return None;
        }
        for word in f..=l {
            let b = (word & bm) as usize;
            if used & (1u64 << b) == 0 {
                used |= 1u64 << b;
                first[b] = word;
                distinct += 1;
            } else if first[b] != word {
                return None;
            }
        }
    }
    Some((1, distinct))
}

/// The general path of [`shmem_access`]: words sorted by (bank, word), longest run of
/// distinct words in one bank.
fn shmem_sorted(mask: u32, addrs: &[u64], width: u32, banks: u32, bank_width: u32) -> (u32, u32) {
    let banks = banks.max(1) as u64;
    let bw = bank_width.max(1) as u64;
    let w = width.max(1) as u64;
    // Words touched, at most 32 lanes * 9 words (an unaligned 32 B access).
    let mut pairs = [0u64; 288];
    let mut n = 0;
    for &a in addrs.iter().take(mask.count_ones() as usize) {
        let (first, last) = (a / bw, (a + w - 1) / bw);
        for word in first..=last.min(first + 8) {
            if n < pairs.len() {
                pairs[n] = word;
                n += 1;
            }
        }
    }
    let p = &mut pairs[..n];
    p.sort_unstable_by_key(|&w| (w % banks, w));
    let mut best = 0;
    let mut run = 0;
    let mut distinct = 0;
    let mut prev: Option<u64> = None;
    for &w in p.iter() {
        match prev {
            Some(q) if q == w => continue,
            Some(q) if q % banks == w % banks => run += 1,
            _ => run = 1,
        }
        distinct += 1;
        best = best.max(run);
        prev = Some(w);
    }
    (best.max(1) as u32, distinct)
}

/// Whether an access skips the L1: atomics and reductions (performed at L2), `.STRONG.GPU`
/// (coherent at the GPU level), `.CG` loads, and global loads when global caching is off.
pub fn bypasses_l1(op: &OpInfo, l1: &L1dConfig) -> bool {
    if matches!(op.kind, OpKind::Atomic | OpKind::Reduction) && op.space != MemSpace::Shared {
        return true;
    }
    if op.name.contains(".STRONG.GPU") || op.name.contains(".CG") {
        return true;
    }
    op.space == MemSpace::Global && op.kind == OpKind::Load && !l1.cache_global
}

/// The access kind of an opcode kind.
pub fn access_kind(k: OpKind) -> AccessKind {
    match k {
        OpKind::Store => AccessKind::Store,
        OpKind::Atomic => AccessKind::Atomic,
        OpKind::Reduction => AccessKind::Reduction,
        _ => AccessKind::Load,
    }
}

#[cfg(test)]
mod tests;
