//! Timeline: a bounded, opt-in recording of what every warp slot, collector unit, execution
//! pipeline and memory-pipeline stage of chosen SMs held in each cycle of a window, and the
//! views of it (seed 003's cycle-by-cycle pipeline picture: terminal, PNG/GIF, Chrome trace).
//!
//! ```text
//!  Sm::step(now) ──> capture(sm, now) ──> SmRecorder (one per recorded SM, own frames)
//!  Sm::skip(k)   ──> repeat(k)            (skipped idle cycles repeat the last frame)
//!  SmMemory L1   ──> l1_log ──> cache::L1Shadow ──> Frame::l1 (sets x ways, accesses)
//!  collect(gpu)  ──> Timeline { sms: [SmTimeline { frames: [Frame per cycle] }] }
//!                      ├─ ascii::render   seed 003 Figure 3 picture (golden-tested)
//!                      ├─ chrome::render  Perfetto JSON in cycles (1 ns = 1 cycle): a process
//!                      │                  per SM, sub-core and memory pipeline, "X" spans
//!                      └─ image::{png, gif} the same picture as bitmaps (DejaVu Sans Mono)
//! ```
//! Off by default: an SM without a recorder pays one `is_some()` test per cycle. The recorder
//! allocates only while recording (its frames), never in the simulator's own state.

pub mod ascii;
pub mod cache;
pub mod chrome;
pub mod image;
mod record;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cache;

pub use record::{attach, capture, collect, SmRecorder};

use crate::stats::StallKind;
use crate::Cycle;
use serde::Serialize;

/// Names of the execution-unit indices (`core::ctx::U_*`).
pub const UNIT_NAMES: [&str; 8] = ["INT", "SP", "DP", "SFU", "TENSOR", "BRA", "UNIFORM", "MEM"];

/// What to record: cycles `from..to` of the SMs `sms`, at most `max_frames` frames per SM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordConfig {
    pub from: Cycle,
    pub to: Cycle,
    pub sms: Vec<u32>,
    pub max_frames: usize,
}

impl Default for RecordConfig {
    fn default() -> Self {
        RecordConfig {
            from: 0,
            to: 200,
            sms: vec![0],
            max_frames: 100_000,
        }
    }
}

/// One instruction: warp slot, kernel launch, opcode id (index into that kernel's op names),
/// PC, and trace index of the instruction in its warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Occ {
    pub warp: u16,
    pub kernel: u32,
    pub op: u16,
    pub pc: u32,
    pub idx: u32,
}

/// A warp slot in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "why")]
pub enum SlotState {
    /// No warp in the slot.
    Empty,
    /// The warp issued an instruction this cycle.
    Issued,
    /// The warp can issue its next instruction.
    Ready,
    /// The warp cannot issue, and why.
    Stalled(StallKind),
    /// Nothing left to issue; instructions still in flight.
    Draining,
}

/// An instruction in an execution pipeline: dispatched at `start`, completes at `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct UnitOcc {
    pub unit: u8,
    pub start: Cycle,
    pub end: Cycle,
    pub inst: Occ,
}

/// One sub-core in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SubFrame {
    /// Local warp slot k is SM warp slot `k * subcores + subcore`.
    pub slots: Vec<SlotState>,
    /// Instructions issued this cycle.
    pub issued: Vec<Occ>,
    /// Collector units (reading operands / waiting to dispatch).
    pub collectors: Vec<Option<Occ>>,
    /// Instructions in the execution pipelines, by unit then dispatch cycle.
    pub units: Vec<UnitOcc>,
}

/// One memory pipeline (seed 001 Figure 5) in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemFrame {
    /// Dispatch latch.
    pub dispatch: Option<Occ>,
    /// Address calculation / coalescing latch.
    pub addr: Option<Occ>,
    /// Requests in the request buffer.
    pub buffered: u16,
    /// Instructions waiting for memory responses.
    pub waiting: Vec<Occ>,
    /// Head of the write-back latch queue.
    pub writeback: Option<Occ>,
}

/// One SM in one cycle (the state after the cycle's stages ran).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Frame {
    pub cycle: Cycle,
    pub subcores: Vec<SubFrame>,
    pub mem: Vec<MemFrame>,
    /// Memory requests of this SM outstanding in the cache hierarchy.
    pub mem_outstanding: u64,
    /// The L1 data cache (cycle memory system only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l1: Option<cache::CacheFrame>,
}

/// The recorded frames of one SM.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SmTimeline {
    pub sm: u32,
    pub subcores: usize,
    pub frames: Vec<Frame>,
    /// Frames were dropped (`max_frames` reached).
    pub truncated: bool,
}

/// Opcode names of one kernel launch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KernelOps {
    pub name: String,
    pub ops: Vec<String>,
}

/// A recorded window, SMs in id order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Timeline {
    pub from: Cycle,
    pub to: Cycle,
    pub units: Vec<String>,
    pub kernels: Vec<KernelOps>,
    pub sms: Vec<SmTimeline>,
}

impl Timeline {
    /// Opcode name of an instruction.
    pub fn op_name(&self, o: &Occ) -> &str {
        self.kernels
            .get(o.kernel as usize)
            .and_then(|k| k.ops.get(o.op as usize))
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// Instructions issued per cycle by SM `i` (the IPC counter).
    pub fn issued_per_cycle(&self, i: usize) -> impl Iterator<Item = (Cycle, usize)> + '_ {
        self.sms[i]
            .frames
            .iter()
            .map(|f| (f.cycle, f.subcores.iter().map(|s| s.issued.len()).sum()))
    }
}
