//! Statistics: plain counters kept per SM (each SM writes only its own, so the SMs of a cycle can
//! be stepped in parallel), merged in SM order afterwards (seed 002: per-SM stats, merged, so the
//! result is identical for any thread count).
//!
//! ```text
//!  Sm[0].stats ─┐
//!  Sm[1].stats ─┼─ merge() in SM order ──> GpuStats ──> SimResult (JSON, summary text)
//!  Sm[n].stats ─┘
//! ```
//!
//! The stall (CPI) stack follows the GCoM taxonomy: every scheduler, every cycle, lands in exactly
//! one bucket: it issued (`base`), or the reason its highest-priority warp could not issue.

pub mod ncu;
pub use ncu::NcuCounters;

use serde::Serialize;

/// Why a scheduler did not issue in a cycle (GCoM taxonomy), or `Issued`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StallKind {
    /// The scheduler issued an instruction (the CPI stack's base component).
    Issued,
    /// No warp assigned to this scheduler (or all of its warps have exited).
    Idle,
    /// The warp's instruction buffer is empty: fetch / I-cache miss.
    IFetch,
    /// Waiting for a branch to resolve.
    Control,
    /// Waiting at a barrier (BAR.SYNC) or a memory barrier.
    Barrier,
    /// Source or destination register pending from a memory instruction.
    MemData,
    /// The memory pipeline (dispatch latch, in-flight table) is full.
    MemStructural,
    /// Source or destination register pending from an ALU instruction (or a WAR hold).
    CompData,
    /// The execution unit is busy (initiation interval) or its result-bus slot is taken.
    CompStructural,
    /// No free operand-collector unit to take the instruction.
    Dispatch,
}

impl StallKind {
    pub const COUNT: usize = 10;
    pub const ALL: [StallKind; StallKind::COUNT] = [
        StallKind::Issued,
        StallKind::Idle,
        StallKind::IFetch,
        StallKind::Control,
        StallKind::Barrier,
        StallKind::MemData,
        StallKind::MemStructural,
        StallKind::CompData,
        StallKind::CompStructural,
        StallKind::Dispatch,
    ];
    pub fn name(self) -> &'static str {
        match self {
            StallKind::Issued => "issued",
            StallKind::Idle => "idle",
            StallKind::IFetch => "ifetch",
            StallKind::Control => "control",
            StallKind::Barrier => "barrier",
            StallKind::MemData => "mem_data",
            StallKind::MemStructural => "mem_struct",
            StallKind::CompData => "comp_data",
            StallKind::CompStructural => "comp_struct",
            StallKind::Dispatch => "dispatch",
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A CPI stack: cycles per [`StallKind`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StallStack(pub [u64; StallKind::COUNT]);

impl StallStack {
    #[inline]
    pub fn add(&mut self, k: StallKind, n: u64) {
        self.0[k.index()] += n;
    }
    pub fn get(&self, k: StallKind) -> u64 {
        self.0[k.index()]
    }
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
    pub fn merge(&mut self, o: &StallStack) {
        for (a, b) in self.0.iter_mut().zip(o.0.iter()) {
            *a += *b;
        }
    }
}

impl Serialize for StallStack {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(StallKind::COUNT))?;
        for k in StallKind::ALL {
            m.serialize_entry(k.name(), &self.0[k.index()])?;
        }
        m.end()
    }
}

/// Counters of one sub-core (processing block).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SubCoreStats {
    pub warp_insts: u64,
    pub thread_insts: u64,
    /// Cycles per stall reason of this sub-core's scheduler.
    pub stalls: StallStack,
    pub l0i_hits: u64,
    pub l0i_misses: u64,
    /// Lines the L0I's stream buffer requested from the L1I (`frontend.prefetch_depth`).
    pub l0i_prefetches: u64,
    /// Operand reads that found no free port in their register bank (one per operand per cycle).
    pub reg_bank_conflicts: u64,
    /// Fixed-latency dispatches delayed because the destination bank had no free write port in
    /// their completion cycle (seed 001 section 2.2).
    pub result_bus_conflicts: u64,
    /// Cycles an issue was held back by a write-after-read hazard (seed 001 section 5.1).
    pub war_holds: u64,
    /// Write-backs that overtook a pending read of an older instruction (only when `war_check`
    /// is off: the hazard Accel-Sim lets through).
    pub war_violations: u64,
    /// Modern core: source operands served by the register-file cache (no bank read).
    pub rfc_hits: u64,
    /// Modern core: cycles issue was held because a read window had to start late (bank
    /// conflicts in the register read window).
    pub read_window_delay: u64,
}

