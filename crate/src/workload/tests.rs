//! Workload tests: exact instruction counts, masks and addresses derived by hand for small sizes.

use super::*;
use crate::trace::model::{
    is_zero_reg, Command, Dim3, KernelTrace, MemTrace, TraceInst, TraceSource, WarpTrace,
};

const G: u64 = 0x7f00_0000_0000;

fn gen(name: &str, kv: &[&str]) -> MemTrace {
    generate(name, &Params::parse(kv).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn name<'a>(k: &'a KernelTrace, i: &TraceInst) -> &'a str {
    &k.ops.get(i.op).name
}

/// Addresses of instruction `idx` of warp `w`, lane order.
fn addrs(w: &WarpTrace, idx: usize) -> Vec<u64> {
    w.lane_addrs(&w.insts[idx]).map(|(_, a)| a).collect()
}

fn counts(k: &KernelTrace) -> Vec<usize> {
    k.ctas
        .iter()
        .flat_map(|c| c.warps.iter().map(|w| w.insts.len()))
        .collect()
}

/// Shared-memory wavefronts of one access: the most distinct 4-byte words any bank serves.
fn conflict_degree(a: &[u64]) -> usize {
    let mut per_bank: Vec<Vec<u64>> = vec![Vec::new(); 32];
    for &x in a {
        let word = x / 4;
        let b = &mut per_bank[(word % 32) as usize];
        if !b.contains(&word) {
            b.push(word);
        }
    }
    per_bank.iter().map(|b| b.len()).max().unwrap_or(0)
}

#[test]
fn every_workload_is_deterministic_and_dependence_correct() {
    for d in list() {
        for bv in ["75", "80"] {
            let p = Params::new().set("binary_version", bv);
            let a = generate(d.name, &p).unwrap();
            let b = generate(d.name, &p).unwrap();
            assert_eq!(a.trace_hash(), b.trace_hash(), "{}", d.name);
            for k in &a.kernels {
                assert!(k.warp_insts() > 0, "{}", d.name);
                assert_eq!(k.info.binary_version.to_string(), bv);
                for c in &k.ctas {
                    assert_eq!(c.warps.len() as u32, k.info.warps_per_cta(), "{}", d.name);
                    for w in &c.warps {
                        // Every source register was written earlier by the same warp.
                        let mut written = [false; 512];
                        for i in &w.insts {
                            for &s in i.srcs() {
                                assert!(
                                    is_zero_reg(s) || written[s as usize],
                                    "{}: R{s} read before written at pc {:#x}",
                                    d.name,
                                    i.pc
                                );
                            }
                            for &t in i.dsts() {
                                written[t as usize] = true;
                            }
                            assert_eq!(i.pc % 16, 0);
                            let info = k.ops.get(i.op);
                            assert!(!info.unknown, "{}", info.name);
                            if i.mem_width > 0 {
                                assert!(info.is_mem() && i.mask != 0, "{} {}", d.name, info.name);
                            }
                        }
                        let last = w.insts.last().unwrap();
                        assert_eq!(name(k, last), "EXIT", "{}: warp ends with EXIT", d.name);
                        let n: usize = w
                            .insts
                            .iter()
                            .filter(|i| i.mem_width > 0)
                            .map(|i| i.active_lanes() as usize)
                            .sum();
                        assert_eq!(n, w.addrs.len());
                    }
                }
            }
        }
    }
}

#[test]
fn vecadd_100_has_4_warps_and_a_partial_last_one() {
    let t = gen("vecadd", &["n=100"]);
    assert_eq!(
        t.commands,
        vec![
            Command::MemcpyHtoD {
                addr: G,
                bytes: 400
            },
            Command::MemcpyHtoD {
                addr: G + 0x200,
                bytes: 400
            },
            Command::Kernel { index: 0 },
        ]
    );
    let k = &t.kernels[0];
    assert_eq!((k.info.grid.x, k.info.block.x, k.ctas.len()), (1, 128, 1));
    assert_eq!(counts(k), vec![16, 16, 16, 16]);
    let w3 = &k.ctas[0].warps[3];
    // @P0 EXIT at 0x50: lanes 4..31 (i = 100..127) leave.
    assert_eq!(
        (w3.insts[5].pc, w3.insts[5].mask, name(k, &w3.insts[5])),
        (0x50, 0xffff_fff0, "EXIT")
    );
    assert_eq!(w3.insts[6].mask, 0xf);
    assert_eq!(
        k.ctas[0].warps[0].insts[5].mask, 0,
        "no lane of warp 0 exits"
    );
    // LDG a[96..100), LDG b[96..100), STG c[96..100)
    assert_eq!(name(k, &w3.insts[10]), "LDG.E");
    assert_eq!(
        addrs(w3, 10),
        vec![G + 0x180, G + 0x184, G + 0x188, G + 0x18c]
    );
    assert_eq!(addrs(w3, 11)[0], G + 0x200 + 0x180);
    assert_eq!(
        (name(k, &w3.insts[14]), addrs(w3, 14)[3]),
        ("STG.E", G + 0x400 + 0x18c)
    );
    assert_eq!(k.warp_insts(), 64);
    // The FADD reads both loads' destinations; the STG reads the FADD's.
    let (l1, l2, add, st) = (&w3.insts[10], &w3.insts[11], &w3.insts[13], &w3.insts[14]);
    assert_eq!(add.srcs(), &[l1.dst[0], l2.dst[0]]);
    assert_eq!(st.srcs()[1], add.dst[0]);
    // sm_75: no ULDC.64, .SYS scope.
    let t = gen("vecadd", &["n=100", "binary_version=75"]);
    assert_eq!(counts(&t.kernels[0]), vec![15, 15, 15, 15]);
    assert_eq!(
        name(&t.kernels[0], &t.kernels[0].ctas[0].warps[0].insts[9]),
        "LDG.E.SYS"
    );
    // block 32: 4 CTAs of one warp each.
    let t = gen("vecadd", &["n=100", "block=32"]);
    assert_eq!(counts(&t.kernels[0]), vec![16, 16, 16, 16]);
    assert_eq!(t.kernels[0].ctas[3].warps[0].insts[6].mask, 0xf);
}

