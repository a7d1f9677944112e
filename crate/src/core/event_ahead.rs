//! Run-ahead issue for `fast` mode (the event front end with `model.memory = analytical`; issue
//! 6; seed 000's analytical SM pipeline, Figure 3, and Swift-Sim-Memory's direct memory
//! timing). In `fast` every time a warp's instructions depend on is known when they issue (ALU
//! results from the op latency, memory results from the twin at issue), so a warp taken from
//! its sub-core's heap keeps issuing its following instructions in a tight loop, each at the
//! earliest cycle its operands, its instruction buffer, its unit and an issue slot allow, until
//! that cycle is more than [`HORIZON`] cycles past the SM's clock (or a barrier is not due
//! now): only then is it filed in the heap, to run ahead again when that cycle comes.
//!
//! ```text
//!  heap pop / wake at now ─> head instruction's earliest t (operands, ibuffer, branch,
//!        ^                    memory pipeline free) ─> slot s >= t: issue calendar has a free
//!        |                    lane at s and the unit's calendar is free over [s+1, s+1+interval)
//!        |                 ─> s <= now + HORIZON (and not a barrier after now)?
//!        |                      yes: issue at s (book the calendars, results, fetch) ─> loop
//!        └── heap (s) <─────── no:  file the warp at s
//! ```
//! Contention between warps is kept through per-sub-core calendars ([`Calendar`], a ring of
//! cycle-stamped counters): a warp that ran ahead books its issue slots and unit cycles, and
//! the warps evaluated after it take the free ones around them. What this approximates against
//! the event front end of `hybrid` (and so against `cycle`):
//! - the scheduler: issue slots go first come, first booked (in heap order: time, warp slot),
//!   not by GTO / round-robin priority among warps ready in the same cycle;
//! - processing order: a warp's instructions up to [`HORIZON`] cycles ahead are issued before
//!   other warps' earlier ones, so the memory twin's queues and the L0/L1 I-caches see them in
//!   that order (both book `max(now, ready) + interval`, so a request processed early can make
//!   an earlier one wait behind it);
//! - fetch: each warp fetches for itself (the sub-core's shared fetch unit is not booked: its
//!   `fetch_free` would make a warp that ran ahead block the others' fetches); I-cache misses
//!   and their latency are kept;
//! - the SM-wide FP64 pool (`units.dp.shared`) keeps its free-at times (booked out of order
//!   it can only delay); a unit's initiation interval is booked for at most [`MAX_INTERVAL`]
//!   cycles;
//! - statistics: each issue cycle counts as `issued` when it is booked; the sub-core's next
//!   accounted cycles pay that back (`SmShared::ahead_debt`), so the stall stack still sums
//!   to the cycles simulated, but which cycle carries which stall shifts by up to
//!   [`HORIZON`].

use super::{EvState, Head, K_RETIRE};
use crate::core::ctx::{StepCtx, NUM_UNITS, U_DP};
use crate::core::subcore::SubCore;
use crate::core::SmShared;
use crate::stats::StallKind;
use crate::trace::OpKind;
use crate::Cycle;
use std::cmp::Reverse;

/// How far (cycles past the SM's clock) a warp issues ahead before it is filed in the heap.
pub const HORIZON: Cycle = 48;

/// Ring length of the calendars (a power of two; holds `HORIZON` plus the longest booking).
const RING: usize = 256;

/// The longest unit booking (initiation interval) a calendar holds.
pub const MAX_INTERVAL: u64 = (RING as u64) - HORIZON - 8;

/// Counters per cycle in a ring: entry `c % RING` is `c << 5 | count`, valid while its stamp
/// is `c` (bookings span less than `RING` cycles, so a live cycle is never overwritten, and a
/// stale entry reads as zero).
#[derive(Clone, Debug, Default)]
pub struct Calendar {
    ring: Vec<u64>,
}

impl Calendar {
    fn new() -> Self {
        Calendar {
            ring: vec![0; RING],
        }
    }

