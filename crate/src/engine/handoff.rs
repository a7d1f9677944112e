//! A partner thread for the two-thread K = 1 cycle (`epoch.rs`, `lockstep_split`): one
//! fork/join per simulated cycle, tens of microseconds of work on each side, so the hand-off
//! itself must cost well under a microsecond.
//!
//! A rayon join costs about 5 µs here: the idle worker notices the pushed job only between
//! `sched_yield` calls, and the joining thread notices its completion the same way. The
//! partner instead spins on one atomic (with `spin_loop` hints) for a while after each job,
//! so the next cycle's job starts within a cache-line transfer; it parks on a condition
//! variable only after [`SPIN_ROUNDS`] idle rounds (between slices, or while cycles run
//! serially), and the poster wakes it then.
//!
//! Only scheduling: which thread runs a closure never changes what it computes, so results
//! stay identical for any thread count.
//!
//! Measuring: with the feature `handoff-stats` (off by default, nothing compiled in without
//! it) the partner prints, when it stops, how long the epoch loop's thread was busy in its
//! side of the joins, waited at their ends and ran between them, and how long the partner was
//! busy, started late and ended after it.
//!
//! Safety: [`Partner::join`] hands the partner a pointer to a closure on the caller's stack
//! and does not return (nor unwind) before the partner has finished with it, which is what
//! makes the borrowed closure sound to run on another thread (the pattern of
//! `std::thread::scope` and rayon's `join`, without their per-call costs).

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// Idle spin rounds (each a `spin_loop` hint, a few ns) before the partner parks: a few
/// hundred microseconds, far longer than the serial part of a cycle.
const SPIN_ROUNDS: u32 = 1 << 17;

type Job = *mut (dyn FnMut() + Send + 'static);

/// A value on a cache line (pair) of its own, so what one thread writes is not on the line the
/// other spins on or writes.
#[repr(align(128))]
#[derive(Default)]
struct Line<T>(T);

impl<T> std::ops::Deref for Line<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// What the poster writes for each job, on one cache line (pair): the partner spins on it.
#[repr(align(128))]
struct Post {
    /// Jobs posted so far (the poster's sequence number).
    seq: AtomicU64,
    /// The posted job; written by the poster before `seq` is raised, read by the partner
    /// after it sees the rise, and not touched again until `finished` catches up.
    job: UnsafeCell<Option<Job>>,
}

struct Shared {
    post: Post,
    /// Jobs finished so far; the poster spins on it.
    finished: Line<AtomicU64>,
    /// A panic of the last job, for the poster to resume.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Set while the partner is (about to be) parked on `wake`.
    parked: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
    stop: AtomicBool,
    /// Feature `handoff-stats`: nanoseconds the partner spent in jobs.
    #[cfg(feature = "handoff-stats")]
    b_busy: AtomicU64,
    /// Feature `handoff-stats`: when the partner started and ended its last job
    /// (nanoseconds since `base`).
    #[cfg(feature = "handoff-stats")]
    b_start: AtomicU64,
    #[cfg(feature = "handoff-stats")]
    b_end: AtomicU64,
    #[cfg(feature = "handoff-stats")]
    base: std::time::Instant,
}

/// Feature `handoff-stats`: where the poster's time went (nanoseconds).
#[cfg(feature = "handoff-stats")]
#[derive(Default)]
struct Times {
    joins: u64,
    /// In its own side of a join.
    a_busy: u64,
    /// Waiting for the partner at the end of a join.
    a_wait: u64,
    /// From the end of one join to the start of the next (the serial part of a cycle).
    between: u64,
    /// From the post to the partner's start of the job.
    b_lag: u64,
    /// From the end of this thread's side to the end of the partner's (when later).
    b_tail: u64,
    last_end: Option<std::time::Instant>,
}

// SAFETY: `post.job` is only accessed under the seq/finished hand-off described on the field.
unsafe impl Sync for Shared {}
unsafe impl Send for Shared {}

/// The partner thread (see the module docs); stopped and joined on drop.
pub struct Partner {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    /// Joins so far (`Gpu::exchanges`).
    pub joins: u64,
    #[cfg(feature = "handoff-stats")]
    times: Times,
}

impl std::fmt::Debug for Partner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Partner")
    }
}