#[test]
fn vecadd_float4_and_saxpy() {
    let t = gen("vecadd", &["n=100", "vec=4"]);
    let k = &t.kernels[0];
    // 25 threads: warp 0 has lanes 0..25, warps 1-3 exit at once (6 instructions).
    assert_eq!(counts(k), vec![19, 6, 6, 6]);
    let w0 = &k.ctas[0].warps[0];
    assert_eq!(w0.insts[6].mask, 0x01ff_ffff);
    assert_eq!(
        (name(k, &w0.insts[10]), w0.insts[10].mem_width),
        ("LDG.E.128", 16)
    );
    assert_eq!(addrs(w0, 10)[24], G + 16 * 24);
    assert_eq!(w0.insts[10].dsts(), &[8, 9, 10, 11]);
    let t = gen("saxpy", &["n=300", "block=256"]);
    // CTA 1 holds i = 256..511: warp 0 has 300-256 = 44 -> full, warp 1 has 12 lanes, warps 2-7 none.
    assert_eq!(counts(&t.kernels[0])[8..], [15, 15, 6, 6, 6, 6, 6, 6]);
    let w = &t.kernels[0].ctas[1].warps[1];
    assert_eq!(w.insts[6].mask, 0xfff);
    assert_eq!(
        addrs(w, 11)[0],
        G + 0x600 + 4 * 288,
        "y[288]: y follows x (1200 B -> 0x600)"
    );
}

#[test]
fn transpose_naive_addresses_of_one_thread() {
    // rows=40, cols=50: grid (2,5), block (32,8). Thread x=33, y=10 is CTA (1,1), tid (1,2):
    // warp 2, lane 1. Lanes with x >= 50 (tx >= 18) exit in CTA x=1.
    let t = gen("transpose_naive", &["rows=40", "cols=50"]);
    let k = &t.kernels[0];
    assert_eq!(
        (k.info.grid, k.info.block),
        (Dim3::new(2, 5, 1), Dim3::new(32, 8, 1))
    );
    let cta = k.ctas.iter().find(|c| c.id == Dim3::new(1, 1, 0)).unwrap();
    let w = &cta.warps[2];
    assert_eq!(w.insts[9].mask, 0xfffc_0000);
    assert_eq!(w.insts[10].mask, 0x3ffff);
    // in + 4*(10*50 + 33); out (after 8000 B of in, 512-aligned: +0x2000) + 4*(33*40 + 10)
    assert_eq!(addrs(w, 14)[1], G + 4 * 533);
    assert_eq!(addrs(w, 17)[1], G + 0x2000 + 4 * 1330);
    assert_eq!(k.warp_insts(), 80 * 19);
}

#[test]
fn transpose_tiled_counts_addresses_and_bank_conflicts() {
    let t = gen("transpose_tiled", &["rows=32", "cols=64"]);
    let k = &t.kernels[0];
    assert_eq!((k.ctas.len(), k.info.shmem_bytes), (2, 32 * 32 * 4));
    assert!(counts(k).iter().all(|&c| c == 35));
    let w = &k.ctas[1].warps[3];
    let ops: Vec<&str> = w.insts.iter().map(|i| name(k, i)).collect();
    assert_eq!(ops.iter().filter(|o| **o == "LDG.E").count(), 4);
    assert_eq!(ops.iter().position(|o| *o == "BAR.SYNC"), Some(20));
    // CTA (1,0), ty=3, lane 5 (tx=5): second LDG (j=8) reads in[(3+8)*64 + 32+5];
    // third STG (j=16) writes out[(32+3+16)*32 + 5], out at +0x2000.
    assert_eq!(addrs(w, 12)[5], G + 4 * 741);
    assert_eq!(addrs(w, 32)[5], G + 0x2000 + 4 * 1637);
    // LDS tile[tx][ty+j]: 32-way conflict without padding, none with it.
    assert_eq!(conflict_degree(&addrs(w, 24)), 32);
    assert_eq!(
        conflict_degree(&addrs(w, 16)),
        1,
        "STS tile[ty+j][tx] is conflict-free"
    );
    let t = gen("transpose_tiled", &["rows=32", "cols=64", "pad=1"]);
    assert_eq!(
        conflict_degree(&addrs(&t.kernels[0].ctas[1].warps[3], 24)),
        1
    );
    assert_eq!(t.kernels[0].info.shmem_bytes, 32 * 33 * 4);
}

