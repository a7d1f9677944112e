//! `hybrid`'s issue in the event front end (split from [`super`]): a ready warp's head
//! instruction issues at `now` into its unit's pipeline or the cycle memory pipeline (`fast`
//! issues through `event_ahead` instead); its next instruction is evaluated at once.

use super::super::barrier;
use super::super::ctx::{OpClass, StepCtx, U_MEM};
use super::super::exec::completion;
use super::super::ldst::MemInst;
use super::super::mem_direct::{self, is_direct};
use super::super::subcore::SubCore;
use super::super::SmShared;
use super::{div_pow2, wake_cta, EvState, K_RETIRE, MEM_BIT, PENDING};
use crate::stats::StallKind;
use crate::trace::{OpKind, TraceInst};
use crate::Cycle;

impl SubCore {
    /// Issues ready warp `wi`'s head instruction at `now`; files the warp's next instruction.
    /// Returns the unit index.
    pub(super) fn ev_issue(
        &mut self,
        now: Cycle,
        sh: &mut SmShared,
        ctx: &StepCtx,
        wi: usize,
    ) -> u8 {
        let n = sh.p.subcores;
        let local = div_pow2(wi, n);
        if sh.warps[wi].ev.state == EvState::Heap {
            // A parked warp of an open unit.
            let u = sh.warps[wi].ev.op.unit as usize;
            self.ev.parked[u] &= !(1u64 << local);
            if self.ev.parked[u] == 0 {
                self.ev.open &= !(1u32 << u);
            }
        } else {
            self.ev.clear_ready(local);
        }
        sh.warps[wi].ev.state = EvState::Idle;
        let kernel = sh.warps[wi].kernel;
        let idx = sh.warps[wi].ib.head;
        sh.warps[wi].ib.head += 1;
        let inst = sh.inst(wi, idx);
        // The head instruction's class, set by the evaluation that filed the warp.
        let op = sh.warps[wi].ev.op;
        debug_assert_eq!(op, ctx.kernels[kernel as usize].ops[inst.op.0 as usize]);
        self.ev.last = Some(local as u16);
        super::super::event_fetch::count_issue(now, sh, self.id, wi, kernel, &inst);
        let mut next = now + 1;
        issue_control(sh, wi, idx, op.kind, now);
        // `fast` (direct memory) issues through `event_ahead`, never here.
        debug_assert!(!is_direct(sh));
        if op.is_mem() {
            let p = self.mem_pipe(sh);
            let e = MemInst::new(wi as u16, self.id, idx, op.kind, &inst, Default::default());
            // The cycle model's collector reads the operands at t + 1 and dispatches then.
            sh.pipes[p].accept(now + 1, sh.p.mem_dispatch_latency, e);
            let uc = sh.stats.units.get_mut(U_MEM);
            uc.dispatches += 1;
            uc.busy_cycles += 1;
            let w = &mut sh.warps[wi];
            w.inflight += 1;
            w.mem_inflight += 1;
            if e.writes_regs() {
                for &r in inst.dsts() {
                    w.ev.set(r, PENDING);
                }
            }
        } else if !op.acts_at_issue() {
            let u = op.unit as usize;
            let start = now + 1;
            book_pool(self.pool_mut(sh, u), start + op.interval.max(1) as u64);
            next = book_alu(sh, wi, &inst, &op, u, start, next);
        }
        self.after_issue(sh, ctx, wi, now, next);
        if !self.retire_if_last(sh, wi, now, now) {
            self.ev_eval(sh, ctx, wi, now + 1);
        }
        op.unit
    }

    /// After warp `wi` issued at `at` (the SM's clock is `now`): if that was its last
    /// instruction, it retires with its last result and not before `at` (filed for then when
    /// that is after `now`). Returns whether it retired.
    #[inline]
    pub(super) fn retire_if_last(
        &mut self,
        sh: &mut SmShared,
        wi: usize,
        at: Cycle,
        now: Cycle,
    ) -> bool {
        let w = &sh.warps[wi];
        if w.ib.head < w.n_insts {
            return false;
        }
        self.retire(sh, wi, at, now);
        true
    }

    /// [`Self::retire_if_last`] when it was the last.
    #[inline(never)]
    fn retire(&mut self, sh: &mut SmShared, wi: usize, at: Cycle, now: Cycle) {
        let w = &mut sh.warps[wi];
        let t = w.ev.done_at.max(at);
        if t > now {
            w.inflight += 1;
            self.ev.heap.push(t, wi as u16, K_RETIRE);
        }
        sh.note_maybe_done(wi as u16);
    }
}

