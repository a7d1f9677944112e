//! One sub-core (processing block, seed 001 Figure 3): fetch, decode, instruction buffers,
//! scheduler, collector units, register file, result bus and execution units. Its stages run
//! back to front each cycle so an instruction moves at most one stage per cycle:
//!
//! ```text
//!  write-back ─> operand read ─> dispatch ─> issue ─> decode ─> fetch
//!  (exec done)   (bank ports)    (unit/mem)  (sched)  (ibuf)    (L0I)
//! ```

use super::collector::{Block, Collectors};
use super::ctx::{OpClass, StepCtx, NUM_UNITS, U_DP, U_MEM};
use super::exec::{completion, ExecUnits, InFlight};
use super::fetch::{FetchOutcome, FetchUnit};
use super::icache::ICache;
use super::ldst::MemInst;
use super::modern::ReadStage;
use super::prefetch::StreamBuffer;
use super::regfile::RegFile;
use super::result_bus::{dst_banks, ResultBus};
use super::scheduler::Scheduler;
use super::scoreboard::Hazard;
use super::warp::WarpCheck;
use super::{barrier, IssueEvent, SmShared};
use crate::config::GpuConfig;
use crate::stats::StallKind;
use crate::trace::{OpKind, TraceInst};
use crate::Cycle;

#[derive(Clone, Debug)]
pub struct SubCore {
    pub id: usize,
    pub sched: Scheduler,
    pub fetch: FetchUnit,
    pub cus: Collectors,
    pub exec: ExecUnits,
    pub rf: RegFile,
    pub rb: ResultBus,
    pub(super) order: Vec<u16>,
    /// The scheduler version `order` was built from (rebuilt only when it changed).
    pub(super) order_ver: Option<u32>,
    /// The last issue walk, when it issued nothing: replayed while it would repeat.
    pub(super) replay: Option<Replay>,
    /// The last cycle's scheduler outcome, replayed for skipped idle cycles.
    pub last_stall: StallKind,
    /// (kernel launch, pc slot) the last stall is attributed to.
    pub last_stall_pc: Option<(u32, u32)>,
    /// The event-driven front end (`model.frontend = analytical`, `core::event`).
    pub ev: super::event::EvSched,
    /// Modern core: the register read window and the register-file cache.
    pub rs: ReadStage,
    /// Modern core: the sub-core's memory unit (issue rate of memory instructions).
    pub mu: super::modern::MemUnit,
    /// Modern core: when the last issue walk that issued nothing may answer differently by
    /// time alone (a stall counter running out, a unit latch freeing, the read hold ending).
    pub time_wake: Cycle,
}

/// An issue walk that issued nothing, with what it depended on beyond the cached warp checks:
/// while no warp of the sub-core is marked, the scheduler order and the collector units'
/// state are the same, the walk would give the same stall (and WAR holds) again.
#[derive(Clone, Copy, Debug)]
pub(super) struct Replay {
    pub(super) sched_ver: u32,
    /// `None`: a collector unit was free; else the oldest unit's block.
    pub(super) cu: Option<Block>,
    pub(super) kind: StallKind,
    pub(super) pc: Option<(u32, u32)>,
    pub(super) war_holds: u64,
    /// The walk's answer holds only before this cycle (modern core's timed conditions).
    pub(super) until: Cycle,
}

/// Why a warp cannot issue now, or that it can (and whether it needs a collector unit).
pub(super) enum Check {
    Go {
        needs_cu: bool,
    },
    Stall(StallKind),
    /// Nothing left to issue (draining or done): not a candidate.
    Skip,
}