#[test]
fn matmul_naive_loop_reuses_pcs() {
    let t = gen("matmul_naive", &["m=16", "n=16", "k=8"]);
    let k = &t.kernels[0];
    // 21 + 5K = 61 per warp, 8 warps.
    assert_eq!(counts(k), vec![61; 8]);
    let w = &k.ctas[0].warps[1];
    let bras: Vec<&TraceInst> = w.insts.iter().filter(|i| name(k, i) == "BRA").collect();
    assert_eq!(bras.len(), 2);
    assert_eq!(
        (bras[0].pc, bras[0].mask, bras[0].imm),
        (0x240, u32::MAX, 0x110)
    );
    assert_eq!((bras[1].pc, bras[1].mask), (0x240, 0));
    assert_eq!(w.insts[17].pc, 0x110);
    assert_eq!(
        w.insts[37].pc, 0x110,
        "the second iteration re-uses the loop's PCs"
    );
    // warp 1, lane 3: tx=3, ty=2 -> row 2, col 3. A[2*8 + 0]; second iteration's B[(4+1)*16 + 3].
    assert_eq!(addrs(w, 17)[3], G + 4 * 16);
    assert_eq!(addrs(w, 37 + 4)[3], G + 0x200 + 4 * 83);
    // FFMA consumes the loads of its iteration.
    let ffma = &w.insts[17 + 12];
    assert_eq!((name(k, ffma), ffma.srcs()), ("FFMA", &[10u16, 11, 24][..]));
}

#[test]
fn matmul_tiled_counts_and_shared_offsets() {
    let t = gen("matmul_tiled", &["m=32", "n=32", "k=32"]);
    let k = &t.kernels[0];
    // 18 + (K/T) * (11 + 9T/4) = 18 + 2 * 47 = 112 per warp; 4 CTAs of 8 warps.
    assert_eq!(counts(k), vec![112; 32]);
    assert_eq!(k.info.shmem_bytes, 2 * 16 * 16 * 4);
    let w = &k.ctas[0].warps[2];
    // Iteration 0: LDG, LDG, STS (As[ty][tx]), STS (Bs), BAR at 14..19.
    assert_eq!(name(k, &w.insts[18]), "BAR.SYNC");
    // warp 2 = ty 4 (lanes 0..16) and ty 5 (lanes 16..32): As[ty][tx] at 4*(16ty + tx)
    assert_eq!(addrs(w, 16)[17], 4 * (16 * 5 + 1));
    assert_eq!(addrs(w, 17)[17], 1024 + 4 * (16 * 5 + 1));
    // LDS.128 As[ty][0..4]: two distinct addresses (broadcast per row)
    let l = &w.insts[21];
    assert_eq!((name(k, l), l.mem_width), ("LDS.128", 16));
    assert_eq!(addrs(w, 21)[0], 4 * 16 * 4);
    assert_eq!(addrs(w, 21)[16], 4 * 16 * 5);
}

#[test]
fn reduction_divergence_and_lane0_store() {
    let t = gen("reduction", &["n=256", "block=256"]);
    let k = &t.kernels[0];
    // 14 + per step (s = 128, 64, 32) 11 or 6 + 2, and 16 more for warp 0.
    assert_eq!(counts(k), vec![65, 44, 39, 39, 34, 34, 34, 34]);
    let w0 = &k.ctas[0].warps[0];
    let shfl = w0
        .insts
        .iter()
        .filter(|i| name(k, i) == "SHFL.DOWN")
        .count();
    assert_eq!(shfl, 5);
    let st = w0.insts.iter().rev().nth(1).unwrap();
    assert_eq!((name(k, st), st.mask), ("STG.E", 0x1));
    assert_eq!(w0.lane_addrs(st).collect::<Vec<_>>(), vec![(0, G + 0x400)]);
    // The first tree step (s = 128): warp 4 branches away with its whole mask.
    let w4 = &k.ctas[0].warps[4];
    assert_eq!(
        (name(k, &w4.insts[15]), w4.insts[15].mask),
        ("BRA", u32::MAX)
    );
    assert_eq!(name(k, &w4.insts[16]), "BAR.SYNC");
    // n = 1000: the last CTA has 232 elements; warp 7 loads 8 of them.
    let t = gen("reduction", &["n=1000"]);
    let w7 = &t.kernels[0].ctas[3].warps[7];
    assert_eq!(w7.insts[9].mask, 0xff);
    assert_eq!(addrs(w7, 9)[0], G + 4 * 992);
}

