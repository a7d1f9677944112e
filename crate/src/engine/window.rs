//! Windows (issue 6): `fast` steps each SM on its own between CTA completions.
//!
//! In `fast` (event front end, analytical memory path: `SmWakes` on, no cycle memory system)
//! an SM reads nothing of the other SMs: each has its own analytical memory, and no replies
//! arrive from outside. What one SM does reaches another only through the block scheduler: a
//! CTA finishing frees room, and which CTA the next SM to ask gets depends on the order in
//! which CTAs finished everywhere. So a window `[G, H)` steps every SM by itself from `G` up
//! to `H` or through the cycle in which it finishes a CTA, whichever comes first (an SM that
//! finished waits there, *parked*, its CTA not yet handed to the block scheduler). Then the
//! earliest parked cycle `c` is booked (those SMs' finished CTAs, in SM order, as cycle `c`
//! would have booked them) and the next window starts at `c + 1`, where the block scheduler
//! issues as it would have; without a parked SM the window ends at `H`.
//!
//! ```text
//!  G            c   c+1                 H
//!  SM 0 ────────────────────────────────|        (ran to H: no CTA finished)
//!  SM 1 ────────x·······(parked)               x: finished a CTA in cycle c, booked at
//!  SM 2 ─────────────────────x·········           the window's end; the next window
//!  SM 3 ────────────────────────────────|         starts at c + 1, SM 2 still parked
//! ```
//! SMs may be ahead of the window's start this way. That is exact because the window's end
//! is no later than anything that could reach an SM from outside before it finishes a CTA of
//! its own:
//! - the first cycle the block scheduler may give a CTA to an SM that has not finished one
//!   (`BlockScheduler::open_from`: a retry after the CTA launch latency, a kernel's first
//!   CTAs, a queue that ran dry); an SM full for the issuing kernel is asked again only after
//!   it finished a CTA itself, which it waits for, parked;
//! - the next event of an SM with no resident CTA (a store still draining), so that the end
//!   of the run (`mem_idle`) and the next kernel's start read every such SM at the cycle
//!   itself; and a kernel can start only when every launched kernel has finished (one
//!   stream, or no concurrent kernels: `BlockScheduler::starts_only_when_empty`, else a
//!   slice steps cycle by cycle), when no SM holds a CTA and none is ahead;
//! - the slice's end.
//!
//! Each SM gets exactly the calls (`Sm::skip`, then its step) it gets cycle by cycle, and
//! every CTA is booked in the cycle it finished, in SM order, so results are those of stepping
//! cycle by cycle (`tests/windows_equal.rs`). With two threads the window's SMs are taken
//! from both ends of the list (`sync::Shares`), with more the pool steps them in small
//! pieces: one join per window instead of one per cycle; a window is `WINDOW` cycles at most so that most SMs step in every window (a
//! longer one lets them race to their next completion, and only the few booked each window
//! would step in the next).

use super::epoch::{prefetch, sm_epoch, EpochMarks};
use super::Gpu;
use crate::config::GpuConfig;
use crate::core::{Sm, StepCtx};
use crate::trace::KernelStream;
use crate::Cycle;

/// Whether an SM steps in the window ending at `h`: not parked on a finished CTA, and given
/// a CTA or due before `h` (`SmWakes::work` lists these; the pool picks them by the same test).
#[inline]
fn in_window(parked: Cycle, m: &EpochMarks, wake: Cycle, h: Cycle) -> bool {
    parked == Cycle::MAX && (m.launch.is_some() || wake < h)
}

/// The longest window (cycles).
const WINDOW: Cycle = 64;

/// Fewest SMs with work in a window for the crew to share it (the hand-off costs well under
/// a microsecond).
#[cfg(feature = "parallel")]
const PAR_MIN_SMS: usize = 2;

/// One SM's part of a window: its own per-SM state.
struct Lane<'a> {
    sm: &'a mut Sm,
    m: &'a mut EpochMarks,
    wake: &'a mut Cycle,
    from: &'a mut Cycle,
}

/// Steps one SM from `g` (its CTA handed over then) or its wake, event by event, up to `h` or
/// through the cycle in which it finished a CTA. Returns whether anything changed and that
/// cycle (`Cycle::MAX`: none).
#[inline]
fn run_sm(l: Lane, ctx: &StepCtx, cfg: &GpuConfig, g: Cycle, h: Cycle) -> (bool, Cycle) {
    let Lane { sm, m, wake, from } = l;
    let mut t = if m.launch.is_some() {
        g
    } else {
        (*wake).max(g)
    };
    let mut ch = false;
    while t < h {
        debug_assert!(*from <= t, "an SM steps each cycle once");
        if t > *from {
            sm.skip(t - *from);
        }
        *from = t + 1;
        ch |= sm_epoch(sm, m, ctx, cfg, t, 1);
        *wake = sm.wake;
        debug_assert!(
            sm.sh.outbox.is_empty(),
            "no packets without a memory system"
        );
        if !sm.sh.done_ctas.is_empty() {
            return (ch, t);
        }
        t = sm.wake;
    }
    (ch, Cycle::MAX)
}

