//! The SM's memory side, behind the fixed interface of `crate::mem::iface` (seed 000). An enum
//! (no trait objects on the per-cycle path): today the analytical model; the cycle-accurate
//! `crate::mem::SmMemory` (L1D, shared memory, constant cache, carve-out) becomes a second
//! variant with the same methods, without touching the SM.
//!
//! ```text
//!  SM memory pipelines ──try_request──> SmMem ──tick──> outbox (NocPacket, merged in SM order)
//!            ^                           │  <──deliver── replies from the partitions
//!            └────────pop_response───────┘
//! ```

use crate::analytic::AnalyticSmMem;
use crate::config::GpuConfig;
use crate::mem::{MemRequest, MemResponse, NocPacket};
use crate::trace::KernelInfo;
use crate::Cycle;

#[derive(Clone, Debug)]
pub enum SmMem {
    /// Fixed latencies from `cfg.analytic` (seed 000 Equation 1).
    Analytic(AnalyticSmMem),
    /// The cycle memory system: L1D, shared memory, constant cache; misses go out as packets.
    Cycle(Box<crate::mem::SmMemory>),
}

impl SmMem {
    /// Offers a request; `Err` hands it back (back-pressure: retry later).
    #[inline]
    pub fn try_request(&mut self, now: Cycle, req: MemRequest) -> Result<(), MemRequest> {
        match self {
            SmMem::Analytic(m) => m.try_request(now, req),
            SmMem::Cycle(m) => m.try_request(now, req),
        }
    }

    /// A completed request, if one is due by `now`.
    #[inline]
    pub fn pop_response(&mut self, now: Cycle) -> Option<MemResponse> {
        match self {
            SmMem::Analytic(m) => m.pop_response(now),
            SmMem::Cycle(m) => m.pop_response(now),
        }
    }

    /// Advances one core cycle; packets for the interconnect go to `outbox`.
    #[inline]
    pub fn tick(&mut self, now: Cycle, outbox: &mut Vec<NocPacket>) {
        match self {
            SmMem::Analytic(_) => {}
            SmMem::Cycle(m) => m.tick(now, outbox),
        }
    }

    /// A packet from the interconnect (a reply from an L2 slice).
    pub fn deliver(&mut self, now: Cycle, pkt: NocPacket) {
        match self {
            SmMem::Analytic(_) => debug_assert!(false, "the analytical memory sends no packets"),
            SmMem::Cycle(m) => m.deliver(now, pkt),
        }
    }

    /// Earliest cycle at which this side can produce something (idle-cycle skipping).
    #[inline]
    pub fn next_event(&self) -> Option<Cycle> {
        match self {
            SmMem::Analytic(m) => m.next_event(),
            SmMem::Cycle(m) => m.next_event(),
        }
    }

    /// A kernel starts on this SM (cycle: L1 / shared-memory carve-out; analytical: the
    /// bandwidth share of the SMs the kernel occupies).
    pub fn begin_kernel(&mut self, info: &KernelInfo, cfg: &GpuConfig) {
        match self {
            SmMem::Analytic(m) => m.begin_kernel(info, cfg),
            SmMem::Cycle(m) => m.begin_kernel(info, cfg),
        }
    }

    /// Nothing outstanding (for the deadlock report).
    pub fn outstanding(&self) -> usize {
        match self {
            SmMem::Analytic(m) => m.outstanding(),
            SmMem::Cycle(m) => m.outstanding(),
        }
    }

    /// The cycle memory system's counters (None for the analytical model).
    pub fn cycle_stats(&self) -> Option<crate::mem::SmMemStats> {
        match self {
            SmMem::Analytic(_) => None,
            SmMem::Cycle(m) => Some(m.stats()),
        }
    }
}
