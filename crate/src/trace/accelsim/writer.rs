//! Writing the model back as Accel-Sim text, byte for byte in the layout the tracer and its
//! post-processor produce (tracer version 4 layout, or 5 with the trailing immediate), so that
//! text -> model -> text -> model is exact and real `.traceg` files are reproduced unchanged.
//!
//! Address mode, chosen as `tracer_tool.cu` does: base + stride (`1 base stride`) when the
//! active lanes form one run of at least two lanes with a constant stride that fits in 32 bits
//! (and `1 0x0 0` for no active lane), otherwise base + deltas (`2 base d1 .. d(n-1)`).
//!
//! Every line is one the NVBit tracer could have written and Accel-Sim's trace parser accepts,
//! whatever the model holds (a generated or compact trace may hold more than the text carries):
//! - at most [`TEXT_MAX_DST`] destination register: the tracer records an instruction's first
//!   operand only, and the parser asserts `dest_num <= 1` (a `LDS.128 R8` written as `1 R8`);
//! - at most [`TEXT_MAX_SRC`] source registers, the parser's limit;
//! - a memory instruction always carries its width and an address mode, even with no active
//!   lane: the tracer writes the width from the opcode (`.64` -> 8, `.U16` -> 2, else 4) and
//!   `1 0x0 0`, and the parser reads a memory instruction with width 0 as an ALU one.

use std::io::Write;

use crate::trace::model::{
    inst_flags, Command, CtaTrace, KernelInfo, KernelStream, KernelTrace, OpTable, TraceInst,
    WarpTrace, UR_BASE,
};
use crate::{Error, Result};

/// The tracer version whose layout the writer uses for `info`: the header's own when it is 3
/// or more, else 4 (versions before 3 carry a per-line prefix that we do not write).
pub fn layout_version(info: &KernelInfo) -> u32 {
    if info.tracer_version >= 3 {
        info.tracer_version
    } else {
        4
    }
}

/// The file name Accel-Sim gives kernel `info`: `kernel-<id>.traceg`.
pub fn kernel_file_name(info: &KernelInfo) -> String {
    format!("kernel-{}.traceg", info.id)
}

fn io_err(e: std::io::Error) -> Error {
    Error::io("<trace output>", e)
}

/// Writes the header and the `#traces format` preamble.
pub fn write_header<W: Write>(w: &mut W, k: &KernelInfo) -> std::io::Result<()> {
    let v = layout_version(k);
    writeln!(w, "-kernel name = {}", k.name)?;
    writeln!(w, "-kernel id = {}", k.id)?;
    writeln!(w, "-grid dim = ({},{},{})", k.grid.x, k.grid.y, k.grid.z)?;
    writeln!(
        w,
        "-block dim = ({},{},{})",
        k.block.x, k.block.y, k.block.z
    )?;
    writeln!(w, "-shmem = {}", k.shmem_bytes)?;
    writeln!(w, "-nregs = {}", k.nregs)?;
    writeln!(w, "-binary version = {}", k.binary_version)?;
    writeln!(w, "-cuda stream id = {}", k.stream_id)?;
    writeln!(w, "-shmem base_addr = 0x{:016x}", k.shmem_base)?;
    writeln!(w, "-local mem base_addr = 0x{:016x}", k.local_base)?;
    writeln!(w, "-nvbit version = {}", k.nvbit_version)?;
    writeln!(w, "-accelsim tracer version = {v}")?;
    if v >= 4 || k.lineinfo {
        writeln!(w, "-enable lineinfo = {}", k.lineinfo as u32)?;
    }
    for (key, val) in &k.extra {
        writeln!(w, "-{key} = {val}")?;
    }
    let imm = if v >= 5 { " immediate" } else { "" };
    write!(
        w,
        "\n#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]{imm}\n\n\n"
    )
}

/// The most destination registers a text line carries (Accel-Sim's `MAX_DST`).
pub const TEXT_MAX_DST: usize = 1;
/// The most source registers a text line carries (Accel-Sim's parser `MAX_SRC`).
pub const TEXT_MAX_SRC: usize = 4;

