//! The block scheduler: kernels in order per CUDA stream (concurrent across streams when
//! `sm.concurrent_kernels` allows), CTAs issued round robin over the SMs, at most one CTA per SM
//! per cycle, each SM taking a CTA only when occupancy allows (`Sm::can_launch`), with the kernel
//! and CTA launch latencies from the config.
//!
//! ```text
//!  launch queue (command order) ──eligible?──> issuing kernel: CTA queue ──RR──> SM0 SM1 ... SMn
//!     eligible: no unfinished kernel of its stream ahead, and (concurrent or GPU empty)
//! ```
//! One kernel hands out CTAs at a time; the next may start as soon as the previous one has
//! issued its last CTA, so kernels of different streams overlap on leftover resources.
//!
//! Cost: the scheduler remembers per SM the next cycle worth asking (its CTA launch latency,
//! or never while it is full, until a CTA finishes there: `freed`, called by the engine when
//! it books finished CTAs), and the least of them, so a cycle in which no SM can take a CTA
//! costs one comparison and the round robin visits only SMs that may say yes. The unfinished
//! launches and the queued ones are also counted per stream, so deciding which launch may start
//! next costs the same whether ten or a hundred thousand launches came before or wait behind.

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;

use super::occupancy::Occupancy;
use crate::core::{KernelCtx, Sm};
use crate::trace::PackedCta;
use crate::Cycle;

/// One kernel launch and its progress.
#[derive(Clone, Debug, Serialize)]
pub struct KernelRun {
    pub launch: u32,
    /// Index of the kernel in the trace source.
    pub trace_index: usize,
    pub stream: u64,
    pub ctas_total: u64,
    pub ctas_issued: u64,
    pub ctas_done: u64,
    /// Cycle the kernel became eligible (launch command accepted).
    pub launched_at: Cycle,
    pub first_cta_at: Option<Cycle>,
    pub end_at: Option<Cycle>,
    pub occupancy: Occupancy,
}

impl KernelRun {
    pub fn done(&self) -> bool {
        self.end_at.is_some()
    }
}

#[derive(Debug, Default)]
pub struct BlockScheduler {
    /// Kernel launches not yet started: (trace index, stream) ([`BlockScheduler::enqueue`],
    /// [`BlockScheduler::dequeue`]).
    queue: VecDeque<(usize, u64)>,
    /// Every launch started, in launch order ([`BlockScheduler::start_run`]); a run ends
    /// through [`BlockScheduler::end_run`].
    pub runs: Vec<KernelRun>,
    /// Per stream, the launches queued (`queue`) and the runs started but not ended.
    queued: BTreeMap<u64, u32>,
    live: BTreeMap<u64, u32>,
    /// Launch number handing out CTAs now, and its remaining CTAs.
    pub issuing: Option<u32>,
    pub ctas: VecDeque<PackedCta>,
    /// The issuing kernel's stream has CTAs not yet in `ctas` (`ctas_total` still growing).
    pub more: bool,
    /// Earliest cycle the issuing kernel may issue (kernel launch latency).
    pub ready_at: Cycle,
    rr: usize,
    /// Per SM, the earliest cycle worth asking `Sm::can_launch` for a CTA of launch
    /// `try_for`: its `cta_ready_at`, or `Cycle::MAX` when the CTA did not fit for want of
    /// resources, which only free when a CTA finishes there ([`BlockScheduler::freed`]).
    next_try: Vec<Cycle>,
    try_for: Option<u32>,
    /// The least of `next_try`: before it no SM can take a CTA (one comparison per epoch).
    min_try: Cycle,
    /// Scratch for `issue`: a bit per SM whose `next_try` has come.
    due: Vec<u64>,
    /// SMs that finished CTAs since the last [`BlockScheduler::take_spent`] (repeats
    /// allowed): only they hold spent CTA traces (`SmShared::spent`) for the feed to recycle.
    spent: Vec<u32>,
}

