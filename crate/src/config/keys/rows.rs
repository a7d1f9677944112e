//! The rows of the key table, section by section in the order of the schema: what each leaf
//! key of [`GpuConfig`](crate::config::GpuConfig) means, its unit and its allowed range.

use super::*;

/// Every key, in the order of the schema (sections, then their leaves, then nested sections).
pub fn specs() -> Vec<KeyDoc> {
    let mut t = Table {
        rows: Vec::with_capacity(200),
    };
    // gpu
    t.text(
        "gpu.id",
        "Short lower-case id used by the CLI and URLs ([a-z0-9_-])",
    );
    t.text("gpu.name", "Marketing name");
    t.choice("gpu.arch", ARCHS, "Architecture generation");
    t.int(
        "gpu.compute_capability",
        "major*10+minor",
        20,
        120,
        "Compute capability (75 = sm_75); opcode table when the trace does not say",
    );
    t.int(
        "gpu.num_sms",
        "SMs",
        1,
        1024,
        "Number of streaming multiprocessors",
    );
    // clocks
    t.float("clocks.core_mhz", "MHz", 1.0, 10_000.0, "SM (core) clock");
    t.float(
        "clocks.icnt_mhz",
        "MHz",
        1.0,
        10_000.0,
        "Interconnect clock",
    );
    t.float("clocks.l2_mhz", "MHz", 1.0, 10_000.0, "L2 clock");
    t.float(
        "clocks.dram_mhz",
        "MHz",
        1.0,
        20_000.0,
        "DRAM command clock (data rate = dram.data_rate transfers per clock)",
    );
    // sm
    t.int(
        "sm.subcores",
        "sub-cores",
        1,
        8,
        "Processing blocks (sub-cores) per SM; divides sm.max_warps",
    );
    t.int("sm.max_warps", "warps", 1, 128, "Resident warps per SM");
    t.int(
        "sm.max_threads",
        "threads",
        32,
        4096,
        "Resident threads per SM",
    );
    t.int("sm.max_ctas", "CTAs", 1, 64, "Resident CTAs per SM");
    t.int(
        "sm.registers",
        "32-bit registers",
        1024,
        1 << 20,
        "Register file size per SM",
    );
    t.int(
        "sm.reg_alloc_granularity",
        "registers",
        1,
        1024,
        "Register allocation unit per warp",
    );
    t.int(
        "sm.warp_alloc_granularity",
        "warps",
        1,
        32,
        "Warp allocation granularity for registers",
    );
    t.int(
        "sm.max_regs_per_thread",
        "registers",
        1,
        255,
        "Most registers one thread may use",
    );
    t.int(
        "sm.shmem_alloc_granularity",
        "bytes",
        1,
        65_536,
        "Shared memory allocation unit",
    );
    t.int(
        "sm.shmem_reserved_per_cta",
        "bytes",
        0,
        65_536,
        "Shared memory the driver reserves per CTA",
    );
    t.int(
        "sm.kernel_launch_latency",
        "core cycles",
        0,
        100_000_000,
        "Cycles from kernel start to the first CTA issue (as Nsight Compute's elapsed cycles count them)",
    );
    t.int(
        "sm.launch_ncu_only",
        "core cycles",
        0,
        100_000_000,
        "Part of the launch latency a measured kernel duration does not include (only Nsight Compute's elapsed cycles do)",
    );
    t.int(
        "sm.cta_launch_latency",
        "core cycles",
        0,
        1_000_000,
        "Cycles between two CTA issues to one SM",
    );
    t.flag(
        "sm.concurrent_kernels",
        "Kernels of different streams may share an SM",
    );
    // core
    t.choice(
        "core.model",
        CORE_MODELS,
        "SM core model of `cycle` mode: accelsim (scoreboards, operand collectors) or modern (control bits, register read window, register-file cache)",
    );
    // scheduler
    t.choice("scheduler.policy", SCHED_POLICIES, "Warp scheduling policy");
    t.int(
        "scheduler.issue_width",
        "instructions",
        1,
        4,
        "Instructions issued per scheduler per cycle (to different units)",
    );
    t.choice(
        "scheduler.multi_issue",
        MULTI_ISSUE,
        "Where a multi-issue cycle's extra instructions come from",
    );
    t.int(
        "scheduler.two_level_active",
        "warps",
        1,
        128,
        "Active set size of the two-level scheduler",
    );
    // frontend
    t.int(
        "frontend.fetch_width",
        "instructions",
        1,
        16,
        "Instructions fetched per I-cache access",
    );
    t.int(
        "frontend.decode_width",
        "instructions",
        1,
        16,
        "Instructions decoded per cycle",
    );
    t.int(
        "frontend.ibuffer_size",
        "entries",
        1,
        64,
        "Instruction buffer entries per warp",
    );
    t.int(
        "frontend.inst_bytes",
        "bytes",
        4,
        16,
        "Bytes per SASS instruction (16 on Volta+, 8 before)",
    );
    t.int(
        "frontend.kernel_code_stride",
        "bytes",
        0,
        1 << 40,
        "Distance between the code of consecutive kernels",
    );
    t.int(
        "frontend.l1i_miss_latency",
        "core cycles",
        0,
        100_000,
        "Cycles an L1I miss waits for its line beyond the L1I latency (the L2 round trip)",
    );
    t.int(
        "frontend.prefetch_depth",
        "lines",
        0,
        64,
        "Instruction lines each sub-core's stream buffer keeps requested ahead of the last fetch (0: no prefetch)",
    );
    t.int(
        "frontend.prefetch_interval",
        "core cycles",
        1,
        1000,
        "Cycles between two line requests of one stream buffer (1: a line per cycle)",
    );
    t.int(
        "frontend.taken_branch_delay",
        "core cycles",
        0,
        1000,
        "The front end predicts no branches: a taken branch's target is fetched once the branch has issued, this many cycles later (0: fetched ahead, as if predicted)",
    );
    t.icache("frontend.l0i");
    t.icache("frontend.l1i");
    // regfile
    t.int(
        "regfile.banks",
        "banks",
        1,
        64,
        "Register banks per sub-core",
    );
    t.int(
        "regfile.ports_per_bank",
        "ports",
        1,
        8,
        "Ports per bank shared by operand reads and write-backs",
    );
    t.int(
        "regfile.collector_units",
        "units",
        1,
        64,
        "Operand collector units per sub-core",
    );
    // units
    for (u, what) in [
        ("int", "INT32"),
        ("sp", "FP32"),
        ("dp", "FP64"),
        ("sfu", "SFU"),
        ("tensor", "Tensor"),
        ("branch", "Branch"),
        ("uniform", "Uniform datapath"),
        ("mem", "Load/store dispatch"),
    ] {
        t.unit(&format!("units.{u}"), what);
    }
    for (l, what) in [
        ("int", "integer add/logic"),
        ("int_mul", "integer multiply"),
        ("fp32", "FP32"),
        ("fp16", "FP16"),
        ("dp", "FP64"),
        ("sfu", "SFU"),
        ("tensor", "tensor core"),
        ("branch", "branch"),
        ("uniform", "uniform datapath"),
    ] {
        t.timing(&format!("latency.{l}"), what);
    }
    // mem_pipeline
    t.int(
        "mem_pipeline.coalesce_threads_per_cycle",
        "threads",
        1,
        32,
        "Leader lanes coalesced per cycle (each compared with all 32 lanes: one request per leader, seed 001)",
    );
    t.int(
        "mem_pipeline.request_buffer",
        "entries",
        1,
        1024,
        "Per-sub-core request buffer",
    );
    t.int(
        "mem_pipeline.dispatch_latency",
        "core cycles",
        0,
        1000,
        "Dispatch to address latch",
    );
    t.flag(
        "mem_pipeline.subcore_unit",
        "Modern core: each sub-core's memory unit paces memory instructions (5 entries, an address set per 4 cycles, the SM stage one per 2 cycles)",
    );
    // features
    t.flag(
        "features.subcore_frontend",
        "Per-sub-core fetch, decode and L0 I-cache (seed 001); off = Accel-Sim",
    );
    t.flag(
        "features.result_bus_ports",
        "Results need a free register-bank write port (seed 001)",
    );
    t.flag(
        "features.subcore_mem_pipeline",
        "A memory pipeline per sub-core (seed 001)",
    );
    t.flag(
        "features.war_check",
        "Respect WAR hazards at out-of-order dispatch (seed 001)",
    );
    t.flag(
        "features.skip_idle_cycles",
        "Skip cycles in which nothing can change (same results)",
    );
    t.int(
        "features.epoch_cycles",
        "core cycles",
        1,
        64,
        "SM cycles stepped per parallel step before the memory side runs them (1 = lockstep; >1: replies seen at epoch ends, CTAs issued at epoch starts; same results for any thread count)",
    );
    // l1d
    t.int(
        "l1d.unified_kb",
        "KiB",
        1,
        4096,
        "Unified L1 + shared memory storage per SM",
    );
    t.list(
        "l1d.shmem_options_kb",
        "KiB",
        0,
        4096,
        "Shared-memory carve-out options, ascending",
    );
    t.flag(
        "l1d.adaptive_carveout",
        "Pick the carve-out per kernel (seed 004 Eq. 7); off = cache.size_kb fixed",
    );
    t.int("l1d.banks", "banks", 1, 64, "L1D banks");
    t.int(
        "l1d.data_port_bytes",
        "bytes/cycle",
        0,
        4096,
        "L1D data port: bytes returned to the SM per cycle on hits (0 = no limit)",
    );
    t.flag(
        "l1d.streaming",
        "Streaming: allocate on fill without reserving lines (Volta+)",
    );
    t.flag(
        "l1d.cache_global",
        "Global loads are cached in L1 (-dlcm=ca)",
    );
    t.cache("l1d.cache", "core cycles", 4096);
    // shmem
    t.int("shmem.banks", "banks", 1, 64, "Shared memory banks");
    t.int("shmem.bank_width_bytes", "bytes", 1, 16, "Bank width");
    t.int(
        "shmem.latency",
        "core cycles",
        0,
        10_000,
        "Conflict-free access latency",
    );
    t.int(
        "shmem.max_per_sm_kb",
        "KiB",
        0,
        4096,
        "Most shared memory per SM (the largest carve-out)",
    );
    t.int(
        "shmem.max_per_cta_kb",
        "KiB",
        0,
        4096,
        "Most shared memory per CTA",
    );
    // const cache
    t.cache("const_cache", "core cycles", 4096);
    // l2
    t.int(
        "l2.partitions",
        "partitions",
        1,
        256,
        "Memory partitions (= DRAM channels)",
    );
    t.int(
        "l2.subpartitions",
        "slices",
        1,
        8,
        "L2 slices per memory partition",
    );
    t.choice(
        "l2.partition_index",
        INDEX_FNS,
        "Address to partition mapping",
    );
    t.int(
        "l2.interleave_bytes",
        "bytes",
        32,
        1 << 20,
        "Bytes per partition before moving to the next",
    );
    t.int(
        "l2.atomic_latency",
        "L2 cycles",
        0,
        10_000,
        "Atomic operation latency at L2",
    );
    t.float(
        "l2.atomic_interval",
        "L2 cycles",
        0.0,
        1000.0,
        "L2 cycles the slice's atomic unit spends per serialized update (lanes updating one address serialize; 0 = no contention)",
    );
    t.int(
        "l2.dram_latency",
        "L2 cycles",
        0,
        10_000,
        "Fixed latency from an L2 miss to the DRAM controller and back (Accel-Sim -dram_latency)",
    );
    t.int(
        "l2.input_queue",
        "packets",
        1,
        4096,
        "Requests waiting at each L2 slice's input",
    );
    t.int(
        "l2.sides",
        "halves",
        1,
        2,
        "L2 halves: with 2, each SM has a near half (by SM index) keeping copies of the far half's lines; a load missing its near copy crosses the fabric to the home slice",
    );
    t.int(
        "l2.fabric_latency",
        "L2 cycles",
        0,
        10_000,
        "One-way latency of the fabric between the two L2 halves",
    );
    t.float(
        "l2.fabric_sectors_per_cycle",
        "sectors / L2 cycle",
        0.0,
        4096.0,
        "Sectors per L2 cycle the fabric carries back to each half (0 = unlimited)",
    );
    t.flag(
        "l2.warm_from_memcpy",
        "Warm the L2 with MemcpyHtoD data before the kernels",
    );
    t.flag(
        "l2.flush_at_kernel_end",
        "Flush dirty L2 lines at kernel end",
    );
    t.cache("l2.cache", "L2 cycles", 1 << 20);
    // noc
    t.int("noc.flit_bytes", "bytes", 1, 1024, "Flit size");
    t.int("noc.latency", "icnt cycles", 0, 10_000, "Traversal latency");
    t.int(
        "noc.port_flits_per_cycle",
        "flits",
        1,
        64,
        "Flits per cycle per port",
    );
    t.int(
        "noc.buffer_flits",
        "flits",
        1,
        1 << 16,
        "Buffer depth per port",
    );
    // dram
    t.choice("dram.kind", DRAM_KINDS, "DRAM technology");
    t.int(
        "dram.banks",
        "banks",
        1,
        256,
        "Banks per channel; a multiple of dram.bank_groups",
    );
    t.int(
        "dram.bank_groups",
        "groups",
        1,
        64,
        "Bank groups per channel",
    );
    t.int(
        "dram.bus_width_bytes",
        "bytes",
        1,
        128,
        "Data bus width per channel",
    );
    t.int("dram.burst_length", "transfers", 1, 64, "Burst length");
    t.int(
        "dram.data_rate",
        "transfers/clock",
        1,
        16,
        "Data transfers per command clock (2 = DDR, 4 = GDDR6/6X)",
    );
    t.int("dram.row_bytes", "bytes", 64, 1 << 16, "Row (page) size");
    t.int(
        "dram.queue",
        "requests",
        1,
        4096,
        "Request queue per channel (reads only when dram.write_queue > 0)",
    );
    t.int(
        "dram.write_queue",
        "requests",
        0,
        4096,
        "Separate write queue per channel; 0 = writes share dram.queue",
    );
    t.int(
        "dram.write_high",
        "requests",
        0,
        4096,
        "Write drain starts at this many queued writes (1..=dram.write_queue)",
    );
    t.int(
        "dram.write_low",
        "requests",
        0,
        4096,
        "Write drain ends below this many queued writes (1..=dram.write_high)",
    );
    t.choice("dram.scheduler", DRAM_SCHEDULERS, "DRAM scheduler");
    for (k, d) in [
        ("t_cl", "CAS latency"),
        ("t_rcd", "RAS to CAS delay"),
        ("t_rp", "Precharge"),
        ("t_ras", "Row active time"),
        ("t_rc", "Row cycle (>= t_ras)"),
        ("t_ccd", "Column to column, different bank group"),
        ("t_ccdl", "Column to column, same bank group"),
        ("t_rrd", "Activate to activate, different banks"),
        ("t_wr", "Write recovery"),
        ("t_wtr", "Write to read"),
        ("t_rtw", "Read to write"),
        ("t_cwl", "CAS write latency"),
    ] {
        t.int(&format!("dram.timing.{k}"), "DRAM cycles", 0, 1000, d);
    }
    // analytic
    t.int(
        "analytic.l1_latency",
        "core cycles",
        0,
        100_000,
        "Analytical model: L1 hit load-to-use latency (Eq. 1 L_L1)",
    );
    t.int(
        "analytic.l2_latency",
        "core cycles",
        0,
        100_000,
        "Analytical model: L2 hit latency (Eq. 1 L_L2)",
    );
    t.int(
        "analytic.dram_latency",
        "core cycles",
        0,
        100_000,
        "Analytical model: DRAM latency (Eq. 1 L_DRAM)",
    );
    t.int(
        "analytic.shmem_latency",
        "core cycles",
        0,
        100_000,
        "Analytical model: shared memory latency",
    );
    t.int(
        "analytic.const_latency",
        "core cycles",
        0,
        100_000,
        "Analytical model: constant cache hit latency",
    );
    t.float("analytic.l1_hit_rate", "fraction", 0.0, 1.0, "Analytical model: share of global/local requests that hit in L1 (Eq. 1 R_L1) when no per-PC rates are given");
    t.float(
        "analytic.l2_hit_rate",
        "fraction",
        0.0,
        1.0,
        "Analytical model: share of L1 misses that hit in L2 (Eq. 1 R_L2 / (1 - R_L1))",
    );
    t.int(
        "analytic.max_outstanding",
        "requests",
        1,
        1_000_000,
        "Analytical model: requests one SM may have in flight before back-pressure",
    );
    t.rows
}
