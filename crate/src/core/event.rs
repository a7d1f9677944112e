//! The event-driven (analytical) SM front end, `model.frontend = analytical` (issue 5; seed 000
//! Figure 3's "analytical ALU pipeline" taken up to the scheduler). No per-cycle scan of warps
//! or pipeline stages: each warp's head instruction gets a next-issue time when it becomes
//! known, and a per-sub-core min-heap keyed (time, warp slot) hands warps to the scheduler.
//!
//! ```text
//!  next issue of warp w = max( issue slot: previous issue + 1,
//!                              instruction buffer: its fetch group decoded (fetch at f,
//!                                decode at f + I-cache latency, issuable the cycle after),
//!                              ready[r] for every source and destination r (RAW, WAW),
//!                              branch resolved (control), unit pipeline free - 1 )
//!  blocked (no time yet):      a register a load is still fetching, a barrier, MEMBAR with
//!                              memory in flight; woken by the completion / release
//!  issue at t:  ALU  start s = t + 1, pipe = s + interval, ready[dst] = s + max(L, 2) - 1
//!               MEM  cycle memory (`hybrid`): into the memory pipeline at t + 1 (dispatch
//!                    latch, coalescer, SmMem); ready[dst] = the cycle its write-back latch
//!                    completes (blocked until then)
//!                    analytical memory (`fast`, `core::mem_direct`): coalesced and timed by
//!                    the twin at issue; ready[dst] = its completion, known at once (flagged
//!                    MEM_BIT: a warp waiting for it stalls on `mem_data`); the pipeline's
//!                    dispatch latch / table give the next memory issue time (`mem_struct`)
//!  heap pop (t <= now) ─> ready set ─> scheduler picks (GTO: last, else oldest;
//!                                      LRR / two-level: round robin by slot) ─> issue
//! ```
//! Cost is per instruction (a heap push and pop, a few register reads), not per cycle: the SM
//! reports the heap's top through `Sm::next_event`, so it sleeps between issue events. Entries
//! due the cycle after a step (most re-evaluations after an issue) go to a one-time bucket
//! beside the heap (`soon`): the same order, without the heap's cost.
//!
//! In `fast` (analytical memory) a warp taken from the heap does not go through the ready set
//! and the scheduler: it runs ahead, issuing its following instructions in a loop up to
//! `event_ahead::HORIZON` cycles ahead, with issue slots and units booked in per-sub-core
//! calendars (`core::event_ahead`: the model and what it approximates). What follows
//! describes `hybrid`.
//!
//! With one warp (or warps on different sub-cores) and no contention it gives the cycle model
//! with the ALU twin and perfect instruction caches exactly (tests in `engine::tests::hybrid`).
//! Approximated (see also `ModelChoice`'s docs):
//! - fetch: a warp refills its instruction buffer (at most [`IBUF`] entries) right after each
//!   issue, first come first served on the sub-core's fetch unit (the cycle model's round
//!   robin picks among waiting warps); the L1I arbiter between sub-cores is not modelled;
//! - an instruction issues when its unit can start it (issue + 1): the cycle model may issue
//!   it earlier into an operand collector, with the same start;
//! - no operand collectors, register-bank ports or result-bus ports (the ALU twin);
//! - scheduler policy: GTO exactly (last issuer, else oldest ready); LRR and two-level as a
//!   round robin over warp slots; multi-issue takes extra instructions from other ready warps
//!   to unused units (for `same_warp` too);
//! - stall stack: an issuing cycle is `issued`; otherwise, in order: a ready warp refused by
//!   a full memory pipeline, or (`fast`) a warp filed waiting for one (`mem_struct`), a warp
//!   blocked on / filed waiting for a load (`mem_data`, blamed on the PC filed last), the
//!   reason of the warp nearest to issue (`comp_data`, `comp_struct`, `control`, `ifetch` at
//!   launch), a barrier, idle.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::ctx::{OpClass, StepCtx, NUM_UNITS, U_DP};
use super::mem_direct::is_direct;
use super::subcore::SubCore;
use super::SmShared;
use crate::config::SchedPolicy;
use crate::stats::StallKind;
use crate::trace::{OpKind, TraceInst};
use crate::Cycle;

pub use super::event_warp::{EvState, EvWarp, IBUF, MEM_BIT, PENDING};

