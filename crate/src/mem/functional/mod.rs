//! The functional memory mode (`memory`): no timing, only what each access does to the caches
//! (seed 004; scheduling as PPT-GPU-Mem does it).
//!
//! ```text
//!  kernel CTAs ──round robin──> SM i % num_sms, at most MaxActBlk (Eq. 3, after the Eq. 7
//!                               carve-out) active per SM; the warps of the active CTAs take
//!                               turns one memory instruction at a time; SMs take turns too
//!  memory instruction ──coalesce──> line requests ──> L1D (hits stop here)
//!                                                   └─> L2 slice (address map) ──> DRAM counts
//!  beside it: reuse distances of the same streams -> SDCM prediction (Equations 1-2)
//! ```
//! Memory stays bounded however long the trace: CTAs are pulled from the stream only as SMs
//! need them (at most twice the resident CTAs are held) and freed when done; per-PC counts
//! are one small map; the reuse profiles remember a bounded window of lines
//! (`REUSE_BUDGET`, `mem::reuse::window_for`).

pub mod hier;
pub mod memo;
pub mod report;
mod tally;

use std::collections::VecDeque;

use crate::config::GpuConfig;
use crate::mem::carveout;
use crate::mem::coalesce::{access_kind, bypasses_l1};
use crate::mem::iface::AccessKind;
use crate::mem::reuse::{window_for, ReuseProfile, SdcmReport};
use crate::trace::check;
use crate::trace::packed::{pack_above, PackedCta, Packer};
use crate::trace::{Command, KernelStream, MemSpace, OpTable, TraceSource};
use crate::{Error, Result};
pub use hier::FuncMem;
pub use report::{FunctionalReport, KernelMemReport, LevelReport, PcReport, SharedReport};
use tally::Tally;

/// What the functional mode needs to know about an opcode.
#[derive(Clone, Copy, Debug)]
struct MemOp {
    space: MemSpace,
    kind: AccessKind,
    bypass: bool,
}

struct ActiveCta {
    cta: PackedCta,
    cursor: Vec<u32>,
    live: u32,
}

#[derive(Default)]
struct SmSched {
    slots: Vec<Option<ActiveCta>>,
    warps: Vec<(u32, u32)>,
    rr: usize,
    pending: VecDeque<PackedCta>,
}

/// Runs every kernel of `src` through the functional memory hierarchy, with the SDCM
/// (reuse-distance) baseline beside it.
pub fn run(cfg: &GpuConfig, src: &mut dyn TraceSource) -> Result<FunctionalReport> {
    run_with(cfg, src, true)
}

/// As [`run`]; `full = false` skips the reuse-distance profiles and the shared-memory
/// bank-conflict counts (the analytical memory model's pre-pass needs only the per-PC hit
/// counts; its SDCM and shared figures are then zero). Cache hit counts are the same.
pub fn run_with(
    cfg: &GpuConfig,
    src: &mut dyn TraceSource,
    full: bool,
) -> Result<FunctionalReport> {
    let first = if src.kernel_count() > 0 {
        carveout::choose(cfg, src.kernel_info(0))
    } else {
        carveout::Carveout::default()
    };
    let mut fm = FuncMem::new(cfg, first.l1_kb as u64 * 1024)?;
    let mut cmds = src.commands().to_vec();
    if cmds.is_empty() {
        cmds = (0..src.kernel_count())
            .map(|index| Command::Kernel { index })
            .collect();
    }
    let mut rep = FunctionalReport {
        trace: src.name().to_string(),
        gpu: cfg.gpu.id.clone(),
        kernels: Vec::new(),
        warnings: Vec::new(),
    };
    for c in cmds {
        match c {
            Command::MemcpyHtoD { addr, bytes } => {
                if cfg.l2.warm_from_memcpy {
                    fm.warm(addr, bytes);
                }
            }
            Command::Kernel { index } => {
                if index >= src.kernel_count() {
                    return Err(Error::parse(
                        src.name(),
                        0,
                        "kernelslist",
                        format!("kernel index {index} out of range"),
                    ));
                }
                let trace_name = src.name().to_string();
                let mut stream = src.open_kernel(index)?;
                let total = stream.info().grid.count();
                let k = run_kernel(cfg, &mut fm, &mut *stream, &trace_name, full)?.0;
                // A reader refuses a kernel with CTAs missing unless told to run the rest.
                let w = (k.ctas < total).then(|| check::partial_warning(&k.name, k.ctas, total));
                if let Some(w) = w.filter(|w| !rep.warnings.contains(w)) {
                    rep.warnings.push(w);
                }
                rep.kernels.push(k);
            }
        }
    }
    Ok(rep)
}

