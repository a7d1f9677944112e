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

use super::{div_pow2, pc_slot, EvState, K_RETIRE};
use crate::core::ctx::{OpClass, StepCtx, NUM_UNITS, U_DP};
use crate::core::subcore::SubCore;
use crate::core::{IssueEvent, SmShared};
use crate::stats::StallKind;
use crate::trace::{OpKind, TraceInst};
use crate::Cycle;

/// How far (cycles past the SM's clock) a warp issues ahead before it is filed in the heap.
pub const HORIZON: Cycle = 48;

/// Ring length of the calendars (a power of two; holds `HORIZON` plus the longest booking).
const RING: usize = 256;

/// The longest unit booking (initiation interval) a calendar holds.
pub const MAX_INTERVAL: u64 = (RING as u64) - HORIZON - 8;

/// Counters per cycle in a ring: entry `c % RING` is `c << 5 | count`, valid while its stamp
/// is `c` (bookings span less than `RING` cycles, so a live cycle is never overwritten, and a
/// stale entry reads as zero). Beside it one bit per entry, set while the entry's cycle has
/// reached the calendar's capacity `cap`, so the searches ([`Calendar::first_free`],
/// [`Calendar::full_in`]) read 64 cycles a word. With `cap = 1` (one issue lane, one pipeline
/// per unit: every preset) the bit is the whole count and the ring is not kept. Every booking and search is at or after the SM's clock `now` and before
/// `now + RING`; [`Calendar::advance`] clears the bits of the cycles before `now`, so a set
/// bit in that window is always the full cycle of this turn of the ring.
#[derive(Clone, Debug, Default)]
pub struct Calendar {
    ring: Vec<u64>,
    full: [u64; RING / 64],
    /// Bookings a cycle holds.
    cap: u32,
    /// The bits of the cycles before this one are cleared.
    clear_to: Cycle,
}

impl Calendar {
    fn new(cap: u32) -> Self {
        let cap = cap.max(1);
        Calendar {
            ring: if cap > 1 { vec![0; RING] } else { Vec::new() },
            full: [0; RING / 64],
            cap,
            clear_to: 0,
        }
    }

    /// Bookings at cycle `c` (the searches read the full bits; the tests compare with this).
    #[cfg(test)]
    fn used(&self, c: Cycle) -> u32 {
        if self.cap == 1 {
            return self.is_full(c) as u32;
        }
        let e = self.ring[(c as usize) & (RING - 1)];
        if e >> 5 == c {
            (e & 31) as u32
        } else {
            0
        }
    }

    /// The clock is `now`: the full bits of the cycles before it are cleared (their entries
    /// are never booked or searched again, and their places in the ring come next).
    #[inline(always)]
    fn advance(&mut self, now: Cycle) {
        if now > self.clear_to {
            let i = (self.clear_to as usize) & (RING - 1);
            let span = now - self.clear_to;
            let b = i % 64;
            if span <= (64 - b) as u64 {
                // Within one word (the common case: the clock moved a few cycles).
                self.full[i / 64] &= !(low_bits(span) << b);
                self.clear_to = now;
            } else if span <= 64 {
                // Across one word boundary (b > 0 here): the rest of this word, the start of
                // the next.
                self.full[i / 64] &= low_bits(b as u64);
                let rest = span - (64 - b) as u64;
                self.full[(i / 64 + 1) % (RING / 64)] &= !low_bits(rest);
                self.clear_to = now;
            } else {
                self.clear(now);
            }
        }
    }

    #[inline(never)]
    fn clear(&mut self, now: Cycle) {
        if now - self.clear_to >= RING as u64 {
            self.full = [0; RING / 64];
        } else {
            let mut c = self.clear_to;
            while c < now {
                let i = (c as usize) & (RING - 1);
                let b = i % 64;
                let span = ((64 - b) as u64).min(now - c);
                self.full[i / 64] &= !(low_bits(span) << b);
                c += span;
            }
        }
        self.clear_to = now;
    }

