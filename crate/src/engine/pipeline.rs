//! Pipelined two-thread cycles (K = 1, a partner thread, a cycle memory system): the serial
//! part of a cycle runs beside the partner's memory side instead of before it.
//!
//! A split cycle (`epoch.rs`, `lockstep_split`; `run.rs`, `Gpu::sms_split`) posts one job
//! per cycle: the partner runs the memory side's halves (the last cycle's request half, this
//! cycle's reply half) and then SMs from the high end, while this thread steps SMs from the
//! low end. Between two such joins this thread alone feeds CTAs to the block scheduler, issues
//! them and lists the due SMs: a microsecond or two per cycle in which the partner waits, on
//! vecadd-1m at titanv 15-20% of a two-thread run. Here that part moves into the join:
//!
//! ```text
//!  this thread                                  partner
//!  ── join (cycle c) ───────────────────────────────────────────────────────────────────
//!  feed CTAs, issue for c, list due SMs         request half of c-1, reply half of c
//!  decode-ahead half, open the gate  ─────────> (waits for the gate) decode-ahead half
//!  SMs from the low end                         SMs from the high end (`Gate`)
//!  ── join ends ────────────────────────────────────────────────────────────────────────
//!  stage c (packets, finished CTAs), post the replies of c
//! ```
//!
//! Nothing here changes a result: each step reads and writes what it would in the order the
//! regular loop (`run.rs`, `epochs`) gives it, and only the regular loop's checks between
//! cycles are left out, so a cycle is pipelined only when they cannot fire
//! ([`Gpu::pipeline_ok`]): the last cycle made progress (no idle skip), the slice goes on,
//! and the issuing kernel still has CTAs queued (no kernel may start, end or be admitted).
//! A cycle always shares its SMs between both threads here, whatever their number: the split
//! order and the serial order give the same results (`MemPartitions::split_ok`).
//!
//! The memory side (partitions, clock domains, packets in flight, staged packets, replies) is
//! moved out of the `Gpu` for the pipelined run, so the partner's half owns it while this
//! thread's half borrows the rest of the `Gpu`.

use super::epoch::{
    decode_halves, post_replies, replies_cycle, requests_cycle, sm_epoch, EpochMarks, Inboxes,
    Staged,
};
use super::run::{feed, stage_split};
use super::sync::{Closer, Gate, Partner, Shares};
use super::{clocks, Executor, Gpu, MemPartitions};
use crate::core::{Sm, StepCtx};
use crate::mem::NocPacket;
use crate::trace::KernelStream;
use crate::{Cycle, Result};

/// The memory side, moved out of the `Gpu` while cycles are pipelined (or in memory windows,
/// `mwindow.rs`).
pub(super) struct MemSide {
    pub partitions: MemPartitions,
    pub clocks: clocks::ClockDomains,
    pub outbox: Vec<NocPacket>,
    pub staged: Staged,
    pub replies: Vec<NocPacket>,
    pub inbox_next: Inboxes,
}

impl MemSide {
    pub fn take(g: &mut Gpu) -> MemSide {
        MemSide {
            partitions: std::mem::take(&mut g.partitions),
            clocks: g.clocks.clone(),
            outbox: std::mem::take(&mut g.outbox),
            staged: std::mem::take(&mut g.staged),
            replies: std::mem::take(&mut g.replies),
            inbox_next: std::mem::take(&mut g.inbox_next),
        }
    }

    pub fn put_back(self, g: &mut Gpu) {
        g.partitions = self.partitions;
        g.clocks = self.clocks;
        g.outbox = self.outbox;
        g.staged = self.staged;
        g.replies = self.replies;
        g.inbox_next = self.inbox_next;
    }
}

