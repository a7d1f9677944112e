//! Epochs (issue 6, seed 002): the SMs step `features.epoch_cycles` (K) core cycles on their
//! own, one fork/join per epoch, then the memory side runs the same cycles one by one.
//!
//! ```text
//!  K = 1 (lockstep, the default)      K > 1 (pipelined)
//!  ─ epoch E ──────────────────       ─ epoch E ────────────────────────────────────
//!   issue CTAs (t0)                     issue CTAs (t0)
//!   SMs step t0..t0+K (parallel)        ┌ SMs step E (parallel), after taking the
//!   stage E: packets, done CTAs         │   replies of memory epoch E-2 ... E-1 ┐
//!   memory runs E cycle by cycle        └ memory runs E-1 from the staged packets │ rayon::join
//!   replies -> inboxes                  stage E; replies of E-1 -> inboxes ─────┘
//! ```
//! - Packets an SM sends in cycle c reach the memory side stamped c, merged in SM order, so
//!   the memory side sees exactly what lockstep would show it.
//! - A reply the memory side produces in cycle c is delivered to its SM stamped c before the
//!   SM's next epoch (K = 1: the next cycle, as in lockstep; K > 1: the epoch after the next,
//!   because that memory epoch runs beside the SMs' next one). CTAs are issued at epoch starts:
//!   the block scheduler only decides (`EpochMarks::launch`), each SM makes its CTA resident
//!   on its own thread before it steps.
//! - Every SM writes only its own state and marks; the memory side only its own and the
//!   next inboxes. Inside the memory side the partitions (L2 slices and DRAM channel) step in
//!   parallel too when enough are busy (`mem/partitions/part.rs`), merged in slice order. The
//!   serial executor runs the same two halves one after the other, so results are identical
//!   for any thread count, at any K.
//! - Threads: K > 1 epochs fork on rayon's pool: `Simulator::run_for` runs its epoch loop on
//!   a worker of the private pool (`engine/run.rs`, `run_epochs`), so each epoch's fork is a
//!   push onto that worker's own queue and the other workers, spinning between epochs, steal
//!   it at once. The SM half is split into pieces of at most `8 / K` SMs so the thread that
//!   ran the memory side beside it steals the rest evenly. K = 1 (the default) steps on the
//!   crew instead (below).
//!
//! # K = 1 on two threads and more: the crew and the split cycle
//! With `n` threads a crew of `n - 1` threads (`sync/crew.rs`), owned for the whole run,
//! shares every cycle with enough busy SMs: one job per simulated cycle, tens of
//! microseconds of work, so the hand-off is a spin on an atomic (well under a microsecond; a
//! rayon join cost about 5). The poster takes SMs from the low end of the cycle's list, the
//! other workers from the high end (`sync::Shares`), so all finish within about an SM of each
//! other whatever the cycle's mix of work; which worker steps an SM never changes what it
//! computes. Each worker first claims a one-shot side (`sync::Sides`): the stream's
//! decode-ahead halves and the memory side's halves of the split order:
//!
//! A memory cycle has two halves that do not read each other's output
//! (`mem::MemPartitions::replies_first_ok`): the *reply half* (reply crossbar, L2 slices,
//! DRAM channels, replies popped for the SMs) reads nothing the SMs send in the same cycle, and
//! the *request half* (the SMs' packets injected, the request crossbar stepped) is read by no
//! slice before the next cycle. So the reply half of cycle c runs beside the SMs of cycle c,
//! and the request half of c runs at the start of cycle c+1's job:
//!
//! ```text
//!  poster (epoch loop)               the crew's workers
//!  issue CTAs c (decide only)
//!  ── post the job ───────────────────────────────────────────────────────
//!  sides, as claimed: request half of c-1 and reply half of c (-> inboxes, stamped c),
//!  decode-ahead chunks n and n+1
//!  SMs from the low end  ──>        <── SMs from the high end (runs taken until they meet)
//!  ── close the job, wait for the workers in it ──────────────────────────
//!  stage c in SM order (packets, done CTAs)
//! ```
//! Anything that reads the memory side between cycles (idle skipping, the end of a slice)
//! first runs the waiting request half (`Gpu::finish_requests`). The serial executor keeps the
//! reference order (requests, then replies, in one `MemPartitions::tick`), and
//! `tests/threads_equal.rs` compares them at 1, 2, 3, 4, 8 and 16 threads. With the event
//! front end (`hybrid`) the cycle visits only the SMs that are due (`run.rs`,
//! `Gpu::sms_step`). A cycle with fewer busy SMs than `min_busy` runs on the poster alone.
//!
//! Without a cycle memory system (`fast`) there is no memory side to run beside the SMs, and
//! an SM reads nothing of the others between CTA completions: the SMs step in windows that
//! end at the next completion (`window.rs`), shared by the crew, one job per window. Where windows are off (kernels of several streams that may start beside
//! running ones) the crew shares the cycles with at least two due SMs.

