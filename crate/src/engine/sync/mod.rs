//! The engine's concurrency primitives that need `unsafe`, and the only place in the engine
//! that holds any: everything else steps SMs on several threads through the safe APIs here,
//! or (K > 1 epochs, the memory partitions) on rayon's pool.
//!
//! - [`Crew`] (`crew.rs`): threads owned for a whole run, one job per simulated cycle (or
//!   window) at well under a microsecond (a rayon join costs about 5 µs); a job is a closure
//!   borrowed from the caller's stack, so its lifetime is erased for the workers' use, and
//!   the caller waits on every path (also unwinding) until every worker that entered the job
//!   has left it. [`Sides`] hands a job's one-shot parts to whichever worker claims them.
//! - [`Shares`] (`shares.rs`): per-SM state (columns of slices) taken item by item by the
//!   workers from the two ends of a list ([`TwoEnds`](shares::TwoEnds)), each item handed
//!   out once, so each worker gets `&mut` access to distinct elements only (what
//!   `split_at_mut` does for one boundary, with the boundaries decided as the workers meet).
//!
//! Every `unsafe` block states its invariant in a `SAFETY:` comment. The unit tests
//! (`tests.rs`) run under Miri (scripts/test.sh), and the models in `loom_models.rs` check the
//! hand-off protocols (the posted job, entered and left by the workers, with spinning and parking) under
//! loom: built with `--cfg loom`, these modules use loom's atomics, cells and threads.
//!
//! Only scheduling: which thread runs a closure or steps an SM never changes what it
//! computes, so results stay identical for any thread count.

#[cfg(feature = "parallel")]
mod crew;
mod shares;

#[cfg(feature = "parallel")]
pub use crew::{Crew, Sides};
pub use shares::Shares;
#[cfg(all(test, feature = "parallel"))]
pub use shares::TwoEnds;

#[cfg(all(test, not(loom), feature = "parallel"))]
mod tests;

#[cfg(all(test, loom))]
mod loom_models;

#[cfg(loom)]
use loom::{
    sync::atomic::{AtomicBool, AtomicU64, Ordering},
    sync::{Arc, Condvar, Mutex},
    thread,
};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU64, Ordering};
#[cfg(all(not(loom), feature = "parallel"))]
use std::{
    sync::atomic::AtomicBool,
    sync::{Arc, Condvar, Mutex},
    thread,
};

/// A value on a cache line (pair) of its own, so what one thread writes is not on the line
/// the other spins on or writes.
#[repr(align(128))]
struct Line<T>(T);

impl<T> std::ops::Deref for Line<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// One round of a spin wait: a `spin_loop` hint, and now and then a yield so that another
/// thread of this core can run (more threads than cores, e.g. tests running side by side).
/// Under loom every round yields (a spin is a wait on the other thread there).
#[cfg(feature = "parallel")]
fn spin(n: &mut u32) {
    *n = n.wrapping_add(1);
    if cfg!(loom) || n.is_multiple_of(1024) {
        thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

/// The job slot of a hand-off: `std`'s `UnsafeCell`, or loom's (which checks the accesses)
/// in the models. Only `with_mut` is used.
#[cfg(loom)]
use loom::cell::UnsafeCell as Slot;

#[cfg(all(not(loom), feature = "parallel"))]
struct Slot<T>(std::cell::UnsafeCell<T>);

#[cfg(all(not(loom), feature = "parallel"))]
impl<T> Slot<T> {
    fn new(v: T) -> Slot<T> {
        Slot(std::cell::UnsafeCell::new(v))
    }

    fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }

    fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }
}