impl SubCore {
    /// Sub-core `id` as `cfg` describes it; `counts` are pipelines per unit kind and `horizon`
    /// the longest fixed latency (sizes the result-bus ring).
    pub fn new(
        id: usize,
        cfg: &GpuConfig,
        counts: [u32; NUM_UNITS],
        horizon: u32,
        max_warps: usize,
    ) -> Self {
        let banks = cfg.regfile.banks.max(1);
        let ports = cfg.regfile.ports_per_bank.clamp(1, 255);
        let rb_on = cfg.features.result_bus_ports;
        SubCore {
            id,
            sched: Scheduler::new(
                cfg.scheduler.policy,
                max_warps,
                cfg.scheduler.two_level_active,
            ),
            fetch: FetchUnit::new(
                ICache::new(&cfg.frontend.l0i),
                StreamBuffer::new(
                    if cfg.features.subcore_frontend {
                        cfg.frontend.prefetch_depth
                    } else {
                        0
                    },
                    cfg.frontend.prefetch_interval,
                ),
            ),
            cus: Collectors::new(cfg.regfile.collector_units),
            exec: ExecUnits::new(counts),
            rf: RegFile::new(banks, ports, rb_on),
            rb: ResultBus::new(banks as usize, ports as u8, horizon, rb_on),
            order: Vec::with_capacity(max_warps),
            order_ver: None,
            replay: None,
            last_stall: StallKind::Idle,
            last_stall_pc: None,
            ev: Default::default(),
            rs: ReadStage::new(banks, ports),
            mu: Default::default(),
            time_wake: Cycle::MAX,
        }
    }

    /// Fixed-latency completions of this cycle: registers written, scoreboard released.
    pub fn writeback(&mut self, now: Cycle, sh: &mut SmShared) -> bool {
        let mut changed = false;
        let mut i = 0;
        while i < self.exec.inflight.len() {
            if self.exec.inflight[i].complete <= now {
                let f = self.exec.inflight.swap_remove(i);
                let w = &mut sh.warps[f.warp as usize];
                for &r in &f.dst[..f.ndst as usize] {
                    if w.sb.release(r) {
                        sh.stats.subcores[self.id].war_violations += 1;
                    }
                }
                if f.branch {
                    w.branch_pending -= 1;
                }
                for s in [f.sbs.wb(), f.sbs.rd()].into_iter().flatten() {
                    w.cb.release(s);
                }
                w.inflight -= 1;
                sh.touch(f.warp as usize);
                sh.note_maybe_done(f.warp);
                changed = true;
            } else {
                i += 1;
            }
        }
        changed
    }

    /// Operand read, dispatch, issue, decode and fetch.
    pub fn front_stages(&mut self, now: Cycle, sh: &mut SmShared, ctx: &StepCtx) -> bool {
        let mut changed = self.cus.read_stage(
            &mut self.rf,
            &mut sh.warps,
            &mut sh.chk_dirty,
            &mut sh.stats.subcores[self.id],
        );
        changed |= self.dispatch(now, sh, ctx);
        changed |= self.issue(now, sh, ctx);
        if self.fetch.decode(now, &mut sh.warps) {
            sh.touch(self.fetch.warp as usize);
            sh.note_maybe_done(self.fetch.warp);
            changed = true;
        }
        changed |= self.do_fetch(now, sh, ctx);
        changed
    }

    fn do_fetch(&mut self, now: Cycle, sh: &mut SmShared, ctx: &StepCtx) -> bool {
        let p = sh.p.fetch;
        let ctas = &sh.ctas;
        let code = |w: &super::warp::Warp| {
            let insts = ctas[w.cta as usize].trace.warp(w.widx as usize);
            (insts, ctx.kernels[w.kernel as usize].code_base)
        };
        let out = self.fetch.fetch(
            now,
            (&self.sched.warps, &self.sched.members),
            &mut sh.warps,
            (&mut sh.fetch_dirty, &mut sh.want_fetch),
            code,
            sh.p.group_limit,
            &p,
            &mut sh.l1i,
        );
        let st = &mut sh.stats;
        st.subcores[self.id].l0i_prefetches += std::mem::take(&mut self.fetch.prefetched) as u64;
        match out {
            FetchOutcome::None => return false,
            FetchOutcome::L0Hit => st.subcores[self.id].l0i_hits += 1,
            FetchOutcome::L0Miss => st.subcores[self.id].l0i_misses += 1,
            FetchOutcome::L1Hit => st.l1i_hits += 1,
            FetchOutcome::L1Miss => st.l1i_misses += 1,
        }
        true
    }