struct KernelRun<'a> {
    cfg: &'a GpuConfig,
    ops: Vec<Option<MemOp>>,
    sms: Vec<SmSched>,
    max_active: usize,
    pulled: u64,
    /// CTA traces held now (active or waiting for their SM), and the most ever held.
    held: usize,
    peak_held: usize,
    /// Long CTAs are held packed (`trace::packed`, above `pack_above` warp instructions);
    /// finished ones' buffers are reused.
    packer: Packer,
    pack_above: u64,
    /// The stream hands out memory instructions only (`KernelStream::keep_only`); else
    /// `next_cta` drops the others before a CTA is held.
    filtered: bool,
    spare: Vec<PackedCta>,
    exhausted: bool,
    /// What the accesses did (counts, caches' side: `tally`).
    t: Tally<'a>,
    /// A packed warp's lane addresses, expanded from their shape.
    buf: [u64; 32],
    trace: &'a str,
}

impl KernelRun<'_> {
    fn sync_ops(&mut self, t: &OpTable) {
        for (id, info) in t.iter().skip(self.ops.len()) {
            debug_assert_eq!(id.0 as usize, self.ops.len());
            self.ops.push(info.is_mem().then(|| MemOp {
                space: info.space,
                kind: access_kind(info.kind),
                bypass: bypasses_l1(info, &self.cfg.l1d),
            }));
        }
    }

    /// The next CTA for `sm` (CTA i goes to SM i % n).
    fn next_cta(&mut self, sm: usize, stream: &mut dyn KernelStream) -> Result<Option<PackedCta>> {
        loop {
            if let Some(c) = self.sms[sm].pending.pop_front() {
                return Ok(Some(c));
            }
            if self.exhausted {
                return Ok(None);
            }
            match stream.next_cta()? {
                Some(mut c) => {
                    self.sync_ops(stream.ops());
                    if !self.filtered {
                        // (`step` would skip them; the addresses stay where they are.)
                        let ops = &self.ops;
                        for w in &mut c.warps {
                            w.insts
                                .retain(|i| ops.get(i.op.0 as usize).copied().flatten().is_some());
                        }
                    }
                    let to = (self.pulled % self.sms.len() as u64) as usize;
                    self.pulled += 1;
                    self.held += 1;
                    self.peak_held = self.peak_held.max(self.held);
                    let mut p = self.spare.pop().unwrap_or_default();
                    p.pack(c, &mut self.packer, self.pack_above);
                    self.sms[to].pending.push_back(p);
                }
                None => self.exhausted = true,
            }
        }
    }

    /// Fills free CTA slots of `sm`; false when it has nothing left to run.
    fn activate(&mut self, sm: usize, stream: &mut dyn KernelStream) -> Result<bool> {
        for slot in 0..self.max_active {
            if self.sms[sm].slots.len() <= slot {
                self.sms[sm].slots.push(None);
            }
            if self.sms[sm].slots[slot].is_some() {
                continue;
            }
            let Some(cta) = self.next_cta(sm, stream)? else {
                break;
            };
            let n = cta.len() as u32;
            let s = &mut self.sms[sm];
            for w in 0..n {
                s.warps.push((slot as u32, w));
            }
            s.slots[slot] = Some(ActiveCta {
                cursor: vec![0; n as usize],
                live: n,
                cta,
            });
        }
        Ok(!self.sms[sm].warps.is_empty())
    }

    /// Issues one memory instruction on `sm`; false when the SM is done.
    fn step(&mut self, sm: usize, fm: &mut FuncMem, stream: &mut dyn KernelStream) -> Result<bool> {
        loop {
            if self.sms[sm].warps.is_empty() && !self.activate(sm, stream)? {
                return Ok(false);
            }
            let s = &mut self.sms[sm];
            if s.rr >= s.warps.len() {
                s.rr = 0;
            }
            let (slot, w) = s.warps[s.rr];
            let a = s.slots[slot as usize]
                .as_mut()
                .expect("live warp has a CTA");
            let wt = a.cta.warp(w as usize);
            let cur = a.cursor[w as usize] as usize;
            let found = (cur.min(wt.len())..wt.len()).find(|&i| {
                let op = wt.inst(i).op.0 as usize;
                self.ops.get(op).copied().flatten().is_some()
            });
            match found {
                Some(i) => {
                    a.cursor[w as usize] = i as u32 + 1;
                    s.rr += 1;
                    // Split borrows: take what the access needs, then process.
                    let inst = *wt.inst(i);
                    let n = inst.mask.count_ones() as usize;
                    let addrs = wt.addrs(i, &mut self.buf);
                    if inst.mem_width == 0 {
                        // No addresses traced: no access (as the timing model's coalescer).
                        return Ok(true);
                    }
                    if addrs.len() < n {
                        return Err(Error::parse(
                            self.trace,
                            0,
                            "addresses",
                            format!(
                                "warp {} pc {:#x}: {} addresses expected, trace has fewer",
                                w, inst.pc, n
                            ),
                        ));
                    }
                    let op = self.ops[inst.op.0 as usize].expect("memory op");
                    self.t.process(sm, fm, op, &inst, &addrs[..n]);
                    return Ok(true);
                }
                None => {
                    let r = s.rr;
                    s.warps.remove(r);
                    a.live -= 1;
                    if a.live == 0 {
                        // A packed CTA's buffers are kept for the next one; a decoded one's go
                        // back to the stream's decoder (`KernelStream::recycle`).
                        match s.slots[slot as usize].take() {
                            Some(done) if done.cta.is_packed() => self.spare.push(done.cta),
                            Some(done) => stream.recycle(done.cta),
                            None => {}
                        }
                        self.held -= 1;
                        self.activate(sm, stream)?;
                    }
                }
            }
        }
    }
}

