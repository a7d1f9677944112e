//! Matrix transpose, `out = in^T` for a `rows x cols` float matrix (row-major), the second
//! kernel of seed 003. Two versions:
//!
//! ```text
//!  naive: block (32,8), one element per thread          tiled: block (32,8), a 32x32 tile
//!   x = bx*32+tx, y = by*8+ty                             4 x LDG in[(by*32+ty+j)*cols + bx*32+tx]
//!   out[x*rows + y] = in[y*cols + x]                      4 x STS tile[ty+j][tx]        (j = 0,8,16,24)
//!   loads coalesced (128 B per warp),                     BAR.SYNC
//!   stores 32 lines per warp                              4 x LDS tile[tx][ty+j]  (32-way bank conflict
//!                                                         4 x STG out[(bx*32+ty+j)*rows + by*32+tx]
//!                                                                     unless pad=1: row stride 33)
//! ```
//! Arrays: `in` at 0x7f0000000000 (an input, copied in), `out` after it (Layout rule).

use super::builder::{r, KernelBuilder, Layout};
use super::params::{Args, ParamDesc};
use super::sass::{self, BINARY_VERSION};
use crate::trace::model::{Dim3, MemTrace};
use crate::Result;

pub static NAIVE_PARAMS: [ParamDesc; 3] = [
    ParamDesc::num("rows", "256", 1, 8192, "rows of the input matrix"),
    ParamDesc::num("cols", "256", 1, 8192, "columns of the input matrix"),
    BINARY_VERSION,
];

pub static TILED_PARAMS: [ParamDesc; 4] = [
    ParamDesc::num(
        "rows",
        "256",
        32,
        8192,
        "rows of the input matrix (a multiple of 32)",
    ),
    ParamDesc::num(
        "cols",
        "256",
        32,
        8192,
        "columns of the input matrix (a multiple of 32)",
    ),
    ParamDesc::num(
        "pad",
        "0",
        0,
        1,
        "1: tile rows padded to 33 floats (no bank conflicts on the LDS)",
    ),
    BINARY_VERSION,
];

/// Naive transpose: a full in-bounds warp runs 19 instructions on sm_80 (18 on sm_70/75); a
/// warp entirely out of bounds runs 10. Thread (x, y) loads `in + 4*(y*cols + x)` and stores
/// `out + 4*(x*rows + y)`.
pub fn naive(a: &Args) -> Result<MemTrace> {
    let (rows, cols) = (a.num("rows"), a.num("cols"));
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let mut lay = Layout::new();
    let pin = lay.input(rows * cols * 4);
    let pout = lay.alloc(rows * cols * 4);
    let grid = Dim3::new(cols.div_ceil(32) as u32, rows.div_ceil(8) as u32, 1);
    let mut kb = KernelBuilder::new("_Z15transpose_naivePfPKfii", grid, Dim3::new(32, 8, 1))
        .binary_version(bv)
        .nregs(10);
    kb.add_all_ctas(|w| {
        sass::stack_ptr(w);
        w.alu("S2R", &[r(0)], &[]);
        w.alu("S2R", &[r(3)], &[]);
        w.alu("S2R", &[r(5)], &[]);
        w.alu("S2R", &[r(2)], &[]);
        w.alu("IMAD", &[r(0)], &[r(0), r(3)]);
        w.alu("ISETP.GE.AND", &[], &[r(0)]);
        w.alu("IMAD", &[r(5)], &[r(5), r(2)]);
        w.alu("ISETP.GE.OR", &[], &[r(5)]);
        let oob = w.lanes(|t| t.gx >= cols || t.gy >= rows);
        if !w.exit_if(oob) {
            return;
        }
        w.alu_imm("MOV", &[r(4)], &[], 4);
        sass::uldc(w, isa);
        w.alu("IMAD", &[r(2)], &[r(0), r(5)]);
        w.alu("IMAD.WIDE", &[r(2)], &[r(2), r(4)]);
        w.mem(isa.ldg, &[r(2)], &[r(2)], 4, |t| {
            pin + 4 * (t.gy * cols + t.gx)
        });
        w.alu("IMAD", &[r(5)], &[r(5), r(0)]);
        w.alu("IMAD.WIDE", &[r(4)], &[r(5), r(4)]);
        w.mem(isa.stg, &[], &[r(4), r(2)], 4, |t| {
            pout + 4 * (t.gx * rows + t.gy)
        });
        w.exit();
    });
    Ok(lay.into_trace("transpose_naive", vec![kb.build()]))
}

