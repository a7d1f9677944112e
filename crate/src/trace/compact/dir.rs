//! The fixed header and trailer of a compact file, and its directory: commands, kernel headers,
//! opcode tables and the chunk index. See FORMAT.md for the byte layout.

use super::bytes::{put_str, put_varint, Cur};
use crate::trace::check;
use crate::trace::model::{
    Command, CtrlSource, Dim3, KernelInfo, LatClass, MemSpace, OpInfo, OpKind, Unit,
};
use crate::Result;

/// The first 8 bytes of every compact file (PNG-style: catches text-mode mangling).
pub const MAGIC: [u8; 8] = *b"\x89WWTRC\r\n";
/// The last 8 bytes of every compact file.
pub const END_MAGIC: [u8; 8] = *b"WWTREND\n";
/// Major version: readers refuse any other. Bumped on every incompatible layout change.
pub const VERSION_MAJOR: u16 = 1;
/// Minor version: writer choices within the major's rules, or additions an older minor's
/// reader refuses (never misreads); readers accept any minor of their major. 1.1: address
/// kind 3 (runs of lanes), and kinds 1/2 only for lists without a shape. 1.2: compiler control
/// bits (the chunks' `cbits` stream, each kernel's control-bit source after the kernels).
pub const VERSION_MINOR: u16 = 2;
/// magic + major + minor + flags.
pub const HEADER_LEN: u64 = 16;
/// dir offset + dir compressed length + dir uncompressed length + dir hash + end magic.
pub const TRAILER_LEN: u64 = 40;

pub fn header_bytes() -> [u8; HEADER_LEN as usize] {
    let mut h = [0u8; HEADER_LEN as usize];
    h[..8].copy_from_slice(&MAGIC);
    h[8..10].copy_from_slice(&VERSION_MAJOR.to_le_bytes());
    h[10..12].copy_from_slice(&VERSION_MINOR.to_le_bytes());
    // bytes 12..16: flags, all reserved (0).
    h
}

/// Where the directory lies, read from the last [`TRAILER_LEN`] bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trailer {
    pub dir_offset: u64,
    pub dir_clen: u64,
    pub dir_ulen: u64,
    pub dir_hash: u64,
}

impl Trailer {
    pub fn to_bytes(self) -> [u8; TRAILER_LEN as usize] {
        let mut t = [0u8; TRAILER_LEN as usize];
        t[0..8].copy_from_slice(&self.dir_offset.to_le_bytes());
        t[8..16].copy_from_slice(&self.dir_clen.to_le_bytes());
        t[16..24].copy_from_slice(&self.dir_ulen.to_le_bytes());
        t[24..32].copy_from_slice(&self.dir_hash.to_le_bytes());
        t[32..40].copy_from_slice(&END_MAGIC);
        t
    }
}

/// One independently compressed chunk of consecutive CTAs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkEntry {
    /// File offset of the zstd frame (derived: chunks follow each other from the header on).
    pub offset: u64,
    pub clen: u64,
    pub ulen: u64,
    /// Index of the chunk's first CTA within its kernel (derived).
    pub first_cta: u64,
    pub n_ctas: u64,
    pub warp_insts: u64,
    /// FNV-1a 64 of the uncompressed chunk.
    pub hash: u64,
}

/// A kernel's directory entry.
#[derive(Clone, Debug, Default)]
pub struct KernelEntry {
    pub info: KernelInfo,
    pub ops: Vec<OpInfo>,
    pub chunks: Vec<ChunkEntry>,
}

impl KernelEntry {
    pub fn n_ctas(&self) -> u64 {
        self.chunks.last().map_or(0, |c| c.first_cta + c.n_ctas)
    }
    pub fn warp_insts(&self) -> u64 {
        self.chunks.iter().map(|c| c.warp_insts).sum()
    }
}

/// Everything the reader knows before decoding any CTA.
#[derive(Clone, Debug, Default)]
pub struct Directory {
    /// The name of the trace the file was converted from.
    pub source_name: String,
    /// Content hash of the decoded trace (see [`crate::trace::MemTrace::trace_hash`]).
    pub trace_hash: u64,
    pub commands: Vec<Command>,
    pub kernels: Vec<KernelEntry>,
}

