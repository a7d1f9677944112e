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
    ChunkEntry, Directory, KernelEntry, END_MAGIC, HEADER_LEN, MAGIC, TRAILER_LEN, VERSION_MAJOR,
};
use crate::trace::model::{
    Command, CtaTrace, Dim3, Fnv64, KernelInfo, KernelStream, OpTable, PrefetchHalf, TraceSource,
};
use crate::trace::packed::{PackedCta, Packer};
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
    /// The last decoded chunk: (kernel, chunk, CTAs), so sequential `read_cta` stays cheap.
    cache: Option<(usize, usize, Vec<CtaTrace>)>,
}

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
}

impl<'a> CompactReader<Cursor<&'a [u8]>> {
    /// Reads a compact trace from a borrowed slice.
    pub fn from_slice(data: &'a [u8], name: &str) -> Result<Self> {
        Self::new(Cursor::new(data), name)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl CompactReader<std::io::BufReader<std::fs::File>> {
    /// Opens a compact file.
    pub fn open(path: &std::path::Path) -> Result<Self> {
        let name = path.display().to_string();
        let f = std::fs::File::open(path).map_err(|e| Error::io(&name, e))?;
        Self::new(std::io::BufReader::new(f), &name)
    }
}

impl<R: Read + Seek> CompactReader<R> {
    /// Reads the header, trailer and directory of a compact trace; `name` is used in errors.
    pub fn new(mut src: R, name: &str) -> Result<Self> {
        let perr = |field: &str, msg: String| Error::parse(name, 0, field, msg);
        let file_len = src
            .seek(SeekFrom::End(0))
            .map_err(|e| io_err(name, "seek", e))?;
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
        if t[32..40] != END_MAGIC {
            return Err(perr(
                &format!("end magic at byte {}", tpos + 32),
                "missing: the file is truncated or was not completely written".into(),
            ));
        }
        let (dir_offset, dir_clen, dir_ulen, dir_hash) = (u(0), u(8), u(16), u(24));
        if dir_offset < HEADER_LEN || dir_offset > tpos || dir_clen != tpos - dir_offset {
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
                shape(&self.kernels[k].entry.info),
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

fn fnv(data: &[u8]) -> u64 {
    let mut h = Fnv64::new();
    h.write(data);
    h.finish()
}

fn decode_chunk_with(
    dec: &mut ChunkDecoder,
    fd: &mut FrameDecoder,
    raw: &[u8],
    e: &ChunkEntry,
    file: &str,
    (k, c): (usize, usize),
    (n_ops, minor, (grid, warps)): (usize, u16, (Dim3, u32)),
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
    check_shape(&ctas, grid, warps)
        .map_err(|m| Error::parse(file, 0, format!("{what} at byte {}", e.offset), m))?;
    Ok(ctas)
}

/// A kernel's grid and warps per block, what its CTAs are checked against.
fn shape(info: &KernelInfo) -> (Dim3, u32) {
    (info.grid, info.warps_per_cta())
}

/// The checks the text reader makes of every block: inside the grid, no more warps than the
/// block has, each warp id inside the block and once.
fn check_shape(ctas: &[CtaTrace], grid: Dim3, warps: u32) -> std::result::Result<(), String> {
    let mut seen = vec![false; warps as usize];
    for c in ctas {
        let id = c.id;
        if id.x >= grid.x || id.y >= grid.y || id.z >= grid.z {
            return Err(format!(
                "block {},{},{} is outside the grid {grid}",
                id.x, id.y, id.z
            ));
        }
        seen.iter_mut().for_each(|s| *s = false);
        for w in &c.warps {
            let wi = w.warp_id;
            if wi >= warps {
                return Err(format!(
                    "block {},{},{}: warp {wi} but a block has {warps} warps",
                    id.x, id.y, id.z
                ));
            }
            if std::mem::replace(&mut seen[wi as usize], true) {
                return Err(format!(
                    "block {},{},{}: warp {wi} appears twice",
                    id.x, id.y, id.z
                ));
            }
        }
    }
    Ok(())
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
        (kern.ops.len(), rd.version.1, shape(&kern.entry.info)),
    )
}

/// A kernel of a compact file, decoded chunk by chunk.
pub struct CompactKernelStream<'a, R> {
    rd: &'a mut CompactReader<R>,
    k: usize,
    next_chunk: usize,
    buf: std::vec::IntoIter<CtaTrace>,
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
            let ctas = self.rd.read_chunk(self.k, self.next_chunk)?;
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

/// A kernel of a compact file that owns its compressed chunks (read at open: a few bytes per
/// warp instruction) and decodes them one at a time as CTAs are pulled; `prefetch` decodes the
/// next chunk ahead, `prefetch_pair` the next two on two threads (a second decoder).
pub struct OwnedCompactStream {
    name: String,
    k: usize,
    info: KernelInfo,
    ops: OpTable,
    entries: Vec<ChunkEntry>,
    /// The file's minor format version.
    minor: u16,
    /// Compressed chunks; each is emptied when decoded.
    raw: Vec<Vec<u8>>,
    /// Chunks handed to `buf` so far (the next one to hand out is `taken`).
    taken: usize,
    dec: ChunkDecoder,
    fd: FrameDecoder,
    /// The second decoder of `prefetch_pair`.
    dec2: ChunkDecoder,
    fd2: FrameDecoder,
    buf: std::vec::IntoIter<CtaTrace>,
    /// Pulled by `next_packed`: chunks are packed where they are decoded (on the prefetching
    /// thread), each decoder with its packer.
    packed: bool,
    /// `next_packed`'s last `above`.
    above: u64,
    pk: Packer,
    pk2: Packer,
    pbuf: std::vec::IntoIter<PackedCta>,
    /// Chunks `taken` and `taken + 1`, decoded ahead (their errors, if any, wait here); the
    /// second only while the first is there.
    ahead: [Option<Result<Decoded>>; 2],
}

/// A decoded chunk's CTAs: as decoded, or packed.
enum Decoded {
    Full(Vec<CtaTrace>),
    Packed(Vec<PackedCta>),
}

/// Decodes chunk `c` of a stream's kernel (its compressed bytes are freed).
#[allow(clippy::too_many_arguments)]
fn decode_owned(
    dec: &mut ChunkDecoder,
    fd: &mut FrameDecoder,
    raw: &mut Vec<u8>,
    entries: &[ChunkEntry],
    name: &str,
    k: usize,
    c: usize,
    n_ops_minor: (usize, u16, (Dim3, u32)),
    pk: Option<(&mut Packer, u64)>,
) -> Result<Decoded> {
    let raw = std::mem::take(raw);
    let ctas = decode_chunk_with(dec, fd, &raw, &entries[c], name, (k, c), n_ops_minor)?;
    Ok(match pk {
        None => Decoded::Full(ctas),
        // Packed where a CTA is larger than `above` (else a move), each CTA's largest opcode
        // and PC noted while its instructions are in this core's cache.
        Some((pk, above)) => Decoded::Packed(
            ctas.into_iter()
                .map(|x| {
                    let mut p = PackedCta::new(x, pk, above);
                    p.note_max();
                    p
                })
                .collect(),
        ),
    })
}

impl OwnedCompactStream {
    /// Decodes chunk `c` with the stream's first decoder.
    fn decode_at(&mut self, c: usize) -> Result<Decoded> {
        decode_owned(
            &mut self.dec,
            &mut self.fd,
            &mut self.raw[c],
            &self.entries,
            &self.name,
            self.k,
            c,
            (self.ops.len(), self.minor, shape(&self.info)),
            self.packed.then_some((&mut self.pk, self.above)),
        )
    }

    /// The next chunk (decoded ahead, or now), or None after the last.
    fn take_chunk(&mut self) -> Option<Result<Decoded>> {
        let c = self.taken;
        if c >= self.raw.len() {
            return None;
        }
        self.taken += 1;
        Some(match self.ahead[0].take() {
            Some(r) => {
                self.ahead.swap(0, 1);
                r
            }
            None => {
                // (A second half without its first is stale: decoded again when due.)
                self.ahead[1] = None;
                self.decode_at(c)
            }
        })
    }
}

impl KernelStream for OwnedCompactStream {
    fn info(&self) -> &KernelInfo {
        &self.info
    }
    fn ops(&self) -> &OpTable {
        &self.ops
    }
    fn next_cta(&mut self) -> Result<Option<CtaTrace>> {
        loop {
            if let Some(c) = self.buf.next() {
                return Ok(Some(c));
            }
            match self.take_chunk() {
                None => return Ok(None),
                Some(r) => match r? {
                    Decoded::Full(v) => self.buf = v.into_iter(),
                    Decoded::Packed(_) => {
                        return Err(Error::other(format!(
                        "{}: kernel {}: next_cta after next_packed (a stream is pulled one way)",
                        self.name, self.k
                    )))
                    }
                },
            }
        }
    }
    fn next_packed(&mut self, pk: &mut Packer, above: u64) -> Result<Option<PackedCta>> {
        self.packed = true;
        self.above = above;
        loop {
            if let Some(c) = self.pbuf.next() {
                return Ok(Some(c));
            }
            if let Some(c) = self.buf.next() {
                return Ok(Some(PackedCta::new(c, pk, above)));
            }
            match self.take_chunk() {
                None => return Ok(None),
                Some(r) => match r? {
                    Decoded::Full(v) => self.buf = v.into_iter(),
                    Decoded::Packed(v) => self.pbuf = v.into_iter(),
                },
            }
        }
    }
    fn will_pack(&mut self, above: u64) {
        self.packed = true;
        self.above = above;
    }
    fn recycle(&mut self, cta: PackedCta) {
        // To the decoder with fewer spare buffers (`prefetch_pair` decodes with both).
        let dec = if self.dec.spare_insts() <= self.dec2.spare_insts() {
            &mut self.dec
        } else {
            &mut self.dec2
        };
        dec.recycle(cta.into_warps());
    }
    fn prefetch(&mut self) {
        let c = self.taken;
        if self.ahead[0].is_none() && c < self.raw.len() {
            self.ahead[1] = None;
            self.ahead[0] = Some(self.decode_at(c));
        }
    }
    fn has_decoded(&self) -> bool {
        self.buf.len() > 0 || self.pbuf.len() > 0
    }
    fn prefetch_pair(&mut self) -> Option<[PrefetchHalf<'_>; 2]> {
        let c = self.taken;
        if self.ahead[0].is_some() || c >= self.raw.len() {
            return None;
        }
        let OwnedCompactStream {
            name,
            k,
            info,
            ops,
            entries,
            minor,
            raw,
            dec,
            fd,
            dec2,
            fd2,
            ahead,
            packed,
            pk,
            pk2,
            above,
            ..
        } = self;
        let (packed, above) = (*packed, *above);
        let (k, nm) = (*k, (ops.len(), *minor, shape(info)));
        let (name, entries) = (&*name, &*entries);
        let (r0, rest) = raw[c..].split_first_mut()?;
        let r1 = rest.first_mut();
        let [a0, a1] = ahead;
        *a1 = None;
        let h0: PrefetchHalf<'_> = Box::new(move || {
            let pk = packed.then_some((pk, above));
            *a0 = Some(decode_owned(dec, fd, r0, entries, name, k, c, nm, pk));
        });
        let h1: PrefetchHalf<'_> = Box::new(move || {
            if let Some(r1) = r1 {
                let pk = packed.then_some((pk2, above));
                *a1 = Some(decode_owned(dec2, fd2, r1, entries, name, k, c + 1, nm, pk));
            }
        });
        Some([h0, h1])
    }
    fn keep_only(&mut self, keep: &[bool]) -> bool {
        if self.taken > 0 || self.ahead[0].is_some() {
            // Chunks already decoded hold every instruction: keep it so for the whole kernel.
            return false;
        }
        self.dec.set_keep(keep);
        self.dec2.set_keep(keep);
        true
    }
}

