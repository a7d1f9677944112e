//! Memory windows: with two threads and a cycle memory system (`cycle`, `hybrid`),
//! the SMs step several cycles per hand-off instead of one, and the results stay those of
//! stepping cycle by cycle.
//!
//! What an SM reads from outside in a cycle is the replies handed to it and the CTA the block
//! scheduler gives it. Replies cross the reply crossbar, which takes at least
//! [`MemPartitions::reply_lookahead`] (`L`) core cycles: after the memory side's tick of cycle
//! `m - 1`, every reply it will hand over in the ticks of `m .. m + L - 1` is already in
//! flight, and can be read there ([`MemPartitions::replies_arriving`]). So a window `[G, H)`
//! of SM cycles needs the memory side only up to `H - 2 - L`, and the memory side's ticks of
//! the previous window run beside it:
//!
//! ```text
//!  this thread                                  partner
//!  ── between windows ─────────────────────────────────────────────────────────────────
//!  book the SMs parked in G - 1, feed CTAs, issue for G, list the SMs to step
//!  ── join (the window's phase) ────────────────────────────────────────────────────────
//!  the decode-ahead pair                        the memory side's staged ticks, cycle by
//!  SMs from the low end, each from G to H:      cycle (their replies were handed over
//!  it takes the replies read for it, then       already: dropped), then the replies of
//!  each reply in the cycle after its stamp;     the next L ticks read ahead (into the
//!  it stops where it finishes a CTA             other buffer); SMs from the high end
//!  ── join ends ────────────────────────────────────────────────────────────────────────
//!  the SMs parked in the window booked in       (when there is enough to book) the ticks
//!  cycle order, each given its next CTA and     every SM has stepped, while this thread
//!  stepped on to H (`settle.rs`)                books; the next replies read ahead
//!  the window's packets staged in (cycle, SM) order; the replies read before the window
//!  that no SM took (those not due in it) into their inboxes (`ahead.rs`)
//! ```
//! CTAs: as in `fast`'s windows (`window.rs`), an SM that finishes a CTA stops there, parked.
//! After the phase the parked SMs are booked in cycle order (SM order within a cycle): each
//! is given what the block scheduler gives it in the next cycle, then stepped on by itself up
//! to the window's end (or its next finished CTA, booked in turn), so every SM is at `H` for
//! the next window. A window ends no later than the first cycle the block scheduler might give
//! a CTA to an SM that did not just finish one (`BlockScheduler::open_from`). Windows run only
//! while the issuing kernel has more CTAs than its queue holds (no kernel can end or start),
//! and the regular loop goes on at a window's start: the memory side ticked through the cycle
//! before, the replies of its last tick in the SMs' inboxes, as after a cycle of `Gpu::step`.
//!
//! Each SM gets the calls it gets cycle by cycle (its CTA, its replies before the cycle after
//! their stamp, its step, or with the event front end its deferred accounting and its step
//! when due), and the memory side gets every packet stamped with its cycle in SM order, so
//! results are identical (`tests/threads_equal.rs`); debug builds check that every reply the
//! memory side hands over was handed to its SM before.

mod ahead;
mod settle;
mod side;

use ahead::{read_ahead, take_ahead, Ahead};
use settle::{book_parked, stage_window};
use side::{Boundary, MemSide};

use super::epoch::{
    decode_halves, mem_epoch, mem_epoch_while, sm_cycle, EpochMarks, Inboxes, Staged,
};
use super::run::feed;
use super::sync::{Crew, Shares};
use super::{Executor, Gpu, MemPartitions};
use crate::config::GpuConfig;
use crate::core::{Sm, StepCtx};
use crate::mem::NocPacket;
use crate::trace::KernelStream;
use crate::{Cycle, Result};

/// The longest window (cycles).
const WINDOW: Cycle = 16;

/// Windows need at least this reply lookahead (a shorter one gives windows of a cycle or two,
/// which the crew's split cycles run better).
const MIN_LOOKAHEAD: Cycle = 4;

/// SMs this thread claims at a time below the boundary.
const OWN_RUN: usize = 4;

/// SMs the partner takes at a time from the high end.
const HIGH_RUN: usize = 2;

/// SM-cycles the booking after a window must step on this thread for the memory side's ticks
/// to run beside it.
const SETTLE_BESIDE_MIN: Cycle = 3;

/// Windows in a row without progress before the regular loop takes over (its idle skipping
/// and deadlock report).
const IDLE_WINDOWS: u32 = 4;

