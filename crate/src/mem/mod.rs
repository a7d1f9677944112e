//! The memory system: sectored caches (one implementation for timing and functional modes),
//! L1D with adaptive carve-out, shared memory, constant cache, interconnect, L2 slices, DRAM.
//! See `iface` for the fixed interface the SM talks to.

pub mod iface;

pub use iface::*;
