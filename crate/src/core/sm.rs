//! The SM: owns its sub-cores, warps, CTA slots, L1I, memory pipelines and memory side, and
//! steps them once per core cycle.
//!
//! ```text
//!  step(now): memory responses ─> ALU write-backs ─> memory write-back latches
//!             ─> request arbiter ─> coalescers ─> latches
//!             ─> per sub-core: operand read, dispatch, issue, decode, fetch
//!             ─> L1I arbiter ─> finished warps / CTAs
//! ```

use super::barrier;
use super::ctx::{KernelCtx, StepCtx, NUM_UNITS};
use super::decode::group_limit;
use super::exec::pool_next_event;
use super::fetch::{l1i_arbiter, FetchParams};
use super::ibuffer::IBuffer;
use super::icache::ICache;
use super::ldst::{CoalesceParams, MemPipe};
use super::mem_port::SmMem;
use super::subcore::SubCore;
use super::warp::{CtaSlot, SlotBits, Warp, WarpCheck};

mod pipes;
use crate::config::GpuConfig;
use crate::mem::NocPacket;
use crate::stats::{KernelCounters, PcStat, SmStats, StallKind};
use crate::trace::{PackedCta, TraceInst};
use crate::Cycle;

/// The SM-wide settings, resolved once from the config.
#[derive(Clone, Debug)]
pub struct SmParams {
    pub subcores: usize,
    pub max_warps: usize,
    pub max_threads: u32,
    pub max_ctas: usize,
    pub registers: u32,
    pub shmem_bytes: u32,
    pub concurrent_kernels: bool,
    pub issue_width: u32,
    /// Multi-issue takes the extra instructions from other warps (seed 003), not the same one.
    pub issue_other_warps: bool,
    pub war_check: bool,
    pub subcore_mem: bool,
    pub dp_shared: bool,
    pub fetch: FetchParams,
    pub group_limit: u32,
    pub ibuffer: u32,
    pub inst_bytes: u32,
    pub mem_dispatch_latency: u32,
    pub coalesce_per_cycle: u32,
    pub coalesce: CoalesceParams,
    pub l1d_banks: usize,
    /// `model.alu = analytical`: ALU instructions skip collectors, bank ports and the result
    /// bus (`crate::analytic::alu`). Set by the engine from the `ModelChoice`.
    pub analytic_alu: bool,
    /// `model.frontend = analytical`: the event-driven front end (`core::event`) replaces
    /// fetch, decode, scoreboard, scheduler and collectors. Set by the engine.
    pub analytic_frontend: bool,
    /// `core.model = "modern"` (`core::modern`): control bits, no operand collectors, the
    /// register read window and the register-file cache.
    pub modern: bool,
    /// Modern core with per-sub-core pipelines and `mem_pipeline.subcore_unit`: memory
    /// instructions paced by `core::modern::MemUnit`.
    pub mem_unit: bool,
}

