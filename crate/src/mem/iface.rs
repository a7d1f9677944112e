//! The fixed interface between an SM's memory pipeline and the memory system (seed 000: every
//! component behind a fixed interface, cycle or analytical model behind it).
//!
//! ```text
//!  SM memory pipeline ──MemRequest──> SmMemory (per SM: L1D, shared memory, constant cache)
//!        ^                                │ misses / writes / atomics as NocPacket (outbox)
//!        └──────MemResponse───────────────┤
//!                                         v   merged in SM order after the parallel SM step
//!                              MemPartitions (crossbar, L2 slices, DRAM), stepped serially
//!                              or per partition in parallel, then deliver() back to each SM
//! ```
//! The SM never sees below this interface; shared-memory and constant accesses go through it too,
//! so the analytical and cycle models are interchangeable.

use serde::{Deserialize, Serialize};

use crate::trace::MemSpace;

/// What a memory request does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessKind {
    #[default]
    Load,
    Store,
    /// Returns data (ATOM): performed at L2 for global memory.
    Atomic,
    /// No return value (RED).
    Reduction,
}

impl AccessKind {
    pub fn is_write(self) -> bool {
        !matches!(self, AccessKind::Load)
    }
}

/// One coalesced access to one cache line (global, local, constant, texture) or one
/// shared-memory wavefront set, as it leaves a sub-core's memory pipeline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemRequest {
    /// Opaque to the memory system; handed back unchanged in the [`MemResponse`]. The SM packs
    /// sub-core, warp slot and instruction into it.
    pub tag: u64,
    pub kind: AccessKind,
    pub space: MemSpace,
    /// Line-aligned address for cached spaces; for shared memory the address of the first
    /// active lane (the conflict degree is in `shmem_wavefronts`).
    pub addr: u64,
    /// Sectors of the line touched (bit i = sector i).
    pub sectors: u8,
    /// Bytes written (stores, atomics), for traffic accounting.
    pub bytes: u32,
    /// Sectors of `sectors` every byte of which is accessed (a store writes them whole): an
    /// L2 with lazy fetch-on-read allocates them without reading DRAM.
    pub full: u8,
    /// Skip the L1 (atomics, `.STRONG.GPU`, `.CG` loads when configured).
    pub bypass_l1: bool,
    /// Shared memory: number of serialized bank wavefronts (1 = conflict free).
    pub shmem_wavefronts: u32,
    /// PC of the instruction (per-PC statistics, analytical per-PC hit rates).
    pub pc: u32,
    /// Global atomics and reductions: the most lanes of the request updating one address
    /// (they serialize in the L2 slice's atomic unit, `l2.atomic_interval`); 0 otherwise.
    pub atomic_serial: u8,
    /// Last request of this warp instruction: the response to it completes the instruction.
    pub last: bool,
}

/// Where a request was served.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HitLevel {
    #[default]
    L1,
    Shared,
    Constant,
    L2,
    Dram,
}

/// Completion of a [`MemRequest`] (loads: data is back; stores: accepted/acknowledged).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemResponse {
    pub tag: u64,
    pub level: HitLevel,
    pub last: bool,
}

/// A packet between an SM and an L2 slice (both directions), in the crossbar's units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NocPacket {
    pub src_sm: u32,
    /// Global L2 slice index (partition * subpartitions + sub).
    pub slice: u32,
    pub req: MemRequest,
    /// true on the way back (data or write ack).
    pub reply: bool,
    pub level: HitLevel,
    /// The sender wants a reply (loads, atomics, non-posted stores); posted write-through
    /// stores from the L1 get none.
    pub ack: bool,
    /// An L1 line fill: the reply completes the SM's MSHR entry for `req.addr` instead of
    /// answering `req.tag` directly.
    pub fill: bool,
}
