//! Records + SASS -> Accel-Sim kernels: one warp's instruction stream rebuilt between its
//! recorded instructions.
//!
//! ```text
//!  records of warp (cta, w), file order:  enter | mem pc=0x1a0 lanes.. | mem 0x1b0 | exit 0x330
//!  anchors (one per recorded instruction): consecutive memory records of one pc form one
//!      warp instruction until a lane repeats; its mask = the lanes that reported
//!  between anchors: path.rs's shortest SASS path; those instructions get the warp's live
//!      mask (lanes not yet exited); never-executed (@!PT) and passed predicated EXITs and
//!      memory instructions get mask 0 (no lane took them)
//!  exit records: the EXIT at their pc with their mask; lanes leave. A warp whose exit was not
//!      recorded ends at the nearest unpredicated EXIT (counted in `synthesized_exits`). Lanes
//!      leaving at an unconditional EXIT while others stay (divergence): the others resume
//!      from the warp's previous recorded point (counted as one ambiguous choice)
//! ```

use std::collections::{BTreeMap, BTreeSet};

use super::path::PathFinder;
use super::records::{KernelRecords, Kind, Record, Space};
use super::sass::SassFunction;
use crate::trace::model::{
    AddrShape, CtaTrace, CtrlSource, KernelInfo, KernelTrace, OpTable, TraceInst, WarpTrace,
    MAX_DST, MAX_SRC, UR_BASE, WARP_SIZE,
};
use crate::trace::opcodes::{classify, Arch, GENERIC_WINDOW_BYTES};
use crate::workload::builder::{LOCAL_BASE, SHMEM_BASE};
use crate::{Error, Result};

/// What one kernel's import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelStats {
    pub name: String,
    pub ctas: u64,
    pub warps: u64,
    /// Warp instructions written.
    pub insts: u64,
    /// Of those, instructions the tracer recorded (memory, barriers, exits).
    pub recorded: u64,
    /// Conditional branches where another successor could also have led to the next
    /// recorded point (see path.rs).
    pub ambiguous: u64,
    /// Warps whose EXIT was not recorded and was taken as the nearest one.
    pub synthesized_exits: u64,
    pub records: u64,
}

/// One recorded point of a warp.
struct Anchor {
    idx: usize,
    mask: u32,
    kind: Kind,
    /// (lane, address) in lane order, memory only.
    addrs: Vec<(u8, u64)>,
    size: u8,
    record: u64,
}

/// Everything `import_kernel` needs besides the records.
pub struct KernelCtx<'a> {
    pub func: &'a SassFunction,
    pub name: &'a str,
    pub id: u32,
    pub records_file: &'a str,
}

fn record_err(file: &str, rec: u64, field: &str, msg: String) -> Error {
    Error::parse(file, rec, field, msg)
}