#[test]
fn stencil_edges_and_neighbours() {
    let t = gen("stencil", &["rows=10", "cols=40", "steps=2"]);
    assert_eq!(t.kernels.len(), 2);
    let k = &t.kernels[0];
    let c00 = &k.ctas[0];
    assert_eq!(c00.warps[0].insts.len(), 12, "row y=0 is all edge");
    assert_eq!(c00.warps[1].insts[11].mask, 0x1, "x=0 exits");
    assert_eq!(c00.warps[1].insts.len(), 31);
    let c10 = &k.ctas[1];
    assert_eq!(c10.id, Dim3::new(1, 0, 0));
    assert_eq!(c10.warps[3].insts[12].mask, 0x7f, "x = 32..38 are interior");
    // thread (5, 3): CTA (0,0), ty=3 -> warp 3, lane 5 (lane 4 after the exit of x=0).
    let w = &c00.warps[3];
    let center = addrs(w, 16);
    assert_eq!(center[4], G + 4 * 125);
    assert_eq!(addrs(w, 17)[4], G + 4 * 124);
    assert_eq!(addrs(w, 20)[4], G + 4 * 85);
    assert_eq!(addrs(w, 22)[4], G + 4 * 165);
    // Step 2 reads what step 1 wrote (B at +0x800 after 1600 B of A).
    assert_eq!(addrs(w, 29)[4], G + 0x800 + 4 * 125);
    assert_eq!(
        addrs(&t.kernels[1].ctas[0].warps[3], 16)[4],
        G + 0x800 + 4 * 125
    );
    assert_eq!(t.kernels[1].info.id, 2);
}

#[test]
fn bfs_writes_exactly_the_next_frontier() {
    let (nodes, degree, seed) = (300u64, 4u64, 7u64);
    let t = gen("bfs", &["nodes=300", "degree=4", "seed=7"]);
    let g = super::bfs::graph(nodes, degree, seed);
    let depth = g
        .level
        .iter()
        .filter(|&&l| l != u32::MAX)
        .max()
        .copied()
        .unwrap();
    assert_eq!(t.kernels.len() as u32, depth + 1);
    // Arrays: row (301 ints = 1204 B) at G, col after it (512-aligned), level after col.
    let pcol = G + 1536;
    let plev = pcol + (g.col.len() as u64 * 4).div_ceil(512) * 512;
    for (lv, k) in t.kernels.iter().enumerate() {
        let mut written: Vec<u64> = Vec::new();
        for c in &k.ctas {
            for w in &c.warps {
                for i in &w.insts {
                    if name(k, i) == "STG.E" {
                        written.extend(w.lane_addrs(i).map(|(_, a)| (a - plev) / 4));
                    }
                }
            }
        }
        written.sort_unstable();
        written.dedup();
        let expect: Vec<u64> = (0..nodes)
            .filter(|&v| g.level[v as usize] == lv as u32 + 1)
            .collect();
        assert_eq!(written, expect, "launch {lv}");
    }
    // Launch 0: only node 0 is in the frontier: warp 0 keeps lane 0 and loops deg(0) times.
    let k = &t.kernels[0];
    let w = &k.ctas[0].warps[0];
    let deg0 = (g.row[1] - g.row[0]) as usize;
    assert_eq!(w.insts[11].mask, 0xffff_fffe);
    assert_eq!(w.insts.len(), 22 + 9 * deg0);
    assert_eq!(addrs(w, 20 + 9), vec![pcol + 4]);
    assert_eq!(k.ctas[0].warps[1].insts.len(), 12);
}

#[test]
fn histogram_modes() {
    // skew 100: every value is 0, every atomic hits bin 0 (hist after 256 B of input: +0x200).
    let t = gen("histogram", &["n=64", "bins=4", "skew=100"]);
    let k = &t.kernels[0];
    let w = &k.ctas[0].warps[1];
    assert_eq!(counts(k), vec![16, 16, 6, 6, 6, 6, 6, 6]);
    let red = &w.insts[14];
    assert_eq!(name(k, red), "RED.E.ADD.STRONG.GPU");
    assert!(addrs(w, 14).iter().all(|&a| a == G + 0x200));
    let t = gen("histogram", &["n=64", "bins=4", "mode=atomg"]);
    let k = &t.kernels[0];
    let vals = super::histogram::values(64, 0, 1);
    let a = addrs(&k.ctas[0].warps[0], 14);
    assert_eq!(a[7], G + 0x200 + 4 * (vals[7] as u64 % 4));
    assert_eq!(
        name(k, &k.ctas[0].warps[0].insts[14]),
        "ATOMG.E.ADD.STRONG.GPU"
    );
    // shared: 300 bins over 256 threads: bins 0..300 zeroed (STS) and flushed (RED) exactly once.
    let t = gen("histogram", &["n=512", "bins=300", "mode=shared"]);
    let k = &t.kernels[0];
    for c in &k.ctas {
        let mut zeroed = Vec::new();
        let mut flushed = Vec::new();
        for w in &c.warps {
            for i in &w.insts {
                match name(k, i) {
                    "STS" => zeroed.extend(w.lane_addrs(i).map(|(_, a)| a / 4)),
                    "RED.E.ADD.STRONG.GPU" => {
                        flushed.extend(w.lane_addrs(i).map(|(_, a)| (a - G - 2048) / 4))
                    }
                    "ATOMS.ADD" => assert_eq!(i.mask, u32::MAX),
                    _ => {}
                }
            }
        }
        zeroed.sort_unstable();
        flushed.sort_unstable();
        assert_eq!(zeroed, (0..300).collect::<Vec<u64>>());
        assert_eq!(flushed, zeroed);
    }
}