impl SubCoreStats {
    pub fn merge(&mut self, o: &SubCoreStats) {
        self.warp_insts += o.warp_insts;
        self.thread_insts += o.thread_insts;
        self.stalls.merge(&o.stalls);
        self.l0i_hits += o.l0i_hits;
        self.l0i_misses += o.l0i_misses;
        self.l0i_prefetches += o.l0i_prefetches;
        self.reg_bank_conflicts += o.reg_bank_conflicts;
        self.result_bus_conflicts += o.result_bus_conflicts;
        self.war_holds += o.war_holds;
        self.war_violations += o.war_violations;
        self.rfc_hits += o.rfc_hits;
        self.read_window_delay += o.read_window_delay;
    }
}

/// Dispatches and busy cycles (initiation intervals) per execution unit kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UnitStats {
    pub int: UnitCount,
    pub sp: UnitCount,
    pub dp: UnitCount,
    pub sfu: UnitCount,
    pub tensor: UnitCount,
    pub branch: UnitCount,
    pub uniform: UnitCount,
    pub mem: UnitCount,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UnitCount {
    pub dispatches: u64,
    /// Sum of initiation intervals: cycles some pipeline of this kind could not accept.
    pub busy_cycles: u64,
}

impl UnitStats {
    pub fn get_mut(&mut self, unit_index: usize) -> &mut UnitCount {
        match unit_index {
            0 => &mut self.int,
            1 => &mut self.sp,
            2 => &mut self.dp,
            3 => &mut self.sfu,
            4 => &mut self.tensor,
            5 => &mut self.branch,
            6 => &mut self.uniform,
            _ => &mut self.mem,
        }
    }
    pub fn all(&self) -> [(&'static str, UnitCount); 8] {
        [
            ("int", self.int),
            ("sp", self.sp),
            ("dp", self.dp),
            ("sfu", self.sfu),
            ("tensor", self.tensor),
            ("branch", self.branch),
            ("uniform", self.uniform),
            ("mem", self.mem),
        ]
    }
    pub fn get(&self, unit_index: usize) -> UnitCount {
        self.all()[unit_index.min(7)].1
    }
    pub fn merge(&mut self, o: &UnitStats) {
        for i in 0..8 {
            let b = o.get(i);
            let a = self.get_mut(i);
            a.dispatches += b.dispatches;
            a.busy_cycles += b.busy_cycles;
        }
    }
}

/// Memory-pipeline counters of one SM.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemStats {
    pub global_reqs: u64,
    pub local_reqs: u64,
    pub shared_reqs: u64,
    pub const_reqs: u64,
    pub tex_reqs: u64,
    /// Shared-memory wavefronts (a conflict-free access is one).
    pub shmem_wavefronts: u64,
    /// Cycles a coalesced request waited in a request buffer because the memory side refused it.
    pub req_backpressure: u64,
    /// Cycles a completed load waited for the write-back latch / a register port.
    pub wb_stalls: u64,
}

impl MemStats {
    /// Counts a request the memory side took (the pipeline's arbiter and `fast`'s direct
    /// issue count the same way).
    #[inline]
    pub fn count_request(&mut self, req: &crate::mem::MemRequest) {
        use crate::trace::MemSpace;
        match req.space {
            MemSpace::Shared => {
                self.shared_reqs += 1;
                self.shmem_wavefronts += req.shmem_wavefronts as u64;
            }
            MemSpace::Constant => self.const_reqs += 1,
            MemSpace::Local => self.local_reqs += 1,
            MemSpace::Texture => self.tex_reqs += 1,
            _ => self.global_reqs += 1,
        }
    }
}

impl MemStats {
    pub fn merge(&mut self, o: &MemStats) {
        self.global_reqs += o.global_reqs;
        self.local_reqs += o.local_reqs;
        self.shared_reqs += o.shared_reqs;
        self.const_reqs += o.const_reqs;
        self.tex_reqs += o.tex_reqs;
        self.shmem_wavefronts += o.shmem_wavefronts;
        self.req_backpressure += o.req_backpressure;
        self.wb_stalls += o.wb_stalls;
    }
}

