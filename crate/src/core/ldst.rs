//! The memory pipeline (seed 001 section 2.3, Figure 5), one per sub-core.
//!
//! ```text
//!  CU ──> dispatch latch ──(dispatch_latency, address latch free)──> address latch
//!         address latch: coalescing, N leader lanes per cycle, each compared with all 32 lanes
//!                        -> one request (line + sector mask) per leader ──> request buffer
//!  request buffers of all sub-cores ──RR arbiter, out of order──> L1D banks / shared / constant
//!  responses ──> write-back queue ──> write-back latch (needs register-bank write ports)
//! ```
//! An instruction leaves the dispatch latch after one cycle unless the address latch is busy,
//! so a badly coalesced access only blocks its own sub-core's pipeline. With
//! `features.subcore_mem_pipeline = false` the SM has one pipeline (Accel-Sim's LDST unit): the
//! instruction holds the single latch until all its requests are sent, requests leave in order,
//! and one write-back latch serves the whole SM.

use std::collections::VecDeque;

use crate::mem::coalesce::{coalesce_access, shmem_access, LineReq, WarpAccess};
use crate::mem::{AccessKind, MemRequest};
use crate::trace::{AddrShape, KernelInfo, MemSpace, OpKind, Reg, TraceInst, MAX_DST};
use crate::Cycle;

/// In-flight memory instructions per pipeline.
pub const MEM_TABLE: usize = 32;
// `MemPipe::used_mask` has one bit per table entry.
const _: () = assert!(MEM_TABLE == 32);
/// Window of the generic address space mapped to shared / local memory from their bases.
pub const GENERIC_WINDOW: u64 = 1 << 24;

#[derive(Clone, Copy, Debug, Default)]
pub struct MemInst {
    pub used: bool,
    pub warp: u16,
    pub subcore: u8,
    /// Trace index of the instruction in its warp.
    pub idx: u32,
    pub kind: OpKind,
    pub ndst: u8,
    pub dst: [Reg; MAX_DST],
    pub pc: u32,
    /// Responses still expected.
    pub remaining: u16,
    /// The dependence counters it releases (modern core).
    pub sbs: super::modern::SbIds,
}

impl MemInst {
    /// Instruction `idx` (`inst`, of kind `kind`) of warp slot `warp`, entering the memory
    /// pipeline of sub-core `subcore`; it releases dependence counters `sbs` (modern core).
    pub fn new(
        warp: u16,
        subcore: usize,
        idx: u32,
        kind: OpKind,
        inst: &TraceInst,
        sbs: super::modern::SbIds,
    ) -> Self {
        MemInst {
            used: true,
            warp,
            subcore: subcore as u8,
            idx,
            kind,
            ndst: inst.ndst.min(4),
            dst: inst.dst,
            pc: inst.pc,
            remaining: 0,
            sbs,
        }
    }

    pub fn writes_regs(&self) -> bool {
        writes_regs(self.ndst, self.kind)
    }
}

/// Whether a memory instruction writes registers when it completes (loads, atomics with a
/// destination).
#[inline]
pub fn writes_regs(ndst: u8, kind: OpKind) -> bool {
    ndst > 0 && matches!(kind, OpKind::Load | OpKind::Atomic)
}

/// Geometry the coalescer needs.
#[derive(Clone, Copy, Debug)]
pub struct CoalesceParams {
    pub line_bytes: u64,
    pub sector_bytes: u64,
    pub const_line_bytes: u64,
    pub shmem_banks: u64,
    pub shmem_bank_bytes: u64,
}

