//! One chunk: the modelled, uncompressed encoding of one or more consecutive CTAs of a kernel.
//! Each chunk is decodable on its own (all prediction state starts empty), then compressed with
//! zstd as one frame by the writer.
//!
//! ```text
//! chunk  = u8 nstreams, varint len[nstreams], stream bytes in order
//! HDR    : varint n_ctas; per CTA: x y z n_warps; per warp: warp_id n_insts addr_mode [n_addrs]
//! CTRL   : one byte per instruction (see below); every other stream is read only on a miss
//! PC     : zigzag(pc - previous pc)                    when the successor prediction misses
//! OP/REG/MISC: op; ndst nsrc dst[4] src[6]; width flags imm line   on a static-field miss
//! MASK   : u32 LE                                      when the mask is not predicted
//! BASE   : zigzag(base - predicted base)               when the base is not predicted
//! STRIDE : zigzag(stride)                              when the stride differs from last time
//! LANE   : zigzag(addr[j] - addr[j-1]), j >= 1         for irregular lane addresses
//! RAW    : addr_start per instruction, then zigzag-delta addresses (addr_mode 2 only)
//! CBITS  : varint(ctrl rotated left by 1) per static-field miss (1.2); empty when every
//!          instruction of the chunk has none (then each is Ctrl::NONE)
//!
//! CTRL bit 0  PC = successor of the previous instruction's PC last time (same chunk)
//!      bit 1  static fields (op, registers, width, flags, imm, line, control bits) = last
//!             time at this PC
//!      bit 2-3 mask: 0 = previous instruction's, 1 = last at this PC, 2 = full, 3 = explicit
//!      bit 4-5 lane addresses: 0 = base + j*stride, 1 = base + (lane_j - lane_0)*stride,
//!              2 = irregular (LANE stream), 3 = runs: base + (j%run)*stride + (j/run)*stride2
//!              (format 1.1; STRIDE holds run, stride, stride2)
//!      bit 6  stride (kind 3: run, stride, stride2) = last at this PC
//!      bit 7  base = last base at this PC + last base delta at this PC
//! ```
//!
//! Instructions are modelled per static instruction ("slot", one per distinct PC in the chunk):
//! all warps of a kernel run the same code, so after the first warp almost every instruction is
//! a CTRL byte of `0b1100_0011`-like constants, which zstd then squeezes to almost nothing.
//! The idea follows the trace-compression practice of splitting a record into homogeneous
//! streams (value prediction + entropy coding); see FORMAT.md.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::bytes::{put_svarint, put_varint, Cur};
use crate::trace::check::{self, Policy};
use crate::trace::model::{
    AddrShape, CtaTrace, Ctrl, Dim3, OpId, TraceInst, WarpTrace, MAX_DST, MAX_SRC,
};
use crate::{Error, Result};

const S_HDR: usize = 0;
const S_CTRL: usize = 1;
const S_PC: usize = 2;
const S_OP: usize = 3;
const S_REG: usize = 4;
const S_MISC: usize = 5;
const S_MASK: usize = 6;
const S_BASE: usize = 7;
const S_STRIDE: usize = 8;
const S_LANE: usize = 9;
const S_RAW: usize = 10;
/// Compiler control bits (format 1.2), one per static-field miss.
const S_CBITS: usize = 11;
/// Number of streams in a chunk (format 1.2; 1.0 and 1.1 have no `cbits`).
pub const NSTREAMS: usize = 12;
/// Streams of a chunk of format 1.0 and 1.1.
const NSTREAMS_1_1: usize = 11;
const STREAM_NAMES: [&str; NSTREAMS] = [
    "hdr", "ctrl", "pc", "op", "reg", "misc", "mask", "base", "stride", "lane", "raw", "cbits",
];

/// The streams a chunk of minor version `minor` has.
fn nstreams(minor: u16) -> usize {
    if minor >= 2 {
        NSTREAMS
    } else {
        NSTREAMS_1_1
    }
}

