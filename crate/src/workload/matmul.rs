//! Matrix multiply `C[M x N] = A[M x K] * B[K x N]` (row-major floats), the third kernel of
//! seed 003. Thread (col = gx, row = gy) computes `C[row*N + col]`.
//!
//! ```text
//!  naive (block 16x16)                        tiled (block T x T, T = tile)
//!  for k in 0..K step 4:       loop body       for t in 0..K/T:                 loop body
//!    4 x LDG A[row*K + k+i]    = 20 insts        LDG A[row*K + t*T + tx]         = 11 + 9T/4 insts
//!    4 x LDG B[(k+i)*N + col]                    LDG B[(t*T + ty)*N + col]
//!    4 x FFMA acc                                STS As[ty][tx], STS Bs[ty][tx], BAR.SYNC
//!    @P0 BRA back                                T/4 x (LDS.128 As[ty][k..k+4], 4 x LDS Bs[k+i][tx],
//!  STG C[row*N + col]                                   4 x FFMA)
//!                                                BAR.SYNC, @P0 BRA back
//!                                              STG C[row*N + col]
//! ```
//! Arrays: A at 0x7f0000000000, B after it, C after B (Layout rule); A and B are copied in.
//! Shared (tiled): As at offset 0, Bs at `T*T*4`.

use super::builder::{r, KernelBuilder, Layout, Thread, RZ};
use super::params::{Args, ParamDesc};
use super::sass::{self, BINARY_VERSION};
use crate::trace::model::{Dim3, MemTrace};
use crate::Result;

pub static NAIVE_PARAMS: [ParamDesc; 4] = [
    ParamDesc::num("m", "64", 1, 4096, "rows of A and C"),
    ParamDesc::num("n", "64", 1, 4096, "columns of B and C"),
    ParamDesc::num(
        "k",
        "64",
        4,
        4096,
        "columns of A, rows of B (a multiple of 4: the loop is unrolled by 4)",
    ),
    BINARY_VERSION,
];

pub static TILED_PARAMS: [ParamDesc; 5] = [
    ParamDesc::num("m", "64", 16, 4096, "rows of A and C (a multiple of tile)"),
    ParamDesc::num(
        "n",
        "64",
        16,
        4096,
        "columns of B and C (a multiple of tile)",
    ),
    ParamDesc::num(
        "k",
        "64",
        16,
        4096,
        "columns of A, rows of B (a multiple of tile)",
    ),
    ParamDesc::num(
        "tile",
        "16",
        16,
        32,
        "tile edge T: 16 or 32 (block T x T, shared memory 2*T*T*4 bytes)",
    ),
    BINARY_VERSION,
];

