//! Opcode classification for the generated kernels.
//!
//! A small local stand-in for the per-architecture opcode tables (`crate::trace::opcodes`, being
//! written on another branch): it knows exactly the opcodes the built-in workloads emit. When the
//! shared tables land, [`intern`] switches to them and this table goes.

use crate::trace::model::{LatClass, MemSpace, OpId, OpInfo, OpKind, OpTable, Unit};

/// Interns `name` into `ops`, classifying it the first time.
pub fn intern(ops: &mut OpTable, name: &str, _binary_version: u32) -> OpId {
    ops.intern_with(name, classify)
}

/// Unit, latency class, kind and memory space of an opcode the workloads emit.
pub fn classify(name: &str) -> OpInfo {
    let base = name.split('.').next().unwrap_or(name);
    let (unit, lat, kind, space) = match base {
        "LDG" => (Unit::Mem, LatClass::Mem, OpKind::Load, MemSpace::Global),
        "STG" => (Unit::Mem, LatClass::Mem, OpKind::Store, MemSpace::Global),
        "LDS" => (Unit::Mem, LatClass::Mem, OpKind::Load, MemSpace::Shared),
        "STS" => (Unit::Mem, LatClass::Mem, OpKind::Store, MemSpace::Shared),
        "LDL" => (Unit::Mem, LatClass::Mem, OpKind::Load, MemSpace::Local),
        "STL" => (Unit::Mem, LatClass::Mem, OpKind::Store, MemSpace::Local),
        "LDC" => (Unit::Mem, LatClass::Mem, OpKind::Load, MemSpace::Constant),
        "ATOMG" | "ATOM" => (Unit::Mem, LatClass::Mem, OpKind::Atomic, MemSpace::Global),
        "ATOMS" => (Unit::Mem, LatClass::Mem, OpKind::Atomic, MemSpace::Shared),
        "RED" => (
            Unit::Mem,
            LatClass::Mem,
            OpKind::Reduction,
            MemSpace::Global,
        ),
        "BAR" => (
            Unit::Branch,
            LatClass::Branch,
            OpKind::Barrier,
            MemSpace::None,
        ),
        "MEMBAR" => (Unit::Mem, LatClass::Mem, OpKind::MemBarrier, MemSpace::None),
        "EXIT" => (Unit::Branch, LatClass::Branch, OpKind::Exit, MemSpace::None),
        "BRA" | "BSSY" | "BSYNC" | "WARPSYNC" => (
            Unit::Branch,
            LatClass::Branch,
            OpKind::Branch,
            MemSpace::None,
        ),
        "NOP" => (Unit::Int, LatClass::Int, OpKind::Nop, MemSpace::None),
        "FFMA" | "FADD" | "FMUL" | "FMNMX" | "FSETP" => {
            (Unit::Sp, LatClass::Fp32, OpKind::Alu, MemSpace::None)
        }
        "IMAD" | "IMUL" => (Unit::Sp, LatClass::IntMul, OpKind::Alu, MemSpace::None),
        "MUFU" | "I2F" | "F2I" => (Unit::Sfu, LatClass::Sfu, OpKind::Alu, MemSpace::None),
        "SHFL" => (Unit::Mem, LatClass::Mem, OpKind::Alu, MemSpace::None),
        "ULDC" | "UMOV" | "UIADD3" => (
            Unit::Uniform,
            LatClass::Uniform,
            OpKind::Alu,
            MemSpace::None,
        ),
        _ => (Unit::Int, LatClass::Int, OpKind::Alu, MemSpace::None),
    };
    OpInfo {
        name: name.to_string(),
        unit,
        lat,
        kind,
        space,
        unknown: false,
    }
}