/// The access width the tracer prints for a memory opcode: the first dot-separated token that
/// is a number of bits (`LDG.E.64` -> 8) or `U` and a number (`LDS.U16` -> 2), else 4 bytes.
pub fn width_from_opcode(name: &str) -> u16 {
    for t in name.split('.').filter(|t| !t.is_empty()) {
        let digits = t.strip_prefix('U').unwrap_or(t);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return digits.parse::<u32>().map_or(4, |bits| (bits / 8) as u16);
        }
    }
    4
}

/// Whether the tracer records addresses for this opcode: it has a memory operand (constant
/// loads read a constant bank, which the tracer does not trace as memory).
pub(super) fn traced_as_memory(op: &crate::trace::model::OpInfo) -> bool {
    op.is_mem() && op.space != crate::trace::model::MemSpace::Constant
}

fn reg_name<W: Write>(w: &mut W, r: u16) -> std::io::Result<()> {
    if r >= UR_BASE {
        write!(w, "UR{} ", r - UR_BASE)
    } else {
        write!(w, "R{r} ")
    }
}

/// The tracer's base + stride test: one contiguous run of >= 2 active lanes, constant stride
/// that fits in an `int`.
fn base_stride(mask: u32, addrs: &[u64]) -> Option<i32> {
    if mask == 0 {
        return Some(0);
    }
    let first = mask.trailing_zeros();
    let run = (mask >> first).trailing_ones();
    if run < 2 || (mask >> first).checked_shr(run).unwrap_or(0) != 0 {
        return None;
    }
    let d = addrs[1].wrapping_sub(addrs[0]) as i64;
    let stride = i32::try_from(d).ok()?;
    addrs
        .windows(2)
        .all(|p| p[1].wrapping_sub(p[0]) as i64 == d)
        .then_some(stride)
}

/// Writes one instruction line.
pub fn write_inst<W: Write>(
    w: &mut W,
    k: &KernelInfo,
    ops: &OpTable,
    warp: &WarpTrace,
    i: &TraceInst,
) -> std::io::Result<()> {
    if k.lineinfo {
        write!(w, "{} ", i.line)?;
    }
    let dsts = &i.dsts()[..i.dsts().len().min(TEXT_MAX_DST)];
    write!(w, "{:04x} {:08x} {} ", i.pc, i.mask, dsts.len())?;
    for &r in dsts {
        reg_name(w, r)?;
    }
    let op = ops.get(i.op);
    let srcs = &i.srcs()[..i.srcs().len().min(TEXT_MAX_SRC)];
    write!(w, "{} {} ", op.name, srcs.len())?;
    for &r in srcs {
        reg_name(w, r)?;
    }
    // A memory instruction with no active lane may be held with width 0 (no addresses); the
    // tracer still writes its width and `1 0x0 0`.
    let width = if i.mem_width == 0 && i.mask == 0 && traced_as_memory(op) {
        width_from_opcode(&op.name)
    } else {
        i.mem_width
    };
    write!(w, "{width} ")?;
    if width > 0 {
        let n = i.mask.count_ones() as usize;
        let s = i.addr_start as usize;
        let addrs = &warp.addrs[s.min(warp.addrs.len())..(s + n).min(warp.addrs.len())];
        if addrs.len() != n {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "instruction has fewer addresses than active lanes",
            ));
        }
        match base_stride(i.mask, addrs) {
            Some(stride) => write!(w, "1 0x{:x} {stride} ", addrs.first().copied().unwrap_or(0))?,
            None => {
                write!(w, "2 0x{:x} ", addrs[0])?;
                for p in addrs.windows(2) {
                    write!(w, "{} ", p[1].wrapping_sub(p[0]) as i64)?;
                }
            }
        }
    }
    if layout_version(k) >= 5 && i.flags & inst_flags::HAS_IMM != 0 {
        if (i.imm as i64) < 0 {
            write!(w, "{} ", i.imm as i64)?;
        } else {
            write!(w, "{} ", i.imm)?;
        }
    }
    writeln!(w)
}

