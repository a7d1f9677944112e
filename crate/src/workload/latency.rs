//! Latency microbenchmarks in the style of the "Dissecting Volta / Turing" reports (Jia et al.
//! 2018, 2019) and Abdelkhalik et al. 2022: a chain of one instruction per unit, dependent or
//! interleaved, and a pointer chase in global or shared memory whose data may be cold.
//!
//! ```text
//!  chain      loop { op=ffma: R8 = R8*R3+R3 (unroll times) }    chains=1: latency-bound
//!             chains=k: R8, R9, .. R(8+k-1) advanced in turn   chains>=latency: unit-bound
//!  mem_chase  space=global: LDG.E.64 R2 <- [R2], node j at base + (j % slots) * stride
//!             space=shared: LDS R2 <- [R2], the same chain in the CTA's shared window
//!             warm=1: MemcpyHtoD of the chain first (L2 warm), warm=0: cold (DRAM)
//!             lanes=k, ctas=c: c CTAs of k threads chase c*k interleaved chains
//! ```
//! A measurement runs two lengths and divides the difference in cycles by the difference in
//! instructions, so launch, prologue and epilogue cancel (see `crate::validate`).

use super::builder::{r, KernelBuilder, Layout};
use super::params::{Args, ParamDesc};
use super::sass::{self, BINARY_VERSION};
use crate::trace::model::{Dim3, MemTrace};
use crate::Result;

/// The ops `chain` can run, one per execution unit (SASS as nvcc emits it for sm_70..sm_86).
pub static CHAIN_OPS: [&str; 8] = [
    "ffma", "fadd", "iadd3", "imad", "dfma", "mufu", "hmma", "lds",
];

pub static CHAIN_PARAMS: [ParamDesc; 7] = [
    ParamDesc::word(
        "op",
        "ffma",
        &CHAIN_OPS,
        "instruction: ffma, fadd (FP32), iadd3 (INT), imad (INT multiply), dfma (FP64), \
         mufu (SFU), hmma (tensor), lds (shared load, each lane's address from its register)",
    ),
    ParamDesc::num(
        "unroll",
        "64",
        1,
        4096,
        "instructions per chain in the loop body",
    ),
    ParamDesc::num("iters", "4", 1, 1 << 16, "loop iterations"),
    ParamDesc::num(
        "chains",
        "1",
        1,
        32,
        "independent chains interleaved round-robin (1: every instruction waits for the last)",
    ),
    ParamDesc::num("warps", "1", 1, 32, "warps in each CTA"),
    ParamDesc::num(
        "stride",
        "1",
        1,
        32,
        "lds: word stride between lanes (bank-conflict degree gcd(stride, 32))",
    ),
    BINARY_VERSION,
];

pub static CHASE_PARAMS: [ParamDesc; 8] = [
    ParamDesc::word(
        "space",
        "global",
        &["global", "shared"],
        "global (LDG.E.64) or shared (LDS) memory",
    ),
    ParamDesc::num(
        "footprint",
        "4096",
        8,
        1 << 30,
        "bytes covered by the chain",
    ),
    ParamDesc::num(
        "stride",
        "128",
        8,
        1 << 30,
        "bytes between consecutive nodes (a multiple of 8, at most footprint)",
    ),
    ParamDesc::num("iters", "256", 1, 1 << 20, "dependent loads"),
    ParamDesc::num(
        "warm",
        "1",
        0,
        1,
        "1: copy the chain to the GPU first (the L2 holds it), 0: cold (first touches go to DRAM)",
    ),
    ParamDesc::num(
        "lanes",
        "1",
        1,
        32,
        "threads of the one warp, each its own chain: load j of lane l reads node \
         (j * lanes + l) % slots (32 lanes: one pass is slots / 32 warp loads)",
    ),
    ParamDesc::num(
        "ctas",
        "1",
        1,
        4096,
        "CTAs of `lanes` threads; chain k = cta * lanes + lane reads node (j * chains + k) % slots",
    ),
    BINARY_VERSION,
];

