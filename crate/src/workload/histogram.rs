//! Histogram of `n` seeded random 32-bit values into `bins` bins, `bin = v % bins`, with
//! atomics. `skew` percent of the values are 0 (all into bin 0: atomic contention).
//!
//! ```text
//!  mode=global : if (i < n) atomicAdd(&hist[in[i] % bins], 1)   -> RED.E.ADD.STRONG.GPU
//!  mode=atomg  : same, but the old value is used                -> ATOMG.E.ADD.STRONG.GPU
//!  mode=shared : for b in tid..bins step bs: sh[b] = 0          STS, BAR.SYNC
//!                if (i < n) atomicAdd(&sh[in[i] % bins], 1)     @!P0 LDG, @!P0 ATOMS.ADD
//!                BAR.SYNC; for b in tid..bins step bs:          LDS, RED.E.ADD (one per bin)
//!                    atomicAdd(&hist[b], sh[b])
//! ```
//! Values: SplitMix64(seed), one draw per element; `v = 0` when `draw % 100 < skew`, else the
//! next draw's low 32 bits. Arrays: `in` (n u32) at 0x7f0000000000 (copied in), `hist` after it.

use super::bfs::SplitMix64;
use super::builder::{r, KernelBuilder, Layout, RZ};
use super::params::{Args, ParamDesc};
use super::sass::{self, BINARY_VERSION};
use crate::trace::model::{Dim3, MemTrace};
use crate::Result;

pub static PARAMS: [ParamDesc; 7] = [
    ParamDesc::num("n", "65536", 1, 1 << 26, "number of input values"),
    ParamDesc::num("bins", "256", 1, 8192, "number of bins"),
    ParamDesc::word(
        "mode",
        "global",
        &["global", "atomg", "shared"],
        "where the atomics go",
    ),
    ParamDesc::num(
        "skew",
        "0",
        0,
        100,
        "percent of values forced to 0 (contention on bin 0)",
    ),
    ParamDesc::num("seed", "1", 0, u64::MAX, "value seed"),
    ParamDesc::num("block", "256", 32, 1024, "threads per block"),
    BINARY_VERSION,
];

/// The input values (exposed for tests).
pub fn values(n: u64, skew: u64, seed: u64) -> Vec<u32> {
    let mut rng = SplitMix64(seed);
    (0..n)
        .map(|_| {
            let d = rng.next_u64();
            if d % 100 < skew {
                0
            } else {
                rng.next_u64() as u32
            }
        })
        .collect()
}

