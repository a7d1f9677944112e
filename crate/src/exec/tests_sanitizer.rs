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
/// recorded bases are learnt from the first access and must hold for every other. Local
/// addresses are compared exactly, once `local` has laid the executed ones out as the importer
/// did (`None` for an address outside the local window). With `pcs`, every PC in order too
/// (else the memory instructions alone). Returns how many local lane addresses were compared.
fn same_stream(
    got: &[CtaTrace],
    want: &[CtaTrace],
    dev: &Device,
    pcs_too: bool,
    local: &dyn Fn(u64) -> Option<u64>,
) -> usize {
    let mut locals = 0;
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
            if pcs_too {
                assert_eq!(
                    pcs(g),
                    pcs(r),
                    "CTA {} warp {}: PCs in order",
                    c.id,
                    g.warp_id
                );
            }
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
                    if let Some(l) = local(*x) {
                        assert_eq!(l, *y, "CTA {} pc {:#x}: local address", c.id, a.pc);
                        locals += 1;
                        continue;
                    }
                    let Some(i) = dev
                        .bufs
                        .iter()
                        .position(|d| *x >= d.base && *x < d.base + d.data.len() as u64)
                    else {
                        continue; // shared
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
    locals
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
        constants: Vec::new(),
    };
    let ex = execute(&p, &spec, "bfs").unwrap();
    let rec = recorded("bfs_step-n-16384_deg-4.wwt");
    assert_eq!(rec.kernels.len(), 1);
    let locals = same_stream(
        &ex.trace.kernels[0].ctas,
        &rec.kernels[0].ctas,
        &ex.device,
        true,
        &|_| None,
    );
    assert_eq!(locals, 0);
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
        constants: Vec::new(),
    };
    let ex = execute(&p, &spec, "histogram").unwrap();
    let rec = recorded("histogram_atomic-n-65536_bins-1_ctas-33.wwt");
    assert_eq!(rec.kernels.len(), 1);
    let locals = same_stream(
        &ex.trace.kernels[0].ctas,
        &rec.kernels[0].ctas,
        &ex.device,
        true,
        &|_| None,
    );
    assert_eq!(locals, 0);
}

