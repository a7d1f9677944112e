//! Writes any [`TraceSource`] as a compact file, streaming: at most one chunk of CTAs is held
//! in memory at a time.
//!
//! ```text
//! source ─ next_cta ─> pending CTAs ─(>= chunk_insts)─> ChunkEncoder ─> zstd ─> out
//!                                                        (streams)
//! after the last kernel: directory (commands, headers, op tables, chunk index) ─> zstd ─> trailer
//! ```

use std::io::Write;

use super::chunk::ChunkEncoder;
use super::codec::{compress, MAX_UNCOMPRESSED};
use super::dir::{header_bytes, ChunkEntry, Directory, KernelEntry, Trailer, HEADER_LEN};
use crate::trace::model::{CtaTrace, Fnv64, OpTable, TraceSource};
use crate::{Error, Result};

/// How to write a compact file.
#[derive(Clone, Debug)]
pub struct WriteOptions {
    /// zstd level, 1..=22 (the pure-Rust encoder ignores it and uses its fastest level).
    pub level: i32,
    /// A chunk is closed once it holds at least this many warp instructions: smaller chunks
    /// decode a single CTA faster, larger ones compress better.
    pub chunk_insts: u64,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            level: 19,
            chunk_insts: 1 << 15,
        }
    }
}

/// What was written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteSummary {
    pub kernels: usize,
    pub ctas: u64,
    pub warp_insts: u64,
    pub chunks: u64,
    pub bytes: u64,
    /// The content hash stored in the file.
    pub trace_hash: u64,
}

/// Progress of a conversion, reported after each CTA.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    pub kernel: usize,
    pub ctas_done: u64,
    pub warp_insts_done: u64,
}

struct Sink<W: Write> {
    out: W,
    pos: u64,
}

impl<W: Write> Sink<W> {
    fn put(&mut self, b: &[u8]) -> Result<()> {
        self.out
            .write_all(b)
            .map_err(|e| Error::io("compact output", e))?;
        self.pos += b.len() as u64;
        Ok(())
    }
}

fn fnv(data: &[u8]) -> u64 {
    let mut h = Fnv64::new();
    h.write(data);
    h.finish()
}

/// Hashes one CTA exactly as [`crate::trace::MemTrace::trace_hash`] does.
fn hash_cta(h: &mut Fnv64, c: &CtaTrace, ops: &OpTable, k: usize) -> Result<()> {
    for w in &c.warps {
        for i in &w.insts {
            if i.op.0 as usize >= ops.len() {
                return Err(Error::other(format!(
                    "kernel {k} CTA {}: opcode id {} is not in the kernel's table of {} opcodes",
                    c.id,
                    i.op.0,
                    ops.len()
                )));
            }
            h.write_u64(((i.pc as u64) << 32) | i.mask as u64);
            h.write(ops.get(i.op).name.as_bytes());
        }
        for a in &w.addrs {
            h.write_u64(*a);
        }
    }
    Ok(())
}

/// Writes `src` in the compact format to `out`; `progress` hears about every CTA.
pub fn write_compact<W: Write>(
    src: &mut dyn TraceSource,
    out: W,
    opts: &WriteOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<WriteSummary> {
    let mut sink = Sink { out, pos: 0 };
    sink.put(&header_bytes())?;
    let mut enc = ChunkEncoder::new();
    let mut dir = Directory {
        source_name: src.name().to_string(),
        commands: src.commands().to_vec(),
        ..Default::default()
    };
    let mut hash = Fnv64::new();
    let mut sum = WriteSummary::default();
    let mut prog = Progress::default();
    for k in 0..src.kernel_count() {
        prog.kernel = k;
        let mut stream = src.open_kernel(k)?;
        hash.write(stream.info().name.as_bytes());
        let mut chunks = Vec::new();
        let mut pending: Vec<CtaTrace> = Vec::new();
        let mut pending_insts = 0u64;
        let mut first_cta = 0u64;
        let mut flush = |pending: &mut Vec<CtaTrace>,
                         insts: &mut u64,
                         sink: &mut Sink<W>|
         -> Result<()> {
            if pending.is_empty() {
                return Ok(());
            }
            let data = enc.encode(pending);
            if data.len() as u64 > MAX_UNCOMPRESSED {
                return Err(Error::other(format!(
                    "kernel {k}: CTAs {first_cta}.. encode to {} bytes, more than one chunk may hold ({MAX_UNCOMPRESSED})",
                    data.len()
                )));
            }
            let comp = compress(&data, opts.level)?;
            chunks.push(ChunkEntry {
                offset: sink.pos,
                clen: comp.len() as u64,
                ulen: data.len() as u64,
                first_cta,
                n_ctas: pending.len() as u64,
                warp_insts: *insts,
                hash: fnv(&data),
            });
            sink.put(&comp)?;
            first_cta += pending.len() as u64;
            pending.clear();
            *insts = 0;
            Ok(())
        };
        while let Some(c) = stream.next_cta()? {
            hash_cta(&mut hash, &c, stream.ops(), k)?;
            let n = c.warp_insts();
            pending_insts += n;
            prog.ctas_done += 1;
            prog.warp_insts_done += n;
            sum.ctas += 1;
            sum.warp_insts += n;
            pending.push(c);
            if pending_insts >= opts.chunk_insts.max(1) {
                flush(&mut pending, &mut pending_insts, &mut sink)?;
            }
            progress(prog);
        }
        flush(&mut pending, &mut pending_insts, &mut sink)?;
        sum.chunks += chunks.len() as u64;
        let ops = stream.ops().iter().map(|(_, o)| o.clone()).collect();
        dir.kernels.push(KernelEntry {
            info: stream.info().clone(),
            ops,
            chunks,
        });
    }
    dir.trace_hash = hash.finish();
    let d = dir.encode();
    let dc = compress(&d, opts.level)?;
    let trailer = Trailer {
        dir_offset: sink.pos,
        dir_clen: dc.len() as u64,
        dir_ulen: d.len() as u64,
        dir_hash: fnv(&d),
    };
    sink.put(&dc)?;
    sink.put(&trailer.to_bytes())?;
    sink.out
        .flush()
        .map_err(|e| Error::io("compact output", e))?;
    debug_assert!(sink.pos >= HEADER_LEN);
    sum.kernels = dir.kernels.len();
    sum.bytes = sink.pos;
    sum.trace_hash = dir.trace_hash;
    Ok(sum)
}

/// Encodes `src` into a byte vector (tests, the browser, small traces).
pub fn to_compact_bytes(src: &mut dyn TraceSource, opts: &WriteOptions) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    write_compact(src, &mut v, opts, &mut |_| {})?;
    Ok(v)
}
