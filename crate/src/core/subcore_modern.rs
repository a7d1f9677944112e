//! The sub-core's issue stage under `core.model = "modern"` (`core::modern` has the state and
//! the rules): readiness from the control bits (or the scoreboard where a trace has none),
//! the compiler-guided greedy-then-youngest order (`scheduler.policy = "cggty"` on the modern
//! presets), one instruction per cycle, and issue straight into the unit or the memory
//! pipeline: no operand collectors.
//!
//! ```text
//!  hold (a late read window)? ── stall `dispatch`
//!  walk warps in scheduler order: cached warp check ─> timed part (stall counter, unseen SB
//!    increment, unit latch) ─> first Go issues
//!  nothing issued: the first stall is the cycle's reason; the walk is replayed until a warp
//!    is marked or its earliest timed condition (`until`) comes
//! ```

use super::ctx::{OpClass, StepCtx, U_DP, U_INT, U_MEM, U_SP};
use super::exec::InFlight;
use super::ldst::MemInst;
use super::modern::{inferred_reuse, SbIds, Wait};
use super::subcore::{Check, Replay, SubCore};
use super::warp::{Warp, WarpCheck};
use super::SmShared;
use crate::stats::StallKind;
use crate::trace::{OpKind, TraceInst};
use crate::Cycle;

/// Tensor pipelines' unit index ([`super::ctx::unit_index`]).
const U_TENSOR: u8 = 4;

impl SubCore {
    /// The warp-local check of the head instruction `inst` (the instruction buffer, barrier
    /// and branch checks are done): control bits, or the scoreboard without them.
    pub(super) fn warp_state_modern(w: &Warp, inst: TraceInst, op: OpClass) -> WarpCheck {
        let stall = |kind| WarpCheck::Stall {
            kind,
            war_hold: false,
            pc: inst.pc,
        };
        let mut before = Cycle::MAX;
        if inst.ctrl.present() {
            match w.cb.wait(inst.ctrl.wait()) {
                Wait::Blocked => return stall(StallKind::MemData),
                Wait::Before(c) => before = c,
                Wait::Clear => {}
            }
        } else {
            match w.sb.hazard(&inst) {
                Some(super::scoreboard::Hazard::Mem) => return stall(StallKind::MemData),
                Some(super::scoreboard::Hazard::Alu) => return stall(StallKind::CompData),
                None => {}
            }
            if w.sb.war(&inst) {
                return WarpCheck::Stall {
                    kind: StallKind::CompData,
                    war_hold: true,
                    pc: inst.pc,
                };
            }
        }
        if op.kind == OpKind::MemBarrier && w.mem_inflight > 0 {
            return stall(StallKind::Barrier);
        }
        WarpCheck::Ready {
            op,
            pc: inst.pc,
            at: w.cb.next_issue,
            before,
        }
    }

    /// The timed part of the check, and the cycle its answer may change by time alone.
    pub(super) fn resolve_modern(
        &self,
        now: Cycle,
        sh: &SmShared,
        ws: WarpCheck,
    ) -> (Check, Cycle) {
        let (op, at, before) = match ws {
            WarpCheck::Skip => return (Check::Skip, Cycle::MAX),
            WarpCheck::Stall { kind, .. } => return (Check::Stall(kind), Cycle::MAX),
            WarpCheck::Ready { op, at, before, .. } => (op, at, before),
        };
        if now < at {
            return (Check::Stall(StallKind::CompData), at);
        }
        if now >= before {
            // The increment is visible now; a release marks the warp.
            return (Check::Stall(StallKind::MemData), Cycle::MAX);
        }
        let go = (Check::Go { needs_cu: false }, before);
        if op.acts_at_issue() {
            return go;
        }
        if op.is_mem() {
            let p = if sh.p.subcore_mem { self.id } else { 0 };
            if sh.p.mem_unit {
                if let Err(t) = self.mu.room(now) {
                    return (Check::Stall(StallKind::MemStructural), t);
                }
            }
            if !sh.pipes[p].can_accept() {
                return (Check::Stall(StallKind::MemStructural), Cycle::MAX);
            }
            return go;
        }
        // The unit's input latch: a pipeline free when the instruction starts (issue + 1).
        let pool = self.alu_pool(sh, op.unit as usize);
        let free = pool.iter().copied().min().unwrap_or(0);
        if free > now + 1 {
            return (Check::Stall(StallKind::CompStructural), free - 1);
        }
        go
    }