#[test]
fn pointer_chase_is_a_dependent_chain() {
    let t = gen(
        "pointer_chase",
        &["footprint=1024", "stride=256", "iters=6"],
    );
    let k = &t.kernels[0];
    let w = &k.ctas[0].warps[0];
    assert_eq!(w.insts.len(), 8 + 4 * 6);
    // Every instruction runs on lane 0 only, but the last (not taken) backward BRA.
    assert!(w
        .insts
        .iter()
        .all(|i| i.mask == 0x1 || (name(k, i) == "BRA" && i.pc == 0x80 && i.mask == 0)));
    let loads: Vec<&TraceInst> = w
        .insts
        .iter()
        .filter(|i| name(k, i) == "LDG.E.64")
        .collect();
    let a: Vec<u64> = loads
        .iter()
        .flat_map(|i| w.lane_addrs(i).map(|(_, a)| a))
        .collect();
    assert_eq!(a, vec![G, G + 256, G + 512, G + 768, G, G + 256]);
    for l in &loads {
        assert_eq!(
            (l.srcs(), l.dsts(), l.mem_width),
            (&[2u16][..], &[2u16, 3][..], 8)
        );
        assert_eq!(l.pc, 0x50);
    }
}

#[test]
fn ffma_chains() {
    let t = gen("ffma_dep", &["n=10"]);
    let k = &t.kernels[0];
    let w = &k.ctas[0].warps[0];
    assert_eq!(w.insts.len(), 19);
    let f: Vec<&TraceInst> = w.insts.iter().filter(|i| name(k, i) == "FFMA").collect();
    assert_eq!(f.len(), 10);
    assert!(f.windows(2).all(|p| p[1].srcs().contains(&p[0].dst[0])));
    let t = gen("ffma_indep", &["n=3", "chains=4", "warps=2"]);
    let k = &t.kernels[0];
    assert_eq!(counts(k), vec![9 + 8 + 12; 2]);
    let f: Vec<&TraceInst> = k.ctas[0].warps[1]
        .insts
        .iter()
        .filter(|i| name(k, i) == "FFMA")
        .collect();
    assert_eq!(f.len(), 12);
    assert!(
        f.windows(2).all(|p| !p[1].srcs().contains(&p[0].dst[0])),
        "neighbours are independent"
    );
    assert!(
        f.windows(5).all(|p| p[4].srcs().contains(&p[0].dst[0])),
        "chain c repeats every 4"
    );
    // nvcc's loop shape: n = 10, unroll = 4 -> MOV, 2 trips of (4 FFMA, IADD3, ISETP, BRA) at
    // the same PCs, then 2 FFMAs straight.
    let t = gen("ffma_dep", &["n=10", "unroll=4"]);
    let k = &t.kernels[0];
    let w = &k.ctas[0].warps[0];
    assert_eq!(w.insts.len(), 19 - 10 + 1 + 2 * 7 + 2);
    let f: Vec<&TraceInst> = w.insts.iter().filter(|i| name(k, i) == "FFMA").collect();
    assert_eq!(f.len(), 10);
    assert_eq!(f[0].pc, f[4].pc, "trip 2 runs trip 1's PCs");
    assert_ne!(f[4].pc, f[8].pc, "the remainder follows the loop");
    assert!(f.windows(2).all(|p| p[1].srcs().contains(&p[0].dst[0])));
    let bra: Vec<&TraceInst> = w.insts.iter().filter(|i| name(k, i) == "BRA").collect();
    assert_eq!(bra.len(), 2);
    // ffma_indep: unroll counts rounds (all chains): n = 3, 4 chains, unroll 2 -> 1 trip of 8
    // FFMAs and its 3 loop instructions, a MOV before it, 1 round of 4 after.
    let t = gen("ffma_indep", &["n=3", "chains=4", "unroll=2"]);
    assert_eq!(counts(&t.kernels[0]), vec![9 + 8 + 1 + 8 + 3 + 4]);
}

#[test]
fn bank_conflict_degree_is_gcd_of_stride_and_32() {
    for (stride, degree) in [
        (1, 1),
        (2, 2),
        (3, 1),
        (8, 8),
        (12, 4),
        (32, 32),
        (33, 1),
        (64, 32),
    ] {
        let t = gen("bank_conflict", &[&format!("stride={stride}"), "reps=3"]);
        let k = &t.kernels[0];
        let w = &k.ctas[0].warps[0];
        assert_eq!(w.insts.len(), 8);
        assert_eq!(name(k, &w.insts[4]), "LDS");
        assert_eq!(conflict_degree(&addrs(w, 4)), degree, "stride {stride}");
        assert_eq!(k.info.shmem_bytes, 128 * stride);
    }
    let t = gen("bank_conflict", &["op=sts", "reps=2"]);
    assert_eq!(
        name(&t.kernels[0], &t.kernels[0].ctas[0].warps[0].insts[5]),
        "STS"
    );
}

