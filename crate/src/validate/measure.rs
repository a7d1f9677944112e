//! The measurements: each generates a microbenchmark trace twice (a short and a long version),
//! simulates both with every module cycle-accurate, and derives the figure from the difference
//! the way the microbenchmark papers do, so kernel launch, prologue, the cold first pass and
//! the epilogue cancel:
//!
//! ```text
//!  latency     = (cycles(n2) - cycles(n1)) / (n2 - n1)              one dependent chain
//!  throughput  = 32 * (insts(n2) - insts(n1)) / (cycles(n2) - cycles(n1))   ops/cycle/SM
//!  bandwidth   = (bytes(n2) - bytes(n1)) / (cycles(n2) - cycles(n1))        bytes/cycle
//! ```

use crate::config::GpuConfig;
use crate::engine::{ModelChoice, Simulator};
use crate::workload::{self, Params};
use crate::{Error, Result};

/// Simulated cycles of workload `name` with `params` on `cfg` (every module cycle-accurate).
pub fn cycles(cfg: &GpuConfig, name: &str, params: &[(&str, String)]) -> Result<u64> {
    let mut p = Params::new();
    for (k, v) in params {
        p = p.set(k, v);
    }
    p = p.set("binary_version", binary_version(cfg));
    let trace = workload::generate(name, &p)?;
    let model = ModelChoice::named("cycle")?;
    let mut sim = Simulator::new(cfg.clone(), model, Box::new(trace))?;
    Ok(sim.run_to_end()?.cycles)
}

/// The SASS generation of the preset's architecture (sm_70, sm_75 or sm_80 code).
pub fn binary_version(cfg: &GpuConfig) -> u32 {
    cfg.gpu.compute_capability.clamp(70, 80)
}

/// `(cycles(long) - cycles(short)) / (units(long) - units(short))`, an error when the long run
/// was not longer (the benchmark would be meaningless).
pub fn per_unit(c_short: u64, c_long: u64, units: f64, what: &str) -> Result<f64> {
    if c_long <= c_short || units <= 0.0 {
        return Err(Error::other(format!(
            "validate: {what}: the long run took {c_long} cycles, the short one {c_short}"
        )));
    }
    Ok((c_long - c_short) as f64 / units)
}

fn s(v: impl ToString) -> String {
    v.to_string()
}

/// Dependent-chain latency of `op` (`chain` workload, 128 per loop body), cycles per
/// instruction: 2 against 6 iterations, so the cold first iteration cancels.
pub fn chain_latency(cfg: &GpuConfig, op: &str) -> Result<f64> {
    let (i1, i2, unroll) = (2u64, 6u64, 128u64);
    let run = |n: u64| {
        cycles(
            cfg,
            "chain",
            &[("op", s(op)), ("unroll", s(unroll)), ("iters", s(n))],
        )
    };
    per_unit(run(i1)?, run(i2)?, ((i2 - i1) * unroll) as f64, op)
}

/// Throughput of `op` on one SM in operations (thread instructions) per cycle: 32 warps (or as many as an SM holds) of 8
/// independent chains each, `unroll` rounds per loop body, 2 against 4 iterations.
pub fn chain_throughput(cfg: &GpuConfig, op: &str, unroll: u64) -> Result<f64> {
    // 32 warps (8 per sub-core) where the SM holds them, as peak-throughput benchmarks run
    // at high occupancy: with fewer, the bubble of each warp's taken branch back shows
    // (`frontend.taken_branch_delay`).
    let warps = 32u64.min(cfg.sm.max_warps as u64);
    let (chains, i1, i2) = (8u64, 2u64, 4u64);
    let run = |n: u64| {
        cycles(
            cfg,
            "chain",
            &[
                ("op", s(op)),
                ("unroll", s(unroll)),
                ("iters", s(n)),
                ("chains", s(chains)),
                ("warps", s(warps)),
            ],
        )
    };
    let insts = (warps * chains * unroll * (i2 - i1)) as f64;
    let cpi = per_unit(run(i1)?, run(i2)?, insts, op)?;
    Ok(32.0 / cpi)
}

/// Pointer-chase latency in cycles per load over the first pass of a chain (every load a new
/// line: `warm` = 1 gives L2 hits, 0 DRAM), or, with `footprint` = Some, over re-reads of a
/// footprint after its first pass.
pub fn chase_latency(
    cfg: &GpuConfig,
    warm: bool,
    stride: u64,
    footprint: Option<u64>,
) -> Result<f64> {
    let (n1, n2) = match footprint {
        Some(fp) => (fp / stride, 3 * (fp / stride)),
        None => (64, 192),
    };
    let fp = footprint.unwrap_or(n2 * stride);
    let run = |n: u64| {
        cycles(
            cfg,
            "mem_chase",
            &[
                ("footprint", s(fp)),
                ("stride", s(stride)),
                ("iters", s(n)),
                ("warm", s(u8::from(warm))),
            ],
        )
    };
    per_unit(run(n1)?, run(n2)?, (n2 - n1) as f64, "pointer chase")
}

/// Shared-memory pointer chase (`LDS R2 <- [R2]`), cycles per load.
pub fn shmem_latency(cfg: &GpuConfig) -> Result<f64> {
    let (n1, n2) = (32u64, 96u64);
    let run = |n: u64| {
        cycles(
            cfg,
            "mem_chase",
            &[
                ("space", s("shared")),
                ("footprint", s(1024)),
                ("stride", s(8)),
                ("iters", s(n)),
            ],
        )
    };
    per_unit(run(n1)?, run(n2)?, (n2 - n1) as f64, "shared chase")
}

