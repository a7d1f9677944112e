//! The configuration schema. Sections follow the hardware blocks; each block's model reads only
//! its own section. New keys get a `#[serde(default)]` so older TOML files still load.

use serde::{Deserialize, Serialize};

use crate::trace::LatClass;

/// The whole GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GpuConfig {
    pub gpu: GpuSection,
    pub clocks: Clocks,
    pub core: CoreConfig,
    pub sm: SmConfig,
    pub scheduler: SchedulerConfig,
    pub frontend: FrontendConfig,
    pub regfile: RegFileConfig,
    pub units: UnitsConfig,
    pub latency: LatencyConfig,
    pub mem_pipeline: MemPipelineConfig,
    pub features: Features,
    pub l1d: L1dConfig,
    pub shmem: ShmemConfig,
    pub const_cache: CacheConfig,
    pub l2: L2Config,
    pub noc: NocConfig,
    pub dram: DramConfig,
    pub analytic: AnalyticMemConfig,
}

/// Identity of the GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GpuSection {
    /// Short lower-case id used by the CLI and URLs (rtx2080ti, a100, ...).
    pub id: String,
    /// Marketing name.
    pub name: String,
    /// Architecture: pascal, volta, turing, ampere, ada, hopper.
    pub arch: String,
    /// Compute capability times ten (75 for sm_75); the opcode table used when a trace's
    /// binary version is 0 or unknown.
    pub compute_capability: u32,
    /// Number of SMs.
    pub num_sms: u32,
}

/// Clock domains in MHz (Accel-Sim's core:interconnect:L2:DRAM).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Clocks {
    pub core_mhz: f64,
    pub icnt_mhz: f64,
    pub l2_mhz: f64,
    /// DRAM command clock.
    pub dram_mhz: f64,
}

/// SM resources and launch costs (occupancy: seed 004 Equations 3-6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SmConfig {
    /// Processing blocks (sub-cores) per SM.
    pub subcores: u32,
    pub max_warps: u32,
    pub max_threads: u32,
    pub max_ctas: u32,
    /// 32-bit registers per SM.
    pub registers: u32,
    /// Register allocation unit per warp, in registers (256 on Volta+).
    pub reg_alloc_granularity: u32,
    /// Warp allocation granularity for registers (4 on Kepler..Hopper).
    pub warp_alloc_granularity: u32,
    /// Most registers one thread may use.
    pub max_regs_per_thread: u32,
    /// Shared memory allocation unit in bytes.
    pub shmem_alloc_granularity: u32,
    /// Shared memory the driver reserves per CTA (1 KiB on Ampere+), bytes.
    pub shmem_reserved_per_cta: u32,
    /// Cycles from kernel start to the first CTA issue, as Nsight Compute's elapsed cycles
    /// count them.
    pub kernel_launch_latency: u32,
    /// The part of `kernel_launch_latency` that only Nsight Compute's elapsed cycles count: a
    /// kernel duration (Nsight Systems, CUPTI activity timestamps, times the clock) starts
    /// this many cycles later. Results report both figures.
    pub launch_ncu_only: u32,
    /// Cycles between issuing two CTAs to one SM.
    pub cta_launch_latency: u32,
    /// Concurrent kernels per SM from different streams.
    pub concurrent_kernels: bool,
}

/// The SM core model: how instructions issue, read their operands and wait on each other.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CoreConfig {
    /// accelsim or modern (see [`CoreModel`]).
    pub model: CoreModel,
}

/// Which SM core `cycle` mode simulates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoreModel {
    /// Seed 001's pipeline as Accel-Sim models it: register scoreboards, operand collectors
    /// with a bank arbiter, then dispatch.
    #[default]
    Accelsim,
    /// The core of modern-gpu-cores.md (Huerta et al., MICRO 2025): compiler control bits
    /// (stall counts, yield, six dependence counters; a scoreboard where a trace has none), no
    /// operand collectors, a 3-cycle register read window over the banks (register parity) and
    /// a register-file cache driven by reuse flags.
    Modern,
}

impl CoreModel {
    pub fn name(self) -> &'static str {
        match self {
            CoreModel::Accelsim => "accelsim",
            CoreModel::Modern => "modern",
        }
    }
}

/// Warp scheduling.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulerConfig {
    /// gto, lrr, two_level or cggty.
    pub policy: SchedPolicy,
    /// Instructions issued per scheduler per cycle (1, or 2 for dual issue to different units).
    pub issue_width: u32,
    /// Where the extra instructions of a multi-issue cycle come from: the same warp's next
    /// instructions, or other warps (seed 003 sec. III-E: "from different warps").
    pub multi_issue: MultiIssue,
    /// Two-level scheduler: size of the active set.
    pub two_level_active: u32,
}

