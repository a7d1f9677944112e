//! Memory windows, after a window's phase: the SMs parked in it booked in cycle order and
//! stepped on to its end (`settle`), and the window's packets staged for the memory side.

use super::*;

impl Gpu {
    /// [`Gpu::settle`] on this thread while the partner runs the memory side's staged ticks
    /// (as many as fit beside it) and reads the replies of the next ones ahead
    /// (after `peeked`). Returns whether anything changed and how far it read ahead.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn settle_beside(
        &mut self,
        w: &mut MemWindows,
        mem: &mut MemSide,
        partner: &mut Crew,
        g: Cycle,
        h: Cycle,
        stream: &mut Option<Box<dyn KernelStream + Send>>,
        peeked: Cycle,
        lmin: Cycle,
    ) -> Result<(bool, Cycle)> {
        use std::sync::atomic::{AtomicBool, Ordering};
        let MemWindows {
            lanes,
            spent,
            ahead_in,
            pull,
            ahead: log,
            flushes,
            parked,
            senders,
            ..
        } = w;
        let fill = &mut ahead_in[*pull ^ 1];
        let (mut mem_any, mut upto) = (false, peeked);
        let done = AtomicBool::new(false);
        let r = partner.join(
            || {
                let r = self.settle(lanes, parked, senders, flushes, g, h, stream);
                done.store(true, Ordering::Release);
                r
            },
            &mut || {
                let MemSide {
                    partitions,
                    clocks,
                    outbox,
                    replies,
                    staged,
                    ..
                } = &mut *mem;
                mem_any =
                    mem_epoch_while(partitions, clocks, outbox, replies, staged, spent, || {
                        !done.load(Ordering::Acquire)
                    });
                upto = staged.t0 + lmin - 1;
                if upto > peeked {
                    read_ahead(partitions, fill, log, peeked, upto);
                }
            },
        );
        debug_assert!(flushes.iter().all(|&c| c >= mem.staged.t0 + mem.staged.k));
        mem.staged.flushes.append(flushes);
        Ok((r? | mem_any, upto.max(peeked)))
    }

    /// After the parallel phase of window `[g, h)`: the SMs parked in it (`parked`) are booked
    /// in cycle order, each given what the block scheduler gives it then, and stepped on here
    /// in windows of their own (no other SM can be given a CTA before `h`), until every SM is
    /// at `h` or parked in `h - 1`; those that send packets join `senders`. Kernel ends go to
    /// `flushes`. Returns whether anything changed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn settle(
        &mut self,
        lanes: &mut [Lane],
        parked: &[u32],
        senders: &mut Vec<u32>,
        flushes: &mut Vec<Cycle>,
        g: Cycle,
        h: Cycle,
        stream: &mut Option<Box<dyn KernelStream + Send>>,
    ) -> Result<bool> {
        let mut done = false;
        loop {
            // The next cycle the block scheduler may hand out a CTA in: after the earliest
            // park, or where an SM stepped here stopped (the scheduler's `open_from`). Only
            // the SMs parked in the window are behind `h`.
            let mut next = Cycle::MAX;
            let mut c = Cycle::MAX;
            for &s in parked {
                let l = &lanes[s as usize];
                if l.parked == Cycle::MAX {
                    next = next.min(l.at);
                } else {
                    c = c.min(l.parked);
                }
            }
            next = next.min(c.saturating_add(1));
            if next >= h {
                return Ok(done);
            }
            debug_assert!(next > g);
            if c.saturating_add(1) == next {
                done |= book_lanes(self, lanes, parked, c, flushes);
            }
            // The queue was filled before the window (one CTA per SM and one more): fed
            // again only when nearly empty (which CTA comes next does not depend on it).
            if self.sched.ctas.len() < 2 {
                feed(self, stream)?;
            }
            done |= self.issue_ctas(next);
            let h2 = h.min(self.sched.open_from()).max(next + 1);
            self.steps_here(lanes, parked, senders, next, h2);
        }
    }

    /// Steps the SMs of `list` behind `h2` (not parked) from where they are to `h2` on this
    /// thread, adding those that send packets to `senders`.
    fn steps_here(
        &mut self,
        lanes: &mut [Lane],
        list: &[u32],
        senders: &mut Vec<u32>,
        g2: Cycle,
        h2: Cycle,
    ) {
        let due_only = self.wakes.on;
        let Gpu {
            sms,
            marks,
            kernels,
            cfg,
            wakes,
            ..
        } = self;
        let x = WinCtx {
            ctx: StepCtx { kernels },
            cfg,
            g: g2,
            h: h2,
            due_only,
        };
        let (mut sw, mut sf) = (0, 0);
        for &s in list {
            let (s, l) = (s as usize, &mut lanes[s as usize]);
            if l.parked != Cycle::MAX || l.at >= h2 {
                continue;
            }
            let (wk, fr) = if due_only {
                (&mut wakes.wake[s], &mut wakes.from[s])
            } else {
                (&mut sw, &mut sf)
            };
            run_lane(&mut sms[s], &mut marks[s], l, wk, fr, &x);
            if !l.sent.is_empty() {
                senders.push(s as u32);
            }
        }
    }
}

