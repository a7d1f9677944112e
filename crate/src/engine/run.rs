//! The epoch loop of a `Simulator::run_for` slice (`run_epochs`, on a pool worker with the
//! parallel executor): CTA feeding between epochs, the end and deadlock checks, and idle-cycle
//! skipping (see the `engine` module docs, "Skipping cycles").
//!
//! K = 1 and the event front end (`fast`, `hybrid`): the SM half visits only
//! the SMs that are due (`SmWakes`; with a cycle memory system an SM given replies is due the
//! next cycle): an SM asleep until its
//! wake cycle, with no CTA or reply to take, would only add a cycle of deferred stall
//! accounting ([`Sm::skip`]), so it is not
//! visited at all and its skipped cycles are added in one go at its next visit or when the
//! slice ends. The whole-GPU skip and the next-event search read the same wake cycles. Each
//! cycle first lists its due SMs ([`Gpu::collect_due`]); with a crew (two threads or more) a
//! cycle with at least two of them is shared (`Gpu::sms_step`: the list taken from both
//! ends, and with a cycle memory system the memory side's halves beside them, as in the split
//! cycle of `epoch.rs`), one with fewer runs on this thread alone.
//! Usually (one stream, or no concurrent kernels) a slice goes further and steps the SMs in
//! windows (`window.rs`, `SmWakes::windows`): each SM from its wake cycle on, by itself, to
//! the next CTA completion; the same wake and accounting cycles, some SMs ahead of `now`.

use super::epoch::sm_epoch;
use super::{Gpu, DEADLOCK_CYCLES};
use crate::core::{Sm, StepCtx};
use crate::trace::KernelStream;
use crate::{Cycle, Result};

/// SMs per worker of the crew at least, in a cycle it shares: an SM-cycle costs about 300 ns
/// (vecadd-1m on titanv in `cycle`: 26 µs per cycle of 80 SMs and the memory side), a
/// worker's entry into a job a cache-line transfer or two.
#[cfg(feature = "parallel")]
const SMS_PER_WORKER: usize = 2;

/// How [`run_epochs`] stopped.
pub(super) enum Slice {
    /// The slice's end was reached, or the trace source must admit a kernel.
    Admit,
    Done(Cycle),
    Deadlock(String),
}

/// Whether the next epoch needs `Simulator::admit` beyond feeding CTAs (a kernel may start).
fn needs_admit(gpu: &Gpu) -> bool {
    gpu.sched.issuing.is_none()
        && gpu.sched.queued() > 0
        && gpu
            .sched
            .next_eligible(gpu.cfg.sm.concurrent_kernels)
            .is_some()
}

/// The epoch loop of a slice, from just after an `admit` (`admitted`: it changed something)
/// until `end`, the end of the run, a deadlock, or a kernel that may start (`Slice::Admit`).
/// Between epochs only the issuing kernel's stream is read (feeding CTAs), so this runs on any
/// thread.
pub(super) fn run_epochs(
    gpu: &mut Gpu,
    stream: &mut Option<Box<dyn KernelStream + Send>>,
    end: Cycle,
    admitted: bool,
) -> Result<Slice> {
    let windows = gpu.windowed();
    gpu.wakes
        .begin(&gpu.sms, gpu.now, gpu.lazy_ok(), windows, end);
    let r = epochs(gpu, stream, end, admitted);
    gpu.wakes.end(&mut gpu.sms);
    // Whoever reads the GPU next (admit, the result) sees every cycle complete.
    gpu.finish_requests();
    r
}