use super::{clocks, Executor, Gpu, MemPartitions};
use crate::config::GpuConfig;
use crate::core::{KernelCtx, Sm, StepCtx};
use crate::mem::NocPacket;
use crate::trace::{KernelStream, PackedCta};
use crate::Cycle;

/// Fewest busy SMs for a K = 1 cycle on the crew: the memory side runs there beside them,
/// and the hand-off costs well under a microsecond. (With one busy SM the memory side alone
/// rarely pays for it: a pointer chase ran 1.5x slower.)
const PAR_MIN_BUSY_SMS_CREW: usize = 2;

/// What one SM did in each cycle of an epoch of K > 1 cycles (counts after the cycle; K = 1
/// reads the outboxes themselves), so its packets and finished CTAs can be staged cycle by
/// cycle.
#[derive(Clone, Debug, Default)]
pub(super) struct EpochMarks {
    pub out: Vec<u32>,
    pub done: Vec<u32>,
    /// Replies for this SM, stamped with the cycle the memory side produced them; the SM
    /// takes them (`SmMem::deliver`) before it steps its next epoch, on its own thread.
    pub inbox: Vec<(Cycle, NocPacket)>,
    /// A CTA the block scheduler gave this SM at the epoch's start (kernel launch number and
    /// CTA): made resident on the SM's own thread, first thing in its epoch.
    pub launch: Option<(u32, PackedCta)>,
}

/// One epoch of SM output waiting for the memory side.
#[derive(Clone, Debug, Default)]
pub(super) struct Staged {
    pub t0: Cycle,
    pub k: u64,
    /// Packets in (cycle, SM) order.
    pub pkts: Vec<(Cycle, NocPacket)>,
    /// Cycles at which a kernel ended (the L2 flush at kernel end happens then).
    pub flushes: Vec<Cycle>,
}

impl Staged {
    pub fn is_empty(&self) -> bool {
        self.pkts.is_empty() && self.flushes.is_empty()
    }

    /// Every packet, in SM order.
    fn drain_into(&mut self, pending: &mut Vec<NocPacket>) {
        pending.extend(self.pkts.drain(..).map(|p| p.1));
    }
}

/// Steps one SM through `t0 .. t0 + k`, after making its new CTA resident and taking its
/// waiting replies (K = 1: also the serial one-pass SM half, `run.rs`).
pub(super) fn sm_epoch(
    sm: &mut Sm,
    m: &mut EpochMarks,
    ctx: &StepCtx,
    cfg: &GpuConfig,
    t0: Cycle,
    k: u64,
) -> bool {
    take_inputs(sm, m, ctx, cfg, t0);
    if k == 1 {
        // One cycle: `stage` reads what was sent from the outbox itself.
        return step_one(sm, ctx, t0);
    }
    m.out.clear();
    m.done.clear();
    let last = t0 + k - 1;
    if !sm.awake(last) {
        // Asleep through the whole epoch: only stall accounting, nothing sent.
        sm.skip(k);
        let (o, d) = (sm.sh.outbox.len() as u32, sm.sh.done_ctas.len() as u32);
        m.out.resize(k as usize, o);
        m.done.resize(k as usize, d);
        return false;
    }
    let mut ch = false;
    for c in t0..=last {
        ch |= sm.step(c, ctx);
        m.out.push(sm.sh.outbox.len() as u32);
        m.done.push(sm.sh.done_ctas.len() as u32);
    }
    ch
}

/// What reaches the SM before it steps cycle `t0`: the CTA the block scheduler gave it (made
/// resident) and the replies in its inbox.
#[inline]
fn take_inputs(sm: &mut Sm, m: &mut EpochMarks, ctx: &StepCtx, cfg: &GpuConfig, t0: Cycle) {
    if let Some((l, cta)) = m.launch.take() {
        let lat = cfg.sm.cta_launch_latency;
        sm.launch_cta(t0, &ctx.kernels[l as usize], cta, lat, cfg);
        debug_assert_eq!(sm.cta_ready_at, t0 + lat as u64, "cta_issue assumes this");
    }
    if !m.inbox.is_empty() {
        for (c, r) in m.inbox.drain(..) {
            sm.sh.mem.deliver(c, r);
        }
        sm.wake_now();
    }
}

