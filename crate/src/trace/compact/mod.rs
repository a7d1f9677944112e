//! warpweave's compact binary trace format: lossless for everything in the trace model, much
//! smaller than `xz -9` of the Accel-Sim text, and readable lazily, CTA by CTA, in the browser
//! (decoding is pure Rust). Byte layout and versioning rule: `FORMAT.md` next to this file.
//!
//! ```text
//! ┌ header: magic, version ┐┌ chunk ┐┌ chunk ┐ ... ┌ directory (zstd) ────────────────────┐┌ trailer ┐
//! │ "\x89WWTRC\r\n" 1.2    ││ zstd  ││ zstd  │     │ commands, per kernel: header, opcodes, ││ dir pos │
//! └────────────────────────┘└───────┘└───────┘     │ chunk index (len, CTAs, insts, hash)   ││ END     │
//!                                                  └────────────────────────────────────────┘└─────────┘
//! chunk = consecutive CTAs split into homogeneous streams (control bytes, PC deltas, opcodes,
//!         registers, masks, address bases / strides / lane deltas, compiler control bits),
//!         each instruction predicted from the last instance of its PC; then one zstd frame
//!         (level 19 natively).
//! ```
//!
//! Sources: the Accel-Sim trace format (seed papers, `../shared/seeds/README.md`) defines the
//! content; the modelling (per-PC prediction, stream splitting, then a general-purpose
//! compressor) is the standard recipe of trace compressors.
//!
//! - [`write_compact`] / [`to_compact_bytes`]: any [`crate::trace::TraceSource`] to compact.
//! - [`CompactReader`]: a `TraceSource` over a file or bytes; [`CompactReader::read_cta`].
//! - [`fuzz_compact`]: the fuzz entry point (never panics, whatever the bytes).

mod bytes;
mod chunk;
mod codec;
mod dir;
mod owned;
mod reader;
mod writer;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_check;
#[cfg(test)]
mod tests_ctrl;
#[cfg(test)]
mod tests_stream;

pub use dir::{MAGIC, VERSION_MAJOR, VERSION_MINOR};
pub use reader::{decode_chunk, is_compact, CompactKernelStream, CompactReader};
pub use writer::{to_compact_bytes, write_compact, Progress, WriteOptions, WriteSummary};

use crate::trace::model::TraceSource;

/// Fuzz entry point: reads `data` as a compact trace and decodes everything it can, in order
/// and by random access. Must return (errors are fine) and never panic, hang or allocate more
/// than the input justifies.
pub fn fuzz_compact(data: &[u8]) {
    // The bytes as one uncompressed chunk: reaches the chunk parser without the checksums.
    let ctx = chunk::ChunkCtx {
        file: "fuzz",
        what: "chunk",
        n_ops: 16,
        minor: dir::VERSION_MINOR,
        max_cta_insts: crate::trace::check::DEFAULT_MAX_CTA_INSTS,
    };
    let _ = chunk::ChunkDecoder::new().decode(data, &ctx);
    // The bytes as an uncompressed directory: reaches the index parser behind its checksum.
    let _ = dir::Directory::decode(data, "fuzz", (dir::HEADER_LEN, 1 << 20), dir::VERSION_MINOR);
    // Leniently, so that files with unknown opcodes or missing CTAs reach the decoder too.
    let policy = crate::trace::check::Policy::LENIENT;
    let Ok(mut rd) = CompactReader::from_slice_with(data, "fuzz", policy) else {
        return;
    };
    let _ = rd.trace_hash();
    for k in 0..rd.kernel_count() {
        if let Ok(mut s) = rd.open_kernel(k) {
            while let Ok(Some(_)) = s.next_cta() {}
        }
        let n = rd.cta_count(k);
        for i in [n.saturating_sub(1), 0, n / 2, n] {
            let _ = rd.read_cta(k, i);
        }
    }
}

