//! Exports for the wasm simulation-speed benchmark (`bench/wasm_sim.mjs`): plain C ABI, no
//! wasm-bindgen, so node can call them through `WebAssembly.instantiate` (the same scheme as
//! `trace::compact::wasm_bench`). The trace is a compact file the host copied into memory from
//! `ww_compact_alloc`; the GPU is the `titanv` preset, single-threaded as always in wasm.
//!
//! `fast` takes its functional pre-pass like the CLI; the pre-pass is kept per trace for the
//! instance, so the first (cold) run includes it and a warm run is the simulation alone.
//!
//! ```text
//!  node: ww_compact_alloc(len) -> ptr; copy file; ww_simulate(ptr, len, mode) -> warp insts
//!        ww_sim_cycles() -> cycles of the last run
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

use super::ModelChoice;
use crate::analytic::PrepassCache;
use crate::trace::compact::CompactReader;
use crate::trace::TraceSource;

static LAST_CYCLES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static PREPASS: std::cell::RefCell<PrepassCache> = std::cell::RefCell::new(PrepassCache::new());
}

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
    // `fast` takes the functional pre-pass as the CLI does; kept per trace for the instance's
    // later runs, so a warm run (the same trace again) is the simulation alone, as the CLI's
    // `simulated in` time is.
    let mut open = || -> crate::Result<Box<dyn TraceSource + Send>> {
        Ok(Box::new(CompactReader::from_bytes(
            data.to_vec(),
            "bench.wwt",
        )?))
    };
    let (mut sim, _) = PREPASS.with(|c| {
        super::compare::prepared_simulator(&cfg, model, &mut open, &mut c.borrow_mut())
    })?;
    let r = sim.run_to_end()?;
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