    /// Bookings at cycle `c`.
    #[inline(always)]
    pub fn used(&self, c: Cycle) -> u32 {
        let e = self.ring[(c as usize) & (RING - 1)];
        if e >> 5 == c {
            (e & 31) as u32
        } else {
            0
        }
    }

    /// Books one more at cycle `c`; returns the bookings there before.
    #[inline(always)]
    pub fn book(&mut self, c: Cycle) -> u32 {
        let i = (c as usize) & (RING - 1);
        let e = self.ring[i];
        if e >> 5 == c {
            self.ring[i] = e + 1;
            (e & 31) as u32
        } else {
            self.ring[i] = (c << 5) | 1;
            0
        }
    }

    /// The first cycle of `[from, from + len)` with `cap` bookings, if any.
    #[inline(always)]
    fn full_in(&self, from: Cycle, len: u64, cap: u32) -> Option<Cycle> {
        (from..from + len).find(|&c| self.used(c) >= cap)
    }
}

/// The per-sub-core calendars (allocated at the first run-ahead).
#[derive(Clone, Debug, Default)]
pub struct Ahead {
    /// Issue lanes used per cycle (at most `issue_width`).
    issue: Calendar,
    /// Pipelines of each unit busy per cycle (at most the unit's count).
    units: Vec<Calendar>,
}

/// Where the slot search ended.
enum Slot {
    /// Issue at this cycle.
    At(Cycle),
    /// The first possible cycle is past the horizon (or a barrier after now): file it there.
    File(Cycle),
}

impl SubCore {
    /// `fast`: warp `wi` issues from `earliest` (no earlier than the SM's clock) as far as
    /// [`HORIZON`] allows, then is filed (heap, blocked, retiring).
    pub(super) fn ev_run(&mut self, sh: &mut SmShared, ctx: &StepCtx, wi: usize, earliest: Cycle) {
        let now = self.ev.now_hint;
        if self.ev.ahead.units.is_empty() {
            self.ev.ahead.issue = Calendar::new();
            self.ev.ahead.units = (0..NUM_UNITS).map(|_| Calendar::new()).collect();
        }
        let mut from = earliest.max(now);
        loop {
            let Some(h) = self.ev_head(sh, ctx, wi, from) else {
                return;
            };
            sh.warps[wi].ev.state = EvState::Idle;
            sh.warps[wi].ev.op = h.op;
            match self.ahead_slot(sh, &h, now) {
                Slot::At(s) => {
                    if !self.ahead_issue(s, now, sh, ctx, wi, &h) {
                        return;
                    }
                    from = s + 1;
                }
                Slot::File(s) => {
                    let reason = if s > h.t {
                        StallKind::CompStructural
                    } else {
                        h.reason
                    };
                    self.ev_file(sh, wi, s, reason, h.kernel, h.inst.pc);
                    return;
                }
            }
        }
    }

    /// The first cycle at or after `h.t` with a free issue lane and (ALU) a free pipeline of
    /// the unit over its interval.
    #[inline]
    fn ahead_slot(&self, sh: &SmShared, h: &Head, now: Cycle) -> Slot {
        let limit = now + HORIZON;
        let width = sh.p.issue_width.max(1);
        let op = h.op;
        let mut s = h.t;
        let mut unit: Option<(usize, u32, u64)> = None;
        if !op.is_mem() && !op.acts_at_issue() {
            let u = op.unit as usize;
            if u == U_DP && sh.p.dp_shared {
                s = s.max(self.pool_free(sh, u).saturating_sub(1));
            } else if u < NUM_UNITS {
                let cap = self.exec.pipes[u].len() as u32;
                if cap > 0 {
                    unit = Some((u, cap, (op.interval.max(1) as u64).min(MAX_INTERVAL)));
                }
            }
        }
        let a = &self.ev.ahead;
        loop {
            if s > limit {
                return Slot::File(s);
            }
            if a.issue.used(s) >= width {
                s += 1;
                continue;
            }
            if let Some((u, cap, iv)) = unit {
                if let Some(c) = a.units[u].full_in(s + 1, iv, cap) {
                    s = c;
                    continue;
                }
            }
            break;
        }
        if op.kind == OpKind::Barrier && s > now {
            return Slot::File(s);
        }
        Slot::At(s)
    }