impl SmParams {
    pub fn from_cfg(cfg: &GpuConfig) -> Self {
        SmParams {
            subcores: cfg.sm.subcores.max(1) as usize,
            max_warps: cfg.sm.max_warps.max(1) as usize,
            max_threads: cfg.sm.max_threads,
            max_ctas: cfg.sm.max_ctas.max(1) as usize,
            registers: cfg.sm.registers,
            shmem_bytes: cfg.shmem.max_per_sm_kb * 1024,
            concurrent_kernels: cfg.sm.concurrent_kernels,
            issue_width: cfg.scheduler.issue_width.max(1),
            issue_other_warps: cfg.scheduler.multi_issue == crate::config::MultiIssue::OtherWarps,
            war_check: cfg.features.war_check,
            subcore_mem: cfg.features.subcore_mem_pipeline,
            dp_shared: cfg.units.dp.shared,
            fetch: FetchParams {
                width: cfg.frontend.fetch_width.max(1),
                inst_bytes: cfg.frontend.inst_bytes.max(1),
                subcore: cfg.features.subcore_frontend,
                miss_penalty: cfg.frontend.l1i_miss_latency,
                greedy: cfg.core.model == crate::config::CoreModel::Modern,
                taken_branch_delay: if cfg.features.subcore_frontend {
                    cfg.frontend.taken_branch_delay
                } else {
                    0
                },
            },
            group_limit: group_limit(&cfg.frontend),
            ibuffer: cfg.frontend.ibuffer_size.max(1),
            inst_bytes: cfg.frontend.inst_bytes.max(1),
            mem_dispatch_latency: cfg.mem_pipeline.dispatch_latency,
            coalesce_per_cycle: cfg.mem_pipeline.coalesce_threads_per_cycle.max(1),
            coalesce: CoalesceParams {
                line_bytes: cfg.l1d.cache.line_bytes.max(1) as u64,
                sector_bytes: cfg.l1d.cache.sector_bytes.max(1) as u64,
                const_line_bytes: cfg.const_cache.line_bytes.max(1) as u64,
                shmem_banks: cfg.shmem.banks.max(1) as u64,
                shmem_bank_bytes: cfg.shmem.bank_width_bytes.max(1) as u64,
            },
            l1d_banks: cfg.l1d.banks.clamp(1, 64) as usize,
            analytic_alu: false,
            modern: cfg.core.model == crate::config::CoreModel::Modern,
            mem_unit: cfg.core.model == crate::config::CoreModel::Modern
                && cfg.features.subcore_mem_pipeline
                && cfg.mem_pipeline.subcore_unit,
            analytic_frontend: false,
        }
    }
}

/// One issued instruction, recorded when the issue log is enabled (tests, timeline).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IssueEvent {
    pub cycle: Cycle,
    pub subcore: u8,
    pub warp: u16,
    pub pc: u32,
}

/// Resources held by resident CTAs.
#[derive(Clone, Debug, Default)]
struct Used {
    threads: u32,
    warps: u32,
    ctas: u32,
    regs: u32,
    shmem: u32,
    /// Resident CTAs per kernel launch.
    per_kernel: Vec<u32>,
}

/// The SM state every sub-core may touch (split from the sub-cores so both can be borrowed).
#[derive(Clone, Debug)]
pub struct SmShared {
    pub p: SmParams,
    pub warps: Vec<Warp>,
    pub ctas: Vec<CtaSlot>,
    pub l1i: ICache,
    l1i_rr: usize,
    pub pipes: Vec<MemPipe>,
    mem_rr: usize,
    pub mem: SmMem,
    /// FP64 pipelines shared by the SM (`units.dp.shared`).
    pub dp_pool: Vec<Cycle>,
    pub stats: SmStats,
    pub issue_log: Option<Vec<IssueEvent>>,
    maybe_done: Vec<u16>,
    /// Kernel launch of each CTA finished since the engine last looked.
    pub done_ctas: Vec<u32>,
    /// Traces of the CTAs finished since the engine last fed the block scheduler: it hands
    /// them back to the stream, whose decoder reuses their buffers (`KernelStream::recycle`).
    pub spent: Vec<PackedCta>,
    pub outbox: Vec<NocPacket>,
    /// Event front end: warps to (re-)evaluate and the earliest cycle they may issue (memory
    /// completions, barrier releases, launches).
    pub ev_wake: Vec<(u16, Cycle)>,
    /// Per sub-core: issue cycles `fast`'s run-ahead counted before they came
    /// (`core::event_ahead`); the next accounted cycles pay them back.
    pub ahead_debt: Vec<u64>,
    /// Warps whose issue-check inputs may have changed since the issue stage cached their
    /// check in `wchk` (set by [`SmShared::touch`] wherever a warp's state changes).
    pub chk_dirty: SlotBits,
    /// The warp-local issue check per slot, valid where `chk_dirty` is clear.
    pub wchk: Vec<WarpCheck>,
    /// The same for the fetch stage: `want_fetch` (`Warp::wants_fetch`) is valid where
    /// `fetch_dirty` is clear.
    pub fetch_dirty: SlotBits,
    pub want_fetch: SlotBits,
    used: Used,
    next_age: u64,
    /// Modern core: the cycle the SM's shared memory stage accepts its next instruction
    /// (`core::modern::MemUnit`).
    pub mem_unit_shared: Cycle,
    /// Scratch for a packed instruction's lane addresses (`PackedWarp::addrs`), kept here so
    /// it is not zeroed per instruction.
    pub lanes: [u64; 32],
}

