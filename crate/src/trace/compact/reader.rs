//! Reads compact files lazily over any `Read + Seek`: a file, or bytes in memory (the browser).
//! Opening reads only the header, the trailer and the directory; CTAs are decoded chunk by chunk
//! when asked for, and any CTA of any kernel can be decoded on its own ([`CompactReader::read_cta`]).
//!
//! ```text
//! open: header (magic, version) ─ trailer (end of file) ─> directory (zstd) ─> index
//! read_cta(k, i): index ─> chunk holding CTA i ─> seek + read ─> zstd ─> ChunkDecoder ─> CtaTrace
//! ```

use std::io::{Cursor, Read, Seek, SeekFrom};

use ruzstd::decoding::FrameDecoder;

use super::chunk::{with_chunk_pos, ChunkCtx, ChunkDecoder};
use super::codec::{decompress, decompress_into, MAX_UNCOMPRESSED};
use super::dir::{
    dir_bytes_at_most, ChunkEntry, Directory, KernelEntry, END_MAGIC, HEADER_LEN, MAGIC,
    TRAILER_LEN, VERSION_MAJOR,
};
use super::owned::OwnedCompactStream;
use crate::error::shown;
use crate::trace::check::{self, KernelCheck, Policy};
use crate::trace::model::{
    Command, CtaTrace, Dim3, Fnv64, KernelInfo, KernelStream, OpTable, TraceSource,
};
use crate::trace::packed::PackedCta;
use crate::{Error, Result};

/// A kernel as the reader holds it: its directory entry plus the interned opcode table.
struct Kernel {
    entry: KernelEntry,
    ops: OpTable,
}

/// A compact trace opened for reading.
pub struct CompactReader<R> {
    src: R,
    name: String,
    version: (u16, u16),
    dir_source_name: String,
    trace_hash: u64,
    commands: Vec<Command>,
    kernels: Vec<Kernel>,
    file_len: u64,
    dir_clen: u64,
    dec: ChunkDecoder,
    fd: FrameDecoder,
    /// Most warp instructions per CTA (the policy's; chunks' CTAs are checked against it).
    max_cta_insts: u64,
    /// The last decoded chunk: (kernel, chunk, CTAs), so sequential `read_cta` stays cheap.
    cache: Option<(usize, usize, Vec<CtaTrace>)>,
}

/// How far from the end of a file [`CompactReader::new`] looks for the end of a compact trace
/// when the file does not end with one (to say "trailing data" rather than "truncated").
const TRAILING_SEARCH: u64 = 1 << 20;

fn io_err(name: &str, what: &str, e: std::io::Error) -> Error {
    Error::io(format!("{name} ({what})"), e)
}

/// True when `data` starts with the compact magic bytes (used to pick a reader by content).
pub fn is_compact(data: &[u8]) -> bool {
    data.len() >= MAGIC.len() && data[..MAGIC.len()] == MAGIC
}

impl CompactReader<Cursor<Vec<u8>>> {
    /// Reads a compact trace held in memory (e.g. bytes the browser was handed).
    pub fn from_bytes(data: Vec<u8>, name: &str) -> Result<Self> {
        Self::new(Cursor::new(data), name)
    }
    /// [`CompactReader::from_bytes`] with `policy`.
    pub fn from_bytes_with(data: Vec<u8>, name: &str, policy: Policy) -> Result<Self> {
        Self::new_with(Cursor::new(data), name, policy)
    }
}

