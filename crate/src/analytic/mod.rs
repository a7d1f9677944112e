//! Analytical twins of the cycle models (seed 000 section III-D): a module behind the same
//! interface, with a latency from a formula and only the contention that matters simulated.
//!
//! - `alu`: the ALU pipeline twin (fixed latency per opcode class + unit issue-rate contention).
//! - `mem`: the per-SM analytical memory model behind [`crate::core::mem_port::SmMem`]
//!   (Equation 1 latency from hit rates, shared-memory wavefronts, bounded outstanding requests).
//! - `dram_eff`: the DRAM efficiency the memory twin streams at, from the preset's DRAM timing.
//! - `prepass`: the functional pre-pass giving per-PC hit rates, cached per (trace, config).

pub mod alu;
pub mod dram_eff;
pub mod mem;
pub mod prepass;

pub use mem::{AnalyticSmMem, PcRates};
pub use prepass::{Prepass, PrepassCache};