const PC_HIT: u8 = 1;
const STATIC_HIT: u8 = 2;
const MASK_SHIFT: u8 = 2;
const KIND_SHIFT: u8 = 4;
const STRIDE_HIT: u8 = 64;
const BASE_HIT: u8 = 128;

const MASK_PREV: u8 = 0;
const MASK_SLOT: u8 = 1;
const MASK_FULL: u8 = 2;
const MASK_EXPLICIT: u8 = 3;

const KIND_INDEX: u8 = 0;
const KIND_LANE: u8 = 1;
const KIND_IRREGULAR: u8 = 2;
/// Runs of lanes (format 1.1): the shape of [`AddrShape`] with `run < n`.
const KIND_RUNS: u8 = 3;

/// `addr_start` of every instruction is the running address count.
const AMODE_CURSOR: u8 = 0;
/// As 0 for memory instructions; instructions without addresses have `addr_start == 0`.
const AMODE_CURSOR_ZERO: u8 = 1;
/// Anything else: explicit `addr_start` and addresses in the RAW stream.
const AMODE_RAW: u8 = 2;

const NONE: u32 = u32::MAX;
/// Slot 0 is the virtual instruction before the first of every warp.
const START: u32 = 0;

/// A cheap multiplicative hasher for `u32` PCs (decode-time map only).
#[derive(Default)]
pub struct PcHasher(u64);

impl Hasher for PcHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (v as u64 ^ 0x5bd1_e995).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type PcMap = HashMap<u32, u32, BuildHasherDefault<PcHasher>>;

/// Prediction state of one static instruction (one PC) inside a chunk.
#[derive(Clone, Copy)]
struct Slot {
    pc: u32,
    /// Slot of the instruction that followed this one last time.
    succ: u32,
    /// Static fields last seen at this PC, with `pc` set (`valid` once set).
    tmpl: TraceInst,
    valid: bool,
    last_mask: u32,
    base: u64,
    bdelta: u64,
    has_base: bool,
    stride: u64,
    /// The last kind-3 shape at this PC.
    runs: AddrShape,
}

impl Slot {
    fn new(pc: u32) -> Self {
        Slot {
            pc,
            succ: NONE,
            tmpl: TraceInst::default(),
            valid: false,
            last_mask: u32::MAX,
            base: 0,
            bdelta: 0,
            has_base: false,
            stride: 0,
            runs: AddrShape::NONE,
        }
    }
}

/// Shared prediction state of encoder and decoder; both evolve it identically.
#[derive(Default)]
struct Model {
    slots: Vec<Slot>,
    map: PcMap,
    last_base: u64,
}

impl Model {
    fn reset(&mut self) {
        self.slots.clear();
        self.slots.push(Slot::new(0));
        self.map.clear();
        self.last_base = 0;
    }
    /// The slot of `pc`, created when new.
    fn slot_of(&mut self, pc: u32) -> u32 {
        let n = self.slots.len() as u32;
        let s = *self.map.entry(pc).or_insert(n);
        if s == n {
            self.slots.push(Slot::new(pc));
        }
        s
    }
    fn predict_base(&self, s: u32) -> u64 {
        let sl = &self.slots[s as usize];
        if sl.has_base {
            sl.base.wrapping_add(sl.bdelta)
        } else {
            self.last_base
        }
    }
    fn update_base(&mut self, s: u32, base: u64) {
        let sl = &mut self.slots[s as usize];
        sl.bdelta = if sl.has_base {
            base.wrapping_sub(sl.base)
        } else {
            0
        };
        sl.base = base;
        sl.has_base = true;
        self.last_base = base;
    }
}

