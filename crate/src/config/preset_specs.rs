//! Where every preset value comes from. The files in `configs/` are generated from these
//! tables (value and source per key) and a test checks that they are up to date:
//!
//! ```text
//!  GpuConfig::default() ──family rows──> ──GPU rows──> to_toml_with_sources ──> configs/ID.toml
//!  regenerate: WARPWEAVE_REGEN_PRESETS=1 cargo test -p warpweave --lib config::preset_specs
//! ```
//! Each row is (dotted key, value, source). A key no row sets keeps the schema default and
//! says so. Source abbreviations are spelled out in each file's header.

use super::document::{parse_toml, to_toml_with_sources};
use super::overrides::apply_override;
use super::schema::GpuConfig;
use std::collections::HashMap;

type Row = (&'static str, &'static str, &'static str);

const LEGEND: &str = "Sources: seed NNN = the papers in shared/seeds (000 Swift-Sim, 001 Accel-Sim SM fixes,\n\
002 parallel Accel-Sim, 003 SIMD teaching simulator, 004 cache functional simulation);\n\
AS-<cfg> = Accel-Sim tested-cfgs (gpgpusim.config / trace.config) of that GPU;\n\
Jia18 / Jia19 = Jia et al., Dissecting the Volta (2018) / Turing T4 (2019) GPU via microbenchmarking;\n\
WP = NVIDIA architecture whitepaper; CUDA = CUDA C Programming Guide, compute capability tables;\n\
spec = NVIDIA product specification page; default = warpweave's schema default (no public figure).\n\
Every key: `# doc` line, then `key = value  # unit; allowed range | source`.";

/// Turing SM (TU102/TU104), seed 000 Table II and Accel-Sim SM75_RTX2060.
const TURING: &[Row] = &[
    ("gpu.arch", "turing", "WP Turing"),
    ("gpu.compute_capability", "75", "CUDA cc 7.5"),
    ("sm.subcores", "4", "seed 000 Table II"),
    (
        "frontend.prefetch_depth",
        "8",
        "modern-gpu-cores Tab. 5 (8-entry stream buffer per L0I: 45.55% -> 13.45% cycles MAPE)",
    ),
    ("sm.max_warps", "32", "CUDA cc 7.5"),
    ("sm.max_threads", "1024", "CUDA cc 7.5"),
    ("sm.max_ctas", "16", "CUDA cc 7.5"),
    ("sm.registers", "65536", "CUDA cc 7.5"),
    (
        "sm.reg_alloc_granularity",
        "256",
        "CUDA occupancy calculator",
    ),
    (
        "sm.warp_alloc_granularity",
        "4",
        "CUDA occupancy calculator",
    ),
    ("sm.max_regs_per_thread", "255", "CUDA cc 7.5"),
    (
        "sm.shmem_alloc_granularity",
        "256",
        "CUDA occupancy calculator",
    ),
    ("sm.shmem_reserved_per_cta", "0", "CUDA cc 7.5"),
    ("sm.kernel_launch_latency", "5000", "AS-SM75_RTX2060"),
    (
        "sm.launch_ncu_only",
        "0",
        "not measured for this GPU: a duration is taken as the elapsed cycles",
    ),
    ("sm.cta_launch_latency", "0", "AS-SM75_RTX2060"),
    ("scheduler.policy", "gto", "seed 000 Table II"),
    (
        "scheduler.issue_width",
        "1",
        "seed 000 Table II (1 scheduler, single issue)",
    ),
    (
        "frontend.fetch_width",
        "2",
        "seed 001 sec. 1 (two consecutive instructions)",
    ),
    ("frontend.decode_width", "2", "seed 001 sec. 1"),
    ("frontend.inst_bytes", "16", "Jia19 (128-bit SASS)"),
    (
        "frontend.l0i.size_kb",
        "16",
        "Jia19 (L0 I-cache 16 KiB per sub-core)",
    ),
    (
        "frontend.l0i.mshr",
        "1",
        "seed 001 Table 1 (one L0I request in flight)",
    ),
    (
        "frontend.l1i.size_kb",
        "128",
        "AS-SM75_RTX2060 (il1 N:64:128:16)",
    ),
    ("frontend.l1i.assoc", "16", "AS-SM75_RTX2060"),
    ("frontend.l1i.mshr", "2", "AS-SM75_RTX2060"),
    (
        "regfile.banks",
        "2",
        "AS-SM75_RTX2060 (8 banks / 4 sub-cores)",
    ),
    ("regfile.ports_per_bank", "2", "seed 001 Table 1"),
    ("regfile.collector_units", "2", "seed 001 Table 1"),
    ("units.int.count", "1", "seed 000 Table II (per sub-core)"),
    ("units.sp.count", "1", "seed 000 Table II (per sub-core)"),
    (
        "units.dp.count",
        "1",
        "seed 000 Table II (one SM-wide FP64 pool)",
    ),
    ("units.sfu.count", "1", "seed 000 Table II (per sub-core)"),
    (
        "units.tensor.count",
        "1",
        "WP Turing (tensor cores in every sub-core)",
    ),
    (
        "units.branch.count",
        "1",
        "AS-SM75_RTX2060 (spec unit BRA, 4 per SM)",
    ),
    (
        "units.uniform.count",
        "1",
        "AS-SM75_RTX2060 (spec unit UDP, 4 per SM)",
    ),
    (
        "units.mem.count",
        "1",
        "seed 000 Table II (LD/ST per sub-core)",
    ),
    ("units.int.width", "16", "seed 000 Table II (INT 16x)"),
    ("units.sp.width", "16", "seed 000 Table II (SP 16x)"),
    (
        "units.dp.width",
        "2",
        "seed 000 Table II (DP 0.5x per sub-core = 2 lanes per SM)",
    ),
    (
        "units.dp.shared",
        "true",
        "seed 000 Table II (DP 0.5x per sub-core)",
    ),
    ("units.sfu.width", "4", "seed 000 Table II (SFU 4x)"),
    ("units.mem.width", "4", "seed 000 Table II (LD/ST 4x)"),
    (
        "latency.int.latency",
        "4",
        "Jia19 (IADD3/IMAD dependent issue 4 cycles)",
    ),
    ("latency.int.interval", "2", "AS-SM75_RTX2060"),
    ("latency.int_mul.latency", "4", "Jia19"),
    ("latency.int_mul.interval", "2", "AS-SM75_RTX2060"),
    ("latency.fp32.latency", "4", "Jia19 (FFMA 4 cycles)"),
    ("latency.fp32.interval", "2", "AS-SM75_RTX2060"),
    (
        "latency.fp16.latency",
        "4",
        "assumed equal to FP32 (Jia19 gives no HFMA2 figure)",
    ),
    ("latency.fp16.interval", "2", "assumed equal to FP32"),
    ("latency.dp.latency", "64", "AS-SM75_RTX2060 trace.config"),
    ("latency.dp.interval", "64", "AS-SM75_RTX2060 trace.config"),
    ("latency.sfu.latency", "21", "AS-SM75_RTX2060 trace.config"),
    ("latency.sfu.interval", "8", "AS-SM75_RTX2060 trace.config"),
    (
        "latency.tensor.latency",
        "16",
        "AS-SM75_RTX2060 trace.config",
    ),
    (
        "latency.tensor.interval",
        "16",
        "AS-SM75_RTX2060 trace.config",
    ),
    (
        "latency.branch.latency",
        "4",
        "AS-SM75_RTX2060 trace.config (spec unit BRA)",
    ),
    (
        "latency.branch.interval",
        "4",
        "AS-SM75_RTX2060 trace.config",
    ),
    (
        "latency.uniform.latency",
        "4",
        "AS-SM75_RTX2060 trace.config (spec unit UDP)",
    ),
    (
        "latency.uniform.interval",
        "1",
        "AS-SM75_RTX2060 trace.config",
    ),
    ("features.subcore_frontend", "true", "seed 001 sec. 2.1"),
    ("features.result_bus_ports", "true", "seed 001 sec. 2.2"),
    ("features.subcore_mem_pipeline", "true", "seed 001 sec. 2.3"),
    ("features.war_check", "true", "seed 001 sec. 4"),
    (
        "l1d.unified_kb",
        "96",
        "WP Turing (96 KiB L1 + shared per SM)",
    ),
    (
        "l1d.shmem_options_kb",
        "32,64",
        "WP Turing / AS-SM75_RTX2060",
    ),
    ("l1d.adaptive_carveout", "true", "AS-SM75_RTX2060"),
    ("l1d.banks", "4", "seed 000 Table II"),
    ("l1d.streaming", "true", "seed 000 Table II"),
    (
        "l1d.cache.size_kb",
        "32",
        "unified - largest carve-out (AS-SM75_RTX2060 dl1 4x128x64)",
    ),
    ("l1d.cache.line_bytes", "128", "seed 000 Table II"),
    ("l1d.cache.sector_bytes", "32", "seed 000 Table II"),
    ("l1d.cache.assoc", "64", "AS-SM75_RTX2060"),
    ("l1d.cache.replacement", "lru", "seed 000 Table II"),
    ("l1d.cache.index", "linear", "AS-SM75_RTX2060"),
    (
        "l1d.cache.write_policy",
        "write_through",
        "seed 000 Table II",
    ),
    (
        "l1d.cache.write_allocate",
        "true",
        "AS-SM75_RTX2060 (lazy fetch-on-read)",
    ),
    ("l1d.cache.latency", "32", "seed 000 Table II"),
    ("l1d.cache.mshr_entries", "256", "seed 000 Table II"),
    ("l1d.cache.mshr_merge", "8", "seed 000 Table II"),
    ("shmem.banks", "32", "CUDA cc 7.5"),
    ("shmem.bank_width_bytes", "4", "CUDA cc 7.5"),
    ("shmem.latency", "30", "AS-SM75_RTX2060"),
    ("shmem.max_per_sm_kb", "64", "CUDA cc 7.5"),
    ("shmem.max_per_cta_kb", "64", "CUDA cc 7.5 (opt-in)"),
    ("const_cache.size_kb", "2", "Jia19 (constant L1 2 KiB)"),
    ("const_cache.line_bytes", "64", "Jia19"),
    ("l2.subpartitions", "2", "AS-SM75_RTX2060"),
    (
        "l2.partition_index",
        "linear",
        "AS-SM75_RTX2060 (indexing 0)",
    ),
    ("l2.interleave_bytes", "256", "AS-SM75_RTX2060 (dramid@8)"),
    (
        "l2.warm_from_memcpy",
        "true",
        "AS-SM75_RTX2060 (perf_sim_memcpy)",
    ),
    (
        "l2.cache.size_kb",
        "128",
        "L2 size / (partitions x 2) (AS-SM75_RTX2060 dl2 64x128x16)",
    ),
    ("l2.cache.line_bytes", "128", "seed 000 Table II"),
    ("l2.cache.sector_bytes", "32", "seed 000 Table II"),
    ("l2.cache.assoc", "16", "AS-SM75_RTX2060"),
    ("l2.cache.replacement", "lru", "seed 000 Table II"),
    ("l2.cache.index", "ipoly", "AS-SM75_RTX2060"),
    ("l2.cache.write_policy", "write_back", "seed 000 Table II"),
    (
        "l2.cache.write_allocate",
        "true",
        "AS-SM75_RTX2060 (lazy fetch-on-read)",
    ),
    (
        "l2.cache.lazy_fetch_on_read",
        "true",
        "AS-SM75_RTX2060 dl2 write-allocate `L`",
    ),
    ("l2.cache.latency", "188", "seed 000 Table II"),
    ("l2.cache.mshr_entries", "192", "seed 000 Table II"),
    ("l2.cache.mshr_merge", "4", "seed 000 Table II"),
    ("noc.flit_bytes", "40", "AS-SM75_RTX2060"),
    (
        "noc.buffer_flits",
        "512",
        "AS-SM75_RTX2060 (icnt_in_buffer_limit)",
    ),
    ("dram.kind", "gddr6", "spec"),
    ("dram.banks", "16", "AS-SM75_RTX2060"),
    ("dram.bank_groups", "4", "AS-SM75_RTX2060"),
    (
        "dram.bus_width_bytes",
        "2",
        "AS-SM75_RTX2060 (16-bit channels)",
    ),
    ("dram.burst_length", "16", "AS-SM75_RTX2060"),
    ("dram.data_rate", "4", "AS-SM75_RTX2060"),
    ("dram.queue", "64", "AS-SM75_RTX2060"),
    ("dram.scheduler", "frfcfs", "AS-SM75_RTX2060"),
    ("dram.timing.t_ccd", "4", "AS-SM75_RTX2060"),
    ("dram.timing.t_rrd", "12", "AS-SM75_RTX2060"),
    ("dram.timing.t_rcd", "24", "AS-SM75_RTX2060"),
    ("dram.timing.t_ras", "55", "AS-SM75_RTX2060"),
    ("dram.timing.t_rp", "24", "AS-SM75_RTX2060"),
    ("dram.timing.t_rc", "78", "AS-SM75_RTX2060"),
    ("dram.timing.t_cl", "24", "AS-SM75_RTX2060"),
    ("dram.timing.t_cwl", "8", "AS-SM75_RTX2060 (WL)"),
    ("dram.timing.t_wtr", "10", "AS-SM75_RTX2060 (CDLR)"),
    ("dram.timing.t_wr", "24", "AS-SM75_RTX2060"),
    ("dram.timing.t_ccdl", "6", "AS-SM75_RTX2060"),
    ("analytic.l1_latency", "32", "seed 000 Table II"),
    ("analytic.l2_latency", "188", "seed 000 Table II"),
    (
        "frontend.l1i_miss_latency",
        "188",
        "seed 000 Table II (L2 latency)",
    ),
    (
        "analytic.dram_latency",
        "227",
        "seed 000 Table II (memory 227 cycles)",
    ),
    ("analytic.shmem_latency", "30", "AS-SM75_RTX2060"),
];

/// Ampere GA10x SM (RTX 30 series), Accel-Sim SM86_RTX3070 and the GA102 whitepaper.
const GA10X: &[Row] = &[
    ("gpu.arch", "ampere", "WP GA102"),
    ("gpu.compute_capability", "86", "CUDA cc 8.6"),
    ("sm.max_warps", "48", "CUDA cc 8.6"),
    ("sm.max_threads", "1536", "CUDA cc 8.6"),
    ("sm.max_ctas", "16", "CUDA cc 8.6"),
    (
        "sm.shmem_reserved_per_cta",
        "1024",
        "CUDA cc 8.x (1 KiB per block)",
    ),
    ("sm.kernel_launch_latency", "5000", "AS-SM86_RTX3070"),
    (
        "sm.launch_ncu_only",
        "0",
        "not measured for this GPU: a duration is taken as the elapsed cycles",
    ),
    ("scheduler.policy", "lrr", "AS-SM86_RTX3070"),
    ("frontend.l0i.size_kb", "16", "assumed as Turing (Jia19)"),
    (
        "units.sp.width",
        "32",
        "WP GA102 (16 FP32 + 16 FP32/INT32 lanes per sub-core)",
    ),
    ("units.dp.width", "2", "WP GA102 (2 FP64 units per SM)"),
    ("units.dp.shared", "true", "WP GA102"),
    ("units.mem.width", "4", "WP GA102 (16 LD/ST per SM)"),
    ("latency.int.latency", "4", "AS-SM86_RTX3070 trace.config"),
    ("latency.int.interval", "2", "AS-SM86_RTX3070 trace.config"),
    (
        "latency.int_mul.latency",
        "4",
        "AS-SM86_RTX3070 trace.config",
    ),
    (
        "latency.int_mul.interval",
        "2",
        "AS-SM86_RTX3070 trace.config",
    ),
    ("latency.fp32.latency", "4", "AS-SM86_RTX3070 trace.config"),
    ("latency.fp32.interval", "2", "AS-SM86_RTX3070 trace.config"),
    ("latency.dp.latency", "8", "AS-SM86_RTX3070 trace.config"),
    ("latency.dp.interval", "4", "AS-SM86_RTX3070 trace.config"),
    ("latency.sfu.latency", "20", "AS-SM86_RTX3070 trace.config"),
    ("latency.sfu.interval", "8", "AS-SM86_RTX3070 trace.config"),
    (
        "latency.tensor.latency",
        "32",
        "AS-SM86_RTX3070 trace.config",
    ),
    (
        "latency.tensor.interval",
        "32",
        "AS-SM86_RTX3070 trace.config",
    ),
    (
        "latency.uniform.interval",
        "2",
        "AS-SM86_RTX3070 trace.config",
    ),
    (
        "l1d.unified_kb",
        "128",
        "WP GA102 (128 KiB L1 + shared per SM)",
    ),
    (
        "l1d.shmem_options_kb",
        "0,8,16,32,64,100",
        "CUDA cc 8.6 / AS-SM86_RTX3070",
    ),
    ("l1d.cache.size_kb", "28", "unified - largest carve-out"),
    (
        "l1d.cache.assoc",
        "4",
        "assumed as seed 004 Table 3 (Volta)",
    ),
    ("l1d.cache.latency", "39", "AS-SM86_RTX3070"),
    (
        "l1d.cache.mshr_entries",
        "384",
        "AS-SM86_RTX3070 (A:384:48)",
    ),
    ("l1d.cache.mshr_merge", "48", "AS-SM86_RTX3070"),
    ("shmem.latency", "29", "AS-SM86_RTX3070"),
    ("shmem.max_per_sm_kb", "100", "CUDA cc 8.6"),
    ("shmem.max_per_cta_kb", "99", "CUDA cc 8.6 (opt-in)"),
    (
        "l2.partition_index",
        "ipoly",
        "AS-SM86_RTX3070 (indexing 2)",
    ),
    (
        "l2.cache.latency",
        "187",
        "AS-SM86_RTX3070 (l2_rop_latency)",
    ),
    ("noc.flit_bytes", "40", "AS-SM86_RTX3070"),
    ("analytic.l1_latency", "39", "AS-SM86_RTX3070"),
    (
        "analytic.l2_latency",
        "187",
        "AS-SM86_RTX3070 (l2_rop_latency)",
    ),
    (
        "frontend.l1i_miss_latency",
        "187",
        "AS-SM86_RTX3070 (l2_rop_latency)",
    ),
    (
        "analytic.dram_latency",
        "441",
        "AS-SM86_RTX3070 (rop 187 + dram 254)",
    ),
    ("analytic.shmem_latency", "29", "AS-SM86_RTX3070"),
];

/// Data-centre SMs (GV100, GA100, GH100): 64 warps, HBM, seed 004's cache parameters.
const DATACENTRE: &[Row] = &[
    (
        "sm.launch_ncu_only",
        "0",
        "not measured for this GPU: a duration is taken as the elapsed cycles",
    ),
    ("sm.max_warps", "64", "CUDA cc 7.0 / 8.0 / 9.0"),
    ("sm.max_threads", "2048", "CUDA cc 7.0 / 8.0 / 9.0"),
    ("sm.max_ctas", "32", "CUDA cc 7.0 / 8.0 / 9.0"),
    ("scheduler.policy", "gto", "AS-SM7_TITANV"),
    ("units.int.width", "16", "WP (64 INT32 per SM)"),
    ("units.dp.width", "8", "WP (32 FP64 per SM)"),
    (
        "units.dp.shared",
        "false",
        "WP (FP64 lanes in every sub-core)",
    ),
    ("units.mem.width", "8", "WP (32 LD/ST per SM)"),
    ("l1d.cache.assoc", "4", "seed 004 Table 3"),
    (
        "l1d.cache.index",
        "hash",
        "seed 004 sec. 4.1 (hashed set index)",
    ),
    (
        "l1d.cache.write_allocate",
        "true",
        "seed 004 Table 3 (write-through, write-allocate)",
    ),
    ("l2.cache.assoc", "32", "seed 004 Table 3"),
    (
        "l2.cache.index",
        "hash",
        "seed 004 sec. 4.1 (hashed set index)",
    ),
    (
        "l2.cache.write_allocate",
        "true",
        "seed 004 Table 3 (write-back, write-allocate)",
    ),
    (
        "l2.cache.lazy_fetch_on_read",
        "true",
        "Volta+ L2 write-validate (Khairy et al. 2020, seed 004 sec. 3.3); AS-SM7_QV100 dl2 `L`",
    ),
    (
        "dram.bus_width_bytes",
        "16",
        "AS-SM7_TITANV (128-bit HBM channels)",
    ),
    ("dram.burst_length", "2", "AS-SM7_TITANV"),
    ("dram.data_rate", "2", "AS-SM7_TITANV (HBM is DDR)"),
];

/// The modern core of modern-gpu-cores.md (Huerta et al., MICRO 2025) for Turing and later,
/// applied after the GPU's own rows (its register-file rows describe the Accel-Sim core).
const MODERN: &[Row] = &[
    (
        "core.model",
        "modern",
        "modern-gpu-cores sec. 6 (control bits, no collectors, RF read window, RFC: 34.03% -> 13.45% cycles MAPE on an A6000)",
    ),
    (
        "scheduler.policy",
        "cggty",
        "modern-gpu-cores sec. 2 (compiler-guided greedy then youngest)",
    ),
    (
        "regfile.banks",
        "2",
        "modern-gpu-cores sec. 4 (two banks per sub-core by register parity)",
    ),
    (
        "regfile.ports_per_bank",
        "1",
        "modern-gpu-cores sec. 4 (one 1024-bit read port per bank)",
    ),
    (
        "frontend.ibuffer_size",
        "3",
        "modern-gpu-cores sec. 3 (3 entries per warp)",
    ),
    (
        "frontend.fetch_width",
        "1",
        "modern-gpu-cores sec. 3 (one instruction fetched per cycle per sub-core)",
    ),
    (
        "frontend.decode_width",
        "1",
        "modern-gpu-cores sec. 3 (one instruction decoded per cycle per sub-core)",
    ),
    (
        "mem_pipeline.subcore_unit",
        "true",
        "modern-gpu-cores sec. 5 Tab. 1 (5 entries per sub-core, 4 cycles per address set, 2 per SM)",
    ),
];

struct Spec {
    id: &'static str,
    title: &'static str,
    families: &'static [&'static [Row]],
    rows: &'static [Row],
    /// Rows applied after `rows` (the core model's).
    after: &'static [&'static [Row]],
}

