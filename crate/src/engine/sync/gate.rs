//! A second hand-off inside a [`Partner::join`](super::Partner::join): the partner's job
//! starts with work of its own (the memory side of a pipelined cycle, `engine/pipeline.rs`)
//! and then takes a part the joining thread prepares meanwhile (its share of the cycle's SMs,
//! with what the joining thread decided before them). One round per join ([`Gate::round`]
//! hands out its two sides, and borrows the gate until both are gone, so rounds never
//! overlap):
//!
//! ```text
//!  let (c, p) = gate.round()
//!  this thread (join side a)                 partner (join side b)
//!  ... prepare ...                           ... own work ...
//!  c.open_with(&mut part, || {  ───────────> p.pass(): waits for the open, runs `part`
//!      ... its own share ...
//!  })  returns once `part` has run  <──────── (done)
//! ```
//!
//! Every way out ends the round for the other side: a closer dropped unopened (an error or a
//! panic before the part was ready) lets `pass` return without a part; a passer dropped
//! without passing (a panic in the partner's own work) makes `open` hand back an inert guard,
//! so this thread never waits for a part nobody will run. Results never depend on it: the
//! part takes items that this thread would otherwise take itself ([`Shares`](super::Shares)).

use super::{erase, spin, AtomicU64, Job, Line, Ordering, Slot};

/// See the module docs.
pub struct Gate {
    /// `round << 2 | OPEN / CLOSED / DONE`.
    state: Line<AtomicU64>,
    /// The open round's part; written before the round opens (Release), run by the partner
    /// after it sees the open (Acquire), alive until the round is DONE.
    part: Slot<Option<Job>>,
    /// Rounds so far.
    last: u64,
}

const G_OPEN: u64 = 1;
const G_CLOSED: u64 = 2;
const G_DONE: u64 = 3;

// SAFETY: `part` (the only field that is not `Sync` by itself) is written by the opening
// thread only before the round opens and read by the partner only after it has seen the round
// open (Release/Acquire on `state`); the opener keeps the closure alive and unused until the
// round is DONE (`Opened`'s drop), and the closure is `Send`.
unsafe impl Sync for Gate {}
// SAFETY: as above; the raw part pointer is the only field that is not `Send` by itself.
unsafe impl Send for Gate {}

impl Default for Gate {
    fn default() -> Gate {
        Gate {
            state: Line(AtomicU64::new(0)),
            part: Slot::new(None),
            last: 0,
        }
    }
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Gate")
    }
}

impl Gate {
    /// A new round, before the join whose two sides use it: this thread's side (which closes
    /// the round unopened when dropped) and the partner's (which ends the round when dropped
    /// without passing). One of each per round, and no round before the last one's sides are
    /// gone: the part slot has one writer and one reader at a time.
    pub fn round(&mut self) -> (Closer<'_>, Passer<'_>) {
        self.last += 1;
        let (g, r) = (&*self, self.last);
        (Closer(g, r), Passer(g, r))
    }

    fn spin_until(&self, mut f: impl FnMut(u64) -> bool) -> u64 {
        let mut n = 0u32;
        loop {
            let s = self.state.load(Ordering::Acquire);
            if f(s) {
                return s;
            }
            spin(&mut n);
        }
    }
}

/// This thread's side of a round ([`Gate::round`]).
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
        // SAFETY: the partner uses the pointer only between seeing round `r` open and storing
        // DONE; the returned guard waits for DONE when the round opened, and never leaves
        // `open_with`, so it is dropped (on every path) before `part` is.
        let ptr = unsafe { erase(part) };
        // SAFETY: round `r` is not open yet, so its passer does not read `part` now, and the
        // passers of earlier rounds are gone (`Gate::round` borrows the gate until both sides
        // of a round are), so no other thread touches it.
        g.part.with_mut(|p| unsafe { *p = Some(ptr) });
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

/// The partner's side of a round ([`Gate::round`]).
pub struct Passer<'g>(&'g Gate, u64);

impl Passer<'_> {
    /// Waits until this thread's side opens or closes the round; runs the part if it opened.
    pub fn pass(self) {
        let (g, r) = (self.0, self.1);
        let (open, closed) = (r << 2 | G_OPEN, r << 2 | G_CLOSED);
        let s = g.spin_until(|s| s == open || s == closed);
        if s == open {
            // SAFETY: the round is open (seen with Acquire), so `part` is set, and the opener
            // does not write it again before this round is DONE.
            let part = g.part.with_mut(|p| unsafe { *p });
            let part = part.expect("an open round has a part");
            // SAFETY: the part is alive and unused by the opener until DONE is stored, which
            // happens after it has run (in `Passer`'s drop, on this path and on a panic inside
            // the part); nothing else runs it.
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
        // will run its part. A read-modify-write, as every other change of `state`: a plain
        // store could be ordered beside the opener's compare-exchange rather than after it
        // (so loom models it), leaving the opener's wait for DONE to end on nothing.
        let (closed, done) = (r << 2 | G_CLOSED, r << 2 | G_DONE);
        let mut cur = g.state.load(Ordering::Acquire);
        while cur != closed {
            match g
                .state
                .compare_exchange_weak(cur, done, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break,
                Err(now) => cur = now,
            }
        }
    }
}