impl Gpu {
    /// One window from `g` (the block scheduler has issued for `g`): see the module docs.
    /// Leaves `now` at the window's last cycle; returns whether anything changed (always, while
    /// an SM is parked: its booking must not be skipped over).
    pub(super) fn window(
        &mut self,
        g: Cycle,
        ahead: &mut Option<&mut (dyn KernelStream + Send + 'static)>,
    ) -> bool {
        let h = self.window_end(g);
        let w = &mut self.wakes;
        w.work.clear();
        for (s, m) in self.marks.iter().enumerate() {
            if in_window(w.parked[s], m, w.wake[s], h) {
                w.work.push(s as u32);
            }
        }
        let ch = self.window_sms(g, h, ahead);
        self.book(g, h) | ch
    }

    /// The window's end: see the module docs.
    fn window_end(&self, g: Cycle) -> Cycle {
        let w = &self.wakes;
        let mut h = w.end.min(g + WINDOW).min(self.sched.open_from());
        for (s, sm) in self.sms.iter().enumerate() {
            if sm.resident_ctas() == 0
                && self.marks[s].launch.is_none()
                && w.parked[s] == Cycle::MAX
                && w.wake[s] != Cycle::MAX
            {
                h = h.min(w.wake[s].max(g + 1));
            }
        }
        h.max(g + 1)
    }

    /// Steps the window's SMs (`SmWakes::work`): taken in runs from the two ends of the list
    /// (`sync::Shares`), this thread from the low end and, when there are enough to share,
    /// the crew's other workers from the high end, beside the stream's decode-ahead (the next
    /// two chunks, each claimed by one worker). On one thread the same, here.
    fn window_sms(
        &mut self,
        g: Cycle,
        h: Cycle,
        ahead: &mut Option<&mut (dyn KernelStream + Send + 'static)>,
    ) -> bool {
        let Gpu {
            sms,
            marks,
            kernels,
            cfg,
            wakes,
            #[cfg(feature = "parallel")]
            crew,
            ..
        } = self;
        let work = &wakes.work;
        #[cfg(feature = "parallel")]
        let mut crew = crew.as_mut();
        #[cfg(feature = "parallel")]
        let workers = crew.as_ref().map_or(1, |c| c.workers());
        #[cfg(not(feature = "parallel"))]
        let workers = 1;
        let shares = super::sync::Shares::listed(
            (
                &mut sms[..],
                &mut marks[..],
                &mut wakes.wake[..],
                &mut wakes.from[..],
                &mut wakes.parked[..],
            ),
            work,
        )
        .for_workers(workers);
        let ctx = StepCtx { kernels };
        let cfg = &*cfg;
        let take = |low: bool| {
            let mut ch = false;
            while let Some(r) = if low {
                shares.take_low()
            } else {
                shares.take_high()
            } {
                for (_, (sm, m, wake, from, parked)) in r {
                    let (c, p) = run_sm(Lane { sm, m, wake, from }, &ctx, cfg, g, h);
                    ch |= c;
                    *parked = p;
                }
            }
            ch
        };
        #[cfg(feature = "parallel")]
        if let Some(c) = crew.take() {
            let pair = ahead.as_deref_mut().and_then(|s| s.prefetch_pair());
            if work.len() < PAR_MIN_SMS {
                // Too little to share: the SMs here, the decoding (if due) on two threads.
                if let Some([x, y]) = pair {
                    c.join_once(x, y);
                }
                return take(true);
            }
            let [mut h0, mut h1] = pair.map_or([None, None], |[x, y]| [Some(x), Some(y)]);
            let mut d0 = || h0.take().map_or((), |x| x());
            let mut d1 = || h1.take().map_or((), |x| x());
            let sides = super::sync::Sides::new([
                Some(&mut d0 as &mut (dyn FnMut() + Send)),
                Some(&mut d1),
            ]);
            let hi = std::sync::atomic::AtomicBool::new(false);
            // A worker per SM at most (an SM's part is up to `WINDOW` cycles).
            let lo = c.run_upto(
                work.len(),
                || {
                    sides.run();
                    take(true)
                },
                &|_| {
                    sides.run();
                    if take(false) {
                        hi.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                },
            );
            return lo | hi.into_inner();
        }
        let ch = take(true);
        prefetch(ahead);
        ch
    }

    /// Ends the window: books the earliest parked cycle's finished CTAs (SM order) if it lies
    /// in the window, and leaves `now` at the window's last cycle.
    fn book(&mut self, g: Cycle, h: Cycle) -> bool {
        let c = self
            .wakes
            .parked
            .iter()
            .copied()
            .min()
            .unwrap_or(Cycle::MAX);
        debug_assert!(c == Cycle::MAX || c >= g);
        let end = if c < h { c + 1 } else { h };
        let mut progress = false;
        if c < h {
            let Gpu {
                sms,
                sched,
                staged,
                wakes,
                ..
            } = self;
            debug_assert!(staged.is_empty());
            staged.t0 = c;
            staged.k = 1;
            for (s, sm) in sms.iter_mut().enumerate() {
                if wakes.parked[s] == c {
                    wakes.parked[s] = Cycle::MAX;
                    progress |= super::run::stage_sm(sm, s, c, sched, staged);
                }
            }
            self.mem_side();
        }
        let w = &mut self.wakes;
        let mut min = Cycle::MAX;
        let mut parked = false;
        for (s, &p) in w.parked.iter().enumerate() {
            if p == Cycle::MAX {
                min = min.min(w.wake[s]);
            } else {
                parked = true;
            }
        }
        w.min = min;
        w.acct_to = end;
        self.now = end - 1;
        progress || parked
    }
}