/// The SASS of `op` for chain register `d` (reads `d`, writes `d`), as nvcc emits it.
fn chain_inst(w: &mut super::WarpBuilder, op: &str, bv: u32, d: u8) {
    let (name, srcs): (&str, [u8; 3]) = match op {
        "ffma" => ("FFMA", [d, 3, 3]),
        "fadd" => ("FADD", [d, 3, 3]),
        "iadd3" => ("IADD3", [d, 3, 3]),
        "imad" => ("IMAD", [d, 3, 3]),
        "dfma" => ("DFMA", [d, 4, 4]),
        "mufu" => ("MUFU.EX2", [d, d, d]),
        "hmma" => (
            if bv >= 80 {
                "HMMA.16816.F32"
            } else if bv >= 75 {
                "HMMA.1688.F32"
            } else {
                "HMMA.884.F32.F32.STEP0"
            },
            [4, 6, d],
        ),
        _ => ("FFMA", [d, 3, 3]),
    };
    let n = if op == "mufu" { 1 } else { 3 };
    w.alu(name, &[r(d)], &[r(srcs[0]), r(srcs[1]), r(srcs[2])][..n]);
}

/// A chain of one instruction kind in a loop, so the code is fetched once and then hits the
/// instruction caches, as in the papers' unrolled loops. One CTA of `warps` warps; each warp
/// runs MOV R1, S2R R0, MOV R3, MOV R4 (constants), k x `MOV R(8+c) <- R0`, (ULDC.64), MOV R5 =
/// iters, then `iters` times the body (`unroll` rounds of the instruction on R(8+c) for
/// c = 0..k; for `lds`, `LDS R(8+c) <- [R(8+c)]` with lane l at shared word `l * stride`, a
/// fixed point) followed by IADD3, ISETP.NE, @P0 BRA; then IMAD.WIDE, STG of R8, EXIT.
pub fn chain(a: &Args) -> Result<MemTrace> {
    let op = a.word("op").to_string();
    let (unroll, iters, k, warps) = (
        a.num("unroll"),
        a.num("iters"),
        a.num("chains") as u8,
        a.u32("warps"),
    );
    let stride = a.num("stride");
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let mut lay = Layout::new();
    let out = lay.alloc(warps as u64 * 32 * 4);
    let lds = op == "lds";
    let mut kb = KernelBuilder::new(
        "_Z5chainPfi",
        Dim3::new(1, 1, 1),
        Dim3::new(32 * warps, 1, 1),
    )
    .binary_version(bv)
    .nregs(8 + k as u32 + 2);
    if lds {
        kb = kb.shmem_bytes((32 * 4 * stride) as u32);
    }
    kb.add_all_ctas(|w| {
        sass::stack_ptr(w);
        w.alu("S2R", &[r(0)], &[]);
        w.alu_imm("MOV", &[r(3)], &[], 0x3f80_0000);
        w.alu_imm("MOV", &[r(4)], &[], 0x3ff0_0000);
        for c in 0..k {
            w.alu("MOV", &[r(8 + c)], &[r(0)]);
        }
        sass::uldc(w, isa);
        w.alu_imm("MOV", &[r(5)], &[], iters);
        let top = w.pc();
        for it in 0..iters {
            w.set_pc(top);
            for _ in 0..unroll {
                for c in 0..k {
                    if lds {
                        w.mem("LDS", &[r(8 + c)], &[r(8 + c)], 4, |t| {
                            4 * stride * t.lane as u64
                        });
                    } else {
                        chain_inst(w, &op, bv, 8 + c);
                    }
                }
            }
            w.alu("IADD3", &[r(5)], &[r(5)]);
            w.alu("ISETP.NE.AND", &[], &[r(5)]);
            w.bra_if(if it + 1 < iters { u32::MAX } else { 0 }, top);
        }
        w.alu("IMAD.WIDE", &[r(6)], &[r(0), r(3)]);
        w.mem(isa.stg, &[], &[r(6), r(8)], 4, |t| out + 4 * t.flat as u64);
        w.exit();
    });
    Ok(lay.into_trace("chain", vec![kb.build()]))
}

/// Pointer chase by one thread (mask 0x1): MOV R1, MOV R2, MOV R3, (ULDC.64), MOV R0 = iters;
/// per iteration the load (`LDG.E.64 R2 <- [R2]` or `LDS R2 <- [R2]`), IADD3, ISETP.NE, @P0
/// BRA; then MOV, STG.E.64, EXIT. Load j reads node `j % (footprint / stride)`.
pub fn mem_chase(a: &Args) -> Result<MemTrace> {
    let shared = a.word("space") == "shared";
    let warm = a.num("warm") == 1;
    let (lanes, ctas) = (a.num("lanes"), a.num("ctas"));
    super::micro::chase(
        a,
        "mem_chase",
        "_Z9mem_chasePPvPS_i",
        shared,
        warm,
        (lanes, ctas),
    )
}