impl<'a> CompactReader<Cursor<&'a [u8]>> {
    /// Reads a compact trace from a borrowed slice.
    pub fn from_slice(data: &'a [u8], name: &str) -> Result<Self> {
        Self::new(Cursor::new(data), name)
    }
    /// [`CompactReader::from_slice`] with `policy`.
    pub fn from_slice_with(data: &'a [u8], name: &str, policy: Policy) -> Result<Self> {
        Self::new_with(Cursor::new(data), name, policy)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl CompactReader<std::io::BufReader<std::fs::File>> {
    /// Opens a compact file, read strictly.
    pub fn open(path: &std::path::Path) -> Result<Self> {
        Self::open_with(path, Policy::STRICT)
    }

    /// Opens a regular compact file with `policy` for unknown opcodes and missing CTAs.
    pub fn open_with(path: &std::path::Path, policy: Policy) -> Result<Self> {
        let name = path.display().to_string();
        let f = crate::infile::open_regular(path)?;
        Self::new_with(std::io::BufReader::new(f), &name, policy)
    }
}

impl<R: Read + Seek> CompactReader<R> {
    /// Reads the header, trailer and directory of a compact trace; `name` is used in errors.
    /// Strict: an unknown opcode or a kernel with CTAs missing is an error.
    pub fn new(src: R, name: &str) -> Result<Self> {
        Self::new_with(src, name, Policy::STRICT)
    }

    /// [`CompactReader::new`] with `policy`: every kernel's opcodes ([`check::opcode`]) and CTA
    /// count against its grid ([`check::missing`]) are checked here, from the directory.
    pub fn new_with(mut src: R, name: &str, policy: Policy) -> Result<Self> {
        let perr = |field: &str, msg: String| Error::parse(name, 0, field, msg);
        let file_len = src
            .seek(SeekFrom::End(0))
            .map_err(|e| io_err(name, "seek", e))?;
        if file_len == 0 {
            return Err(perr("file", "an empty compact file (0 bytes)".into()));
        }
        if file_len < HEADER_LEN {
            return Err(perr(
                "header at byte 0",
                format!("file of {file_len} bytes is shorter than the 16-byte header"),
            ));
        }
        src.seek(SeekFrom::Start(0))
            .map_err(|e| io_err(name, "seek", e))?;
        let mut h = [0u8; HEADER_LEN as usize];
        src.read_exact(&mut h)
            .map_err(|e| io_err(name, "header", e))?;
        if h[..8] != MAGIC {
            return Err(perr(
                "magic at byte 0",
                "not a warpweave compact trace (magic bytes differ)".into(),
            ));
        }
        let major = u16::from_le_bytes([h[8], h[9]]);
        let minor = u16::from_le_bytes([h[10], h[11]]);
        if major != VERSION_MAJOR {
            return Err(perr(
                "version at byte 8",
                format!("format version {major}.{minor}; this reader reads version {VERSION_MAJOR}.x only"),
            ));
        }
        let flags = u32::from_le_bytes([h[12], h[13], h[14], h[15]]);
        if flags != 0 {
            return Err(perr(
                "flags at byte 12",
                format!("unknown flags {flags:#x} (expected 0)"),
            ));
        }
        if file_len < HEADER_LEN + TRAILER_LEN {
            return Err(perr(
                "trailer",
                format!(
                    "file of {file_len} bytes is too short for header and trailer (truncated?)"
                ),
            ));
        }
        let tpos = file_len - TRAILER_LEN;
        src.seek(SeekFrom::Start(tpos))
            .map_err(|e| io_err(name, "seek", e))?;
        let mut t = [0u8; TRAILER_LEN as usize];
        src.read_exact(&mut t)
            .map_err(|e| io_err(name, "trailer", e))?;
        let u = |i: usize| u64::from_le_bytes(t[i..i + 8].try_into().unwrap_or([0; 8]));
        let (dir_offset, dir_clen, dir_ulen, dir_hash) = (u(0), u(8), u(16), u(24));
        let dir_ends_here =
            dir_offset >= HEADER_LEN && dir_offset <= tpos && dir_clen == tpos - dir_offset;
        if t[32..40] != END_MAGIC || !dir_ends_here {
            // A whole compact trace followed by other bytes (appended, or a second file)?
            if let Some(end) = find_end(&mut src, file_len).filter(|&e| e < file_len) {
                return Err(perr(
                    &format!("trailing data at byte {end}"),
                    format!(
                        "{} bytes after the end of the compact trace (at byte {end}); \
                         was something appended to the file?",
                        file_len - end
                    ),
                ));
            }
        }
        if t[32..40] != END_MAGIC {
            return Err(perr(
                &format!("end magic at byte {}", tpos + 32),
                "missing: the file is truncated or was not completely written".into(),
            ));
        }
        if !dir_ends_here {
            return Err(perr(
                &format!("directory offset at byte {tpos}"),
                format!("directory at {dir_offset} of {dir_clen} bytes does not end at the trailer ({tpos})"),
            ));
        }
        if dir_ulen > MAX_UNCOMPRESSED {
            return Err(perr(
                &format!("directory length at byte {}", tpos + 16),
                format!("{dir_ulen} bytes is too large"),
            ));
        }
        let most = dir_bytes_at_most(dir_offset - HEADER_LEN);
        if dir_ulen > most {
            return Err(perr(
                &format!("directory length at byte {}", tpos + 16),
                format!(
                    "{dir_ulen} bytes for a file whose chunks take {} bytes: more than any \
                     directory of them takes (at most {most}); refused before decompressing",
                    dir_offset - HEADER_LEN
                ),
            ));
        }
        src.seek(SeekFrom::Start(dir_offset))
            .map_err(|e| io_err(name, "seek", e))?;
        let mut dc = vec![0u8; dir_clen as usize];
        src.read_exact(&mut dc)
            .map_err(|e| io_err(name, "directory", e))?;
        let d = decompress(
            &mut FrameDecoder::new(),
            &dc,
            dir_ulen,
            name,
            &format!("directory at byte {dir_offset}"),
        )?;
        if fnv(&d) != dir_hash {
            return Err(perr(
                &format!("directory at byte {dir_offset}"),
                "checksum mismatch: the file is corrupt".into(),
            ));
        }
        let dir = Directory::decode(&d, name, (HEADER_LEN, dir_offset), minor)?;
        let kernels = dir
            .kernels
            .into_iter()
            .map(|entry| {
                let mut ops = OpTable::new();
                for o in &entry.ops {
                    ops.push(o.clone());
                }
                Kernel { entry, ops }
            })
            .collect::<Vec<_>>();
        for (k, kern) in kernels.iter().enumerate() {
            if kern.ops.len() != kern.entry.ops.len() {
                return Err(perr(
                    &format!("kernel {k} opcode table"),
                    "an opcode name appears twice".into(),
                ));
            }
            check_kernel(k, &kern.entry, policy).map_err(|(f, m)| perr(&f, m))?;
        }
        Ok(CompactReader {
            src,
            name: name.to_string(),
            version: (major, minor),
            dir_source_name: dir.source_name,
            trace_hash: dir.trace_hash,
            commands: dir.commands,
            kernels,
            file_len,
            dir_clen,
            dec: ChunkDecoder::new(),
            fd: FrameDecoder::new(),
            max_cta_insts: policy.max_cta_insts,
            cache: None,
        })
    }

    /// Format version of the file (major, minor).
    pub fn version(&self) -> (u16, u16) {
        self.version
    }
    /// The name of the trace the file was converted from.
    pub fn source_name(&self) -> &str {
        &self.dir_source_name
    }
    /// The directory entries of every kernel (header, opcodes, chunk index).
    pub(super) fn kernel_entries(&self) -> Vec<KernelEntry> {
        self.kernels.iter().map(|k| k.entry.clone()).collect()
    }

    /// Compressed size of the directory in bytes.
    pub fn dir_clen(&self) -> u64 {
        self.dir_clen
    }
    pub fn file_len(&self) -> u64 {
        self.file_len
    }
    /// CTAs stored for kernel `k` (may differ from the grid size for partial traces).
    pub fn cta_count(&self, k: usize) -> u64 {
        self.kernels.get(k).map_or(0, |x| x.entry.n_ctas())
    }
    /// Warp instructions of kernel `k`, from the index (no decoding).
    pub fn kernel_warp_insts(&self, k: usize) -> u64 {
        self.kernels.get(k).map_or(0, |x| x.entry.warp_insts())
    }
    pub fn chunk_count(&self, k: usize) -> usize {
        self.kernels.get(k).map_or(0, |x| x.entry.chunks.len())
    }
    pub fn kernel_ops(&self, k: usize) -> &OpTable {
        &self.kernels[k].ops
    }

    fn kernel(&self, k: usize) -> Result<&Kernel> {
        self.kernels.get(k).ok_or_else(|| {
            Error::parse(
                &self.name,
                0,
                "kernel index",
                format!("kernel {k} requested; the file has {}", self.kernels.len()),
            )
        })
    }

    fn chunk_entry(&self, k: usize, c: usize) -> Result<&ChunkEntry> {
        let kern = self.kernel(k)?;
        kern.entry.chunks.get(c).ok_or_else(|| {
            Error::parse(
                &self.name,
                0,
                "chunk index",
                format!(
                    "kernel {k} chunk {c} requested; it has {}",
                    kern.entry.chunks.len()
                ),
            )
        })
    }

    /// The compressed bytes of chunk `c` of kernel `k` (to decode elsewhere, e.g. in parallel
    /// with [`decode_chunk`]).
    pub fn raw_chunk(&mut self, k: usize, c: usize) -> Result<Vec<u8>> {
        let e = self.chunk_entry(k, c)?.clone();
        self.src
            .seek(SeekFrom::Start(e.offset))
            .map_err(|err| io_err(&self.name, "seek", err))?;
        let mut buf = vec![0u8; e.clen as usize];
        self.src
            .read_exact(&mut buf)
            .map_err(|err| io_err(&self.name, &format!("chunk at byte {}", e.offset), err))?;
        Ok(buf)
    }

    /// Decodes every CTA of chunk `c` of kernel `k`.
    pub fn read_chunk(&mut self, k: usize, c: usize) -> Result<Vec<CtaTrace>> {
        let raw = self.raw_chunk(k, c)?;
        let e = &self.kernels[k].entry.chunks[c];
        decode_chunk_with(
            &mut self.dec,
            &mut self.fd,
            &raw,
            e,
            &self.name,
            (k, c),
            (
                self.kernels[k].ops.len(),
                self.version.1,
                shape(&self.kernels[k].entry.info, self.max_cta_insts),
            ),
        )
    }

    /// Decodes CTA `i` (in trace order) of kernel `k` on its own: only its chunk is read.
    pub fn read_cta(&mut self, k: usize, i: u64) -> Result<CtaTrace> {
        let kern = self.kernel(k)?;
        let chunks = &kern.entry.chunks;
        let c = chunks.partition_point(|e| e.first_cta + e.n_ctas <= i);
        if c >= chunks.len() {
            return Err(Error::parse(
                &self.name,
                0,
                "CTA index",
                format!(
                    "kernel {k} CTA {i} requested; it has {}",
                    kern.entry.n_ctas()
                ),
            ));
        }
        let first = chunks[c].first_cta;
        let hit = matches!(&self.cache, Some((ck, cc, _)) if *ck == k && *cc == c);
        if !hit {
            let ctas = self.read_chunk(k, c)?;
            self.cache = Some((k, c, ctas));
        }
        let ctas = self.cache.as_ref().map(|x| &x.2);
        ctas.and_then(|v| v.get((i - first) as usize))
            .cloned()
            .ok_or_else(|| {
                Error::parse(
                    &self.name,
                    0,
                    "chunk CTA count",
                    format!("kernel {k} chunk {c} holds fewer CTAs than its index says"),
                )
            })
    }
}

/// One kernel of the directory under `policy`: its opcodes, and its CTAs (from the index)
/// against its grid: more than the grid is an error whatever the policy (some appear twice or
/// lie outside it, which decoding would find later); fewer are missing. The error names the
/// place (field) and what is wrong.
fn check_kernel(
    k: usize,
    e: &KernelEntry,
    policy: Policy,
) -> std::result::Result<(), (String, String)> {
    let info = &e.info;
    for op in &e.ops {
        check::opcode(op, policy)
            .map_err(|m| (format!("kernel {k} `{}`", shown(&info.name)), m))?;
    }
    let (n, total) = (e.n_ctas(), info.grid.count());
    if n > total {
        return Err((
            format!("kernel {k} chunk index"),
            format!(
                "{n} CTAs in kernel `{}`, more than the {total} of its grid {} (some appear twice \
                 or lie outside it)",
                shown(&info.name),
                info.grid
            ),
        ));
    }
    check::missing(&info.name, n, total, policy).map_err(|m| (format!("kernel {k}"), m))?;
    // What each chunk will hold, before any is decompressed.
    for (c, ch) in e.chunks.iter().enumerate() {
        check::chunk_insts(ch.n_ctas, ch.warp_insts, policy).map_err(|m| {
            (
                format!("kernel {k} chunk {c} at byte {} index", ch.offset),
                m,
            )
        })?;
    }
    Ok(())
}

/// Where a compact trace ends inside a longer file: the end of the last trailer (its end
/// magic, with a directory that ends where it starts) in the last [`TRAILING_SEARCH`] bytes.
fn find_end<R: Read + Seek>(src: &mut R, file_len: u64) -> Option<u64> {
    let from = file_len.saturating_sub(TRAILING_SEARCH).max(HEADER_LEN);
    src.seek(SeekFrom::Start(from)).ok()?;
    let mut tail = Vec::new();
    src.take(file_len - from).read_to_end(&mut tail).ok()?;
    let n = TRAILER_LEN as usize;
    (n..tail.len()).rev().find_map(|end| {
        let t = &tail[end - n..end];
        let u = |i: usize| u64::from_le_bytes(t[i..i + 8].try_into().unwrap_or([0; 8]));
        let tpos = from + (end - n) as u64;
        let ok =
            t[32..40] == END_MAGIC && u(0) >= HEADER_LEN && u(0).checked_add(u(8)) == Some(tpos);
        ok.then_some(from + end as u64)
    })
}

fn fnv(data: &[u8]) -> u64 {
    let mut h = Fnv64::new();
    h.write(data);
    h.finish()
}

pub(super) fn decode_chunk_with(
    dec: &mut ChunkDecoder,
    fd: &mut FrameDecoder,
    raw: &[u8],
    e: &ChunkEntry,
    file: &str,
    (k, c): (usize, usize),
    (n_ops, minor, (grid, warps, max_cta_insts)): (usize, u16, Shape),
) -> Result<Vec<CtaTrace>> {
    let what = format!("kernel {k} chunk {c}");
    let mut data = dec.take_buf();
    decompress_into(
        fd,
        raw,
        e.ulen,
        file,
        &format!("{what} at byte {}", e.offset),
        &mut data,
    )?;
    if fnv(&data) != e.hash {
        return Err(Error::parse(
            file,
            0,
            format!("{what} at byte {}", e.offset),
            "checksum mismatch: the file is corrupt",
        ));
    }
    let ctas = dec
        .decode(
            &data,
            &ChunkCtx {
                file,
                what: &what,
                n_ops,
                minor,
                max_cta_insts,
            },
        )
        .map_err(|err| with_chunk_pos(err, e.offset));
    dec.put_buf(data);
    let ctas = ctas?;
    // Counted as decoded: a decoder that keeps only some opcodes drops the others after.
    let insts = dec.decoded();
    if ctas.len() as u64 != e.n_ctas || insts != e.warp_insts {
        return Err(Error::parse(
            file,
            0,
            format!("{what} at byte {}", e.offset),
            format!(
                "holds {} CTAs / {insts} warp instructions, the index says {} / {}",
                ctas.len(),
                e.n_ctas,
                e.warp_insts
            ),
        ));
    }
    // Each CTA inside the grid with its warps inside the block (once in the kernel: checked
    // where the CTAs are handed out, in order).
    for c in &ctas {
        check::inside_grid(c.id, grid)
            .and_then(|()| check::warps(c, warps))
            .map_err(|m| Error::parse(file, 0, format!("{what} at byte {}", e.offset), m))?;
    }
    Ok(ctas)
}

/// What a chunk's CTAs are checked against: the kernel's grid, its warps per block and the
/// most warp instructions a CTA may hold.
pub(super) type Shape = (Dim3, u32, u64);

/// The [`Shape`] of a kernel read with at most `max_cta_insts` warp instructions per CTA.
pub(super) fn shape(info: &KernelInfo, max_cta_insts: u64) -> Shape {
    (info.grid, info.warps_per_cta(), max_cta_insts)
}

/// Decodes one chunk's compressed bytes (from [`CompactReader::raw_chunk`]) without the reader,
/// so chunks can be decoded on several threads.
pub fn decode_chunk<R>(
    rd: &CompactReader<R>,
    k: usize,
    c: usize,
    raw: &[u8],
) -> Result<Vec<CtaTrace>> {
    let kern = rd
        .kernels
        .get(k)
        .ok_or_else(|| Error::other(format!("no kernel {k}")))?;
    let e = kern
        .entry
        .chunks
        .get(c)
        .ok_or_else(|| Error::other(format!("kernel {k} has no chunk {c}")))?;
    decode_chunk_with(
        &mut ChunkDecoder::new(),
        &mut FrameDecoder::new(),
        raw,
        e,
        &rd.name,
        (k, c),
        (
            kern.ops.len(),
            rd.version.1,
            shape(&kern.entry.info, rd.max_cta_insts),
        ),
    )
}

/// A kernel of a compact file, decoded chunk by chunk.
pub struct CompactKernelStream<'a, R> {
    rd: &'a mut CompactReader<R>,
    k: usize,
    next_chunk: usize,
    buf: std::vec::IntoIter<CtaTrace>,
    /// The CTAs handed out so far: each once.
    check: KernelCheck,
}

impl<R: Read + Seek> KernelStream for CompactKernelStream<'_, R> {
    fn info(&self) -> &KernelInfo {
        &self.rd.kernels[self.k].entry.info
    }
    fn ops(&self) -> &OpTable {
        &self.rd.kernels[self.k].ops
    }
    fn next_cta(&mut self) -> Result<Option<CtaTrace>> {
        loop {
            if let Some(c) = self.buf.next() {
                return Ok(Some(c));
            }
            if self.next_chunk >= self.rd.chunk_count(self.k) {
                return Ok(None);
            }
            let c = self.next_chunk;
            let ctas = self.rd.read_chunk(self.k, c)?;
            for x in &ctas {
                self.check.cta_id(x.id).map_err(|m| {
                    let at = self.rd.kernels[self.k].entry.chunks[c].offset;
                    let field = format!("kernel {} chunk {c} at byte {at}", self.k);
                    Error::parse(&self.rd.name, 0, field, m)
                })?;
            }
            self.next_chunk += 1;
            self.buf = ctas.into_iter();
        }
    }
    fn recycle(&mut self, cta: PackedCta) {
        self.rd.dec.recycle(cta.into_warps());
    }
    fn keep_only(&mut self, keep: &[bool]) -> bool {
        self.rd.cache = None;
        self.rd.dec.set_keep(keep);
        true
    }
}