impl SmShared {
    /// Instruction `idx` of warp slot `w`.
    #[inline(always)]
    pub fn inst(&self, w: usize, idx: u32) -> TraceInst {
        let wp = &self.warps[w];
        *self.ctas[wp.cta as usize]
            .trace
            .warp(wp.widx as usize)
            .inst(idx as usize)
    }

    /// Warp `w`'s state changed: the issue and fetch stages look at it again.
    #[inline]
    pub fn touch(&mut self, w: usize) {
        self.chk_dirty.set(w);
        self.fetch_dirty.set(w);
    }

    /// Every warp of CTA slot `c` (a barrier released them).
    pub fn touch_cta(&mut self, c: usize) {
        for &w in &self.ctas[c].warp_slots {
            self.chk_dirty.set(w as usize);
            self.fetch_dirty.set(w as usize);
        }
    }

    #[inline]
    pub fn note_maybe_done(&mut self, w: u16) {
        if self.warps[w as usize].finished() {
            self.maybe_done.push(w);
        }
    }

    /// Adds `n` cycles of `kind` to sub-core `s`'s stall stack and to the PC it blames.
    pub fn account_stall(&mut self, s: usize, kind: StallKind, pc: Option<(u32, u32)>, n: u64) {
        let d = &mut self.ahead_debt[s];
        let paid = (*d).min(n);
        *d -= paid;
        let n = n - paid;
        if n == 0 {
            return;
        }
        self.stats.subcores[s].stalls.add(kind, n);
        if let Some((k, slot)) = pc {
            if let Some(p) = self
                .stats
                .kernels
                .get_mut(k as usize)
                .and_then(|kc| kc.per_pc.get_mut(slot as usize))
            {
                p.stall_cycles += n;
            }
        }
    }

    /// Modern core: memory instruction `e` of pipeline `pipe` left the address latch, its
    /// register sources read: its read dependence counter (or, without control bits, its
    /// scoreboard reads) released.
    fn sources_read(&mut self, pipe: usize, e: usize) {
        let m = self.pipes[pipe].table[e];
        if let Some(s) = m.sbs.rd() {
            self.warps[m.warp as usize].cb.release(s);
        } else if m.sbs.wb().is_none() {
            let inst = self.inst(m.warp as usize, m.idx);
            if !inst.ctrl.present() {
                let w = &mut self.warps[m.warp as usize];
                for &r in inst.srcs() {
                    w.sb.read_done(r);
                }
            }
        }
        self.touch(m.warp as usize);
    }

    fn complete_mem(&mut self, now: Cycle, pipe: usize, e: usize) {
        let m = self.pipes[pipe].table[e];
        self.pipes[pipe].release(e);
        let w = &mut self.warps[m.warp as usize];
        if self.p.analytic_frontend {
            if m.writes_regs() {
                for &r in &m.dst[..m.ndst as usize] {
                    w.ev.complete(r, now);
                }
            }
            if w.ev.state == super::event::EvState::BlockedMem {
                self.ev_wake.push((m.warp, now));
            }
        } else {
            for &r in &m.dst[..m.ndst as usize] {
                if m.writes_regs() && w.sb.release(r) {
                    self.stats.subcores[m.subcore as usize].war_violations += 1;
                }
            }
            if let Some(s) = m.sbs.wb() {
                w.cb.release(s);
            }
        }
        w.inflight -= 1;
        w.mem_inflight -= 1;
        self.touch(m.warp as usize);
        self.note_maybe_done(m.warp);
    }
}