    /// Books one more at cycle `c`, which has fewer than `cap` bookings; returns the
    /// bookings there before.
    #[inline(always)]
    pub fn book(&mut self, c: Cycle) -> u32 {
        debug_assert!(c >= self.clear_to && c < self.clear_to + RING as u64);
        debug_assert!(!self.is_full(c));
        let i = (c as usize) & (RING - 1);
        if self.cap == 1 {
            self.full[i / 64] |= 1u64 << (i % 64);
            return 0;
        }
        let e = self.ring[i];
        let before = if e >> 5 == c {
            self.ring[i] = e + 1;
            (e & 31) as u32
        } else {
            self.ring[i] = (c << 5) | 1;
            0
        };
        if before + 1 >= self.cap {
            self.full[i / 64] |= 1u64 << (i % 64);
        }
        before
    }

    /// Books one more at each cycle of `[from, from + len)` (none of them full, `len < RING`).
    #[inline(always)]
    fn book_span(&mut self, from: Cycle, len: u64) {
        if self.cap > 1 {
            for c in from..from + len {
                self.book(c);
            }
            return;
        }
        debug_assert!(self.full_in(from, len).is_none());
        let end = from + len;
        let mut c = from;
        while c < end {
            let i = (c as usize) & (RING - 1);
            let b = i % 64;
            let span = ((64 - b) as u64).min(end - c);
            self.full[i / 64] |= low_bits(span) << b;
            c += span;
        }
    }

    /// Whether cycle `c` has `cap` bookings.
    #[inline(always)]
    fn is_full(&self, c: Cycle) -> bool {
        let i = (c as usize) & (RING - 1);
        self.full[i / 64] & (1u64 << (i % 64)) != 0
    }

    /// The first cycle at or after `from` with fewer than `cap` bookings, or some cycle past
    /// `limit` when there is none up to it (`limit < from + RING - 64`).
    #[inline(always)]
    fn first_free(&self, from: Cycle, limit: Cycle) -> Cycle {
        let mut c = from;
        while c <= limit {
            let i = (c as usize) & (RING - 1);
            let b = i % 64;
            let free = !self.full[i / 64] >> b;
            if free != 0 {
                return c + free.trailing_zeros() as u64;
            }
            c += (64 - b) as u64;
        }
        c
    }

    /// The full bits of the 64 cycles from `from` (bit k: cycle `from + k`).
    #[inline(always)]
    fn bits64(&self, from: Cycle) -> u64 {
        let p = (from as usize) & (RING - 1);
        let (w, b) = (p / 64, p % 64);
        // `<< 1 << (63 - b)`: the next word's bits above the first word's (none when b = 0).
        (self.full[w] >> b) | (self.full[(w + 1) % (RING / 64)] << 1 << (63 - b))
    }

    /// The first cycle of `[from, from + len)` with `cap` bookings, if any (`len < RING`).
    #[inline(always)]
    fn full_in(&self, from: Cycle, len: u64) -> Option<Cycle> {
        if len <= 64 {
            let bits = self.bits64(from) & low_bits(len);
            return (bits != 0).then(|| from + bits.trailing_zeros() as u64);
        }
        let end = from + len;
        let mut c = from;
        while c < end {
            let i = (c as usize) & (RING - 1);
            let b = i % 64;
            let span = ((64 - b) as u64).min(end - c);
            let bits = (self.full[i / 64] >> b) & low_bits(span);
            if bits != 0 {
                return Some(c + bits.trailing_zeros() as u64);
            }
            c += span;
        }
        None
    }
}

impl Calendar {
    /// The full bits of the 128 cycles from `from` (bit k: cycle `from + k`).
    #[inline(always)]
    fn window(&self, from: Cycle) -> u128 {
        let p = (from as usize) & (RING - 1);
        let (w, b) = (p / 64, p % 64);
        let f = &self.full;
        let lo = f[w] as u128 | (f[(w + 1) % (RING / 64)] as u128) << 64;
        if b == 0 {
            lo
        } else {
            (lo >> b) | (f[(w + 2) % (RING / 64)] as u128) << (128 - b)
        }
    }
}