fn static_eq(a: &TraceInst, b: &TraceInst) -> bool {
    a.op == b.op
        && a.ndst == b.ndst
        && a.nsrc == b.nsrc
        && a.dst == b.dst
        && a.src == b.src
        && a.mem_width == b.mem_width
        && a.flags == b.flags
        && a.imm == b.imm
        && a.line == b.line
        && a.ctrl == b.ctrl
}

#[inline]
fn naddr(i: &TraceInst) -> usize {
    if i.mem_width > 0 {
        i.mask.count_ones() as usize
    } else {
        0
    }
}

mod encode;
pub use encode::ChunkEncoder;

/// Active lanes of `mask`, lowest first.
fn lanes(mask: u32) -> impl Iterator<Item = u32> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros();
            m &= m - 1;
            Some(l)
        }
    })
}

/// Decodes chunks; reuse one decoder for every chunk of a file.
#[derive(Default)]
pub struct ChunkDecoder {
    model: Model,
    /// The uncompressed chunk, kept between chunks so its capacity is reused.
    buf: Vec<u8>,
    /// Addresses of the last warp decoded: the next warp's first reservation (warps of a
    /// kernel are alike, so the address list is allocated once, not grown by doubling).
    addr_hint: usize,
    /// Opcode ids to hand out (`keep[op]`); empty = all. Instructions of other opcodes are
    /// parsed (the prediction state must evolve as the encoder's did) but not stored, nor
    /// their addresses: the functional pre-pass asks for memory instructions only.
    keep: Vec<bool>,
    /// Instructions decoded by the last [`ChunkDecoder::decode`], kept or not.
    decoded: u64,
    /// Instructions the last warp kept (with `keep`): the next warp's first reservation.
    kept_hint: usize,
    /// Warps of CTAs their holders are done with ([`ChunkDecoder::recycle`]): decoding fills
    /// these buffers (cleared, capacity kept) before it allocates new ones.
    spare: Vec<Vec<WarpTrace>>,
    /// Instructions the buffers of `spare` can hold, together (bounded by [`SPARE_INSTS`]).
    spare_insts: usize,
    /// The chunk being decoded has a `cbits` stream: static-field misses read control bits.
    cbits: bool,
}

/// How one warp's instructions are decoded: with address mode 1 (`zero`: addresses start at
/// 0), and how many addresses block `cta` may still take before it passes the bound.
#[derive(Clone, Copy)]
struct Room {
    zero: bool,
    addrs: usize,
    cta: Dim3,
}

/// Instructions (`TraceInst` capacity) a decoder keeps in spare buffers at most: ~4 MB of
/// instructions and their addresses, a chunk's worth of short CTAs.
pub const SPARE_INSTS: usize = 65_536;

/// Where a chunk came from, for error messages.
pub struct ChunkCtx<'a> {
    pub file: &'a str,
    /// e.g. "kernel 0 chunk 3".
    pub what: &'a str,
    /// Number of opcodes in the kernel's table: larger ids are corrupt.
    pub n_ops: usize,
    /// The file's minor format version: from 1.1 on, writers code every address list that
    /// has a shape ([`AddrShape::of`]) as kind 0 or 3, so kinds 1 and 2 need no shape search;
    /// from 1.2 on, chunks have the `cbits` stream.
    pub minor: u16,
    /// Most warp instructions one CTA may hold (`check::cta_insts`).
    pub max_cta_insts: u64,
}