/// A streaming multiprocessor.
#[derive(Clone, Debug)]
pub struct Sm {
    pub id: u32,
    pub subcores: Vec<SubCore>,
    pub sh: SmShared,
    /// Earliest cycle the next CTA may be issued here (`cta_launch_latency`).
    pub cta_ready_at: Cycle,
    /// The timeline recorder of this SM (`None`: off, and free).
    pub recorder: Option<Box<crate::timeline::SmRecorder>>,
    /// Per-SM idle skipping (`features.skip_idle_cycles`): before this cycle nothing in the SM
    /// can change by itself, so `step` only replays the last cycle's stall accounting. Set from
    /// [`Sm::next_event`] after a step that changed nothing; reset by every input from outside
    /// (a CTA launch, a memory reply: [`Sm::wake_now`]).
    pub wake: Cycle,
    /// `wake` is the exact [`Sm::next_event`] of the SM's last step (the event front end,
    /// whose next event does not move while nothing from outside arrives): asked again before
    /// then, `next_event` answers `wake` without looking at the sub-cores and pipelines (the
    /// whole-GPU skip asks every SM each time it jumps).
    wake_exact: bool,
    /// Whether per-SM skipping is on (`features.skip_idle_cycles`).
    pub skip_idle: bool,
    /// Skipped cycles whose stall accounting is not yet added ([`Sm::skip`] defers it to the
    /// next real step or [`Sm::flush_idle`], so a sleeping SM costs a counter per cycle).
    idle_run: u64,
}

impl Sm {
    pub fn new(id: u32, cfg: &GpuConfig, mem: SmMem) -> Self {
        let p = SmParams::from_cfg(cfg);
        let u = &cfg.units;
        let counts = [
            u.int.count,
            u.sp.count,
            if u.dp.shared { 0 } else { u.dp.count },
            u.sfu.count,
            u.tensor.count,
            u.branch.count,
            u.uniform.count,
            u.mem.count,
        ];
        debug_assert_eq!(counts.len(), NUM_UNITS);
        let l = &cfg.latency;
        let horizon = [
            l.int, l.int_mul, l.fp32, l.fp16, l.dp, l.sfu, l.tensor, l.branch, l.uniform,
        ]
        .iter()
        .map(|t| t.latency)
        .max()
        .unwrap_or(4);
        let per_warp = p.max_warps.div_ceil(p.subcores);
        let subcores = (0..p.subcores)
            .map(|s| SubCore::new(s, cfg, counts, horizon, per_warp))
            .collect();
        let npipes = if p.subcore_mem { p.subcores } else { 1 };
        let baseline = !p.subcore_mem;
        let sh = SmShared {
            warps: vec![Warp::default(); p.max_warps],
            ctas: vec![CtaSlot::default(); p.max_ctas],
            l1i: ICache::new(&cfg.frontend.l1i),
            l1i_rr: 0,
            pipes: (0..npipes)
                .map(|_| {
                    let mut m = MemPipe::new(cfg.mem_pipeline.request_buffer, baseline);
                    if p.mem_unit {
                        m.dispatch_cap = super::modern::MEM_UNIT_SLOTS;
                    }
                    m
                })
                .collect(),
            mem_rr: 0,
            mem,
            dp_pool: if u.dp.shared {
                vec![0; u.dp.count as usize]
            } else {
                Vec::new()
            },
            stats: SmStats::new(p.subcores),
            issue_log: None,
            maybe_done: Vec::with_capacity(p.max_warps),
            done_ctas: Vec::with_capacity(p.max_ctas),
            spent: Vec::with_capacity(p.max_ctas),
            outbox: Vec::new(),
            ev_wake: Vec::with_capacity(p.max_warps),
            ahead_debt: vec![0; p.subcores],
            chk_dirty: SlotBits::new(p.max_warps, true),
            wchk: vec![WarpCheck::Skip; p.max_warps],
            fetch_dirty: SlotBits::new(p.max_warps, true),
            want_fetch: SlotBits::new(p.max_warps, false),
            used: Used::default(),
            next_age: 0,
            lanes: [0; 32],
            mem_unit_shared: 0,
            p,
        };
        Sm {
            id,
            subcores,
            sh,
            cta_ready_at: 0,
            recorder: None,
            wake: 0,
            wake_exact: false,
            skip_idle: cfg.features.skip_idle_cycles,
            idle_run: 0,
        }
    }

