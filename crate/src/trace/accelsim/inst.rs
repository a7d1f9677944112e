//! One instruction line of an Accel-Sim trace, decoded into the model.
//!
//! ```text
//!  [line] PC   mask     ndst [dst..] OPCODE        nsrc [src..] width [mode addresses..] [imm]
//!  0098   ffffffff 1   R4   LDG.E.CG      1    R4     4     1 0x7f2b2d500000 4
//! ```
//! Address modes, as the tracer (`tracer_tool.cu`) writes them for the active lanes (set bits
//! of `mask`, lowest lane first):
//! - `0` list: one hexadecimal address per active lane;
//! - `1` base + stride: `base stride`; lane k of the active run is `base + k * stride` (the
//!   tracer uses it only for one contiguous run of at least two lanes with a constant 32-bit
//!   stride, and writes `1 0x0 0` for a memory instruction with no active lane);
//! - `2` base + deltas: `base d1 .. d(n-1)`: each active lane after the first is the previous
//!   active lane's address plus its delta (n - 1 signed decimal deltas for n active lanes).
//!
//! Tracer version 5 appends the immediate; `-enable lineinfo = 1` prepends a source line number;
//! versions before 3 prepend `cta_x cta_y cta_z warp` (skipped here).

use crate::trace::check::{self, Policy};
use crate::trace::model::{
    inst_flags, AddrShape, OpId, OpTable, Reg, TraceInst, WarpTrace, MAX_DST, MAX_SRC, UR_BASE,
};
use crate::trace::opcodes::{classify, Arch};
use crate::Result;

use super::lex::{dec_max, hex, hex32, imm, show, signed, Ctx, Toks};

/// What the lines of one kernel file look like, from its header.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineFormat {
    /// Leading decimal fields to skip (4 for tracer versions before 3).
    pub skip: usize,
    pub lineinfo: bool,
    /// A trailing immediate may follow (tracer version 5 and later).
    pub imm: bool,
}

impl LineFormat {
    pub fn for_version(tracer_version: u32, lineinfo: bool) -> Self {
        LineFormat {
            skip: if tracer_version < 3 { 4 } else { 0 },
            lineinfo,
            imm: tracer_version >= 5,
        }
    }
}

/// Interns opcodes fast: the same PC almost always carries the same opcode, so a small
/// direct-mapped cache keyed by PC answers with one byte comparison and no hashing.
/// A new opcode is classified for the architecture and checked ([`check::opcode`]: an unknown
/// one is an error naming it, file and line, unless the policy warns).
pub struct OpCache {
    arch: Arch,
    policy: Policy,
    slots: Vec<(u32, u16, bool)>,
}

const CACHE_SLOTS: usize = 4096;

impl OpCache {
    /// Unknown opcodes are errors ([`Policy::STRICT`]).
    pub fn new(arch: Arch) -> Self {
        Self::with_policy(arch, Policy::STRICT)
    }

    pub fn with_policy(arch: Arch, policy: Policy) -> Self {
        OpCache {
            arch,
            policy,
            slots: vec![(0, 0, false); CACHE_SLOTS],
        }
    }

    #[inline]
    pub fn intern(&mut self, ops: &mut OpTable, pc: u32, name: &[u8], ctx: &Ctx) -> Result<OpId> {
        let slot = ((pc >> 3) as usize) & (CACHE_SLOTS - 1);
        let (spc, sid, valid) = self.slots[slot];
        if valid && spc == pc && ops.get(OpId(sid)).name.as_bytes() == name {
            return Ok(OpId(sid));
        }
        let s = std::str::from_utf8(name)
            .map_err(|_| ctx.err("opcode", format!("not valid UTF-8: {}", show(name))))?;
        let id = match ops.lookup(s) {
            Some(id) => id,
            None => {
                if ops.len() >= u16::MAX as usize {
                    return Err(ctx.err("opcode", "more than 65535 distinct opcodes in one kernel"));
                }
                let info = classify(self.arch, s);
                check::opcode(&info, self.policy).map_err(|m| ctx.err("opcode", m))?;
                ops.push(info)
            }
        };
        self.slots[slot] = (pc, id.0, true);
        Ok(id)
    }
}

/// Parses a register token: `R0`..`R255` or `UR0`..`UR63`.
#[inline]
fn reg(tok: &[u8], ctx: &Ctx, field: &str) -> Result<Reg> {
    let (base, max, digits) = if let Some(d) = tok.strip_prefix(b"UR") {
        (UR_BASE, 63, d)
    } else if let Some(d) = tok.strip_prefix(b"R") {
        (0, 255, d)
    } else {
        return Err(ctx.err(
            field,
            format!("expected a register like R12, found {}", show(tok)),
        ));
    };
    let n = dec_max(digits, ctx, field, max).map_err(|_| {
        ctx.err(
            field,
            format!(
                "expected a register R0..R255 or UR0..UR63, found {}",
                show(tok)
            ),
        )
    })?;
    Ok(base + n as Reg)
}