/// Which SMs each thread steps in a pipelined cycle: this thread claims those below `k` at
/// once, the partner takes the others from the top after its memory side, and this thread,
/// done with its own, takes the partner's lowest ones one at a time (the memory side's work
/// varies from cycle to cycle). `k` stays where it is from cycle to cycle and moves by one SM
/// when one thread has been finishing later than the other by more than half an SM on average.
/// Why not divide each cycle's SMs anew (`TwoEnds` from both ends, the threads meeting
/// wherever their work makes them meet): an SM stepped on the other core than in the last
/// cycle first fetches its state from that core's cache, and on vecadd-1m at titanv (`cycle`)
/// the four such moves per cycle cost about 10% more CPU in all than one thread, where a fixed
/// split cost none. Only scheduling: results never depend on it.
#[derive(Clone, Debug)]
pub(super) struct Boundary {
    k: usize,
    /// Nanoseconds by which this thread finished after the partner, averaged over the last
    /// cycles (negative: before it).
    late: f64,
    /// Nanoseconds one SM step takes here, averaged likewise.
    per_sm: f64,
}

impl Boundary {
    pub fn new(sms: usize) -> Boundary {
        // The partner also runs the memory side: it starts with fewer SMs.
        Boundary {
            k: sms * 3 / 5,
            late: 0.0,
            per_sm: 0.0,
        }
    }

    /// Which SMs this thread claims: those below this.
    pub fn k(&self) -> usize {
        self.k
    }

    /// After a cycle: when this thread's SMs began and ended and how many it had, when the
    /// partner began its SMs (None: it found none left) and ended. When this thread ends later
    /// by more than half an SM on average it gives the partner an SM, and the other way round.
    pub(super) fn feedback(
        &mut self,
        a_start: std::time::Instant,
        a_end: std::time::Instant,
        a_items: usize,
        b_start: Option<std::time::Instant>,
        b_end: std::time::Instant,
        sms: usize,
    ) {
        const AVG: f64 = 1.0 / 16.0;
        if a_items > 0 {
            let per = (a_end - a_start).as_nanos() as f64 / a_items as f64;
            self.per_sm += (per - self.per_sm) * AVG;
        }
        let late = if b_start.is_none() || b_end < a_end {
            (a_end - b_end.min(a_end)).as_nanos() as f64
        } else {
            -((b_end - a_end).as_nanos() as f64)
        };
        self.late += (late - self.late) * AVG;
        let half = self.per_sm / 2.0;
        if self.late > half && self.k > 0 {
            self.k -= 1;
            self.late = 0.0;
        } else if self.late < -half && self.k < sms {
            self.k += 1;
            self.late = 0.0;
        }
    }
}

/// What the partner's share of a cycle's SMs leaves for the staging after the join.
struct HiOut {
    /// Packets of the partner's SMs, run by run (each run in SM order, runs descending).
    pkts: Vec<(Cycle, NocPacket)>,
    runs: Vec<u32>,
    /// Whether any of its SMs changed, and the least of their new wake cycles.
    any: bool,
    min: Cycle,
    /// When the partner took its first SMs (None: none left) and finished.
    start: Option<std::time::Instant>,
    end: std::time::Instant,
}

impl Gpu {
    /// Whether the next cycle may run pipelined (see the module docs): checked after a cycle
    /// that made progress, in the state the regular loop would start the next one from.
    pub(super) fn pipeline_ok(&self, end: Cycle) -> bool {
        self.has_partner() && self.pipeline_ok_with(&self.partitions, end)
    }

    /// [`Gpu::pipeline_ok`] inside a pipelined run, where the partner and the memory side are
    /// held apart from the `Gpu` (`partitions`: the memory side's).
    fn pipeline_ok_with(&self, partitions: &MemPartitions, end: Cycle) -> bool {
        let next = self.now + 1;
        self.executor == Executor::Parallel
            && self.epoch == 1
            // The last cycle was a split one on two threads (its request half waits).
            && self.req_pending
            && matches!(partitions, MemPartitions::Cycle(_))
            && !self.wakes.windows
            && next < end
            // No admit, no kernel end: the issuing kernel keeps CTAs queued through the feed.
            && self.sched.issuing.is_some()
            && !self.sched.ctas.is_empty()
            && partitions.split_ok(next)
    }