    /// Something from outside (a CTA, a memory reply) arrived: step on the next cycle.
    #[inline]
    pub fn wake_now(&mut self) {
        self.wake = 0;
        self.wake_exact = false;
    }

    /// Whether `step(now)` will do real work (false: it only replays stall accounting).
    #[inline]
    pub fn awake(&self, now: Cycle) -> bool {
        now >= self.wake
    }

    /// Records every issued instruction from now on (tests, teaching timeline).
    pub fn enable_issue_log(&mut self) {
        self.sh.issue_log = Some(Vec::new());
    }

    /// Number of resident CTAs.
    pub fn resident_ctas(&self) -> u32 {
        self.sh.used.ctas
    }

    /// Whether a CTA of `k` fits now (occupancy: threads, warps, CTAs, registers, shared memory).
    #[inline]
    pub fn can_launch(&self, k: &KernelCtx, now: Cycle) -> bool {
        let u = &self.sh.used;
        let p = &self.sh.p;
        let wpc = k.info.warps_per_cta();
        let threads = k.info.block.count() as u32;
        if now < self.cta_ready_at || u.ctas as usize >= p.max_ctas {
            return false;
        }
        let mine = u.per_kernel.get(k.launch as usize).copied().unwrap_or(0);
        // `u.ctas` is the sum of `per_kernel`: more than ours means another kernel's CTAs.
        if !p.concurrent_kernels && u.ctas > mine {
            return false;
        }
        mine < k.max_ctas_per_sm
            && u.warps + wpc <= p.max_warps as u32
            && u.threads + threads <= p.max_threads
            && u.regs + k.regs_per_warp * wpc <= p.registers
            && u.shmem + k.shmem_per_cta <= p.shmem_bytes
    }

    /// Makes `cta` resident. The caller checked [`Sm::can_launch`].
    pub fn launch_cta(
        &mut self,
        now: Cycle,
        k: &KernelCtx,
        cta: PackedCta,
        cta_latency: u32,
        cfg: &GpuConfig,
    ) {
        self.flush_idle(); // the skipped cycles had the old resident count
        let sh = &mut self.sh;
        let slot = sh
            .ctas
            .iter()
            .position(|c| !c.active)
            .expect("can_launch checked the CTA count");
        let wpc = k.info.warps_per_cta();
        let launch = k.launch as usize;
        if sh.used.per_kernel.len() <= launch {
            sh.used.per_kernel.resize(launch + 1, 0);
        }
        if sh.stats.kernels.len() <= launch {
            sh.stats
                .kernels
                .resize(launch + 1, KernelCounters::default());
        }
        if sh.stats.kernels[launch].per_pc.len() < k.pc_slots {
            sh.stats.kernels[launch]
                .per_pc
                .resize(k.pc_slots, PcStat::default());
        }
        if sh.used.per_kernel[launch] == 0 {
            sh.mem.begin_kernel(&k.info, cfg);
        }
        let threads = k.info.block.count() as u32;
        sh.used.threads += threads;
        sh.used.warps += wpc;
        sh.used.ctas += 1;
        sh.used.regs += k.regs_per_warp * wpc;
        sh.used.shmem += k.shmem_per_cta;
        sh.used.per_kernel[launch] += 1;
        let nwarps = cta.len();
        let mut c = CtaSlot {
            active: true,
            kernel: k.launch,
            warp_slots: std::mem::take(&mut sh.ctas[slot].warp_slots),
            live: nwarps as u16,
            bar_arrived: 0,
            threads,
            wpc,
            regs: k.regs_per_warp * wpc,
            shmem: k.shmem_per_cta,
            trace: cta,
        };
        c.warp_slots.clear();
        let mut free = (0..sh.warps.len()).filter(|&i| !sh.warps[i].active);
        for _ in 0..nwarps {
            let Some(ws) = free.next() else { break };
            c.warp_slots.push(ws as u16);
        }
        c.live = c.warp_slots.len() as u16;
        for (widx, &ws) in c.warp_slots.iter().enumerate() {
            let w = &mut sh.warps[ws as usize];
            w.active = true;
            w.cta = slot as u16;
            w.widx = widx as u16;
            w.kernel = k.launch;
            w.age = sh.next_age;
            sh.next_age += 1;
            w.n_insts = c.trace.warp(widx).len() as u32;
            w.ib = IBuffer::new(sh.p.ibuffer);
            w.fetch_hold = 0;
            w.fetch_at = 0;
            if !sh.p.analytic_frontend {
                // The event front end keeps no scoreboard (it stays as `Default` left it).
                w.sb.reset();
            }
            w.cb.reset();
            // A new warp in the slot: nothing the last one left in the register-file cache.
            self.subcores[ws as usize % sh.p.subcores]
                .rs
                .forget_warp(ws);
            w.inflight = 0;
            w.mem_inflight = 0;
            w.branch_pending = 0;
            w.at_barrier = false;
            w.fetching = false;
            w.launched_at = now;
            if sh.p.analytic_frontend {
                w.ev.launch(now);
                sh.ev_wake.push((ws, now));
            } else {
                // (The event front end keeps its own ready sets: only its policy is read.)
                self.subcores[ws as usize % sh.p.subcores].sched.add(ws);
            }
            sh.chk_dirty.set(ws as usize);
            sh.fetch_dirty.set(ws as usize);
            if w.finished() {
                sh.maybe_done.push(ws);
            }
        }
        sh.ctas[slot] = c;
        self.cta_ready_at = now + cta_latency as u64;
        self.wake_now();
    }