const SPECS: &[Spec] = &[
    Spec {
        id: "rtx2080ti",
        title: "NVIDIA GeForce RTX 2080 Ti (Turing TU102): seed 000 Tables I and II",
        families: &[TURING],
        after: &[MODERN],
        rows: super::preset_rows::RTX2080TI,
    },
    Spec {
        id: "rtx2070s",
        title: "NVIDIA GeForce RTX 2070 SUPER (Turing TU104): seed 001 Table 1",
        families: &[TURING],
        after: &[MODERN],
        rows: super::preset_rows::RTX2070S,
    },
    Spec {
        id: "rtx3060",
        title: "NVIDIA GeForce RTX 3060 (Ampere GA106): seed 000 Table I",
        families: &[TURING, GA10X],
        after: &[MODERN],
        rows: super::preset_rows::RTX3060,
    },
    Spec {
        id: "rtx3090",
        title: "NVIDIA GeForce RTX 3090 (Ampere GA102): seed 000 Table I",
        families: &[TURING, GA10X],
        after: &[MODERN],
        rows: super::preset_rows::RTX3090,
    },
    Spec {
        id: "rtx3080ti",
        title: "NVIDIA GeForce RTX 3080 Ti (Ampere GA102): seed 002",
        families: &[TURING, GA10X],
        after: &[MODERN],
        rows: super::preset_rows::RTX3080TI,
    },
    Spec {
        id: "titanv",
        title: "NVIDIA TITAN V (Volta GV100): seed 004 Table 3",
        families: &[TURING, DATACENTRE],
        after: &[],
        rows: super::preset_rows::TITANV,
    },
    Spec {
        id: "a100",
        title: "NVIDIA A100 (Ampere GA100): seed 004 sec. 5.4",
        families: &[TURING, DATACENTRE],
        after: &[MODERN],
        rows: super::preset_rows::A100,
    },
    Spec {
        id: "h100",
        title: "NVIDIA H100 SXM5 (Hopper GH100): public figures",
        families: &[TURING, DATACENTRE],
        after: &[MODERN],
        rows: super::preset_rows::H100,
    },
    Spec {
        id: "teaching",
        title: "A one-SM teaching GPU after seed 003 (SIMD simulation for teaching)",
        families: &[TURING],
        after: &[],
        rows: super::preset_rows::TEACHING,
    },
];