/// Tiled transpose (the CUDA sample's `transposeCoalesced`): every warp runs 35 instructions on
/// sm_80 (34 on sm_70/75): 4 LDG, 4 STS, BAR.SYNC, 4 LDS, 4 STG and address arithmetic.
/// Shared offsets: STS `4*((ty+j)*S + tx)`, LDS `4*(tx*S + ty + j)` with S = 32 + pad.
pub fn tiled(a: &Args) -> Result<MemTrace> {
    let (rows, cols) = (a.num("rows"), a.num("cols"));
    for (k, v) in [("rows", rows), ("cols", cols)] {
        if v % 32 != 0 {
            return Err(a.error(k, format!("{v} is not a multiple of the 32-wide tile")));
        }
    }
    let s = 32 + a.num("pad");
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let mut lay = Layout::new();
    let pin = lay.input(rows * cols * 4);
    let pout = lay.alloc(rows * cols * 4);
    let grid = Dim3::new((cols / 32) as u32, (rows / 32) as u32, 1);
    let mut kb = KernelBuilder::new("_Z15transpose_tiledPfPKfii", grid, Dim3::new(32, 8, 1))
        .binary_version(bv)
        .nregs(16)
        .shmem_bytes((32 * s * 4) as u32);
    kb.add_all_ctas(|w| {
        sass::stack_ptr(w);
        for reg in [0, 3, 2, 5] {
            w.alu("S2R", &[r(reg)], &[]);
        }
        w.alu_imm("MOV", &[r(9)], &[], 4);
        sass::uldc(w, isa);
        w.alu("LEA", &[r(4)], &[r(0), r(3)]);
        w.alu("LEA", &[r(6)], &[r(2), r(5)]);
        w.alu("IMAD", &[r(7)], &[r(6), r(4)]);
        w.alu("IMAD.WIDE", &[r(10)], &[r(7), r(9)]);
        // in[(by*32 + ty + j) * cols + bx*32 + tx]
        let load = |t: &super::Thread, j: u64| {
            let (bx, by) = (t.cta.x as u64, t.cta.y as u64);
            pin + 4 * ((by * 32 + t.tid.y as u64 + j) * cols + bx * 32 + t.tid.x as u64)
        };
        for j in 0..4u8 {
            w.mem(isa.ldg, &[r(12 + j)], &[r(10)], 4, |t| {
                load(t, 8 * j as u64)
            });
        }
        w.alu("IMAD", &[r(8)], &[r(5), r(3)]);
        for j in 0..4u8 {
            w.mem("STS", &[], &[r(8), r(12 + j)], 4, |t| {
                4 * ((t.tid.y as u64 + 8 * j as u64) * s + t.tid.x as u64)
            });
        }
        w.bar();
        w.alu("LEA", &[r(0)], &[r(0), r(5)]);
        w.alu("LEA", &[r(2)], &[r(2), r(3)]);
        w.alu("IMAD", &[r(3)], &[r(3), r(5)]);
        for j in 0..4u8 {
            w.mem("LDS", &[r(12 + j)], &[r(3)], 4, |t| {
                4 * (t.tid.x as u64 * s + t.tid.y as u64 + 8 * j as u64)
            });
        }
        w.alu("IMAD", &[r(7)], &[r(0), r(2)]);
        w.alu("IMAD.WIDE", &[r(10)], &[r(7), r(9)]);
        // out[(bx*32 + ty + j) * rows + by*32 + tx]
        let store = |t: &super::Thread, j: u64| {
            let (bx, by) = (t.cta.x as u64, t.cta.y as u64);
            pout + 4 * ((bx * 32 + t.tid.y as u64 + j) * rows + by * 32 + t.tid.x as u64)
        };
        for j in 0..4u8 {
            w.mem(isa.stg, &[], &[r(10), r(12 + j)], 4, |t| {
                store(t, 8 * j as u64)
            });
        }
        w.exit();
    });
    Ok(lay.into_trace("transpose_tiled", vec![kb.build()]))
}
