//! The executed stream against a Compute Sanitizer trace recorded on the H100
//! (`tests/hardware/traced/h100-holdout/`): with the data `tests/hardware/bench.cu` gives the
//! kernel, every warp passes the same PCs in the same order, and its memory instructions, in
//! order, have the same PCs, the same lanes and the same addresses up to each buffer's base.
//!
//! The recording sees lanes only where it instruments them (memory accesses, block entries):
//! inside a block that lanes leave by a divergent branch, its other instructions carry the
//! block's entry mask, and the groups the branch splits appear as one pass (the executor, as
//! the hardware, issues each group's pass separately, which is what Nsight Compute counts).
//! So PCs are compared with a PC repeated back to back counted once, and lanes on memory
//! instructions.

use std::collections::BTreeMap;
use std::path::Path;

use super::tests_kernels::listing;
use super::*;
use crate::trace::model::{CtaTrace, Dim3, TraceInst, WarpTrace};

const DIR: &str = "tests/hardware/traced/h100-holdout";

fn recorded(name: &str) -> MemTrace {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(DIR)
        .join(name);
    let mut src = crate::trace::open::open_path(&p, Arch::Hopper).unwrap();
    MemTrace::collect(&mut *src).unwrap()
}

fn bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Compares two launches warp by warp; `dev` maps executed addresses to buffers, whose
/// recorded bases are learnt from the first access and must hold for every other.
fn same_stream(got: &[CtaTrace], want: &[CtaTrace], dev: &Device) {
    assert_eq!(got.len(), want.len(), "CTAs");
    let want: BTreeMap<(u32, u32, u32), &CtaTrace> =
        want.iter().map(|c| ((c.id.z, c.id.y, c.id.x), c)).collect();
    let mut bases: BTreeMap<usize, u64> = BTreeMap::new();
    let mut insts = 0;
    for c in got {
        let w = want[&(c.id.z, c.id.y, c.id.x)];
        assert_eq!(c.warps.len(), w.warps.len(), "CTA {} warps", c.id);
        for (g, r) in c.warps.iter().zip(&w.warps) {
            assert_eq!(g.warp_id, r.warp_id);
            let pcs = |t: &WarpTrace| {
                let mut v: Vec<u32> = t.insts.iter().map(|i| i.pc).collect();
                v.dedup();
                v
            };
            assert_eq!(
                pcs(g),
                pcs(r),
                "CTA {} warp {}: PCs in order",
                c.id,
                g.warp_id
            );
            let mem = |t: &WarpTrace| -> Vec<TraceInst> {
                t.insts
                    .iter()
                    .filter(|i| i.mem_width > 0 && i.mask != 0)
                    .copied()
                    .collect()
            };
            let (gm, rm) = (mem(g), mem(r));
            let key =
                |v: &[TraceInst]| -> Vec<(u32, u32)> { v.iter().map(|i| (i.pc, i.mask)).collect() };
            assert_eq!(
                key(&gm),
                key(&rm),
                "CTA {} warp {}: memory instructions (pc, lanes) in order",
                c.id,
                g.warp_id
            );
            insts += g.insts.len();
            for (a, b) in gm.iter().zip(&rm) {
                let ga: Vec<u64> = g.lane_addrs(a).map(|x| x.1).collect();
                let ra: Vec<u64> = r.lane_addrs(b).map(|x| x.1).collect();
                assert_eq!(ga.len(), ra.len(), "CTA {} pc {:#x}: lanes", c.id, a.pc);
                for (x, y) in ga.iter().zip(&ra) {
                    let Some(i) = dev
                        .bufs
                        .iter()
                        .position(|d| *x >= d.base && *x < d.base + d.data.len() as u64)
                    else {
                        continue; // shared or local
                    };
                    let base = *bases
                        .entry(i)
                        .or_insert(y.wrapping_sub(x - dev.bufs[i].base));
                    assert_eq!(
                        x - dev.bufs[i].base,
                        y.wrapping_sub(base),
                        "CTA {} pc {:#x}: buffer {i} offset",
                        c.id,
                        a.pc
                    );
                }
            }
        }
    }
    assert!(insts > 1000 && !bases.is_empty(), "{insts} instructions");
}