/// The config and per-key source a spec describes.
fn build(spec: &Spec) -> (GpuConfig, HashMap<String, &'static str>) {
    let mut cfg = GpuConfig::default();
    let mut src = HashMap::new();
    for rows in spec
        .families
        .iter()
        .copied()
        .chain(std::iter::once(spec.rows))
        .chain(spec.after.iter().copied())
    {
        for &(k, v, s) in rows {
            if s.is_empty() {
                continue; // a grouping marker
            }
            apply_override(&mut cfg, k, v).unwrap_or_else(|e| panic!("{}: {e}", spec.id));
            src.insert(k.to_string(), s);
        }
    }
    cfg.validate()
        .unwrap_or_else(|e| panic!("{}: {e}", spec.id));
    (cfg, src)
}

fn render(spec: &Spec) -> String {
    let (cfg, src) = build(spec);
    let header = format!(
        "warpweave GPU preset `{}`: {}\n\nGenerated from crate/src/config/preset_rows.rs; edit there and regenerate with\nWARPWEAVE_REGEN_PRESETS=1 cargo test -p warpweave --lib config::preset_specs\n\n{LEGEND}",
        spec.id, spec.title
    );
    to_toml_with_sources(&cfg, &header, |k| {
        Some(src.get(k).copied().unwrap_or("default"))
    })
}

#[test]
fn preset_files_are_generated_from_the_specs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
    let regen = std::env::var_os("WARPWEAVE_REGEN_PRESETS").is_some();
    let ids: Vec<&str> = SPECS.iter().map(|s| s.id).collect();
    assert_eq!(ids, super::preset_ids());
    for spec in SPECS {
        let text = render(spec);
        if regen {
            std::fs::write(dir.join(format!("{}.toml", spec.id)), &text).unwrap();
        } else {
            assert!(
                super::preset_text(spec.id).unwrap() == text,
                "configs/{}.toml is stale: WARPWEAVE_REGEN_PRESETS=1 cargo test -p warpweave --lib config::preset_specs",
                spec.id
            );
        }
        let parsed = parse_toml(spec.id, &text).unwrap();
        assert_eq!(parsed, build(spec).0);
    }
}