#[test]
fn parameter_errors_name_the_parameter() {
    let cases: [(&str, &[&str], &str); 8] = [
        ("vecadd", &["n=0"], "parameter `n`"),
        ("vecadd", &["n=10", "vec=4"], "parameter `vec`"),
        ("vecadd", &["vec=3"], "parameter `vec`"),
        ("transpose_tiled", &["rows=33"], "parameter `rows`"),
        ("matmul_tiled", &["tile=20"], "parameter `tile`"),
        ("pointer_chase", &["stride=12"], "parameter `stride`"),
        ("reduction", &["block=96"], "parameter `block`"),
        ("histogram", &["mode=warp"], "parameter `mode`"),
    ];
    for (w, kv, want) in cases {
        let e = generate(w, &Params::parse(kv).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(want) && e.contains(&format!("workload `{w}`")),
            "{w} {kv:?}: {e}"
        );
    }
    let e = generate("nope", &Params::new()).unwrap_err().to_string();
    assert!(
        e.contains("unknown workload `nope`") && e.contains("vecadd"),
        "{e}"
    );
    let e = generate("saxpy", &Params::new().set("alpha", 2))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("parameter `alpha`") && e.contains("unknown"),
        "{e}"
    );
}

#[test]
fn registry_lists_every_workload_with_valid_defaults() {
    let names: Vec<&str> = list().iter().map(|d| d.name).collect();
    assert_eq!(names.len(), 17);
    for d in list() {
        assert!(
            Args::resolve(d.name, d.params, &Params::new()).is_ok(),
            "{}",
            d.name
        );
        assert!(
            d.params.iter().any(|p| p.name == "binary_version"),
            "{}",
            d.name
        );
    }
    let t = gen("vecadd", &["n=100"]);
    assert_eq!(t.name, "vecadd:n=100,block=128,vec=1,binary_version=80");
}

/// Checks one instruction line the way Accel-Sim's trace parser reads it (`trace_parser.cc`,
/// tracer version 5 without line numbers): `PC mask dest_num [R..] opcode src_num [R..]
/// mem_width [mode addresses] [imm]`, with `dest_num <= 1` and `src_num <= 4` (the parser's
/// asserts), a width on every memory opcode (a width of 0 makes the parser take it for an ALU
/// instruction with no addresses), and exactly the address tokens the mode and mask call for.
fn accelsim_parser_accepts(line: &str, is_mem: bool) -> Result<(), String> {
    let t: Vec<&str> = line.split_whitespace().collect();
    let mut p = 0;
    let mut next = || -> Result<&str, String> {
        let v = t.get(p).copied().ok_or("line ends early")?;
        p += 1;
        Ok(v)
    };
    u32::from_str_radix(next()?, 16).map_err(|e| format!("pc: {e}"))?;
    let mask = u32::from_str_radix(next()?, 16).map_err(|e| format!("mask: {e}"))?;
    let nd: usize = next()?.parse().map_err(|e| format!("dest_num: {e}"))?;
    if nd > 1 {
        return Err(format!("dest_num {nd} > MAX_DST 1"));
    }
    for _ in 0..nd {
        let r = next()?;
        if !(r.starts_with('R') || r.starts_with("UR")) {
            return Err(format!("destination `{r}` is not a register"));
        }
    }
    let opcode = next()?.to_string();
    let ns: usize = next()?.parse().map_err(|e| format!("src_num: {e}"))?;
    if ns > 4 {
        return Err(format!("src_num {ns} > MAX_SRC 4"));
    }
    for _ in 0..ns {
        let r = next()?;
        if !(r.starts_with('R') || r.starts_with("UR")) {
            return Err(format!("source `{r}` is not a register"));
        }
    }
    let width: u32 = next()?.parse().map_err(|e| format!("mem_width: {e}"))?;
    if is_mem && width == 0 {
        return Err(format!("memory instruction {opcode} with mem_width 0"));
    }
    if width > 0 {
        let lanes = mask.count_ones() as usize;
        match next()? {
            "0" => {
                for _ in 0..lanes {
                    next()?;
                }
            }
            "1" => {
                next()?;
                next()?;
            }
            "2" => {
                next()?;
                for _ in 1..lanes {
                    next()?;
                }
            }
            m => return Err(format!("address mode {m}")),
        }
    }
    // The immediate (tracer version 5; the parser reads it when there is one), then nothing.
    match t.get(p..) {
        Some([]) | Some([_]) => Ok(()),
        _ => Err(format!(
            "unexpected tokens after the immediate: {:?}",
            &t[p..]
        )),
    }
}