    /// Whether this cycle's `step` does more than idle accounting (resident CTAs, memory
    /// requests in flight or busy memory pipelines). The engine steps SMs in parallel only when
    /// enough of them have work.
    pub fn has_work(&self) -> bool {
        self.sh.used.ctas > 0
            || self.sh.mem.next_event().is_some()
            || !self.sh.pipes.iter().all(|p| p.is_idle())
    }

    /// One core cycle. Returns true when anything other than per-cycle stall accounting
    /// changed (so an idle-cycle skip is exact only when every SM returns false).
    ///
    /// Per-SM skipping: after a cycle that changed nothing, the SM sleeps until
    /// [`Sm::next_event`] (or an outside input, [`Sm::wake_now`]); the cycles in between would
    /// repeat that cycle exactly, so they only replay its stall accounting ([`Sm::skip`]).
    pub fn step(&mut self, now: Cycle, ctx: &StepCtx) -> bool {
        if now < self.wake {
            self.skip(1);
            return false;
        }
        if self.idle_run != 0 {
            self.flush_idle();
        }
        let ch = self.step_cycle(now, ctx);
        if self.recorder.is_some() {
            crate::timeline::capture(self, now, ctx);
        }
        // The event front end reports its exact next event even after a step that changed
        // something (its blocks have no hidden per-cycle state), so it may sleep at once.
        let exact = self.sh.p.analytic_frontend;
        let from_events = (exact || !ch) && self.skip_idle && self.recorder.is_none();
        self.wake = if from_events {
            self.next_event_now(now).unwrap_or(Cycle::MAX)
        } else {
            now + 1
        };
        self.wake_exact = from_events && exact;
        ch
    }

    fn step_cycle(&mut self, now: Cycle, ctx: &StepCtx) -> bool {
        let n = self.subcores.len();
        if !self.has_work() {
            for s in 0..n {
                self.subcores[s].last_stall = StallKind::Idle;
                self.subcores[s].last_stall_pc = None;
                self.sh.account_stall(s, StallKind::Idle, None, 1);
            }
            return false;
        }
        if self.sh.p.analytic_frontend {
            return self.step_events(now, ctx);
        }
        let mut ch = self.mem_responses(now);
        for sc in &mut self.subcores {
            sc.begin_cycle(now);
        }
        for sc in &mut self.subcores {
            ch |= sc.writeback(now, &mut self.sh);
        }
        ch |= self.mem_writeback(now);
        ch |= self.mem_pipes(now, ctx);
        let start = (now % n as u64) as usize;
        for k in 0..n {
            ch |= self.subcores[(start + k) % n].front_stages(now, &mut self.sh, ctx);
        }
        if self.sh.p.fetch.subcore {
            if let Some((_, hit)) = arbiter(now, &mut self.subcores, &mut self.sh) {
                if hit {
                    self.sh.stats.l1i_hits += 1;
                } else {
                    self.sh.stats.l1i_misses += 1;
                }
                ch = true;
            }
        }
        ch |= self.finish_warps();
        if self.sh.used.ctas > 0 {
            self.sh.stats.active_cycles += 1;
        }
        ch
    }

