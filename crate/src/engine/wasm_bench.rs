//! Exports for the wasm simulation-speed benchmark (`bench/wasm_sim.mjs`): plain C ABI, no
//! wasm-bindgen, so node can call them through `WebAssembly.instantiate` (the same scheme as
//! `trace::compact::wasm_bench`). The trace is a compact file the host copied into memory from
//! `ww_compact_alloc`; the GPU is the `titanv` preset, single-threaded as always in wasm.
//!
//! ```text
//!  node: ww_compact_alloc(len) -> ptr; copy file; ww_simulate(ptr, len, mode) -> warp insts
//!        ww_sim_cycles() -> cycles of the last run
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

use super::{ModelChoice, Simulator};
use crate::trace::compact::CompactReader;
use crate::trace::TraceSource;

static LAST_CYCLES: AtomicU64 = AtomicU64::new(0);

fn simulate(data: &[u8], mode: u32) -> crate::Result<u64> {
    let cfg = crate::config::load("titanv")?;
    let mut src = CompactReader::from_slice(data, "bench.wwt")?;
    let name = match mode {
        0 => "cycle",
        1 => "hybrid",
        2 => "fast",
        _ => {
            // `memory`: the functional cache pass, no timing.
            crate::mem::functional::run(&cfg, &mut src)?;
            LAST_CYCLES.store(0, Ordering::Relaxed);
            let n = (0..src.kernel_count())
                .map(|k| src.kernel_warp_insts(k))
                .sum();
            return Ok(n);
        }
    };
    let model = ModelChoice::named(name)?;
    let r = Simulator::new(cfg, model, Box::new(src))?.run_to_end()?;
    LAST_CYCLES.store(r.cycles, Ordering::Relaxed);
    Ok(r.warp_insts)
}

/// Simulates the compact file at `ptr..ptr+len` (mode 0 cycle, 1 hybrid, 2 fast, 3 memory);
/// returns its warp instructions, or -1 on error.
///
/// # Safety
/// `ptr` must come from `ww_compact_alloc` with the same `len`.
#[no_mangle]
pub unsafe extern "C" fn ww_simulate(ptr: *const u8, len: usize, mode: u32) -> f64 {
    let data = std::slice::from_raw_parts(ptr, len);
    match simulate(data, mode) {
        Ok(n) => n as f64,
        Err(_) => -1.0,
    }
}

/// Cycles of the last [`ww_simulate`] (0 for the memory mode).
#[no_mangle]
pub extern "C" fn ww_sim_cycles() -> f64 {
    LAST_CYCLES.load(Ordering::Relaxed) as f64
}