    /// Issues warp `wi`'s head instruction `h` at `s` (booked in the calendars); returns
    /// whether the warp has more to issue (its next head is evaluated from `s + 1`).
    fn ahead_issue(
        &mut self,
        s: Cycle,
        now: Cycle,
        sh: &mut SmShared,
        ctx: &StepCtx,
        wi: usize,
        h: &Head,
    ) -> bool {
        let (op, inst, kernel) = (h.op, &h.inst, h.kernel);
        self.ev.stale = true;
        if self.ev.ahead.issue.book(s) == 0 {
            // A new issue cycle: counted now, paid back by the next accounted cycles.
            sh.stats.subcores[self.id].stalls.add(StallKind::Issued, 1);
            sh.ahead_debt[self.id] += 1;
        }
        let idx = sh.warps[wi].ib.head;
        sh.warps[wi].ib.head += 1;
        super::super::event_fetch::count_issue(s, sh, self.id, wi, kernel, inst);
        let mut next = s + 1;
        super::issue::issue_control(sh, wi, idx, op.kind, s);
        if op.is_mem() {
            self.issue_direct(s, sh, ctx, wi, inst, op);
        } else if !op.acts_at_issue() {
            let u = op.unit as usize;
            let start = s + 1;
            let iv = op.interval.max(1) as u64;
            if u == U_DP && sh.p.dp_shared {
                super::issue::book_pool(&mut sh.dp_pool, start + iv);
            } else if u < NUM_UNITS && !self.exec.pipes[u].is_empty() {
                let cal = &mut self.ev.ahead.units[u];
                for c in start..start + iv.min(MAX_INTERVAL) {
                    cal.book(c);
                }
            }
            next = super::issue::book_alu(sh, wi, inst, &op, u, start, next);
        }
        self.after_issue(sh, ctx, wi, s, next);
        // Not the last: a barrier the warp waits at is filed (blocked) by `ev_head` next round.
        !self.retire_if_last(sh, wi, s, now)
    }
}

impl SubCore {
    /// `fast`'s step of the sub-core ([`super::SubCore::ev_step`] when something is due):
    /// warps due now run ahead ([`SubCore::ev_run`]), retirements are counted, and the cycle
    /// is accounted with the stall of the heap's state (`issued` cycles were counted when
    /// booked).
    pub(super) fn ev_step_ahead(&mut self, now: Cycle, sh: &mut SmShared, ctx: &StepCtx) -> bool {
        let mut changed = false;
        if !self.ev.soon.is_empty() && self.ev.soon_at <= now {
            let t = self.ev.soon_at;
            let mut list = std::mem::take(&mut self.ev.soon);
            for &w in &list {
                let e = &sh.warps[w as usize].ev;
                if e.state == EvState::Heap && e.at == t {
                    self.ev_run(sh, ctx, w as usize, now);
                }
            }
            list.clear();
            if self.ev.soon.is_empty() {
                self.ev.soon = list;
            }
            changed = true;
        }
        while let Some(&Reverse((t, w, kind))) = self.ev.heap.peek() {
            if t > now {
                break;
            }
            self.ev.heap.pop();
            changed = true;
            let e = &sh.warps[w as usize].ev;
            if kind == K_RETIRE {
                sh.warps[w as usize].inflight -= 1;
                sh.note_maybe_done(w);
            } else if kind == super::K_READY && e.state == EvState::Heap && e.at == t {
                self.ev_run(sh, ctx, w as usize, now);
            }
        }
        let (kind, pc) = self.ev_stall(sh);
        self.last_stall = kind;
        self.last_stall_pc = pc;
        self.ev.stale = false;
        sh.account_stall(self.id, kind, pc, 1);
        changed
    }
}