/// Lines the reuse-distance profiles of one level remember at most (the L1 profiles of all
/// SMs together, and the L2's): about 60 B each, so the SDCM baseline stays under ~130 MB
/// however long the trace. Equation 1 needs no more for the L2s of the presets (titanv
/// 0.67 M, rtx2080ti 1.26 M, cut to 1 M where P(h|D) < 1e-20). A 4-way L1 needs distances
/// up to ~20x its lines (80 K per SM on titanv); cut to 1 M / num_sms (13 K), a reuse at a
/// longer distance counts as a miss though Equation 1 gives it P(h|D) <= 0.2% (4 ways,
/// 4096 sectors), so the SDCM L1 rate can read up to 0.002 low on such kernels. Below the
/// cut (every sample trace) the rates are those of an unbounded profile.
const REUSE_BUDGET: usize = 1 << 20;

/// One kernel; also returns the most CTA traces held at once (active or waiting).
fn run_kernel(
    cfg: &GpuConfig,
    fm: &mut FuncMem,
    stream: &mut dyn KernelStream,
    trace: &str,
    full: bool,
) -> Result<(KernelMemReport, usize)> {
    let info = stream.info().clone();
    let co = carveout::choose(cfg, &info);
    fm.resize_l1(cfg, co.l1_kb as u64 * 1024)?;
    for c in &mut fm.l2 {
        c.stats = Default::default();
    }
    fm.dram_reads = 0;
    fm.dram_writes = 0;
    fm.global_loads = 0;
    fm.global_load_hits = 0;
    fm.atomics = 0;
    fm.per_pc.clear();
    let n = fm.l1.len();
    // Reuse windows: where Equation 1 stops predicting hits, within a budget of lines
    // remembered per level (see `REUSE_BUDGET`).
    let l1c = &cfg.l1d.cache;
    let l1_blocks = co.l1_kb as u64 * 1024 / l1c.sector_bytes.max(1) as u64;
    let l2_blocks = fm.l2.iter().map(|c| c.capacity_bytes()).sum::<u64>()
        / cfg.l2.cache.sector_bytes.max(1) as u64;
    let (w1, w2) = if full {
        (
            window_for(l1c.assoc as u64, l1_blocks).min(REUSE_BUDGET / n.max(1)),
            window_for(cfg.l2.cache.assoc as u64, l2_blocks).min(REUSE_BUDGET),
        )
    } else {
        (1, 1)
    };
    let mut kr = KernelRun {
        cfg,
        ops: Vec::new(),
        sms: (0..n).map(|_| SmSched::default()).collect(),
        max_active: co.max_active_ctas.max(1) as usize,
        pulled: 0,
        held: 0,
        peak_held: 0,
        packer: Packer::default(),
        // At most twice the resident CTAs are held (see the module docs).
        pack_above: pack_above(
            (2 * n as u64 * co.max_active_ctas.max(1) as u64).min(info.grid.count()),
        ),
        spare: Vec::new(),
        filtered: false,
        exhausted: false,
        t: Tally {
            cfg,
            lines: Vec::with_capacity(64),
            memo: memo::Memo::default(),
            shmem: memo::ShmemMemo::new(cfg.shmem.banks, cfg.shmem.bank_width_bytes),
            shared: SharedReport::default(),
            mem_insts: 0,
            requests: 0,
            sectors: 0,
            reuse_l1: vec![ReuseProfile::with_window(w1); n],
            reuse_l2: ReuseProfile::with_window(w2),
            shmem_lo: if info.shmem_base != 0 {
                info.shmem_base
            } else {
                u64::MAX
            },
            shmem_hi: info.shmem_base.saturating_add(1 << 24),
            full,
        },
        buf: [0; 32],
        trace,
    };
    kr.sync_ops(stream.ops());
    // Only memory instructions matter here: a stream that can drop the others while it
    // decodes (compact files) does; `step` skips them anyway where it cannot.
    let keep: Vec<bool> = kr.ops.iter().map(|o| o.is_some()).collect();
    kr.filtered = stream.keep_only(&keep);
    let mut busy = vec![true; n];
    let mut live = n;
    while live > 0 {
        for (sm, b) in busy.iter_mut().enumerate() {
            if *b && !kr.step(sm, fm, stream)? {
                *b = false;
                live -= 1;
            }
        }
    }
    fm.end_kernel(cfg.l2.flush_at_kernel_end);
    // SDCM baseline.
    let mut hits = 0.0;
    let mut total = 0u64;
    for r in &kr.t.reuse_l1 {
        let a = r.accesses();
        hits += r.hit_rate(l1c.assoc as u64, l1_blocks) * a as f64;
        total += a;
    }
    let sdcm = SdcmReport {
        l1_hit_rate: if total == 0 { 0.0 } else { hits / total as f64 },
        l2_hit_rate: kr.t.reuse_l2.hit_rate(cfg.l2.cache.assoc as u64, l2_blocks),
    };
    let mut per_pc: Vec<PcReport> = fm
        .per_pc
        .iter()
        .map(|(pc, c)| PcReport::new(pc, c.requests, c.l1_hits, c.l2_hits, c.dram))
        .collect();
    per_pc.sort_unstable_by_key(|p| p.pc);
    let l1 = fm.l1_stats();
    let mi = kr.t.mem_insts.max(1) as f64;
    let report = KernelMemReport {
        name: info.name.clone(),
        id: info.id,
        ctas: kr.pulled,
        carveout: co,
        mem_instructions: kr.t.mem_insts,
        requests: kr.t.requests,
        sectors: kr.t.sectors,
        sectors_per_instruction: if kr.t.mem_insts == 0 {
            0.0
        } else {
            kr.t.sectors as f64 / mi
        },
        requests_per_instruction: if kr.t.mem_insts == 0 {
            0.0
        } else {
            kr.t.requests as f64 / mi
        },
        l1: LevelReport::from(&l1),
        l1_global_load_hit_rate: crate::mem::cache::ratio(fm.global_load_hits, fm.global_loads),
        constant: LevelReport::from(&fm.const_stats()),
        l2: LevelReport::from(&fm.l2_stats()),
        dram_read_sectors: fm.dram_reads,
        dram_write_sectors: fm.dram_writes,
        counters: crate::stats::NcuCounters::from_caches(
            None,
            None,
            &l1,
            &fm.l2_stats(),
            (fm.dram_reads, fm.dram_writes),
        ),
        atomics: fm.atomics,
        shared: kr.t.shared,
        per_pc,
        sdcm,
    };
    Ok((report, kr.peak_held))
}

#[cfg(test)]
mod tests;