/// A memory pipeline of one sub-core. Laid out in declaration order from a cache line: the
/// fields the SM's every step reads ([`MemPipe::is_idle`], the arbiter's scan: write-back
/// queue, buffer, latches) come first, so an idle pipeline costs one line.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct MemPipe {
    /// Completed loads waiting for the write-back latch, in completion order.
    pub wb: VecDeque<u8>,
    pub buf: Vec<MemRequest>,
    /// Entry being coalesced.
    pub addr: Option<u8>,
    /// What the buffered requests need ([`Self::note_needs`], [`Self::take_buffered`]): bit
    /// b < 64 for L1D bank b, and in `buf_ports` bit 0 for shared memory, bit 1 for the
    /// constant cache; a superset of the buffer's needs, exact when it is empty. A pipeline
    /// all of whose needs are taken this cycle is passed over without a scan.
    pub buf_ports: u8,
    /// Accel-Sim mode: one latch held until all requests are sent, requests in order.
    pub baseline: bool,
    /// Bit `i` set: `table[i]` is in use (kept with `MemInst::used`; the lowest clear bit is
    /// the entry `accept` takes).
    used_mask: u32,
    /// Entry in the dispatch latch and the cycle it may move on.
    pub dispatch: Option<(u8, Cycle)>,
    /// Entries behind the dispatch latch, in order (the modern core's sub-core memory unit
    /// holds up to [`super::modern::MEM_UNIT_SLOTS`]; the Accel-Sim core none).
    pub queue: VecDeque<(u8, Cycle)>,
    /// Instructions the latch and the queue hold together.
    pub dispatch_cap: usize,
    pub buf_banks: u64,
    pub buf_cap: usize,
    pub table: Vec<MemInst>,
    /// The requests of the entry being coalesced (`addr`), and how many were pushed to the
    /// buffer.
    pub gen: Vec<MemRequest>,
    pub gen_pos: usize,
    /// Scratch lines for the coalescer.
    pub lines: Vec<LineReq>,
    /// `fast` mode: the latch and arbiter times of instructions issued straight to the
    /// analytical memory ([`super::mem_direct`]).
    pub direct: super::mem_direct::DirectPipe,
}

impl MemPipe {
    pub fn new(buf_cap: u32, baseline: bool) -> Self {
        MemPipe {
            table: vec![MemInst::default(); MEM_TABLE],
            used_mask: 0,
            dispatch: None,
            queue: VecDeque::with_capacity(8),
            dispatch_cap: 1,
            addr: None,
            gen: Vec::with_capacity(64),
            lines: Vec::with_capacity(64),
            gen_pos: 0,
            buf: Vec::with_capacity(buf_cap.max(1) as usize),
            buf_cap: buf_cap.max(1) as usize,
            buf_banks: 0,
            buf_ports: 0,
            wb: VecDeque::with_capacity(MEM_TABLE),
            baseline,
            direct: Default::default(),
        }
    }

    /// The dispatch latch can take an instruction.
    pub fn can_accept(&self) -> bool {
        let held = self.dispatch.is_some() as usize + self.queue.len();
        if held >= self.dispatch_cap || self.used_mask == u32::MAX {
            return false;
        }
        !self.baseline || (self.addr.is_none() && self.buf.is_empty())
    }

    /// A collector unit dispatches a memory instruction into the dispatch latch.
    pub fn accept(&mut self, now: Cycle, latency: u32, e: MemInst) {
        debug_assert!(self.used_mask != u32::MAX, "can_accept checked");
        let i = (!self.used_mask).trailing_zeros() as usize;
        self.used_mask |= 1 << i;
        self.table[i] = MemInst { used: true, ..e };
        let d = (i as u8, now + latency.max(1) as u64);
        if self.dispatch.is_none() {
            self.dispatch = Some(d);
        } else {
            self.queue.push_back(d);
        }
    }

    /// [`MemPipe::accept`] with the cycle the instruction may leave the dispatch latch.
    pub fn accept_at(&mut self, ready: Cycle, e: MemInst) {
        self.accept(ready.saturating_sub(1), 1, e);
    }

    /// Adds the needs of the requests buffered from `from` on (just pushed) to `buf_banks` /
    /// `buf_ports`; `bank_of` maps an address to its L1D bank.
    pub fn note_needs(&mut self, from: usize, bank_of: impl Fn(u64) -> usize) {
        for r in &self.buf[from..] {
            match r.space {
                MemSpace::Shared => self.buf_ports |= 1,
                MemSpace::Constant => self.buf_ports |= 2,
                _ => self.buf_banks |= 1 << (bank_of(r.addr) & 63),
            }
        }
    }

    /// Removes buffered request `i` (granted). The needs stay a superset of the buffer's until
    /// it empties (a superset only costs a scan).
    pub fn take_buffered(&mut self, i: usize) {
        self.buf.remove(i);
        if self.buf.is_empty() {
            self.buf_banks = 0;
            self.buf_ports = 0;
        }
    }

