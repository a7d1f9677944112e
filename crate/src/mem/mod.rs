//! The memory system: sectored caches (one implementation for timing and functional modes),
//! L1D with adaptive carve-out, shared memory, constant cache, interconnect, L2 slices, DRAM.
//! See `iface` for the fixed interface the SM talks to; seed 004 for the functional model.
//!
//! ```text
//!  coalesce ─> SmMemory (L1D | shared | constant) ─NocPacket─> MemPartitions
//!                                                     crossbar ─> L2 slices ─> DRAM channels
//!  functional::run: the same coalescer and SectorCache, no timing (seed 004)
//! ```

pub mod cache;
pub mod carveout;
pub mod coalesce;
pub mod addrmap;
pub mod functional;
pub mod iface;
pub mod reuse;

pub use cache::{CacheStats, SectorCache};
pub use coalesce::{coalesce, shmem_wavefronts, LineReq};
pub use iface::*;