/// Books the finished CTAs of the SMs parked in cycle `c` (SM order; kernel ends into
/// `flushes`) and releases them (each is at `c + 1`). Returns whether there were any.
pub(super) fn book_parked(
    gpu: &mut Gpu,
    w: &mut MemWindows,
    c: Cycle,
    flushes: &mut Vec<Cycle>,
) -> bool {
    book_lanes(gpu, &mut w.lanes, &w.parked, c, flushes)
}

/// [`book_parked`] on the lanes of `list` (SM order).
fn book_lanes(
    gpu: &mut Gpu,
    lanes: &mut [Lane],
    list: &[u32],
    c: Cycle,
    flushes: &mut Vec<Cycle>,
) -> bool {
    let mut done = false;
    for &s in list {
        let (s, l) = (s as usize, &mut lanes[s as usize]);
        if l.parked == c {
            l.parked = Cycle::MAX;
            let sm = &mut gpu.sms[s];
            done |= gpu.sched.finished(s, &sm.sh.done_ctas, c, flushes);
            sm.sh.done_ctas.clear();
        }
    }
    done
}

/// Stages the packets of cycles `g .. h` for the memory side (`staged`, empty), in (cycle, SM)
/// order. `last`: the window's last part, every SM is at `h` and its packets leave the SMs.
pub(super) fn stage_window(
    sms: &mut [Sm],
    w: &mut MemWindows,
    staged: &mut Staged,
    g: Cycle,
    h: Cycle,
    last: bool,
) {
    if staged.k > 0 {
        // Ticks before `g` still waiting: these follow them.
        debug_assert_eq!(staged.t0 + staged.k, g);
        staged.k = h - staged.t0;
    } else {
        debug_assert!(staged.pkts.is_empty());
        staged.t0 = g;
        staged.k = h - g;
    }
    w.senders.sort_unstable();
    w.senders.dedup();
    for u in g..h {
        for &s in &w.senders {
            stage_cycle(
                &mut w.lanes[s as usize],
                &sms[s as usize],
                u,
                &mut staged.pkts,
            );
        }
    }
    if last {
        for &s in &w.senders {
            let (l, sm) = (&mut w.lanes[s as usize], &mut sms[s as usize]);
            debug_assert_eq!(l.cur, l.sent.len());
            sm.sh.outbox.clear();
            l.sent.clear();
            l.cur = 0;
        }
        w.senders.clear();
        debug_assert!(w.lanes.iter().all(|l| l.sent.is_empty()));
    }
}

/// Stages SM `l`'s packets of cycle `u` (its `sent` entries are in cycle order, one per cycle;
/// those of earlier cycles are staged already).
#[inline]
fn stage_cycle(l: &mut Lane, sm: &Sm, u: Cycle, pkts: &mut Vec<(Cycle, crate::mem::NocPacket)>) {
    if let Some(&(c, to)) = l.sent.get(l.cur) {
        if c == u {
            let from = if l.cur == 0 { 0 } else { l.sent[l.cur - 1].1 };
            pkts.extend(
                sm.sh.outbox[from as usize..to as usize]
                    .iter()
                    .map(|p| (u, *p)),
            );
            l.cur += 1;
        }
    }
}