/// The Compute Sanitizer importer sizes a thread's local frame by the offsets the kernel
/// reached (16 bytes: `path[0..4]` of `int path[16]` at depth 4); the executor by the frame
/// the listing reserves (64 bytes). Both lay it out with [`LocalLayout`]; the executed
/// addresses are laid out again with the reached frame to compare them exactly.
///
/// The memory instructions are compared (PCs, lanes, addresses), not every PC: between two
/// recorded accesses the importer takes the shortest SASS path, and the key search's last
/// pass (lanes leaving the loop at its `k < 7` test, before any load) holds no memory
/// instruction, so the recording cannot show it, nor the BSYNC each group that leaves the
/// loop early issues.
#[test]
fn btree_find_executes_as_the_card_traced_it() {
    use crate::trace::sanitizer::import::LocalLayout;
    let p = Program::from_listing(
        &listing(&format!("{DIR}/kernels.sm_90.sass.xz")),
        DIR,
        Arch::Hopper,
    )
    .unwrap();
    let (depth, ctas, block) = (4usize, 8u32, 128u32);
    const FANOUT: usize = 8;
    let (mut nnodes, mut width, mut range) = (0usize, 1usize, 1i64);
    for _ in 0..depth {
        nnodes += width;
        width *= FANOUT;
        range *= FANOUT as i64;
    }
    // bench.cu's build_btree: node j holds FANOUT keys then FANOUT children.
    let mut nodes = vec![0i32; nnodes * 2 * FANOUT];
    fn build(nodes: &mut [i32], j: usize, level: usize, depth: usize, lo: i64, span: i64) {
        let part = span / FANOUT as i64;
        for k in 0..FANOUT {
            nodes[j * 2 * FANOUT + k] = (lo + k as i64 * part) as i32;
            let child = if level + 1 < depth {
                let c = FANOUT * j + 1 + k;
                build(nodes, c, level + 1, depth, lo + k as i64 * part, part);
                c as i32
            } else {
                (lo + k as i64 * part) as i32
            };
            nodes[j * 2 * FANOUT + FANOUT + k] = child;
        }
    }
    build(&mut nodes, 0, 0, depth, 0, range);
    let nq = (ctas * block) as usize;
    let mut s = 12345u32;
    let q: Vec<i32> = (0..nq)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s as i64 % range) as i32
        })
        .collect();
    let buf = |name: &str, data: Vec<u8>| BufferDef {
        name: name.into(),
        elem: Elem::I32,
        len: (data.len() / 4) as u64,
        init: Init::Bytes(data),
        output: false,
    };
    let spec = LaunchSpec {
        buffers: vec![
            buf("nodes", bytes(&nodes)),
            buf("queries", bytes(&q)),
            buf("found", vec![0; nq * 4]),
        ],
        launches: vec![Launch {
            kernel: "btree_find".into(),
            grid: Dim3::new(ctas, 1, 1),
            block: Dim3::new(block, 1, 1),
            shared: 0,
            args: vec![
                Arg::Buffer(0),
                Arg::Buffer(1),
                Arg::Buffer(2),
                Arg::Scalar((depth as i32).to_le_bytes().to_vec()),
                Arg::Scalar((nq as i32).to_le_bytes().to_vec()),
            ],
            repeat: None,
        }],
        constants: Vec::new(),
    };
    let ex = execute(&p, &spec, "btree").unwrap();
    let rec = recorded("btree_find-depth-4_ctas-8_block-128.wwt");
    assert_eq!(rec.kernels.len(), 1);
    let k = p.kernel("btree_find").unwrap();
    let warps = block.div_ceil(32) as usize;
    let exec = super::cta::local_layout(k.frame, warps);
    // The offsets the executed stream reached: the importer's frame.
    let (mut lo, mut hi) = (u64::MAX, 0);
    for c in &ex.trace.kernels[0].ctas {
        for w in &c.warps {
            for i in w.insts.iter().filter(|i| i.mem_width > 0) {
                for (_, a) in w.lane_addrs(i) {
                    if let Some(at) = exec.locate(a) {
                        lo = lo.min(at.rel);
                        hi = hi.max(at.rel + i.mem_width as u64);
                    }
                }
            }
        }
    }
    assert!(lo < hi, "btree_find reaches local memory");
    let lo = lo & !15;
    let reached = LocalLayout::new(lo, hi - lo, warps as u64);
    assert_eq!(reached.frame(), 16);
    let locals = same_stream(
        &ex.trace.kernels[0].ctas,
        &rec.kernels[0].ctas,
        &ex.device,
        false,
        &|a| {
            exec.locate(a)
                .map(|at| reached.at(0, at.region, at.lane, at.rel - lo))
        },
    );
    // Every query stores depth entries of its path and loads one.
    assert_eq!(locals, nq * (depth + 1));
    // The answers: the leaf reached plus the node on the path at key % depth.
    let found = &ex.device.bufs[2].data;
    for (t, &key) in q.iter().enumerate().step_by(97) {
        let (mut node, mut path) = (0usize, [0i32; 16]);
        for step in path.iter_mut().take(depth) {
            let keys = &nodes[node * 2 * FANOUT..node * 2 * FANOUT + FANOUT];
            let mut k = 0;
            while k < FANOUT - 1 && keys[k + 1] <= key {
                k += 1;
            }
            *step = node as i32;
            node = nodes[node * 2 * FANOUT + FANOUT + k] as usize;
        }
        let want = node as i32 + path[key as usize % depth];
        assert_eq!(&found[t * 4..t * 4 + 4], &want.to_le_bytes(), "query {t}");
    }
}