/// One cycle of an SM: its step when awake, else a cycle of stall accounting.
#[inline]
fn step_one(sm: &mut Sm, ctx: &StepCtx, t: Cycle) -> bool {
    if sm.awake(t) {
        return sm.step(t, ctx);
    }
    sm.skip(1);
    false
}

/// The SM half of an epoch: every SM, in parallel when `par` (rayon's current pool).
fn sms_epoch(
    sms: &mut [Sm],
    marks: &mut [EpochMarks],
    kernels: &[KernelCtx],
    cfg: &GpuConfig,
    t0: Cycle,
    k: u64,
    par: bool,
) -> bool {
    let ctx = StepCtx { kernels };
    #[cfg(feature = "parallel")]
    if par {
        use rayon::prelude::*;
        // Small pieces (an SM-epoch of K >= 8 cycles is microseconds of work, a split a
        // fraction of one): the thread that ran the memory side beside this half steals the
        // rest in pieces small enough that neither waits long for the other at the join.
        let max_len = (8 / k as usize).max(1);
        return sms
            .par_iter_mut()
            .zip(marks.par_iter_mut())
            .with_max_len(max_len)
            .map(|(sm, m)| sm_epoch(sm, m, &ctx, cfg, t0, k))
            .reduce(|| false, |a, b| a | b);
    }
    let _ = par;
    let mut any = false;
    for (sm, m) in sms.iter_mut().zip(marks.iter_mut()) {
        any |= sm_epoch(sm, m, &ctx, cfg, t0, k);
    }
    any
}

/// The memory half: runs the staged epoch cycle by cycle (each cycle's packets in SM order,
/// then the step, the kernel-end flush); replies go to `inbox` stamped with their cycle.
/// Returns whether it produced any reply.
pub(super) fn mem_epoch(
    parts: &mut MemPartitions,
    clocks: &mut clocks::ClockDomains,
    pending: &mut Vec<NocPacket>,
    replies: &mut Vec<NocPacket>,
    staged: &mut Staged,
    inbox: &mut Inboxes,
) -> bool {
    let mut progress = false;
    let mut p = 0;
    let mut f = 0;
    for c in staged.t0..staged.t0 + staged.k {
        while p < staged.pkts.len() && staged.pkts[p].0 == c {
            pending.push(staged.pkts[p].1);
            p += 1;
        }
        parts.exchange(c, pending, replies);
        progress |= deliver(replies, inbox, c);
        tick_domains(parts, clocks, c);
        while f < staged.flushes.len() && staged.flushes[f] == c {
            parts.end_kernel();
            f += 1;
        }
    }
    staged.pkts.clear();
    staged.flushes.clear();
    staged.t0 += staged.k;
    staged.k = 0;
    progress
}

/// The reply half of a split K = 1 cycle `c` (beside the SMs' step of `c`): replies go to
/// `inbox` stamped `c`. Returns whether there were any.
pub(super) fn replies_cycle(
    parts: &mut MemPartitions,
    replies: &mut Vec<NocPacket>,
    inbox: &mut Inboxes,
    c: Cycle,
) -> bool {
    parts.replies_half(c, replies);
    deliver(replies, inbox, c)
}

/// Replies to the SMs' inboxes (`Inboxes`), stamped `c`; whether there were any.
fn deliver(replies: &mut Vec<NocPacket>, inbox: &mut Inboxes, c: Cycle) -> bool {
    let any = !replies.is_empty();
    for r in replies.drain(..) {
        let s = r.src_sm as usize;
        if let Some(b) = inbox.per_sm.get_mut(s) {
            if b.is_empty() {
                inbox.filled.push(s as u32);
            }
            b.push((c, r));
        }
    }
    any
}

/// Replies the memory side produced in the epoch it is running, per SM, handed to the SMs'
/// marks at the epoch's end; `filled` lists the SMs whose inbox is not empty (so the
/// hand-over visits only those).
#[derive(Debug, Default)]
pub(super) struct Inboxes {
    pub per_sm: Vec<Vec<(Cycle, NocPacket)>>,
    pub filled: Vec<u32>,
}

