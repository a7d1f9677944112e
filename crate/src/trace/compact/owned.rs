//! A kernel of a compact file that owns its compressed chunks, for the engine: it keeps the
//! stream across run slices and decodes ahead on other threads (`prefetch`, `prefetch_pair`).
//! Each CTA is checked where it is handed out, in trace order (`trace::check`: each once; the
//! grid and warps were checked where its chunk was decoded).

use ruzstd::decoding::FrameDecoder;

use super::chunk::ChunkDecoder;
use super::dir::ChunkEntry;
use super::reader::{decode_chunk_with, shape, Shape};
use crate::trace::check::KernelCheck;
use crate::trace::model::{CtaTrace, KernelInfo, KernelStream, OpTable, PrefetchHalf};
use crate::trace::packed::{PackedCta, Packer};
use crate::{Error, Result};

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
    /// Most warp instructions per CTA (the reader's policy).
    max_cta_insts: u64,
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
    /// The CTAs handed out so far: each once.
    check: KernelCheck,
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
    n_ops_minor: (usize, u16, Shape),
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
    /// Kernel `k` (its header and opcodes) of file `name` (format 1.`minor`, read with at
    /// most `max_cta_insts` warp instructions per CTA), from its chunk index and compressed
    /// chunks.
    pub(super) fn new(
        name: String,
        (k, info, ops): (usize, KernelInfo, OpTable),
        entries: Vec<ChunkEntry>,
        (minor, max_cta_insts): (u16, u64),
        raw: Vec<Vec<u8>>,
    ) -> Self {
        OwnedCompactStream {
            name,
            k,
            check: KernelCheck::new(&info),
            info,
            ops,
            entries,
            minor,
            max_cta_insts,
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
        }
    }

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
            (
                self.ops.len(),
                self.minor,
                shape(&self.info, self.max_cta_insts),
            ),
            self.packed.then_some((&mut self.pk, self.above)),
        )
    }

    /// The next chunk (decoded ahead, or now), its CTAs checked, or None after the last.
    fn take_chunk(&mut self) -> Option<Result<Decoded>> {
        let c = self.taken;
        if c >= self.raw.len() {
            return None;
        }
        self.taken += 1;
        let r = match self.ahead[0].take() {
            Some(r) => {
                self.ahead.swap(0, 1);
                r
            }
            None => {
                // (A second half without its first is stale: decoded again when due.)
                self.ahead[1] = None;
                self.decode_at(c)
            }
        };
        Some(r.and_then(|d| {
            let (name, k, at) = (&self.name, self.k, self.entries[c].offset);
            let check = &mut self.check;
            let mut once = |id| {
                check.cta_id(id).map_err(|m| {
                    Error::parse(name, 0, format!("kernel {k} chunk {c} at byte {at}"), m)
                })
            };
            match &d {
                Decoded::Full(v) => v.iter().try_for_each(|x| once(x.id))?,
                Decoded::Packed(v) => v.iter().try_for_each(|x| once(x.id))?,
            }
            Ok(d)
        }))
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
            max_cta_insts,
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
        let (k, nm) = (*k, (ops.len(), *minor, shape(info, *max_cta_insts)));
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