impl<R: Read + Seek + Send> TraceSource for CompactReader<R> {
    fn name(&self) -> &str {
        &self.name
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
        self.kernel(k)?;
        Ok(Box::new(CompactKernelStream {
            rd: self,
            k,
            next_chunk: 0,
            buf: Vec::new().into_iter(),
        }))
    }
    fn open_kernel_owned(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send>> {
        let kern = self.kernel(k)?;
        let entries = kern.entry.chunks.clone();
        let (info, ops) = (kern.entry.info.clone(), kern.ops.clone());
        let raw = (0..entries.len())
            .map(|c| self.raw_chunk(k, c))
            .collect::<Result<Vec<_>>>()?;
        Ok(Box::new(OwnedCompactStream {
            name: self.name.clone(),
            k,
            info,
            ops,
            entries,
            minor: self.version.1,
            raw,
            taken: 0,
            dec: ChunkDecoder::new(),
            fd: FrameDecoder::new(),
            dec2: ChunkDecoder::new(),
            fd2: FrameDecoder::new(),
            buf: Vec::new().into_iter(),
            packed: false,
            above: 0,
            pk: Packer::default(),
            pk2: Packer::default(),
            pbuf: Vec::new().into_iter(),
            ahead: [None, None],
        }))
    }
    /// The content hash stored by the writer: FNV-1a 64 over the decoded model, computed the same
    /// way as [`crate::trace::MemTrace::trace_hash`], so it does not depend on the encoding.
    fn trace_hash(&self) -> String {
        format!("{:016x}", self.trace_hash)
    }
}