impl ChunkDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// The buffer to decompress the next chunk into (give it back with [`Self::put_buf`]).
    pub fn take_buf(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }

    pub fn put_buf(&mut self, buf: Vec<u8>) {
        self.buf = buf;
    }

    /// Keep only instructions whose opcode id `op` has `keep[op]` (ids past the end are
    /// dropped); an empty slice keeps everything. The CTAs' warps then hold the kept
    /// instructions in order, their `addr_start` pointing into their own address lists.
    pub fn set_keep(&mut self, keep: &[bool]) {
        self.keep.clear();
        self.keep.extend_from_slice(keep);
    }

    /// Takes back the warps of a CTA its holder is done with, for a later [`Self::decode`] to
    /// fill (a bounded pool; what decoding gives is the same either way).
    pub fn recycle(&mut self, warps: Vec<WarpTrace>) {
        let n: usize = warps.iter().map(|w| w.insts.capacity()).sum();
        if warps.is_empty() || self.spare_insts + n > SPARE_INSTS {
            return;
        }
        self.spare_insts += n;
        self.spare.push(warps);
    }

    /// Instructions the spare buffers can hold ([`Self::recycle`]).
    pub fn spare_insts(&self) -> usize {
        self.spare_insts
    }

    /// Instructions the last [`ChunkDecoder::decode`] read, kept or not (for the index check).
    pub fn decoded(&self) -> u64 {
        self.decoded
    }

    /// Decodes one uncompressed chunk into its CTAs. Offsets in errors are bytes into the
    /// uncompressed chunk.
    pub fn decode(&mut self, data: &[u8], ctx: &ChunkCtx<'_>) -> Result<Vec<CtaTrace>> {
        self.model.reset();
        self.decoded = 0;
        let mut head = Cur::new(data, 0, ctx.file, ctx.what);
        let ns = head.u8("stream count")? as usize;
        let want = nstreams(ctx.minor);
        if ns != want {
            return Err(head.err(
                "stream count",
                format!("expected {want} (format 1.{}), found {ns}", ctx.minor),
            ));
        }
        // Streams a chunk of an older minor lacks are empty.
        let mut lens = [0usize; NSTREAMS];
        for (i, l) in lens.iter_mut().enumerate().take(ns) {
            *l = head.var_max(STREAM_NAMES[i], data.len() as u64)? as usize;
        }
        self.cbits = lens[S_CBITS] > 0;
        let mut off = head.pos();
        let total: usize = lens.iter().sum();
        if total != data.len() - off {
            return Err(head.err(
                "stream lengths",
                format!(
                    "streams add up to {total} bytes but the chunk holds {}",
                    data.len() - off
                ),
            ));
        }
        let mut cur: [Cur<'_>; NSTREAMS] = std::array::from_fn(|i| {
            let c = Cur::new(&data[off..off + lens[i]], off as u64, ctx.file, ctx.what);
            off += lens[i];
            c
        });
        let n_ctas = cur[S_HDR].count("CTA count", 4)?;
        let mut ctas = Vec::with_capacity(n_ctas);
        for _ in 0..n_ctas {
            let h = &mut cur[S_HDR];
            let id = Dim3::new(
                h.var_u32("CTA x")?,
                h.var_u32("CTA y")?,
                h.var_u32("CTA z")?,
            );
            let n_warps = h.count("warp count", 3)?;
            // A retired CTA's buffers when there are any (see `recycle`).
            let mut warps = match self.spare.pop() {
                Some(w) => {
                    self.spare_insts -= w.iter().map(|w| w.insts.capacity()).sum::<usize>();
                    w
                }
                None => Vec::with_capacity(n_warps),
            };
            warps.truncate(n_warps);
            // (instructions, addresses) of this CTA so far, inside the bound
            let mut held = (0u64, 0u64);
            for w in 0..n_warps {
                if w == warps.len() {
                    warps.push(WarpTrace::default());
                }
                self.warp(&mut cur, ctx, &mut warps[w], (id, &mut held))?;
            }
            ctas.push(CtaTrace { id, warps });
        }
        for (i, c) in cur.iter().enumerate() {
            if !c.is_empty() {
                return Err(c.err(
                    STREAM_NAMES[i],
                    format!("{} bytes left over after the last CTA", c.remaining()),
                ));
            }
        }
        Ok(ctas)
    }

    /// Decodes one warp into `out` (its buffers cleared, their capacity kept).
    fn warp(
        &mut self,
        cur: &mut [Cur<'_>; NSTREAMS],
        ctx: &ChunkCtx<'_>,
        out: &mut WarpTrace,
        (cta, held): (Dim3, &mut (u64, u64)),
    ) -> Result<()> {
        let h = &mut cur[S_HDR];
        let warp_id = h.var_u32("warp id")?;
        let n_insts = h.varint("instruction count")?;
        // The same bound as the text reader's, on what the warp header declares (before
        // anything is reserved) and, below, with the addresses decoded.
        let policy = Policy::STRICT.with_max_cta_insts(ctx.max_cta_insts);
        held.0 = held.0.saturating_add(n_insts);
        check::cta_insts(cta, check::cta_held(held.0, held.1), policy)
            .map_err(|m| h.err("instruction count", m))?;
        if n_insts > cur[S_CTRL].remaining() as u64 {
            return Err(cur[S_HDR].err(
                "instruction count",
                format!(
                    "{n_insts} instructions but only {} control bytes left",
                    cur[S_CTRL].remaining()
                ),
            ));
        }
        let h = &mut cur[S_HDR];
        let mode = h.u8("address mode")?;
        let n_raw = match mode {
            AMODE_CURSOR | AMODE_CURSOR_ZERO => 0,
            AMODE_RAW => h.varint("address count")?,
            _ => return Err(h.err("address mode", format!("expected 0, 1 or 2, found {mode}"))),
        };
        if n_raw > cur[S_RAW].remaining() as u64 {
            return Err(cur[S_HDR].err("address count", "more addresses than the raw stream holds"));
        }
        self.decoded += n_insts;
        let filter = !self.keep.is_empty();
        out.warp_id = warp_id;
        let WarpTrace { insts, addrs, .. } = out;
        insts.clear();
        insts.reserve(if filter {
            self.kept_hint.min(n_insts as usize)
        } else {
            n_insts as usize
        });
        addrs.clear();
        addrs.reserve(match mode {
            AMODE_RAW => n_raw as usize,
            _ => self.addr_hint.min(n_insts as usize * 32),
        });
        // The warp's control bytes at once (the count was checked against them above).
        let ctrls = cur[S_CTRL].bytes(n_insts as usize, "control byte")?;
        let zero = mode == AMODE_CURSOR_ZERO;
        let room = check::cta_addr_room(held.0, held.1, policy);
        if n_raw > room {
            return Err(cur[S_HDR].err(
                "address count",
                check::cta_too_large(cta, policy.max_cta_insts),
            ));
        }
        // Addresses this warp may add before the CTA passes the bound (checked as they come).
        let room = Room {
            zero,
            addrs: usize::try_from(room).unwrap_or(usize::MAX),
            cta,
        };
        let (i, a) = (&mut *insts, &mut *addrs);
        match (filter, mode == AMODE_RAW) {
            (false, false) => self.insts::<false, false>(cur, ctx, ctrls, room, i, a)?,
            (true, false) => self.insts::<true, false>(cur, ctx, ctrls, room, i, a)?,
            (false, true) => self.insts::<false, true>(cur, ctx, ctrls, room, i, a)?,
            (true, true) => self.insts::<true, true>(cur, ctx, ctrls, room, i, a)?,
        }
        if mode == AMODE_RAW {
            cur[S_RAW].svarint_sums(n_raw as usize, 0, addrs, "raw address")?;
            for i in insts.iter_mut() {
                let (at, n) = (i.addr_start as usize, naddr(i));
                if let Some(a) = addrs.get(at..at.saturating_add(n)) {
                    i.shape = AddrShape::of(a);
                }
            }
        }
        held.1 = held.1.saturating_add(addrs.len() as u64);
        check::cta_insts(cta, check::cta_held(held.0, held.1), policy)
            .map_err(|m| cur[S_HDR].err("address count", m))?;
        self.addr_hint = addrs.len();
        self.kept_hint = insts.len();
        Ok(())
    }

    /// The instructions of one warp, one control byte each (`ctrls`), into `insts` and
    /// `addrs`; specialised on whether opcodes are filtered (`keep`) and on the raw address
    /// mode, so the loop of the common case carries neither test. `room`: address mode 1 and
    /// the addresses the CTA may still take.
    /// Control-stream errors name the offset just past their byte, as reading it one byte at
    /// a time would. Not inlined: on its own the loop keeps its state in registers.
    #[inline(never)]
    fn insts<const FILTER: bool, const RAW: bool>(
        &mut self,
        cur: &mut [Cur<'_>; NSTREAMS],
        ctx: &ChunkCtx<'_>,
        ctrls: &[u8],
        room: Room,
        insts: &mut Vec<TraceInst>,
        addrs: &mut Vec<u64>,
    ) -> Result<()> {
        let Room {
            zero,
            addrs: room,
            cta,
        } = room;
        let n_insts = ctrls.len();
        let (mut prev_slot, mut prev_pc, mut prev_mask) = (START, 0u32, u32::MAX);
        for (k, &ctrl) in ctrls.iter().enumerate() {
            // Where a byte-by-byte reader of the control stream would stand, for errors.
            let back = || n_insts - 1 - k;
            let slot = if ctrl & PC_HIT != 0 {
                let pred = self.model.slots[prev_slot as usize].succ;
                if pred == NONE {
                    return Err(cur[S_CTRL].err_back(
                        back(),
                        "control byte",
                        "PC predicted but no successor is known",
                    ));
                }
                // The successor stays what it was.
                pred
            } else {
                let d = cur[S_PC].svarint("pc delta")?;
                let pc = prev_pc as i64 + d;
                if !(0..=u32::MAX as i64).contains(&pc) {
                    return Err(cur[S_PC].err("pc delta", format!("PC {pc} out of range")));
                }
                let s = self.model.slot_of(pc as u32);
                self.model.slots[prev_slot as usize].succ = s;
                s
            };
            let sl = &mut self.model.slots[slot as usize];
            if ctrl & STATIC_HIT == 0 {
                let mut t = read_static(cur, ctx, self.cbits)?;
                t.pc = sl.pc;
                sl.tmpl = t;
                sl.valid = true;
            } else if !sl.valid {
                return Err(cur[S_CTRL].err_back(
                    back(),
                    "control byte",
                    "static fields predicted for a PC not seen before",
                ));
            }
            let mask = match (ctrl >> MASK_SHIFT) & 3 {
                MASK_PREV => prev_mask,
                MASK_SLOT => sl.last_mask,
                MASK_FULL => u32::MAX,
                _ => cur[S_MASK].u32_le("mask")?,
            };
            sl.last_mask = mask;
            prev_mask = mask;
            prev_slot = slot;
            prev_pc = sl.pc;
            // Instructions of other opcodes (`keep`) are parsed for the prediction state and
            // their addresses checked, but not stored.
            let kept = !FILTER || self.keep.get(sl.tmpl.op.0 as usize) == Some(&true);
            if RAW {
                let a = cur[S_RAW].var_u32("addr_start")?;
                if ctrl & 0xf0 != 0 {
                    return Err(cur[S_CTRL].err_back(
                        back(),
                        "control byte",
                        "address bits set in raw address mode",
                    ));
                }
                if kept {
                    push_inst(insts, &sl.tmpl, mask, a);
                }
                continue;
            }
            let at = addrs.len();
            if at > u32::MAX as usize {
                return Err(cur[S_CTRL].err_back(
                    back(),
                    "control byte",
                    "more than 2^32 addresses in one warp",
                ));
            }
            if sl.tmpl.mem_width == 0 || mask == 0 {
                if ctrl & 0xf0 != 0 {
                    return Err(cur[S_CTRL].err_back(
                        back(),
                        "control byte",
                        "address bits set on an instruction without addresses",
                    ));
                }
                if kept {
                    push_inst(insts, &sl.tmpl, mask, if zero { 0 } else { at as u32 });
                }
                continue;
            }
            let n = mask.count_ones() as usize;
            if at + n > room {
                return Err(cur[S_CTRL].err_back(
                    back(),
                    "control byte",
                    check::cta_too_large(cta, ctx.max_cta_insts),
                ));
            }
            if kept {
                push_inst(insts, &sl.tmpl, mask, at as u32);
            }
            let shape = self.addrs(cur, slot, ctrl, back(), mask, n, addrs, ctx)?;
            if kept {
                if let Some(i) = insts.last_mut() {
                    i.shape = shape;
                }
            } else {
                addrs.truncate(at);
            }
        }
        Ok(())
    }

    /// Decodes one instruction's lane addresses into `out`; returns their shape.
    #[allow(clippy::too_many_arguments)]
    fn addrs(
        &mut self,
        cur: &mut [Cur<'_>; NSTREAMS],
        slot: u32,
        ctrl: u8,
        back: usize,
        mask: u32,
        n: usize,
        out: &mut Vec<u64>,
        ctx: &ChunkCtx<'_>,
    ) -> Result<AddrShape> {
        let pred = self.model.predict_base(slot);
        let base = if ctrl & BASE_HIT != 0 {
            pred
        } else {
            pred.wrapping_add(cur[S_BASE].svarint("address base")? as u64)
        };
        self.model.update_base(slot, base);
        let kind = (ctrl >> KIND_SHIFT) & 3;
        if n == 1 {
            if kind != KIND_INDEX || ctrl & STRIDE_HIT == 0 {
                return Err(cur[S_CTRL].err_back(
                    back,
                    "control byte",
                    "single-lane access must be coded as kind 0 with stride hit",
                ));
            }
            out.push(base);
            return Ok(AddrShape::strided(0));
        }
        let at = out.len();
        let shape = match kind {
            KIND_INDEX | KIND_LANE => {
                let sl = &mut self.model.slots[slot as usize];
                if ctrl & STRIDE_HIT == 0 {
                    sl.stride = cur[S_STRIDE].svarint("address stride")? as u64;
                }
                let st = sl.stride;
                if kind == KIND_INDEX {
                    // `base + j * stride` for all 32 lanes on the stack (a fixed-length
                    // loop the compiler unrolls, its zero fill dropped as dead stores), the
                    // first `n` copied once.
                    let mut lanes = [0u64; 32];
                    let mut a = base;
                    for x in &mut lanes {
                        *x = a;
                        a = a.wrapping_add(st);
                    }
                    out.extend_from_slice(&lanes[..n]);
                    i32::try_from(st as i64).map_or(AddrShape::NONE, AddrShape::strided)
                } else {
                    let lane0 = mask.trailing_zeros();
                    out.extend(
                        lanes(mask)
                            .map(|l| base.wrapping_add(((l - lane0) as u64).wrapping_mul(st))),
                    );
                    if ctx.minor >= 1 {
                        AddrShape::NONE
                    } else {
                        AddrShape::of(&out[at..])
                    }
                }
            }
            KIND_IRREGULAR => {
                if ctrl & STRIDE_HIT != 0 {
                    return Err(cur[S_CTRL].err_back(
                        back,
                        "control byte",
                        "stride hit on irregular addresses",
                    ));
                }
                if n - 1 > cur[S_LANE].remaining() {
                    return Err(
                        cur[S_LANE].err("lane delta", "fewer lane deltas left than active lanes")
                    );
                }
                out.push(base);
                cur[S_LANE].svarint_sums(n - 1, base, out, "lane delta")?;
                if ctx.minor >= 1 {
                    AddrShape::NONE
                } else {
                    AddrShape::of(&out[at..])
                }
            }
            _ => {
                let sl = &mut self.model.slots[slot as usize];
                if ctrl & STRIDE_HIT == 0 {
                    let c = &mut cur[S_STRIDE];
                    let run = c.var_max("address run", 31)? as u8;
                    let mut st = [0i32; 2];
                    for v in &mut st {
                        let x = c.svarint("address stride")?;
                        *v = i32::try_from(x)
                            .map_err(|_| c.err("address stride", format!("{x} exceeds 32 bits")))?;
                    }
                    sl.runs = AddrShape {
                        run,
                        stride: st[0],
                        stride2: st[1],
                    };
                }
                let sh = sl.runs;
                // Canonical only ([`AddrShape::of`]): 2 <= run < n, and the step after the
                // first run differs from the stride.
                if sh.run < 2
                    || sh.run as usize >= n
                    || sh.stride2 as i64 == sh.run as i64 * sh.stride as i64
                {
                    return Err(cur[S_CTRL].err_back(
                        back,
                        "control byte",
                        format!(
                            "address runs (run {}, stride {}, stride2 {}) do not fit {n} lanes",
                            sh.run, sh.stride, sh.stride2
                        ),
                    ));
                }
                sh.expand(base, n, out);
                sh
            }
        };
        Ok(shape)
    }
}

/// Appends `tmpl` (which already holds the PC) with its dynamic fields: one copy of the whole
/// instruction, two fields patched in place.
#[inline(always)]
fn push_inst(insts: &mut Vec<TraceInst>, tmpl: &TraceInst, mask: u32, addr_start: u32) {
    insts.push(*tmpl);
    if let Some(i) = insts.last_mut() {
        i.mask = mask;
        i.addr_start = addr_start;
    }
}

/// The static fields of a static-field miss; `cbits`: the chunk has control bits.
fn read_static(
    cur: &mut [Cur<'_>; NSTREAMS],
    ctx: &ChunkCtx<'_>,
    cbits: bool,
) -> Result<TraceInst> {
    let mut t = TraceInst::default();
    let op = cur[S_OP].varint("opcode id")?;
    if op >= ctx.n_ops as u64 {
        return Err(cur[S_OP].err(
            "opcode id",
            format!("id {op} but the kernel has {} opcodes", ctx.n_ops),
        ));
    }
    t.op = OpId(op as u16);
    let r = &mut cur[S_REG];
    t.ndst = r.u8("dst count")?;
    t.nsrc = r.u8("src count")?;
    if t.ndst as usize > MAX_DST || t.nsrc as usize > MAX_SRC {
        return Err(r.err(
            "register count",
            format!(
                "{} dst / {} src exceed {MAX_DST} / {MAX_SRC}",
                t.ndst, t.nsrc
            ),
        ));
    }
    for d in &mut t.dst {
        *d = reg(r)?;
    }
    for s in &mut t.src {
        *s = reg(r)?;
    }
    let m = &mut cur[S_MISC];
    let w = m.varint("mem_width")?;
    t.mem_width =
        u16::try_from(w).map_err(|_| m.err("mem_width", format!("{w} exceeds 16 bits")))?;
    t.flags = m.u8("flags")?;
    t.imm = m.varint("immediate")?;
    t.line = m.var_u32("line")?;
    if cbits {
        t.ctrl = Ctrl(cur[S_CBITS].var_u32("control bits")?.rotate_right(1));
    }
    Ok(t)
}

fn reg(r: &mut Cur<'_>) -> Result<u16> {
    let v = r.varint("register")?;
    u16::try_from(v).map_err(|_| r.err("register", format!("{v} exceeds 16 bits")))
}

/// Wraps a chunk-level error with the chunk's file position (used by the reader).
pub fn with_chunk_pos(e: Error, file_off: u64) -> Error {
    match e {
        Error::Parse {
            file,
            line,
            field,
            msg,
        } => Error::Parse {
            file,
            line,
            field: format!("{field} (uncompressed; chunk at file byte {file_off})"),
            msg,
        },
        other => other,
    }
}