impl Partner {
    pub fn new() -> std::io::Result<Partner> {
        let shared = Arc::new(Shared {
            post: Post {
                seq: AtomicU64::new(0),
                job: UnsafeCell::new(None),
            },
            finished: Line(AtomicU64::new(0)),
            panic: Mutex::new(None),
            parked: AtomicBool::new(false),
            lock: Mutex::new(()),
            wake: Condvar::new(),
            stop: AtomicBool::new(false),
            #[cfg(feature = "handoff-stats")]
            b_busy: AtomicU64::new(0),
            #[cfg(feature = "handoff-stats")]
            b_start: AtomicU64::new(0),
            #[cfg(feature = "handoff-stats")]
            b_end: AtomicU64::new(0),
            #[cfg(feature = "handoff-stats")]
            base: std::time::Instant::now(),
        });
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("warpweave-partner".into())
            .spawn(move || partner_loop(&s))?;
        Ok(Partner {
            shared,
            thread: Some(thread),
            joins: 0,
            #[cfg(feature = "handoff-stats")]
            times: Times::default(),
        })
    }

    /// [`Partner::join`] for two one-shot halves (such as a stream's `prefetch_pair`): `a`
    /// here, `b` on the partner thread.
    pub fn join_once(&mut self, a: impl FnOnce(), b: impl FnOnce() + Send) {
        let mut b = Some(b);
        self.join(a, &mut || {
            if let Some(b) = b.take() {
                b();
            }
        });
    }

    /// Runs `b` on the partner thread and `a` on this one; returns when both are done.
    /// A panic in either is resumed here (after both have finished).
    pub fn join<A: FnOnce() -> R, R>(&mut self, a: A, b: &mut (dyn FnMut() + Send)) -> R {
        self.joins += 1;
        let sh = &*self.shared;
        let ptr: *mut (dyn FnMut() + Send + '_) = b;
        // SAFETY: the lifetime is erased only for the partner's use, which ends before this
        // function returns or unwinds (`Wait` below waits on every path).
        let ptr: Job = unsafe { std::mem::transmute(ptr) };
        let seq = sh.post.seq.load(Ordering::Relaxed) + 1;
        // SAFETY: the partner has finished every earlier job, so nobody reads `job` now.
        unsafe { *sh.post.job.get() = Some(ptr) };
        sh.post.seq.store(seq, Ordering::SeqCst);
        if sh.parked.load(Ordering::SeqCst) {
            let _g = sh.lock.lock().unwrap_or_else(|e| e.into_inner());
            sh.wake.notify_one();
        }
        struct Wait<'a>(&'a Shared, u64);
        impl Drop for Wait<'_> {
            fn drop(&mut self) {
                let mut n = 0u32;
                while self.0.finished.load(Ordering::Acquire) < self.1 {
                    n = n.wrapping_add(1);
                    if n.is_multiple_of(1024) {
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
                if std::thread::panicking() {
                    // `a` panicked: that panic goes on; one of the partner's is dropped.
                    self.0
                        .panic
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take();
                }
            }
        }
        #[cfg(feature = "handoff-stats")]
        let t0 = std::time::Instant::now();
        let wait = Wait(sh, seq);
        let r = a();
        #[cfg(feature = "handoff-stats")]
        let t1 = std::time::Instant::now();
        drop(wait);
        #[cfg(feature = "handoff-stats")]
        {
            let t2 = std::time::Instant::now();
            let t = &mut self.times;
            t.joins += 1;
            t.a_busy += (t1 - t0).as_nanos() as u64;
            t.a_wait += (t2 - t1).as_nanos() as u64;
            if let Some(e) = t.last_end {
                t.between += (t0 - e).as_nanos() as u64;
            }
            let ns = |i: std::time::Instant| (i - sh.base).as_nanos() as u64;
            t.b_lag += sh.b_start.load(Ordering::Relaxed).saturating_sub(ns(t0));
            t.b_tail += sh.b_end.load(Ordering::Relaxed).saturating_sub(ns(t1));
            t.last_end = Some(t2);
        }
        if let Some(p) = sh.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
            resume_unwind(p);
        }
        r
    }
}