#[test]
fn text_of_every_workload_is_what_accelsim_parses() {
    use crate::trace::accelsim::kernel_to_text;
    // Defaults, plus the shapes that once wrote 4 destinations (LDS.128 in matmul_tiled, the
    // 64-bit pointer loads of pointer_chase) and fully masked stores (bfs).
    let mut cases: Vec<(String, Vec<&str>)> = list()
        .iter()
        .map(|d| (d.name.to_string(), vec![]))
        .collect();
    cases.push(("matmul_tiled".into(), vec!["m=32", "n=32", "k=32"]));
    cases.push(("bfs".into(), vec!["nodes=16384", "degree=8"]));
    cases.push((
        "pointer_chase".into(),
        vec!["footprint=16384", "stride=128", "iters=1024"],
    ));
    for (name, kv) in &cases {
        let t = gen(name, kv);
        for k in &t.kernels {
            let text = String::from_utf8(kernel_to_text(k).unwrap()).unwrap();
            // Instruction lines, in the order the warps are written.
            let lines = text
                .lines()
                .filter(|l| l.len() > 14 && l.as_bytes()[4] == b' ' && l.as_bytes()[13] == b' ');
            let insts = k
                .ctas
                .iter()
                .flat_map(|c| c.warps.iter().flat_map(|w| w.insts.iter()));
            let mut n = 0;
            for (line, i) in lines.zip(insts) {
                let op = k.ops.get(i.op);
                let is_mem = op.is_mem() && op.space != crate::trace::model::MemSpace::Constant;
                if let Err(e) = accelsim_parser_accepts(line, is_mem) {
                    panic!("{name} {kv:?}: `{line}`: {e}");
                }
                n += 1;
            }
            assert_eq!(n, k.warp_insts() as usize, "{name} {kv:?}");
        }
    }
}

#[test]
fn every_workload_round_trips_through_accelsim_text() {
    use crate::trace::accelsim::{kernel_to_text, read_kernel_bytes};
    use crate::trace::opcodes::Arch;
    for d in list() {
        let t = generate(d.name, &Params::new()).unwrap();
        let k = &t.kernels[0];
        let text = kernel_to_text(k).unwrap();
        let back = read_kernel_bytes(&text, "kernel-1.traceg", Arch::Ampere)
            .unwrap_or_else(|e| panic!("{}: {e}", d.name));
        assert_eq!(back.info, k.info, "{}", d.name);
        assert_eq!(back.ctas.len(), k.ctas.len());
        for (ca, cb) in k.ctas.iter().zip(&back.ctas) {
            for (wa, wb) in ca.warps.iter().zip(&cb.warps) {
                assert_eq!(wa.addrs, wb.addrs, "{}", d.name);
                for (ia, ib) in wa.insts.iter().zip(&wb.insts) {
                    let op = k.ops.get(ia.op);
                    assert_eq!(op, back.ops.get(ib.op), "{}", d.name);
                    // The text carries what the tracer records: the first destination, at most
                    // four sources, and a width on every memory instruction.
                    let width = if ia.mem_width == 0
                        && ia.mask == 0
                        && op.is_mem()
                        && op.space != crate::trace::model::MemSpace::Constant
                    {
                        crate::trace::accelsim::width_from_opcode(&op.name)
                    } else {
                        ia.mem_width
                    };
                    let nd = ia.dsts().len().min(1);
                    let ns = ia.srcs().len().min(4);
                    assert_eq!(
                        (ia.pc, ia.mask, &ia.dsts()[..nd], &ia.srcs()[..ns], width),
                        (ib.pc, ib.mask, ib.dsts(), ib.srcs(), ib.mem_width),
                        "{} pc {:#x}",
                        d.name,
                        ia.pc
                    );
                    assert_eq!(
                        (ia.has_imm(), ia.imm),
                        (ib.has_imm(), ib.imm),
                        "{} pc {:#x}",
                        d.name,
                        ia.pc
                    );
                }
            }
        }
    }
}

#[test]
fn chain_loops_over_one_body() {
    // sm_80: MOV R1, S2R, MOV R3, MOV R4, 2 x MOV R8/R9, ULDC.64, MOV R5 = 8; then 3 x
    // (2 rounds x 2 chains + IADD3, ISETP, BRA) = 21; IMAD.WIDE, STG, EXIT = 3: 32 in all.
    let t = gen(
        "chain",
        &["op=dfma", "unroll=2", "iters=3", "chains=2", "warps=2"],
    );
    let k = &t.kernels[0];
    assert_eq!(counts(k), vec![32, 32]);
    let w = &k.ctas[0].warps[0];
    let body: Vec<&TraceInst> = w.insts.iter().filter(|i| name(k, i) == "DFMA").collect();
    assert_eq!(body.len(), 12);
    // Every iteration runs the same PCs; chain c reads and writes R(8+c) only.
    let pcs: Vec<u32> = body.iter().map(|i| i.pc).collect();
    assert_eq!(&pcs[..4], &pcs[4..8]);
    assert_eq!(&pcs[..4], &pcs[8..]);
    assert_eq!((body[0].dsts(), body[1].dsts()), (&[8u16][..], &[9u16][..]));
    assert_eq!(body[2].srcs()[0], 8);
    // LDS with word stride 4: lane l at 16 l, 4 lanes per bank (degree gcd(4, 32) = 4).
    let t = gen("chain", &["op=lds", "stride=4", "unroll=1", "iters=1"]);
    let w = &t.kernels[0].ctas[0].warps[0];
    let i = w
        .insts
        .iter()
        .position(|i| name(&t.kernels[0], i) == "LDS")
        .unwrap();
    let a = addrs(w, i);
    assert_eq!((a[0], a[1], a[31]), (0, 16, 496));
    assert_eq!(conflict_degree(&a), 4);
}