/// Parses the instruction in `toks` (after any prefix the caller consumed) and appends it, and
/// its addresses, to `warp`.
pub fn parse_inst(
    toks: &mut Toks,
    fmt: &LineFormat,
    ctx: &Ctx,
    ops: &mut OpTable,
    cache: &mut OpCache,
    warp: &mut WarpTrace,
) -> Result<()> {
    let mut inst = TraceInst::default();
    for _ in 0..fmt.skip {
        toks.req(ctx, "thread block / warp prefix")?;
    }
    if fmt.lineinfo {
        inst.line = dec_max(toks.req(ctx, "line_num")?, ctx, "line_num", u32::MAX as u64)? as u32;
    }
    inst.pc = hex32(toks.req(ctx, "pc")?, ctx, "pc")?;
    inst.mask = hex32(toks.req(ctx, "mask")?, ctx, "mask")?;
    let ndst = dec_max(toks.req(ctx, "dest_num")?, ctx, "dest_num", MAX_DST as u64)? as usize;
    for i in 0..ndst {
        inst.dst[i] = reg(toks.req(ctx, "reg_dests")?, ctx, "reg_dests")?;
    }
    inst.ndst = ndst as u8;
    let op = toks.req(ctx, "opcode")?;
    inst.op = cache.intern(ops, inst.pc, op, ctx)?;
    let nsrc = dec_max(toks.req(ctx, "src_num")?, ctx, "src_num", MAX_SRC as u64)? as usize;
    for i in 0..nsrc {
        inst.src[i] = reg(toks.req(ctx, "reg_srcs")?, ctx, "reg_srcs")?;
    }
    inst.nsrc = nsrc as u8;
    inst.mem_width = dec_max(
        toks.req(ctx, "mem_width")?,
        ctx,
        "mem_width",
        u16::MAX as u64,
    )? as u16;
    inst.addr_start = warp.addrs.len() as u32;
    if inst.mem_width > 0 {
        inst.shape = parse_addrs(toks, inst.mask, ctx, &mut warp.addrs)?;
    }
    if let Some(t) = toks.next_tok() {
        if !fmt.imm {
            return Err(ctx.err(
                "end of line",
                format!(
                    "unexpected {} (an immediate needs tracer version 5)",
                    show(t)
                ),
            ));
        }
        inst.imm = imm(t, ctx, "immediate")?;
        inst.flags |= inst_flags::HAS_IMM;
        if let Some(t) = toks.next_tok() {
            return Err(ctx.err(
                "end of line",
                format!("unexpected {} after the immediate", show(t)),
            ));
        }
    }
    warp.insts.push(inst);
    Ok(())
}

/// Decodes the address list of a memory instruction into `out`, one per active lane, and
/// returns its shape.
#[inline]
fn parse_addrs(toks: &mut Toks, mask: u32, ctx: &Ctx, out: &mut Vec<u64>) -> Result<AddrShape> {
    let n = mask.count_ones() as usize;
    let start = out.len();
    let mode = dec_max(toks.req(ctx, "address_mode")?, ctx, "address_mode", 2)?;
    match mode {
        0 => {
            for _ in 0..n {
                out.push(hex(toks.req(ctx, "mem_addresses")?, ctx, "mem_addresses")?);
            }
        }
        1 => {
            let base = hex(toks.req(ctx, "base_address")?, ctx, "base_address")?;
            let stride = signed(toks.req(ctx, "stride")?, ctx, "stride")?;
            let mut a = base;
            for _ in 0..n {
                out.push(a);
                a = a.wrapping_add(stride as u64);
            }
            return Ok(match (n, i32::try_from(stride)) {
                (0, _) => AddrShape::NONE,
                (1, _) => AddrShape::strided(0),
                (_, Ok(s)) => AddrShape::strided(s),
                (_, Err(_)) => AddrShape::NONE,
            });
        }
        _ => {
            let base = hex(toks.req(ctx, "base_address")?, ctx, "base_address")?;
            if n > 0 {
                let mut a = base;
                out.push(a);
                for _ in 1..n {
                    let d = signed(toks.req(ctx, "address_delta")?, ctx, "address_delta")?;
                    a = a.wrapping_add(d as u64);
                    out.push(a);
                }
            }
        }
    }
    Ok(AddrShape::of(&out[start..]))
}
