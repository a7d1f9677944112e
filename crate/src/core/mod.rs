//! The SM (seed 001 Figures 3 and 5): sub-cores with their own front end and pipeline, a shared
//! L1 I-cache with a round-robin arbiter, per-sub-core memory pipelines feeding the SM's memory
//! side through a round-robin arbiter, CTA slots and barriers.
//!
//! ```text
//!            ┌──────────── SM ───────────────────────────────────────────────┐
//!            │ sub-core 0..N-1: fetch/L0I ─ decode ─ ibuf ─ sched ─ CUs ─ units│
//!            │        │ L0 miss                          │ mem          │ RF  │
//!            │   RR arbiter ─> L1I                 MemPipe 0..N-1           │
//!            │                                  RR arbiter ─> SmMem (L1D/shared/const)
//!            └─────────────────────────────────────────────────────────────────┘
//! ```
//! An SM step reads only the shared read-only [`StepCtx`] and writes only its own state, stats
//! and outbox, so the SMs of a cycle can run in parallel with identical results.

pub mod barrier;
pub mod collector;
pub mod ctx;
pub mod decode;
pub mod event;
mod event_fetch;
mod event_warp;
pub mod exec;
pub mod fetch;
pub mod ibuffer;
pub mod icache;
pub mod ldst;
pub mod mem_direct;
pub mod mem_port;
pub mod modern;
pub mod prefetch;
pub mod regfile;
pub mod result_bus;
pub mod scheduler;
pub mod scoreboard;
pub mod sm;
mod sm_event;
pub mod subcore;
mod subcore_modern;
pub mod warp;

pub use ctx::{KernelCtx, OpClass, StepCtx};
pub use mem_port::SmMem;
pub use sm::{IssueEvent, Sm, SmParams, SmShared};
