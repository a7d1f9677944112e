//! Sum reduction, one partial sum per block: a shared-memory tree (whole warps drop out as the
//! stride halves: warp divergence at warp granularity), then warp 0 finishes with `SHFL.DOWN`
//! and lane 0 alone (mask 0x1) stores the block's sum.
//!
//! ```text
//!  sdata[tid] = (i < n) ? in[i] : 0          @!P0 LDG (mask = in-bounds lanes), STS, BAR.SYNC
//!  for s = bs/2; s >= 32; s >>= 1:           loop: ISETP, @P1 BRA skip (warps with tid >= s)
//!      if (tid < s) sdata[tid] += sdata[tid+s]      LEA, LDS, LDS, FADD, STS
//!      __syncthreads()                              BAR.SYNC, SHF, ISETP, @P2 BRA top
//!  if (tid >= 32) return                     @P0 EXIT (all warps but warp 0)
//!  v = sdata[tid]; 5 x v += shfl_down(v, o)  o = 16, 8, 4, 2, 1
//!  if (lane == 0) out[blockIdx.x] = v        @P0 EXIT (mask 0xfffffffe), STG (mask 0x1)
//! ```
//! Arrays: `in` at 0x7f0000000000 (copied in), `out` (one float per block) after it.

use super::builder::{r, KernelBuilder, Layout, RZ};
use super::params::{Args, ParamDesc};
use super::sass::{self, BINARY_VERSION};
use crate::trace::model::{Dim3, MemTrace};
use crate::Result;

pub static PARAMS: [ParamDesc; 3] = [
    ParamDesc::num("n", "65536", 1, 1 << 26, "number of float elements"),
    ParamDesc::num(
        "block",
        "256",
        64,
        1024,
        "threads per block (a power of two)",
    ),
    BINARY_VERSION,
];

/// Instructions per warp on sm_80 (one fewer on sm_70/75) with block size `bs`: 14 before the
/// loop; per tree iteration (s = bs/2 .. 32) 11 when the warp has a lane with `tid < s`, else 6
/// (ISETP, @P1 BRA, BAR.SYNC, SHF, ISETP, @P2 BRA); then 2 (ISETP, @P0 EXIT) for every warp,
/// and 16 more for warp 0 (LDS, 5 x SHFL.DOWN + FADD, ISETP, @P0 EXIT, IMAD.WIDE, STG, EXIT).
/// For bs = 256: warp 0 runs 65, warp 1 44, warps 2-3 39, warps 4-7 34.
pub fn reduction(a: &Args) -> Result<MemTrace> {
    let n = a.num("n");
    let bs = a.num("block");
    if !bs.is_power_of_two() {
        return Err(a.error("block", format!("{bs} is not a power of two")));
    }
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let grid = n.div_ceil(bs);
    let mut lay = Layout::new();
    let pin = lay.input(n * 4);
    let pout = lay.alloc(grid * 4);
    let mut kb = KernelBuilder::new(
        "_Z9reductionPKfPfi",
        Dim3::new(grid as u32, 1, 1),
        Dim3::new(bs as u32, 1, 1),
    )
    .binary_version(bv)
    .nregs(16)
    .shmem_bytes((bs * 4) as u32);
    kb.add_all_ctas(|w| {
        sass::stack_ptr(w);
        w.alu("S2R", &[r(0)], &[]);
        w.alu("S2R", &[r(3)], &[]);
        w.alu("IMAD", &[r(4)], &[r(3), r(0)]);
        w.alu("ISETP.GE.AND", &[], &[r(4)]);
        w.alu("MOV", &[r(2)], &[RZ]);
        sass::uldc(w, isa);
        w.alu_imm("MOV", &[r(5)], &[], 4);
        let inb = w.lanes(|t| t.gx < n);
        w.alu_p(inb, "IMAD.WIDE", &[r(6)], &[r(4), r(5)]);
        w.mem_p(inb, isa.ldg, &[r(2)], &[r(6)], 4, |t| pin + 4 * t.gx);
        w.alu("SHF.L.U32", &[r(7)], &[r(0)]);
        w.mem("STS", &[], &[r(7), r(2)], 4, |t| 4 * t.flat as u64);
        w.bar();
        w.alu_imm("MOV", &[r(8)], &[], bs / 2);
        let top = w.pc();
        let mut s = bs / 2;
        while s >= 32 {
            w.set_pc(top);
            w.alu("ISETP.GE.AND", &[], &[r(0), r(8)]);
            let away = w.lanes(|t| t.flat as u64 >= s);
            let body = w.pc() + 16;
            let skip = body + 5 * 16;
            w.bra_if(away, skip);
            let all = w.mask();
            let stay = all & !away;
            if stay != 0 {
                w.set_mask(stay);
                w.alu("LEA", &[r(9)], &[r(8), r(7)]);
                w.mem("LDS", &[r(10)], &[r(9)], 4, |t| 4 * (t.flat as u64 + s));
                w.mem("LDS", &[r(11)], &[r(7)], 4, |t| 4 * t.flat as u64);
                w.alu("FADD", &[r(10)], &[r(10), r(11)]);
                w.mem("STS", &[], &[r(7), r(10)], 4, |t| 4 * t.flat as u64);
                w.set_mask(all);
            }
            w.set_pc(skip);
            w.bar();
            w.alu("SHF.R.U32.HI", &[r(8)], &[r(8)]);
            w.alu("ISETP.GT.AND", &[], &[r(8)]);
            s /= 2;
            w.bra_if(if s >= 32 { u32::MAX } else { 0 }, top);
        }
        w.alu("ISETP.GT.AND", &[], &[r(0)]);
        let upper = w.lanes(|t| t.flat >= 32);
        if !w.exit_if(upper) {
            return;
        }
        w.mem("LDS", &[r(2)], &[r(7)], 4, |t| 4 * t.flat as u64);
        for _ in 0..5 {
            w.alu("SHFL.DOWN", &[r(9)], &[r(2)]);
            w.alu("FADD", &[r(2)], &[r(2), r(9)]);
        }
        w.alu("ISETP.NE.AND", &[], &[r(0)]);
        let others = w.lanes(|t| t.lane != 0);
        if !w.exit_if(others) {
            return;
        }
        w.alu("IMAD.WIDE", &[r(4)], &[r(3), r(5)]);
        w.mem(isa.stg, &[], &[r(4), r(2)], 4, |t| {
            pout + 4 * t.cta.x as u64
        });
        w.exit();
    });
    Ok(lay.into_trace("reduction", vec![kb.build()]))
}