    /// Ready collector units go to their unit (or memory pipeline), oldest first.
    fn dispatch(&mut self, now: Cycle, sh: &mut SmShared, ctx: &StepCtx) -> bool {
        let mut changed = false;
        let mut k = 0;
        while k < self.cus.order.len() {
            let slot = self.cus.order[k] as usize;
            let cu = self.cus.cus[slot];
            if cu.nunread > 0 {
                k += 1;
                continue;
            }
            let w = &sh.warps[cu.warp as usize];
            let inst = sh.inst(cu.warp as usize, cu.idx);
            let op = ctx.kernels[w.kernel as usize].ops[inst.op.0 as usize];
            let done = if op.is_mem() {
                self.dispatch_mem(now, sh, cu.warp, cu.idx, &inst, &op)
            } else {
                self.dispatch_alu(now, sh, cu.warp, &inst, &op)
            };
            match done {
                Ok(()) => {
                    self.cus.release(slot);
                    changed = true;
                }
                Err(b) => {
                    if b == Block::ResultBus {
                        sh.stats.subcores[self.id].result_bus_conflicts += 1;
                        changed = true;
                    }
                    self.cus.cus[slot].block = b;
                    k += 1;
                }
            }
        }
        changed
    }

    fn dispatch_alu(
        &mut self,
        now: Cycle,
        sh: &mut SmShared,
        warp: u16,
        inst: &TraceInst,
        op: &OpClass,
    ) -> Result<(), Block> {
        let u = op.unit as usize;
        let shared = u == U_DP && sh.p.dp_shared;
        let pool: &mut Vec<Cycle> = if shared {
            &mut sh.dp_pool
        } else {
            &mut self.exec.pipes[u]
        };
        let Some(pi) = pool.iter().position(|&b| b <= now) else {
            return Err(Block::Unit);
        };
        let c = completion(now, op.latency);
        let mut banks = [0usize; 4];
        let nb = dst_banks(inst.dsts(), self.rf.banks, &mut banks);
        if !self.rb.can_reserve(c, &banks[..nb]) {
            return Err(Block::ResultBus);
        }
        self.rb.reserve(c, &banks[..nb]);
        pool[pi] = now + op.interval as u64;
        let uc = sh.stats.units.get_mut(u);
        uc.dispatches += 1;
        uc.busy_cycles += op.interval as u64;
        let mut f = InFlight {
            complete: c,
            warp,
            ndst: inst.ndst,
            dst: inst.dst,
            branch: op.kind == OpKind::Branch,
            start: now,
            unit: u as u8,
            pc: inst.pc,
            op: inst.op.0,
            sbs: Default::default(),
        };
        f.ndst = f.ndst.min(4);
        self.exec.inflight.push(f);
        Ok(())
    }

    fn dispatch_mem(
        &mut self,
        now: Cycle,
        sh: &mut SmShared,
        warp: u16,
        inst_idx: u32,
        inst: &TraceInst,
        op: &OpClass,
    ) -> Result<(), Block> {
        let p = if sh.p.subcore_mem { self.id } else { 0 };
        if !sh.pipes[p].can_accept() {
            return Err(Block::MemPipe);
        }
        let e = MemInst::new(warp, self.id, inst_idx, op.kind, inst, Default::default());
        sh.pipes[p].accept(now, sh.p.mem_dispatch_latency, e);
        let uc = sh.stats.units.get_mut(U_MEM);
        uc.dispatches += 1;
        uc.busy_cycles += 1;
        Ok(())
    }

    /// Why warp `wi` cannot issue now (`None`: it can, or it has nothing left to issue).
    pub fn why_stalled(&self, sh: &SmShared, ctx: &StepCtx, wi: usize) -> Option<StallKind> {
        match self.check(Cycle::MAX / 2, sh, ctx, wi) {
            Check::Stall(k) => Some(k),
            _ => None,
        }
    }