/// Rebuilds one kernel.
pub fn import_kernel(k: &KernelRecords, cx: &KernelCtx) -> Result<(KernelTrace, KernelStats)> {
    let f = cx.func;
    let bv = if f.binary_version == 0 {
        80
    } else {
        f.binary_version
    };
    let mut info = KernelInfo {
        name: k.name.clone(),
        id: cx.id,
        grid: k.grid,
        block: k.block,
        shmem_bytes: k.dyn_shmem,
        nregs: nregs(f),
        binary_version: bv,
        stream_id: 0,
        shmem_base: SHMEM_BASE,
        local_base: LOCAL_BASE,
        nvbit_version: "wwtrace-1".to_string(),
        tracer_version: 4,
        lineinfo: false,
        extra: Vec::new(),
        ctrl_source: if f.has_ctrl() {
            CtrlSource::Sass
        } else {
            CtrlSource::None
        },
    };
    let mut ops = OpTable::new();
    let mut stats = KernelStats {
        name: k.name.clone(),
        ctas: k.grid.count(),
        records: k.records.len() as u64,
        ..Default::default()
    };
    // Records per (cta, warp), file order kept.
    let mut by_warp: BTreeMap<(u32, u16), Vec<(u64, &Record)>> = BTreeMap::new();
    let mut max_shared = 0u64;
    for (i, r) in k.records.iter().enumerate() {
        by_warp
            .entry((r.cta, r.warp))
            .or_default()
            .push((k.first_record + i as u64, r));
        if r.kind == Kind::Mem && r.space() == Space::Shared {
            max_shared = max_shared.max(r.addr + r.size as u64);
        }
    }
    let local = LocalLayout::of(k);
    info.shmem_bytes = info.shmem_bytes.max(max_shared.div_ceil(256) as u32 * 256);
    let threads = k.block.count() as u32;
    let nwarps = threads.div_ceil(WARP_SIZE);
    let mut finder = PathFinder::new(f);
    let mut emit = Emit {
        f,
        ops: &mut ops,
        arch: Arch::resolve(bv, Arch::Ampere),
    };
    let mut ctas = Vec::with_capacity(k.grid.count().min(k.records.len() as u64) as usize);
    let empty = Vec::new();
    for c in 0..k.grid.count() as u32 {
        // Every warp records its entry: a CTA without a record was not traced, and would be
        // invented here from the SASS alone (records lost to a full buffer are allowed apart).
        if k.dropped == 0 && by_warp.range((c, 0)..=(c, u16::MAX)).next().is_none() {
            let traced = by_warp.keys().map(|&(c, _)| c).collect::<BTreeSet<u32>>();
            return Err(record_err(
                cx.records_file,
                k.first_record,
                "kernel",
                format!(
                    "{}: CTA {c} has no record (each warp records its entry): the records hold \
                     {} of the grid's {} CTAs",
                    crate::error::shown(&k.name),
                    traced.len(),
                    k.grid.count()
                ),
            ));
        }
        let mut warps = Vec::with_capacity(nwarps as usize);
        for w in 0..nwarps {
            let exist = low_lanes(threads - w * WARP_SIZE);
            let recs = by_warp.get(&(c, w as u16)).unwrap_or(&empty);
            let anchors = anchors(recs, f, cx.records_file, exist, &local)?;
            let mut wt = WarpTrace {
                warp_id: w,
                ..Default::default()
            };
            build_warp(
                &mut wt,
                &anchors,
                exist,
                &mut finder,
                &mut emit,
                cx,
                &mut stats,
            )?;
            stats.insts += wt.insts.len() as u64;
            warps.push(wt);
        }
        stats.warps += nwarps as u64;
        ctas.push(CtaTrace {
            id: k.grid.from_linear(c as u64),
            warps,
        });
    }
    Ok((KernelTrace { info, ops, ctas }, stats))
}