#[path = "event_ahead.rs"]
mod ahead;
#[path = "event_issue.rs"]
mod issue;
#[path = "event_stall.rs"]
mod stall;
use super::event_warp::{W_MEM_DATA, W_MEM_STRUCT, W_NONE};

/// `x / d` for the per-instruction divisions by a runtime constant (sub-cores, instruction
/// bytes): a shift when `d` is a power of two, as in every preset.
#[inline(always)]
pub(super) fn div_pow2(x: usize, d: usize) -> usize {
    if d.is_power_of_two() {
        x >> d.trailing_zeros()
    } else {
        x / d.max(1)
    }
}

/// The per-PC slot of `pc` (`pc / inst_bytes`).
#[inline(always)]
pub(super) fn pc_slot(pc: u32, inst_bytes: u32) -> u32 {
    div_pow2(pc as usize, inst_bytes as usize) as u32
}

/// Takes registers `regs` into `latest` (the first with the latest ready time, `MEM_BIT`
/// aside); false at the first one a load is still fetching ([`PENDING`]).
#[inline(always)]
fn latest_reg(ev: &EvWarp, regs: &[crate::trace::Reg], latest: &mut Cycle) -> bool {
    for &r in regs {
        let rt = ev.reg(r);
        if rt == PENDING {
            return false;
        }
        if rt & !MEM_BIT > *latest & !MEM_BIT {
            *latest = rt;
        }
    }
    true
}

/// Words of the per-step set of warps tried (local indices; `sm.max_warps` is at most 128).
const TRIED: usize = 2;

/// The per-sub-core min-heap of (time, warp slot or unit, kind) entries, each packed in one
/// word ordered as the tuple (`time << 24 | slot << 8 | kind`; times stay below 2^40), so a
/// comparison is one instruction: the same pops in the same order as a heap of tuples.
#[derive(Clone, Debug, Default)]
struct EvHeap(BinaryHeap<Reverse<u64>>);

impl EvHeap {
    #[inline(always)]
    fn push(&mut self, t: Cycle, w: u16, kind: u8) {
        debug_assert!(t < 1 << 40);
        self.0
            .push(Reverse(t << 24 | (w as u64) << 8 | kind as u64));
    }

    /// The earliest entry.
    #[inline(always)]
    fn peek(&self) -> Option<(Cycle, u16, u8)> {
        self.0
            .peek()
            .map(|&Reverse(k)| (k >> 24, (k >> 8) as u16, k as u8))
    }

    /// The earliest entry's time.
    #[inline(always)]
    fn peek_time(&self) -> Option<Cycle> {
        self.0.peek().map(|&Reverse(k)| k >> 24)
    }

    #[inline(always)]
    fn pop(&mut self) {
        self.0.pop();
    }
}

/// Heap entry kinds.
const K_READY: u8 = 0;
const K_RETIRE: u8 = 1;
/// The unit (the entry's slot field) frees: its parked warps become ready.
const K_UNIT: u8 = 2;