impl Drop for Partner {
    fn drop(&mut self) {
        let sh = &*self.shared;
        #[cfg(feature = "handoff-stats")]
        {
            let t = &self.times;
            let s = |ns: u64| ns as f64 * 1e-9;
            eprintln!(
                "handoff-stats: {} joins; this thread {:.3} s busy, {:.3} s waiting, {:.3} s between joins; partner {:.3} s busy, {:.3} s from post to start, {:.3} s ending after this thread",
                t.joins,
                s(t.a_busy),
                s(t.a_wait),
                s(t.between),
                s(sh.b_busy.load(Ordering::Relaxed)),
                s(t.b_lag),
                s(t.b_tail)
            );
        }
        sh.stop.store(true, Ordering::SeqCst);
        {
            let _g = sh.lock.lock().unwrap_or_else(|e| e.into_inner());
            sh.wake.notify_one();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn partner_loop(sh: &Shared) {
    let mut done = 0u64;
    loop {
        // Wait for the next job: spin, then park.
        let mut spins = 0u32;
        while sh.post.seq.load(Ordering::Acquire) == done {
            if sh.stop.load(Ordering::Relaxed) {
                return;
            }
            spins += 1;
            if spins < SPIN_ROUNDS {
                // Now and then let another thread of this core run (more threads than
                // cores, e.g. tests running side by side).
                if spins.is_multiple_of(1024) {
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
                continue;
            }
            let g = sh.lock.lock().unwrap_or_else(|e| e.into_inner());
            sh.parked.store(true, Ordering::SeqCst);
            let mut g = g;
            while sh.post.seq.load(Ordering::SeqCst) == done && !sh.stop.load(Ordering::SeqCst) {
                g = sh.wake.wait(g).unwrap_or_else(|e| e.into_inner());
            }
            sh.parked.store(false, Ordering::SeqCst);
            drop(g);
            spins = 0;
        }
        done += 1;
        // SAFETY: the poster wrote `job` before raising `posted` and keeps the closure alive
        // until `finished` reaches `done`.
        let job = unsafe { (*sh.post.job.get()).take() };
        if let Some(job) = job {
            // SAFETY: as above; the closure is not used by the poster meanwhile.
            let f = unsafe { &mut *job };
            #[cfg(feature = "handoff-stats")]
            let t0 = std::time::Instant::now();
            #[cfg(feature = "handoff-stats")]
            sh.b_start
                .store((t0 - sh.base).as_nanos() as u64, Ordering::Relaxed);
            if let Err(p) = catch_unwind(AssertUnwindSafe(f)) {
                *sh.panic.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
            }
            #[cfg(feature = "handoff-stats")]
            {
                let t1 = std::time::Instant::now();
                sh.b_busy
                    .fetch_add((t1 - t0).as_nanos() as u64, Ordering::Relaxed);
                sh.b_end
                    .store((t1 - sh.base).as_nanos() as u64, Ordering::Relaxed);
            }
        }
        sh.finished.store(done, Ordering::Release);
    }
}

/// Indices `0..n` handed out in runs from both ends, for two threads that meet wherever their
/// work makes them meet: the low end takes runs upward, the high end downward, each run a
/// quarter of what is left (at least one), so a cycle's few dozen SMs cost a dozen or so
/// atomic claims and the two threads finish within about one SM of each other.
/// (On a cache line of its own: both threads write it, and nothing else should move with it.)
#[derive(Debug)]
pub struct TwoEnds(Line<AtomicU64>);

impl std::fmt::Debug for Line<AtomicU64> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl TwoEnds {
    pub fn new(n: usize) -> TwoEnds {
        TwoEnds(Line(AtomicU64::new(n as u64 & 0xffff_ffff)))
    }

    /// The next run from the low end, or None when nothing is left.
    pub fn take_low(&self) -> Option<std::ops::Range<usize>> {
        self.take(true)
    }

    /// The next run from the high end, or None when nothing is left.
    pub fn take_high(&self) -> Option<std::ops::Range<usize>> {
        self.take(false)
    }

    /// The next `len` indices from the low end (fewer if fewer are left), or None when
    /// nothing is left (or `len` is 0): a run of a fixed length instead of a quarter.
    pub fn take_low_len(&self, len: usize) -> Option<std::ops::Range<usize>> {
        self.take_with(true, Some(len))
    }

    /// [`TwoEnds::take_low_len`] from the high end.
    pub fn take_high_len(&self, len: usize) -> Option<std::ops::Range<usize>> {
        self.take_with(false, Some(len))
    }

    fn take(&self, low: bool) -> Option<std::ops::Range<usize>> {
        self.take_with(low, None)
    }

    fn take_with(&self, low: bool, len: Option<usize>) -> Option<std::ops::Range<usize>> {
        let mut cur = self.0.load(Ordering::Acquire);
        loop {
            let (lo, hi) = (cur >> 32, cur & 0xffff_ffff);
            if lo >= hi || len == Some(0) {
                return None;
            }
            let run = match len {
                Some(l) => (l as u64).min(hi - lo),
                None => ((hi - lo) / 4).max(1),
            };
            let (nlo, nhi, r) = if low {
                (lo + run, hi, lo..lo + run)
            } else {
                (lo, hi - run, hi - run..hi)
            };
            match self.0.compare_exchange_weak(
                cur,
                (nlo << 32) | nhi,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Some(r.start as usize..r.end as usize),
                Err(now) => cur = now,
            }
        }
    }
}

/// A second hand-off inside a [`Partner::join`]: the partner's job starts with work of its
/// own (the memory side of a pipelined cycle, `engine/pipeline.rs`) and then takes a part
/// this thread prepares meanwhile (its share of the cycle's SMs, with what this thread
/// decided before them). One round per join ([`Gate::round`]):
///
/// ```text
///  this thread (join side a)                 partner (join side b)
///  let c = gate.closer(r)                    let p = gate.passer(r)
///  ... prepare ...                           ... own work ...
///  c.open_with(&mut part, || {  ───────────> p.pass(): waits for the open, runs `part`
///      ... its own share ...
///  })  returns once `part` has run  <──────── (done)
/// ```
///
/// Every way out ends the round for the other side: a closer dropped unopened (an error or a
/// panic before the part was ready) lets `pass` return without a part; a passer dropped
/// without passing (a panic in the partner's own work) makes `open` hand back an inert guard,
/// so this thread never waits for a part nobody will run. Results never depend on it: the part
/// takes items that this thread would otherwise take itself (`TwoEnds`).
#[derive(Default)]
pub struct Gate {
    /// `round << 2 | OPEN / CLOSED / DONE / ABANDONED`.
    state: Line<AtomicU64>,
    /// The open round's part; written before the round opens (Release), run by the partner
    /// after it sees the open (Acquire), alive until the round is DONE.
    part: UnsafeCell<Option<Job>>,
    last: AtomicU64,
}

const G_OPEN: u64 = 1;
const G_CLOSED: u64 = 2;
const G_DONE: u64 = 3;

// SAFETY: `part` is written by the opening thread only before the round opens and read by the
// partner only after it has seen the round open (Release/Acquire on `state`); the opener keeps
// the closure alive until the round is DONE (`Opened`'s drop).
unsafe impl Sync for Gate {}
unsafe impl Send for Gate {}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Gate")
    }
}

impl Gate {
    /// A new round, before the join whose two sides use it.
    pub fn round(&self) -> u64 {
        self.last.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// This thread's side of round `r`: closes the round unopened when dropped.
    pub fn closer(&self, r: u64) -> Closer<'_> {
        Closer(self, r)
    }

    /// The partner's side of round `r`: ends the round when dropped without passing.
    pub fn passer(&self, r: u64) -> Passer<'_> {
        Passer(self, r)
    }

    fn spin_until(&self, mut f: impl FnMut(u64) -> bool) -> u64 {
        let mut n = 0u32;
        loop {
            let s = self.state.load(Ordering::Acquire);
            if f(s) {
                return s;
            }
            n = n.wrapping_add(1);
            if n.is_multiple_of(1024) {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

/// See [`Gate::closer`].
pub struct Closer<'g>(&'g Gate, u64);

impl Closer<'_> {
    /// Opens the round with `part` for the partner to run, runs `mine` here meanwhile, and
    /// returns once both have run (also when `mine` panics: the wait is a drop guard).
    pub fn open_with<R>(self, part: &mut (dyn FnMut() + Send), mine: impl FnOnce() -> R) -> R {
        let _opened = self.open(part);
        mine()
    }

    fn open<'j>(self, part: &'j mut (dyn FnMut() + Send + 'j)) -> Opened<'j>
    where
        Self: 'j,
    {
        let (g, r) = (self.0, self.1);
        std::mem::forget(self);
        let ptr: *mut (dyn FnMut() + Send + 'j) = part;
        // SAFETY: the lifetime is erased only for the partner's use, which ends before the
        // returned guard is dropped (it waits for DONE) or never starts (the partner gave
        // up); the guard never leaves `open_with`, so it is dropped before `part` is.
        let ptr: Job = unsafe { std::mem::transmute(ptr) };
        // SAFETY: no round `r` is open yet, so the partner does not read `part`.
        unsafe { *g.part.get() = Some(ptr) };
        let open = r << 2 | G_OPEN;
        let cur = g.state.load(Ordering::Relaxed);
        if cur == r << 2 | G_DONE {
            // The partner gave up before passing (it panicked): nobody will run `part`.
            return Opened(g, r, false);
        }
        match g
            .state
            .compare_exchange(cur, open, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Opened(g, r, true),
            // Only the partner's give-up can change the state meanwhile.
            Err(_) => Opened(g, r, false),
        }
    }
}

impl Drop for Closer<'_> {
    fn drop(&mut self) {
        let (g, r) = (self.0, self.1);
        let _ = g.state.compare_exchange(
            g.state.load(Ordering::Relaxed),
            r << 2 | G_CLOSED,
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
        // (If the partner gave up meanwhile the round is DONE already: either way `pass`
        // has nothing to wait for.)
    }
}

/// See [`Closer::open_with`]: waits, when dropped, until the partner has run the part.
struct Opened<'j>(&'j Gate, u64, bool);

impl Drop for Opened<'_> {
    fn drop(&mut self) {
        if self.2 {
            let done = self.1 << 2 | G_DONE;
            self.0.spin_until(|s| s == done);
        }
    }
}

/// See [`Gate::passer`].
pub struct Passer<'g>(&'g Gate, u64);

impl Passer<'_> {
    /// Waits until this thread's side opens or closes the round; runs the part if it opened.
    pub fn pass(self) {
        let (g, r) = (self.0, self.1);
        let (open, closed) = (r << 2 | G_OPEN, r << 2 | G_CLOSED);
        let s = g.spin_until(|s| s == open || s == closed);
        if s == open {
            // SAFETY: the round is open, so `part` is set and alive until DONE is stored,
            // which happens after the part has run (here, or in `Passer`'s drop on a panic).
            let part = unsafe { (*g.part.get()).expect("an open round has a part") };
            // SAFETY: as above; nothing else runs it.
            unsafe { (*part)() };
        }
        // DONE is stored by the drop, on this path and on a panic inside the part.
    }
}

impl Drop for Passer<'_> {
    fn drop(&mut self) {
        let (g, r) = (self.0, self.1);
        // Passed (or panicking inside the part, or before passing): the round is over for the
        // partner. If this thread's side has not opened yet, DONE tells `open` that nobody
        // will run its part.
        let closed = r << 2 | G_CLOSED;
        if g.state.load(Ordering::Acquire) != closed {
            g.state.store(r << 2 | G_DONE, Ordering::Release);
        }
    }
}