/// Source of the second (third, ...) instruction in a multi-issue cycle; each goes to a unit
/// that no other instruction of the cycle uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MultiIssue {
    /// The issuing warp's next instructions (dual issue within a warp).
    #[default]
    SameWarp,
    /// The next ready warps in scheduler order (seed 003's multiple-issue flag).
    OtherWarps,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedPolicy {
    #[default]
    Gto,
    Lrr,
    TwoLevel,
    /// Compiler-guided greedy then youngest (modern-gpu-cores.md section 2): the last warp
    /// while it may issue, else the youngest ready one.
    Cggty,
}

/// Instruction fetch and decode (seed 001 Figure 3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FrontendConfig {
    /// Instructions fetched per fetch (one I-cache line access).
    pub fetch_width: u32,
    pub decode_width: u32,
    /// Instruction buffer entries per warp.
    pub ibuffer_size: u32,
    /// Bytes per SASS instruction (16 on Volta+, 8 before).
    pub inst_bytes: u32,
    pub l0i: ICacheConfig,
    pub l1i: ICacheConfig,
    /// Bytes between the code of consecutive kernels (distinct addresses per kernel, seed 001).
    pub kernel_code_stride: u64,
    /// Core cycles an L1I miss waits for its line beyond the L1I latency (the L2 round trip).
    pub l1i_miss_latency: u32,
    /// Lines the stream buffer of each sub-core's L0I keeps requested ahead of the last
    /// fetch (`core/prefetch.rs`); 0 turns instruction prefetch off.
    pub prefetch_depth: u32,
    /// Core cycles between two requests of one stream buffer (1: a line per cycle).
    pub prefetch_interval: u32,
    /// Cycles a taken branch's target fetch waits after the branch issues (0: the trace's next
    /// instructions are fetched ahead, as if the branch were predicted).
    #[serde(default)]
    pub taken_branch_delay: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ICacheConfig {
    /// 0 = perfect (always hits).
    pub size_kb: u32,
    pub line_bytes: u32,
    pub assoc: u32,
    /// Hit latency, core cycles.
    pub latency: u32,
    /// Outstanding misses.
    pub mshr: u32,
}

/// Register file and operand collectors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RegFileConfig {
    /// Register banks per sub-core.
    pub banks: u32,
    /// Ports per bank shared by operand reads and write-backs (seed 001: two).
    pub ports_per_bank: u32,
    /// Collector units per sub-core.
    pub collector_units: u32,
}

/// Execution units per sub-core.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UnitsConfig {
    pub int: UnitConfig,
    pub sp: UnitConfig,
    /// FP64 units; `shared = true` makes them one pool for the whole SM.
    pub dp: UnitConfig,
    pub sfu: UnitConfig,
    pub tensor: UnitConfig,
    pub branch: UnitConfig,
    pub uniform: UnitConfig,
    /// Load/store dispatch ports (into the memory pipeline).
    pub mem: UnitConfig,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UnitConfig {
    /// Pipelines of this kind per sub-core (0 = the unit does not exist; its ops go to `int`).
    pub count: u32,
    /// Lanes per pipeline; a warp takes 32 / width cycles to enter (the initiation interval).
    pub width: u32,
    /// One pool per SM instead of one per sub-core.
    pub shared: bool,
}

/// Latency (cycles from dispatch to result) and initiation interval per latency class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LatencyConfig {
    pub int: OpTiming,
    pub int_mul: OpTiming,
    pub fp32: OpTiming,
    pub fp16: OpTiming,
    pub dp: OpTiming,
    pub sfu: OpTiming,
    pub tensor: OpTiming,
    pub branch: OpTiming,
    pub uniform: OpTiming,
}