    /// Starts a cycle: write-backs reserved for it take their register-bank ports.
    pub fn begin_cycle(&mut self, now: Cycle) {
        self.rf.begin_cycle(now, &mut self.rb);
    }

    /// The pipelines of unit `u` (the SM-wide pool for shared FP64).
    #[inline]
    pub(super) fn alu_pool<'s>(&'s self, sh: &'s SmShared, u: usize) -> &'s [Cycle] {
        if u == U_DP && sh.p.dp_shared {
            &sh.dp_pool
        } else {
            &self.exec.pipes[u]
        }
    }

    /// The warp-local part of the issue check (barrier, branch, instruction buffer,
    /// scoreboard, MEMBAR), computed from scratch.
    fn warp_state(sh: &SmShared, ctx: &StepCtx, wi: usize) -> WarpCheck {
        let w = &sh.warps[wi];
        if !w.active {
            return WarpCheck::Skip;
        }
        let blame = || {
            if w.n_insts > 0 {
                sh.inst(wi, w.ib.head.min(w.n_insts - 1)).pc
            } else {
                0
            }
        };
        let stall = |kind: StallKind, pc: u32| WarpCheck::Stall {
            kind,
            war_hold: false,
            pc,
        };
        if w.at_barrier {
            return stall(StallKind::Barrier, blame());
        }
        if w.branch_pending > 0 {
            return stall(StallKind::Control, blame());
        }
        if w.ib.is_empty() {
            if w.ib.head >= w.n_insts {
                return WarpCheck::Skip;
            }
            return stall(StallKind::IFetch, blame());
        }
        let inst = sh.inst(wi, w.ib.head);
        let op = ctx.kernels[w.kernel as usize].ops[inst.op.0 as usize];
        if sh.p.modern {
            return Self::warp_state_modern(w, inst, op);
        }
        match w.sb.hazard(&inst) {
            Some(Hazard::Mem) => return stall(StallKind::MemData, inst.pc),
            Some(Hazard::Alu) => return stall(StallKind::CompData, inst.pc),
            None => {}
        }
        if sh.p.war_check && w.sb.war(&inst) {
            return WarpCheck::Stall {
                kind: StallKind::CompData,
                war_hold: true,
                pc: inst.pc,
            };
        }
        if op.kind == OpKind::MemBarrier && w.mem_inflight > 0 {
            return stall(StallKind::Barrier, inst.pc);
        }
        WarpCheck::Ready {
            op,
            pc: inst.pc,
            at: 0,
            before: Cycle::MAX,
        }
    }

    /// [`SubCore::warp_state`], cached per slot (`SmShared::wchk`) until the warp is touched
    /// (`SmShared::touch`: every change of its state marks it). Debug builds check the mark
    /// against the warp's inputs (`Warp::check_key`), so a change that forgot to mark fails
    /// the tests.
    #[inline]
    pub(super) fn warp_state_cached(sh: &mut SmShared, ctx: &StepCtx, wi: usize) -> WarpCheck {
        if !sh.chk_dirty.take(wi) {
            debug_assert_eq!(sh.warps[wi].chk_key, sh.warps[wi].check_key(), "warp {wi}");
            return sh.wchk[wi];
        }
        let r = Self::warp_state(sh, ctx, wi);
        if cfg!(debug_assertions) {
            sh.warps[wi].chk_key = sh.warps[wi].check_key();
        }
        sh.wchk[wi] = r;
        r
    }