    /// Frees table entry `e` (its instruction completed).
    #[inline]
    pub fn release(&mut self, e: usize) {
        self.table[e].used = false;
        self.used_mask &= !(1 << e);
    }

    /// Moves the dispatch latch into a free address latch and coalesces the instruction's
    /// addresses into `gen`. Returns the entry when it moved.
    #[inline]
    pub fn latch_step(&mut self, now: Cycle) -> Option<u8> {
        match self.dispatch {
            Some((e, ready)) if ready <= now && self.addr.is_none() => {
                self.dispatch = self.queue.pop_front();
                self.addr = Some(e);
                self.gen.clear();
                self.gen_pos = 0;
                Some(e)
            }
            _ => None,
        }
    }

    /// Address latch: pushes up to `per_cycle` coalesced requests into the request buffer.
    /// Returns (changed, entry finished with zero requests).
    #[inline]
    pub fn coalesce_step(&mut self, per_cycle: u32) -> (bool, Option<u8>) {
        let Some(e) = self.addr else {
            return (false, None);
        };
        // Up to `per_cycle` requests move from the coalescer's output into the buffer.
        let room = self.buf_cap.saturating_sub(self.buf.len());
        let k = (per_cycle.max(1) as usize)
            .min(self.gen.len() - self.gen_pos)
            .min(room);
        let changed = k > 0;
        if k == 1 {
            self.buf.push(self.gen[self.gen_pos]);
            self.gen_pos += 1;
        } else if changed {
            self.buf
                .extend_from_slice(&self.gen[self.gen_pos..self.gen_pos + k]);
            self.gen_pos += k;
        }
        if self.gen_pos >= self.gen.len() {
            self.addr = None;
            let empty = self.gen.is_empty();
            return (true, if empty { Some(e) } else { None });
        }
        (changed, None)
    }

    pub fn is_idle(&self) -> bool {
        self.wb.is_empty() && self.buf.is_empty() && self.addr.is_none() && self.dispatch.is_none()
    }

    /// Earliest cycle this pipeline can change state on its own.
    pub fn next_event(&self, now: Cycle) -> Option<Cycle> {
        if self.addr.is_some() || !self.buf.is_empty() || !self.wb.is_empty() {
            return Some(now + 1);
        }
        self.dispatch.map(|(_, r)| r.max(now + 1))
    }
}

fn access_kind(k: OpKind) -> AccessKind {
    match k {
        OpKind::Store => AccessKind::Store,
        OpKind::Atomic => AccessKind::Atomic,
        OpKind::Reduction => AccessKind::Reduction,
        _ => AccessKind::Load,
    }
}

/// Resolves a generic address into shared / local / global with the kernel's windows.
#[inline]
pub fn resolve_space(space: MemSpace, addr: u64, k: &KernelInfo) -> MemSpace {
    if space != MemSpace::Generic {
        return space;
    }
    if k.shmem_base != 0 && addr >= k.shmem_base && addr - k.shmem_base < GENERIC_WINDOW {
        MemSpace::Shared
    } else if k.local_base != 0 && addr >= k.local_base && addr - k.local_base < GENERIC_WINDOW {
        MemSpace::Local
    } else {
        MemSpace::Global
    }
}