/// One SM's place in the windows.
#[derive(Clone, Debug, Default)]
struct Lane {
    /// Every cycle before this is stepped (or slept through).
    at: Cycle,
    /// The cycle in which it finished a CTA not yet booked, or `Cycle::MAX`.
    parked: Cycle,
    /// Its outbox's length after each cycle it sent packets in, for the packets not yet staged.
    sent: Vec<(Cycle, u32)>,
    /// The entries of `sent` staged so far.
    cur: usize,
}

/// The windows' state, kept between runs (scratch).
#[derive(Debug)]
pub(super) struct MemWindows {
    lanes: Vec<Lane>,
    /// The SMs to step in the window (SM order).
    work: Vec<u32>,
    /// SMs with packets not yet staged (SM order once sorted, `stage_window`).
    senders: Vec<u32>,
    /// SMs parked in the window (SM order), kept until all are booked: the only ones the
    /// booking after it steps (no other SM can be given a CTA before the window's end).
    parked: Vec<u32>,
    /// What each thread's SMs did in the window's phase: parked, sent packets (scratch; each
    /// side lists its own SMs, so nothing else reads every SM's lane afterwards).
    lo_parked: Vec<u32>,
    lo_sent: Vec<u32>,
    hi_parked: Vec<u32>,
    hi_sent: Vec<u32>,
    /// Event front end: the SMs given a CTA at the window's start (scratch, per SM).
    launched: Vec<bool>,
    /// What the memory side hands over in its ticks (already in the SMs' inboxes).
    spent: Inboxes,
    /// Replies read ahead, in two buffers: while the SMs take theirs from `ahead_in[pull]` as
    /// they step (read before the window), the partner reads the next ones into the other.
    ahead_in: [Ahead; 2],
    pull: usize,
    /// Kernel ends booked beside the memory side's ticks (none while windows run: checked).
    flushes: Vec<Cycle>,
    bound: Boundary,
    /// Debug builds: per SM, the replies handed over ahead, for the memory side's to match
    /// (empty in release builds).
    ahead: Vec<std::collections::VecDeque<(Cycle, NocPacket)>>,
}

impl MemWindows {
    pub fn new(sms: usize) -> MemWindows {
        MemWindows {
            lanes: vec![Lane::default(); sms],
            work: Vec::new(),
            senders: Vec::new(),
            parked: Vec::new(),
            lo_parked: Vec::new(),
            lo_sent: Vec::new(),
            hi_parked: Vec::new(),
            hi_sent: Vec::new(),
            launched: vec![false; sms],
            spent: Inboxes {
                per_sm: vec![Vec::new(); sms],
                filled: Vec::new(),
            },
            ahead_in: [Ahead::new(sms), Ahead::new(sms)],
            pull: 0,
            flushes: Vec::new(),
            bound: Boundary::new(sms),
            ahead: if cfg!(debug_assertions) {
                vec![Default::default(); sms]
            } else {
                Vec::new()
            },
        }
    }
}

/// What a window's SM half needs besides the SMs.
struct WinCtx<'a> {
    ctx: StepCtx<'a>,
    cfg: &'a GpuConfig,
    g: Cycle,
    h: Cycle,
    /// The event front end: SMs step only when due (`SmWakes`).
    due_only: bool,
}

/// Steps SM `s` through the window, or through the cycle in which it finishes a CTA. With the
/// event front end `wake`/`from` are its `SmWakes` entries. Returns whether anything changed.
#[inline]
fn run_lane(
    sm: &mut Sm,
    m: &mut EpochMarks,
    lane: &mut Lane,
    wake: &mut Cycle,
    from: &mut Cycle,
    x: &WinCtx,
) -> bool {
    let mut t = lane.at.max(x.g);
    let mut ch = false;
    loop {
        if x.due_only {
            // Due: a CTA to take (at the window's start), its wake, or a reply to take.
            let next = if m.launch.is_some() {
                t
            } else {
                let r = m.inbox.first().map_or(Cycle::MAX, |&(c, _)| c + 1);
                sm.wake.min(r).max(t)
            };
            t = next;
        }
        if t >= x.h {
            break;
        }
        if x.due_only && t > *from {
            sm.skip(t - *from);
        }
        *from = t + 1;
        ch |= sm_cycle(sm, m, &x.ctx, x.cfg, t);
        let len = sm.sh.outbox.len() as u32;
        if len > lane.sent.last().map_or(0, |e| e.1) {
            lane.sent.push((t, len));
        }
        if !sm.sh.done_ctas.is_empty() {
            lane.parked = t;
            lane.at = t + 1;
            *wake = sm.wake;
            return ch;
        }
        t += 1;
    }
    lane.at = x.h;
    *wake = sm
        .wake
        .min(m.inbox.first().map_or(Cycle::MAX, |&(c, _)| c + 1));
    ch
}

