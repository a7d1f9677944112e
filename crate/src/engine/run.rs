//! The epoch loop of a `Simulator::run_for` slice (`run_epochs`, on a pool worker with the
//! parallel executor): CTA feeding between epochs, the end and deadlock checks, and idle-cycle
//! skipping (see the `engine` module docs, "Skipping cycles").

use super::epoch::sm_epoch;
use super::{Gpu, DEADLOCK_CYCLES};
use crate::core::StepCtx;
use crate::trace::KernelStream;
use crate::{Cycle, Result};

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
        && !gpu.sched.queue.is_empty()
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
    let r = epochs(gpu, stream, end, admitted);
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
        let Some(next) = gpu.next_event() else {
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
            if k > 0 {
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

impl Gpu {
    /// The SM half of a K = 1 cycle on this thread with its staging, in one pass over the SMs:
    /// what `sms_epoch` (serial, K = 1) and then `stage` do, without the per-SM marks of the
    /// epoch (no epoch to replay). An SM asleep in `t0` with nothing to take costs a check and
    /// its deferred stall accounting. Staging SM by SM as they step is the same as staging
    /// after all of them: no SM reads the block scheduler or the staged packets. Returns
    /// whether anything changed (an SM, a finished CTA).
    pub(super) fn sms_serial(&mut self, t0: Cycle) -> bool {
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
        debug_assert!(staged.is_empty());
        staged.t0 = t0;
        staged.k = 1;
        let mut progress = false;
        for (s, (sm, m)) in sms.iter_mut().zip(marks.iter_mut()).enumerate() {
            progress |= sm_epoch(sm, m, &ctx, cfg, t0, 1);
            if !sm.sh.outbox.is_empty() {
                staged.pkts.extend(sm.sh.outbox.drain(..).map(|p| (t0, p)));
            }
            // (Checked here: a call per SM and cycle costs more than the rare work.)
            if !sm.sh.done_ctas.is_empty()
                && sched.finished(s, &sm.sh.done_ctas, t0, &mut staged.flushes)
            {
                sm.sh.done_ctas.clear();
                progress = true;
            }
        }
        progress
    }
}