#[test]
fn mem_chase_cold_has_no_copy_and_shared_uses_lds() {
    let warm = gen("mem_chase", &["footprint=1024", "stride=256", "iters=5"]);
    let cold = gen(
        "mem_chase",
        &["footprint=1024", "stride=256", "iters=5", "warm=0"],
    );
    assert!(matches!(
        warm.commands[0],
        Command::MemcpyHtoD {
            addr: G,
            bytes: 1024
        }
    ));
    assert!(matches!(cold.commands[0], Command::Kernel { index: 0 }));
    let k = &cold.kernels[0];
    let w = &k.ctas[0].warps[0];
    let a: Vec<u64> = w
        .insts
        .iter()
        .filter(|i| name(k, i) == "LDG.E.64")
        .flat_map(|i| w.lane_addrs(i).map(|(_, a)| a))
        .collect();
    assert_eq!(a, vec![G, G + 256, G + 512, G + 768, G]);
    let sh = gen(
        "mem_chase",
        &["space=shared", "footprint=64", "stride=16", "iters=6"],
    );
    let k = &sh.kernels[0];
    assert_eq!(k.info.shmem_bytes, 64);
    let w = &k.ctas[0].warps[0];
    let a: Vec<u64> = w
        .insts
        .iter()
        .filter(|i| name(k, i) == "LDS")
        .flat_map(|i| w.lane_addrs(i).map(|(_, a)| a))
        .collect();
    assert_eq!(a, vec![0, 16, 32, 48, 0, 16]);
}

/// `lanes=4, ctas=2` over 16 nodes of 128 B: 8 chains, chain k = cta * 4 + lane reads node
/// (j * 8 + k) % 16 at load j, so CTA 1 lane 2 (chain 6) reads nodes 6, 14, 6; each warp
/// load touches 4 consecutive nodes and the two CTAs together cover a pass of 16 in 2 loads.
#[test]
fn mem_chase_lanes_and_ctas_interleave_the_chains() {
    let t = gen(
        "mem_chase",
        &[
            "footprint=2048",
            "stride=128",
            "iters=3",
            "lanes=4",
            "ctas=2",
        ],
    );
    let k = &t.kernels[0];
    assert_eq!(k.ctas.len(), 2);
    let loads = |c: usize| -> Vec<Vec<u64>> {
        let w = &k.ctas[c].warps[0];
        w.insts
            .iter()
            .filter(|i| name(k, i) == "LDG.E.64")
            .map(|i| w.lane_addrs(i).map(|(_, a)| (a - G) / 128).collect())
            .collect()
    };
    assert_eq!(
        loads(0),
        vec![vec![0, 1, 2, 3], vec![8, 9, 10, 11], vec![0, 1, 2, 3]]
    );
    assert_eq!(
        loads(1),
        vec![vec![4, 5, 6, 7], vec![12, 13, 14, 15], vec![4, 5, 6, 7]]
    );
}

#[test]
fn stream_load_touches_each_address_once_or_rereads_its_region() {
    let t = gen(
        "stream_load",
        &["ctas=3", "threads=64", "reps=2", "unroll=4", "warm=0"],
    );
    assert!(matches!(t.commands[0], Command::Kernel { index: 0 }));
    let k = &t.kernels[0];
    let mut all: Vec<u64> = Vec::new();
    for c in &k.ctas {
        for w in &c.warps {
            for i in w.insts.iter().filter(|i| i.mem_width == 16) {
                all.extend(w.lane_addrs(i).map(|(_, a)| a));
            }
        }
    }
    // 3 CTAs x 64 threads x 8 loads, every one a new 16-byte slot of one 24 KiB array.
    assert_eq!(all.len(), 3 * 64 * 8);
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 3 * 64 * 8);
    assert_eq!(
        (all[0], *all.last().unwrap()),
        (G, G + 16 * (3 * 64 * 8 - 1))
    );
    // reuse: CTA 1 re-reads its own 2 KiB region (64 threads x 16 B = 1 KiB per load).
    let t = gen(
        "stream_load",
        &[
            "ctas=2",
            "threads=64",
            "reps=1",
            "unroll=4",
            "reuse=1",
            "region=2048",
        ],
    );
    let c1 = &t.kernels[0].ctas[1];
    let mut a: Vec<u64> = c1
        .warps
        .iter()
        .flat_map(|w| {
            w.insts
                .iter()
                .filter(|i| i.mem_width == 16)
                .flat_map(move |i| w.lane_addrs(i).map(|(_, a)| a))
        })
        .collect();
    assert_eq!(a.len(), 4 * 64);
    a.sort_unstable();
    a.dedup();
    assert_eq!(a.len(), 128);
    assert_eq!((a[0], *a.last().unwrap()), (G + 2048, G + 4096 - 16));
}