#[test]
fn bfs_step_executes_as_the_card_traced_it() {
    let p = Program::from_listing(
        &listing(&format!("{DIR}/kernels.sm_90.sass.xz")),
        DIR,
        Arch::Hopper,
    )
    .unwrap();
    let (n, deg) = (16384usize, 4usize);
    let mut s = 12345u32;
    let mut lcg = || {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        s
    };
    let row: Vec<i32> = (0..=n).map(|v| (v * deg) as i32).collect();
    let col: Vec<i32> = (0..n * deg).map(|_| (lcg() % n as u32) as i32).collect();
    let fr: Vec<i32> = (0..n).map(|_| lcg().is_multiple_of(10) as i32).collect();
    let vis: Vec<i32> = (0..n).map(|_| lcg().is_multiple_of(5) as i32).collect();
    let buf = |name: &str, data: Vec<u8>| BufferDef {
        name: name.into(),
        elem: Elem::I32,
        len: (data.len() / 4) as u64,
        init: Init::Bytes(data),
        output: false,
    };
    let spec = LaunchSpec {
        buffers: vec![
            buf("row", bytes(&row)),
            buf("col", bytes(&col)),
            buf("frontier", bytes(&fr)),
            buf("visited", bytes(&vis)),
            buf("cost", vec![0; n * 4]),
            buf("next", vec![0; n * 4]),
        ],
        launches: vec![Launch {
            kernel: "bfs_step".into(),
            grid: Dim3::new(n.div_ceil(256) as u32, 1, 1),
            block: Dim3::new(256, 1, 1),
            shared: 0,
            args: (0..6)
                .map(Arg::Buffer)
                .chain([Arg::Scalar((n as i32).to_le_bytes().to_vec())])
                .collect(),
            repeat: None,
        }],
    };
    let ex = execute(&p, &spec, "bfs").unwrap();
    let rec = recorded("bfs_step-n-16384_deg-4.wwt");
    assert_eq!(rec.kernels.len(), 1);
    same_stream(&ex.trace.kernels[0].ctas, &rec.kernels[0].ctas, &ex.device);
}

#[test]
fn histogram_atomic_executes_as_the_card_traced_it() {
    let p = Program::from_listing(
        &listing(&format!("{DIR}/kernels.sm_90.sass.xz")),
        DIR,
        Arch::Hopper,
    )
    .unwrap();
    let (n, bins, ctas) = (65536usize, 1i32, 33u32);
    let mut s = 12345u32;
    let data: Vec<i32> = (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as i32
        })
        .collect();
    let buf = |name: &str, data: Vec<u8>| BufferDef {
        name: name.into(),
        elem: Elem::U32,
        len: (data.len() / 4) as u64,
        init: Init::Bytes(data),
        output: false,
    };
    let spec = LaunchSpec {
        buffers: vec![
            buf("in", bytes(&data)),
            buf("hist", vec![0; bins as usize * 4]),
        ],
        launches: vec![Launch {
            kernel: "histogram_atomic".into(),
            grid: Dim3::new(ctas, 1, 1),
            block: Dim3::new(256, 1, 1),
            shared: 0,
            args: vec![
                Arg::Buffer(0),
                Arg::Buffer(1),
                Arg::Scalar((n as i32).to_le_bytes().to_vec()),
                Arg::Scalar(bins.to_le_bytes().to_vec()),
            ],
            repeat: None,
        }],
    };
    let ex = execute(&p, &spec, "histogram").unwrap();
    let rec = recorded("histogram_atomic-n-65536_bins-1_ctas-33.wwt");
    assert_eq!(rec.kernels.len(), 1);
    same_stream(&ex.trace.kernels[0].ctas, &rec.kernels[0].ctas, &ex.device);
}