/// Cycles per warp-wide LDS with word stride `stride` (conflict degree gcd(stride, 32)) when
/// shared memory is the bottleneck: 8 warps of 8 independent LDS chains, 16 rounds per loop
/// body, 2 against 4 iterations (2048 LDS apart). Conflict-free, one LDS per cycle; an n-way
/// conflict is n wavefronts, so the difference over (n - 1) is the cost of one extra way.
pub fn bank_access_cycles(cfg: &GpuConfig, stride: u64) -> Result<f64> {
    let (warps, chains, unroll, i1, i2) = (8u64, 8u64, 16u64, 2u64, 4u64);
    let run = |n: u64| {
        cycles(
            cfg,
            "chain",
            &[
                ("op", s("lds")),
                ("stride", s(stride)),
                ("chains", s(chains)),
                ("unroll", s(unroll)),
                ("iters", s(n)),
                ("warps", s(warps)),
            ],
        )
    };
    per_unit(
        run(i1)?,
        run(i2)?,
        (warps * chains * unroll * (i2 - i1)) as f64,
        "bank conflict",
    )
}

/// Load bandwidth in bytes per cycle (whole GPU) of `stream_load` with `ctas` CTAs of 256
/// threads and `unroll` loads per loop iteration: `reuse` re-reads a 16 KiB region per CTA
/// (L1), otherwise every load is new (`warm`: L2, cold: DRAM); `reps` iterations short / long.
pub fn stream_bandwidth(
    cfg: &GpuConfig,
    ctas: u64,
    reuse: bool,
    warm: bool,
    unroll: u64,
    reps: (u64, u64),
) -> Result<f64> {
    let threads = 256u64;
    let run = |n: u64| {
        cycles(
            cfg,
            "stream_load",
            &[
                ("ctas", s(ctas)),
                ("threads", s(threads)),
                ("reps", s(n)),
                ("unroll", s(unroll)),
                ("reuse", s(u8::from(reuse))),
                ("region", s(16384)),
                ("warm", s(u8::from(warm))),
            ],
        )
    };
    let bytes = (ctas * threads * 16 * unroll * (reps.1 - reps.0)) as f64;
    let cpb = per_unit(run(reps.0)?, run(reps.1)?, bytes, "stream")?;
    Ok(1.0 / cpb)
}

/// The chains of the L2-step chase: `ctas` CTAs of `lanes` threads, each its own chain (one
/// pass over F bytes is F / 128 / (ctas * lanes) warp loads per warp).
#[derive(Clone, Copy, Debug)]
pub struct StepChase {
    pub ctas: u64,
    pub lanes: u64,
}

impl StepChase {
    /// 16 CTAs of 32 lanes: a pass over several MiB takes a few thousand cycles.
    pub const SUITE: StepChase = StepChase {
        ctas: 16,
        lanes: 32,
    };
    /// Footprints are multiples of this (one 128 B node per chain).
    pub fn quantum(&self) -> u64 {
        128 * self.ctas * self.lanes
    }
}

/// Cycles per warp load of the chase over `footprint` bytes (stride 128 B, warm data, global
/// loads not cached in L1 as with `-dlcm=cg`): the second pass minus the first, so the cold
/// first pass cancels and a footprint larger than the L2 misses all over (LRU, cyclic).
pub fn l2_chase_cycles(cfg: &GpuConfig, footprint: u64, sc: StepChase) -> Result<f64> {
    let mut cg = cfg.clone();
    cg.l1d.cache_global = false;
    let pass = footprint / sc.quantum();
    let run = |n: u64| {
        cycles(
            &cg,
            "mem_chase",
            &[
                ("footprint", s(footprint)),
                ("stride", s(128)),
                ("iters", s(n)),
                ("warm", s(1)),
                ("lanes", s(sc.lanes)),
                ("ctas", s(sc.ctas)),
            ],
        )
    };
    per_unit(run(pass)?, run(2 * pass)?, pass as f64, "L2 step chase")
}

/// The preset's L2 capacity in KiB (every slice of every partition).
pub fn l2_total_kb(cfg: &GpuConfig) -> u64 {
    cfg.l2.partitions as u64 * cfg.l2.subpartitions.max(1) as u64 * cfg.l2.cache.size_kb as u64
}

/// The footprint (KiB) where the chase latency steps from the L2 plateau to the DRAM plateau:
/// the plateaus are read at half and twice `around_kb`, then the footprint where the latency
/// crosses their midpoint is bisected until the bracket is within 2% of `around_kb` (or one
/// quantum); the result is the bracket's middle. An error when the two plateaus are not apart.
pub fn l2_step_kb(cfg: &GpuConfig, around_kb: u64, sc: StepChase) -> Result<f64> {
    let q = sc.quantum() / 1024;
    let round = |kb: u64| (kb / q).max(1) * q;
    let lat = |kb: u64| l2_chase_cycles(cfg, kb * 1024, sc);
    let (mut lo, mut hi) = (round(around_kb / 2), round(2 * around_kb));
    let (l2, dram) = (lat(lo)?, lat(hi)?);
    if dram < 1.1 * l2 {
        return Err(Error::other(format!(
            "validate: L2 step: {dram:.1} cycles at {hi} KiB is not above the {l2:.1} at {lo} KiB"
        )));
    }
    let mid = (l2 + dram) / 2.0;
    let tol = (around_kb / 50).max(q);
    while hi - lo > tol {
        let m = round((lo + hi) / 2);
        if m == lo || m == hi {
            break;
        }
        if lat(m)? > mid {
            hi = m;
        } else {
            lo = m;
        }
    }
    Ok((lo + hi) as f64 / 2.0)
}