/// The other clock domains, in fixed order, with as many ticks as fall in cycle `c`.
fn tick_domains(parts: &mut MemPartitions, clocks: &mut clocks::ClockDomains, c: Cycle) {
    for d in [
        clocks::Domain::Icnt,
        clocks::Domain::L2,
        clocks::Domain::Dram,
    ] {
        let t = clocks.ticks_in(d, c);
        if t > 0 {
            parts.tick(d, t);
        }
    }
}

/// The request half of a split K = 1 cycle: the staged packets (SM order) enter the request
/// crossbar, which steps; the other clock domains; the kernel-end flush.
pub(super) fn requests_cycle(
    parts: &mut MemPartitions,
    clocks: &mut clocks::ClockDomains,
    pending: &mut Vec<NocPacket>,
    staged: &mut Staged,
) {
    let c = staged.t0;
    debug_assert_eq!(staged.k, 1);
    staged.drain_into(pending);
    parts.requests_half(c, pending);
    tick_domains(parts, clocks, c);
    for _ in &staged.flushes {
        parts.end_kernel();
    }
    staged.flushes.clear();
}

impl Gpu {
    /// Runs the request half of the last cycle if it is still waiting (`req_pending`): before
    /// anything else reads the memory side or stages packets.
    pub(super) fn finish_requests(&mut self) {
        if std::mem::take(&mut self.req_pending) {
            requests_cycle(
                &mut self.partitions,
                &mut self.clocks,
                &mut self.outbox,
                &mut self.staged,
            );
        }
    }

    /// The block scheduler's issue for cycle `t0`: each CTA it hands out waits in its SM's marks
    /// until the SM steps. Returns whether it handed out any.
    pub(super) fn issue_ctas(&mut self, t0: Cycle) -> bool {
        self.issue_ctas_noting(t0, |_| {})
    }

    /// [`Gpu::issue_ctas`], telling `note` each SM given a CTA.
    pub(super) fn issue_ctas_noting(&mut self, t0: Cycle, mut note: impl FnMut(usize)) -> bool {
        let marks = &mut self.marks;
        self.sched.issue(
            t0,
            &self.sms,
            &self.kernels,
            self.cfg.sm.cta_launch_latency,
            &mut |s, l, cta| {
                marks[s].launch = Some((l, cta));
                note(s);
            },
        ) > 0
    }

    /// Whether a crew of two threads or more shares the SM half.
    pub(super) fn has_crew(&self) -> bool {
        #[cfg(feature = "parallel")]
        return self.crew.is_some();
        #[cfg(not(feature = "parallel"))]
        false
    }

    /// Fewest busy SMs for the SM half to fork: `par_min_busy`, or fewer with the crew,
    /// whose hand-off costs well under a microsecond.
    fn min_busy(&self) -> usize {
        if self.has_crew() {
            self.par_min_busy.min(PAR_MIN_BUSY_SMS_CREW)
        } else {
            self.par_min_busy
        }
    }

    /// Whether the SM half should fork: parallel executor and enough SMs with work through
    /// cycle `last`.
    fn fork_sms(&self, last: Cycle) -> bool {
        let min = self.min_busy();
        self.executor == Executor::Parallel
            && self.sms.len() >= min
            && self
                .sms
                .iter()
                .zip(&self.marks)
                .filter(|(sm, m)| {
                    !m.inbox.is_empty() || m.launch.is_some() || (sm.awake(last) && sm.has_work())
                })
                .take(min)
                .count()
                >= min
    }

    /// Moves the epoch's packets and finished CTAs out of the SMs (cycle by cycle, SM order)
    /// and books the finished CTAs. Returns whether any CTA finished.
    fn stage(&mut self, t0: Cycle, k: u64) -> bool {
        let ku = k as usize;
        self.senders.clear();
        // Counts after cycle j of the epoch (K = 1: the outboxes themselves, see `sm_epoch`).
        let after = |sm: &Sm, m: &EpochMarks, j: usize| {
            if ku == 1 {
                (sm.sh.outbox.len(), sm.sh.done_ctas.len())
            } else {
                (m.out[j] as usize, m.done[j] as usize)
            }
        };
        for (s, (sm, m)) in self.sms.iter().zip(&self.marks).enumerate() {
            if after(sm, m, ku - 1) != (0, 0) {
                self.senders.push(s as u32);
            }
        }
        debug_assert!(self.staged.is_empty());
        self.staged.t0 = t0;
        self.staged.k = k;
        let mut done_any = false;
        for (j, c) in (t0..t0 + k).enumerate() {
            for &s in &self.senders {
                let (sm, m) = (&self.sms[s as usize], &self.marks[s as usize]);
                let (out_from, done_from) = if j == 0 { (0, 0) } else { after(sm, m, j - 1) };
                let (out_to, done_to) = after(sm, m, j);
                for p in &sm.sh.outbox[out_from..out_to] {
                    self.staged.pkts.push((c, *p));
                }
                done_any |= self.sched.finished(
                    s as usize,
                    &sm.sh.done_ctas[done_from..done_to],
                    c,
                    &mut self.staged.flushes,
                );
            }
        }
        for &s in &self.senders {
            let sm = &mut self.sms[s as usize];
            sm.sh.outbox.clear();
            sm.sh.done_ctas.clear();
        }
        done_any
    }

