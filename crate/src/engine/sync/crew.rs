//! A crew of threads owned for a whole run: the SM half of a cycle (or of a window) is one
//! job that every worker takes part in, at well under a microsecond per hand-off (a rayon
//! join costs about 5 µs, and one per simulated cycle is the engine's common case).
//!
//! The caller (worker 0) posts a job, a closure borrowed from its stack, and does its own
//! part of it; the crew's threads (workers 1 .. n) spin on one atomic (with `spin_loop`
//! hints) for a while after each job, so the next one starts within a cache-line transfer,
//! and park on a condition variable only after [`SPIN_ROUNDS`] idle rounds (between slices,
//! or while cycles run on one thread); the poster wakes them then.
//!
//! A job is *open*: a worker that arrives while it is open enters it and runs it; once the
//! poster is done with its own part it closes the job and waits for the workers inside.
//! Nothing waits for a worker that never came (a descheduled thread on a machine with fewer
//! cores than threads): the work of a job is claimed item by item ([`Shares`](super::Shares),
//! [`Sides`]), so whoever is there does it. [`Crew::join`] is the two-sided form: its second
//! closure must run on another thread (it may wait for the first), so the poster keeps the
//! job open until a worker has taken it.
//!
//! Safety: the job's pointer is erased of its lifetime; the poster does not return (nor
//! unwind) from [`Crew::run`] before the job is closed and every worker that entered it has
//! left, which is what makes the borrowed closure sound to run on other threads (the pattern
//! of `std::thread::scope` and rayon's `join`, without their per-call costs).

use super::{spin, thread, Arc, AtomicBool, AtomicU64, Condvar, Line, Mutex, Ordering, Slot};
use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// Idle spin rounds (each a `spin_loop` hint, a few ns) before a worker parks: a few
/// hundred microseconds, far longer than the serial part of a cycle. (Fewer under Miri and
/// loom, where a round is costly and parking is worth checking.)
const SPIN_ROUNDS: u32 = if cfg!(loom) {
    2
} else if cfg!(miri) {
    64
} else {
    1 << 17
};

/// A posted job: every worker that enters runs it with its worker number.
type Each = *const (dyn Fn(usize) + Sync + 'static);

/// `state`: `seq << 32 | CLOSED | limit << 16 | active`: the job's number, whether it is
/// closed, how many workers it wants (those numbered below `limit` may enter it), and how
/// many are inside.
const CLOSED: u64 = 1 << 31;
const LIMIT_SHIFT: u32 = 16;
const LIMIT: u64 = (Crew::MAX_WORKERS as u64) << LIMIT_SHIFT;
const ACTIVE: u64 = 0xffff;

struct Shared {
    /// The last job's number (upper half), whether it is closed to new workers, and how many
    /// workers are inside it. Every change is a read-modify-write.
    state: Line<AtomicU64>,
    /// The posted job: written by the poster while the last job is closed and empty, before
    /// `state` opens the next (Release); read by a worker after it entered (Acquire), alive
    /// until the job is closed and empty again.
    job: Slot<Option<Each>>,
    /// The first panic of a worker in the current job, for the poster to resume.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Workers (about to be) parked on `wake`.
    parked: AtomicU64,
    lock: Mutex<()>,
    wake: Condvar,
    stop: AtomicBool,
}

// SAFETY: `job` (the only field that is not `Sync` by itself) is written by the poster only
// while the last job is closed with no worker inside, and read by workers only while inside
// the job they entered (entering is a compare-exchange on `state` that fails once the job is
// closed); the poster waits for every worker to leave before it writes `job` again or lets
// the closure go. The closure is `Sync`, so workers may run it side by side.
unsafe impl Sync for Shared {}
// SAFETY: as above; the raw job pointer is the only field that is not `Send` by itself.
unsafe impl Send for Shared {}

/// The crew (see the module docs); its threads stop and are joined on drop.
pub struct Crew {
    shared: Arc<Shared>,
    threads: Vec<thread::JoinHandle<()>>,
    /// Jobs posted so far (`Gpu::exchanges`).
    pub joins: u64,
}

impl std::fmt::Debug for Crew {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Crew({})", self.workers())
    }
}