    /// Runs cycles `now + 1, now + 2, ...` pipelined while [`Gpu::pipeline_ok`] holds (it
    /// must hold on entry, after a cycle with progress). Leaves `now` at the last cycle run
    /// and returns whether it made progress, as `Gpu::step` does for one cycle.
    pub(super) fn pipelined(
        &mut self,
        stream: &mut Option<Box<dyn KernelStream + Send>>,
        end: Cycle,
    ) -> Result<bool> {
        let mut partner = self.partner.take().expect("two threads");
        let mut mem = MemSide::take(self);
        let mut gate = Gate::default();
        let mut hi = HiOut {
            pkts: Vec::new(),
            runs: Vec::new(),
            any: false,
            min: Cycle::MAX,
            start: None,
            end: std::time::Instant::now(),
        };
        let r = loop {
            match self.pipelined_cycle(&mut partner, &mut mem, &mut gate, &mut hi, stream) {
                Err(e) => break Err(e),
                Ok(progress) => {
                    if !(progress && self.pipeline_ok_with(&mem.partitions, end)) {
                        break Ok(progress);
                    }
                }
            }
        };
        mem.put_back(self);
        self.partner = Some(partner);
        r
    }

    /// One pipelined cycle (`now + 1`).
    fn pipelined_cycle(
        &mut self,
        partner: &mut Partner,
        mem: &mut MemSide,
        gate: &mut Gate,
        hi: &mut HiOut,
        stream: &mut Option<Box<dyn KernelStream + Send>>,
    ) -> Result<bool> {
        // The regular loop's bookkeeping after a cycle with progress.
        self.last_progress = self.now;
        self.now += 1;
        let c = self.now;
        let (closer, passer) = gate.round();
        let mut passer = Some(passer);
        let pending = std::mem::take(&mut self.req_pending);
        debug_assert!(pending, "pipelined after a split cycle");
        let due_only = self.wakes.on;
        let mut mine: Result<(bool, Cycle)> = Ok((false, Cycle::MAX));
        let mut mem_any = false;
        let MemSide {
            partitions,
            clocks,
            outbox,
            staged,
            replies,
            inbox_next,
        } = mem;
        partner.join(
            || mine = self.pipelined_half(c, closer, hi, stream),
            &mut || {
                let passer = passer.take().expect("one pass per round");
                requests_cycle(partitions, clocks, outbox, staged);
                mem_any = replies_cycle(partitions, replies, inbox_next, c);
                passer.pass();
            },
        );
        let (any, min) = mine?;
        // After the join, as `sms_split` / `lockstep_split` end.
        let Gpu {
            sms,
            sched,
            wakes,
            senders,
            done_hi,
            wake_hi,
            ..
        } = self;
        if due_only {
            wakes.settle_split(wake_hi, c, min.min(hi.min));
        }
        let st = &mut mem.staged;
        debug_assert!(st.is_empty());
        std::mem::swap(&mut st.hi, &mut hi.pkts);
        std::mem::swap(&mut st.hi_runs, &mut hi.runs);
        let done_any = stage_split(sms, sched, senders, done_hi, st, c);
        self.req_pending = true;
        post_replies(&mut mem.inbox_next, &mut self.marks, &mut self.wakes, c + 1);
        Ok(any | hi.any | mem_any | done_any)
    }