/// What an SM of the window's parallel phase gets (`Shares`): itself, its marks and lane, its
/// replies read ahead and the first cycle among them, and its wake and accounting when only
/// due SMs are listed.
type Item<'s> = (
    (&'s mut Sm, &'s mut EpochMarks, &'s mut Lane),
    (&'s mut Vec<(Cycle, NocPacket)>, &'s mut Cycle),
    Option<(&'s mut Cycle, &'s mut Cycle)>,
);

impl Gpu {
    /// Whether memory windows may follow cycle `now` (a cycle that made progress; see the
    /// module docs).
    pub(super) fn mem_windows_ok(&self, end: Cycle) -> bool {
        self.crew_of_two()
            && self.executor == Executor::Parallel
            && self.epoch == 1
            && !self.wakes.windows
            && self.now + 2 < end
            && self.sched.issuing.is_some()
            && self.sched.more
            && self.partitions.reply_lookahead() >= MIN_LOOKAHEAD
            && self.sms.iter().all(|sm| sm.recorder.is_none())
    }

    /// Runs windows from `now + 1` while [`Gpu::mem_windows_ok`]'s conditions last, then
    /// brings every SM to one cycle. Leaves `now` at the last cycle run and returns whether
    /// the last window made progress.
    pub(super) fn mem_windows(
        &mut self,
        stream: &mut Option<Box<dyn KernelStream + Send>>,
        end: Cycle,
    ) -> Result<bool> {
        self.finish_requests();
        self.partitions.set_parallel(false, 0);
        let mut partner = self.crew.take().expect("two threads");
        let mut w = std::mem::replace(&mut self.mwin, MemWindows::new(0));
        let g = self.now + 1;
        for l in &mut w.lanes {
            l.at = g;
            l.parked = Cycle::MAX;
            l.sent.clear();
            l.cur = 0;
        }
        w.parked.clear();
        w.senders.clear();
        let lmin = self.partitions.reply_lookahead();
        let mut mem = MemSide::take(self);
        mem.staged.t0 = g;
        mem.staged.k = 0;
        let r = self.windows_from(g, lmin, &mut w, &mut mem, &mut partner, stream, end);
        mem.put_back(self);
        self.mwin = w;
        self.crew = Some(partner);
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn windows_from(
        &mut self,
        mut g: Cycle,
        lmin: Cycle,
        w: &mut MemWindows,
        mem: &mut MemSide,
        partner: &mut Crew,
        stream: &mut Option<Box<dyn KernelStream + Send>>,
        end: Cycle,
    ) -> Result<bool> {
        // The memory side's ticks before `staged.t0` have run; the replies of its ticks up to
        // `peeked` are in the SMs' inboxes or read ahead (`w.ahead_in`).
        let mut peeked = g + lmin - 1;
        read_ahead(
            &mem.partitions,
            &mut w.ahead_in[w.pull],
            &mut w.ahead,
            g - 1,
            peeked,
        );
        let mut idle = 0;
        let mut progress = true;
        loop {
            // Every SM is at `g`; those parked finished a CTA in `g - 1`.
            let booked = book_parked(self, w, g - 1, &mut mem.staged.flushes);
            w.parked.clear();
            progress |= booked;
            feed(self, stream)?;
            if !(self.sched.issuing.is_some() && self.sched.more)
                || idle > IDLE_WINDOWS
                || g + 1 >= end
            {
                // The regular loop goes on from `g` (it issues for `g`).
                break;
            }
            let launched = &mut w.launched;
            progress = self.issue_ctas_noting(g, |s| launched[s] = true) | booked;
            // At most half the lookahead, so the next window may be as long.
            let h = (g + WINDOW.min(lmin.div_ceil(2)))
                .min(peeked + 2)
                .min(end)
                .min(self.sched.open_from())
                .max(g + 1);
            debug_assert!(h - 2 <= peeked, "a window beyond the reply lookahead");
            self.list_work(w, g, h);
            let ahead = (peeked, mem.staged.t0 + mem.staged.k + lmin - 1);
            debug_assert_eq!(mem.staged.t0 + mem.staged.k, g);
            progress |= self.window_phase(w, mem, partner, stream, g, h, ahead)?;
            peeked = peeked.max(ahead.1);
            w.drop_spent();
            // The cycles every SM has stepped (up to the earliest parked one) go to the memory
            // side now, beside the booking of the parked SMs, when that has enough SM-cycles
            // to step (one is a fraction of a memory tick, and the partner finishes the tick
            // it is in).
            let (mut c, mut behind) = (Cycle::MAX, 0);
            for &s in &w.parked {
                let p = w.lanes[s as usize].parked;
                c = c.min(p);
                behind += h - 1 - p;
            }
            let cut = c.min(h - 1) + 1;
            if cut < h && behind >= SETTLE_BESIDE_MIN && self.no_flush_ahead() {
                stage_window(&mut self.sms, w, &mut mem.staged, g, cut, false);
                let (any, upto) =
                    self.settle_beside(w, mem, partner, g, h, stream, peeked, lmin)?;
                progress |= any;
                peeked = peeked.max(upto);
                w.drop_spent();
                stage_window(&mut self.sms, w, &mut mem.staged, cut, h, true);
            } else {
                let MemWindows {
                    lanes,
                    parked,
                    senders,
                    ..
                } = w;
                let flushes = &mut mem.staged.flushes;
                progress |= self.settle(lanes, parked, senders, flushes, g, h, stream)?;
                stage_window(&mut self.sms, w, &mut mem.staged, g, h, true);
            }
            // The replies read before the window that its SMs did not take (those not due in
            // it) go to their inboxes; the ones read in it are taken from the other buffer.
            self.post_ahead(w);
            w.pull ^= 1;
            self.window_cycles += h - g;
            idle = if progress { 0 } else { idle + 1 };
            if progress {
                self.last_progress = h - 1;
            }
            g = h;
        }
        // Every SM is at `g`: the memory side ticks up to it. Its replies were all handed over
        // ahead; those for cycles from `g` on are taken back (still in flight, the regular
        // loop's ticks hand them over), so the inboxes hold what a regular cycle leaves.
        let MemSide {
            partitions,
            clocks,
            outbox,
            replies,
            staged,
            ..
        } = mem;
        debug_assert_eq!(staged.t0 + staged.k, g);
        mem_epoch(partitions, clocks, outbox, replies, staged, &mut w.spent);
        debug_assert!(peeked >= g - 1);
        w.drop_spent();
        self.post_ahead(w);
        debug_assert!(w.ahead_in[w.pull ^ 1].inb.filled.is_empty());
        let Gpu {
            marks, wakes, sms, ..
        } = self;
        for (s, m) in marks.iter_mut().enumerate() {
            let k = m.inbox.partition_point(|&(c, _)| c < g);
            m.inbox.truncate(k);
            #[cfg(debug_assertions)]
            {
                while w.ahead[s].back().is_some_and(|&(c, _)| c >= g) {
                    w.ahead[s].pop_back();
                }
                debug_assert!(w.ahead[s].is_empty());
            }
            if wakes.on {
                let r = m.inbox.first().map_or(Cycle::MAX, |&(c, _)| c + 1);
                wakes.wake[s] = sms[s].wake.min(r);
            }
        }
        if wakes.on {
            wakes.min = wakes.wake.iter().copied().min().unwrap_or(Cycle::MAX);
            wakes.acct_to = g;
        }
        self.now = g - 1;
        Ok(progress)
    }

    /// Whether no kernel but the issuing one (which has CTAs to come) is running: then no
    /// booking can end a kernel, whose L2 flush the memory side must see in its cycle.
    fn no_flush_ahead(&self) -> bool {
        match self.sched.unfinished() {
            0 => true,
            1 => self
                .sched
                .issuing
                .is_some_and(|l| !self.sched.runs[l as usize].done()),
            _ => false,
        }
    }

    /// The SMs to step in window `[g, h)`: not parked, not ahead of it, and (event front end)
    /// due in it.
    fn list_work(&mut self, w: &mut MemWindows, g: Cycle, h: Cycle) {
        // Every SM is at `g` (none parked): all of them, or those due.
        debug_assert!(w.lanes.iter().all(|l| l.parked == Cycle::MAX && l.at <= g));
        let due_only = self.wakes.on;
        w.work.clear();
        let first = &w.ahead_in[w.pull].first;
        for (s, launched) in w.launched.iter_mut().enumerate() {
            let due = || self.wakes.wake[s] < h || first[s] < h - 1;
            if std::mem::take(launched) || !due_only || due() {
                w.work.push(s as u32);
            }
        }
    }

    /// The window's parallel phase: the SMs of `w.work` on both threads, the memory side's
    /// ticks `staged.t0 .. g` and its read-ahead (`ahead`) on the partner first.
    #[allow(clippy::too_many_arguments)]
    fn window_phase(
        &mut self,
        w: &mut MemWindows,
        mem: &mut MemSide,
        partner: &mut Crew,
        stream: &mut Option<Box<dyn KernelStream + Send>>,
        g: Cycle,
        h: Cycle,
        ahead: (Cycle, Cycle),
    ) -> Result<bool> {
        let (mut h0, mut h1) = decode_halves(stream.as_deref_mut().map(|s| s as _));
        let due_only = self.wakes.on;
        let Gpu {
            sms,
            marks,
            kernels,
            cfg,
            wakes,
            ..
        } = self;
        let MemWindows {
            lanes,
            work,
            spent,
            ahead_in,
            pull,
            ahead: log,
            bound,
            lo_parked,
            lo_sent,
            hi_parked,
            hi_sent,
            ..
        } = w;
        let sms_n = sms.len();
        let k = bound.k().min(sms_n);
        let split = work.partition_point(|&s| (s as usize) < k);
        // The SMs take their replies from one buffer, the partner reads into the other.
        let [a0, a1] = ahead_in;
        let (take, fill) = if *pull == 0 { (a0, a1) } else { (a1, a0) };
        let shares = Shares::listed(
            (
                (&mut sms[..], &mut marks[..], &mut lanes[..]),
                (&mut take.inb.per_sm[..], &mut take.first[..]),
                due_only.then_some((&mut wakes.wake[..], &mut wakes.from[..])),
            ),
            work,
        );
        let x = WinCtx {
            ctx: StepCtx { kernels },
            cfg,
            g,
            h,
            due_only,
        };
        // Steps SM `s`, listing it in `parked` / `sent` when it parked / sent packets.
        let visit = |s: usize,
                     ((sm, m, l), (new, first), wf): Item<'_>,
                     spare: &mut (Cycle, Cycle),
                     parked: &mut Vec<u32>,
                     sent: &mut Vec<u32>| {
            take_ahead(m, new, first);
            let (wk, fr) = wf.unwrap_or((&mut spare.0, &mut spare.1));
            let ch = run_lane(sm, m, l, wk, fr, &x);
            if l.parked != Cycle::MAX {
                parked.push(s as u32);
            }
            if !l.sent.is_empty() {
                sent.push(s as u32);
            }
            ch
        };
        let mut hi = (false, None, std::time::Instant::now());
        let mut theirs = || {
            let mut any = mem.ticks(spent, fill, log, ahead);
            let mut spare = (0, 0);
            let mut start = None;
            // In short runs: this thread, done with its own, takes the rest.
            while let Some(r) = shares.take_high_len(HIGH_RUN) {
                start.get_or_insert_with(std::time::Instant::now);
                for (s, item) in r {
                    any |= visit(s, item, &mut spare, hi_parked, hi_sent);
                }
            }
            hi = (any, start, std::time::Instant::now());
        };
        let (lo, a_start, a_end, a_items) = partner.join(
            || {
                // Both decode-ahead halves here: the partner's memory side cannot be shared,
                // its SMs can (this thread's, not yet claimed, too).
                for d in [h0.take(), h1.take()].into_iter().flatten() {
                    d();
                }
                let (start, mut items, mut any) = (std::time::Instant::now(), 0, false);
                let mut spare = (0, 0);
                // Its own SMs a few at a time (the partner, done early, takes the last of
                // them), then the partner's lowest one at a time.
                while let Some(r) = shares.take_low_len(if items < split {
                    (split - items).min(OWN_RUN)
                } else {
                    1
                }) {
                    items += r.len();
                    for (s, item) in r {
                        any |= visit(s, item, &mut spare, lo_parked, lo_sent);
                    }
                }
                (any, start, std::time::Instant::now(), items)
            },
            &mut theirs,
        );
        bound.feedback(a_start, a_end, a_items, hi.1, hi.2, sms_n);
        // The two sides' lists, in SM order.
        debug_assert!(w.parked.is_empty());
        w.parked.append(&mut w.lo_parked);
        w.parked.append(&mut w.hi_parked);
        w.parked.sort_unstable();
        w.senders.append(&mut w.lo_sent);
        w.senders.append(&mut w.hi_sent);
        Ok(lo | hi.0)
    }
}
