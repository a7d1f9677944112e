//! warpweave: a trace-driven GPU architecture simulator.
//!
//! The library knows no platform: no file system in the model, no threads it requires, no
//! environment variables. The CLI (`src/bin/warpweave`) and the wasm module (`wasm.rs`) plug in
//! what differs. See `../shared/DESIGN.md` for the map.
//!
//! ```text
//!  trace source ──> kernels ──> Gpu engine ──> Stats ──> Report (text, JSON, CSV)
//! ```

pub mod analytic;
pub mod config;
pub mod core;
pub mod engine;
pub mod error;
pub mod exec;
pub mod fuzz;
#[cfg(not(target_arch = "wasm32"))]
pub mod infile;
pub mod mem;
#[cfg(not(target_arch = "wasm32"))]
pub mod outfile;
pub mod plot;
pub mod session;
pub mod stats;
pub mod sweep;
#[doc(hidden)]
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;
pub mod timeline;
pub mod trace;
pub mod validate;
pub mod workload;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{Error, Result};

/// Simulated time in core cycles (other clock domains convert at their boundary).
pub type Cycle = u64;

/// The tool version printed in every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