impl BlockScheduler {
    /// Queues a launch of trace kernel `index` on `stream`.
    pub fn enqueue(&mut self, index: usize, stream: u64) {
        self.queue.push_back((index, stream));
        *self.queued.entry(stream).or_default() += 1;
    }

    /// Takes queued launch `i` (from [`BlockScheduler::next_eligible`]) out of the queue.
    pub fn dequeue(&mut self, i: usize) -> Option<(usize, u64)> {
        let (index, stream) = self.queue.remove(i)?;
        dec(&mut self.queued, stream);
        Some((index, stream))
    }

    /// Launches waiting to start.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Records a started launch (its `end_at` unset).
    pub fn start_run(&mut self, run: KernelRun) {
        debug_assert!(!run.done());
        *self.live.entry(run.stream).or_default() += 1;
        self.runs.push(run);
    }

    /// Launch `l` ends in cycle `c`.
    pub fn end_run(&mut self, l: u32, c: Cycle) {
        let run = &mut self.runs[l as usize];
        if run.end_at.is_none() {
            run.end_at = Some(c);
            let stream = run.stream;
            dec(&mut self.live, stream);
        }
    }

    /// Runs started and not ended.
    pub fn unfinished(&self) -> u32 {
        self.live.values().sum()
    }

    /// The first queued launch that may start now (stream order, concurrency rule): the first
    /// of its stream in the queue, with no run of its stream unfinished.
    pub fn next_eligible(&self, concurrent: bool) -> Option<usize> {
        if self.issuing.is_some() {
            return None;
        }
        if !concurrent && !self.live.is_empty() {
            return None;
        }
        // Only the first queued launch of each stream may start: the scan ends once every
        // queued stream has shown its first one.
        let mut seen: Vec<u64> = Vec::new();
        for (i, &(_, stream)) in self.queue.iter().enumerate() {
            if seen.contains(&stream) {
                continue;
            }
            if !self.live.contains_key(&stream) {
                return Some(i);
            }
            seen.push(stream);
            if seen.len() == self.queued.len() {
                break;
            }
        }
        None
    }

