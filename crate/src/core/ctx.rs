//! Read-only context the SMs of a cycle share: the running kernels, each with its opcode table
//! pre-resolved into [`OpClass`] (unit, timing, kind) so the hot path never looks at strings.

use crate::config::GpuConfig;
use crate::trace::{KernelInfo, LatClass, MemSpace, OpKind, OpTable, Unit};

/// Execution-unit kinds, in the order of [`Unit::ALL`].
pub const NUM_UNITS: usize = 8;
pub const U_INT: usize = 0;
pub const U_SP: usize = 1;
pub const U_DP: usize = 2;
pub const U_BRANCH: usize = 5;
pub const U_MEM: usize = 7;

/// Index of a unit kind in per-unit arrays.
pub fn unit_index(u: Unit) -> usize {
    match u {
        Unit::Int => 0,
        Unit::Sp => 1,
        Unit::Dp => 2,
        Unit::Sfu => 3,
        Unit::Tensor => 4,
        Unit::Branch => 5,
        Unit::Uniform => 6,
        Unit::Mem => 7,
    }
}

/// An opcode, resolved against the configuration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpClass {
    /// Unit index (`unit_index`), already redirected to INT when the unit does not exist.
    pub unit: u8,
    pub kind: OpKind,
    pub space: MemSpace,
    /// Cycles from issue to the cycle a dependent instruction may issue (no conflicts).
    pub latency: u32,
    /// Cycles the pipeline is busy before it accepts the next warp instruction.
    pub interval: u32,
}

impl OpClass {
    #[inline]
    pub fn is_mem(&self) -> bool {
        self.space != MemSpace::None
            || matches!(
                self.kind,
                OpKind::Load | OpKind::Store | OpKind::Atomic | OpKind::Reduction
            )
    }
    /// Instructions that never occupy a collector unit: they act at issue.
    #[inline]
    pub fn acts_at_issue(&self) -> bool {
        matches!(
            self.kind,
            OpKind::Barrier | OpKind::MemBarrier | OpKind::Exit | OpKind::Nop
        )
    }

    /// Resolves one opcode.
    pub fn resolve(info: &crate::trace::OpInfo, cfg: &GpuConfig) -> OpClass {
        let u = &cfg.units;
        let count = |unit: Unit| match unit {
            Unit::Int => u.int.count,
            Unit::Sp => u.sp.count,
            Unit::Dp => u.dp.count,
            Unit::Sfu => u.sfu.count,
            Unit::Tensor => u.tensor.count,
            Unit::Branch => u.branch.count,
            Unit::Uniform => u.uniform.count,
            Unit::Mem => u.mem.count.max(1),
        };
        let width = |unit: Unit| match unit {
            Unit::Int => u.int.width,
            Unit::Sp => u.sp.width,
            Unit::Dp => u.dp.width,
            Unit::Sfu => u.sfu.width,
            Unit::Tensor => u.tensor.width,
            Unit::Branch => u.branch.width,
            Unit::Uniform => u.uniform.width,
            Unit::Mem => u.mem.width,
        };
        let mut unit = if info.unknown { Unit::Int } else { info.unit };
        let mut lat = info.lat;
        if count(unit) == 0 {
            unit = Unit::Int;
            lat = LatClass::Int;
        }
        let t = cfg.latency.of(lat);
        // The initiation interval: the config's per-class value, at least what the pipeline
        // width implies (a 16-lane pipe needs 2 cycles for 32 threads).
        let by_width = 32u32.div_ceil(width(unit).max(1));
        let interval = t.interval.max(by_width).max(1);
        OpClass {
            unit: unit_index(unit) as u8,
            kind: info.kind,
            space: info.space,
            latency: t.latency.max(1),
            interval,
        }
    }
}

/// A kernel launch as the SMs see it.
#[derive(Clone, Debug, Default)]
pub struct KernelCtx {
    /// Launch number (index into the engine's launch list and the per-kernel stats).
    pub launch: u32,
    pub info: KernelInfo,
    pub ops: Vec<OpClass>,
    /// Opcode names, for reports (deadlock, per-PC tables).
    pub op_names: Vec<String>,
    /// Base address of this kernel's code in the instruction address space.
    pub code_base: u64,
    /// Number of per-PC slots (`max pc / inst_bytes + 1`).
    pub pc_slots: usize,
    /// Registers per warp after allocation-unit rounding.
    pub regs_per_warp: u32,
    /// Shared memory per CTA after rounding, bytes.
    pub shmem_per_cta: u32,
    /// Most CTAs of this kernel one SM may hold (occupancy).
    pub max_ctas_per_sm: u32,
}

impl KernelCtx {
    /// Re-resolves the opcode table (it may grow while CTAs are decoded).
    pub fn refresh_ops(&mut self, ops: &OpTable, cfg: &GpuConfig) {
        for (id, info) in ops.iter().skip(self.ops.len()) {
            debug_assert_eq!(id.0 as usize, self.ops.len());
            self.ops.push(OpClass::resolve(info, cfg));
            self.op_names.push(info.name.clone());
        }
    }
}

/// What every SM may read during a cycle.
#[derive(Clone, Copy)]
pub struct StepCtx<'a> {
    /// Indexed by launch number.
    pub kernels: &'a [KernelCtx],
}