/// Coalesces one warp memory instruction into requests (appended to `out`): one per distinct
/// line with the touched sectors for cached spaces, one per instruction for shared memory with
/// the bank-conflict degree (most distinct 4-byte words in one bank; a broadcast is free).
///
/// One coalescer for the whole simulator: the lines come from
/// [`crate::mem::coalesce::coalesce_access`] (the functional mode's, from the instruction's
/// [`AddrShape`] when it has one, byte covers for stores only) and the bank conflicts from
/// [`crate::mem::coalesce::shmem_access`] (on the distinct addresses the shape names);
/// `lines` is scratch space. A generic access whose
/// lanes resolve to different spaces is split by space (global, local, then shared last).
/// `addrs` are the instruction's active-lane addresses, lowest lane first (fewer than its
/// active lanes where the trace had fewer; `PackedWarp::addrs`).
#[allow(clippy::too_many_arguments)]
pub fn coalesce(
    inst: &TraceInst,
    addrs: &[u64],
    space: MemSpace,
    kind: OpKind,
    k: &KernelInfo,
    p: &CoalesceParams,
    tag: u64,
    out: &mut Vec<MemRequest>,
    lines: &mut Vec<LineReq>,
) {
    out.clear();
    let n = if inst.mem_width > 0 {
        inst.mask.count_ones() as usize
    } else {
        0
    };
    let addrs = &addrs[..n.min(addrs.len())];
    if addrs.is_empty() {
        return;
    }
    // The mask bits that have an address (a truncated trace gives fewer addresses).
    let mut mask = inst.mask;
    if addrs.len() < n {
        let mut m = 0u32;
        let mut left = inst.mask;
        for _ in 0..addrs.len() {
            m |= left & left.wrapping_neg();
            left &= left - 1;
        }
        mask = m;
    }
    let uniform = if space != MemSpace::Generic {
        Some(space)
    } else {
        let first = resolve_space(space, addrs[0], k);
        addrs[1..]
            .iter()
            .all(|&a| resolve_space(space, a, k) == first)
            .then_some(first)
    };
    match uniform {
        Some(sp) => {
            // The shape describes all the instruction's addresses (a truncated list has none).
            let shape = if addrs.len() == n {
                inst.shape
            } else {
                AddrShape::NONE
            };
            group(inst, sp, kind, p, tag, (mask, addrs, shape), out, lines)
        }
        None => {
            // Mixed generic access: one group per space, shared last.
            let mut sub = [0u64; 32];
            for sp in [MemSpace::Global, MemSpace::Local, MemSpace::Shared] {
                let (mut m, mut cnt, mut left) = (0u32, 0usize, mask);
                for &a in addrs {
                    let lane = left & left.wrapping_neg();
                    left &= left - 1;
                    if resolve_space(space, a, k) == sp {
                        m |= lane;
                        sub[cnt] = a;
                        cnt += 1;
                    }
                }
                if cnt > 0 {
                    let mut part = Vec::new();
                    let lanes = (m, &sub[..cnt], AddrShape::NONE);
                    group(inst, sp, kind, p, tag, lanes, &mut part, lines);
                    out.extend_from_slice(&part);
                }
            }
        }
    }
    for r in out.iter_mut() {
        r.last = false;
    }
    if let Some(r) = out.last_mut() {
        r.last = true;
    }
}

/// The requests of lanes `mask` (addresses `addrs`, of shape `shape`) that all resolve to
/// space `sp`.
#[allow(clippy::too_many_arguments)]
fn group(
    inst: &TraceInst,
    sp: MemSpace,
    kind: OpKind,
    p: &CoalesceParams,
    tag: u64,
    (mask, addrs, shape): (u32, &[u64], AddrShape),
    out: &mut Vec<MemRequest>,
    lines: &mut Vec<LineReq>,
) {
    let akind = access_kind(kind);
    let width = inst.mem_width.max(1) as u32;
    if sp == MemSpace::Shared {
        let mut few = [0u64; 32];
        let (m, a) = distinct_lanes(mask, addrs, shape, &mut few);
        let (wavefronts, words) =
            shmem_access(m, a, width, p.shmem_banks as u32, p.shmem_bank_bytes as u32);
        out.push(MemRequest {
            tag,
            kind: akind,
            space: MemSpace::Shared,
            addr: addrs[0],
            sectors: 0,
            bytes: (words as u64 * p.shmem_bank_bytes) as u32,
            full: 0,
            bypass_l1: false,
            shmem_wavefronts: wavefronts,
            pc: inst.pc,
            atomic_serial: 0,
            last: false,
        });
        return;
    }
    let bypass = matches!(kind, OpKind::Atomic | OpKind::Reduction);
    let lb = if sp == MemSpace::Constant {
        p.const_line_bytes
    } else {
        p.line_bytes
    };
    let access = WarpAccess {
        mask,
        addrs,
        width,
        shape,
        store: kind == OpKind::Store,
    };
    coalesce_access(&access, lb as u32, p.sector_bytes as u32, lines);
    for l in lines.iter() {
        let atomic_serial = if bypass {
            atomic_passes(addrs, l.addr, lb, p.sector_bytes)
        } else {
            0
        };
        out.push(MemRequest {
            tag,
            kind: akind,
            space: sp,
            addr: l.addr,
            sectors: l.sectors,
            bytes: l.bytes,
            full: l.full,
            bypass_l1: bypass,
            shmem_wavefronts: 0,
            pc: inst.pc,
            atomic_serial,
            last: false,
        });
    }
}