fn epochs(
    gpu: &mut Gpu,
    stream: &mut Option<Box<dyn KernelStream + Send>>,
    end: Cycle,
    admitted: bool,
) -> Result<Slice> {
    let mut progress = admitted;
    let mut first = true;
    while gpu.now < end {
        if !first {
            if needs_admit(gpu) {
                return Ok(Slice::Admit);
            }
            progress = false;
            feed(gpu, stream)?;
        }
        first = false;
        // Done when every CTA finished and the memory system has drained (posted stores).
        // (Launch commands are all admitted: `admit` drains them before this loop.)
        if gpu.sched.all_done() {
            gpu.finish_requests();
            if gpu.mem_idle() {
                return Ok(Slice::Done(gpu.now));
            }
        }
        // One epoch; `now` is its last cycle afterwards.
        // The issuing kernel's stream decodes ahead beside the epoch (deterministic: it
        // only fills the stream's own buffer).
        let ahead = match stream {
            Some(s) if gpu.sched.issuing.is_some() => Some(&mut **s),
            _ => None,
        };
        progress |= gpu.step(ahead);
        let now = gpu.now;
        if progress {
            gpu.last_progress = now;
            gpu.now += 1;
            continue;
        }
        if gpu.sched.all_done() {
            gpu.now += 1;
            continue;
        }
        gpu.finish_requests();
        // `next_event` would give a cycle no later than `now + 1` (a CTA to hand out, or an
        // SM due then), and any such answer only moves on one cycle: not asked (it visits
        // every SM).
        let soon = (gpu.sched.issuing.is_some() && gpu.sched.ready_at <= now + 1)
            || (gpu.wakes.on && gpu.wakes.min <= now + 1);
        let next = if soon {
            Some(now + 1)
        } else {
            gpu.next_event()
        };
        let Some(next) = next else {
            return Ok(Slice::Deadlock(gpu.deadlock_report()));
        };
        if now - gpu.last_progress > DEADLOCK_CYCLES {
            return Ok(Slice::Deadlock(gpu.deadlock_report()));
        }
        if gpu.cfg.features.skip_idle_cycles && next > now + 1 {
            // Cycles now+1 .. next-1 would repeat this cycle exactly; account them at once.
            // Epochs stay aligned to multiples of `epoch` (the epoch holding `next` starts
            // at its beginning; its idle leading cycles change nothing), so skipping on or
            // off and any slicing give the same epochs.
            let target = next.min(end.max(now + 1));
            let target = (target - target % gpu.epoch).max(now + 1);
            let k = target - now - 1;
            if gpu.wakes.on {
                // Settled at each SM's next visit (`SmWakes::end` at the latest).
                gpu.wakes.acct_to = target;
            } else if k > 0 {
                for sm in &mut gpu.sms {
                    sm.skip(k);
                }
            }
            gpu.now = target;
        } else {
            gpu.now += 1;
        }
    }
    Ok(Slice::Admit)
}

/// Keeps the block scheduler supplied with CTAs of the issuing kernel (drops the stream once
/// the kernel has handed out every CTA).
pub(super) fn feed(gpu: &mut Gpu, stream: &mut Option<Box<dyn KernelStream + Send>>) -> Result<()> {
    if let Some(s) = stream {
        if gpu.sched.issuing.is_some() {
            gpu.feed_ctas(&mut **s)?;
        }
        if gpu.sched.issuing.is_none() {
            *stream = None;
        }
    }
    Ok(())
}

/// The SMs' wake cycles for the due-SMs-only SM half (`Gpu::sms_step`),
/// on only while it is the only way SMs step (`Gpu::lazy_ok`, from `run_epochs`' start to its
/// end): per SM
/// its [`Sm::wake`] (it changes only when the SM steps or takes a CTA), and the first cycle
/// whose stall accounting it has not had yet.
#[derive(Clone, Debug, Default)]
pub(super) struct SmWakes {
    pub on: bool,
    pub wake: Vec<Cycle>,
    pub from: Vec<Cycle>,
    /// The least of `wake`: before it no SM without a new CTA is visited.
    pub min: Cycle,
    /// Every SM's cycles before this are simulated or skipped (accounting pending in `from`).
    pub acct_to: Cycle,
    /// The issuing launch and how many of its CTAs were issued, when last looked: a change
    /// means the block scheduler may have handed out CTAs (`EpochMarks::launch`).
    seen: Option<(u32, u64)>,
    /// The SMs to visit in the cycle being stepped, in SM order ([`Gpu::collect_due`]).
    pub due: Vec<u32>,
    /// The least wake cycle of the SMs not in `due`.
    rest_min: Cycle,
    /// This slice steps SMs in windows (`window.rs`): each SM on its own up to the window's
    /// end or the CTA it finishes, whichever comes first.
    pub windows: bool,
    /// The slice's end (windows stop there).
    pub end: Cycle,
    /// Windows: per SM, the cycle in which it finished a CTA not yet handed to the block
    /// scheduler (it waits there, ahead of the others), or `Cycle::MAX`.
    pub parked: Vec<Cycle>,
    /// Windows: the SMs to step in the window (scratch).
    pub work: Vec<u32>,
}