/// Issue count and stall cycles attributed to one PC (the stalled warp's head instruction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PcStat {
    pub issued: u64,
    pub stall_cycles: u64,
}

/// Per-kernel-launch counters kept by each SM.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KernelCounters {
    pub warp_insts: u64,
    pub thread_insts: u64,
    pub ctas: u64,
    /// Indexed by `pc / inst_bytes`.
    pub per_pc: Vec<PcStat>,
}

impl KernelCounters {
    pub fn merge(&mut self, o: &KernelCounters) {
        self.warp_insts += o.warp_insts;
        self.thread_insts += o.thread_insts;
        self.ctas += o.ctas;
        if self.per_pc.len() < o.per_pc.len() {
            self.per_pc.resize(o.per_pc.len(), PcStat::default());
        }
        for (a, b) in self.per_pc.iter_mut().zip(o.per_pc.iter()) {
            a.issued += b.issued;
            a.stall_cycles += b.stall_cycles;
        }
    }
}

/// Everything one SM counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SmStats {
    /// Cycles in which this SM had at least one CTA resident.
    pub active_cycles: u64,
    pub warp_insts: u64,
    pub thread_insts: u64,
    pub ctas: u64,
    pub subcores: Vec<SubCoreStats>,
    pub units: UnitStats,
    pub l1i_hits: u64,
    pub l1i_misses: u64,
    pub mem: MemStats,
    /// Indexed by kernel launch number.
    #[serde(skip)]
    pub kernels: Vec<KernelCounters>,
}

impl SmStats {
    pub fn new(subcores: usize) -> Self {
        SmStats {
            subcores: vec![SubCoreStats::default(); subcores],
            ..Default::default()
        }
    }
    /// Adds `o` into `self` (fixed order: call it for SM 0, 1, 2, ...).
    pub fn merge(&mut self, o: &SmStats) {
        self.active_cycles += o.active_cycles;
        self.warp_insts += o.warp_insts;
        self.thread_insts += o.thread_insts;
        self.ctas += o.ctas;
        if self.subcores.len() < o.subcores.len() {
            self.subcores
                .resize(o.subcores.len(), SubCoreStats::default());
        }
        for (a, b) in self.subcores.iter_mut().zip(o.subcores.iter()) {
            a.merge(b);
        }
        self.units.merge(&o.units);
        self.l1i_hits += o.l1i_hits;
        self.l1i_misses += o.l1i_misses;
        self.mem.merge(&o.mem);
        if self.kernels.len() < o.kernels.len() {
            self.kernels
                .resize(o.kernels.len(), KernelCounters::default());
        }
        for (a, b) in self.kernels.iter_mut().zip(o.kernels.iter()) {
            a.merge(b);
        }
    }
    /// The whole SM's stall stack (sum over sub-cores).
    pub fn stalls(&self) -> StallStack {
        let mut s = StallStack::default();
        for c in &self.subcores {
            s.merge(&c.stalls);
        }
        s
    }
    pub fn l0i(&self) -> (u64, u64) {
        self.subcores
            .iter()
            .fold((0, 0), |(h, m), c| (h + c.l0i_hits, m + c.l0i_misses))
    }
    pub fn reg_bank_conflicts(&self) -> u64 {
        self.subcores.iter().map(|c| c.reg_bank_conflicts).sum()
    }
    pub fn result_bus_conflicts(&self) -> u64 {
        self.subcores.iter().map(|c| c.result_bus_conflicts).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_in_order_and_grows() {
        let mut a = SmStats::new(2);
        let mut b = SmStats::new(4);
        b.warp_insts = 7;
        b.subcores[3].stalls.add(StallKind::MemData, 5);
        b.kernels = vec![KernelCounters {
            warp_insts: 3,
            per_pc: vec![PcStat {
                issued: 3,
                stall_cycles: 1,
            }],
            ..Default::default()
        }];
        a.subcores[0].stalls.add(StallKind::MemData, 2);
        a.merge(&b);
        a.merge(&b);
        assert_eq!(a.warp_insts, 14);
        assert_eq!(a.subcores.len(), 4);
        assert_eq!(a.stalls().get(StallKind::MemData), 12);
        assert_eq!(
            a.kernels[0].per_pc[0],
            PcStat {
                issued: 6,
                stall_cycles: 2
            }
        );
        let j = serde_json::to_value(a.stalls()).unwrap();
        assert_eq!(j["mem_data"], 12);
    }
}