/// The serialized passes the L2 slice's atomic unit makes for the lanes of line `line` (of
/// `lb` bytes): it takes one sector (`sb` bytes) at a time and updates each distinct address of
/// that sector once per pass, so a sector costs as many passes as its most repeated address,
/// and the line the sum over its sectors. On the H100 the L2's reduction sector count is 1.5 x
/// this sum on three histograms alike (1, 16 and 4,096 bins: 107,264, 106,338 and 384,411
/// `lts__t_sectors_op_red` for 65,536, 70,784 and 255,584 passes), where the most repeated
/// address of the whole line explains neither the 16-bin count nor its cycles.
fn atomic_passes(addrs: &[u64], line: u64, lb: u64, sb: u64) -> u8 {
    let mut a = [0u64; 32];
    let mut n = 0;
    for &x in addrs.iter().take(32) {
        if x - x % lb.max(1) == line {
            a[n] = x;
            n += 1;
        }
    }
    let a = &mut a[..n];
    a.sort_unstable();
    let sector = |x: u64| x / sb.max(1);
    let (mut passes, mut best, mut run) = (0u8, 0u8, 0u8);
    for i in 0..a.len() {
        if i > 0 && sector(a[i]) != sector(a[i - 1]) {
            passes += best;
            best = 0;
        }
        run = if i > 0 && a[i] == a[i - 1] {
            run + 1
        } else {
            1
        };
        best = best.max(run);
    }
    passes + best
}