impl SmWakes {
    /// A slice starts at `now` (every SM accounted before it): all SMs are due once.
    fn begin(&mut self, sms: &[Sm], now: Cycle, on: bool, windows: bool, end: Cycle) {
        self.on = on;
        self.windows = on && windows;
        self.end = end;
        if !on {
            return;
        }
        self.parked.clear();
        self.parked.resize(sms.len(), Cycle::MAX);
        self.wake.clear();
        self.wake.resize(sms.len(), 0);
        self.from.clear();
        self.from.resize(sms.len(), now);
        self.min = 0;
        self.acct_to = now;
        self.seen = None;
    }

    /// SM `s` is due at `t` at the latest (replies for it, `Gpu::post_replies`).
    pub fn wake_at(&mut self, s: usize, t: Cycle) {
        self.wake[s] = self.wake[s].min(t);
        self.min = self.min.min(t);
    }

    /// The slice ends: every SM gets the accounting of its skipped cycles.
    fn end(&mut self, sms: &mut [Sm]) {
        if !std::mem::take(&mut self.on) {
            return;
        }
        debug_assert!(
            self.parked.iter().all(|&p| p == Cycle::MAX),
            "a slice ends with every finished CTA booked"
        );
        for (sm, &f) in sms.iter_mut().zip(&self.from) {
            if self.acct_to > f {
                sm.skip(self.acct_to - f);
            }
        }
    }
}

impl Gpu {
    /// Whether the next slice steps SMs in windows (`window.rs`): `fast`'s analytical memory
    /// (no memory partitions), one kernel at a time, and the lazy stepping windows build on.
    pub(super) fn windowed(&self) -> bool {
        self.windows_fit() && self.lazy_ok()
    }

    /// [`Gpu::windowed`] but for the lazy stepping: `fast`'s analytical memory, one kernel at
    /// a time, windows not turned off.
    fn windows_fit(&self) -> bool {
        self.windows
            && matches!(self.partitions, super::MemPartitions::None)
            && self
                .sched
                .starts_only_when_empty(self.cfg.sm.concurrent_kernels)
    }

    /// Whether the SM half may visit only due SMs (`SmWakes`): K = 1, SMs whose wake is their
    /// exact next event (event front end, idle skipping, no timeline recorder), on any number
    /// of threads (`sms_step`, `window.rs`). With a cycle memory system (`hybrid`) an SM given
    /// replies is due the next cycle (`Gpu::post_replies`), when `sm_epoch` delivers them.
    fn lazy_ok(&self) -> bool {
        self.epoch == 1
            && self
                .sms
                .iter()
                .all(|sm| sm.skip_idle && sm.sh.p.analytic_frontend && sm.recorder.is_none())
    }