    /// The sub-core's part of the check: a unit pipeline or a collector unit for a ready warp.
    fn resolve(&self, now: Cycle, sh: &SmShared, ws: WarpCheck) -> Check {
        if sh.p.modern {
            return self.resolve_modern(now, sh, ws).0;
        }
        let op = match ws {
            WarpCheck::Skip => return Check::Skip,
            WarpCheck::Stall { kind, .. } => return Check::Stall(kind),
            WarpCheck::Ready { op, .. } => op,
        };
        if op.acts_at_issue() {
            return Check::Go { needs_cu: false };
        }
        if sh.p.analytic_alu && !op.is_mem() {
            // The ALU twin: a structural stall only when no pipeline of the unit is free by the
            // cycle its operands would be read (issue + 1, when the instruction starts).
            let pool = self.alu_pool(sh, op.unit as usize);
            if pool.iter().all(|&r| r > now + 1) {
                return Check::Stall(StallKind::CompStructural);
            }
            return Check::Go { needs_cu: false };
        }
        if self.cus.free_slot().is_none() {
            return Check::Stall(match self.cus.oldest_block() {
                Block::MemPipe => StallKind::MemStructural,
                Block::Unit | Block::ResultBus => StallKind::CompStructural,
                Block::Operands | Block::None => StallKind::Dispatch,
            });
        }
        Check::Go { needs_cu: true }
    }

    /// Why warp `wi` cannot issue its next instruction now.
    fn check(&self, now: Cycle, sh: &SmShared, ctx: &StepCtx, wi: usize) -> Check {
        self.resolve(now, sh, Self::warp_state(sh, ctx, wi))
    }

    /// The scheduler picks up to `issue_width` instructions, each to a unit no other instruction
    /// of the cycle uses: the extra ones from the same warp (`multi_issue = same_warp`) or from
    /// the next ready warps in scheduler order (`other_warps`, seed 003), and records this
    /// cycle's stall reason.
    ///
    /// Each warp's own part of the check is cached per slot (`SmShared::wchk`) until the warp
    /// is marked (`SmShared::touch`), so a warp waiting on memory costs a bit test, not a
    /// scoreboard walk; and a cycle in which no warp of the sub-core was marked and neither the
    /// scheduler order nor the collector units changed replays the last stall ([`Replay`])
    /// without visiting any warp.
    fn issue(&mut self, now: Cycle, sh: &mut SmShared, ctx: &StepCtx) -> bool {
        if sh.p.modern {
            return self.issue_modern(now, sh, ctx);
        }
        let v = self.sched.version();
        // The ALU twin's structural check depends on the cycle itself: no replay there.
        let cu = self
            .cus
            .free_slot()
            .map_or(Some(self.cus.oldest_block()), |_| None);
        if let Some(r) = self.replay {
            if r.sched_ver == v && r.cu == cu && !self.sched.members.meets(&sh.chk_dirty, None) {
                sh.stats.subcores[self.id].war_holds += r.war_holds;
                self.last_stall = r.kind;
                self.last_stall_pc = r.pc;
                sh.account_stall(self.id, r.kind, r.pc, 1);
                return r.war_holds > 0;
            }
        }
        self.replay = None;
        let mut war_holds = 0u64;
        if self.order_ver != Some(v) {
            self.sched.order(&mut self.order);
            self.order_ver = Some(v);
        }
        let mut first_stall: Option<(StallKind, u32, u32)> = None;
        let mut issued = 0u32;
        let mut changed = false;
        // Units already used this cycle (bit = unit index), for multi-issue from other warps.
        let mut units_used = 0u64;
        for k in 0..self.order.len() {
            let wi = self.order[k] as usize;
            let ws = Self::warp_state_cached(sh, ctx, wi);
            match self.resolve(now, sh, ws) {
                Check::Skip => {}
                Check::Stall(kind) => {
                    if let WarpCheck::Stall { war_hold: true, .. } = ws {
                        sh.stats.subcores[self.id].war_holds += 1;
                        war_holds += 1;
                        changed = true;
                    }
                    // Two-level: a warp waiting on memory or at a barrier leaves the active
                    // set (a barrier can only be released by warps that may all be pending).
                    if matches!(kind, StallKind::MemData | StallKind::Barrier)
                        && self.sched.demote(wi as u16)
                    {
                        changed = true;
                    }
                    if first_stall.is_none() {
                        let pc = match ws {
                            WarpCheck::Stall { pc, .. } | WarpCheck::Ready { pc, .. } => pc,
                            WarpCheck::Skip => 0,
                        };
                        first_stall = Some((kind, sh.warps[wi].kernel, pc));
                    }
                }
                Check::Go { needs_cu } => {
                    if sh.p.issue_other_warps {
                        let unit = match ws {
                            WarpCheck::Ready { op, .. } => op.unit,
                            _ => 0,
                        };
                        if units_used & (1u64 << (unit & 63)) != 0 {
                            continue;
                        }
                        let unit = self.do_issue(now, sh, ctx, wi, needs_cu);
                        units_used |= 1u64 << (unit & 63);
                        issued += 1;
                        if issued >= sh.p.issue_width {
                            break;
                        }
                        continue;
                    }
                    let unit = self.do_issue(now, sh, ctx, wi, needs_cu);
                    issued += 1;
                    // Dual issue: the same warp's next instruction, to a different unit.
                    if sh.p.issue_width > 1 && sh.warps[wi].active {
                        let ws = Self::warp_state_cached(sh, ctx, wi);
                        if let Check::Go { needs_cu } = self.resolve(now, sh, ws) {
                            if let WarpCheck::Ready { op, .. } = ws {
                                if op.unit != unit {
                                    self.do_issue(now, sh, ctx, wi, needs_cu);
                                    issued += 1;
                                }
                            }
                        }
                    }
                    break;
                }
            }
        }
        if issued > 0 {
            self.last_stall = StallKind::Issued;
            self.last_stall_pc = None;
            sh.stats.subcores[self.id].stalls.add(StallKind::Issued, 1);
            return true;
        }
        let (kind, pc) = self.account_no_issue(sh, first_stall);
        if !sh.p.analytic_alu && self.sched.version() == v {
            self.replay = Some(Replay {
                sched_ver: v,
                cu,
                kind,
                pc,
                war_holds,
                until: Cycle::MAX,
            });
        }
        changed
    }