/// Naive matmul: a full in-bounds warp runs `21 + 5K` instructions on sm_80 (`20 + 5K` on
/// sm_70/75): 17 before the loop (loop top at PC 0x110 on sm_80), `K/4` iterations of 20
/// ending with the backward BRA (at 0x240; taken but the last time), and 4 after (IMAD,
/// IMAD.WIDE, STG, EXIT). An all-out-of-bounds warp runs 10.
pub fn naive(a: &Args) -> Result<MemTrace> {
    let (m, n, k) = (a.num("m"), a.num("n"), a.num("k"));
    if k % 4 != 0 {
        return Err(a.error(
            "k",
            format!("{k} is not a multiple of 4 (the inner loop is unrolled by 4)"),
        ));
    }
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let mut lay = Layout::new();
    let pa = lay.input(m * k * 4);
    let pb = lay.input(k * n * 4);
    let pc = lay.alloc(m * n * 4);
    let grid = Dim3::new(n.div_ceil(16) as u32, m.div_ceil(16) as u32, 1);
    let mut kb = KernelBuilder::new("_Z12matmul_naivePKfS0_Pfiii", grid, Dim3::new(16, 16, 1))
        .binary_version(bv)
        .nregs(28);
    kb.add_all_ctas(|w| {
        sass::stack_ptr(w);
        for reg in [0, 3, 5, 2] {
            w.alu("S2R", &[r(reg)], &[]);
        }
        w.alu("IMAD", &[r(0)], &[r(0), r(3)]);
        w.alu("ISETP.GE.AND", &[], &[r(0)]);
        w.alu("IMAD", &[r(5)], &[r(5), r(2)]);
        w.alu("ISETP.GE.OR", &[], &[r(5)]);
        let oob = w.lanes(|t| t.gx >= n || t.gy >= m);
        if !w.exit_if(oob) {
            return;
        }
        w.alu_imm("MOV", &[r(4)], &[], 4);
        sass::uldc(w, isa);
        w.alu("IMAD", &[r(2)], &[r(0)]);
        w.alu("MOV", &[r(24)], &[RZ]);
        w.alu("IMAD.WIDE", &[r(8)], &[r(5), r(4)]);
        w.alu("IMAD.WIDE", &[r(6)], &[r(2), r(4)]);
        w.alu("MOV", &[r(3)], &[RZ]);
        let top = w.pc();
        let iters = k / 4;
        let fa = |t: &Thread, kk: u64| pa + 4 * (t.gy * k + kk);
        let fb = |t: &Thread, kk: u64| pb + 4 * (kk * n + t.gx);
        for it in 0..iters {
            w.set_pc(top);
            let k0 = it * 4;
            w.mem(isa.ldg, &[r(10)], &[r(6)], 4, |t| fa(t, k0));
            w.mem(isa.ldg, &[r(11)], &[r(8)], 4, |t| fb(t, k0));
            w.alu("IMAD.WIDE", &[r(16)], &[r(8)]);
            w.mem(isa.ldg, &[r(12)], &[r(6)], 4, |t| fa(t, k0 + 1));
            w.mem(isa.ldg, &[r(13)], &[r(16)], 4, |t| fb(t, k0 + 1));
            w.alu("IMAD.WIDE", &[r(18)], &[r(16)]);
            w.mem(isa.ldg, &[r(14)], &[r(6)], 4, |t| fa(t, k0 + 2));
            w.mem(isa.ldg, &[r(15)], &[r(18)], 4, |t| fb(t, k0 + 2));
            w.alu("IMAD.WIDE", &[r(20)], &[r(18)]);
            w.mem(isa.ldg, &[r(22)], &[r(6)], 4, |t| fa(t, k0 + 3));
            w.mem(isa.ldg, &[r(23)], &[r(20)], 4, |t| fb(t, k0 + 3));
            w.alu("IADD3", &[r(3)], &[r(3)]);
            w.alu("FFMA", &[r(24)], &[r(10), r(11), r(24)]);
            w.alu("FFMA", &[r(24)], &[r(12), r(13), r(24)]);
            w.alu("FFMA", &[r(24)], &[r(14), r(15), r(24)]);
            w.alu("IADD3", &[r(6)], &[r(6)]);
            w.alu("IMAD.WIDE", &[r(8)], &[r(20)]);
            w.alu("ISETP.NE.AND", &[], &[r(3)]);
            w.alu("FFMA", &[r(24)], &[r(22), r(23), r(24)]);
            let taken = if it + 1 < iters { u32::MAX } else { 0 };
            w.bra_if(taken, top);
        }
        w.alu("IMAD", &[r(5)], &[r(0), r(5)]);
        w.alu("IMAD.WIDE", &[r(2)], &[r(5), r(4)]);
        w.mem(isa.stg, &[], &[r(2), r(24)], 4, |t| {
            pc + 4 * (t.gy * n + t.gx)
        });
        w.exit();
    });
    Ok(lay.into_trace("matmul_naive", vec![kb.build()]))
}