    /// Lists the SMs due in `t0` (`SmWakes::due`, SM order): those whose wake has come and,
    /// when the block scheduler handed out CTAs, those given one. Called once per cycle
    /// before the SM half (it decides whether two threads share it).
    pub(super) fn collect_due(&mut self, t0: Cycle) {
        let Gpu {
            marks,
            sched,
            wakes,
            ..
        } = self;
        let seen = sched
            .issuing
            .map(|l| (l, sched.runs[l as usize].ctas_issued));
        let launched = seen != wakes.seen;
        wakes.seen = seen;
        wakes.acct_to = t0 + 1;
        wakes.due.clear();
        if !launched && t0 < wakes.min {
            wakes.rest_min = wakes.min;
            return;
        }
        let mut min = Cycle::MAX;
        if launched {
            for (s, &w) in wakes.wake.iter().enumerate() {
                if w > t0 && marks[s].launch.is_none() {
                    min = min.min(w);
                } else {
                    wakes.due.push(s as u32);
                }
            }
        } else {
            // (Most cycles: no CTA handed out, so no SM's marks need reading.)
            for (s, &w) in wakes.wake.iter().enumerate() {
                if w > t0 {
                    min = min.min(w);
                } else {
                    wakes.due.push(s as u32);
                }
            }
        }
        wakes.rest_min = min;
    }

