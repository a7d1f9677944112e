//! Trace readers and writers.
//!
//! - `model`: the in-memory model all readers produce (kernels streamed CTA by CTA).
//! - `check`: the one check of that model every reader makes (shapes, CTAs once and all
//!   present, warp ids, unknown opcodes, copy sizes), and the [`check::Policy`] that relaxes it.
//! - `accelsim`: Accel-Sim text (`kernelslist.g` + `kernel-N.traceg`, raw `.trace`), any tracer
//!   version and address mode, plain / .gz / .zst / .xz.
//! - `opcodes`: per-architecture opcode classes (unit, latency class, memory space).
//! - `io`: opening inputs (compression detected by magic bytes, streamed).
//! - `summary`: per-kernel and total statistics of a trace (`warpweave info`).
//! - `control`: compiler control bits (stall, yield, dependence counters, reuse) per instruction.
//! - `compact`: warpweave's compact binary format (what the browser uploads).
//! - `packed`: a resident CTA's trace packed (templates by PC, 8 bytes per instruction).
//! - `shape`: the regular shape of a memory instruction's lane addresses (stride, runs).
//! - `sanitizer`: Compute Sanitizer records + SASS -> Accel-Sim kernels (`import-sanitizer`).
//! - `annotate`: control bits joined onto any trace from its SASS by kernel name and PC.

pub mod accelsim;
pub mod annotate;
pub mod check;
pub mod compact;
pub mod control;
pub mod io;
pub mod model;
pub mod opcodes;
pub mod open;
pub mod packed;
pub mod sanitizer;
pub mod shape;
pub mod summary;

pub use model::*;