    /// Replays the last cycle's per-cycle accounting for `k` skipped idle cycles (deferred:
    /// added at the next real step or [`Sm::flush_idle`]; at once while recording).
    #[inline]
    pub fn skip(&mut self, k: u64) {
        self.idle_run += k;
        if self.recorder.is_some() {
            self.flush_idle();
        }
    }

    /// Adds the deferred accounting of skipped cycles (before statistics are read; the engine
    /// calls it whenever `run_for` returns).
    pub fn flush_idle(&mut self) {
        let k = std::mem::take(&mut self.idle_run);
        if k == 0 {
            return;
        }
        if let Some(r) = &mut self.recorder {
            r.repeat(k);
        }
        for s in 0..self.subcores.len() {
            let (kind, pc) = (self.subcores[s].last_stall, self.subcores[s].last_stall_pc);
            self.sh.account_stall(s, kind, pc, k);
        }
        if self.sh.used.ctas > 0 {
            self.sh.stats.active_cycles += k;
        }
    }

    /// Earliest cycle after `now` at which this SM changes state by itself.
    #[inline]
    pub fn next_event(&self, now: Cycle) -> Option<Cycle> {
        if self.wake_exact && self.wake > now {
            // Asleep since the step that computed `wake`, and nothing came from outside
            // (`wake_now` clears `wake_exact`): the same next event.
            let w = (self.wake != Cycle::MAX).then_some(self.wake);
            debug_assert_eq!(w, self.next_event_now(now));
            return w;
        }
        self.next_event_now(now)
    }

    /// [`Sm::next_event`] from the blocks' state.
    fn next_event_now(&self, now: Cycle) -> Option<Cycle> {
        if self.sh.p.analytic_frontend {
            return self.next_event_ev(now);
        }
        let mut best = self.sh.mem.next_event();
        let mut take = |c: Option<Cycle>| {
            if let Some(c) = c {
                best = Some(best.map_or(c, |b| b.min(c)));
            }
        };
        for sc in &self.subcores {
            take(sc.next_event(now));
        }
        for p in &self.sh.pipes {
            take(p.next_event(now));
        }
        take(pool_next_event(&self.sh.dp_pool, now));
        if !self.sh.maybe_done.is_empty() {
            take(Some(now + 1));
        }
        best.map(|b| b.max(now + 1))
    }

    /// [`Sm::next_event`] with the event front end (`core::event`): its sub-cores file unit
    /// and fetch waits in their heaps, so neither the pipelines' pools nor the (unused) fetch
    /// units are scanned; anything due at `now + 1` (the earliest answer) ends the search.
    fn next_event_ev(&self, now: Cycle) -> Option<Cycle> {
        let soon = now + 1;
        if !self.sh.ev_wake.is_empty() || !self.sh.maybe_done.is_empty() {
            return Some(soon);
        }
        let mut best = self.sh.mem.next_event().map_or(Cycle::MAX, |b| b.max(soon));
        for sc in &self.subcores {
            if let Some(t) = sc.ev.next_event(now) {
                best = best.min(t);
            }
        }
        // `fast`'s memory instructions go straight to the twin: its pipelines stay idle.
        if best == soon || super::mem_direct::is_direct(&self.sh) {
            return (best != Cycle::MAX).then_some(best);
        }
        for p in &self.sh.pipes {
            if let Some(t) = p.next_event(now) {
                best = best.min(t.max(soon));
            }
        }
        (best != Cycle::MAX).then_some(best)
    }