    /// Issues CTAs of the issuing kernel: one per SM per cycle, round robin. Returns how many.
    /// The scheduler only decides: `launch(sm, kernel, cta)` hands each CTA over, and the
    /// engine makes it resident (`Sm::launch_cta` at `now` with `cta_latency`) on the SM's own
    /// thread before the SM steps `now`, so no SM here has changed since the last cycle.
    pub fn issue(
        &mut self,
        now: Cycle,
        sms: &[Sm],
        kernels: &[KernelCtx],
        cta_latency: u32,
        launch: &mut dyn FnMut(usize, u32, PackedCta),
    ) -> u32 {
        let Some(l) = self.issuing else { return 0 };
        if self.ctas.is_empty() {
            return 0;
        }
        if now < self.ready_at {
            return 0;
        }
        let k = &kernels[l as usize];
        let n = sms.len();
        if self.try_for != Some(l) || self.next_try.len() != n {
            self.next_try.clear();
            self.next_try.resize(n, 0);
            self.try_for = Some(l);
            self.min_try = 0;
        }
        if now < self.min_try {
            return 0;
        }
        // One pass: the SMs worth asking now (`due`, a bit each) and the least entry of the
        // others; then the round robin visits only the due ones, from `rr` on (the others
        // it would skip).
        self.due.clear();
        self.due.resize(n.div_ceil(64), 0);
        let mut least = Cycle::MAX;
        for (s, &t) in self.next_try.iter().enumerate() {
            if t <= now {
                self.due[s >> 6] |= 1 << (s & 63);
            } else {
                least = least.min(t);
            }
        }
        let start = if self.rr >= n { self.rr - n } else { self.rr };
        let mut issued = 0;
        let mut last = None;
        for (a, b) in [(start, n), (0, start)] {
            let mut s = a;
            while s < b {
                let w = s >> 6;
                // Due SMs in s..b within word w.
                let lo_mask = !0u64 << (s & 63);
                let hi_bits = (b - (w << 6)).min(64);
                let hi_mask = if hi_bits == 64 {
                    !0
                } else {
                    (1u64 << hi_bits) - 1
                };
                let mut m = self.due[w] & lo_mask & hi_mask;
                while m != 0 {
                    let s = (w << 6) + m.trailing_zeros() as usize;
                    m &= m - 1;
                    if self.ctas.is_empty() {
                        // Not visited (the queue ran dry): its entry stays.
                        least = least.min(self.next_try[s]);
                        continue;
                    }
                    let sm = &sms[s];
                    let t = if sm.can_launch(k, now) {
                        let cta = self.ctas.pop_front().expect("not empty");
                        launch(s, l, cta);
                        issued += 1;
                        last = Some(s);
                        // What `Sm::launch_cta` sets `cta_ready_at` to.
                        now + cta_latency as u64
                    } else if now < sm.cta_ready_at {
                        sm.cta_ready_at
                    } else {
                        Cycle::MAX
                    };
                    self.next_try[s] = t;
                    least = least.min(t);
                }
                s = (w + 1) << 6;
            }
        }
        self.min_try = if n == 0 { 0 } else { least };
        debug_assert_eq!(
            self.min_try,
            self.next_try.iter().copied().min().unwrap_or(0)
        );
        if let Some(s) = last {
            self.rr = s + 1;
        }
        let run = &mut self.runs[l as usize];
        if issued > 0 {
            run.first_cta_at.get_or_insert(now);
            run.ctas_issued += issued as u64;
        }
        if self.ctas.is_empty() && !self.more {
            self.issuing = None;
        }
        issued
    }

    /// The earliest cycle at which [`BlockScheduler::issue`] may hand a CTA to an SM that has
    /// not finished one since: the least per-SM retry cycle (an SM full for the issuing
    /// kernel waits for one of its own CTAs to finish, [`BlockScheduler::freed`]), not before
    /// the kernel's launch latency; `Cycle::MAX` when nothing is left to hand out.
    pub fn open_from(&self) -> Cycle {
        let Some(l) = self.issuing else {
            return Cycle::MAX;
        };
        if self.ctas.is_empty() && !self.more {
            return Cycle::MAX;
        }
        // Not yet tried for this launch: every SM is asked at its first issue.
        let tried = if self.try_for == Some(l) {
            self.min_try
        } else {
            0
        };
        self.ready_at.max(tried)
    }

    /// Whether a queued launch can start only once every launched kernel has finished (no
    /// concurrency, or all of them on one stream): then no kernel starts while an SM still
    /// holds a CTA.
    pub fn starts_only_when_empty(&self, concurrent: bool) -> bool {
        if !concurrent {
            return true;
        }
        let mut streams = self.live.keys().chain(self.queued.keys());
        match streams.next() {
            Some(&s) => streams.all(|&t| t == s),
            None => true,
        }
    }

    /// A CTA finished on SM `sm`: its resources may take another one.
    #[inline]
    pub fn freed(&mut self, sm: usize) {
        if let Some(t) = self.next_try.get_mut(sm) {
            *t = 0;
            self.min_try = 0;
        }
    }

    /// SM `sm` finished the CTAs of launches `done` (in order) in cycle `c`: its resources
    /// free, and a launch whose last CTA this was ends then (its cycle goes to `flushes`, for
    /// the L2 flush at kernel end). Returns whether there were any.
    pub fn finished(
        &mut self,
        sm: usize,
        done: &[u32],
        c: Cycle,
        flushes: &mut Vec<Cycle>,
    ) -> bool {
        if done.is_empty() {
            return false;
        }
        self.freed(sm);
        self.spent.push(sm as u32);
        for &kl in done {
            let run = &mut self.runs[kl as usize];
            run.ctas_done += 1;
            if run.ctas_done == run.ctas_total && !(self.more && self.issuing == Some(kl)) {
                self.end_run(kl, c);
                flushes.push(c);
            }
        }
        true
    }