/// Global modes: a full in-bounds warp runs 16 instructions on sm_80 (15 before); an
/// all-out-of-bounds warp 6. Lane with index i adds at `hist + 4 * (in[i] % bins)`.
/// Shared mode: every warp runs the zeroing loop, the atomics and the flush loop (a loop
/// iteration per `bs` bins; lanes with `b >= bins` are masked off).
pub fn histogram(a: &Args) -> Result<MemTrace> {
    let (n, bins, skew, seed, bs) = (
        a.num("n"),
        a.num("bins"),
        a.num("skew"),
        a.num("seed"),
        a.num("block"),
    );
    let mode = a.word("mode").to_string();
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let vals = values(n, skew, seed);
    let mut lay = Layout::new();
    let pin = lay.input(n * 4);
    let ph = lay.alloc(bins * 4);
    let grid = n.div_ceil(bs) as u32;
    let shared = mode == "shared";
    let mut kb = KernelBuilder::new(
        "_Z9histogramPKjPji",
        Dim3::new(grid, 1, 1),
        Dim3::new(bs as u32, 1, 1),
    )
    .binary_version(bv)
    .nregs(12)
    .shmem_bytes(if shared { (bins * 4) as u32 } else { 0 });
    let bin = |gx: u64| vals[gx as usize] as u64 % bins;
    kb.add_all_ctas(|w| {
        sass::stack_ptr(w);
        sass::global_index_x(w, r(0), r(3));
        w.alu("ISETP.GE.AND", &[], &[r(0)]);
        let inb = w.lanes(|t| t.gx < n);
        if !shared {
            if !w.exit_if(!inb) {
                return;
            }
            w.alu_imm("MOV", &[r(5)], &[], 4);
            sass::uldc(w, isa);
            w.alu("IMAD.WIDE", &[r(2)], &[r(0), r(5)]);
            w.mem(isa.ldg, &[r(2)], &[r(2)], 4, |t| pin + 4 * t.gx);
            w.alu("IMAD.HI.U32", &[r(3)], &[r(2)]);
            w.alu("IMAD", &[r(3)], &[r(3), r(2)]);
            w.alu_imm("MOV", &[r(6)], &[], 1);
            w.alu("IMAD.WIDE.U32", &[r(8)], &[r(3), r(5)]);
            if mode == "atomg" {
                w.mem(isa.atomg_add, &[r(9)], &[r(8), r(6)], 4, |t| {
                    ph + 4 * bin(t.gx)
                });
            } else {
                w.mem(isa.red_add, &[], &[r(8), r(6)], 4, |t| ph + 4 * bin(t.gx));
            }
            w.exit();
            return;
        }
        // shared: zero the bins, count, flush.
        w.alu_imm("MOV", &[r(5)], &[], 4);
        sass::uldc(w, isa);
        w.alu("SHF.L.U32", &[r(4)], &[r(3)]);
        bin_loop(w, bins, bs, None);
        w.bar();
        w.alu_p(inb, "IMAD.WIDE", &[r(2)], &[r(0), r(5)]);
        w.mem_p(inb, isa.ldg, &[r(2)], &[r(2)], 4, |t| pin + 4 * t.gx);
        w.alu_p(inb, "IMAD.HI.U32", &[r(6)], &[r(2)]);
        w.alu_p(inb, "IMAD", &[r(6)], &[r(6), r(2)]);
        w.mem_p(inb, "ATOMS.ADD", &[], &[r(6)], 4, |t| 4 * bin(t.gx));
        w.bar();
        w.alu("SHF.L.U32", &[r(4)], &[r(3)]);
        w.alu("IMAD.WIDE", &[r(10)], &[r(3), r(5)]);
        bin_loop(w, bins, bs, Some((isa.red_add, ph)));
        w.exit();
    });
    Ok(lay.into_trace("histogram", vec![kb.build()]))
}

/// `for (b = tid; b < bins; b += bs)`: guard, then one iteration per `bs` bins with the lanes
/// whose `b < bins`; zeroes `sh[b]` (STS) or, with `flush = Some((red, hist))`, adds `sh[b]` to
/// `hist[b]` (LDS + RED). PCs are the same for every warp, whatever its trip count.
fn bin_loop(w: &mut super::WarpBuilder, bins: u64, bs: u64, flush: Option<(&str, u64)>) {
    let all = w.mask();
    let body = if flush.is_some() { 5 } else { 4 };
    w.alu("ISETP.GE.AND", &[], &[r(4)]);
    let none = w.lanes(|t| t.flat as u64 >= bins);
    let top = w.pc() + 16;
    let after = top + 16 * body;
    w.bra_if(none, after);
    let mut base = 0u64;
    let mut lanes = all & !none;
    while lanes != 0 {
        w.set_pc(top);
        w.set_mask(lanes);
        let off = move |t: &super::Thread| 4 * (base + t.flat as u64);
        if let Some((red, ph)) = flush {
            w.mem("LDS", &[r(7)], &[r(4)], 4, off);
            w.mem(red, &[], &[r(10), r(7)], 4, move |t| ph + off(t));
        } else {
            w.mem("STS", &[], &[r(4), RZ], 4, off);
        }
        w.alu("IADD3", &[r(4)], &[r(4)]);
        w.alu("ISETP.GE.AND", &[], &[r(4)]);
        base += bs;
        lanes = w.lanes(|t| base + (t.flat as u64) < bins);
        w.bra_if(lanes, top);
    }
    w.set_mask(all);
    w.set_pc(after);
}
