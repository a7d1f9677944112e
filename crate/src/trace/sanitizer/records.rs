//! The tracer's binary records file (`tests/hardware/tracer/wwtrace_format.h`, version 1).
//!
//! ```text
//!  "WWSANTR1" u32 version=1 u32 record_size=32
//!  per kernel: "KERN" u32 name_len u32 grid[3] u32 block[3] u32 dyn_shmem u32 reserved
//!              u64 func_pc u64 records u64 dropped, name bytes, records x 32 B
//!  record:     u64 pc (from the function start) u64 addr u32 cta u16 warp u8 lane u8 kind
//!              u8 size u8 flags u16 reserved u32 mask
//! ```
//! Errors name the file, the record (or header field) and what was expected.

use crate::trace::check;
use crate::trace::model::Dim3;
use crate::{Error, Result};

pub const FILE_MAGIC: &[u8; 8] = b"WWSANTR1";
pub const KERNEL_MAGIC: &[u8; 4] = b"KERN";
pub const VERSION: u32 = 1;
pub const RECORD_SIZE: usize = 32;
const KERNEL_HEADER: usize = 64;

/// What a record reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One lane's memory access.
    Mem,
    /// A warp entered the kernel (`mask`: its active lanes).
    BlockEnter,
    /// Lanes of a warp (`mask`) executed the EXIT at `pc`.
    BlockExit,
    /// A warp reached the barrier at `pc`.
    Barrier,
}

/// Memory space of a [`Kind::Mem`] record (flags bits 4-5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    /// `addr` is the offset in the CTA's shared window.
    Shared,
    /// `addr` is the offset in the thread's local window.
    Local,
}

pub mod flag {
    pub const READ: u8 = 1;
    pub const WRITE: u8 = 2;
    pub const ATOMIC: u8 = 4;
    pub const SPACE_SHIFT: u8 = 4;
}

/// One record as the tracer wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub pc: u64,
    pub addr: u64,
    pub cta: u32,
    pub warp: u16,
    pub lane: u8,
    pub kind: Kind,
    pub size: u8,
    pub flags: u8,
    pub mask: u32,
}

impl Record {
    pub fn space(&self) -> Space {
        match (self.flags >> flag::SPACE_SHIFT) & 3 {
            1 => Space::Shared,
            2 => Space::Local,
            _ => Space::Global,
        }
    }
    /// The 32 bytes of this record (tests build record files with it).
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let mut b = [0u8; RECORD_SIZE];
        b[0..8].copy_from_slice(&self.pc.to_le_bytes());
        b[8..16].copy_from_slice(&self.addr.to_le_bytes());
        b[16..20].copy_from_slice(&self.cta.to_le_bytes());
        b[20..22].copy_from_slice(&self.warp.to_le_bytes());
        b[22] = self.lane;
        b[23] = match self.kind {
            Kind::Mem => 0,
            Kind::BlockEnter => 1,
            Kind::BlockExit => 2,
            Kind::Barrier => 3,
        };
        b[24] = self.size;
        b[25] = self.flags;
        b[28..32].copy_from_slice(&self.mask.to_le_bytes());
        b
    }
}

/// One launched kernel's records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelRecords {
    pub name: String,
    pub grid: Dim3,
    pub block: Dim3,
    pub dyn_shmem: u32,
    pub func_pc: u64,
    /// Records the device buffer had no room for.
    pub dropped: u64,
    pub records: Vec<Record>,
    /// Number of this kernel's first record in the file, 1-based (for error messages).
    pub first_record: u64,
}

impl KernelRecords {
    /// The kernel header and name as the tracer writes them (tests build files with it).
    pub fn header_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(KERNEL_HEADER + self.name.len());
        b.extend_from_slice(KERNEL_MAGIC);
        b.extend_from_slice(&(self.name.len() as u32).to_le_bytes());
        for v in [
            self.grid.x,
            self.grid.y,
            self.grid.z,
            self.block.x,
            self.block.y,
            self.block.z,
            self.dyn_shmem,
            0,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&self.func_pc.to_le_bytes());
        b.extend_from_slice(&(self.records.len() as u64).to_le_bytes());
        b.extend_from_slice(&self.dropped.to_le_bytes());
        b.extend_from_slice(self.name.as_bytes());
        b
    }
}

/// A whole records file (tests and tools build one in memory).
pub fn encode(kernels: &[KernelRecords]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(FILE_MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.extend_from_slice(&(RECORD_SIZE as u32).to_le_bytes());
    for k in kernels {
        b.extend_from_slice(&k.header_bytes());
        for r in &k.records {
            b.extend_from_slice(&r.to_bytes());
        }
    }
    b
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[o..o + 8]);
    u64::from_le_bytes(a)
}

