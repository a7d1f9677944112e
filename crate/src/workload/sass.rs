//! SASS spelling per architecture and the code sequences every kernel shares.
//!
//! nvcc writes the same CUDA line differently per target: Volta/Turing (sm_70/75) print global
//! accesses with a `.SYS` scope (`LDG.E.SYS`, `LDG.E.128.SYS`, as in the real `my_app` trace);
//! Ampere and later (sm_80+) drop it and load the global-memory descriptor into a uniform
//! register first (`ULDC.64 UR4, c[0x0][0x118]`).
//!
//! ```text
//!  MOV  R1, c[0x0][0x28]          stack pointer (every kernel starts with it)
//!  S2R  Rc, SR_CTAID.X            blockIdx.x
//!  S2R  Rt, SR_TID.X              threadIdx.x
//!  IMAD Rc, Rc, c[0x0][0x0], Rt   i = blockIdx.x * blockDim.x + threadIdx.x
//!  ISETP.GE.AND P0, PT, Rc, n     i >= n ?
//!  @P0 EXIT                       traced mask: the lanes that leave
//! ```

use super::builder::{r, WarpBuilder};
use super::params::ParamDesc;
use crate::trace::model::Reg;

/// Opcode spellings of one architecture generation.
#[derive(Clone, Copy, Debug)]
pub struct Isa {
    pub ldg: &'static str,
    pub ldg64: &'static str,
    pub ldg128: &'static str,
    pub stg: &'static str,
    pub stg128: &'static str,
    pub red_add: &'static str,
    pub atomg_add: &'static str,
    /// sm_80+: a `ULDC.64` precedes the first global access.
    pub uldc: bool,
}

static VOLTA_TURING: Isa = Isa {
    ldg: "LDG.E.SYS",
    ldg64: "LDG.E.64.SYS",
    ldg128: "LDG.E.128.SYS",
    stg: "STG.E.SYS",
    stg128: "STG.E.128.SYS",
    red_add: "RED.E.ADD.STRONG.GPU",
    atomg_add: "ATOMG.E.ADD.STRONG.GPU",
    uldc: false,
};

static AMPERE: Isa = Isa {
    ldg: "LDG.E",
    ldg64: "LDG.E.64",
    ldg128: "LDG.E.128",
    stg: "STG.E",
    stg128: "STG.E.128",
    red_add: "RED.E.ADD.STRONG.GPU",
    atomg_add: "ATOMG.E.ADD.STRONG.GPU",
    uldc: true,
};

/// The spelling for a binary version (below 80: Volta/Turing, else Ampere and later).
pub fn isa(binary_version: u32) -> &'static Isa {
    if binary_version < 80 {
        &VOLTA_TURING
    } else {
        &AMPERE
    }
}

/// The `binary_version` parameter every workload takes.
pub const BINARY_VERSION: ParamDesc = ParamDesc::num(
    "binary_version",
    "80",
    70,
    90,
    "SM version the SASS is written for: 70-79 spell global accesses LDG.E.SYS (Volta/Turing), 80-90 add ULDC.64 (Ampere+)",
);

/// `MOV R1, c[0x0][0x28]`: the stack pointer, first instruction of every kernel.
pub fn stack_ptr(w: &mut WarpBuilder) {
    w.alu("MOV", &[r(1)], &[]);
}

/// `S2R ctaid; S2R tid; IMAD ctaid = ctaid * blockDim.x + tid`: leaves i in `ctaid`.
pub fn global_index_x(w: &mut WarpBuilder, ctaid: Reg, tid: Reg) {
    w.alu("S2R", &[ctaid], &[]);
    w.alu("S2R", &[tid], &[]);
    w.alu("IMAD", &[ctaid], &[ctaid, tid]);
}

/// `ISETP.GE.AND P0, PT, i, bound, PT; @P0 EXIT` with `oob` the lanes out of bounds.
/// Returns true while some lane is still active.
pub fn bounds_exit(w: &mut WarpBuilder, i: Reg, oob: u32) -> bool {
    w.alu("ISETP.GE.AND", &[], &[i]);
    w.exit_if(oob)
}

/// `ULDC.64 UR4, c[0x0][0x118]` on sm_80+ (nothing before).
pub fn uldc(w: &mut WarpBuilder, isa: &Isa) {
    if isa.uldc {
        w.alu("ULDC.64", &[super::builder::ur(4)], &[]);
    }
}