    /// The SMs holding spent CTA traces ([`BlockScheduler::finished`] since the last call), in
    /// SM order, each once; the list empties.
    pub fn take_spent(&mut self) -> impl Iterator<Item = usize> + '_ {
        self.spent.sort_unstable();
        self.spent.dedup();
        self.spent.drain(..).map(|s| s as usize)
    }

    /// All launches started and finished.
    pub fn all_done(&self) -> bool {
        self.queue.is_empty() && self.issuing.is_none() && self.live.is_empty()
    }
}

/// One fewer of `key` in a count map (the entry goes at zero).
fn dec(m: &mut BTreeMap<u64, u32>, key: u64) {
    if let Some(n) = m.get_mut(&key) {
        *n -= 1;
        if *n == 0 {
            m.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(launch: u32, stream: u64) -> KernelRun {
        KernelRun {
            launch,
            trace_index: launch as usize,
            stream,
            ctas_total: 1,
            ctas_issued: 0,
            ctas_done: 0,
            launched_at: 0,
            first_cta_at: None,
            end_at: None,
            occupancy: Occupancy {
                ctas_per_sm: 1,
                limiter: super::super::occupancy::Limiter::Ctas,
                warps_per_cta: 1,
                regs_per_warp: 0,
                shmem_per_cta: 0,
                limit_ctas: 1,
                limit_warps: 1,
                limit_regs: 1,
                limit_shmem: 1,
            },
        }
    }

    /// The rule written out over every run and every queued launch.
    fn naive(s: &BlockScheduler, concurrent: bool) -> Option<usize> {
        if s.issuing.is_some() {
            return None;
        }
        let running = |st: Option<u64>| {
            s.runs
                .iter()
                .any(|r| !r.done() && st.is_none_or(|st| r.stream == st))
        };
        if !concurrent && running(None) {
            return None;
        }
        (0..s.queue.len()).find(|&i| {
            let st = s.queue[i].1;
            !s.queue.iter().take(i).any(|q| q.1 == st) && !running(Some(st))
        })
    }

    #[test]
    fn launches_start_as_the_stream_rule_says_with_counts_not_scans() {
        for concurrent in [false, true] {
            let mut s = BlockScheduler::default();
            // Launches on three streams, queued in a fixed mixed order.
            for i in 0..600usize {
                s.enqueue(i, (i * 7 % 11 % 3) as u64);
            }
            let mut step = 0u64;
            while s.queued() > 0 || s.unfinished() > 0 {
                step += 1;
                let want = naive(&s, concurrent);
                assert_eq!(s.next_eligible(concurrent), want, "step {step}");
                let streams_same = {
                    let mut v: Vec<u64> = s
                        .runs
                        .iter()
                        .filter(|r| !r.done())
                        .map(|r| r.stream)
                        .chain(s.queue.iter().map(|q| q.1))
                        .collect();
                    v.dedup();
                    v.len() <= 1
                };
                assert_eq!(
                    s.starts_only_when_empty(concurrent),
                    !concurrent || streams_same
                );
                match want {
                    // Start it, or end the oldest unfinished run every third step.
                    Some(i) if !step.is_multiple_of(3) => {
                        let (_, stream) = s.dequeue(i).unwrap();
                        let l = s.runs.len() as u32;
                        s.start_run(run(l, stream));
                    }
                    _ => {
                        let l = s.runs.iter().position(|r| !r.done());
                        if let Some(l) = l {
                            s.end_run(l as u32, step);
                        }
                    }
                }
            }
            assert!(s.all_done());
            assert_eq!((s.runs.len(), s.queued.len(), s.live.len()), (600, 0, 0));
        }
    }
}
