//! Notes on a result: one sentence each for what dominates it and a newcomer would misread
//! (the CLI prints them after the summary, the JSON carries them as `notes`, the page lists
//! them under its summary). They describe the result; they never change it.
//!
//! ```text
//!  launch overhead > half the cycles ──────────────────> "most of the cycles are launch overhead"
//!  l2.warm_from_memcpy + MemcpyHtoD + L2 hit rate ~1 ─> "the inputs sit in the L2"
//!  l1d.adaptive_carveout + l1d.cache.size_kb set ─────> "the carve-out chose another L1 size"
//!  analytical memory on a memory-bound kernel ────────> "this mode's known error is large here"
//!  CTAs to one SM x sm.cta_launch_latency ~ execution ─> "CTA issue bounds this kernel"
//! ```

use crate::mem::carveout;
use crate::stats::StallKind;

use super::{Gpu, ModuleModel, SimResult};

/// The largest cycle error of `fast` (analytical memory) against `cycle` on the benchmark
/// traces, in percent, and where it was measured (bench/compare.csv, which bench/compare.sh
/// writes; crate/tests/readme_figures.rs keeps the two equal).
pub const FAST_MAX_ERROR: (f64, &str) = (14.16, "matmul_naive-128 on the titanv");

/// L2 hit rate from which warmed inputs are what the L2 figures show.
const WARM_L2_HIT: f64 = 0.9;

/// Share of the non-idle scheduler cycles waiting on memory from which a kernel is
/// memory-bound.
const MEMORY_BOUND_SHARE: f64 = 0.5;

/// Share of a kernel's execution cycles from which the CTA issue interval bounds it.
const CTA_ISSUE_BOUND_SHARE: f64 = 0.8;

/// The notes on `r`, a result of `gpu`'s run.
pub fn of(gpu: &Gpu, r: &SimResult) -> Vec<String> {
    let mut notes = Vec::new();
    let cfg = &gpu.cfg;
    // Launch overhead.
    let launch: u64 = r.kernels.iter().map(|k| k.launch_cycles).sum();
    if r.cycles > 0 && 2 * launch > r.cycles {
        notes.push(format!(
            "launch overhead is {:.0}% of the cycles ({launch} of {}; sm.kernel_launch_latency = \
             {} per kernel); each kernel's own run is its `execution` cycles (JSON: exec_cycles)",
            100.0 * launch as f64 / r.cycles as f64,
            r.cycles,
            cfg.sm.kernel_launch_latency
        ));
    }
    // Inputs warmed into the L2 by their copies.
    if let Some(m) = &r.memory {
        let l2 = &m.partitions.l2;
        if cfg.l2.warm_from_memcpy
            && r.memcpys > 0
            && l2.accesses > 0
            && l2.hit_rate() >= WARM_L2_HIT
        {
            notes.push(format!(
                "L2 hit rate {:.3} with {} DRAM read sectors: the trace's {} MemcpyHtoD copies put \
                 the inputs in the L2 (l2.warm_from_memcpy = true, as Accel-Sim does); \
                 --set l2.warm_from_memcpy=false starts from a cold L2, as `ncu --cache-control all` measures",
                l2.hit_rate(),
                r.counters.dram_read_sectors,
                r.memcpys
            ));
        }
    }
    // An L1 size the user set, replaced per kernel by the adaptive carve-out.
    if cfg.l1d.adaptive_carveout {
        let shipped = crate::config::preset(&cfg.gpu.id)
            .map(|p| p.l1d.cache.size_kb)
            .ok();
        if shipped.is_some_and(|kb| kb != cfg.l1d.cache.size_kb) {
            let mut sizes: Vec<u32> = gpu
                .sched
                .runs
                .iter()
                .map(|run| carveout::choose(cfg, &gpu.kernels[run.launch as usize].info).l1_kb)
                .filter(|&kb| kb != cfg.l1d.cache.size_kb)
                .collect();
            sizes.sort_unstable();
            sizes.dedup();
            if !sizes.is_empty() {
                let kb: Vec<String> = sizes.iter().map(|k| k.to_string()).collect();
                notes.push(format!(
                    "l1d.cache.size_kb = {} was not used: l1d.adaptive_carveout chose an L1D of {} KiB \
                     per kernel (the unified storage less the shared-memory carve-out); \
                     --set l1d.adaptive_carveout=false keeps the size set",
                    cfg.l1d.cache.size_kb,
                    kb.join(", ")
                ));
            }
        }
    }
    // Kernels as long as their CTAs' issue to the busiest SM, one per `cta_launch_latency`.
    let lat = u64::from(cfg.sm.cta_launch_latency);
    if lat > 0 {
        for k in &r.kernels {
            let most = gpu
                .sms
                .iter()
                .filter_map(|sm| sm.sh.stats.kernels.get(k.launch as usize))
                .map(|c| c.ctas)
                .max()
                .unwrap_or(0);
            let issue = most.saturating_sub(1) * lat;
            if k.exec_cycles > 0 && issue as f64 >= CTA_ISSUE_BOUND_SHARE * k.exec_cycles as f64 {
                notes.push(format!(
                    "CTA issue bounds kernel {}: one SM received {most} of its CTAs, one per \
                     sm.cta_launch_latency = {lat} cycles, which takes {issue} of its {} execution \
                     cycles (a kernel of fewer, longer CTAs waits less)",
                    k.name, k.exec_cycles
                ));
            }
        }
    }
    // A mode whose known error is large on this kind of kernel.
    if r.model.memory == ModuleModel::Analytical {
        let st = &r.stall_stack;
        let busy = st.total().saturating_sub(st.get(StallKind::Idle));
        let mem = st.get(StallKind::MemData) + st.get(StallKind::MemStructural);
        if busy > 0 && mem as f64 >= MEMORY_BOUND_SHARE * busy as f64 {
            let (err, where_) = FAST_MAX_ERROR;
            notes.push(format!(
                "memory-bound ({:.0}% of the busy scheduler cycles wait on memory) under the analytical \
                 memory model, whose cycles were up to {err:.1}% from `cycle` on the benchmark traces \
                 ({where_}, bench/compare.csv); --mode hybrid or cycle simulates the memory system cycle by cycle",
                100.0 * mem as f64 / busy as f64
            ));
        }
    }
    notes
}