/// A slice whose elements two threads take by index, each index at most once (the indices
/// come from one [`TwoEnds`]).
pub struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    _slice: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: it hands out `&mut T` to distinct elements only (see `get`), like `split_at_mut`.
unsafe impl<T: Send> Send for Disjoint<'_, T> {}
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}

impl<'a, T> Disjoint<'a, T> {
    pub fn new(s: &'a mut [T]) -> Disjoint<'a, T> {
        Disjoint {
            ptr: s.as_mut_ptr(),
            len: s.len(),
            _slice: std::marker::PhantomData,
        }
    }

    /// The element `i`.
    ///
    /// # Safety
    /// No other reference to element `i` may be live: each index is taken once (from a
    /// [`TwoEnds`]) while this `Disjoint` lives.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self, i: usize) -> &mut T {
        assert!(i < self.len);
        // SAFETY: in bounds; exclusivity is the caller's promise.
        unsafe { &mut *self.ptr.add(i) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_run_and_see_each_others_writes_after_the_join() {
        let mut p = Partner::new().unwrap();
        let mut v = [0u64; 4];
        for round in 1..=10_000u64 {
            let r = {
                let (x, y) = v.split_at_mut(2);
                let mut b = || {
                    y[0] += round;
                    y[1] = y[0] * 2;
                };
                p.join(
                    || {
                        x[0] += round;
                        x[0]
                    },
                    &mut b,
                )
            };
            assert_eq!(r, v[0]);
            assert_eq!(v[0], v[2]);
            assert_eq!(v[3], 2 * v[2]);
        }
        assert_eq!(v[0], 10_000 * 10_001 / 2);
    }

    #[test]
    fn a_panic_on_the_partner_reaches_the_caller_and_the_partner_lives_on() {
        let mut p = Partner::new().unwrap();
        let r = catch_unwind(AssertUnwindSafe(|| p.join(|| 1, &mut || panic!("boom"))));
        assert!(r.is_err());
        let mut hit = false;
        p.join(|| (), &mut || hit = true);
        assert!(hit);
    }

    /// The gate's part runs on the partner after its own work, sees what this side wrote
    /// before opening, and is done (its writes visible) when `open_with` returns.
    #[test]
    fn the_gate_hands_a_part_to_the_partner_mid_job() {
        let mut p = Partner::new().unwrap();
        let gate = Gate::default();
        let (mut own, mut prepared, mut seen, mut mine) = (0u64, 0u64, 0u64, 0u64);
        for i in 1..=5000u64 {
            let r = gate.round();
            p.join(
                || {
                    let c = gate.closer(r);
                    prepared = i;
                    let mut part = || seen = prepared * 2;
                    mine = c.open_with(&mut part, || i + 1);
                    assert_eq!(seen, 2 * i);
                },
                &mut || {
                    let pass = gate.passer(r);
                    own += 1;
                    pass.pass();
                },
            );
            assert_eq!((own, mine), (i, i + 1));
        }
    }

    /// Every way out of a round ends it for the other side: a closer dropped unopened lets the
    /// partner's `pass` return, and a partner that gives up (panics) before passing does not
    /// leave `open_with` waiting; the part then simply does not run.
    #[test]
    fn a_gate_round_never_leaves_a_side_waiting() {
        let mut p = Partner::new().unwrap();
        let gate = Gate::default();
        let r = gate.round();
        let mut passed = false;
        p.join(|| drop(gate.closer(r)), &mut || {
            gate.passer(r).pass();
            passed = true;
        });
        assert!(passed);
        let r = gate.round();
        let mut ran = false;
        let res = catch_unwind(AssertUnwindSafe(|| {
            p.join(
                || {
                    let c = gate.closer(r);
                    // Opens after the partner has given up.
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    let mut part = || ran = true;
                    c.open_with(&mut part, || ());
                },
                &mut || {
                    let _pass = gate.passer(r);
                    panic!("the partner's own work failed");
                },
            )
        }));
        assert!(res.is_err() && !ran);
    }

    #[test]
    fn two_ends_hand_out_every_index_once() {
        for n in [0usize, 1, 2, 5, 80, 81] {
            let e = TwoEnds::new(n);
            let mut seen = vec![0u8; n];
            let mut low = true;
            loop {
                let r = if low { e.take_low() } else { e.take_high() };
                let Some(r) = r else { break };
                for i in r {
                    seen[i] += 1;
                }
                low = !low;
            }
            assert!(seen.iter().all(|&c| c == 1), "n = {n}: {seen:?}");
            assert!(e.take_low().is_none() && e.take_high().is_none());
        }
        // From both threads at once.
        let mut p = Partner::new().unwrap();
        for _ in 0..1000 {
            let mut v = vec![0u32; 80];
            let e = TwoEnds::new(v.len());
            let d = Disjoint::new(&mut v);
            let mut b = || {
                while let Some(r) = e.take_high() {
                    for i in r {
                        // SAFETY: each index comes from `e` once.
                        unsafe { *d.get(i) += 1 };
                    }
                }
            };
            p.join(
                || {
                    while let Some(r) = e.take_low() {
                        for i in r {
                            // SAFETY: as above.
                            unsafe { *d.get(i) += 1 };
                        }
                    }
                },
                &mut b,
            );
            assert!(v.iter().all(|&c| c == 1));
        }
    }

    #[test]
    fn a_parked_partner_is_woken() {
        let mut p = Partner::new().unwrap();
        // Long enough for the partner to exhaust its spin rounds and park.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mut hit = 0;
        p.join(|| (), &mut || hit += 1);
        std::thread::sleep(std::time::Duration::from_millis(50));
        p.join(|| (), &mut || hit += 1);
        assert_eq!(hit, 2);
    }
}