    /// The modern issue stage: at most one instruction per cycle.
    pub(super) fn issue_modern(&mut self, now: Cycle, sh: &mut SmShared, ctx: &StepCtx) -> bool {
        if now < self.rs.hold_until {
            self.time_wake = self.rs.hold_until;
            self.last_stall = StallKind::Dispatch;
            self.last_stall_pc = None;
            sh.account_stall(self.id, StallKind::Dispatch, None, 1);
            return false;
        }
        let v = self.sched.version();
        if let Some(r) = self.replay {
            if r.sched_ver == v && now < r.until && !self.sched.members.meets(&sh.chk_dirty, None) {
                self.time_wake = r.until;
                self.last_stall = r.kind;
                self.last_stall_pc = r.pc;
                sh.account_stall(self.id, r.kind, r.pc, 1);
                return false;
            }
        }
        self.replay = None;
        if self.order_ver != Some(v) {
            self.sched.order(&mut self.order);
            self.order_ver = Some(v);
        }
        let mut first_stall: Option<(StallKind, u32, u32)> = None;
        let mut until = Cycle::MAX;
        let mut war_holds = 0u64;
        let mut changed = false;
        for k in 0..self.order.len() {
            let wi = self.order[k] as usize;
            let ws = Self::warp_state_cached(sh, ctx, wi);
            let (check, t) = self.resolve_modern(now, sh, ws);
            until = until.min(t);
            match check {
                Check::Skip => {}
                Check::Stall(kind) => {
                    if let WarpCheck::Stall { war_hold: true, .. } = ws {
                        sh.stats.subcores[self.id].war_holds += 1;
                        war_holds += 1;
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
                Check::Go { .. } => {
                    self.do_issue(now, sh, ctx, wi, false);
                    self.time_wake = Cycle::MAX;
                    self.last_stall = StallKind::Issued;
                    self.last_stall_pc = None;
                    sh.stats.subcores[self.id].stalls.add(StallKind::Issued, 1);
                    return true;
                }
            }
        }
        let (kind, pc) = self.account_no_issue(sh, first_stall);
        self.time_wake = until;
        if self.sched.version() == v {
            self.replay = Some(Replay {
                sched_ver: v,
                cu: None,
                kind,
                pc,
                war_holds,
                until,
            });
        }
        changed
    }

    /// After issue (the instruction buffer, statistics, barrier and exit are done): the
    /// control bits take effect, and the instruction goes to its unit or memory pipeline.
    pub(super) fn dispatch_modern(
        &mut self,
        now: Cycle,
        sh: &mut SmShared,
        wi: usize,
        idx: u32,
        inst: &TraceInst,
        op: &OpClass,
    ) {
        let fallback = !inst.ctrl.present();
        let sbs = SbIds::of(inst.ctrl);
        let next = (fallback && idx + 1 < sh.warps[wi].n_insts).then(|| sh.inst(wi, idx + 1));
        let w = &mut sh.warps[wi];
        w.cb.issue(now, inst.ctrl);
        if op.acts_at_issue() {
            return;
        }
        w.inflight += 1;
        if op.is_mem() {
            w.mem_inflight += 1;
            if fallback {
                w.sb.reserve(inst, true);
                for &r in inst.srcs() {
                    w.sb.add_read(r);
                }
            }
            let p = if sh.p.subcore_mem { self.id } else { 0 };
            let reach = if sh.p.mem_unit {
                let shared_mem = op.space == crate::trace::MemSpace::Shared;
                self.mu.enter(now, &mut sh.mem_unit_shared, shared_mem)
            } else {
                now
            };
            // The sources are read by Tab. 2's distance (and not before the instruction
            // passed the memory unit): its read counter is released then.
            if let Some(rd) = sbs.rd() {
                let war = super::modern::war_distance(op.kind, op.space, inst.mem_width, inst);
                self.exec.inflight.push(InFlight {
                    complete: (now + war).max(reach + 1),
                    warp: wi as u16,
                    ndst: 0,
                    dst: Default::default(),
                    branch: false,
                    start: now,
                    unit: U_MEM as u8,
                    pc: inst.pc,
                    op: inst.op.0,
                    sbs: SbIds::of(crate::trace::Ctrl::new(0, false, 7, rd, 0, 0)).rd_only(),
                });
                sh.warps[wi].inflight += 1;
            }
            let e = MemInst::new(wi as u16, self.id, idx, op.kind, inst, sbs.without_rd());
            if sh.p.mem_unit {
                sh.pipes[p].accept_at(reach + sh.p.mem_dispatch_latency.max(1) as Cycle, e);
            } else {
                sh.pipes[p].accept(now, sh.p.mem_dispatch_latency, e);
            }
            let uc = sh.stats.units.get_mut(U_MEM);
            uc.dispatches += 1;
            uc.busy_cycles += 1;
            return;
        }
        if fallback {
            w.sb.reserve(inst, false);
        }
        let branch = op.kind == OpKind::Branch;
        if branch {
            w.branch_pending += 1;
        }
        let reuse = if fallback {
            inferred_reuse(inst, next.as_ref())
        } else {
            inst.ctrl.reuse()
        };
        let rfc = matches!(op.unit as usize, U_INT | U_SP | U_DP) || op.unit == U_TENSOR;
        let a = self.rs.allocate(now, wi as u16, inst, reuse, rfc);
        let st = &mut sh.stats.subcores[self.id];
        st.rfc_hits += a.rfc_hits as u64;
        st.read_window_delay += a.delay;
        let u = op.unit as usize;
        let pool: &mut Vec<Cycle> = if u == U_DP && sh.p.dp_shared {
            &mut sh.dp_pool
        } else {
            &mut self.exec.pipes[u]
        };
        let complete = crate::analytic::alu::issue(pool, now + a.delay, op.latency, op.interval);
        let uc = sh.stats.units.get_mut(u);
        uc.dispatches += 1;
        uc.busy_cycles += op.interval as u64;
        self.exec.inflight.push(InFlight {
            complete,
            warp: wi as u16,
            ndst: inst.ndst.min(4),
            dst: inst.dst,
            branch,
            start: now + a.delay,
            unit: u as u8,
            pc: inst.pc,
            op: inst.op.0,
            sbs,
        });
    }
}