    /// Hands the replies the memory side produced to the SMs' inboxes. Visiting due SMs only
    /// (`SmWakes`), an SM given replies is due in the next cycle, whose `sm_epoch` delivers
    /// them.
    fn post_replies(&mut self, next: Cycle) {
        let Gpu {
            inbox_next: ib,
            marks,
            wakes,
            ..
        } = self;
        for &s in &ib.filled {
            // Handed over by swapping buffers when the SM's inbox is empty (nearly always:
            // `sm_epoch` empties it), so the replies are not copied here, on this thread.
            let (inbox, new) = (&mut marks[s as usize].inbox, &mut ib.per_sm[s as usize]);
            if inbox.is_empty() {
                std::mem::swap(inbox, new);
            } else {
                inbox.append(new);
            }
            if wakes.on {
                wakes.wake_at(s as usize, next);
            }
        }
        ib.filled.clear();
    }

    /// K = 1: the SMs step the cycle, their packets are staged, the memory side runs it.
    fn lockstep(&mut self, t0: Cycle, k: u64, fork: bool) -> bool {
        let progress = if k == 1 && !fork {
            // One pass over the SMs, staging as they step (run.rs).
            self.sms_serial(t0)
        } else {
            let (sms, marks, kernels, cfg) =
                (&mut self.sms, &mut self.marks, &self.kernels, &self.cfg);
            sms_epoch(sms, marks, kernels, cfg, t0, k, fork) | self.stage(t0, k)
        };
        progress | self.mem_side()
    }

    /// [`mem_epoch`] on the whole memory side, serially.
    pub(super) fn mem_side(&mut self) -> bool {
        mem_epoch(
            &mut self.partitions,
            &mut self.clocks,
            &mut self.outbox,
            &mut self.replies,
            &mut self.staged,
            &mut self.inbox_next,
        )
    }