/// Parses a records file. `file` names it in errors; the "line" of an error is the record
/// number in the file (1-based, counted over all kernels; a kernel header error names the
/// number its first record would have), or 0 for the file header.
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<KernelRecords>> {
    let err = |rec: u64, field: &str, msg: String| Error::parse(file, rec, field, msg);
    if bytes.len() < 16 || &bytes[0..8] != FILE_MAGIC {
        return Err(err(
            0,
            "magic",
            "expected a warpweave sanitizer records file starting with \"WWSANTR1\"".into(),
        ));
    }
    let version = u32_at(bytes, 8);
    if version != VERSION {
        return Err(err(0, "version", format!("{version}, expected {VERSION}")));
    }
    let rsize = u32_at(bytes, 12) as usize;
    if rsize != RECORD_SIZE {
        return Err(err(
            0,
            "record_size",
            format!("{rsize}, expected {RECORD_SIZE}"),
        ));
    }
    let mut at = 16usize;
    let mut out = Vec::new();
    let mut rec_no = 1u64;
    while at < bytes.len() {
        let kernel_no = out.len();
        let field = |f: &str| format!("kernel {kernel_no} {f}");
        if bytes.len() - at < KERNEL_HEADER || &bytes[at..at + 4] != KERNEL_MAGIC {
            return Err(err(
                rec_no,
                &field("header"),
                format!("expected a 64-byte kernel header starting with \"KERN\" at byte {at}"),
            ));
        }
        let h = &bytes[at..at + KERNEL_HEADER];
        let name_len = u32_at(h, 4) as usize;
        let dim = |o: usize| Dim3::new(u32_at(h, o), u32_at(h, o + 4), u32_at(h, o + 8));
        let (grid, block) = (dim(8), dim(20));
        let dyn_shmem = u32_at(h, 32);
        let func_pc = u64_at(h, 40);
        let n = u64_at(h, 48);
        let dropped = u64_at(h, 56);
        if block.count() == 0 || block.count() > 1024 {
            return Err(err(
                rec_no,
                &field("shape"),
                format!("grid {grid:?} block {block:?}: expected non-empty, at most 1024 threads"),
            ));
        }
        // As every trace reader checks a grid; records number CTAs in 32 bits.
        check::grid(grid).map_err(|m| err(rec_no, &field("grid"), m))?;
        if grid.count() > u32::MAX as u64 + 1 {
            return Err(err(
                rec_no,
                &field("grid"),
                format!("{grid}: more CTAs than records can number (2^32)"),
            ));
        }
        at += KERNEL_HEADER;
        let name = bytes
            .get(at..at + name_len)
            .and_then(|s| std::str::from_utf8(s).ok())
            .ok_or_else(|| {
                err(
                    rec_no,
                    &field("name"),
                    format!("expected {name_len} bytes of UTF-8 at byte {at}"),
                )
            })?
            .to_string();
        at += name_len;
        let need = (n as usize).checked_mul(RECORD_SIZE);
        if need.is_none_or(|need| bytes.len() - at < need) {
            return Err(err(
                rec_no,
                &field("records"),
                format!(
                    "{name}: header says {n} records, the file holds {} more bytes",
                    bytes.len() - at
                ),
            ));
        }
        let first_record = rec_no;
        let warps = block.count().div_ceil(32);
        let mut records = Vec::with_capacity(n as usize);
        for i in 0..n as usize {
            let b = &bytes[at + i * RECORD_SIZE..at + (i + 1) * RECORD_SIZE];
            let kind = match b[23] {
                0 => Kind::Mem,
                1 => Kind::BlockEnter,
                2 => Kind::BlockExit,
                3 => Kind::Barrier,
                k => {
                    return Err(err(
                        rec_no,
                        "kind",
                        format!("{k}, expected 0 (memory), 1 (enter), 2 (exit) or 3 (barrier)"),
                    ))
                }
            };
            let r = Record {
                pc: u64_at(b, 0),
                addr: u64_at(b, 8),
                cta: u32_at(b, 16),
                warp: u16::from_le_bytes([b[20], b[21]]),
                lane: b[22],
                kind,
                size: b[24],
                flags: b[25],
                mask: u32_at(b, 28),
            };
            if r.cta as u64 >= grid.count() {
                return Err(err(
                    rec_no,
                    "cta",
                    format!("{}, expected < {} (grid {grid:?})", r.cta, grid.count()),
                ));
            }
            if r.warp as u64 >= warps || r.lane >= 32 {
                return Err(err(
                    rec_no,
                    "warp/lane",
                    format!(
                        "warp {} lane {}, expected warp < {warps} and lane < 32",
                        r.warp, r.lane
                    ),
                ));
            }
            if kind == Kind::Mem && !matches!(r.size, 1 | 2 | 4 | 8 | 16) {
                return Err(err(
                    rec_no,
                    "size",
                    format!("{}, expected 1, 2, 4, 8 or 16 bytes", r.size),
                ));
            }
            records.push(r);
            rec_no += 1;
        }
        at += n as usize * RECORD_SIZE;
        out.push(KernelRecords {
            name,
            grid,
            block,
            dyn_shmem,
            func_pc,
            dropped,
            records,
            first_record,
        });
    }
    Ok(out)
}