fn low_lanes(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// Registers per thread: the highest register named + 2 (64-bit pairs), rounded up to 8.
pub(crate) fn nregs(f: &SassFunction) -> u32 {
    let top = f
        .insts
        .iter()
        .flat_map(|i| i.dst.iter().chain(i.src.iter()))
        .filter(|&&r| r < UR_BASE)
        .max()
        .map_or(0, |&r| r as u32 + 2);
    top.div_ceil(8).max(1) * 8
}

/// Groups one warp's records into recorded points.
fn anchors(
    recs: &[(u64, &Record)],
    f: &SassFunction,
    file: &str,
    exist: u32,
    local: &LocalLayout,
) -> Result<Vec<Anchor>> {
    let mut out: Vec<Anchor> = Vec::new();
    for &(no, r) in recs {
        let pc = u32::try_from(r.pc).ok();
        let idx = pc.and_then(|pc| f.index.get(&pc).copied()).ok_or_else(|| {
            record_err(
                file,
                no,
                "pc",
                format!(
                    "0x{:x} is not an instruction of {} in the SASS",
                    r.pc, f.name
                ),
            )
        })?;
        let inst = &f.insts[idx];
        match r.kind {
            Kind::BlockEnter => continue,
            Kind::Mem => {
                if !inst.is_recorded() {
                    return Err(record_err(
                        file,
                        no,
                        "pc",
                        format!(
                            "memory record at 0x{:x}, but the SASS has {} there (expected a memory instruction)",
                            r.pc, inst.op
                        ),
                    ));
                }
                let bit = 1u32 << r.lane;
                if bit & exist == 0 {
                    return Err(record_err(
                        file,
                        no,
                        "lane",
                        format!(
                            "lane {} does not exist in this warp (mask {exist:08x})",
                            r.lane
                        ),
                    ));
                }
                if let Some(a) = out.last_mut() {
                    if a.kind == Kind::Mem && a.idx == idx && a.mask & bit == 0 {
                        a.mask |= bit;
                        let at = a.addrs.partition_point(|&(l, _)| l < r.lane);
                        a.addrs.insert(at, (r.lane, address(r, local)));
                        a.size = a.size.max(r.size);
                        continue;
                    }
                }
                out.push(Anchor {
                    idx,
                    mask: bit,
                    kind: Kind::Mem,
                    addrs: vec![(r.lane, address(r, local))],
                    size: r.size,
                    record: no,
                });
            }
            Kind::Barrier | Kind::BlockExit => {
                if r.kind == Kind::BlockExit && !inst.is_exit() {
                    return Err(record_err(
                        file,
                        no,
                        "pc",
                        format!(
                            "exit record at 0x{:x}, but the SASS has {} there (expected EXIT)",
                            r.pc, inst.op
                        ),
                    ));
                }
                out.push(Anchor {
                    idx,
                    mask: r.mask & exist,
                    kind: r.kind,
                    addrs: Vec::new(),
                    size: 0,
                    record: no,
                });
            }
        }
    }
    Ok(out)
}

fn address(r: &Record, local: &LocalLayout) -> u64 {
    match r.space() {
        Space::Global => r.addr,
        Space::Shared => SHMEM_BASE + r.addr,
        Space::Local => local.address(r),
    }
}

/// Where a thread's local memory lies, as the hardware lays it out. The tracer sees each
/// thread's own window: every thread of a kernel stores its spilled `R7` at the same offset
/// (the stack grows down from the window's top). The hardware interleaves local memory by
/// 32-bit words across a warp's lanes, so one STL of one offset by a whole warp writes 128
/// consecutive bytes, and each warp has a region of its own (32 x the thread's frame).
/// Imported as it was recorded, every lane of every warp on every SM would hit one sector.
#[derive(Clone, Copy, Debug)]
pub struct LocalLayout {
    /// Lowest recorded offset, 16-byte aligned: the frame's bottom.
    lo: u64,
    /// Bytes per thread (highest offset reached - `lo`, 16-byte aligned).
    frame: u64,
    /// Warp regions that fit the local window; warp `g` uses region `g % slots` (the card
    /// reuses a resident slot's local memory for the next CTA in the same way).
    slots: u64,
    warps_per_cta: u64,
}

impl LocalLayout {
    pub fn of(k: &KernelRecords) -> Self {
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for r in &k.records {
            if r.kind == Kind::Mem && r.space() == Space::Local {
                lo = lo.min(r.addr);
                hi = hi.max(r.addr + r.size.max(1) as u64);
            }
        }
        let lo = if lo == u64::MAX { 0 } else { lo & !15 };
        let frame = (hi.saturating_sub(lo)).div_ceil(16).max(1) * 16;
        LocalLayout {
            lo,
            frame,
            slots: (GENERIC_WINDOW_BYTES / (32 * frame)).max(1),
            warps_per_cta: k.block.count().div_ceil(32).max(1),
        }
    }

    /// A layout of `frame` bytes per thread from window offset `lo`, for CTAs of
    /// `warps_per_cta` warps (the executor's, which knows the frame from the listing).
    pub fn new(lo: u64, frame: u64, warps_per_cta: u64) -> Self {
        let frame = frame.div_ceil(16).max(1) * 16;
        LocalLayout {
            lo,
            frame,
            slots: (GENERIC_WINDOW_BYTES / (32 * frame)).max(1),
            warps_per_cta: warps_per_cta.max(1),
        }
    }

    /// Bytes of one thread's frame.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// The interleaved address of lane `r.lane` of warp `r.warp` of CTA `r.cta` at its
    /// window offset `r.addr`: word `w` of the frame is at `w * 128 + lane * 4`.
    pub fn address(&self, r: &Record) -> u64 {
        let rel = r.addr.saturating_sub(self.lo);
        self.at(r.cta as u64, r.warp as u64, r.lane as u64, rel)
    }

    /// The interleaved address of byte `rel` of the frame of lane `lane` of warp `warp` of
    /// the CTA `cta` places in the grid (its linear index).
    pub fn at(&self, cta: u64, warp: u64, lane: u64, rel: u64) -> u64 {
        let region = (cta * self.warps_per_cta + warp) % self.slots;
        LOCAL_BASE + region * 32 * self.frame + (rel / 4) * 128 + lane * 4 + rel % 4
    }

    /// The inverse of [`LocalLayout::at`] on an address it gave: the warp region, the lane
    /// and the byte of the frame; `None` outside the local window.
    pub fn locate(&self, addr: u64) -> Option<LocalPlace> {
        let a = addr.checked_sub(LOCAL_BASE)?;
        let region_bytes = 32 * self.frame;
        if a >= self.slots * region_bytes {
            return None;
        }
        let within = a % region_bytes;
        Some(LocalPlace {
            region: a / region_bytes,
            lane: (within % 128) / 4,
            rel: (within / 128) * 4 + within % 4,
        })
    }
}

/// Where a laid-out local address points ([`LocalLayout::locate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalPlace {
    /// The warp's region: its linear index in the grid, modulo the regions that fit.
    pub region: u64,
    pub lane: u64,
    /// The byte of the thread's frame.
    pub rel: u64,
}