/// The per-sub-core event scheduler. Laid out in declaration order, aligned to a cache line:
/// what every step reads first (`quiet`, `next_event`, `push_ready`: the counts and flags,
/// `soon_at`, `now_hint` and the `soon` bucket's header) fills exactly the first line, the
/// heap's header and the other counts the second, so a step of an SM that has been out of the
/// host's cache (80 SMs step in turn, each cycle) misses on one or two lines per sub-core, not
/// on one per field. (`event_stall.rs`, `layout_tests`, keeps the first line's fields in it.)
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct EvSched {
    /// The sub-core's `last_stall` may differ from what `ev_stall` now gives (something was
    /// filed or issued since it was computed): refreshed after the SM's step; while false, a
    /// step with nothing due only accounts `last_stall` again.
    stale: bool,
    nready: u32,
    /// Units whose `K_UNIT` entry came due (bit u): their parked warps are candidates of the
    /// scheduler as if ready, without being moved to the ready set. The first of them refused
    /// closes the unit again (all its parked warps wait for the new free cycle, as each would
    /// have been refused in turn), so a freed unit costs one choice, not one per parked warp.
    open: u32,
    /// A ready warp was refused by a full memory pipeline in the last step.
    mem_full: Option<(u32, u32)>,
    soon_at: Cycle,
    /// The cycle of the last step (`soon` takes only entries due by the cycle after it).
    now_hint: Cycle,
    /// Next-issue entries of one time, `soon_at`, kept beside the heap (most warps are filed
    /// for the cycle after an issue): the same entries as heap entries, without the heap cost.
    soon: Vec<u16>,
    /// (time, warp slot, kind): a warp's next issue time, or its retirement (last ALU result).
    heap: EvHeap,
    /// Warps blocked on memory data / at a barrier.
    blocked_mem: u32,
    blocked_bar: u32,
    /// Warps in the heap waiting for a load's data / a busy memory pipeline (direct issue).
    wait_mem: u32,
    wait_struct: u32,
    /// Last warp that issued (GTO's greedy warp, round robin's position), by local index.
    last: Option<u16>,
    /// Warps that may issue now, by local index (`slot / subcores`), and how many.
    ready: Vec<u64>,
    /// Cycle the sub-core's fetch unit can start its next fetch.
    pub(super) fetch_free: Cycle,
    /// (kernel, pc slot) of the last warp that blocked on memory data.
    mem_blame: Option<(u32, u32)>,
    /// (kernel, pc slot) of the last warp filed waiting for a memory pipeline.
    struct_blame: Option<(u32, u32)>,
    /// The line of the sub-core's last L0 I-cache access and the cycle its data is there
    /// (`event_fetch`): that line is the most recently used, so probing it again changes no
    /// LRU order and gives that cycle (or the fetch's own, if later).
    pub(super) l0_last: Option<(u64, Cycle)>,
    /// Ready warps refused because their unit was taken (local bits, per unit), all due again
    /// at `park_at[u]` (the unit's free cycle - 1) through one `K_UNIT` heap entry: the same
    /// times as one heap entry per refused warp, without re-filing each warp each time.
    parked: [u64; NUM_UNITS],
    park_at: [Cycle; NUM_UNITS],
    /// `fast`'s issue and unit calendars (`event_ahead`).
    ahead: ahead::Ahead,
}

impl EvSched {
    /// The SM's clock for this cycle (`fast`: before its wakes are filed, see `event_ahead`).
    #[inline]
    pub fn set_now(&mut self, now: Cycle) {
        self.now_hint = now;
    }

    /// Files a next-issue entry of warp slot `w` at `t`.
    #[inline]
    fn push_ready(&mut self, t: Cycle, w: u16) {
        self.stale = true;
        if self.soon.is_empty() && t <= self.now_hint + 1 {
            self.soon_at = t;
        }
        if self.soon_at == t && t <= self.now_hint + 1 {
            self.soon.push(w);
        } else {
            self.heap.push(t, w, K_READY);
        }
    }

    /// The earliest entry (time, warp slot, kind) of the heap and the `soon` bucket.
    fn top(&self) -> Option<(Cycle, u16, u8)> {
        let h = self.heap.peek();
        let s = self.soon.iter().min().map(|&w| (self.soon_at, w, K_READY));
        match (h, s) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn set_ready(&mut self, local: usize) {
        if self.ready.len() <= local / 64 {
            self.ready.resize(local / 64 + 1, 0);
        }
        let b = 1u64 << (local % 64);
        if self.ready[local / 64] & b == 0 {
            self.ready[local / 64] |= b;
            self.nready += 1;
        }
    }

    fn clear_ready(&mut self, local: usize) {
        let b = 1u64 << (local % 64);
        if let Some(word) = self.ready.get_mut(local / 64) {
            if *word & b != 0 {
                *word &= !b;
                self.nready -= 1;
            }
        }
    }

    /// A warp's heap entry is taken out (popped or replaced): its wait no longer counts.
    #[inline]
    fn leave_heap(&mut self, e: &mut EvWarp) {
        match e.wait {
            W_MEM_DATA => self.wait_mem -= 1,
            W_MEM_STRUCT => self.wait_struct -= 1,
            _ => {}
        }
        e.wait = W_NONE;
    }

    /// Parked warps of the open units not used this cycle (local bits < 64).
    #[inline]
    fn open_parked(&self, used: u64) -> u64 {
        let mut bits = 0;
        let mut o = self.open;
        while o != 0 {
            let u = o.trailing_zeros() as usize;
            o &= o - 1;
            if used & (1u64 << u) == 0 {
                bits |= self.parked[u];
            }
        }
        bits
    }

    /// Closes unit `u` until `t` (its free cycle - 1): its parked warps wait for one `K_UNIT`
    /// entry at `t`.
    fn close_unit(
        &mut self,
        warps: &mut [super::warp::Warp],
        n: usize,
        id: usize,
        u: usize,
        t: Cycle,
    ) {
        self.open &= !(1u32 << u);
        self.park_at[u] = t;
        self.heap.push(t, u as u16, K_UNIT);
        let mut bits = self.parked[u];
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            warps[l * n + id].ev.at = t;
        }
    }