/// A barrier or an exit that warp `wi` issued at `at` (its instruction `idx`): the barrier's
/// arrival (the last one releases the CTA's warps for `at + 1`), or the end of the warp's
/// instructions at the exit. Other kinds: nothing.
#[inline]
pub(super) fn issue_control(sh: &mut SmShared, wi: usize, idx: u32, kind: OpKind, at: Cycle) {
    if matches!(kind, OpKind::Barrier | OpKind::Exit) {
        control(sh, wi, idx, kind, at);
    }
}

/// [`issue_control`] of a barrier or an exit.
#[inline(never)]
fn control(sh: &mut SmShared, wi: usize, idx: u32, kind: OpKind, at: Cycle) {
    match kind {
        OpKind::Barrier => {
            let cta = sh.warps[wi].cta as usize;
            if barrier::arrive(&mut sh.ctas[cta], &mut sh.warps, wi) {
                wake_cta(sh, cta, wi, at + 1);
            }
        }
        OpKind::Exit => {
            let w = &mut sh.warps[wi];
            if idx + 1 >= w.n_insts {
                w.n_insts = idx + 1;
            }
        }
        _ => {}
    }
}

/// The pipeline of `pool` free first takes an instruction, busy until `until`.
pub(super) fn book_pool(pool: &mut [Cycle], until: Cycle) {
    let mut best = 0;
    for (i, &r) in pool.iter().enumerate() {
        if r < pool[best] {
            best = i;
        }
    }
    if let Some(b) = pool.get_mut(best) {
        *b = until;
    }
}

/// Books an ALU instruction of warp `wi` that starts in unit `u` at `start` (`hybrid`'s issue
/// and `fast`'s run-ahead): the unit's statistics, its destinations' ready times and the
/// warp's last result. Returns the earliest cycle of the warp's next issue: `next`, or after a
/// branch the cycle it resolves.
#[inline]
pub(super) fn book_alu(
    sh: &mut SmShared,
    wi: usize,
    inst: &TraceInst,
    op: &OpClass,
    u: usize,
    start: Cycle,
    next: Cycle,
) -> Cycle {
    let c = completion(start, op.latency);
    let uc = sh.stats.units.get_mut(u);
    uc.dispatches += 1;
    uc.busy_cycles += op.interval as u64;
    let w = &mut sh.warps[wi];
    for &r in inst.dsts() {
        w.ev.set(r, c);
    }
    w.ev.done_at = w.ev.done_at.max(c);
    if op.kind == OpKind::Branch {
        next.max(c)
    } else {
        next
    }
}

impl SubCore {
    /// Issues warp `wi`'s memory instruction `idx` (`inst`) at `at` straight into the memory twin
    /// (`core::mem_direct`): the unit's statistics, the warp's last memory result and, for a
    /// load, its destinations' ready times (marked as memory results).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn issue_direct(
        &mut self,
        at: Cycle,
        sh: &mut SmShared,
        ctx: &StepCtx,
        wi: usize,
        idx: u32,
        inst: &TraceInst,
        op: OpClass,
    ) {
        let p = self.mem_pipe(sh);
        let done = mem_direct::issue(at, sh, ctx, wi, p, idx, inst, op);
        let writes = mem_direct::writes_regs(inst, op);
        let uc = sh.stats.units.get_mut(U_MEM);
        uc.dispatches += 1;
        uc.busy_cycles += 1;
        let w = &mut sh.warps[wi];
        w.ev.mem_done = w.ev.mem_done.max(done);
        w.ev.done_at = w.ev.done_at.max(done);
        if writes {
            for &r in inst.dsts() {
                w.ev.set(r, done | MEM_BIT);
            }
        }
    }

    /// After warp `wi` issued at `at`: refills its instruction buffer and files the earliest
    /// cycle of its next issue (`next`) with what it waits for until then.
    #[inline]
    pub(super) fn after_issue(
        &mut self,
        sh: &mut SmShared,
        ctx: &StepCtx,
        wi: usize,
        at: Cycle,
        next: Cycle,
    ) {
        self.ev_fetch(sh, ctx, wi, at);
        let w = &mut sh.warps[wi];
        w.ev.not_before = next;
        w.ev.nb_reason = if next > at + 1 {
            StallKind::Control
        } else {
            StallKind::CompData
        };
    }
}
