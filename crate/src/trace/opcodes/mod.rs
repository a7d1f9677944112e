//! Opcode classes per architecture: which unit an opcode goes to, its latency class, what it
//! does and which memory space it addresses.
//!
//! The reference is Accel-Sim's `gpu-simulator/ISA_Def/*_opcode.h` tables (one map per binary
//! version: Pascal 60/61, Volta 70, Turing 75, Ampere 80/86, Hopper 90); Ada (89) uses the
//! Ampere table. An opcode is looked up by its base name (the text before the first `.`).
//!
//! ```text
//!  "LDG.E.128.SYS" ──base──> "LDG" ──table(arch)──> Unit::Mem, LatClass::Mem, Load, Global
//!  "IMAD.WIDE.U32" ──base──> "IMAD" ─────────────> Unit::Int, LatClass::IntMul, Alu
//!  "FOO.BAR"       ──base──> "FOO"  (not found) ──> Unit::Int, LatClass::Int, unknown = true
//! ```
//!
//! Where we differ from Accel-Sim (DEVIATIONS):
//! - control flow goes to `Unit::Branch` on every architecture (Accel-Sim: Pascal runs it on the
//!   integer pipe); a GPU config without a branch unit sends it back to `int`;
//! - texture fetches are `Unit::Mem` / `MemSpace::Texture` (Accel-Sim: ALU on Pascal);
//! - multiplies (IMAD, IMUL, XMAD, ...) use `LatClass::IntMul` and half-precision ops
//!   `LatClass::Fp16`, so a config can time them separately;
//! - a generic access with no shared/local window known is global (Accel-Sim: shared).

mod tables;

use serde::{Deserialize, Serialize};

use crate::trace::model::{KernelInfo, LatClass, MemSpace, OpInfo, OpKind, Unit};

/// A GPU architecture generation, selecting the opcode table.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Arch {
    Pascal,
    Volta,
    #[default]
    Turing,
    Ampere,
    Ada,
    Hopper,
}

impl Arch {
    pub const ALL: [Arch; 6] = [
        Arch::Pascal,
        Arch::Volta,
        Arch::Turing,
        Arch::Ampere,
        Arch::Ada,
        Arch::Hopper,
    ];

    /// The architecture of a `-binary version` (compute capability times ten), or `None` for 0
    /// and versions outside 60..=99.
    pub fn from_binary_version(v: u32) -> Option<Arch> {
        match v {
            60..=69 => Some(Arch::Pascal),
            70..=74 => Some(Arch::Volta),
            75..=79 => Some(Arch::Turing),
            80..=88 => Some(Arch::Ampere),
            89 => Some(Arch::Ada),
            90..=99 => Some(Arch::Hopper),
            _ => None,
        }
    }

    /// The architecture of a binary version, falling back to `default` for 0 or unknown
    /// versions (some real traces say `binary version = 0`).
    pub fn resolve(binary_version: u32, default: Arch) -> Arch {
        Arch::from_binary_version(binary_version).unwrap_or(default)
    }