    pub(super) fn finish_warps(&mut self) -> bool {
        let mut ch = false;
        while let Some(w) = self.sh.maybe_done.pop() {
            let sh = &mut self.sh;
            if !sh.warps[w as usize].finished() {
                continue;
            }
            ch = true;
            sh.warps[w as usize].active = false;
            sh.touch(w as usize);
            if !sh.p.analytic_frontend {
                self.subcores[w as usize % sh.p.subcores].sched.remove(w);
            }
            let ci = sh.warps[w as usize].cta as usize;
            let cta = &mut sh.ctas[ci];
            cta.live -= 1;
            if barrier::try_release(cta, &mut sh.warps) {
                sh.touch_cta(ci);
                if sh.p.analytic_frontend {
                    super::event::wake_cta(sh, ci, w as usize, 0);
                }
            }
            let cta = &mut sh.ctas[ci];
            if cta.live == 0 {
                cta.active = false;
                // Handed back to the stream at the engine's next feed (`Gpu::feed_ctas`), not
                // kept by the slot until a launch reuses it.
                sh.spent.push(std::mem::take(&mut cta.trace));
                let k = cta.kernel;
                sh.used.threads -= cta.threads;
                sh.used.warps -= cta.wpc;
                sh.used.ctas -= 1;
                sh.used.regs -= cta.regs;
                sh.used.shmem -= cta.shmem;
                sh.used.per_kernel[k as usize] -= 1;
                sh.done_ctas.push(k);
                sh.stats.ctas += 1;
                sh.stats.kernels[k as usize].ctas += 1;
            }
        }
        ch
    }

    /// Why the first stuck warp of this SM cannot proceed (deadlock report).
    pub fn describe_stuck(&self, ctx: &StepCtx) -> Option<String> {
        for (wi, w) in self.sh.warps.iter().enumerate() {
            if !w.active {
                continue;
            }
            let s = wi % self.sh.p.subcores;
            let k = &ctx.kernels[w.kernel as usize];
            let idx = w.ib.head.min(w.n_insts.saturating_sub(1));
            let (pc, op) = if w.n_insts > 0 {
                let inst = self.sh.inst(wi, idx);
                (
                    inst.pc,
                    k.op_names
                        .get(inst.op.0 as usize)
                        .map(String::as_str)
                        .unwrap_or("?"),
                )
            } else {
                (0, "-")
            };
            let why = match self.subcores[s].why_stalled(&self.sh, ctx, wi) {
                Some(r) => r.name().to_string(),
                None if w.inflight > 0 => format!("{} instruction(s) in flight", w.inflight),
                None => "nothing (ready)".to_string(),
            };
            let cta = &self.sh.ctas[w.cta as usize];
            return Some(format!(
                "SM {} warp slot {} (kernel `{}` CTA {} warp {}, sub-core {}) at PC {:#x} ({}): waits on {}; \
                 barrier {}/{} arrived, {} memory request(s) outstanding",
                self.id,
                wi,
                k.info.name,
                cta.trace.id,
                w.widx,
                s,
                pc,
                op,
                why,
                cta.bar_arrived,
                cta.live,
                self.sh.mem.outstanding()
            ));
        }
        None
    }
}

fn arbiter(now: Cycle, subcores: &mut [SubCore], sh: &mut SmShared) -> Option<(usize, bool)> {
    // The fetch units live in the sub-cores; gather them by index without allocating.
    let n = subcores.len();
    for k in 0..n {
        let s = (sh.l1i_rr + k) % n;
        if subcores[s].fetch.state == super::fetch::FetchState::Arb {
            let mut rr = 0;
            let r = l1i_arbiter(
                now,
                std::slice::from_mut(&mut subcores[s].fetch),
                &mut rr,
                &mut sh.l1i,
                sh.p.fetch.miss_penalty,
            );
            sh.l1i_rr = s + 1;
            return r.map(|(_, h)| (s, h));
        }
    }
    None
}