impl LatencyConfig {
    pub fn of(&self, c: LatClass) -> OpTiming {
        match c {
            LatClass::Int => self.int,
            LatClass::IntMul => self.int_mul,
            LatClass::Fp32 => self.fp32,
            LatClass::Fp16 => self.fp16,
            LatClass::Dp => self.dp,
            LatClass::Sfu => self.sfu,
            LatClass::Tensor => self.tensor,
            LatClass::Branch => self.branch,
            LatClass::Uniform => self.uniform,
            LatClass::Mem => OpTiming {
                latency: 1,
                interval: 1,
            },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpTiming {
    /// Cycles from dispatch to write-back.
    pub latency: u32,
    /// Cycles before the same pipeline accepts the next warp instruction.
    pub interval: u32,
}

impl Default for OpTiming {
    fn default() -> Self {
        OpTiming {
            latency: 4,
            interval: 2,
        }
    }
}

/// Per-sub-core memory pipeline (seed 001 section 2.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemPipelineConfig {
    /// Leader threads handled per cycle by the coalescer: each leader's address is compared with
    /// all 32 lanes, so one cycle produces one coalesced request (seed 001 section 2.3: "if all
    /// the accesses go to the same cache block, it will need just a single cycle").
    pub coalesce_threads_per_cycle: u32,
    /// Entries in the per-sub-core request buffer.
    pub request_buffer: u32,
    /// Cycles from dispatch to the address latch.
    pub dispatch_latency: u32,
    /// Modern core: each sub-core's memory unit paces memory instructions (5 entries, one
    /// address set per 4 cycles, the SM's shared stage one per 2 cycles: modern-gpu-cores.md
    /// Tab. 1, `core::modern::MemUnit`).
    pub subcore_unit: bool,
}

/// Seed 001's improvements, each switchable to get Accel-Sim's original behaviour.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Features {
    /// Per-sub-core fetch, decode and L0 I-cache (off: one SM-wide front end as in Accel-Sim).
    pub subcore_frontend: bool,
    /// Fixed-latency results need a free register-bank write port (off: unlimited result bus).
    pub result_bus_ports: bool,
    /// A memory pipeline per sub-core (off: one shared LDST unit as in Accel-Sim).
    pub subcore_mem_pipeline: bool,
    /// WAR hazards respected when collector units dispatch out of order.
    pub war_check: bool,
    /// Skip cycles in which nothing can change (results identical either way).
    pub skip_idle_cycles: bool,
    /// Core cycles per engine epoch: the SMs step this many cycles on their own
    /// (in parallel with several threads), then the memory side runs the same cycles. 1 = the
    /// memory replies and CTA issue of every cycle are seen the next cycle (exact lockstep);
    /// K > 1: replies reach an SM at the next epoch boundary and CTAs are issued at epoch
    /// starts. Results are identical for any thread count at any K.
    pub epoch_cycles: u32,
}

/// Replacement policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Replacement {
    #[default]
    Lru,
    Fifo,
    Random,
}

/// Set-index function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexFn {
    #[default]
    Linear,
    /// Accel-Sim's IPOLY hash.
    Ipoly,
    /// Seed 004's multiplicative (golden-ratio) hash.
    Hash,
}

/// Write policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WritePolicy {
    #[default]
    WriteBack,
    WriteThrough,
    /// Write-evict: invalidate the line on a write hit, forward the write.
    WriteEvict,
}

/// A sectored cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    pub size_kb: u32,
    pub line_bytes: u32,
    pub sector_bytes: u32,
    pub assoc: u32,
    pub replacement: Replacement,
    pub index: IndexFn,
    pub write_policy: WritePolicy,
    pub write_allocate: bool,
    /// Write-back + write-allocate only: a store miss allocates its sectors without reading
    /// them (write-validate, Accel-Sim's lazy fetch-on-read `L`); a sector written only in part
    /// is read from the next level when a load first needs it. Volta and later L2s work so
    /// (Khairy et al. 2020, cited by seed 004 section 3.3). false: fetch on write.
    pub lazy_fetch_on_read: bool,
    /// Bytes a read miss fetches from the next level: every sector of each aligned block of
    /// this size that the missing sectors touch, unless valid already (0 = the missing sectors
    /// alone). sm_80 and later L2s fetch 64 B from DRAM for a lone 32-B sector miss (CUDA's
    /// `cudaLimitMaxL2FetchGranularity`, 64 by default); measured on the H100.
    pub fetch_bytes: u32,
    /// Hit latency in the cache's clock domain.
    pub latency: u32,
    pub mshr_entries: u32,
    /// Requests merged into one MSHR entry.
    pub mshr_merge: u32,
    /// Seed for `replacement = "random"`.
    pub seed: u64,
}

/// L1 data cache per SM, sharing storage with shared memory (adaptive carve-out, seed 004 Eq. 7).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct L1dConfig {
    pub cache: CacheConfig,
    /// Unified L1 + shared memory storage per SM, KiB.
    pub unified_kb: u32,
    /// Shared-memory carve-out options in KiB (the driver picks the smallest that fits).
    pub shmem_options_kb: Vec<u32>,
    /// true: pick the carve-out per kernel (adaptive); false: `cache.size_kb` is fixed.
    pub adaptive_carveout: bool,
    pub banks: u32,
    /// Data port: bytes the L1 returns to the SM per core cycle on hits (0 = no limit). A
    /// request that finds the port's credit spent waits at the queue head.
    pub data_port_bytes: u32,
    /// Streaming: allocate on miss without reserving a line (Volta+ behaviour).
    pub streaming: bool,
    /// Global loads cached in L1 (`-dlcm=ca`), else only local and read-only data.
    pub cache_global: bool,
}

