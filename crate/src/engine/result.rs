//! The result of a simulation: everything needed to reproduce and read it (tool version,
//! effective config, model choice, trace identity) plus per-kernel and total statistics.

use std::fmt::Write;

use serde::Serialize;

use super::model::ModelChoice;
use super::occupancy::Occupancy;
use super::Gpu;
use crate::config::GpuConfig;
use crate::stats::{NcuCounters, SmStats, StallKind, StallStack, SubCoreStats};
use crate::trace::Dim3;
use crate::Cycle;

#[derive(Clone, Debug, Serialize)]
pub struct TraceId {
    pub name: String,
    pub hash: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct PcRow {
    pub pc: u32,
    pub issued: u64,
    pub stall_cycles: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct KernelResult {
    pub launch: u32,
    pub name: String,
    pub id: u32,
    pub stream: u64,
    pub grid: Dim3,
    pub block: Dim3,
    pub ctas: u64,
    pub launched_at: Cycle,
    pub end_at: Cycle,
    /// Cycles from launch to the last CTA's completion, as Nsight Compute's
    /// `sm__cycles_elapsed.max` counts them: `launch_cycles + exec_cycles`.
    pub cycles: u64,
    /// The kernel's duration in cycles, to compare with a measured kernel duration (Nsight
    /// Systems, CUPTI activity timestamps) times the clock: `cycles` less the part of the
    /// launch only Nsight Compute counts (`sm.launch_ncu_only`).
    pub duration_cycles: u64,
    /// Cycles from the launch to the first CTA's issue: the launch overhead
    /// (`sm.kernel_launch_latency`, or longer while earlier kernels hold the SMs).
    pub launch_cycles: u64,
    /// Cycles from the first CTA's issue to the last CTA's completion: the kernel's body, as
    /// clock reads at its start and end bracket it.
    pub exec_cycles: u64,
    pub warp_insts: u64,
    pub thread_insts: u64,
    /// Warp instructions per cycle over the kernel's lifetime (whole GPU).
    pub ipc: f64,
    pub occupancy: Occupancy,
    /// Where the kernel's control bits came from (`none`: the modern core used its
    /// scoreboard and inferred reuse flags).
    pub control_bits: &'static str,
    /// Every PC that issued or stalled: issue count and stall cycles attributed to it.
    pub per_pc: Vec<PcRow>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SmSummary {
    pub id: u32,
    pub warp_insts: u64,
    pub active_cycles: u64,
    /// Warp instructions per active cycle.
    pub ipc: f64,
    pub subcore_ipc: Vec<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SimResult {
    pub tool: &'static str,
    pub version: &'static str,
    pub model: ModelChoice,
    /// The SM core model that ran (`core.model`; `event` when the analytical front end
    /// replaced the cycle core's issue stage).
    pub core: &'static str,
    pub trace: TraceId,
    pub cycles: u64,
    pub seconds: f64,
    pub warp_insts: u64,
    pub thread_insts: u64,
    /// Warp instructions per cycle, whole GPU.
    pub ipc: f64,
    pub kernels: Vec<KernelResult>,
    /// CPI stack summed over all schedulers (scheduler-cycles per reason).
    pub stall_stack: StallStack,
    pub totals: SmStats,
    pub per_sm: Vec<SmSummary>,
    pub memcpys: u64,
    /// The cycle memory system's counters (absent with the analytical memory model).
    pub memory: Option<MemSystemResult>,
    /// Cycles, instructions and the memory counters under Nsight Compute's names (the memory
    /// ones absent with the analytical memory model).
    pub counters: NcuCounters,
    /// Input problems worked around (e.g. an impossible register count in a trace header).
    pub warnings: Vec<String>,
    /// What dominates this result and a newcomer would misread (launch overhead, inputs
    /// warmed into the L2, an L1 size the carve-out replaced, a mode's known error),
    /// one sentence each (`engine::notes`).
    pub notes: Vec<String>,
    pub config: GpuConfig,
}

/// The Nsight Compute counters of a timing run (memory ones from the cycle memory system).
fn counters(
    cycles: u64,
    warp_insts: u64,
    m: Option<&MemSystemResult>,
    cfg: &GpuConfig,
) -> NcuCounters {
    let Some(m) = m else {
        return NcuCounters {
            cycles: Some(cycles),
            warp_insts: Some(warp_insts),
            ..Default::default()
        };
    };
    let sb = cfg.l2.cache.sector_bytes.max(1) as u64;
    let d = &m.partitions.dram;
    NcuCounters::from_caches(
        Some(cycles),
        Some(warp_insts),
        &m.sm.l1,
        &m.partitions.l2,
        (d.read_bytes / sb, d.write_bytes / sb),
    )
}

/// Counters of the cycle memory system: the SMs' side merged in SM order, and the partitions.
#[derive(Clone, Debug, Serialize)]
pub struct MemSystemResult {
    pub sm: crate::mem::SmMemStats,
    pub partitions: crate::mem::PartitionStats,
}

impl MemSystemResult {
    fn of(gpu: &Gpu) -> Option<MemSystemResult> {
        let partitions = gpu.partitions.stats()?;
        let mut sm = crate::mem::SmMemStats::default();
        for s in &gpu.sms {
            if let Some(st) = s.sh.mem.cycle_stats() {
                sm.merge(&st);
            }
        }
        Some(MemSystemResult { sm, partitions })
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

impl SimResult {
    pub fn build(
        gpu: &Gpu,
        model: &ModelChoice,
        name: &str,
        hash: &str,
        cycles: Cycle,
    ) -> SimResult {
        let totals = gpu.merged_stats();
        let ib = gpu.cfg.frontend.inst_bytes.max(1);
        let kernels = gpu
            .sched
            .runs
            .iter()
            .map(|r| {
                let k = &gpu.kernels[r.launch as usize];
                let kc = totals
                    .kernels
                    .get(r.launch as usize)
                    .cloned()
                    .unwrap_or_default();
                let end = r.end_at.unwrap_or(cycles);
                let kcycles = (end + 1).saturating_sub(r.launched_at);
                let launch_cycles = r
                    .first_cta_at
                    .map_or(kcycles, |f| f.saturating_sub(r.launched_at).min(kcycles));
                KernelResult {
                    launch: r.launch,
                    name: k.info.name.clone(),
                    id: k.info.id,
                    stream: r.stream,
                    grid: k.info.grid,
                    block: k.info.block,
                    ctas: r.ctas_total,
                    launched_at: r.launched_at,
                    end_at: end,
                    cycles: kcycles,
                    duration_cycles: kcycles - launch_cycles.min(gpu.cfg.sm.launch_ncu_only as u64),
                    launch_cycles,
                    exec_cycles: kcycles - launch_cycles,
                    warp_insts: kc.warp_insts,
                    thread_insts: kc.thread_insts,
                    control_bits: k.info.ctrl_source.name(),
                    ipc: ratio(kc.warp_insts, kcycles),
                    occupancy: r.occupancy,
                    per_pc: kc
                        .per_pc
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| p.issued > 0 || p.stall_cycles > 0)
                        .map(|(i, p)| PcRow {
                            pc: i as u32 * ib,
                            issued: p.issued,
                            stall_cycles: p.stall_cycles,
                        })
                        .collect(),
                }
            })
            .collect();
        let per_sm = gpu
            .sms
            .iter()
            .map(|sm| {
                let s = &sm.sh.stats;
                SmSummary {
                    id: sm.id,
                    warp_insts: s.warp_insts,
                    active_cycles: s.active_cycles,
                    ipc: ratio(s.warp_insts, s.active_cycles),
                    subcore_ipc: s
                        .subcores
                        .iter()
                        .map(|c: &SubCoreStats| ratio(c.warp_insts, s.active_cycles))
                        .collect(),
                }
            })
            .collect();
        let mut r = SimResult {
            tool: "warpweave",
            version: crate::VERSION,
            model: *model,
            core: if model.frontend == crate::engine::ModuleModel::Analytical {
                "event"
            } else {
                gpu.cfg.core.model.name()
            },
            trace: TraceId {
                name: name.to_string(),
                hash: hash.to_string(),
            },
            cycles,
            seconds: gpu.clocks.seconds(cycles),
            warp_insts: totals.warp_insts,
            thread_insts: totals.thread_insts,
            ipc: ratio(totals.warp_insts, cycles),
            kernels,
            stall_stack: totals.stalls(),
            per_sm,
            memcpys: gpu.memcpys,
            memory: MemSystemResult::of(gpu),
            counters: counters(
                cycles,
                totals.warp_insts,
                MemSystemResult::of(gpu).as_ref(),
                &gpu.cfg,
            ),
            warnings: gpu.warnings.clone(),
            notes: Vec::new(),
            config: gpu.cfg.clone(),
            totals,
        };
        r.notes = super::notes::of(gpu, &r);
        r
    }

    /// A readable summary for the terminal.
    pub fn summary_text(&self) -> String {
        let mut s = String::new();
        let t = &self.totals;
        let _ = writeln!(
            s,
            "warpweave {} — {} on {} ({} SMs)",
            self.version, self.trace.name, self.config.gpu.name, self.config.gpu.num_sms
        );
        let _ = writeln!(
            s,
            "trace hash {}   core: {}   models: {}",
            self.trace.hash,
            self.core,
            self.model.describe()
        );
        let _ = writeln!(
            s,
            "cycles {}   ({:.3} us at {} MHz)   warp insts {}   thread insts {}   IPC {:.3}",
            self.cycles,
            self.seconds * 1e6,
            self.config.clocks.core_mhz,
            self.warp_insts,
            self.thread_insts,
            self.ipc
        );
        for w in &self.warnings {
            let _ = writeln!(s, "warning: {w}");
        }
        let _ = writeln!(
            s,
            "\nkernels (cycles as Nsight Compute's elapsed cycles count them = execution + launch overhead; duration: to compare with a measured kernel duration x clock):"
        );
        for k in &self.kernels {
            let _ = writeln!(
                s,
                "  #{:<3} {:<40} grid {} block {}  cycles {:>10} (execution {} + launch {}; duration {})  warp insts {:>10}  IPC {:>7.3}  occupancy {} CTA/SM ({:?})",
                k.launch,
                short(&k.name, 40),
                k.grid,
                k.block,
                k.cycles,
                k.exec_cycles,
                k.launch_cycles,
                k.duration_cycles,
                k.warp_insts,
                k.ipc,
                k.occupancy.ctas_per_sm,
                k.occupancy.limiter
            );
        }
        let st = &self.stall_stack;
        let total = st.total().max(1);
        let _ = writeln!(s, "\nscheduler cycles (CPI stack, all schedulers):");
        for kind in StallKind::ALL {
            let v = st.get(kind);
            if v > 0 {
                let _ = writeln!(
                    s,
                    "  {:<12} {:>12}  {:>5.1}%",
                    kind.name(),
                    v,
                    100.0 * v as f64 / total as f64
                );
            }
        }
        let _ = writeln!(
            s,
            "\nunits (dispatches, busy % of active SM-cycles x sub-cores):"
        );
        let denom = (t.active_cycles * self.config.sm.subcores as u64).max(1);
        for (name, u) in t.units.all() {
            if u.dispatches > 0 {
                let _ = writeln!(
                    s,
                    "  {:<8} {:>12}  {:>5.1}%",
                    name,
                    u.dispatches,
                    100.0 * u.busy_cycles as f64 / denom as f64
                );
            }
        }
        let (l0h, l0m) = t.l0i();
        let _ = writeln!(
            s,
            "\nL0I hits {} misses {}   L1I hits {} misses {}   register bank conflicts {}   result-bus conflicts {}",
            l0h,
            l0m,
            t.l1i_hits,
            t.l1i_misses,
            t.reg_bank_conflicts(),
            t.result_bus_conflicts()
        );
        let m = &t.mem;
        let _ = writeln!(
            s,
            "memory requests: global {} local {} shared {} (wavefronts {}) const {} tex {}",
            m.global_reqs,
            m.local_reqs,
            m.shared_reqs,
            m.shmem_wavefronts,
            m.const_reqs,
            m.tex_reqs
        );
        if let Some(ms) = &self.memory {
            let (l1, l2, d) = (&ms.sm.l1, &ms.partitions.l2, &ms.partitions.dram);
            let _ = writeln!(
                s,
                "L1D hit rate {:.3} ({} accesses)   L2 hit rate {:.3} ({} accesses)   DRAM read sectors {} write sectors {}   row hits {:.3}   {:.1} B/cycle",
                l1.hit_rate(),
                l1.accesses,
                l2.hit_rate(),
                l2.accesses,
                self.counters.dram_read_sectors,
                self.counters.dram_write_sectors,
                d.row_hit_rate(),
                ms.partitions.dram_bytes_per_cycle
            );
        }
        let _ = write!(s, "\n{}", self.counters.text());
        if !self.notes.is_empty() {
            let _ = writeln!(s, "\nnotes:");
            for n in &self.notes {
                let _ = writeln!(s, "  - {n}");
            }
        }
        s
    }
}

fn short(n: &str, max: usize) -> String {
    if n.chars().count() <= max {
        n.to_string()
    } else {
        let mut o: String = n.chars().take(max - 1).collect();
        o.push('…');
        o
    }
}
