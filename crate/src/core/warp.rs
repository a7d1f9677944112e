//! Warp and CTA slots of an SM.
//!
//! A warp lives in a hardware warp slot (0..max_warps); its sub-core is `slot % subcores`, as the
//! hardware assigns them (seed 001 section 2.1). Its instructions are read from the CTA's trace.

use super::ibuffer::IBuffer;
use super::scoreboard::Scoreboard;
use crate::trace::CtaTrace;
use crate::Cycle;

#[derive(Clone, Debug, Default)]
pub struct Warp {
    pub active: bool,
    /// CTA slot in the SM.
    pub cta: u16,
    /// Warp index inside its CTA trace.
    pub widx: u16,
    /// Kernel launch number.
    pub kernel: u32,
    /// Launch order on this SM (GTO's "oldest").
    pub age: u64,
    pub n_insts: u32,
    pub ib: IBuffer,
    pub sb: Scoreboard,
    /// Instructions issued and not yet completed (collector, unit, memory pipeline).
    pub inflight: u16,
    /// Memory instructions not yet completed (MEMBAR waits for zero).
    pub mem_inflight: u16,
    /// Branches issued and not yet resolved.
    pub branch_pending: u16,
    pub at_barrier: bool,
    /// A fetch for this warp is in flight.
    pub fetching: bool,
    /// Cycle the warp was launched (stats, deadlock report).
    pub launched_at: Cycle,
}

impl Warp {
    /// Every instruction issued and every one completed.
    #[inline]
    pub fn finished(&self) -> bool {
        self.active
            && self.ib.head >= self.n_insts
            && self.ib.len == 0
            && self.inflight == 0
            && !self.fetching
    }
    /// More instructions to fetch.
    #[inline]
    pub fn wants_fetch(&self) -> bool {
        self.active && !self.fetching && self.ib.next_fetch() < self.n_insts && self.ib.free() > 0
    }
}

/// A resident CTA and the resources it holds.
#[derive(Clone, Debug, Default)]
pub struct CtaSlot {
    pub active: bool,
    pub trace: CtaTrace,
    pub kernel: u32,
    /// Warp slots of this CTA.
    pub warp_slots: Vec<u16>,
    /// Warps not yet finished.
    pub live: u16,
    /// Warps waiting at the barrier.
    pub bar_arrived: u16,
    pub threads: u32,
    /// Warps the CTA occupies (from the block size).
    pub wpc: u32,
    pub regs: u32,
    pub shmem: u32,
}
