//! Accel-Sim text traces: reading (`kernelslist.g`, `kernel-N.traceg`, raw `kernel-N.trace`, any
//! tracer version 3..5, lineinfo, every address mode, plain / .gz / .zst / .xz) and writing.
//!
//! ```text
//!  AccelSimTrace::open(dir | kernelslist.g | kernel-N.traceg[.xz])
//!     ├─ source.rs   kernels list + headers, TraceSource, trace hash
//!     ├─ header.rs   `-key = value` header -> KernelInfo, line reader
//!     ├─ stream.rs   .traceg: one #BEGIN_TB..#END_TB block per next_cta()
//!     ├─ raw.rs      .trace: lines prefixed by block and warp, grouped in memory
//!     ├─ inst.rs     one instruction line, address modes 0/1/2, opcode interning
//!     ├─ lex.rs      byte-level tokens and numbers, errors with file/line/field
//!     ├─ writer.rs   model -> text (tracer v4/v5 layout, tracer's address-mode choice)
//!     └─ fuzz.rs     fuzz entry points (crate/fuzz, and a seeded mutation test)
//! ```
//! Formats follow the Accel-Sim framework's tracer (`util/tracer_nvbit/tracer_tool`), its
//! post-processor and `gpu-simulator/trace-parser/trace_parser.cc`.

pub mod fuzz;
pub mod header;
pub mod inst;
pub mod lex;
pub mod local;
pub mod raw;
pub mod source;
pub mod stream;
pub mod writer;

pub use raw::RawStream;
#[cfg(not(target_arch = "wasm32"))]
pub use source::DirStore;
pub use source::{parse_kernelslist, AccelSimTrace, FileStore, KernelEntry, MemStore, OpenOptions};
pub use stream::TracegStream;
#[cfg(not(target_arch = "wasm32"))]
pub use writer::write_dir;
pub use writer::{
    kernel_file_name, width_from_opcode, write_cta, write_header, write_kernel, write_kernel_trace,
    write_kernelslist, TEXT_MAX_DST, TEXT_MAX_SRC,
};

use std::sync::Arc;

use crate::trace::check::Policy;
use crate::trace::model::{KernelTrace, MemTrace};
use crate::trace::opcodes::Arch;
use crate::Result;

/// Decodes one kernel file held in memory (`.traceg` or raw `.trace` layout, detected from the
/// content; compressed or not) into a [`KernelTrace`], strictly.
pub fn read_kernel_bytes(bytes: &[u8], name: &str, default_arch: Arch) -> Result<KernelTrace> {
    read_kernel_bytes_with(bytes, name, default_arch, Policy::STRICT)
}

/// [`read_kernel_bytes`] with `policy` for unknown opcodes and missing blocks.
pub fn read_kernel_bytes_with(
    bytes: &[u8],
    name: &str,
    default_arch: Arch,
    policy: Policy,
) -> Result<KernelTrace> {
    let input = crate::trace::io::open_bytes(Arc::from(bytes), name)?;
    let raw = source::is_kernel_file(name)
        && !crate::trace::io::strip_compression_suffix(name).ends_with(".traceg");
    let mut s: Box<dyn crate::trace::KernelStream> = if raw {
        Box::new(RawStream::open_with(input, name, default_arch, policy)?)
    } else {
        Box::new(TracegStream::open_with(input, name, default_arch, policy)?)
    };
    KernelTrace::collect(&mut *s)
}

/// Renders one in-memory kernel as `.traceg` text.
pub fn kernel_to_text(k: &KernelTrace) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write_kernel_trace(&mut out, k)?;
    Ok(out)
}

/// Reads a whole in-memory trace (for tests and small uploads).
pub fn read_mem_trace(files: Vec<(String, Arc<[u8]>)>, default_arch: Arch) -> Result<MemTrace> {
    let mut t = AccelSimTrace::from_files(
        "upload",
        files,
        OpenOptions {
            default_arch,
            ..Default::default()
        },
    )?;
    MemTrace::collect(&mut t)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_check;
#[cfg(test)]
mod tests_real;