    /// Parses a config name (`pascal`, `volta`, `turing`, `ampere`, `ada`, `hopper`).
    pub fn from_name(s: &str) -> Option<Arch> {
        Arch::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s.trim()))
    }

    pub fn name(self) -> &'static str {
        match self {
            Arch::Pascal => "pascal",
            Arch::Volta => "volta",
            Arch::Turing => "turing",
            Arch::Ampere => "ampere",
            Arch::Ada => "ada",
            Arch::Hopper => "hopper",
        }
    }

    /// A representative binary version of this architecture.
    pub fn binary_version(self) -> u32 {
        match self {
            Arch::Pascal => 61,
            Arch::Volta => 70,
            Arch::Turing => 75,
            Arch::Ampere => 86,
            Arch::Ada => 89,
            Arch::Hopper => 90,
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The base name of an opcode: the text before the first `.` (`LDG.E.128` -> `LDG`).
pub fn base_name(op: &str) -> &str {
    op.split('.').next().unwrap_or(op)
}

/// Classifies one opcode string for `arch`. Unknown opcodes come back as integer ALU work with
/// `unknown = true`, so a trace with new SASS still runs and the report can count them (or a
/// reader refuses them: `trace::check::opcode`). An opcode with a byte that is not printable
/// ASCII (a NUL, a space) is never a real one, whatever its base name.
pub fn classify(arch: Arch, op: &str) -> OpInfo {
    let base = base_name(op);
    let printable = op.bytes().all(|b| b.is_ascii_graphic());
    let class = tables::lookup(arch.bit(), base).filter(|_| printable);
    let (c, unknown) = match class {
        Some(c) => (c, false),
        None => (tables::INT, true),
    };
    let mut info = OpInfo {
        name: op.to_string(),
        unit: c.unit,
        lat: c.lat,
        kind: c.kind,
        space: c.space,
        unknown,
    };
    refine(&mut info, base, op);
    info
}

/// Variants whose class depends on the suffixes, not the base name.
fn refine(info: &mut OpInfo, base: &str, op: &str) {
    match base {
        // UBLKCP.S.G: shared -> global is a store to global; G.S is a load from global.
        "UBLKCP" if op.contains(".S.G") => info.kind = OpKind::Store,
        _ => {}
    }
}

/// The shared-memory and local-memory windows of the generic address space, from the kernel
/// header (`-shmem base_addr`, `-local mem base_addr`). The SM calls [`GenericWindows::resolve`]
/// per address of a generic LD/ST/ATOM to find where it goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenericWindows {
    pub shmem_base: u64,
    pub shmem_end: u64,
    pub local_base: u64,
    pub local_end: u64,
}

/// Size of each generic window (16 MiB), clamped so the two never overlap.
pub const GENERIC_WINDOW_BYTES: u64 = 1 << 24;

impl GenericWindows {
    pub fn new(shmem_base: u64, local_base: u64) -> Self {
        let size_after = |base: u64, other: u64| -> u64 {
            let mut size = GENERIC_WINDOW_BYTES;
            if other > base {
                size = size.min(other - base);
            }
            base.saturating_add(size)
        };
        let (shmem_end, local_end) = if shmem_base == 0 || local_base == 0 {
            // Unknown bases: an empty window matches nothing.
            (
                if shmem_base == 0 {
                    0
                } else {
                    size_after(shmem_base, local_base)
                },
                if local_base == 0 {
                    0
                } else {
                    size_after(local_base, shmem_base)
                },
            )
        } else {
            (
                size_after(shmem_base, local_base),
                size_after(local_base, shmem_base),
            )
        };
        GenericWindows {
            shmem_base,
            shmem_end,
            local_base,
            local_end,
        }
    }

    pub fn from_info(k: &KernelInfo) -> Self {
        GenericWindows::new(k.shmem_base, k.local_base)
    }

    /// Where one generic address goes: shared, local or global. No allocation, no branching
    /// beyond two range checks: cheap enough per address on the hot path.
    #[inline]
    pub fn resolve(&self, addr: u64) -> MemSpace {
        if addr >= self.shmem_base && addr < self.shmem_end {
            MemSpace::Shared
        } else if addr >= self.local_base && addr < self.local_end {
            MemSpace::Local
        } else {
            MemSpace::Global
        }
    }
}

/// Resolves an op's space for one address: generic ops through the windows, others unchanged.
#[inline]
pub fn space_of(info: &OpInfo, windows: &GenericWindows, addr: u64) -> MemSpace {
    if info.space == MemSpace::Generic {
        windows.resolve(addr)
    } else {
        info.space
    }
}

/// A classification as a tuple, for compact tests.
pub fn class_tuple(i: &OpInfo) -> (Unit, LatClass, OpKind, MemSpace) {
    (i.unit, i.lat, i.kind, i.space)
}

#[cfg(test)]
mod tests;
