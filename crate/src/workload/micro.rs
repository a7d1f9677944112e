//! Microbenchmarks whose behaviour can be derived by hand (the golden tests of the SM and the
//! memory system are written against them).
//!
//! ```text
//!  pointer_chase  1 thread (mask 0x1): p = *p, iters times    LDG.E.64 R2 <- [R2]: each address
//!                 node j at base + j*stride, next = (j+1) % (footprint/stride)   waits for the last
//!  ffma_dep       R2 = R2 * R3 + R3, n times in a row             latency-bound: n x FP32 latency
//!  ffma_indep     chains R8..R8+k-1 advanced round-robin, n each  throughput-bound once k >= latency
//!  bank_conflict  lane l accesses shared word l*stride, reps times   degree gcd(stride, 32)
//! ```

use super::builder::{r, KernelBuilder, Layout};
use super::params::{Args, ParamDesc};
use super::sass::{self, BINARY_VERSION};
use crate::trace::model::{Dim3, MemTrace};
use crate::Result;

pub static CHASE_PARAMS: [ParamDesc; 4] = [
    ParamDesc::num(
        "footprint",
        "65536",
        16,
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
    BINARY_VERSION,
];

/// nvcc's loop shape for the FFMA kernels: 0 = the chain written straight (one PC per FFMA),
/// u > 0 = a loop of u FFMAs (ffma_indep: u rounds of all chains) closed by IADD3, ISETP,
/// @P0 BRA, then the remainder straight. nvcc 13.0 for sm_90 unrolls ffma_dep by 64 and
/// ffma_indep (8 chains) by 8 rounds; a 4,096-FFMA straight chain is 64 KiB of code that
/// misses the instruction caches all the way, which the hardware's loop does not.
const FFMA_UNROLL: ParamDesc = ParamDesc::num(
    "unroll",
    "0",
    0,
    1 << 16,
    "FFMAs per loop trip (ffma_indep: rounds); 0 = straight-line code",
);

pub static FFMA_DEP_PARAMS: [ParamDesc; 4] = [
    ParamDesc::num("n", "1024", 1, 1 << 20, "FFMAs in the chain"),
    ParamDesc::num(
        "warps",
        "1",
        1,
        32,
        "warps in the single CTA (each runs the same chain)",
    ),
    FFMA_UNROLL,
    BINARY_VERSION,
];

pub static FFMA_INDEP_PARAMS: [ParamDesc; 5] = [
    ParamDesc::num("n", "256", 1, 1 << 16, "FFMAs per chain"),
    ParamDesc::num(
        "chains",
        "8",
        1,
        64,
        "independent chains, interleaved round-robin",
    ),
    ParamDesc::num("warps", "1", 1, 32, "warps in the single CTA"),
    FFMA_UNROLL,
    BINARY_VERSION,
];

pub static BANK_PARAMS: [ParamDesc; 5] = [
    ParamDesc::num(
        "stride",
        "1",
        1,
        64,
        "word (4-byte) stride between lanes: conflict degree gcd(stride, 32)",
    ),
    ParamDesc::num("reps", "64", 1, 4096, "shared accesses per warp"),
    ParamDesc::word("op", "lds", &["lds", "sts"], "load (LDS) or store (STS)"),
    ParamDesc::num(
        "warps",
        "1",
        1,
        32,
        "warps in the single CTA (all use the same offsets)",
    ),
    BINARY_VERSION,
];

/// Pointer chase: one CTA of one thread, so every instruction has mask 0x1. Instructions:
/// `8 + 4 * iters` on sm_80 (`7 + 4 * iters` before): MOV R1, MOV R2, MOV R3, (ULDC.64), MOV R0
/// = iters; per iteration `LDG.E.64 R2,R3 <- [R2]`, IADD3, ISETP.NE, @P0 BRA (taken but the
/// last); then MOV, STG.E.64, EXIT. Load j (from 0) reads
/// `base + ((j % (footprint / stride)) * stride)`, base = 0x7f0000000000; the result is stored
/// at the next array (Layout rule).
pub fn pointer_chase(a: &Args) -> Result<MemTrace> {
    chase(
        a,
        "pointer_chase",
        "_Z13pointer_chasePPvPS_i",
        false,
        true,
        (1, 1),
    )
}

/// The chase kernel behind `pointer_chase` and `mem_chase`: global loads from an array that the
/// host copied in (`warm`) or only allocated, or shared-memory loads (`LDS`, base 0). With
/// `(lanes, ctas)` other than (1, 1), `ctas` CTAs of `lanes` threads chase `lanes * ctas`
/// interleaved chains: chain k = cta * lanes + lane reads nodes k, k + chains, ...
pub(super) fn chase(
    a: &Args,
    trace_name: &str,
    kernel_name: &str,
    shared: bool,
    warm: bool,
    (lanes, ctas): (u64, u64),
) -> Result<MemTrace> {
    let (fp, stride, iters) = (a.num("footprint"), a.num("stride"), a.num("iters"));
    if stride % 8 != 0 {
        return Err(a.error(
            "stride",
            format!("{stride} is not a multiple of 8 (pointers are 8 bytes)"),
        ));
    }
    if stride > fp {
        return Err(a.error(
            "stride",
            format!("{stride} is larger than the footprint ({fp})"),
        ));
    }
    if shared && fp > 1 << 20 {
        return Err(a.error(
            "footprint",
            format!("{fp} bytes of shared memory (at most 1 MiB)"),
        ));
    }
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let slots = fp / stride;
    let mut lay = Layout::new();
    let base = if shared {
        0
    } else if warm {
        lay.input(fp)
    } else {
        lay.alloc(fp)
    };
    let out = lay.alloc(8);
    let chains = lanes * ctas;
    let block = Dim3::new(lanes as u32, 1, 1);
    let mut kb = KernelBuilder::new(kernel_name, Dim3::new(ctas as u32, 1, 1), block)
        .binary_version(bv)
        .nregs(8);
    if shared {
        kb = kb.shmem_bytes(fp as u32);
    }
    kb.add_all_ctas(|w| {
        let first = w.cta_linear() * lanes;
        sass::stack_ptr(w);
        w.alu("MOV", &[r(2)], &[]);
        w.alu("MOV", &[r(3)], &[]);
        sass::uldc(w, isa);
        w.alu_imm("MOV", &[r(0)], &[], iters);
        let top = w.pc();
        for j in 0..iters {
            w.set_pc(top);
            let addr = |t: &super::builder::Thread| {
                base + ((j * chains + first + t.flat as u64) % slots) * stride
            };
            if shared {
                w.mem("LDS", &[r(2)], &[r(2)], 4, addr);
            } else {
                w.mem(isa.ldg64, &[r(2), r(3)], &[r(2)], 8, addr);
            }
            w.alu("IADD3", &[r(0)], &[r(0)]);
            w.alu("ISETP.NE.AND", &[], &[r(0)]);
            w.bra_if(if j + 1 < iters { u32::MAX } else { 0 }, top);
        }
        w.alu("MOV", &[r(4)], &[]);
        w.mem(
            if isa.uldc { "STG.E.64" } else { "STG.E.64.SYS" },
            &[],
            &[r(4), r(2)],
            8,
            |t| out + 8 * (first + t.flat as u64),
        );
        w.exit();
    });
    Ok(lay.into_trace(trace_name, vec![kb.build()]))
}

/// Dependent FFMA chain: each warp runs `9 + n` instructions on sm_80 (`8 + n` before):
/// MOV R1, S2R R0, I2F R2, MOV R3, then `FFMA R2 <- R2, R3, R3` n times (FFMA i reads the R2
/// written by FFMA i-1), then (ULDC.64), MOV, IMAD.WIDE, STG, EXIT. With `unroll` u > 0 the
/// FFMAs are a loop ([`ffma_loop`]).
pub fn ffma_dep(a: &Args) -> Result<MemTrace> {
    let (n, warps, unroll) = (a.num("n"), a.u32("warps"), a.num("unroll"));
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let mut lay = Layout::new();
    let out = lay.alloc(warps as u64 * 32 * 4);
    let mut kb = KernelBuilder::new(
        "_Z8ffma_depPfi",
        Dim3::new(1, 1, 1),
        Dim3::new(32 * warps, 1, 1),
    )
    .binary_version(bv)
    .nregs(8);
    kb.add_all_ctas(|w| {
        prologue(w);
        ffma_loop(w, n, unroll, |w| {
            w.alu("FFMA", &[r(2)], &[r(2), r(3), r(3)]);
        });
        epilogue(w, isa, out);
    });
    Ok(lay.into_trace("ffma_dep", vec![kb.build()]))
}

/// Independent FFMA chains: each warp runs `9 + 2k + n*k` instructions on sm_80 (one fewer
/// before): MOV R1, S2R R0, I2F R2, MOV R3, k x `MOV R(8+c) <- R2`, then n rounds of
/// `FFMA R(8+c) <- R(8+c), R3, R3` for c = 0..k (consecutive FFMAs are independent when k > 1),
/// then k-1 FADDs folding the chains into R8, MOV R2 <- R8, and (ULDC.64), MOV, IMAD.WIDE,
/// STG, EXIT. With `unroll` u > 0 the rounds are a loop ([`ffma_loop`]).
pub fn ffma_indep(a: &Args) -> Result<MemTrace> {
    let (n, k, warps) = (a.num("n"), a.num("chains") as u8, a.u32("warps"));
    let unroll = a.num("unroll");
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let mut lay = Layout::new();
    let out = lay.alloc(warps as u64 * 32 * 4);
    let mut kb = KernelBuilder::new(
        "_Z10ffma_indepPfi",
        Dim3::new(1, 1, 1),
        Dim3::new(32 * warps, 1, 1),
    )
    .binary_version(bv)
    .nregs(8 + k as u32 + 2);
    kb.add_all_ctas(|w| {
        prologue(w);
        for c in 0..k {
            w.alu("MOV", &[r(8 + c)], &[r(2)]);
        }
        ffma_loop(w, n, unroll, |w| {
            for c in 0..k {
                w.alu("FFMA", &[r(8 + c)], &[r(8 + c), r(3), r(3)]);
            }
        });
        for c in 1..k {
            w.alu("FADD", &[r(8)], &[r(8), r(8 + c)]);
        }
        w.alu("MOV", &[r(2)], &[r(8)]);
        epilogue(w, isa, out);
    });
    Ok(lay.into_trace("ffma_indep", vec![kb.build()]))
}

/// `n` rounds of `round`: straight when `unroll` is 0, else `n / unroll` trips of a loop
/// (MOV R5 <- trips; per trip `unroll` rounds, IADD3 R5, ISETP.NE R5, @P0 BRA back; the same
/// PCs every trip), then the `n % unroll` rounds left, straight.
fn ffma_loop(
    w: &mut super::WarpBuilder,
    n: u64,
    unroll: u64,
    mut round: impl FnMut(&mut super::WarpBuilder),
) {
    let (trips, rest) = match n.checked_div(unroll) {
        Some(trips) => (trips, n % unroll),
        None => (0, n),
    };
    if trips > 0 {
        w.alu_imm("MOV", &[r(5)], &[], trips);
        let top = w.pc();
        for t in 0..trips {
            w.set_pc(top);
            for _ in 0..unroll {
                round(w);
            }
            w.alu("IADD3", &[r(5)], &[r(5)]);
            w.alu("ISETP.NE.AND", &[], &[r(5)]);
            w.bra_if(if t + 1 < trips { u32::MAX } else { 0 }, top);
        }
    }
    for _ in 0..rest {
        round(w);
    }
}

fn prologue(w: &mut super::WarpBuilder) {
    sass::stack_ptr(w);
    w.alu("S2R", &[r(0)], &[]);
    w.alu("I2F", &[r(2)], &[r(0)]);
    w.alu_imm("MOV", &[r(3)], &[], 0x3f80_0000);
}

fn epilogue(w: &mut super::WarpBuilder, isa: &sass::Isa, out: u64) {
    sass::uldc(w, isa);
    w.alu_imm("MOV", &[r(5)], &[], 4);
    w.alu("IMAD.WIDE", &[r(6)], &[r(0), r(5)]);
    w.mem(isa.stg, &[], &[r(6), r(2)], 4, |t| out + 4 * t.flat as u64);
    w.exit();
}

/// Shared-memory bank conflicts: each warp runs `5 + reps` instructions: MOV R1, S2R R0,
/// LOP3.LUT (lane), IMAD.SHL (offset), `reps` LDS (`LDS R(4 + i%16) <- [R2]`) or STS, EXIT.
/// Lane l accesses shared offset `4 * stride * l`: 32 / gcd(stride, 32) distinct banks, each hit
/// by gcd(stride, 32) distinct words, so every access takes gcd(stride, 32) wavefronts.
pub fn bank_conflict(a: &Args) -> Result<MemTrace> {
    let (stride, reps, warps) = (a.num("stride"), a.num("reps"), a.u32("warps"));
    let lds = a.word("op") == "lds";
    let bv = a.u32("binary_version");
    let lay = Layout::new();
    let mut kb = KernelBuilder::new(
        "_Z13bank_conflictPfi",
        Dim3::new(1, 1, 1),
        Dim3::new(32 * warps, 1, 1),
    )
    .binary_version(bv)
    .nregs(24)
    .shmem_bytes((32 * stride * 4) as u32);
    kb.add_all_ctas(|w| {
        sass::stack_ptr(w);
        w.alu("S2R", &[r(0)], &[]);
        w.alu("LOP3.LUT", &[r(2)], &[r(0)]);
        w.alu("IMAD.SHL", &[r(2)], &[r(2)]);
        for i in 0..reps {
            let off = |t: &super::Thread| 4 * stride * t.lane as u64;
            if lds {
                w.mem("LDS", &[r(4 + (i % 16) as u8)], &[r(2)], 4, off);
            } else {
                w.mem("STS", &[], &[r(2), r(0)], 4, off);
            }
        }
        w.exit();
    });
    Ok(lay.into_trace("bank_conflict", vec![kb.build()]))
}