    /// A cycle in which nothing issued: its reason is the first stalled warp's, else (no
    /// warp stalled) whether the warps with nothing left to issue drain memory or ALU work
    /// (every check is cached by now), else idle. Accounted and remembered for skipped
    /// cycles.
    pub(super) fn account_no_issue(
        &mut self,
        sh: &mut SmShared,
        first_stall: Option<(StallKind, u32, u32)>,
    ) -> (StallKind, Option<(u32, u32)>) {
        let (mut draining_mem, mut draining_alu) = (false, false);
        if first_stall.is_none() {
            for &wi in &self.order {
                if sh.wchk[wi as usize] == WarpCheck::Skip {
                    let w = &sh.warps[wi as usize];
                    draining_mem |= w.mem_inflight > 0;
                    draining_alu |= w.inflight > w.mem_inflight;
                }
            }
        }
        let (kind, pc) = match first_stall {
            Some((k, kernel, pc)) => (k, Some((kernel, pc / sh.p.inst_bytes))),
            None if draining_mem => (StallKind::MemData, None),
            None if draining_alu => (StallKind::CompData, None),
            None => (StallKind::Idle, None),
        };
        self.last_stall = kind;
        self.last_stall_pc = pc;
        sh.account_stall(self.id, kind, pc, 1);
        (kind, pc)
    }