/// The first cycle at or after `s` (and at most `limit`, `limit - s < 64`) with a free issue
/// lane (`issue` window of `s`) whose next `iv` cycles (`1 <= iv <= 64`) have a free pipeline
/// (`unit` window of `s`, none: any), if any.
#[inline(always)]
fn first_slot(s: Cycle, limit: Cycle, issue: u128, unit: Option<(u128, u64)>) -> Option<Cycle> {
    let mut cand = !issue;
    if let Some((u, iv)) = unit {
        // Bit k of `blocked`: a full cycle in [k + 1, k + iv].
        let mut blocked = u >> 1;
        let mut len = 1;
        while len < iv {
            let step = len.min(iv - len);
            blocked |= blocked >> step;
            len += step;
        }
        cand &= !blocked;
    }
    cand &= (1u128 << (limit - s + 1)) - 1;
    (cand != 0).then(|| s + cand.trailing_zeros() as u64)
}

/// The lowest `n` bits (`1 <= n <= 64`).
#[inline(always)]
fn low_bits(n: u64) -> u64 {
    debug_assert!((1..=64).contains(&n));
    u64::MAX >> (64 - n)
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

/// What a run-ahead counts per instruction, added to the statistics once at its end (nothing
/// reads them in between): issued warp and thread instructions, new issue cycles.
#[derive(Default)]
struct Tally {
    insts: u64,
    lanes: u64,
    cycles: u64,
    l0_hits: u64,
}

impl SubCore {
    /// `fast`: warp `wi` issues from `earliest` (no earlier than the SM's clock) as far as
    /// [`HORIZON`] allows, then is filed (heap, blocked, retiring). The head instruction's
    /// evaluation is `ev_head`'s with the analytical memory (`is_direct`), the warp taken out
    /// of where it was filed once, before the loop.
    pub(super) fn ev_run(&mut self, sh: &mut SmShared, ctx: &StepCtx, wi: usize, earliest: Cycle) {
        let now = self.ev.now_hint;
        if self.ev.ahead.units.is_empty() {
            self.ev.ahead.issue = Calendar::new(sh.p.issue_width);
            let pipes = &self.exec.pipes;
            self.ev.ahead.units = (0..NUM_UNITS)
                .map(|u| Calendar::new(pipes[u].len() as u32))
                .collect();
        }
        // The clock is `now` for the whole run (the unit calendars advance when a unit is
        // searched: `ahead_slot`).
        self.ev.ahead.issue.advance(now);
        if !sh.warps[wi].active {
            return;
        }
        self.ev.stale = true;
        match sh.warps[wi].ev.state {
            EvState::BlockedMem => self.ev.blocked_mem -= 1,
            EvState::BlockedBar => self.ev.blocked_bar -= 1,
            EvState::Ready => self.ev.clear_ready(div_pow2(wi, sh.p.subcores)),
            EvState::Heap => self.ev.leave_heap(&mut sh.warps[wi].ev),
            EvState::Idle => {}
        }
        let kernel = sh.warps[wi].kernel;
        let ops = &ctx.kernels[kernel as usize].ops;
        let p = self.mem_pipe(sh);
        let mut tally = Tally::default();
        // The class of the last head evaluated (`EvWarp::op`, written once at the end).
        let mut last_op = None;
        let mut from = earliest.max(now);
        loop {
            let w = &sh.warps[wi];
            let head = w.ib.head;
            if head >= w.n_insts {
                sh.warps[wi].ev.state = EvState::Idle;
                break;
            }
            let inst = sh.inst(wi, head);
            let block = |sh: &mut SmShared, st: EvState, kind: StallKind| {
                let e = &mut sh.warps[wi].ev;
                e.state = st;
                e.reason = kind;
                e.pc = inst.pc;
            };
            if w.at_barrier {
                block(sh, EvState::BlockedBar, StallKind::Barrier);
                self.ev.blocked_bar += 1;
                break;
            }
            let op = ops[inst.op.0 as usize];
            let t = from.max(w.ev.not_before);
            let reason = if w.ev.not_before > from {
                w.ev.nb_reason
            } else {
                StallKind::CompData
            };
            if head >= w.ev.fetched {
                // Nothing fetched yet (launch): the first fetch starts now.
                self.ev_fetch(sh, ctx, wi, from);
            }
            let Some((mut t, mut reason)) =
                self.operand_wait(sh, wi, head, &inst, op, kernel, (t, reason))
            else {
                break;
            };
            let mem = op.is_mem();
            if mem {
                let f = sh.pipes[p].direct.free_at(t);
                if f > t {
                    t = f;
                    reason = StallKind::MemStructural;
                }
            }
            sh.warps[wi].ev.state = EvState::Idle;
            last_op = Some(op);
            match self.ahead_slot(sh, op, mem, t, now) {
                Slot::At(s) => {
                    if !self.ahead_issue(s, now, sh, ctx, wi, &inst, op, mem, &mut tally) {
                        break;
                    }
                    from = s + 1;
                }
                Slot::File(s) => {
                    let reason = if s > t {
                        StallKind::CompStructural
                    } else {
                        reason
                    };
                    self.ev_file(sh, wi, s, reason, kernel, inst.pc);
                    break;
                }
            }
        }
        if let Some(op) = last_op {
            sh.warps[wi].ev.op = op;
        }
        // The counts of the instructions issued (`count_issue`'s, and the new issue cycles,
        // paid back by the next accounted cycles).
        if tally.insts > 0 {
            let st = &mut sh.stats;
            st.warp_insts += tally.insts;
            st.thread_insts += tally.lanes;
            let sc = &mut st.subcores[self.id];
            sc.warp_insts += tally.insts;
            sc.thread_insts += tally.lanes;
            sc.stalls.add(StallKind::Issued, tally.cycles);
            let kc = &mut st.kernels[kernel as usize];
            kc.warp_insts += tally.insts;
            kc.thread_insts += tally.lanes;
            sh.ahead_debt[self.id] += tally.cycles;
        }
        sh.stats.subcores[self.id].l0i_hits += tally.l0_hits;
    }

    /// The first cycle at or after `t` with a free issue lane and (ALU) a free pipeline of
    /// the unit over its interval (`mem`: `op` is a memory instruction).
    #[inline(always)]
    fn ahead_slot(&mut self, sh: &SmShared, op: OpClass, mem: bool, t: Cycle, now: Cycle) -> Slot {
        let limit = now + HORIZON;
        let mut s = t;
        let mut unit: Option<(usize, u64)> = None;
        if !mem && !op.acts_at_issue() {
            let u = op.unit as usize;
            if u == U_DP && sh.p.dp_shared {
                s = s.max(self.pool_free(sh, u).saturating_sub(1));
            } else if u < NUM_UNITS {
                let cap = self.exec.pipes[u].len() as u32;
                if cap > 0 {
                    unit = Some((u, (op.interval.max(1) as u64).min(MAX_INTERVAL)));
                }
            }
        }
        let a = &mut self.ev.ahead;
        debug_assert!(a.issue.clear_to >= now);
        if let Some((u, _)) = unit {
            a.units[u].advance(now);
        }
        if s <= limit
            && !a.issue.is_full(s)
            && unit.is_none_or(|(u, iv)| a.units[u].full_in(s + 1, iv).is_none())
        {
            // Free at once (the common case: nothing to search).
            return if op.kind == OpKind::Barrier && s > now {
                Slot::File(s)
            } else {
                Slot::At(s)
            };
        }
        if s <= limit && limit - s < 64 && unit.is_none_or(|(_, iv)| iv <= 64) {
            // Both calendars at once, 128 cycles a window (`limit - s <= HORIZON`); with no
            // such cycle up to the limit, the search below gives the cycle it is filed at.
            let unit_w = unit.map(|(u, iv)| (a.units[u].window(s), iv));
            if let Some(c) = first_slot(s, limit, a.issue.window(s), unit_w) {
                return if op.kind == OpKind::Barrier && c > now {
                    Slot::File(c)
                } else {
                    Slot::At(c)
                };
            }
        }
        loop {
            if s > limit {
                return Slot::File(s);
            }
            // The first cycle with a free issue lane (all full up to the limit: filed at the
            // cycle after it).
            let f = a.issue.first_free(s, limit);
            if f > limit {
                return Slot::File(limit + 1);
            }
            s = f;
            if let Some((u, iv)) = unit {
                if let Some(c) = a.units[u].full_in(s + 1, iv) {
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

    /// Issues warp `wi`'s head instruction `inst` (class `op`, `mem`: a memory instruction)
    /// at `s` (booked in the calendars, counted in `tally`); returns whether the warp has more
    /// to issue (its next head is evaluated from `s + 1`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn ahead_issue(
        &mut self,
        s: Cycle,
        now: Cycle,
        sh: &mut SmShared,
        ctx: &StepCtx,
        wi: usize,
        inst: &TraceInst,
        op: OpClass,
        mem: bool,
        tally: &mut Tally,
    ) -> bool {
        if self.ev.ahead.issue.book(s) == 0 {
            // A new issue cycle: counted (at the run's end), paid back by the next accounted
            // cycles.
            tally.cycles += 1;
        }
        let w = &mut sh.warps[wi];
        let idx = w.ib.head;
        w.ib.head += 1;
        let kernel = w.kernel;
        // `count_issue`'s per-instruction part (the counters are the run's `tally`).
        tally.insts += 1;
        // A full mask without a popcount (no `popcnt` target feature: ~15 instructions).
        tally.lanes += if inst.mask == u32::MAX {
            32
        } else {
            inst.active_lanes() as u64
        };
        if let Some(p) = sh.stats.kernels[kernel as usize]
            .per_pc
            .get_mut(pc_slot(inst.pc, sh.p.inst_bytes) as usize)
        {
            p.issued += 1;
        }
        if let Some(log) = &mut sh.issue_log {
            log.push(IssueEvent {
                cycle: s,
                subcore: self.id as u8,
                warp: wi as u16,
                pc: inst.pc,
            });
        }
        let mut next = s + 1;
        super::issue::issue_control(sh, wi, idx, op.kind, s);
        if mem {
            self.issue_direct(s, sh, ctx, wi, idx, inst, op);
        } else if !op.acts_at_issue() {
            let u = op.unit as usize;
            let start = s + 1;
            let iv = op.interval.max(1) as u64;
            if u == U_DP && sh.p.dp_shared {
                super::issue::book_pool(&mut sh.dp_pool, start + iv);
            } else if u < NUM_UNITS && !self.exec.pipes[u].is_empty() {
                self.ev.ahead.units[u].book_span(start, iv.min(MAX_INTERVAL));
            }
            next = super::issue::book_alu(sh, wi, inst, &op, u, start, next);
        }
        // `after_issue`'s, with the refill inline.
        self.ahead_fetch(sh, ctx, wi, s, &mut tally.l0_hits);
        let w = &mut sh.warps[wi].ev;
        w.not_before = next;
        w.nb_reason = if next > s + 1 {
            StallKind::Control
        } else {
            StallKind::CompData
        };
        // Not the last: a barrier the warp waits at is filed (blocked) by the next round.
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
        while let Some((t, w, kind)) = self.ev.heap.peek() {
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

#[cfg(test)]
mod tests {
    use super::{first_slot, Calendar, RING};

    /// The seeded stream both tests draw bookings and clock steps from (Knuth's MMIX LCG).
    fn lcg(x: u64) -> u64 {
        x.wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407)
    }

    /// `first_slot` gives the cycle the step-by-step search gives (issue lane free, then the
    /// unit's next `iv` cycles free, else from the first full one), when it is up to the limit.
    #[test]
    fn first_slot_is_the_stepped_search() {
        let (mut issue, mut unit) = (Calendar::new(1), Calendar::new(2));
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut now = 0;
        for step in 0..30_000u64 {
            x = lcg(x);
            if x.is_multiple_of(5) {
                now += (x >> 61) + 1;
            }
            issue.advance(now);
            unit.advance(now);
            let c = now + (x >> 40) % 120;
            if issue.used(c) < 1 {
                issue.book(c);
            }
            let c = now + (x >> 30) % 160;
            if unit.used(c) < 2 {
                unit.book(c);
            }
            let iv = 1 + (x >> 20) % 64;
            let limit = now + 48;
            let mut s = now + (x >> 10) % 49;
            let stepped = loop {
                if s > limit {
                    break None;
                }
                let f = issue.first_free(s, limit);
                if f > limit {
                    break None;
                }
                s = f;
                if !x.is_multiple_of(3) {
                    if let Some(c) = unit.full_in(s + 1, iv) {
                        s = c;
                        continue;
                    }
                }
                break Some(s);
            };
            let s0 = now + (x >> 10) % 49;
            let u = (!x.is_multiple_of(3)).then(|| (unit.window(s0), iv));
            assert_eq!(
                first_slot(s0, limit, issue.window(s0), u),
                stepped,
                "step {step}"
            );
        }
    }

    /// `first_free` and `full_in` give what a scan of `used` gives, on a seeded stream of
    /// bookings at and after a clock moving forward (the bits of past cycles cleared by
    /// `advance`, stale ring entries included).
    #[test]
    fn searches_find_what_a_scan_finds() {
        for cap in 1..=3u32 {
            let mut cal = Calendar::new(cap);
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            let mut now = 0;
            for step in 0..30_000u64 {
                x = lcg(x);
                if x.is_multiple_of(7) {
                    now += (x >> 60) + if x.is_multiple_of(91) { RING as u64 } else { 0 };
                }
                cal.advance(now);
                let c = now + (x >> 40) % 200;
                if cal.used(c) < cap {
                    cal.book(c);
                }
                let from = now + (x >> 20) % 60;
                let limit = now + 48;
                let scan = (from..=limit).find(|&c| cal.used(c) < cap);
                let f = cal.first_free(from, limit);
                match scan {
                    Some(s) => assert_eq!(f, s, "cap {cap} step {step}"),
                    None => assert!(f > limit, "cap {cap} step {step}"),
                }
                let len = 1 + (x >> 50) % 190;
                let scan = (from + 1..from + 1 + len).find(|&c| cal.used(c) >= cap);
                assert_eq!(cal.full_in(from + 1, len), scan, "cap {cap} step {step}");
            }
        }
    }

    /// `book_span` leaves the full bits that booking each cycle of the span leaves, for one
    /// and two bookings a cycle (spans drawn where the unit's search found them free).
    #[test]
    fn book_span_is_booking_each_cycle() {
        for cap in 1..=2u32 {
            let (mut span, mut each) = (Calendar::new(cap), Calendar::new(cap));
            let mut x = 0x1234_5678_9abc_def1u64;
            let mut now = 0;
            for step in 0..20_000u64 {
                x = lcg(x);
                if x.is_multiple_of(3) {
                    now += (x >> 61) + 1;
                }
                span.advance(now);
                each.advance(now);
                let from = now + (x >> 20) % 48;
                let len = 1 + (x >> 40) % 70;
                if span.full_in(from, len).is_none() {
                    span.book_span(from, len);
                    for c in from..from + len {
                        each.book(c);
                    }
                }
                assert_eq!(span.full, each.full, "cap {cap} step {step}");
            }
        }
    }
}