    fn is_ready(&self, local: usize) -> bool {
        self.ready
            .get(local / 64)
            .is_some_and(|w| w & (1u64 << (local % 64)) != 0)
    }
}

/// What the scheduler may do with a ready warp this cycle.
enum Pick {
    Issue,
    /// Its unit is busy until the cycle given (back to the heap).
    UnitBusy(Cycle),
    /// Its memory pipeline cannot take it (stays ready, retried next cycle).
    MemFull,
    /// Its memory pipeline (direct issue) takes it at the cycle given (back to the heap).
    MemBusy(Cycle),
    /// A unit already used this cycle (multi-issue).
    UnitUsed,
}

/// A warp's head instruction and its earliest issue time ([`SubCore::ev_head`]).
pub(super) struct Head {
    pub t: Cycle,
    pub reason: StallKind,
    pub op: super::ctx::OpClass,
    pub kernel: u32,
    pub inst: crate::trace::TraceInst,
}

impl SubCore {
    /// The pipelines of unit `u` (the SM-wide pool for shared FP64), mutable.
    #[inline]
    fn pool_mut<'s>(&'s mut self, sh: &'s mut SmShared, u: usize) -> &'s mut Vec<Cycle> {
        if u == U_DP && sh.p.dp_shared {
            &mut sh.dp_pool
        } else {
            &mut self.exec.pipes[u]
        }
    }

    /// Earliest cycle any pipeline of unit `u` can start an instruction.
    #[inline]
    fn pool_free(&self, sh: &SmShared, u: usize) -> Cycle {
        let pool = if u == U_DP && sh.p.dp_shared {
            &sh.dp_pool
        } else {
            &self.exec.pipes[u]
        };
        pool.iter().copied().min().unwrap_or(0)
    }

    /// Computes warp `wi`'s next-issue time (no earlier than `earliest`) and files it: in the
    /// heap, blocked, or (nothing left to issue) retiring. With the analytical memory (`fast`)
    /// the warp runs ahead instead (`event_ahead`).
    pub fn ev_eval(&mut self, sh: &mut SmShared, ctx: &StepCtx, wi: usize, earliest: Cycle) {
        if is_direct(sh) {
            self.ev_run(sh, ctx, wi, earliest);
            return;
        }
        if let Some(h) = self.ev_head(sh, ctx, wi, earliest) {
            sh.warps[wi].ev.op = h.op;
            self.ev_file(sh, wi, h.t, h.reason, h.kernel, h.inst.pc);
        }
    }