const LATS: [LatClass; 10] = [
    LatClass::Int,
    LatClass::IntMul,
    LatClass::Fp32,
    LatClass::Fp16,
    LatClass::Dp,
    LatClass::Sfu,
    LatClass::Tensor,
    LatClass::Branch,
    LatClass::Uniform,
    LatClass::Mem,
];
const KINDS: [OpKind; 10] = [
    OpKind::Alu,
    OpKind::Load,
    OpKind::Store,
    OpKind::Atomic,
    OpKind::Reduction,
    OpKind::Barrier,
    OpKind::MemBarrier,
    OpKind::Exit,
    OpKind::Branch,
    OpKind::Nop,
];
/// Control-bit sources by code (1.2).
const CTRL_SOURCES: [CtrlSource; 3] = [CtrlSource::None, CtrlSource::Sass, CtrlSource::Workload];
const SPACES: [MemSpace; 7] = [
    MemSpace::None,
    MemSpace::Global,
    MemSpace::Local,
    MemSpace::Shared,
    MemSpace::Constant,
    MemSpace::Texture,
    MemSpace::Generic,
];

fn code_of<T: PartialEq>(table: &[T], v: &T) -> u8 {
    table.iter().position(|x| x == v).unwrap_or(0) as u8
}

fn pick<T: Copy>(c: &mut Cur<'_>, table: &[T], field: &str) -> Result<T> {
    let b = c.u8(field)?;
    table
        .get(b as usize)
        .copied()
        .ok_or_else(|| c.err(field, format!("code {b} is not one of 0..{}", table.len())))
}

fn put_dim(out: &mut Vec<u8>, d: Dim3) {
    put_varint(out, d.x as u64);
    put_varint(out, d.y as u64);
    put_varint(out, d.z as u64);
}

fn get_dim(c: &mut Cur<'_>, field: &str) -> Result<Dim3> {
    Ok(Dim3::new(
        c.var_u32(field)?,
        c.var_u32(field)?,
        c.var_u32(field)?,
    ))
}

/// `d` when `ok(d)` (a [`check`] of the text reader too), else an error at the cursor.
fn checked<T: Copy>(
    d: T,
    ok: fn(T) -> std::result::Result<(), String>,
    c: &Cur<'_>,
    field: &str,
) -> Result<T> {
    ok(d).map_err(|m| c.err(field, m))?;
    Ok(d)
}

impl Directory {
    pub fn encode(&self) -> Vec<u8> {
        let mut o = Vec::new();
        put_str(&mut o, &self.source_name);
        o.extend_from_slice(&self.trace_hash.to_le_bytes());
        put_varint(&mut o, self.commands.len() as u64);
        for c in &self.commands {
            match *c {
                Command::Kernel { index } => {
                    o.push(0);
                    put_varint(&mut o, index as u64);
                }
                Command::MemcpyHtoD { addr, bytes } => {
                    o.push(1);
                    put_varint(&mut o, addr);
                    put_varint(&mut o, bytes);
                }
            }
        }
        put_varint(&mut o, self.kernels.len() as u64);
        for k in &self.kernels {
            let i = &k.info;
            put_str(&mut o, &i.name);
            put_varint(&mut o, i.id as u64);
            put_dim(&mut o, i.grid);
            put_dim(&mut o, i.block);
            put_varint(&mut o, i.shmem_bytes as u64);
            put_varint(&mut o, i.nregs as u64);
            put_varint(&mut o, i.binary_version as u64);
            put_varint(&mut o, i.stream_id);
            put_varint(&mut o, i.shmem_base);
            put_varint(&mut o, i.local_base);
            put_str(&mut o, &i.nvbit_version);
            put_varint(&mut o, i.tracer_version as u64);
            o.push(i.lineinfo as u8);
            put_varint(&mut o, i.extra.len() as u64);
            for (key, v) in &i.extra {
                put_str(&mut o, key);
                put_str(&mut o, v);
            }
            put_varint(&mut o, k.ops.len() as u64);
            for op in &k.ops {
                put_str(&mut o, &op.name);
                o.push(code_of(&Unit::ALL, &op.unit));
                o.push(code_of(&LATS, &op.lat));
                o.push(code_of(&KINDS, &op.kind));
                o.push(code_of(&SPACES, &op.space));
                o.push(op.unknown as u8);
            }
            put_varint(&mut o, k.chunks.len() as u64);
            for c in &k.chunks {
                put_varint(&mut o, c.clen);
                put_varint(&mut o, c.ulen);
                put_varint(&mut o, c.n_ctas);
                put_varint(&mut o, c.warp_insts);
                o.extend_from_slice(&c.hash.to_le_bytes());
            }
        }
        // 1.2: after the kernels, so that older readers refuse the file ("bytes left over").
        for k in &self.kernels {
            o.push(code_of(&CTRL_SOURCES, &k.info.ctrl_source));
        }
        o
    }

