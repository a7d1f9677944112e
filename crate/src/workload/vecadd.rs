//! Streaming kernels: `vecadd` (c = a + b) and `saxpy` (y = a*x + y), one element (or one
//! float4) per thread, a bounds check that leaves the last warp partial.
//!
//! ```text
//!  thread i:  i = blockIdx.x*blockDim.x + threadIdx.x ; if (i >= n) return ;
//!             c[i] = a[i] + b[i]                       (vecadd)
//!             y[i] = alpha * x[i] + y[i]               (saxpy)
//!  arrays (Layout rule): a/x at 0x7f0000000000, b/y next (512 B or 2 MiB aligned), c after b
//! ```
//! The vectoradd kernel is the first example of seed 003 (vector multiply) and the shape of the
//! real `microgpusim-vectoradd-100-32` trace.

use super::builder::{r, KernelBuilder, Layout};
use super::params::{Args, ParamDesc};
use super::sass::{self, BINARY_VERSION};
use crate::trace::model::{Dim3, MemTrace};
use crate::Result;

pub static VECADD_PARAMS: [ParamDesc; 4] = [
    ParamDesc::num("n", "4096", 1, 1 << 26, "number of float elements"),
    ParamDesc::num("block", "128", 32, 1024, "threads per block"),
    ParamDesc::num(
        "vec",
        "1",
        1,
        4,
        "floats per thread: 1 (LDG.E) or 4 (LDG.E.128, needs n % 4 == 0)",
    ),
    BINARY_VERSION,
];

pub static SAXPY_PARAMS: [ParamDesc; 3] = [
    ParamDesc::num("n", "4096", 1, 1 << 26, "number of float elements"),
    ParamDesc::num("block", "256", 32, 1024, "threads per block"),
    BINARY_VERSION,
];

/// `vecadd`: per full warp 16 instructions on sm_80 (15 on sm_70/75, no ULDC.64); a warp whose
/// lanes are all out of bounds runs 6 (MOV, S2R, S2R, IMAD, ISETP, @P0 EXIT).
///
/// Addresses: lane with index i loads `a + 4i` and `b + 4i` and stores `c + 4i`
/// (`16i` with `vec=4`, 16-byte accesses).
pub fn vecadd(a: &Args) -> Result<MemTrace> {
    let n = a.num("n");
    let block = a.u32("block");
    let vec = a.num("vec");
    if vec != 1 && vec != 4 {
        return Err(a.error("vec", format!("{vec} is not allowed (allowed: 1, 4)")));
    }
    if vec == 4 && !n.is_multiple_of(4) {
        return Err(a.error("vec", format!("vec=4 needs n divisible by 4, n is {n}")));
    }
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let threads = n / vec;
    let grid = threads.div_ceil(block as u64) as u32;
    let bytes = n * 4;
    let mut lay = Layout::new();
    let (pa, pb) = (lay.input(bytes), lay.input(bytes));
    let pc = lay.alloc(bytes);
    let width = 4 * vec as u16;
    let (ld, st) = if vec == 4 {
        (isa.ldg128, isa.stg128)
    } else {
        (isa.ldg, isa.stg)
    };
    let mut kb = KernelBuilder::new(
        "_Z6vecaddPKfS0_Pfi",
        Dim3::new(grid, 1, 1),
        Dim3::new(block, 1, 1),
    )
    .binary_version(bv)
    .nregs(if vec == 4 { 16 } else { 10 });
    let w4 = width as u64;
    kb.add_all_ctas(|w| {
        sass::stack_ptr(w);
        sass::global_index_x(w, r(6), r(3));
        let oob = w.lanes(|t| t.gx >= threads);
        if !sass::bounds_exit(w, r(6), oob) {
            return;
        }
        w.alu_imm("MOV", &[r(7)], &[], w4);
        sass::uldc(w, isa);
        w.alu("IMAD.WIDE", &[r(2)], &[r(6), r(7)]);
        w.alu("IMAD.WIDE", &[r(4)], &[r(6), r(7)]);
        if vec == 4 {
            w.mem(ld, &[r(8), r(9), r(10), r(11)], &[r(2)], width, |t| {
                pa + w4 * t.gx
            });
            w.mem(ld, &[r(12), r(13), r(14), r(15)], &[r(4)], width, |t| {
                pb + w4 * t.gx
            });
            w.alu("IMAD.WIDE", &[r(6)], &[r(6), r(7)]);
            for k in 0..4u8 {
                w.alu("FADD", &[r(8 + k)], &[r(8 + k), r(12 + k)]);
            }
            w.mem(st, &[], &[r(6), r(8)], width, |t| pc + w4 * t.gx);
        } else {
            w.mem(ld, &[r(2)], &[r(2)], width, |t| pa + w4 * t.gx);
            w.mem(ld, &[r(5)], &[r(4)], width, |t| pb + w4 * t.gx);
            w.alu("IMAD.WIDE", &[r(6)], &[r(6), r(7)]);
            w.alu("FADD", &[r(9)], &[r(2), r(5)]);
            w.mem(st, &[], &[r(6), r(9)], width, |t| pc + w4 * t.gx);
        }
        w.exit();
    });
    Ok(lay.into_trace("vecadd", vec![kb.build()]))
}

/// `saxpy`: per full warp 15 instructions on sm_80 (14 on sm_70/75); an all-out-of-bounds warp
/// runs 6. Lane with index i loads `x + 4i` then `y + 4i` and stores `y + 4i`.
pub fn saxpy(a: &Args) -> Result<MemTrace> {
    let n = a.num("n");
    let block = a.u32("block");
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let grid = n.div_ceil(block as u64) as u32;
    let mut lay = Layout::new();
    let (px, py) = (lay.input(n * 4), lay.input(n * 4));
    let mut kb = KernelBuilder::new(
        "_Z5saxpyifPKfPf",
        Dim3::new(grid, 1, 1),
        Dim3::new(block, 1, 1),
    )
    .binary_version(bv)
    .nregs(8);
    kb.add_all_ctas(|w| {
        sass::stack_ptr(w);
        sass::global_index_x(w, r(4), r(3));
        let oob = w.lanes(|t| t.gx >= n);
        if !sass::bounds_exit(w, r(4), oob) {
            return;
        }
        w.alu_imm("MOV", &[r(5)], &[], 4);
        sass::uldc(w, isa);
        w.alu("IMAD.WIDE", &[r(2)], &[r(4), r(5)]);
        w.alu("IMAD.WIDE", &[r(4)], &[r(4), r(5)]);
        w.mem(isa.ldg, &[r(2)], &[r(2)], 4, |t| px + 4 * t.gx);
        w.mem(isa.ldg, &[r(7)], &[r(4)], 4, |t| py + 4 * t.gx);
        w.alu("FFMA", &[r(7)], &[r(2), r(7)]);
        w.mem(isa.stg, &[], &[r(4), r(7)], 4, |t| py + 4 * t.gx);
        w.exit();
    });
    Ok(lay.into_trace("saxpy", vec![kb.build()]))
}
