//! 2-D 5-point Jacobi stencil on a `rows x cols` float grid, `steps` launches ping-ponging
//! between two arrays (kernel ids 1..=steps).
//!
//! ```text
//!  block (32, 8); x = gx, y = gy; edge and out-of-grid threads exit (partial masks on the
//!  first and last column blocks):   if (x-1 >= cols-2 || y-1 >= rows-2) return;   (unsigned)
//!       out[y][x] = c0 * in[y][x] + c1 * (in[y][x-1] + in[y][x+1] + in[y-1][x] + in[y+1][x])
//!  loads: center, west, east, north, south (in that order); one store
//! ```
//! Arrays: grid A at 0x7f0000000000 (copied in), grid B after it; step s reads A and writes B
//! when s is even (counting from 0), B to A when odd.

use super::builder::{r, KernelBuilder, Layout, Thread};
use super::params::{Args, ParamDesc};
use super::sass::{self, BINARY_VERSION};
use crate::trace::model::{Dim3, MemTrace};
use crate::Result;

pub static PARAMS: [ParamDesc; 4] = [
    ParamDesc::num("rows", "128", 3, 8192, "grid rows"),
    ParamDesc::num("cols", "128", 3, 8192, "grid columns"),
    ParamDesc::num("steps", "1", 1, 16, "number of launches (time steps)"),
    BINARY_VERSION,
];

/// Per warp of interior threads: 31 instructions on sm_80 (30 on sm_70/75); a warp whose lanes
/// all lie on the edge or outside runs 12. Thread (x, y) loads `in + 4*(y*cols + x)`, then
/// `-4`, `+4`, `-4*cols`, `+4*cols` from it, and stores `out + 4*(y*cols + x)`.
pub fn stencil(a: &Args) -> Result<MemTrace> {
    let (rows, cols, steps) = (a.num("rows"), a.num("cols"), a.num("steps"));
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let mut lay = Layout::new();
    let bytes = rows * cols * 4;
    let ga = lay.input(bytes);
    let gb = lay.alloc(bytes);
    let grid = Dim3::new(cols.div_ceil(32) as u32, rows.div_ceil(8) as u32, 1);
    let mut kernels = Vec::new();
    for step in 0..steps {
        let (pin, pout) = if step % 2 == 0 { (ga, gb) } else { (gb, ga) };
        let mut kb = KernelBuilder::new("_Z9stencil2dPKfPfii", grid, Dim3::new(32, 8, 1))
            .binary_version(bv)
            .nregs(16)
            .kernel_id(step as u32 + 1);
        let at = move |t: &Thread| pin + 4 * (t.gy * cols + t.gx);
        kb.add_all_ctas(|w| {
            sass::stack_ptr(w);
            for reg in [0, 3, 5, 2] {
                w.alu("S2R", &[r(reg)], &[]);
            }
            w.alu("IMAD", &[r(0)], &[r(0), r(3)]);
            w.alu("IMAD", &[r(5)], &[r(5), r(2)]);
            w.alu("IADD3", &[r(6)], &[r(5)]);
            w.alu("ISETP.GE.U32.AND", &[], &[r(6)]);
            w.alu("IADD3", &[r(7)], &[r(0)]);
            w.alu("ISETP.GE.U32.OR", &[], &[r(7)]);
            let edge =
                w.lanes(|t| t.gx.wrapping_sub(1) >= cols - 2 || t.gy.wrapping_sub(1) >= rows - 2);
            if !w.exit_if(edge) {
                return;
            }
            w.alu_imm("MOV", &[r(4)], &[], 4);
            sass::uldc(w, isa);
            w.alu("IMAD", &[r(2)], &[r(0), r(5)]);
            w.alu("IMAD.WIDE", &[r(2)], &[r(2), r(4)]);
            w.mem(isa.ldg, &[r(8)], &[r(2)], 4, at);
            w.mem(isa.ldg, &[r(9)], &[r(2)], 4, |t| at(t) - 4);
            w.mem(isa.ldg, &[r(10)], &[r(2)], 4, |t| at(t) + 4);
            w.alu("IMAD.WIDE", &[r(6)], &[r(2)]);
            w.mem(isa.ldg, &[r(11)], &[r(6)], 4, |t| at(t) - 4 * cols);
            w.alu("IMAD.WIDE", &[r(12)], &[r(2)]);
            w.mem(isa.ldg, &[r(13)], &[r(12)], 4, |t| at(t) + 4 * cols);
            w.alu("FADD", &[r(9)], &[r(9), r(10)]);
            w.alu("FADD", &[r(9)], &[r(9), r(11)]);
            w.alu("FADD", &[r(9)], &[r(9), r(13)]);
            w.alu("FMUL", &[r(8)], &[r(8)]);
            w.alu("FFMA", &[r(9)], &[r(9), r(8)]);
            w.alu("IMAD.WIDE", &[r(2)], &[r(2)]);
            w.mem(isa.stg, &[], &[r(2), r(9)], 4, |t| {
                pout + 4 * (t.gy * cols + t.gx)
            });
            w.exit();
        });
        kernels.push(kb.build());
    }
    Ok(lay.into_trace("stencil", kernels))
}