    /// Parses a directory of format 1.`minor`; `chunk_area` is the byte range the chunks must
    /// lie in.
    pub fn decode(
        data: &[u8],
        file: &str,
        chunk_area: (u64, u64),
        minor: u16,
    ) -> Result<Directory> {
        let mut c = Cur::new(data, 0, file, "directory (uncompressed)");
        let source_name = c.string("source name")?;
        let trace_hash = c.u64_le("trace hash")?;
        let n_cmd = c.count("command count", 2)?;
        let mut commands = Vec::with_capacity(n_cmd);
        for _ in 0..n_cmd {
            let tag = c.u8("command tag")?;
            commands.push(match tag {
                0 => Command::Kernel {
                    index: c.var_max("kernel index", u32::MAX as u64)? as usize,
                },
                1 => {
                    let addr = c.varint("memcpy address")?;
                    let bytes = c.varint("memcpy bytes")?;
                    check::memcpy(addr, bytes).map_err(|m| c.err("memcpy bytes", m))?;
                    Command::MemcpyHtoD { addr, bytes }
                }
                t => {
                    return Err(c.err(
                        "command tag",
                        format!("expected 0 (kernel) or 1 (memcpy), found {t}"),
                    ))
                }
            });
        }
        let n_k = c.count("kernel count", 20)?;
        let mut kernels = Vec::with_capacity(n_k);
        let mut offset = chunk_area.0;
        for _ in 0..n_k {
            let info = KernelInfo {
                name: c.string("kernel name")?,
                id: c.var_u32("kernel id")?,
                grid: checked(get_dim(&mut c, "grid dim")?, check::grid, &c, "grid dim")?,
                block: checked(get_dim(&mut c, "block dim")?, check::block, &c, "block dim")?,
                shmem_bytes: c.var_u32("shmem")?,
                nregs: c.var_u32("nregs")?,
                binary_version: c.var_u32("binary version")?,
                stream_id: c.varint("cuda stream id")?,
                shmem_base: c.varint("shmem base_addr")?,
                local_base: c.varint("local mem base_addr")?,
                nvbit_version: c.string("nvbit version")?,
                tracer_version: checked(
                    c.var_u32("accelsim tracer version")?,
                    check::tracer_version,
                    &c,
                    "accelsim tracer version",
                )?,
                lineinfo: match c.u8("enable lineinfo")? {
                    0 => false,
                    1 => true,
                    b => {
                        return Err(c.err("enable lineinfo", format!("expected 0 or 1, found {b}")))
                    }
                },
                extra: {
                    let n = c.count("extra header count", 2)?;
                    let mut v = Vec::with_capacity(n);
                    for _ in 0..n {
                        v.push((
                            c.string("extra header key")?,
                            c.string("extra header value")?,
                        ));
                    }
                    v
                },
                ctrl_source: Default::default(),
            };
            let n_ops = c.count("opcode count", 6)?;
            if n_ops > u16::MAX as usize + 1 {
                return Err(c.err("opcode count", format!("{n_ops} opcodes exceed 65536")));
            }
            let mut ops = Vec::with_capacity(n_ops);
            for _ in 0..n_ops {
                ops.push(OpInfo {
                    name: c.string("opcode name")?,
                    unit: pick(&mut c, &Unit::ALL, "opcode unit")?,
                    lat: pick(&mut c, &LATS, "opcode latency class")?,
                    kind: pick(&mut c, &KINDS, "opcode kind")?,
                    space: pick(&mut c, &SPACES, "opcode memory space")?,
                    unknown: match c.u8("opcode unknown flag")? {
                        0 => false,
                        1 => true,
                        b => {
                            return Err(
                                c.err("opcode unknown flag", format!("expected 0 or 1, found {b}"))
                            )
                        }
                    },
                });
            }
            let n_ch = c.count("chunk count", 12)?;
            let mut chunks = Vec::with_capacity(n_ch);
            let mut first_cta = 0u64;
            for _ in 0..n_ch {
                let clen = c.varint("chunk compressed length")?;
                let ulen = c.varint("chunk uncompressed length")?;
                let n_ctas = c.varint("chunk CTA count")?;
                let warp_insts = c.varint("chunk warp instructions")?;
                let hash = c.u64_le("chunk hash")?;
                let end = offset.checked_add(clen).filter(|&e| e <= chunk_area.1);
                let Some(end) = end else {
                    return Err(c.err(
                        "chunk compressed length",
                        format!("chunk at {offset} of {clen} bytes runs past the chunk area ending at {}", chunk_area.1),
                    ));
                };
                if n_ctas == 0 || n_ctas > ulen {
                    return Err(c.err(
                        "chunk CTA count",
                        format!("{n_ctas} CTAs in a chunk of {ulen} bytes"),
                    ));
                }
                let most = chunk_bytes_at_most(n_ctas, warp_insts);
                if ulen > most {
                    return Err(c.err(
                        "chunk uncompressed length",
                        format!(
                            "{ulen} bytes for {n_ctas} CTAs and {warp_insts} warp instructions: \
                             more than any encoding of them takes (at most {most}); refused \
                             before decompressing"
                        ),
                    ));
                }
                chunks.push(ChunkEntry {
                    offset,
                    clen,
                    ulen,
                    first_cta,
                    n_ctas,
                    warp_insts,
                    hash,
                });
                first_cta += n_ctas;
                offset = end;
            }
            kernels.push(KernelEntry { info, ops, chunks });
        }
        if minor >= 2 {
            for k in &mut kernels {
                k.info.ctrl_source = pick(&mut c, &CTRL_SOURCES, "control-bit source")?;
            }
        }
        if !c.is_empty() {
            return Err(c.err(
                "end",
                format!("{} bytes left over after the last kernel", c.remaining()),
            ));
        }
        if offset != chunk_area.1 {
            return Err(c.err(
                "chunk index",
                format!(
                    "chunks end at byte {offset} but the directory starts at {}",
                    chunk_area.1
                ),
            ));
        }
        for (i, cmd) in commands.iter().enumerate() {
            if let Command::Kernel { index } = cmd {
                if *index >= kernels.len() {
                    return Err(c.err(
                        "command list",
                        format!(
                            "command {i} launches kernel {index} but there are {}",
                            kernels.len()
                        ),
                    ));
                }
            }
        }
        Ok(Directory {
            source_name,
            trace_hash,
            commands,
            kernels,
        })
    }
}

/// The most bytes a directory of a file whose chunks take `chunk_area` bytes may expand to:
/// 16 MiB for what does not grow with the chunks (source name, copies, kernel headers and
/// opcode tables of small traces) and 64 bytes per byte of chunks. A chunk entry takes at
/// most 48 bytes for a zstd frame of at least 9, and every kernel has a chunk, so its header
/// and opcode table (a few hundred bytes) come with at least one frame. A directory claiming
/// more (a small frame of a gigabyte) is refused before it is decompressed.
pub fn dir_bytes_at_most(chunk_area: u64) -> u64 {
    (16u64 << 20).saturating_add(chunk_area.saturating_mul(64))
}

/// The most bytes an uncompressed chunk of `ctas` CTAs and `insts` warp instructions takes:
/// 256 for the stream lengths, 2 KiB per CTA (its header with 32 warps), 1 KiB per instruction
/// (every field at its longest varint, 31 lane deltas and 32 raw addresses come to under 800
/// bytes). A chunk claiming more (a small zstd frame of gigabytes) is refused unread.
pub fn chunk_bytes_at_most(ctas: u64, insts: u64) -> u64 {
    256u64
        .saturating_add(ctas.saturating_mul(2048))
        .saturating_add(insts.saturating_mul(1024))
}