/// Writes one thread block, `#BEGIN_TB` to `#END_TB`.
pub fn write_cta<W: Write>(
    w: &mut W,
    k: &KernelInfo,
    ops: &OpTable,
    cta: &CtaTrace,
) -> std::io::Result<()> {
    write!(
        w,
        "\n#BEGIN_TB\n\nthread block = {},{},{}\n",
        cta.id.x, cta.id.y, cta.id.z
    )?;
    for warp in &cta.warps {
        write!(
            w,
            "\nwarp = {}\ninsts = {}\n",
            warp.warp_id,
            warp.insts.len()
        )?;
        for i in &warp.insts {
            write_inst(w, k, ops, warp, i)?;
        }
    }
    w.write_all(b"\n#END_TB\n")
}

/// Writes a whole kernel from a stream. The op table is read after each CTA, since it grows.
pub fn write_kernel<W: Write>(w: &mut W, s: &mut dyn KernelStream) -> Result<()> {
    write_header(w, s.info()).map_err(io_err)?;
    while let Some(cta) = s.next_cta()? {
        write_cta(w, s.info(), s.ops(), &cta).map_err(io_err)?;
    }
    Ok(())
}

/// Writes an in-memory kernel.
pub fn write_kernel_trace<W: Write>(w: &mut W, k: &KernelTrace) -> Result<()> {
    write_header(w, &k.info).map_err(io_err)?;
    for cta in &k.ctas {
        write_cta(w, &k.info, &k.ops, cta).map_err(io_err)?;
    }
    Ok(())
}

/// Writes `kernelslist.g`: copies as `MemcpyHtoD,0x%016x,bytes`, kernels by file name.
pub fn write_kernelslist<W: Write>(
    w: &mut W,
    commands: &[Command],
    kernel_files: &[String],
) -> Result<()> {
    for c in commands {
        match c {
            Command::MemcpyHtoD { addr, bytes } => writeln!(w, "MemcpyHtoD,0x{addr:016x},{bytes}"),
            Command::Kernel { index } => {
                let f = kernel_files
                    .get(*index)
                    .ok_or_else(|| Error::other(format!("kernel {index} has no file name")))?;
                writeln!(w, "{f}")
            }
        }
        .map_err(io_err)?;
    }
    Ok(())
}

/// Writes a whole source as an Accel-Sim folder: `kernelslist.g` and one `kernel-<id>.traceg`
/// per kernel (`kernel-<id>-<n>.traceg` when ids repeat).
#[cfg(not(target_arch = "wasm32"))]
pub fn write_dir(
    dir: &std::path::Path,
    src: &mut dyn crate::trace::TraceSource,
) -> Result<Vec<String>> {
    let shown = dir.display().to_string();
    std::fs::create_dir_all(dir).map_err(|e| Error::io(&shown, e))?;
    // Every file is written beside its destination and all are renamed into place at the
    // end: a conversion that fails or is stopped midway leaves the old folder as it was.
    let mut staged = crate::outfile::Staged::new();
    let mut names: Vec<String> = Vec::new();
    for k in 0..src.kernel_count() {
        let mut n = kernel_file_name(src.kernel_info(k));
        if names.contains(&n) {
            n = format!("kernel-{}-{k}.traceg", src.kernel_info(k).id);
        }
        let p = dir.join(&n);
        let w = staged.create(&p)?;
        let mut s = src.open_kernel(k)?;
        write_kernel(w, &mut *s)?;
        w.flush()
            .map_err(|e| Error::io(p.display().to_string(), e))?;
        names.push(n);
    }
    let p = dir.join("kernelslist.g");
    let f = staged.create(&p)?;
    write_kernelslist(f, src.commands(), &names)?;
    staged.commit()?;
    Ok(names)
}
