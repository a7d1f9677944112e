//! Compute Sanitizer traces -> Accel-Sim traces, without NVBit (issue #9).
//!
//! The tracer (`tests/hardware/tracer/`, a library the CUDA driver loads through
//! `CUDA_INJECTION64_PATH`) records every memory access of a kernel with its PC, lane, warp and
//! CTA, plus block entry, exit and barriers, into a binary file (`records`). It does not see
//! the other instructions; they come from the kernel's SASS (`cuobjdump -sass`):
//!
//! ```text
//!  records.wwsan ──records.rs──> per kernel: records ─┐
//!                                                      ├─ import.rs: per warp, recorded points
//!  kernels.sass ───sass.rs────> functions by name ────┘   joined by path.rs's SASS paths
//!                                                           └─> KernelTrace -> kernelslist.g +
//!                                                               kernel-N.traceg (tracer v4)
//! ```
//! The idea of pairing a light-weight binary instrumentation's memory records with the static
//! SASS is Accel-Sim's (seed 002, which uses NVBit for both); the trace format is its
//! post-processed `.traceg`. What is approximate: see path.rs (loops without memory accesses)
//! and import.rs (masks of non-memory instructions are the warp's live lanes: a branch taken
//! by some lanes only is not seen unless those lanes then touch memory).

pub mod import;
pub mod path;
pub mod records;
pub mod sass;

pub use import::KernelStats;
pub use records::{KernelRecords, Record};

use crate::trace::model::MemTrace;
use crate::{Error, Result};

/// An imported trace and what each kernel's import did.
pub struct Imported {
    pub trace: MemTrace,
    pub stats: Vec<KernelStats>,
}

/// Options of [`import`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ImportOptions {
    /// Import kernels whose tracer buffer overflowed (their records are incomplete).
    pub allow_dropped: bool,
}

/// Imports every kernel of a records file against the SASS of its functions.
/// `records_name` and `sass_name` name the inputs in errors.
pub fn import(
    records: &[u8],
    records_name: &str,
    sass_text: &str,
    sass_name: &str,
    opts: ImportOptions,
) -> Result<Imported> {
    let kernels = records::parse(records, records_name)?;
    let funcs = sass::parse(sass_text, sass_name)?;
    let mut out = Vec::with_capacity(kernels.len());
    let mut stats = Vec::with_capacity(kernels.len());
    for (n, k) in kernels.iter().enumerate() {
        if k.dropped > 0 && !opts.allow_dropped {
            return Err(Error::parse(
                records_name,
                k.first_record,
                format!("kernel {n} dropped"),
                format!(
                    "{}: {} records were lost to a full tracer buffer (raise WWTRACE_BUFFER_MB, or import anyway with --allow-dropped)",
                    k.name, k.dropped
                ),
            ));
        }
        let func = funcs.get(&k.name).ok_or_else(|| {
            let mut names: Vec<&str> = funcs.keys().map(String::as_str).collect();
            names.sort_unstable();
            Error::parse(
                sass_name,
                0,
                "Function",
                format!(
                    "no function {} (kernel {n} of {records_name}); the SASS has: {}",
                    k.name,
                    names.join(", ")
                ),
            )
        })?;
        let cx = import::KernelCtx {
            func,
            name: &k.name,
            id: n as u32 + 1,
            records_file: records_name,
        };
        let (kt, st) = import::import_kernel(k, &cx)?;
        out.push(kt);
        stats.push(st);
    }
    Ok(Imported {
        trace: MemTrace::from_kernels("sanitizer", out),
        stats,
    })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ctrl;
#[cfg(test)]
mod tests_h100;
