//! The engine's concurrency primitives that need `unsafe`, and the only place in the engine
//! that holds any: everything else steps SMs on two threads through the safe APIs here, or
//! on rayon's pool.
//!
//! - [`Partner`] (`partner.rs`): a partner thread for the two-thread K = 1 cycle, one
//!   fork/join per simulated cycle at well under a microsecond (a rayon join costs about
//!   5 µs); it runs a closure borrowed from the caller's stack, so its lifetime is erased
//!   for the partner's use and the join waits on every path (also unwinding) until the
//!   partner is done with it.
//! - [`Gate`] (`gate.rs`): a second hand-off inside a join, by which the partner's job takes
//!   a part the joining thread prepares meanwhile; the same lifetime erasure, the same
//!   waiting on every path.
//! - [`Shares`] (`shares.rs`): per-SM state (columns of slices) taken item by item by two
//!   threads from the two ends of a list ([`TwoEnds`](shares::TwoEnds)), each item handed out
//!   once, so each thread gets `&mut` access to distinct elements only (what `split_at_mut`
//!   does for one boundary, with the boundary decided as the threads meet).
//!
//! Every `unsafe` block states its invariant in a `SAFETY:` comment. The unit tests
//! (`tests.rs`) run under Miri (scripts/test.sh), and the models in `loom_models.rs` check the
//! hand-off protocols (the posted job and the gate's rounds, with spinning and parking) under
//! loom: built with `--cfg loom`, these modules use loom's atomics, cells and threads.
//!
//! Only scheduling: which thread runs a closure or steps an SM never changes what it
//! computes, so results stay identical for any thread count.

mod gate;
mod partner;
mod shares;

pub use gate::{Closer, Gate};
pub use partner::Partner;
pub use shares::Shares;
#[cfg(test)]
pub use shares::TwoEnds;

#[cfg(all(test, not(loom)))]
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
use std::{
    sync::atomic::{AtomicBool, AtomicU64, Ordering},
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
fn spin(n: &mut u32) {
    *n = n.wrapping_add(1);
    if cfg!(loom) || n.is_multiple_of(1024) {
        thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

/// A closure handed to the other thread: its lifetime erased, valid for as long as the
/// protocol that passes it says (see `partner.rs`, `gate.rs`).
type Job = *mut (dyn FnMut() + Send + 'static);

/// Erases the lifetime of `f` for a hand-off.
///
/// # Safety
/// The pointer may be dereferenced only while `f` is alive and not otherwise used: the
/// caller keeps the hand-off open (waits for the other thread) until the other side is done
/// with it, on every path out, unwinding included.
unsafe fn erase<'j>(f: &'j mut (dyn FnMut() + Send + 'j)) -> Job {
    let ptr: *mut (dyn FnMut() + Send + 'j) = f;
    // SAFETY: a fat pointer to the same closure, only its lifetime bound changed; using it
    // within that lifetime is the caller's contract.
    unsafe { std::mem::transmute::<*mut (dyn FnMut() + Send + 'j), Job>(ptr) }
}

/// The job slot of a hand-off: `std`'s `UnsafeCell`, or loom's (which checks the accesses)
/// in the models. Only `with_mut` is used.
#[cfg(loom)]
use loom::cell::UnsafeCell as Slot;

#[cfg(not(loom))]
struct Slot<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> Slot<T> {
    fn new(v: T) -> Slot<T> {
        Slot(std::cell::UnsafeCell::new(v))
    }

    fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}