/// Seed inputs for the fuzz targets: a small compact file, one of its uncompressed chunks and
/// its uncompressed directory (the three shapes [`fuzz_compact`] parses).
pub fn fuzz_seeds() -> Vec<Vec<u8>> {
    use crate::trace::model::{
        CtaTrace, Dim3, KernelInfo, KernelTrace, MemTrace, OpInfo, OpTable, TraceInst, WarpTrace,
    };
    let mut ops = OpTable::new();
    for name in ["IADD3", "LDG.E", "STS", "BRA"] {
        ops.push(OpInfo {
            name: name.into(),
            ..Default::default()
        });
    }
    let mut ctas = Vec::new();
    for c in 0..2u32 {
        let mut warps = Vec::new();
        for w in 0..2u32 {
            let (mut insts, mut addrs) = (Vec::new(), Vec::new());
            for it in 0..3u32 {
                for (pc, op, width, mask) in [
                    (0x10, 0, 0, u32::MAX),
                    (0x20, 1, 4, u32::MAX),
                    (0x30, 2, 8, 0x00ff_00f0),
                    (0x40, 3, 0, 1),
                ] {
                    let i = TraceInst {
                        pc,
                        mask,
                        op: crate::trace::model::OpId(op),
                        ndst: 1,
                        nsrc: 1,
                        mem_width: width,
                        addr_start: addrs.len() as u32,
                        ..Default::default()
                    };
                    if width > 0 {
                        for j in 0..mask.count_ones() as u64 {
                            let base = 0x7f00_0000u64 + (c * 4096 + w * 256 + it * 64) as u64;
                            addrs.push(if op == 2 {
                                base ^ (j * 40)
                            } else {
                                base + 4 * j
                            });
                        }
                    }
                    insts.push(i);
                }
            }
            warps.push(WarpTrace {
                warp_id: w,
                insts,
                addrs,
            });
        }
        ctas.push(CtaTrace {
            id: Dim3::new(c, 0, 0),
            warps,
        });
    }
    let info = KernelInfo {
        name: "seed".into(),
        id: 1,
        grid: Dim3::new(2, 1, 1),
        block: Dim3::new(64, 1, 1),
        ..Default::default()
    };
    let chunk = chunk::ChunkEncoder::new().encode(&ctas);
    let mut t = MemTrace::from_kernels("seed", vec![KernelTrace { info, ops, ctas }]);
    let file = to_compact_bytes(
        &mut t,
        &WriteOptions {
            level: 3,
            chunk_insts: 30,
        },
    )
    .unwrap_or_default();
    let mut seeds = vec![file, chunk];
    if let Ok(rd) = CompactReader::from_slice(&seeds[0], "seed") {
        let d = dir::Directory {
            source_name: "seed".into(),
            trace_hash: 0,
            commands: rd.commands().to_vec(),
            kernels: rd.kernel_entries(),
        };
        seeds.push(d.encode());
    }
    seeds
}

/// Decodes every CTA of every kernel of a compact trace held in memory and returns the number
/// of warp instructions: the decode-speed benchmark (native and wasm).
pub fn decode_all_count(data: &[u8]) -> crate::Result<u64> {
    let mut rd = CompactReader::from_slice(data, "bytes")?;
    let mut n = 0u64;
    for k in 0..rd.kernel_count() {
        let mut s = rd.open_kernel(k)?;
        while let Some(c) = s.next_cta()? {
            n += c.warp_insts();
        }
    }
    Ok(n)
}

/// Exports for the wasm decode-speed benchmark (`bench/wasm_decode.mjs`): plain C ABI, no
/// wasm-bindgen, so node can call them through `WebAssembly.instantiate`.
#[cfg(target_arch = "wasm32")]
pub mod wasm_bench {
    /// Allocates `len` bytes the host fills with a compact file.
    #[no_mangle]
    pub extern "C" fn ww_compact_alloc(len: usize) -> *mut u8 {
        let mut v = vec![0u8; len];
        let p = v.as_mut_ptr();
        std::mem::forget(v);
        p
    }

    /// Decodes the whole file at `ptr..ptr+len`; returns its warp instructions, or -1 on error.
    ///
    /// # Safety
    /// `ptr` must come from [`ww_compact_alloc`] with the same `len`.
    #[no_mangle]
    pub unsafe extern "C" fn ww_compact_decode(ptr: *const u8, len: usize) -> f64 {
        let data = std::slice::from_raw_parts(ptr, len);
        match super::decode_all_count(data) {
            Ok(n) => n as f64,
            Err(_) => -1.0,
        }
    }
}