fn build_warp(
    wt: &mut WarpTrace,
    anchors: &[Anchor],
    exist: u32,
    finder: &mut PathFinder,
    emit: &mut Emit,
    cx: &KernelCtx,
    stats: &mut KernelStats,
) -> Result<()> {
    let f = cx.func;
    let mut live = exist;
    let mut at: Option<usize> = None;
    for a in anchors {
        if live == 0 {
            return Err(record_err(
                cx.records_file,
                a.record,
                "kind",
                format!(
                    "{} record after every lane of the warp exited",
                    kind_name(a.kind)
                ),
            ));
        }
        let path = finder.find(at, a.idx).ok_or_else(|| {
            record_err(
                cx.records_file,
                a.record,
                "pc",
                format!(
                    "no SASS path of {} from {} to 0x{:x} that passes no unrecorded memory instruction",
                    f.name,
                    at.map_or("the entry".to_string(), |i| format!("0x{:x}", f.insts[i].pc)),
                    f.insts[a.idx].pc
                ),
            )
        })?;
        stats.ambiguous += path.ambiguous as u64;
        for &i in &path.insts {
            emit.filler(wt, i, live);
        }
        emit.push(wt, a.idx, a.mask, a.size as u16, &a.addrs);
        stats.recorded += 1;
        if a.kind == Kind::BlockExit {
            live &= !a.mask;
            if live != 0 && !f.insts[a.idx].predicated {
                // Diverged: some lanes left at an unconditional EXIT, the others go on from
                // where the warp was before it (the path to it is not replayed; counted).
                stats.ambiguous += 1;
                continue;
            }
        }
        at = Some(a.idx);
    }
    if live != 0 {
        let (path, e) =
            finder.to_exit(at).ok_or_else(|| {
                Error::other(format!(
                "{}: kernel {}: a warp's lanes {live:08x} never exit: no path from {} to an EXIT",
                cx.records_file,
                cx.name,
                at.map_or("the entry".to_string(), |i| format!("0x{:x}", f.insts[i].pc))
            ))
            })?;
        stats.ambiguous += path.ambiguous as u64;
        stats.synthesized_exits += 1;
        for &i in &path.insts {
            emit.filler(wt, i, live);
        }
        emit.push(wt, e, live, 0, &[]);
    }
    Ok(())
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Mem => "memory",
        Kind::BlockEnter => "enter",
        Kind::BlockExit => "exit",
        Kind::Barrier => "barrier",
    }
}

/// Appends instructions of one function to warps, interning opcodes for its architecture.
struct Emit<'a> {
    f: &'a SassFunction,
    ops: &'a mut OpTable,
    arch: Arch,
}

impl Emit<'_> {
    /// An instruction between recorded points: live lanes, or none where no lane can have
    /// run it.
    fn filler(&mut self, wt: &mut WarpTrace, i: usize, live: u32) {
        let s = &self.f.insts[i];
        let mask = if s.never || (s.predicated && (s.is_exit() || s.is_recorded())) {
            0
        } else {
            live
        };
        self.push(wt, i, mask, 0, &[]);
    }

    fn push(&mut self, wt: &mut WarpTrace, i: usize, mask: u32, width: u16, addrs: &[(u8, u64)]) {
        let s = &self.f.insts[i];
        let arch = self.arch;
        let mut t = TraceInst {
            pc: s.pc,
            mask,
            op: self.ops.intern_with(&s.op, |n| classify(arch, n)),
            ndst: s.dst.len().min(MAX_DST) as u8,
            nsrc: s.src.len().min(MAX_SRC) as u8,
            mem_width: if addrs.is_empty() { 0 } else { width },
            addr_start: wt.addrs.len() as u32,
            ctrl: s.ctrl,
            ..Default::default()
        };
        for (k, &r) in s.dst.iter().take(MAX_DST).enumerate() {
            t.dst[k] = r;
        }
        for (k, &r) in s.src.iter().take(MAX_SRC).enumerate() {
            t.src[k] = r;
        }
        let start = wt.addrs.len();
        wt.addrs.extend(addrs.iter().map(|&(_, a)| a));
        if t.mem_width > 0 {
            t.shape = AddrShape::of(&wt.addrs[start..]);
        }
        wt.insts.push(t);
    }
}