    /// One epoch: K core cycles up to the next multiple of K (see the module picture). Leaves
    /// `now` at the epoch's last cycle. Returns whether anything changed. `ahead`: a kernel
    /// stream to decode ahead beside the epoch (on another thread when parallel).
    pub fn step(&mut self, ahead: Option<&mut (dyn KernelStream + Send + 'static)>) -> bool {
        let t0 = self.now;
        let k = self.epoch - t0 % self.epoch;
        let mut progress = self.issue_ctas(t0);
        let mut ahead = ahead;
        if self.wakes.windows {
            // `fast`: each SM on its own up to the next CTA completion (window.rs).
            return self.window(t0, &mut ahead) | progress;
        }
        if self.epoch == 1 {
            progress |= self.cycle(t0, &mut ahead);
        } else {
            progress |= self.epoch_pipelined(t0, k, &mut ahead);
        }
        self.post_replies(t0 + k);
        self.now = t0 + k - 1;
        progress
    }

    /// One K = 1 cycle `t0`: with the crew when there is enough to share (the SMs beside the
    /// memory side's halves when the memory side allows the split order,
    /// `MemPartitions::split_ok`; see the module docs), else on this thread. The results are
    /// the same either way.
    fn cycle(
        &mut self,
        t0: Cycle,
        ahead: &mut Option<&mut (dyn KernelStream + Send + 'static)>,
    ) -> bool {
        let fork = if self.wakes.on {
            // Due SMs only (run.rs): they alone decide whether the crew shares the cycle.
            self.collect_due(t0);
            self.has_crew() && self.wakes.due.len() >= self.min_busy()
        } else {
            self.fork_sms(t0)
        };
        self.partitions.set_parallel(false, 0);
        if fork {
            let mem =
                !matches!(self.partitions, MemPartitions::None) && self.partitions.split_ok(t0);
            if !mem {
                self.finish_requests();
            }
            let p = self.sms_step(t0, ahead, mem, self.wakes.on, true);
            return if mem { p } else { p | self.mem_side() };
        }
        // Too little work for the crew in this cycle (small kernels): all of it on this
        // thread, in the serial order. A chunk due for decoding ahead: the next two decode
        // side by side, one on another thread (which has nothing else to do in such a cycle).
        self.finish_requests();
        #[cfg(feature = "parallel")]
        if let Some(c) = self.crew.as_mut() {
            if let Some([h0, h1]) = ahead.as_deref_mut().and_then(|s| s.prefetch_pair()) {
                c.join_once(h0, h1);
            }
        }
        prefetch(ahead);
        self.lockstep(t0, 1, false)
    }

    /// One epoch of K > 1 cycles: the SMs step it (in parallel on the pool) beside the memory
    /// side's run of the last epoch (module picture), then their output is staged.
    fn epoch_pipelined(
        &mut self,
        t0: Cycle,
        k: u64,
        ahead: &mut Option<&mut (dyn KernelStream + Send + 'static)>,
    ) -> bool {
        let par = self.executor == Executor::Parallel;
        let fork = self.fork_sms(t0 + k - 1);
        self.finish_requests();
        self.partitions.set_parallel(par, self.par_min_parts);
        #[cfg(feature = "parallel")]
        let pool = match self.executor {
            Executor::Parallel => Some(self.pool.clone()),
            Executor::Serial => None,
        };
        #[cfg(not(feature = "parallel"))]
        let pool: Option<Option<()>> = None;
        if par {
            self.forks += 1;
        }
        let Gpu {
            sms,
            marks,
            kernels,
            cfg,
            partitions,
            clocks,
            outbox,
            replies,
            staged,
            inbox_next,
            ..
        } = self;
        let (a, b) = join(
            &pool,
            &mut || sms_epoch(sms, marks, kernels, cfg, t0, k, fork),
            &mut || {
                both(
                    par,
                    &mut || mem_epoch(partitions, clocks, outbox, replies, staged, inbox_next),
                    &mut || prefetch(ahead),
                )
                .0
            },
        );
        a | b | self.stage(t0, k)
    }
}

#[cfg(feature = "parallel")]
type Pool = Option<Option<std::sync::Arc<rayon::ThreadPool>>>;
#[cfg(not(feature = "parallel"))]
type Pool = Option<Option<()>>;

/// The stream's next two chunks to decode ahead, one for each thread ([`KernelStream::prefetch_pair`]),
/// or None twice when nothing is due.
pub(super) fn decode_halves<'a>(
    s: Option<&'a mut (dyn KernelStream + Send + 'static)>,
) -> (
    Option<crate::trace::PrefetchHalf<'a>>,
    Option<crate::trace::PrefetchHalf<'a>>,
) {
    match s.and_then(|s| s.prefetch_pair()) {
        Some([x, y]) => (Some(x), Some(y)),
        None => (None, None),
    }
}

/// Decodes ahead in the issuing kernel's stream (returns false: no simulated progress).
pub(super) fn prefetch(s: &mut Option<&mut (dyn KernelStream + Send + 'static)>) -> bool {
    if let Some(s) = s {
        s.prefetch();
    }
    false
}

/// Runs `a` and `b`: as a rayon join on the current pool when `par`, else `a` then `b` (they
/// touch disjoint state).
fn both(
    par: bool,
    a: &mut (dyn FnMut() -> bool + Send),
    b: &mut (dyn FnMut() -> bool + Send),
) -> (bool, bool) {
    #[cfg(feature = "parallel")]
    if par {
        return rayon::join(a, b);
    }
    let _ = par;
    let x = a();
    (x, b())
}

/// Runs both halves of a pipelined epoch: on two threads of the pool with the parallel
/// executor, else one after the other (they touch disjoint state, so the order is free).
fn join(
    pool: &Pool,
    a: &mut (dyn FnMut() -> bool + Send),
    b: &mut (dyn FnMut() -> bool + Send),
) -> (bool, bool) {
    #[cfg(feature = "parallel")]
    match pool {
        Some(Some(p)) => return p.install(|| rayon::join(a, b)),
        Some(None) => return rayon::join(a, b),
        None => {}
    }
    let _ = pool;
    let y = b();
    (a(), y)
}
