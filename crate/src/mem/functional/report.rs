//! The functional mode's report: per kernel and level, hit rates and transactions (seed 004
//! section 4: hit rates, read / write transactions at every level, request divergence), per-PC
//! hit counts (the analytical memory model's input), and the SDCM baseline beside it.

use serde::Serialize;

use crate::mem::cache::{ratio, CacheStats};
use crate::mem::carveout::Carveout;
use crate::mem::reuse::SdcmReport;

/// One cache level of one kernel.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LevelReport {
    pub hit_rate: f64,
    pub read_hit_rate: f64,
    pub write_hit_rate: f64,
    pub accesses: u64,
    pub hits: u64,
    pub reads: u64,
    pub read_hits: u64,
    pub writes: u64,
    pub write_hits: u64,
    pub sector_misses: u64,
    pub sectors: u64,
    pub sector_hits: u64,
    /// Transactions to the next level: sectors read, sectors written (write-through, write
    /// misses without allocation, write-evict, and dirty write-backs), and requests.
    pub next_read_sectors: u64,
    pub next_read_requests: u64,
    pub next_write_sectors: u64,
    pub next_write_requests: u64,
    pub writeback_sectors: u64,
}

impl From<&CacheStats> for LevelReport {
    fn from(s: &CacheStats) -> Self {
        LevelReport {
            hit_rate: s.hit_rate(),
            read_hit_rate: s.read_hit_rate(),
            write_hit_rate: s.write_hit_rate(),
            accesses: s.accesses,
            hits: s.hits,
            reads: s.reads,
            read_hits: s.read_hits,
            writes: s.writes,
            write_hits: s.write_hits,
            sector_misses: s.sector_misses,
            sectors: s.sectors,
            sector_hits: s.sector_hits,
            next_read_sectors: s.fetch_sectors,
            next_read_requests: s.fetch_requests,
            next_write_sectors: s.write_sectors + s.writeback_sectors,
            next_write_requests: s.write_requests,
            writeback_sectors: s.writeback_sectors,
        }
    }
}

/// Hits per level of one instruction (PC); `requests` are line requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PcReport {
    pub pc: u32,
    pub requests: u64,
    /// Served by the L1 (or the constant cache).
    pub l1_hits: u64,
    pub l2_hits: u64,
    pub dram: u64,
    pub l1_hit_rate: f64,
    /// Of the requests that reached the L2.
    pub l2_hit_rate: f64,
}

/// Shared memory of one kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SharedReport {
    pub instructions: u64,
    pub wavefronts: u64,
    /// Extra wavefronts beyond one per instruction.
    pub bank_conflicts: u64,
}

/// One kernel in the functional memory mode.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KernelMemReport {
    pub name: String,
    pub id: u32,
    pub ctas: u64,
    pub carveout: Carveout,
    /// Warp-level global/local/constant/texture memory instructions.
    pub mem_instructions: u64,
    /// Line requests after coalescing.
    pub requests: u64,
    pub sectors: u64,
    /// Divergence: sectors (transactions) and lines per warp memory instruction.
    pub sectors_per_instruction: f64,
    pub requests_per_instruction: f64,
    pub l1: LevelReport,
    /// L1 hit rate of global loads only.
    pub l1_global_load_hit_rate: f64,
    pub constant: LevelReport,
    pub l2: LevelReport,
    pub dram_read_sectors: u64,
    pub dram_write_sectors: u64,
    pub atomics: u64,
    /// The same counts under Nsight Compute's names, as every mode reports them.
    pub counters: crate::stats::NcuCounters,
    pub shared: SharedReport,
    pub per_pc: Vec<PcReport>,
    /// The reuse-distance (SDCM) prediction for the same streams.
    pub sdcm: SdcmReport,
}

/// The functional mode's whole result.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FunctionalReport {
    pub trace: String,
    pub gpu: String,
    pub kernels: Vec<KernelMemReport>,
    /// Input problems worked around (kernels run with CTAs missing, `--allow-partial`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl PcReport {
    pub fn new(pc: u32, requests: u64, l1_hits: u64, l2_hits: u64, dram: u64) -> Self {
        PcReport {
            pc,
            requests,
            l1_hits,
            l2_hits,
            dram,
            l1_hit_rate: ratio(l1_hits, requests),
            l2_hit_rate: ratio(l2_hits, l2_hits + dram),
        }
    }
}