/// Erases the lifetime of a job for the workers.
///
/// # Safety
/// The pointer may be used only while `f` is alive, which the poster ensures by waiting for
/// every worker to leave the job on every path out, unwinding included.
unsafe fn erase_each<'j>(f: &'j (dyn Fn(usize) + Sync + 'j)) -> Each {
    let ptr: *const (dyn Fn(usize) + Sync + 'j) = f;
    // SAFETY: a fat pointer to the same closure, only its lifetime bound changed.
    unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + 'j), Each>(ptr) }
}

impl Crew {
    /// The most workers a crew can have (the job's worker limit has 15 bits).
    pub const MAX_WORKERS: usize = 0x7fff;

    /// A crew of `n` workers (at least two): the calling thread and `n - 1` threads.
    pub fn new(n: usize) -> std::io::Result<Crew> {
        assert!(n >= 2, "a crew has at least two workers");
        assert!(n <= Crew::MAX_WORKERS, "a crew of at most 32767 workers");
        let shared = Arc::new(Shared {
            state: Line(AtomicU64::new(CLOSED)),
            job: Slot::new(None),
            panic: Mutex::new(None),
            parked: AtomicU64::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
            stop: AtomicBool::new(false),
        });
        let mut crew = Crew {
            shared,
            threads: Vec::with_capacity(n - 1),
            joins: 0,
        };
        for w in 1..n {
            let s = crew.shared.clone();
            let t = thread::Builder::new()
                .name(format!("warpweave-crew-{w}"))
                .spawn(move || worker(&s, w))?;
            crew.threads.push(t);
        }
        Ok(crew)
    }

    /// Workers, this thread included.
    pub fn workers(&self) -> usize {
        self.threads.len() + 1
    }

    /// Posts `each` to the crew and runs `mine` here; returns once `mine` is done, the job is
    /// closed, and every worker that entered it has run it. A panic on either side is resumed
    /// here (after that).
    #[cfg(test)]
    pub fn run<R>(&mut self, mine: impl FnOnce() -> R, each: &(dyn Fn(usize) + Sync)) -> R {
        self.run_with(mine, each, None, usize::MAX)
    }

    /// [`Crew::run`] for at most `limit` workers, this thread included (those numbered below
    /// `limit`; the others leave the job alone): a small job's few items are not worth many
    /// workers' hand-offs.
    pub fn run_upto<R>(
        &mut self,
        limit: usize,
        mine: impl FnOnce() -> R,
        each: &(dyn Fn(usize) + Sync),
    ) -> R {
        self.run_with(mine, each, None, limit)
    }

    /// Runs `b` on a worker of the crew and `a` on this thread; returns when both are done.
    /// `b` always runs on another thread than `a` (it may wait for `a`).
    pub fn join<A: FnOnce() -> R, R>(&mut self, a: A, b: &mut (dyn FnMut() + Send)) -> R {
        let b = Mutex::new(Some(b));
        let taken = AtomicBool::new(false);
        let each = |_: usize| {
            let b = b.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(b) = b {
                taken.store(true, Ordering::Release);
                b();
            }
        };
        self.run_with(a, &each, Some(&taken), usize::MAX)
    }

    /// [`Crew::join`] for two one-shot halves (such as a stream's `prefetch_pair`): `a`
    /// here, `b` on a worker.
    pub fn join_once(&mut self, a: impl FnOnce(), b: impl FnOnce() + Send) {
        let mut b = Some(b);
        self.join(a, &mut || {
            if let Some(b) = b.take() {
                b();
            }
        });
    }

    fn run_with<R>(
        &mut self,
        mine: impl FnOnce() -> R,
        each: &(dyn Fn(usize) + Sync),
        needed: Option<&AtomicBool>,
        limit: usize,
    ) -> R {
        self.joins += 1;
        let sh = &*self.shared;
        // SAFETY: workers use the pointer only while inside the job, and `Close` below waits
        // until the job is closed and empty before this function returns or unwinds.
        let ptr = unsafe { erase_each(each) };
        let limit = limit.clamp(2, self.workers()) as u64;
        let seq = (self.joins & 0xffff_ffff) << 32 | limit << LIMIT_SHIFT;
        // SAFETY: the last job is closed and empty (its `Close` waited for that), so no
        // worker reads `job` until `state` opens the next one below.
        sh.job.with_mut(|j| unsafe { *j = Some(ptr) });
        // (A swap rather than a store: every change of `state` is a read-modify-write, so
        // each one reads the one before it in `state`'s order.)
        let last = sh.state.swap(seq, Ordering::SeqCst);
        debug_assert_eq!(
            last & (CLOSED | ACTIVE),
            CLOSED,
            "the last job is closed and empty"
        );
        // A read-modify-write, as the parking worker's look at `state` below: whichever of
        // the two comes second in `parked`'s order sees the other's write (a plain load could
        // read a stale count, and loom models that).
        if sh.parked.fetch_add(0, Ordering::SeqCst) > 0 {
            let _g = sh.lock.lock().unwrap_or_else(|e| e.into_inner());
            sh.wake.notify_all();
        }
        /// Closes the job and waits for the workers inside, on every path (also unwinding).
        struct Close<'a>(&'a Shared, Option<&'a AtomicBool>);
        impl Drop for Close<'_> {
            fn drop(&mut self) {
                let mut n = 0u32;
                if let Some(t) = self.1 {
                    while !t.load(Ordering::Acquire) {
                        spin(&mut n);
                    }
                }
                self.0.state.fetch_or(CLOSED, Ordering::AcqRel);
                while self.0.state.load(Ordering::Acquire) & ACTIVE != 0 {
                    spin(&mut n);
                }
                if std::thread::panicking() {
                    // `mine` panicked: that panic goes on; a worker's is dropped.
                    self.0
                        .panic
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take();
                }
            }
        }
        let close = Close(sh, needed);
        let r = mine();
        drop(close);
        if let Some(p) = sh.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
            resume_unwind(p);
        }
        r
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        let sh = &*self.shared;
        sh.stop.store(true, Ordering::SeqCst);
        {
            let _g = sh.lock.lock().unwrap_or_else(|e| e.into_inner());
            sh.wake.notify_all();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Worker `w`'s loop: wait for a job it has not seen, enter it if it is still open, run it.
fn worker(sh: &Shared, w: usize) {
    let mut seen = 0u64;
    loop {
        let Some(s) = wait_for_job(sh, seen) else {
            return;
        };
        seen = s >> 32;
        let mut cur = s;
        let entered = loop {
            let wanted = (w as u64) < (cur & LIMIT) >> LIMIT_SHIFT;
            if cur >> 32 != seen || cur & CLOSED != 0 || !wanted {
                break false;
            }
            match sh
                .state
                .compare_exchange_weak(cur, cur + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break true,
                Err(now) => cur = now,
            }
        };
        if !entered {
            continue;
        }
        // SAFETY: inside the job (entered above, after the poster wrote `job` and opened the
        // job with Release), and the poster does not write `job` again before this worker
        // has left.
        let job = sh.job.with(|j| unsafe { *j });
        if let Some(job) = job {
            // SAFETY: the poster keeps the closure alive until every worker inside has left
            // (`Crew::run`'s `Close`); the closure is `Sync`, so running it beside others is
            // sound.
            let f = unsafe { &*job };
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(w))) {
                let mut slot = sh.panic.lock().unwrap_or_else(|e| e.into_inner());
                if slot.is_none() {
                    *slot = Some(p);
                }
            }
        }
        sh.state.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Waits for an open job other than `seen` (spinning, then parked); None when stopped.
fn wait_for_job(sh: &Shared, mut seen: u64) -> Option<u64> {
    let mut spins = 0u32;
    let mut s = sh.state.load(Ordering::Acquire);
    loop {
        if s >> 32 != seen {
            if s & CLOSED == 0 {
                return Some(s);
            }
            // Closed before this worker came: nothing to do in it.
            seen = s >> 32;
        }
        if sh.stop.load(Ordering::Relaxed) {
            return None;
        }
        if spins < SPIN_ROUNDS {
            spin(&mut spins);
            s = sh.state.load(Ordering::Acquire);
            continue;
        }
        let mut g = sh.lock.lock().unwrap_or_else(|e| e.into_inner());
        sh.parked.fetch_add(1, Ordering::SeqCst);
        loop {
            // A read-modify-write (see `Crew::run_with`); the value it read is the one looked
            // at next, not a later load's.
            s = sh.state.fetch_add(0, Ordering::SeqCst);
            if s >> 32 != seen || sh.stop.load(Ordering::SeqCst) {
                break;
            }
            g = sh.wake.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        sh.parked.fetch_sub(1, Ordering::SeqCst);
        drop(g);
        spins = 0;
    }
}

/// One-shot jobs of a crew's job (the memory side's halves, the decode-ahead halves): each
/// runs once, on whichever worker claims it first.
pub struct Sides<'a, const N: usize>(std::sync::Mutex<[Option<&'a mut (dyn FnMut() + Send)>; N]>);

impl<'a, const N: usize> Sides<'a, N> {
    pub fn new(jobs: [Option<&'a mut (dyn FnMut() + Send)>; N]) -> Sides<'a, N> {
        Sides(std::sync::Mutex::new(jobs))
    }

    /// Runs the jobs not yet claimed, one by one, until none is left.
    pub fn run(&self) {
        loop {
            let job = {
                let mut jobs = self.0.lock().unwrap_or_else(|e| e.into_inner());
                jobs.iter_mut().find_map(Option::take)
            };
            match job {
                Some(f) => f(),
                None => return,
            }
        }
    }
}