    /// Issues warp `wi`'s head instruction. Returns its unit index.
    pub(super) fn do_issue(
        &mut self,
        now: Cycle,
        sh: &mut SmShared,
        ctx: &StepCtx,
        wi: usize,
        needs_cu: bool,
    ) -> u8 {
        let kernel = sh.warps[wi].kernel;
        let idx = sh.warps[wi].ib.pop();
        let redirect = sh.p.fetch.taken_branch_delay;
        if redirect > 0 && sh.warps[wi].fetch_hold == idx + 1 {
            // A taken branch: the target's fetch may start `redirect` cycles from now.
            sh.warps[wi].fetch_at = now + redirect as u64;
        }
        let inst = sh.inst(wi, idx);
        let op = ctx.kernels[kernel as usize].ops[inst.op.0 as usize];
        self.sched.issued(wi as u16);
        self.fetch.last_issued = Some(wi as u16);
        let lanes = inst.active_lanes() as u64;
        let st = &mut sh.stats;
        st.warp_insts += 1;
        st.thread_insts += lanes;
        st.subcores[self.id].warp_insts += 1;
        st.subcores[self.id].thread_insts += lanes;
        let kc = &mut st.kernels[kernel as usize];
        kc.warp_insts += 1;
        kc.thread_insts += lanes;
        if let Some(p) = kc.per_pc.get_mut((inst.pc / sh.p.inst_bytes) as usize) {
            p.issued += 1;
        }
        if let Some(log) = &mut sh.issue_log {
            log.push(IssueEvent {
                cycle: now,
                subcore: self.id as u8,
                warp: wi as u16,
                pc: inst.pc,
            });
        }
        match op.kind {
            OpKind::Barrier => {
                let cta = sh.warps[wi].cta as usize;
                if barrier::arrive(&mut sh.ctas[cta], &mut sh.warps, wi) {
                    sh.touch_cta(cta);
                }
            }
            OpKind::Exit => {
                // `@P0 EXIT` taken by only some lanes (a bounds check) leaves the others running:
                // the trace goes on with them. Only the warp's last traced instruction ends it.
                let w = &mut sh.warps[wi];
                if idx + 1 >= w.n_insts {
                    w.n_insts = idx + 1;
                    w.ib.len = 0;
                }
            }
            _ => {}
        }
        if sh.p.modern {
            self.dispatch_modern(now, sh, wi, idx, &inst, &op);
        } else if needs_cu {
            let slot = self.cus.free_slot().expect("checked");
            let w = &mut sh.warps[wi];
            self.cus.alloc(slot, wi as u16, idx, &inst, &self.rf, w);
            w.inflight += 1;
            let is_mem = op.is_mem();
            if is_mem {
                w.mem_inflight += 1;
            }
            w.sb.reserve(&inst, is_mem);
            if op.kind == OpKind::Branch {
                w.branch_pending += 1;
            }
        } else if sh.p.analytic_alu && !op.is_mem() && !op.acts_at_issue() {
            self.issue_alu_twin(now, sh, wi, &inst, &op);
        }
        sh.touch(wi);
        sh.note_maybe_done(wi as u16);
        op.unit
    }

    /// The analytical ALU pipeline: straight from issue to completion (`crate::analytic::alu`).
    fn issue_alu_twin(
        &mut self,
        now: Cycle,
        sh: &mut SmShared,
        wi: usize,
        inst: &TraceInst,
        op: &OpClass,
    ) {
        let u = op.unit as usize;
        let pool: &mut Vec<Cycle> = if u == U_DP && sh.p.dp_shared {
            &mut sh.dp_pool
        } else {
            &mut self.exec.pipes[u]
        };
        let complete = crate::analytic::alu::issue(pool, now, op.latency, op.interval);
        let uc = sh.stats.units.get_mut(u);
        uc.dispatches += 1;
        uc.busy_cycles += op.interval as u64;
        let w = &mut sh.warps[wi];
        w.inflight += 1;
        w.sb.reserve(inst, false);
        let branch = op.kind == OpKind::Branch;
        if branch {
            w.branch_pending += 1;
        }
        self.exec.inflight.push(InFlight {
            complete,
            warp: wi as u16,
            ndst: inst.ndst.min(4),
            dst: inst.dst,
            branch,
            start: now,
            unit: u as u8,
            pc: inst.pc,
            op: inst.op.0,
            sbs: Default::default(),
        });
    }

    /// Earliest future cycle at which this sub-core changes state by itself.
    pub fn next_event(&self, now: Cycle) -> Option<Cycle> {
        let a = self.exec.next_event(now);
        let b = self.fetch.next_event(now);
        let c = (self.time_wake > now && self.time_wake != Cycle::MAX).then_some(self.time_wake);
        [a, b, c].into_iter().flatten().min()
    }
}
