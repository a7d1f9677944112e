//! Execution units of a sub-core: per unit kind, `count` pipelines, each accepting one warp
//! instruction every `interval` cycles; results complete `latency` cycles after issue (see
//! `OpClass::latency`). FP64 may be one pool shared by the SM (`units.dp.shared`).
//!
//! ```text
//!  dispatch at d ──> pipe busy until d + interval ──> completes at c = d + max(L,2) - 1
//!                                                     (write-back: scoreboard released,
//!                                                      a dependent issues at c = issue + L)
//! ```

use super::ctx::NUM_UNITS;
use crate::trace::{Reg, MAX_DST};
use crate::Cycle;

/// A dispatched fixed-latency instruction.
#[derive(Clone, Copy, Debug, Default)]
pub struct InFlight {
    pub complete: Cycle,
    pub warp: u16,
    pub ndst: u8,
    pub dst: [Reg; MAX_DST],
    /// A branch: resolves the warp's control hazard at completion.
    pub branch: bool,
    /// Dispatch cycle, unit index, PC and opcode (read only by the timeline recorder).
    pub start: Cycle,
    pub unit: u8,
    pub pc: u32,
    pub op: u16,
    /// The dependence counters it releases at completion (modern core).
    pub sbs: super::modern::SbIds,
}

#[derive(Clone, Debug)]
pub struct ExecUnits {
    /// Per unit kind, the cycle each pipeline accepts again.
    pub pipes: [Vec<Cycle>; NUM_UNITS],
    pub inflight: Vec<InFlight>,
}

/// Cycle an instruction dispatched at `d` with latency `lat` completes.
#[inline]
pub fn completion(d: Cycle, lat: u32) -> Cycle {
    d + lat.max(2) as u64 - 1
}

impl ExecUnits {
    pub fn new(counts: [u32; NUM_UNITS]) -> Self {
        ExecUnits {
            pipes: counts.map(|c| vec![0; c as usize]),
            inflight: Vec::with_capacity(64),
        }
    }

    /// A pipeline of `unit` free at `now`.
    #[inline]
    pub fn free_pipe(&self, unit: usize, now: Cycle) -> Option<usize> {
        self.pipes[unit].iter().position(|&b| b <= now)
    }

    /// Earliest future cycle something here changes: a completion or a pipeline freeing.
    pub fn next_event(&self, now: Cycle) -> Option<Cycle> {
        let c = self.inflight.iter().map(|f| f.complete).min();
        let p = self
            .pipes
            .iter()
            .flatten()
            .copied()
            .filter(|&b| b > now)
            .min();
        match (c, p) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Earliest cycle > now at which a pool frees.
pub fn pool_next_event(pool: &[Cycle], now: Cycle) -> Option<Cycle> {
    pool.iter().copied().filter(|&b| b > now).min()
}