/// Lanes whose addresses make the same set as all of `addrs` (bank conflicts depend on the
/// set alone): by the shape, runs that repeat the first run (`stride2 = 0`) or runs that each
/// broadcast one address (`stride = 0`) shrink to their distinct addresses.
fn distinct_lanes<'a>(
    mask: u32,
    addrs: &'a [u64],
    shape: AddrShape,
    few: &'a mut [u64; 32],
) -> (u32, &'a [u64]) {
    let (n, run) = (addrs.len(), shape.run as usize);
    let low = |k: usize| ((1u64 << k) - 1) as u32;
    if !shape.is_regular() || n != mask.count_ones() as usize || n == 0 {
        (mask, addrs)
    } else if shape.stride2 == 0 && run < n {
        (low(run), &addrs[..run])
    } else if shape.stride == 0 {
        let g = n.div_ceil(run);
        for (k, f) in few.iter_mut().take(g).enumerate() {
            *f = addrs[k * run];
        }
        (low(g), &few[..g])
    } else {
        (mask, addrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::WarpTrace;

    fn warp(addrs: &[u64], width: u16) -> (TraceInst, WarpTrace) {
        let mask = if addrs.len() == 32 {
            u32::MAX
        } else {
            (1u32 << addrs.len()) - 1
        };
        let inst = TraceInst {
            mask,
            mem_width: width,
            ..Default::default()
        };
        (
            inst,
            WarpTrace {
                warp_id: 0,
                insts: vec![inst],
                addrs: addrs.to_vec(),
            },
        )
    }

    /// Coalesces a load of `width` bytes per lane at `addrs` in `space`.
    fn load(addrs: &[u64], width: u16, space: MemSpace, tag: u64) -> Vec<MemRequest> {
        let (i, w) = warp(addrs, width);
        let mut out = Vec::new();
        let k = KernelInfo::default();
        coalesce(
            &i,
            &w.addrs,
            space,
            OpKind::Load,
            &k,
            &P,
            tag,
            &mut out,
            &mut Vec::new(),
        );
        out
    }

    const P: CoalesceParams = CoalesceParams {
        line_bytes: 128,
        sector_bytes: 32,
        const_line_bytes: 64,
        shmem_banks: 32,
        shmem_bank_bytes: 4,
    };

    #[test]
    fn atomic_lanes_on_one_address_serialize() {
        let a: Vec<u64> = (0..32).map(|l| 0x1000 + 4 * (l % 4)).collect();
        // Four addresses of one sector, eight lanes each: eight passes.
        assert_eq!(atomic_passes(&a, 0x1000, 128, 32), 8);
        assert_eq!(atomic_passes(&a, 0x1080, 128, 32), 0);
        // 32 consecutive words: four sectors of eight distinct addresses, a pass each.
        let b: Vec<u64> = (0..32).map(|l| 0x1000 + 4 * l).collect();
        assert_eq!(atomic_passes(&b, 0x1000, 128, 32), 4);
        // Two sectors: lanes 0..16 on four words of the first (four lanes each), lanes 16..32
        // on two words of the second (eight each): 4 + 8 passes.
        let c: Vec<u64> = (0..32)
            .map(|l| {
                if l < 16 {
                    0x1000 + 4 * (l % 4)
                } else {
                    0x1020 + 4 * (l % 2)
                }
            })
            .collect();
        assert_eq!(atomic_passes(&c, 0x1000, 128, 32), 12);
    }

    #[test]
    fn global_coalescing_lines_and_sectors() {
        // 32 lanes x 4 B consecutive from 0x1000: one line, four sectors.
        let a: Vec<u64> = (0..32).map(|i| 0x1000 + 4 * i).collect();
        let out = load(&a, 4, MemSpace::Global, 7);
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].addr, out[0].sectors, out[0].bytes, out[0].last),
            (0x1000, 0b1111, 128, true)
        );
        // Stride 128 B: 32 lines, one sector each.
        let a: Vec<u64> = (0..32).map(|i| 0x1000 + 128 * i).collect();
        let out = load(&a, 4, MemSpace::Global, 7);
        assert_eq!(out.len(), 32);
        assert!(out.iter().all(|r| r.sectors == 1));
        // An 8-byte access straddling a line boundary touches two lines.
        let out = load(&[0x107c], 8, MemSpace::Global, 7);
        assert_eq!(
            out.iter().map(|r| (r.addr, r.sectors)).collect::<Vec<_>>(),
            [(0x1000, 0b1000), (0x1080, 0b1)]
        );
    }

    #[test]
    fn shape_reduced_lanes_give_the_same_bank_conflicts() {
        let mut x = 0x0dd_ba11u64;
        let mut few = [0u64; 32];
        let mut reduced = 0;
        for _ in 0..3000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let run = [2u8, 4, 8, 16, 32, 3][(x >> 60) as usize % 6];
            let stride = [0i32, 4, 8, 16, 128, -4][(x >> 50) as usize % 6];
            let stride2 = [0i32, 64, 512, 4, -60, 132][(x >> 40) as usize % 6];
            let n = 1 + (x >> 20) as usize % 32;
            let mask = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
            let width = [4u32, 8, 16][(x >> 10) as usize % 3];
            let shape = AddrShape {
                run,
                stride,
                stride2,
            };
            let mut addrs = Vec::new();
            shape.expand(0x4000 + (x >> 32) % 64 * 4, n, &mut addrs);
            let canon = AddrShape::of(&addrs);
            let (m, a) = distinct_lanes(mask, &addrs, canon, &mut few);
            reduced += (a.len() < n) as u32;
            assert_eq!(
                shmem_access(m, a, width, 32, 4),
                shmem_access(mask, &addrs, width, 32, 4),
                "{canon:?} n {n} width {width}"
            );
        }
        assert!(reduced > 500, "{reduced}");
    }

    #[test]
    fn shared_bank_conflicts() {
        // Stride 4 B: conflict free. Stride 8 B: lanes 0 and 16 share bank 0 -> 2 wavefronts.
        // Stride 128 B: all 32 lanes in bank 0 -> 32. Same word for all: broadcast -> 1.
        for (stride, wf) in [(4u64, 1u32), (8, 2), (128, 32), (0, 1)] {
            let a: Vec<u64> = (0..32).map(|i| stride * i).collect();
            let out = load(&a, 4, MemSpace::Shared, 0);
            assert_eq!(out.len(), 1);
            assert_eq!(out[0].shmem_wavefronts, wf, "stride {stride}");
        }
        // 16-byte accesses, consecutive: 512 B over 32 banks x 4 B -> 4 wavefronts.
        let a: Vec<u64> = (0..32).map(|i| 16 * i).collect();
        let out = load(&a, 16, MemSpace::Shared, 0);
        assert_eq!(out[0].shmem_wavefronts, 4);
    }
}
