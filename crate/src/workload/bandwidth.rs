//! Bandwidth microbenchmark: every thread streams 16-byte loads (`LDG.E.128`), independent of
//! each other, so the SMs keep as many requests in flight as their warps and MSHRs allow.
//!
//! ```text
//!  reuse=1  CTA c re-reads its own `region` bytes:  load r, thread t -> c*region + (r*B+t)*16 % region
//!           (fits the L1: after the first pass every load hits: L1 bandwidth)
//!  reuse=0  every load touches a new 16 B:          load r, CTA c, thread t -> ((r*C + c)*B + t)*16
//!           warm=1 (copied first, fits the L2): L2 bandwidth; warm=0 (cold): DRAM bandwidth
//! ```
//! Measured as bytes per cycle from two rep counts, so launch and the first pass cancel.

use super::builder::{r, KernelBuilder, Layout};
use super::params::{Args, ParamDesc};
use super::sass::{self, BINARY_VERSION};
use crate::trace::model::{Dim3, MemTrace};
use crate::Result;

pub static STREAM_PARAMS: [ParamDesc; 8] = [
    ParamDesc::num("ctas", "1", 1, 1 << 16, "CTAs (one per SM when ctas = SMs)"),
    ParamDesc::num(
        "threads",
        "256",
        32,
        1024,
        "threads per CTA, a multiple of 32",
    ),
    ParamDesc::num(
        "reps",
        "1",
        1,
        4096,
        "loop iterations (unroll * reps 16-byte loads per thread)",
    ),
    ParamDesc::num("unroll", "8", 1, 8, "loads per loop iteration"),
    ParamDesc::num(
        "reuse",
        "0",
        0,
        1,
        "1: each CTA re-reads its own region (L1 hits); 0: every load is a new address",
    ),
    ParamDesc::num(
        "region",
        "16384",
        512,
        1 << 24,
        "bytes each CTA re-reads when reuse = 1 (a multiple of 16 * threads)",
    ),
    ParamDesc::num(
        "warm",
        "1",
        0,
        1,
        "1: copy the data to the GPU first (the L2 holds what fits), 0: cold",
    ),
    BINARY_VERSION,
];

/// Streaming loads in a loop: MOV R1, S2R R0 (tid), S2R R2 (ctaid), IMAD (address into R4),
/// MOV R5 = reps, then `reps` times { `unroll` x `LDG.E.128 R(8 + 4*j) <- [R4]` (a destination
/// each, so loads never wait for each other), IADD3, ISETP.NE, @P0 BRA }, EXIT. Load number
/// `unroll * i + j` of a thread is the `r` of the address formulas above.
pub fn stream_load(a: &Args) -> Result<MemTrace> {
    let (ctas, threads, reps) = (a.num("ctas"), a.num("threads"), a.num("reps"));
    let unroll = a.num("unroll");
    let (reuse, region) = (a.num("reuse") == 1, a.num("region"));
    if threads % 32 != 0 {
        return Err(a.error("threads", format!("{threads} is not a multiple of 32")));
    }
    if reuse && region % (16 * threads) != 0 {
        return Err(a.error(
            "region",
            format!(
                "{region} is not a multiple of 16 * threads = {}",
                16 * threads
            ),
        ));
    }
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let bytes = if reuse {
        ctas * region
    } else {
        ctas * threads * reps * unroll * 16
    };
    let mut lay = Layout::new();
    let base = if a.num("warm") == 1 {
        lay.input(bytes)
    } else {
        lay.alloc(bytes)
    };
    let mut kb = KernelBuilder::new(
        "_Z11stream_loadP6float4i",
        Dim3::new(ctas as u32, 1, 1),
        Dim3::new(threads as u32, 1, 1),
    )
    .binary_version(bv)
    .nregs(48);
    kb.add_all_ctas(|w| {
        let c = w.cta_linear();
        sass::stack_ptr(w);
        w.alu("S2R", &[r(0)], &[]);
        w.alu("S2R", &[r(2)], &[]);
        w.alu("IMAD", &[r(4)], &[r(2), r(0)]);
        w.alu_imm("MOV", &[r(5)], &[], reps);
        let top = w.pc();
        for i in 0..reps {
            w.set_pc(top);
            for j in 0..unroll {
                let rep = unroll * i + j;
                let dst = 8 + 4 * j as u8;
                w.mem(isa.ldg128, &[r(dst)], &[r(4)], 16, |t| {
                    let t = t.flat as u64;
                    if reuse {
                        base + c * region + ((rep * threads + t) * 16) % region
                    } else {
                        base + ((rep * ctas + c) * threads + t) * 16
                    }
                });
            }
            w.alu("IADD3", &[r(5)], &[r(5)]);
            w.alu("ISETP.NE.AND", &[], &[r(5)]);
            w.bra_if(if i + 1 < reps { u32::MAX } else { 0 }, top);
        }
        w.exit();
    });
    Ok(lay.into_trace("stream_load", vec![kb.build()]))
}
