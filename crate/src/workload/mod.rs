//! Built-in workloads: deterministic kernel models that emit real-looking SASS traces with exact
//! per-thread addresses, parameterised by size.
//!
//! ```text
//!  "vecadd" + ["n=100", "block=128"]
//!      │ list() / find(): WorkloadDesc { name, summary, params: [ParamDesc] }
//!      ▼
//!  Args::resolve ── unknown key, bad number, out of range ──> Error naming the parameter
//!      ▼
//!  generator (vecadd.rs, transpose.rs, ...) ── KernelBuilder (builder.rs) ──> MemTrace
//!      (Layout: arrays at 0x7f0000000000 + ..., MemcpyHtoD for inputs, then the launches)
//! ```
//!
//! The kernels are the small programs seed 003 teaches with (vector add, transpose, matrix
//! multiply) and the usual suspects of GPU studies, written as nvcc emits them for sm_75/sm_80
//! (see `sass.rs`), plus microbenchmarks whose behaviour can be derived by hand (`micro.rs`) and
//! the validation suite's latency and bandwidth probes (`latency.rs`, `bandwidth.rs`).
//! The library has no file system here: the CLI (`warpweave gen`) and the browser call
//! [`generate`] and hand the trace to a writer.

pub mod builder;
pub mod params;
pub mod sass;

mod bandwidth;
mod bfs;
mod histogram;
mod latency;
mod matmul;
mod micro;
mod ops;
pub mod output;
mod reduction;
mod stencil;
mod transpose;
mod vecadd;

pub use builder::{KernelBuilder, Layout, Thread, WarpBuilder};
pub use output::OutFormat;
pub use params::{Args, ParamDesc, Params};

use crate::trace::model::MemTrace;
use crate::{Error, Result};

/// One built-in workload.
#[derive(Clone, Copy, Debug)]
pub struct WorkloadDesc {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamDesc],
    gen: fn(&Args) -> Result<MemTrace>,
}

static LIST: [WorkloadDesc; 17] = [
    WorkloadDesc {
        name: "vecadd",
        summary: "c[i] = a[i] + b[i]; one float (or float4) per thread, bounds-checked",
        params: &vecadd::VECADD_PARAMS,
        gen: vecadd::vecadd,
    },
    WorkloadDesc {
        name: "saxpy",
        summary: "y[i] = alpha * x[i] + y[i]; one float per thread",
        params: &vecadd::SAXPY_PARAMS,
        gen: vecadd::saxpy,
    },
    WorkloadDesc {
        name: "transpose_naive",
        summary: "out[x][y] = in[y][x] straight from global memory: coalesced loads, strided stores",
        params: &transpose::NAIVE_PARAMS,
        gen: transpose::naive,
    },
    WorkloadDesc {
        name: "transpose_tiled",
        summary: "32x32 shared-memory tile (optionally padded), BAR.SYNC, coalesced both ways",
        params: &transpose::TILED_PARAMS,
        gen: transpose::tiled,
    },
    WorkloadDesc {
        name: "matmul_naive",
        summary: "C = A * B, one output per thread, inner loop over k unrolled by 4 (LDG + FFMA)",
        params: &matmul::NAIVE_PARAMS,
        gen: matmul::naive,
    },
    WorkloadDesc {
        name: "matmul_tiled",
        summary: "C = A * B with shared-memory tiles: LDG, STS, BAR.SYNC, LDS.128 + LDS + FFMA",
        params: &matmul::TILED_PARAMS,
        gen: matmul::tiled,
    },
    WorkloadDesc {
        name: "reduction",
        summary: "sum per block: shared-memory tree with divergent warps, then SHFL.DOWN in warp 0",
        params: &reduction::PARAMS,
        gen: reduction::reduction,
    },
    WorkloadDesc {
        name: "stencil",
        summary: "2-D 5-point stencil on a rows x cols grid; edge threads exit (partial masks)",
        params: &stencil::PARAMS,
        gen: stencil::stencil,
    },
    WorkloadDesc {
        name: "bfs",
        summary: "one top-down BFS step over a seeded random CSR graph: irregular gathers, divergent loops",
        params: &bfs::PARAMS,
        gen: bfs::bfs,
    },
    WorkloadDesc {
        name: "histogram",
        summary: "histogram of seeded random values with global (RED/ATOMG) or shared (ATOMS) atomics",
        params: &histogram::PARAMS,
        gen: histogram::histogram,
    },
    WorkloadDesc {
        name: "pointer_chase",
        summary: "microbenchmark: one thread, each load's address is the previous load's result",
        params: &micro::CHASE_PARAMS,
        gen: micro::pointer_chase,
    },
    WorkloadDesc {
        name: "ffma_dep",
        summary: "microbenchmark: a chain of N FFMAs, each reading the previous result",
        params: &micro::FFMA_DEP_PARAMS,
        gen: micro::ffma_dep,
    },
    WorkloadDesc {
        name: "ffma_indep",
        summary: "microbenchmark: k independent FFMA chains interleaved",
        params: &micro::FFMA_INDEP_PARAMS,
        gen: micro::ffma_indep,
    },
    WorkloadDesc {
        name: "bank_conflict",
        summary: "microbenchmark: one warp's LDS/STS with a word stride giving conflict degree gcd(stride, 32)",
        params: &micro::BANK_PARAMS,
        gen: micro::bank_conflict,
    },
    WorkloadDesc {
        name: "chain",
        summary: "microbenchmark: N instructions of one unit (FFMA, IADD3, IMAD, DFMA, MUFU, HMMA, LDS), dependent or k chains",
        params: &latency::CHAIN_PARAMS,
        gen: latency::chain,
    },
    WorkloadDesc {
        name: "mem_chase",
        summary: "microbenchmark: pointer chase in global (warm or cold) or shared memory",
        params: &latency::CHASE_PARAMS,
        gen: latency::mem_chase,
    },
    WorkloadDesc {
        name: "stream_load",
        summary: "microbenchmark: independent 16-byte loads per thread, re-read (L1) or all new (L2, DRAM)",
        params: &bandwidth::STREAM_PARAMS,
        gen: bandwidth::stream_load,
    },
];

/// Every built-in workload, in a fixed order.
pub fn list() -> &'static [WorkloadDesc] {
    &LIST
}

/// The workload called `name`.
pub fn find(name: &str) -> Result<&'static WorkloadDesc> {
    LIST.iter().find(|d| d.name == name).ok_or_else(|| {
        let known: Vec<&str> = LIST.iter().map(|d| d.name).collect();
        Error::other(format!(
            "unknown workload `{name}`; {}known: {}",
            crate::error::did_you_mean(name, known.iter().copied()),
            known.join(", ")
        ))
    })
}

/// Generates workload `name` with `params` (unset parameters take their defaults). The trace is
/// named `name:canonical-params` and is the same, byte for byte, on every run and platform.
pub fn generate(name: &str, params: &Params) -> Result<MemTrace> {
    let d = find(name)?;
    let args = Args::resolve(d.name, d.params, params)?;
    let mut t = (d.gen)(&args)?;
    t.name = format!("{}:{}", d.name, args.canonical());
    Ok(t)
}

#[cfg(test)]
mod tests;