impl<R> Drop for CompactKernelStream<'_, R> {
    /// The reader's decoder keeps every instruction again for its next user.
    fn drop(&mut self) {
        self.rd.dec.set_keep(&[]);
    }
}

impl<R: Read + Seek + Send> TraceSource for CompactReader<R> {
    fn name(&self) -> &str {
        &self.name
    }
    fn warp_insts_total(&self) -> Option<u64> {
        Some(
            (0..self.kernels.len())
                .map(|k| self.kernel_warp_insts(k))
                .sum(),
        )
    }
    fn commands(&self) -> &[Command] {
        &self.commands
    }
    fn kernel_count(&self) -> usize {
        self.kernels.len()
    }
    fn kernel_info(&self, k: usize) -> &KernelInfo {
        &self.kernels[k].entry.info
    }
    fn open_kernel(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send + '_>> {
        let check = KernelCheck::new(&self.kernel(k)?.entry.info);
        Ok(Box::new(CompactKernelStream {
            rd: self,
            k,
            next_chunk: 0,
            buf: Vec::new().into_iter(),
            check,
        }))
    }
    fn open_kernel_owned(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send>> {
        let kern = self.kernel(k)?;
        let entries = kern.entry.chunks.clone();
        let (info, ops) = (kern.entry.info.clone(), kern.ops.clone());
        let raw = (0..entries.len())
            .map(|c| self.raw_chunk(k, c))
            .collect::<Result<Vec<_>>>()?;
        Ok(Box::new(OwnedCompactStream::new(
            self.name.clone(),
            (k, info, ops),
            entries,
            (self.version.1, self.max_cta_insts),
            raw,
        )))
    }
    /// The content hash stored by the writer: FNV-1a 64 over the decoded model, computed the same
    /// way as [`crate::trace::MemTrace::trace_hash`], so it does not depend on the encoding.
    fn trace_hash(&self) -> String {
        format!("{:016x}", self.trace_hash)
    }
}