    /// This thread's half of pipelined cycle `c`: the feed and the block scheduler's issue,
    /// the due SMs, then its share of the SMs (the partner's through `closer`, its side of the
    /// cycle's gate round). Returns whether anything changed and the least new wake of its SMs.
    fn pipelined_half(
        &mut self,
        c: Cycle,
        closer: Closer<'_>,
        hi: &mut HiOut,
        stream: &mut Option<Box<dyn KernelStream + Send>>,
    ) -> Result<(bool, Cycle)> {
        // What the regular loop does between the cycles (its checks cannot fire here).
        feed(self, stream)?;
        let issued = self.issue_ctas(c);
        let due_only = self.wakes.on;
        if due_only {
            self.collect_due(c);
        }
        let (mut h0, mut h1) = decode_halves(stream.as_deref_mut().map(|s| s as _));
        let Gpu {
            sms,
            marks,
            kernels,
            cfg,
            wakes,
            senders,
            done_hi,
            wake_hi,
            bound,
            ..
        } = self;
        let sms_n = sms.len();
        senders.clear();
        done_hi.clear();
        wake_hi.clear();
        hi.runs.clear();
        hi.start = None;
        hi.any = false;
        hi.min = Cycle::MAX;
        let n = if due_only { wakes.due.len() } else { sms.len() };
        let (due, from, wake) = (&wakes.due, &wakes.from, &mut wakes.wake);
        // This thread's items, then the partner's: the SMs below the boundary and the rest.
        let k = bound.k.min(sms.len());
        let split = if due_only {
            due.partition_point(|&s| (s as usize) < k)
        } else {
            k
        };
        // This thread claims its items at once; the partner takes the others from the top in
        // runs, and this thread, once done with its own, takes the partner's lowest ones one
        // at a time (the partner's memory side varies from cycle to cycle).
        let cols = (&mut sms[..], &mut marks[..]);
        let shares = if due_only {
            Shares::listed(cols, due)
        } else {
            Shares::all(cols, n)
        };
        let own = shares.take_low_len(split);
        let ctx = StepCtx { kernels };
        let cfg = &*cfg;
        // An item of the cycle's list (a due SM, or any SM): its deferred accounting (due SMs
        // only) and its step.
        let visit = |s: usize, sm: &mut Sm, m: &mut EpochMarks| {
            if due_only && c > from[s] {
                sm.skip(c - from[s]);
            }
            sm_epoch(sm, m, &ctx, cfg, c, 1)
        };
        let mut theirs = || {
            if let Some(h) = h1.take() {
                h();
            }
            let mut first = true;
            while let Some(r) = shares.take_high() {
                if first {
                    hi.start = Some(std::time::Instant::now());
                    first = false;
                }
                hi.runs.push(hi.pkts.len() as u32);
                for (s, (sm, m)) in r {
                    hi.any |= visit(s, sm, m);
                    if due_only {
                        wake_hi.push((s as u32, sm.wake));
                        hi.min = hi.min.min(sm.wake);
                    }
                    if !sm.sh.outbox.is_empty() {
                        hi.pkts.extend(sm.sh.outbox.drain(..).map(|p| (c, p)));
                    }
                    if !sm.sh.done_ctas.is_empty() {
                        done_hi.push(s as u32);
                    }
                }
            }
            hi.end = std::time::Instant::now();
        };
        let mine = || {
            if let Some(h) = h0.take() {
                h();
            }
            let (mut any, mut min) = (issued, Cycle::MAX);
            // The boundary's feedback reads the clock: which thread steps an SM is all it
            // decides.
            let (start, mut items) = (std::time::Instant::now(), 0);
            let mut next = own;
            while let Some(r) = next {
                items += r.len();
                for (s, (sm, m)) in r {
                    any |= visit(s, sm, m);
                    if due_only {
                        wake[s] = sm.wake;
                        min = min.min(sm.wake);
                    }
                    if !sm.sh.outbox.is_empty() || !sm.sh.done_ctas.is_empty() {
                        senders.push(s as u32);
                    }
                }
                next = shares.take_low_len(1);
            }
            (any, min, start, std::time::Instant::now(), items)
        };
        let (any, min, a_start, a_end, a_items) = closer.open_with(&mut theirs, mine);
        bound.feedback(a_start, a_end, a_items, hi.start, hi.end, sms_n);
        Ok((any, min))
    }
}