    /// The SM half of a K = 1 cycle: the SMs (every one, or with `due_only` those of
    /// `SmWakes::due`, each first given the accounting of the cycles it slept through) are
    /// taken in runs from the two ends of the list (`sync::Shares`): this thread from the low
    /// end, the crew's other workers (`crew`: two threads or more) from the high end, each
    /// first claiming a one-shot side (`sync::Sides`): the stream's decode-ahead (the next two
    /// chunks) and, with a cycle memory system (`mem`, split order), the memory side's halves:
    /// the last cycle's request half (when it waits) and this cycle's reply half; this cycle's
    /// request half then waits in turn (for the next cycle, or for `finish_requests`). Then
    /// the stepped SMs' packets and finished CTAs are staged in SM order. Without `fork` (or
    /// without a crew) the same, on this thread alone. Returns whether anything changed.
    pub(super) fn sms_step(
        &mut self,
        t0: Cycle,
        ahead: &mut Option<&mut (dyn KernelStream + Send + 'static)>,
        mem: bool,
        due_only: bool,
        fork: bool,
    ) -> bool {
        use super::epoch::{replies_cycle, requests_cycle};
        use super::sync::Shares;
        #[cfg(feature = "parallel")]
        use super::sync::Sides;
        let pending = mem && std::mem::take(&mut self.req_pending);
        let Gpu {
            sms,
            marks,
            kernels,
            cfg,
            sched,
            staged,
            wakes,
            partitions,
            clocks,
            outbox,
            replies,
            inbox_next,
            #[cfg(feature = "parallel")]
            crew,
            ..
        } = self;
        debug_assert!(pending || staged.is_empty());
        let n = sms.len();
        #[cfg(feature = "parallel")]
        let mut crew = crew.as_mut().filter(|_| fork);
        #[cfg(feature = "parallel")]
        let workers = crew.as_ref().map_or(1, |c| c.workers());
        #[cfg(not(feature = "parallel"))]
        let (workers, _) = (1, fork);
        let (wake, from, due) = (&mut wakes.wake, &wakes.from, &wakes.due);
        let cols = (
            &mut sms[..],
            &mut marks[..],
            due_only.then_some(&mut wake[..]),
        );
        let shares = if due_only {
            Shares::listed(cols, due)
        } else {
            Shares::all(cols, n)
        }
        .for_workers(workers);
        let ctx = StepCtx { kernels };
        let cfg = &*cfg;
        let take = |low: bool| {
            let mut any = false;
            while let Some(r) = if low {
                shares.take_low()
            } else {
                shares.take_high()
            } {
                for (s, (sm, m, w)) in r {
                    if due_only && t0 > from[s] {
                        sm.skip(t0 - from[s]);
                    }
                    any |= sm_epoch(sm, m, &ctx, cfg, t0, 1);
                    if let Some(w) = w {
                        *w = sm.wake;
                    }
                }
            }
            any
        };
        let mut mem_any = false;
        let mut memory = || {
            if pending {
                // The last cycle's request half precedes this cycle's reply half (the SMs
                // never read it).
                requests_cycle(partitions, clocks, outbox, staged);
            }
            mem_any = replies_cycle(partitions, replies, inbox_next, t0);
        };
        let (mut h0, mut h1) = super::epoch::decode_halves(ahead.as_deref_mut());
        let mut d0 = || h0.take().map_or((), |h| h());
        let mut d1 = || h1.take().map_or((), |h| h());
        // With the crew: the one-shot parts go to whichever worker claims them first, at most
        // one worker per `SMS_PER_WORKER` SMs (a cycle's few due SMs are not worth every
        // worker's hand-off).
        #[cfg(feature = "parallel")]
        let shared = crew.take().map(|c| {
            let sides = Sides::new([
                mem.then_some(&mut memory as &mut (dyn FnMut() + Send)),
                Some(&mut d0),
                Some(&mut d1),
            ]);
            let items = if due_only { due.len() } else { n };
            let hi = std::sync::atomic::AtomicBool::new(false);
            let lo = c.run_upto(
                items.div_ceil(SMS_PER_WORKER),
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
            lo | hi.into_inner()
        });
        #[cfg(not(feature = "parallel"))]
        let shared: Option<bool> = None;
        // On this thread alone: the parts in turn, then every SM from the low end.
        let lo = match shared {
            Some(lo) => lo,
            None => {
                if mem {
                    memory();
                }
                d0();
                d1();
                take(true)
            }
        };
        let mut progress = lo | mem_any;
        // Staging in SM order, as the serial loop stages SM by SM.
        staged.t0 = t0;
        staged.k = 1;
        if due_only {
            let mut min = wakes.rest_min;
            for &s in &wakes.due {
                let s = s as usize;
                wakes.from[s] = t0 + 1;
                min = min.min(wakes.wake[s]);
                progress |= stage_sm(&mut sms[s], s, t0, sched, staged);
            }
            wakes.due.clear();
            wakes.min = min;
        } else {
            for (s, sm) in sms.iter_mut().enumerate() {
                progress |= stage_sm(sm, s, t0, sched, staged);
            }
        }
        self.req_pending = mem;
        progress
    }

    /// The SM half of a K = 1 cycle on this thread with its staging, in one pass over the SMs:
    /// what `sms_epoch` (serial, K = 1) and then `stage` do, without the per-SM marks of the
    /// epoch (no epoch to replay). An SM asleep in `t0` with nothing to take costs a check and
    /// its deferred stall accounting. Staging SM by SM as they step is the same as staging
    /// after all of them: no SM reads the block scheduler or the staged packets. Returns
    /// whether anything changed (an SM, a finished CTA).
    pub(super) fn sms_serial(&mut self, t0: Cycle) -> bool {
        debug_assert!(self.staged.is_empty());
        self.staged.t0 = t0;
        self.staged.k = 1;
        if self.wakes.on {
            return self.sms_step(t0, &mut None, false, true, false);
        }
        let Gpu {
            sms,
            marks,
            kernels,
            cfg,
            sched,
            staged,
            ..
        } = self;
        let ctx = StepCtx { kernels };
        let mut progress = false;
        for (s, (sm, m)) in sms.iter_mut().zip(marks.iter_mut()).enumerate() {
            progress |= sm_epoch(sm, m, &ctx, cfg, t0, 1);
            progress |= stage_sm(sm, s, t0, sched, staged);
        }
        progress
    }
}

/// Stages SM `s`'s packets of cycle `t0` and hands its finished CTAs to the block scheduler
/// (checked inline: a call per SM and cycle costs more than the rare work). True when CTAs
/// finished.
#[inline(always)]
pub(super) fn stage_sm(
    sm: &mut Sm,
    s: usize,
    t0: Cycle,
    sched: &mut super::cta_issue::BlockScheduler,
    staged: &mut super::epoch::Staged,
) -> bool {
    if !sm.sh.outbox.is_empty() {
        staged.pkts.extend(sm.sh.outbox.drain(..).map(|p| (t0, p)));
    }
    if !sm.sh.done_ctas.is_empty() && sched.finished(s, &sm.sh.done_ctas, t0, &mut staged.flushes) {
        sm.sh.done_ctas.clear();
        return true;
    }
    false
}
