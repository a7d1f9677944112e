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
//! Measuring: with the feature `handoff-stats` (off by default, nothing compiled in without
//! it) the partner prints, when it stops, how long the epoch loop's thread was busy in its
//! side of the joins, waited at their ends and ran between them, and how long the partner was
//! busy, started late and ended after it.
//!
//! Safety: [`Partner::join`] hands the partner a pointer to a closure on the caller's stack
//! and does not return (nor unwind) before the partner has finished with it, which is what
//! makes the borrowed closure sound to run on another thread (the pattern of
//! `std::thread::scope` and rayon's `join`, without their per-call costs).

use super::{erase, spin, thread, Arc, AtomicBool, AtomicU64, Condvar, Job, Line, Mutex};
use super::{Ordering, Slot};
use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// Idle spin rounds (each a `spin_loop` hint, a few ns) before the partner parks: a few
/// hundred microseconds, far longer than the serial part of a cycle. (Fewer under Miri and
/// loom, where a round is costly and parking is worth checking.)
const SPIN_ROUNDS: u32 = if cfg!(loom) {
    2
} else if cfg!(miri) {
    64
} else {
    1 << 17
};

/// What the poster writes for each job, on one cache line (pair): the partner spins on it.
#[repr(align(128))]
struct Post {
    /// Jobs posted so far (the poster's sequence number).
    seq: AtomicU64,
    /// The posted job; written by the poster before `seq` is raised, read by the partner
    /// after it sees the rise, and not touched again until `finished` catches up.
    job: Slot<Option<Job>>,
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

// SAFETY: `post.job` (the only field that is not `Sync` by itself) is written by the poster
// only while the partner has finished every earlier job and not yet seen the next `seq`, and
// read by the partner only after it has seen `seq` rise (Release/Acquire), before it raises
// `finished` (Release; the poster reads it with Acquire before it posts again). The job it
// holds is `Send`, and alive until `finished` catches up (`Partner::join`).
unsafe impl Sync for Shared {}
// SAFETY: as above; the raw job pointer is the only field that is not `Send` by itself.
unsafe impl Send for Shared {}

/// The partner thread (see the module docs); stopped and joined on drop.
pub struct Partner {
    shared: Arc<Shared>,
    thread: Option<thread::JoinHandle<()>>,
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
                job: Slot::new(None),
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
        let thread = thread::Builder::new()
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
        // SAFETY: the partner uses the pointer only until it raises `finished` to `seq`, and
        // `Wait` below waits for that before this function returns or unwinds.
        let ptr = unsafe { erase(b) };
        let seq = sh.post.seq.load(Ordering::Relaxed) + 1;
        // SAFETY: the partner has finished every earlier job (the last join waited for it),
        // and does not read `job` before it sees `seq` rise below: nobody else accesses it.
        sh.post.job.with_mut(|j| unsafe { *j = Some(ptr) });
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
                    spin(&mut n);
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
            if spins < SPIN_ROUNDS {
                spin(&mut spins);
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
        // SAFETY: the poster wrote `job` before raising `seq` (seen above with Acquire) and
        // does not touch it again before `finished` reaches `done`.
        let job = sh.post.job.with_mut(|j| unsafe { (*j).take() });
        if let Some(job) = job {
            // SAFETY: the poster keeps the closure alive and unused until `finished` reaches
            // `done` (`Partner::join` waits for it on every path); nothing else runs it.
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
