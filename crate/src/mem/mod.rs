//! The memory system: sectored caches (one implementation for timing and functional modes),
//! L1D with adaptive carve-out, shared memory, constant cache, interconnect, L2 slices, DRAM.
//! See `iface` for the fixed interface the SM talks to; seed 004 for the functional model.
//!
//! ```text
//!  coalesce ─> SmMemory (L1D | shared | constant) ─NocPacket─> MemPartitions
//!                                                     crossbar ─> L2 slices ─> DRAM channels
//!  functional::run: the same coalescer and SectorCache, no timing (seed 004)
//! ```

pub mod addrmap;
pub mod cache;
pub mod carveout;
pub mod clock;
pub mod coalesce;
pub mod dram;
#[cfg(test)]
mod engine_tests;
pub mod functional;
pub mod iface;
pub mod l2;
pub mod noc;
pub mod partitions;
pub mod reuse;
pub mod reuse_map;
pub mod sm;
#[cfg(test)]
mod split_tests;
#[cfg(test)]
mod timing_tests;

pub use cache::{CacheStats, SectorCache};
pub use coalesce::{coalesce, shmem_wavefronts, LineReq};
pub use iface::*;
pub use partitions::{nominal_latencies, MemPartitions, Nominal, PartitionStats};
pub use sm::{L1Event, SmMemStats, SmMemory};
