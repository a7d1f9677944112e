//! Trace readers and writers.
//!
//! - `model`: the in-memory model all readers produce (kernels streamed CTA by CTA).
//! - `accelsim`: Accel-Sim text (`kernelslist.g` + `kernel-N.traceg`, raw `.trace`), any tracer
//!   version and address mode, plain / .gz / .zst / .xz.
//! - `opcodes`: per-architecture opcode classes (unit, latency class, memory space).
//! - `compact`: warpweave's compact binary format (what the browser uploads).

pub mod compact;
pub mod model;

pub use model::*;