    /// The head instruction `head`'s wait for its fetch and its operands, from `(t, reason)`
    /// (shared by `ev_head` and the run-ahead loop): the later of its fetch, its sources and
    /// destinations (RAW, WAW: the first register with the latest time gives the reason) and,
    /// for a memory barrier, the warp's memory results. None, with the warp blocked, when a
    /// register is one a load still fetches or a memory barrier has loads in flight.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn operand_wait(
        &mut self,
        sh: &mut SmShared,
        wi: usize,
        head: u32,
        inst: &TraceInst,
        op: OpClass,
        kernel: u32,
        (mut t, mut reason): (Cycle, StallKind),
    ) -> Option<(Cycle, StallKind)> {
        let pc = inst.pc;
        let block = |sh: &mut SmShared, st: EvState, kind: StallKind| {
            let e = &mut sh.warps[wi].ev;
            e.state = st;
            e.reason = kind;
            e.pc = pc;
        };
        let w = &sh.warps[wi];
        let av = w.ev.avail[head as usize % IBUF];
        if av > t {
            t = av;
            reason = StallKind::IFetch;
        }
        let mut latest = 0;
        if !latest_reg(&w.ev, inst.srcs(), &mut latest)
            || !latest_reg(&w.ev, inst.dsts(), &mut latest)
        {
            block(sh, EvState::BlockedMem, StallKind::MemData);
            self.ev.blocked_mem += 1;
            self.ev.mem_blame = Some((kernel, pc_slot(inst.pc, sh.p.inst_bytes)));
            return None;
        }
        if latest & !MEM_BIT > t {
            t = latest & !MEM_BIT;
            reason = if latest & MEM_BIT != 0 {
                StallKind::MemData
            } else {
                StallKind::CompData
            };
        }
        if op.kind == OpKind::MemBarrier {
            if w.mem_inflight > 0 {
                block(sh, EvState::BlockedMem, StallKind::Barrier);
                self.ev.blocked_mem += 1;
                return None;
            }
            if w.ev.mem_done > t {
                t = w.ev.mem_done;
                reason = StallKind::MemData;
            }
        }
        Some((t, reason))
    }

    /// Takes warp `wi` out of where it is filed and computes its head instruction's earliest
    /// issue time (no earlier than `earliest`); `None` when it blocked (filed as such) or has
    /// nothing left to issue. `hybrid` only: `fast`'s run-ahead (`event_ahead`) evaluates its
    /// heads in its own loop, with the analytical memory pipeline's free cycle.
    pub(super) fn ev_head(
        &mut self,
        sh: &mut SmShared,
        ctx: &StepCtx,
        wi: usize,
        earliest: Cycle,
    ) -> Option<Head> {
        let n = sh.p.subcores;
        let local = div_pow2(wi, n);
        let w = &sh.warps[wi];
        if !w.active {
            return None;
        }
        self.ev.stale = true;
        match w.ev.state {
            EvState::BlockedMem => self.ev.blocked_mem -= 1,
            EvState::BlockedBar => self.ev.blocked_bar -= 1,
            EvState::Ready => self.ev.clear_ready(local),
            EvState::Heap => self.ev.leave_heap(&mut sh.warps[wi].ev),
            EvState::Idle => {}
        }
        let w = &sh.warps[wi];
        if w.ib.head >= w.n_insts {
            sh.warps[wi].ev.state = EvState::Idle;
            return None;
        }
        let inst = sh.inst(wi, w.ib.head);
        let kernel = w.kernel;
        let block = |sh: &mut SmShared, st: EvState, kind: StallKind| {
            let e = &mut sh.warps[wi].ev;
            e.state = st;
            e.reason = kind;
            e.pc = inst.pc;
        };
        if w.at_barrier {
            block(sh, EvState::BlockedBar, StallKind::Barrier);
            self.ev.blocked_bar += 1;
            return None;
        }
        let op = ctx.kernels[kernel as usize].ops[inst.op.0 as usize];
        let t = earliest.max(w.ev.not_before);
        let reason = if w.ev.not_before > earliest {
            w.ev.nb_reason
        } else {
            StallKind::CompData
        };
        if w.ib.head >= w.ev.fetched {
            // Nothing fetched yet (launch): the first fetch starts now.
            self.ev_fetch(sh, ctx, wi, earliest);
        }
        let (mut t, mut reason) =
            self.operand_wait(sh, wi, sh.warps[wi].ib.head, &inst, op, kernel, (t, reason))?;
        if !op.is_mem() && !op.acts_at_issue() {
            let f = self.pool_free(sh, op.unit as usize);
            if f > t + 1 {
                t = f - 1;
                reason = StallKind::CompStructural;
            }
        }
        Some(Head {
            t,
            reason,
            op,
            kernel,
            inst,
        })
    }

    /// The memory pipeline this sub-core's memory instructions use.
    #[inline]
    fn mem_pipe(&self, sh: &SmShared) -> usize {
        if sh.p.subcore_mem {
            self.id
        } else {
            0
        }
    }

    /// Files warp `wi` in the heap at `t`, waiting for `reason` (blamed on `pc`).
    fn ev_file(
        &mut self,
        sh: &mut SmShared,
        wi: usize,
        t: Cycle,
        reason: StallKind,
        kernel: u32,
        pc: u32,
    ) {
        let blame = || (kernel, pc_slot(pc, sh.p.inst_bytes));
        let e = &mut sh.warps[wi].ev;
        e.state = EvState::Heap;
        e.at = t;
        e.reason = reason;
        e.pc = pc;
        e.wait = match reason {
            StallKind::MemData => {
                self.ev.wait_mem += 1;
                self.ev.mem_blame = Some(blame());
                W_MEM_DATA
            }
            StallKind::MemStructural => {
                self.ev.wait_struct += 1;
                self.ev.struct_blame = Some(blame());
                W_MEM_STRUCT
            }
            _ => W_NONE,
        };
        self.ev.push_ready(t, wi as u16);
    }

    /// Whether ready warp `wi` can issue its head instruction now.
    fn ev_pick(&self, now: Cycle, sh: &SmShared, wi: usize, used: u64) -> Pick {
        let op = sh.warps[wi].ev.op;
        if used & (1u64 << (op.unit & 63)) != 0 {
            return Pick::UnitUsed;
        }
        if op.is_mem() {
            let p = self.mem_pipe(sh);
            if is_direct(sh) {
                let f = sh.pipes[p].direct.free_at(now);
                if f > now {
                    return Pick::MemBusy(f);
                }
            } else if !sh.pipes[p].can_accept() {
                return Pick::MemFull;
            }
        } else if !op.acts_at_issue() {
            let f = self.pool_free(sh, op.unit as usize);
            if f > now + 1 {
                return Pick::UnitBusy(f - 1);
            }
        }
        Pick::Issue
    }

    /// The next ready warp in scheduler order, skipping those in `tried` (local bits); its
    /// local index.
    fn ev_choose(&self, sh: &SmShared, tried: &[u64; TRIED], used: u64) -> Option<usize> {
        let n = sh.p.subcores;
        let untried = |l: usize| l >= TRIED * 64 || tried[l / 64] & (1u64 << (l % 64)) == 0;
        // CGGTY's greedy part is GTO's; the event front end takes the oldest after it.
        let gto = matches!(self.sched.policy, SchedPolicy::Gto | SchedPolicy::Cggty);
        let extra = self.ev.open_parked(used);
        if let Some(l) = self.ev.last {
            let l = l as usize;
            let cand = self.ev.is_ready(l) || (l < 64 && extra & (1u64 << l) != 0);
            if gto && cand && untried(l) {
                return Some(l);
            }
        }
        let mut best: Option<usize> = None;
        let start = match (gto, self.ev.last) {
            (true, _) | (_, None) => 0,
            (_, Some(l)) => l as usize + 1,
        };
        let nl = self.ev.ready.len().max(1) * 64;
        let words = self.ev.ready.len().max(usize::from(extra != 0));
        for wd in 0..words {
            let mut bits = self.ev.ready.get(wd).copied().unwrap_or(0);
            if wd == 0 {
                bits |= extra;
            }
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let local = wd * 64 + b;
                if !untried(local) {
                    continue;
                }
                best = Some(match best {
                    None => local,
                    Some(o) if gto => {
                        let age = |l: usize| sh.warps[l * n + self.id].age;
                        if age(local) < age(o) {
                            local
                        } else {
                            o
                        }
                    }
                    Some(o) => {
                        // Round robin: first slot at or after `start`, cyclically.
                        let key = |x: usize| (x + nl - start) % nl;
                        if key(local) < key(o) {
                            local
                        } else {
                            o
                        }
                    }
                });
            }
        }
        best
    }

    /// One cycle of the event front end: heap entries due, then up to `issue_width` issues.
    /// Returns whether anything changed.
    #[inline]
    pub fn ev_step(&mut self, now: Cycle, sh: &mut SmShared, ctx: &StepCtx) -> bool {
        self.ev.now_hint = now;
        if self.ev.quiet(now) {
            // Nothing due and nothing filed since the stall was computed: the same stall.
            sh.account_stall(self.id, self.last_stall, self.last_stall_pc, 1);
            return false;
        }
        self.ev_step_due(now, sh, ctx)
    }

    /// [`Self::ev_step`] when something is due or changed.
    #[inline(never)]
    fn ev_step_due(&mut self, now: Cycle, sh: &mut SmShared, ctx: &StepCtx) -> bool {
        if is_direct(sh) {
            return self.ev_step_ahead(now, sh, ctx);
        }
        let n = sh.p.subcores;
        let mut changed = false;
        let soon_due = !self.ev.soon.is_empty() && self.ev.soon_at <= now;
        if soon_due {
            let t = self.ev.soon_at;
            for i in 0..self.ev.soon.len() {
                let w = self.ev.soon[i] as usize;
                let e = &mut sh.warps[w].ev;
                if e.state == EvState::Heap && e.at == t {
                    e.state = EvState::Ready;
                    self.ev.leave_heap(e);
                    self.ev.set_ready(div_pow2(w, n));
                }
            }
            self.ev.soon.clear();
            changed = true;
        }
        while let Some((t, w, kind)) = self.ev.heap.peek() {
            if t > now {
                break;
            }
            self.ev.heap.pop();
            changed = true;
            if kind == K_RETIRE {
                sh.warps[w as usize].inflight -= 1;
                sh.note_maybe_done(w);
            } else if kind == K_UNIT {
                let u = w as usize;
                if self.ev.park_at[u] == t && self.ev.parked[u] != 0 {
                    self.ev.open |= 1u32 << u;
                }
            } else if sh.warps[w as usize].ev.state == EvState::Heap
                && sh.warps[w as usize].ev.at == t
            {
                let e = &mut sh.warps[w as usize].ev;
                e.state = EvState::Ready;
                self.ev.leave_heap(e);
                self.ev.set_ready(div_pow2(w as usize, n));
            }
        }
        self.ev.mem_full = None;
        if self.ev.nready == 0 && self.ev.open == 0 {
            let (kind, pc) = self.ev_stall(sh);
            self.last_stall = kind;
            self.last_stall_pc = pc;
            self.ev.stale = false;
            sh.account_stall(self.id, kind, pc, 1);
            return changed;
        }
        let mut issued = 0u32;
        let mut used = 0u64;
        let mut tried = [0u64; TRIED];
        while (self.ev.nready > 0 || self.ev.open != 0) && issued < sh.p.issue_width {
            let Some(l) = self.ev_choose(sh, &tried, used) else {
                break;
            };
            let wi = l * n + self.id;
            if l < TRIED * 64 {
                tried[l / 64] |= 1u64 << (l % 64);
            }
            match self.ev_pick(now, sh, wi, used) {
                Pick::Issue => {
                    let unit = self.ev_issue(now, sh, ctx, wi);
                    used |= 1u64 << (unit & 63);
                    issued += 1;
                    changed = true;
                }
                Pick::UnitBusy(t) => {
                    let u = sh.warps[wi].ev.op.unit as usize;
                    if u < NUM_UNITS && self.ev.open & (1u32 << u) != 0 {
                        // Its unit was freed and taken again: all its parked warps wait.
                        self.ev.close_unit(&mut sh.warps, n, self.id, u, t);
                    }
                    if !self.ev.is_ready(l) {
                        // A parked warp of the (now closed) unit.
                        changed = true;
                        continue;
                    }
                    self.ev.clear_ready(l);
                    let ev = &mut self.ev;
                    if l < 64 && u < NUM_UNITS && (ev.parked[u] == 0 || ev.park_at[u] == t) {
                        if ev.parked[u] == 0 {
                            ev.park_at[u] = t;
                            ev.heap.push(t, u as u16, K_UNIT);
                        }
                        ev.parked[u] |= 1u64 << l;
                        let e = &mut sh.warps[wi].ev;
                        e.state = EvState::Heap;
                        e.at = t;
                        e.reason = StallKind::CompStructural;
                    } else {
                        let (k, pc) = (sh.warps[wi].kernel, sh.warps[wi].ev.pc);
                        self.ev_file(sh, wi, t, StallKind::CompStructural, k, pc);
                    }
                    changed = true;
                }
                Pick::MemBusy(t) => {
                    self.ev.clear_ready(l);
                    let (k, pc) = (sh.warps[wi].kernel, sh.warps[wi].ev.pc);
                    self.ev_file(sh, wi, t, StallKind::MemStructural, k, pc);
                    changed = true;
                }
                Pick::MemFull => {
                    let w = &sh.warps[wi];
                    self.ev
                        .mem_full
                        .get_or_insert((w.kernel, pc_slot(w.ev.pc, sh.p.inst_bytes)));
                }
                Pick::UnitUsed => {}
            }
        }
        let (kind, pc) = if issued > 0 {
            (StallKind::Issued, None)
        } else {
            self.ev_stall(sh)
        };
        // An issuing cycle's stall is not `ev_stall`'s: the refresh after the step computes it.
        self.ev.stale = issued > 0;
        self.last_stall = kind;
        self.last_stall_pc = pc;
        sh.account_stall(self.id, kind, pc, 1);
        changed
    }
}

/// A barrier of CTA slot `cta` released: its waiting warps (other than `except`) may issue
/// from `at`.
pub fn wake_cta(sh: &mut SmShared, cta: usize, except: usize, at: Cycle) {
    for k in 0..sh.ctas[cta].warp_slots.len() {
        let s = sh.ctas[cta].warp_slots[k];
        if s as usize != except && sh.warps[s as usize].ev.state == EvState::BlockedBar {
            sh.ev_wake.push((s, at));
        }
    }
}