/// Tiled matmul: every warp runs `18 + (K/T) * (11 + 9T/4)` instructions on sm_80 (one fewer
/// on sm_70/75): 14 before the loop, the loop body per tile, and IMAD, IMAD.WIDE, STG, EXIT.
/// Shared offsets: As[ty][tx] at `4*(ty*T + tx)`, Bs[ty][tx] at `4*(T*T + ty*T + tx)`;
/// the LDS.128 of As[ty][k..k+4] is a broadcast within each row of the warp.
pub fn tiled(a: &Args) -> Result<MemTrace> {
    let (m, n, k) = (a.num("m"), a.num("n"), a.num("k"));
    let tt = a.num("tile");
    if tt != 16 && tt != 32 {
        return Err(a.error("tile", format!("{tt} is not allowed (allowed: 16, 32)")));
    }
    for (key, v) in [("m", m), ("n", n), ("k", k)] {
        if v % tt != 0 {
            return Err(a.error(key, format!("{v} is not a multiple of the tile ({tt})")));
        }
    }
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let mut lay = Layout::new();
    let pa = lay.input(m * k * 4);
    let pb = lay.input(k * n * 4);
    let pc = lay.alloc(m * n * 4);
    let t32 = tt as u32;
    let grid = Dim3::new((n / tt) as u32, (m / tt) as u32, 1);
    let bs = tt * tt * 4;
    let mut kb = KernelBuilder::new("_Z12matmul_tiledPKfS0_Pfiii", grid, Dim3::new(t32, t32, 1))
        .binary_version(bv)
        .nregs(32)
        .shmem_bytes(2 * bs as u32);
    let tiles = k / tt;
    kb.add_all_ctas(|w| {
        sass::stack_ptr(w);
        for reg in [0, 3, 2, 5] {
            w.alu("S2R", &[r(reg)], &[]);
        }
        w.alu_imm("MOV", &[r(9)], &[], 4);
        sass::uldc(w, isa);
        w.alu("IMAD", &[r(2)], &[r(2), r(5)]);
        w.alu("IMAD", &[r(4)], &[r(0), r(3)]);
        w.alu("MOV", &[r(24)], &[RZ]);
        w.alu("IMAD", &[r(6)], &[r(5), r(3)]);
        w.alu("IMAD.WIDE", &[r(10)], &[r(2), r(9)]);
        w.alu("IMAD.WIDE", &[r(12)], &[r(5), r(9)]);
        w.alu("MOV", &[r(8)], &[RZ]);
        let top = w.pc();
        for ti in 0..tiles {
            w.set_pc(top);
            let k0 = ti * tt;
            w.mem(isa.ldg, &[r(14)], &[r(10)], 4, |t| {
                pa + 4 * (t.gy * k + k0 + t.tid.x as u64)
            });
            w.mem(isa.ldg, &[r(15)], &[r(12)], 4, |t| {
                pb + 4 * ((k0 + t.tid.y as u64) * n + t.gx)
            });
            let sh = |t: &Thread| 4 * (t.tid.y as u64 * tt + t.tid.x as u64);
            w.mem("STS", &[], &[r(6), r(14)], 4, sh);
            w.mem("STS", &[], &[r(6), r(15)], 4, |t| bs + sh(t));
            w.bar();
            w.alu("IADD3", &[r(10)], &[r(10)]);
            w.alu("IMAD.WIDE", &[r(12)], &[r(12)]);
            for kk in (0..tt).step_by(4) {
                w.mem("LDS.128", &[r(16), r(17), r(18), r(19)], &[r(5)], 16, |t| {
                    4 * (t.tid.y as u64 * tt + kk)
                });
                for i in 0..4u8 {
                    w.mem("LDS", &[r(20 + i)], &[r(3)], 4, |t| {
                        bs + 4 * ((kk + i as u64) * tt + t.tid.x as u64)
                    });
                }
                for i in 0..4u8 {
                    w.alu("FFMA", &[r(24)], &[r(16 + i), r(20 + i), r(24)]);
                }
            }
            w.alu("IADD3", &[r(8)], &[r(8)]);
            w.alu("ISETP.NE.AND", &[], &[r(8)]);
            w.bar();
            let taken = if ti + 1 < tiles { u32::MAX } else { 0 };
            w.bra_if(taken, top);
        }
        w.alu("IMAD", &[r(7)], &[r(2), r(4)]);
        w.alu("IMAD.WIDE", &[r(2)], &[r(7), r(9)]);
        w.mem(isa.stg, &[], &[r(2), r(24)], 4, |t| {
            pc + 4 * (t.gy * n + t.gx)
        });
        w.exit();
    });
    Ok(lay.into_trace("matmul_tiled", vec![kb.build()]))
}