/// Shared memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ShmemConfig {
    pub banks: u32,
    pub bank_width_bytes: u32,
    /// Cycles for a conflict-free access.
    pub latency: u32,
    /// Most shared memory per SM, KiB (the largest carve-out).
    pub max_per_sm_kb: u32,
    /// Most shared memory per CTA, KiB.
    pub max_per_cta_kb: u32,
}

/// L2: memory partitions, each with sub-partitions (slices).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct L2Config {
    /// Per-slice cache; `size_kb` is per slice.
    pub cache: CacheConfig,
    /// Memory partitions (= DRAM channels).
    pub partitions: u32,
    pub subpartitions: u32,
    /// Address to partition mapping: linear, ipoly or hash.
    pub partition_index: IndexFn,
    /// Bytes interleaved per partition before moving to the next.
    pub interleave_bytes: u32,
    /// Atomic operation latency at L2, L2 cycles.
    pub atomic_latency: u32,
    /// L2 cycles the slice's atomic unit spends per serialized update: a request whose lanes
    /// update one address `k` times holds the unit `k` times as long (0: no contention).
    pub atomic_interval: f64,
    /// Warm the L2 with MemcpyHtoD data before the kernels.
    pub warm_from_memcpy: bool,
    /// Flush dirty L2 lines at kernel end.
    pub flush_at_kernel_end: bool,
    /// Fixed latency of the path from an L2 miss to the DRAM controller and back, L2 cycles
    /// (Accel-Sim's `-dram_latency`).
    pub dram_latency: u32,
    /// Requests waiting at each L2 slice's input, packets.
    pub input_queue: u32,
    /// Halves of the L2 (1 or 2). With 2, the SMs of the first half of the indices are near
    /// the first half of the partitions, the others near the second; a load whose line is
    /// homed in the far half looks it up in the near half's copy (the mirror slice), and a
    /// miss there crosses the fabric to the home slice, which serves it from its data or
    /// DRAM; the near half keeps the copy. Stores and atomics go to the home slice.
    pub sides: u32,
    /// One-way latency of the fabric between the two halves, L2 cycles.
    pub fabric_latency: u32,
    /// Sectors per L2 cycle the fabric carries back to each half (0: unlimited).
    pub fabric_sectors_per_cycle: f64,
}

/// Crossbar between SMs and L2 slices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NocConfig {
    pub flit_bytes: u32,
    /// Traversal latency, interconnect cycles.
    pub latency: u32,
    /// Flits per cycle each input/output port moves.
    pub port_flits_per_cycle: u32,
    /// Buffer depth per port, flits.
    pub buffer_flits: u32,
}

/// DRAM per channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DramConfig {
    /// gddr5, gddr5x, gddr6, gddr6x, hbm2, hbm2e, hbm3.
    pub kind: String,
    pub banks: u32,
    pub bank_groups: u32,
    /// Bus width per channel, bytes.
    pub bus_width_bytes: u32,
    pub burst_length: u32,
    /// Data transfers per command clock (2 = DDR, 4 = QDR GDDR6X / GDDR5X).
    pub data_rate: u32,
    pub row_bytes: u32,
    /// Request queue per channel (reads only, when `write_queue` > 0).
    pub queue: u32,
    /// Separate write queue per channel, entries; 0 = writes share `queue`.
    pub write_queue: u32,
    /// Write drain starts when this many writes are queued (high watermark).
    pub write_high: u32,
    /// Write drain ends when fewer than this many writes remain (low watermark).
    pub write_low: u32,
    /// frfcfs or fifo.
    pub scheduler: String,
    pub timing: DramTiming,
}

/// DRAM timing parameters in DRAM command cycles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DramTiming {
    pub t_cl: u32,
    pub t_rcd: u32,
    pub t_rp: u32,
    pub t_ras: u32,
    pub t_rc: u32,
    pub t_ccd: u32,
    pub t_ccdl: u32,
    pub t_rrd: u32,
    pub t_wr: u32,
    pub t_wtr: u32,
    pub t_rtw: u32,
    pub t_cwl: u32,
}

/// The analytical memory model's latencies (used until/instead of the cycle memory system).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AnalyticMemConfig {
    /// Load-to-use latency of an L1 hit, core cycles.
    pub l1_latency: u32,
    pub l2_latency: u32,
    pub dram_latency: u32,
    pub shmem_latency: u32,
    pub const_latency: u32,
    /// Fraction of global/local/texture requests that hit in L1 (seed 000 Equation 1's R_L1).
    pub l1_hit_rate: f64,
    /// Fraction of L1 misses (and of L1-bypassing requests) that hit in L2 (R_L2 / (1 - R_L1)).
    pub l2_hit_rate: f64,
    /// Requests one SM may have outstanding; more are refused (back-pressure).
    pub max_outstanding: u32,
}

// ---- defaults: a Turing-class SM (RTX 2080 Ti), overridden by every preset ----

mod defaults;
