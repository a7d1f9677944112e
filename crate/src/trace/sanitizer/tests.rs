//! Importer tests on real SASS (`fixtures/kernels-sm80.sass`: vecadd and matmul_naive of
//! tests/hardware/kernels.cu, `cuobjdump -sass` of nvcc 13.5 for sm_80) with hand-built record
//! streams, as the tracer would write them, and the exact traces expected.

use super::records::{encode, flag, KernelRecords, Kind, Record};
use super::*;
use crate::trace::accelsim::{kernel_to_text, read_mem_trace, write_kernelslist};
use crate::trace::model::{Command, Dim3, KernelTrace, WarpTrace};
use crate::trace::opcodes::Arch;
use crate::workload::builder::SHMEM_BASE;

const SASS: &str = include_str!("fixtures/kernels-sm80.sass");
const A: u64 = 0x7f00_0000_0000;
const B: u64 = 0x7f00_0001_0000;
const C: u64 = 0x7f00_0002_0000;

fn mem(pc: u64, cta: u32, warp: u16, lane: u8, addr: u64, write: bool) -> Record {
    Record {
        pc,
        addr,
        cta,
        warp,
        lane,
        kind: Kind::Mem,
        size: 4,
        flags: if write { flag::WRITE } else { flag::READ },
        mask: 0,
    }
}

fn ev(kind: Kind, pc: u64, cta: u32, warp: u16, mask: u32) -> Record {
    Record {
        pc,
        addr: 0,
        cta,
        warp,
        lane: mask.trailing_zeros() as u8,
        kind,
        size: 0,
        flags: 0,
        mask,
    }
}

fn kernel(name: &str, grid: Dim3, block: Dim3, records: Vec<Record>) -> KernelRecords {
    KernelRecords {
        name: name.into(),
        grid,
        block,
        dyn_shmem: 0,
        func_pc: 0x7fff_0000_1000,
        dropped: 0,
        records,
        first_record: 1,
    }
}

/// vecadd with n = 100, block 64, grid 2: thread i loads b[i] (pc 0xa0: R4 = c[0x168], the
/// second argument) and a[i] (0xb0), stores c[i] (0xe0). Lanes 4..31 of CTA 1 warp 1
/// (i >= 100) leave at `@P0 EXIT` (0x50). Warps' records interleave and lanes come in
/// reverse order, as a GPU may write them.
fn vecadd_records() -> Vec<Record> {
    let n = 100u64;
    let mut per_warp: Vec<Vec<Record>> = Vec::new();
    for cta in 0..2u32 {
        for warp in 0..2u16 {
            let mut v = vec![ev(Kind::BlockEnter, 0, cta, warp, u32::MAX)];
            let base = cta as u64 * 64 + warp as u64 * 32;
            let live: Vec<u8> = (0..32u8).filter(|&l| base + (l as u64) < n).collect();
            let oob: u32 = (0..32)
                .filter(|&l| base + l as u64 >= n)
                .map(|l| 1u32 << l)
                .sum();
            if oob != 0 {
                v.push(ev(Kind::BlockExit, 0x50, cta, warp, oob));
            }
            for (pc, arr, w) in [(0xa0, B, false), (0xb0, A, false), (0xe0, C, true)] {
                for &l in live.iter().rev() {
                    v.push(mem(pc, cta, warp, l, arr + 4 * (base + l as u64), w));
                }
            }
            v.push(ev(Kind::BlockExit, 0xf0, cta, warp, !oob));
            per_warp.push(v);
        }
    }
    // Round-robin interleave of the four warps' records.
    let mut out = Vec::new();
    let mut i = 0;
    while per_warp.iter().any(|v| i < v.len()) {
        for v in &per_warp {
            if let Some(r) = v.get(i) {
                out.push(*r);
            }
        }
        i += 1;
    }
    out
}

fn import_one(k: KernelRecords) -> (KernelTrace, KernelStats) {
    let bytes = encode(&[k]);
    let mut im = import(&bytes, "r.wwsan", SASS, "k.sass", ImportOptions::default()).unwrap();
    (im.trace.kernels.remove(0), im.stats.remove(0))
}

fn pcs(w: &WarpTrace) -> Vec<u32> {
    w.insts.iter().map(|i| i.pc).collect()
}
fn masks(w: &WarpTrace) -> Vec<u32> {
    w.insts.iter().map(|i| i.mask).collect()
}
fn ops(k: &KernelTrace, w: &WarpTrace) -> Vec<String> {
    w.insts
        .iter()
        .map(|i| k.ops.get(i.op).name.clone())
        .collect()
}

#[test]
fn vecadd_exact_trace() {
    let recs = vecadd_records();
    let nrec = recs.len() as u64;
    let (k, st) = import_one(kernel(
        "vecadd",
        Dim3::new(2, 1, 1),
        Dim3::new(64, 1, 1),
        recs,
    ));
    assert_eq!(k.info.binary_version, 80);
    assert_eq!(k.info.grid, Dim3::new(2, 1, 1));
    assert_eq!(k.ctas.len(), 2);
    let all: Vec<u32> = (0..16).map(|i| i * 0x10).collect();
    let full = &k.ctas[0].warps[0];
    assert_eq!(pcs(full), all);
    let mut m = vec![u32::MAX; 16];
    m[5] = 0; // @P0 EXIT: no lane leaves
    assert_eq!(masks(full), m);
    assert_eq!(
        ops(&k, full),
        [
            "MOV",
            "S2R",
            "S2R",
            "IMAD",
            "ISETP.GE.AND",
            "EXIT",
            "HFMA2.MMA",
            "ULDC.64",
            "IMAD.WIDE",
            "IMAD.WIDE",
            "LDG.E",
            "LDG.E",
            "IMAD.WIDE",
            "FADD",
            "STG.E",
            "EXIT"
        ]
    );
    // LDG R4, [R4.64]: dst R4, src R4; STG [R6.64], R9: no dst, src R6 R9.
    assert_eq!(
        (full.insts[10].dsts(), full.insts[10].srcs()),
        (&[4][..], &[4][..])
    );
    assert_eq!(
        (full.insts[14].dsts(), full.insts[14].srcs()),
        (&[][..], &[6, 9][..])
    );
    assert_eq!(full.insts[10].mem_width, 4);
    let lanes: Vec<(u32, u64)> = full.lane_addrs(&full.insts[10]).collect();
    assert_eq!(lanes.len(), 32);
    assert_eq!(lanes[0], (0, B));
    assert_eq!(lanes[31], (31, B + 4 * 31));
    let st_addrs: Vec<(u32, u64)> = full.lane_addrs(&full.insts[14]).collect();
    assert_eq!(st_addrs[5], (5, C + 20));
    // CTA 1 warp 1: i = 96..127, lanes 0..3 in bounds.
    let part = &k.ctas[1].warps[1];
    assert_eq!(pcs(part), all);
    let mut m = vec![u32::MAX; 16];
    m[5] = 0xffff_fff0;
    for x in m.iter_mut().skip(6) {
        *x = 0xf;
    }
    assert_eq!(masks(part), m);
    let got: Vec<(u32, u64)> = part.lane_addrs(&part.insts[11]).collect();
    assert_eq!(
        got,
        (0..4)
            .map(|l| (l, A + 4 * (96 + l as u64)))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        st,
        KernelStats {
            name: "vecadd".into(),
            ctas: 2,
            warps: 4,
            insts: 64,
            recorded: 4 * 4 + 1,
            ambiguous: 0,
            synthesized_exits: 0,
            records: nrec,
        }
    );
}

#[test]
fn vecadd_without_exit_records_takes_the_nearest_exit() {
    let recs: Vec<Record> = vecadd_records()
        .into_iter()
        .filter(|r| !(r.kind == Kind::BlockExit && r.pc == 0xf0))
        .collect();
    let (k, st) = import_one(kernel(
        "vecadd",
        Dim3::new(2, 1, 1),
        Dim3::new(64, 1, 1),
        recs,
    ));
    assert_eq!(st.synthesized_exits, 4);
    assert_eq!(st.insts, 64);
    assert_eq!(k.ctas[1].warps[1].insts[15].mask, 0xf);
}

/// matmul_naive, m = n = 16, k = 8: one CTA of 16x16 threads (8 warps), two trips of the
/// k loop (0x190..0x310, 8 LDG each). Thread (tx, ty) = (lane % 16, 2*warp + lane / 16).
fn matmul_records() -> Vec<Record> {
    let (n, kk) = (16u64, 8u64);
    let mut v = Vec::new();
    for warp in 0..8u16 {
        v.push(ev(Kind::BlockEnter, 0, 0, warp, u32::MAX));
        let tc = |l: u8| (l as u64 % 16, 2 * warp as u64 + l as u64 / 16);
        for trip in 0..2u64 {
            let k0 = 4 * trip;
            let a = |row: u64, j: u64| A + 4 * (row * kk + k0 + j);
            let b = |col: u64, j: u64| B + 4 * ((k0 + j) * n + col);
            type Addr<'a> = Box<dyn Fn(u64, u64) -> u64 + 'a>;
            let seq: [(u64, Addr); 8] = [
                (0x1a0, Box::new(|c, _| b(c, 0))),
                (0x1b0, Box::new(|c, _| b(c, 1))),
                (0x1f0, Box::new(|_, r| a(r, 0))),
                (0x200, Box::new(|_, r| a(r, 1))),
                (0x220, Box::new(|_, r| a(r, 2))),
                (0x230, Box::new(|c, _| b(c, 2))),
                (0x240, Box::new(|_, r| a(r, 3))),
                (0x250, Box::new(|c, _| b(c, 3))),
            ];
            for (pc, f) in seq.iter() {
                for l in 0..32u8 {
                    let (col, row) = tc(l);
                    v.push(mem(*pc, 0, warp, l, f(col, row), false));
                }
            }
        }
        for l in 0..32u8 {
            let (col, row) = tc(l);
            v.push(mem(0x320, 0, warp, l, C + 4 * (row * n + col), true));
        }
        v.push(ev(Kind::BlockExit, 0x330, 0, warp, u32::MAX));
    }
    v
}

#[test]
fn matmul_naive_loop_exact_trace() {
    let (k, st) = import_one(kernel(
        "matmul_naive",
        Dim3::new(1, 1, 1),
        Dim3::new(16, 16, 1),
        matmul_records(),
    ));
    let w = &k.ctas[0].warps[3];
    // Trip 1 from the entry: 0x000..=0x310 (50); trip 2 re-enters at the loop head 0x190:
    // 0x190..=0x310 (25); then STG 0x320 and EXIT 0x330.
    let mut want: Vec<u32> = (0..=0x31).map(|i| i * 0x10).collect();
    want.extend((0x19..=0x31).map(|i| i * 0x10));
    want.extend([0x320, 0x330]);
    assert_eq!(pcs(w), want);
    assert_eq!(w.insts.len(), 77);
    assert_eq!(w.insts[9].mask, 0, "@P0 EXIT at 0x90: no lane leaves");
    assert!(w
        .insts
        .iter()
        .enumerate()
        .all(|(i, x)| i == 9 || x.mask == u32::MAX));
    let ldg: Vec<&crate::trace::model::TraceInst> =
        w.insts.iter().filter(|x| x.mem_width > 0).collect();
    assert_eq!(ldg.len(), 17);
    // Trip 2's first load (B row 4) for lane 17: col 1, row 7.
    let t2 = ldg[8];
    assert_eq!(t2.pc, 0x1a0);
    let l17: Vec<(u32, u64)> = w.lane_addrs(t2).filter(|&(l, _)| l == 17).collect();
    assert_eq!(l17, [(17, B + 4 * (4 * 16 + 1))]);
    let stg = ldg[16];
    assert_eq!((stg.pc, k.ops.get(stg.op).name.as_str()), (0x320, "STG.E"));
    assert_eq!(w.lane_addrs(stg).nth(17), Some((17, C + 4 * (7 * 16 + 1))));
    assert_eq!(st.insts, 8 * 77);
    assert_eq!(st.ambiguous, 0);
    assert_eq!(st.recorded, 8 * 18);
    // Registers: the highest named is R21 -> 23 -> 24.
    assert_eq!(k.info.nregs, 24);
}

/// A loop without memory accesses between two recorded points: the shortest path (no extra
/// trip) is taken and the choice counted as ambiguous.
#[test]
fn memory_free_loop_is_ambiguous() {
    let sass = "\tcode for sm_75\n\t\tFunction : spin\n\
        /*0000*/ MOV R1, c[0x0][0x28] ;\n\
        /*0010*/ IADD3 R0, R0, 0x1, RZ ;\n\
        /*0020*/ ISETP.GE.AND P0, PT, R0, 0x10, PT ;\n\
        /*0030*/ @!P0 BRA 0x10 ;\n\
        /*0040*/ STS [R2], R0 ;\n\
        /*0050*/ BAR.SYNC 0x0 ;\n\
        /*0060*/ EXIT ;\n";
    let mut s = mem(0x40, 0, 0, 0, 0x80, true);
    s.flags |= 1 << flag::SPACE_SHIFT;
    let recs = vec![
        s,
        ev(Kind::Barrier, 0x50, 0, 0, 1),
        ev(Kind::BlockExit, 0x60, 0, 0, 1),
    ];
    let bytes = encode(&[kernel("spin", Dim3::new(1, 1, 1), Dim3::new(1, 1, 1), recs)]);
    let im = import(&bytes, "r", sass, "s", ImportOptions::default()).unwrap();
    let w = &im.trace.kernels[0].ctas[0].warps[0];
    assert_eq!(pcs(w), [0, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60]);
    assert_eq!(masks(w), [1; 7]);
    assert_eq!(im.stats[0].ambiguous, 1);
    assert_eq!(im.trace.kernels[0].info.binary_version, 75);
    assert_eq!(w.addrs, [SHMEM_BASE + 0x80]);
    assert_eq!(im.trace.kernels[0].info.shmem_bytes, 256);
}

/// The matmul_naive (one 16x16 CTA) and vecadd (two CTAs of 64) kernels, imported.
fn matmul_and_vecadd() -> (KernelTrace, KernelTrace) {
    let (k, _) = import_one(kernel(
        "matmul_naive",
        Dim3::new(1, 1, 1),
        Dim3::new(16, 16, 1),
        matmul_records(),
    ));
    let (v, _) = import_one(kernel(
        "vecadd",
        Dim3::new(2, 1, 1),
        Dim3::new(64, 1, 1),
        vecadd_records(),
    ));
    (k, v)
}

/// Accel-Sim text written from the import reads back to the same kernels.
#[test]
fn round_trip_through_the_accelsim_parser() {
    let (k, v) = matmul_and_vecadd();
    let mut v = v;
    v.info.id = 2;
    let mut files = Vec::new();
    for kt in [&k, &v] {
        let name = crate::trace::accelsim::kernel_file_name(&kt.info);
        files.push((name, std::sync::Arc::from(kernel_to_text(kt).unwrap())));
    }
    let names: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    let mut list = Vec::new();
    let cmds = [Command::Kernel { index: 0 }, Command::Kernel { index: 1 }];
    write_kernelslist(&mut list, &cmds, &names).unwrap();
    files.push(("kernelslist.g".into(), std::sync::Arc::from(list)));
    let back = read_mem_trace(files, Arch::Ampere).unwrap();
    assert_eq!(back.kernels.len(), 2);
    for (a, b) in [&k, &v].into_iter().zip(&back.kernels) {
        assert_eq!(a.info.name, b.info.name);
        assert_eq!(a.info.grid, b.info.grid);
        assert_eq!(a.warp_insts(), b.warp_insts());
        for (ca, cb) in a.ctas.iter().zip(&b.ctas) {
            for (wa, wb) in ca.warps.iter().zip(&cb.warps) {
                assert_eq!(pcs(wa), pcs(wb));
                assert_eq!(masks(wa), masks(wb));
                assert_eq!(ops(a, wa), ops(b, wb));
                assert_eq!(wa.addrs, wb.addrs);
            }
        }
    }
}

/// The imported trace simulates to completion with every instruction issued.
#[test]
fn imported_trace_simulates() {
    let (k, v) = matmul_and_vecadd();
    let t = crate::trace::model::MemTrace::from_kernels("imported", vec![k, v]);
    let cfg = crate::config::presets::preset("titanv").unwrap();
    let mut s =
        crate::engine::Simulator::new(cfg, crate::engine::ModelChoice::default(), Box::new(t))
            .unwrap();
    let r = s.run_to_end().unwrap();
    assert_eq!(r.warp_insts, 8 * 77 + 64);
    assert_eq!(r.kernels.len(), 2);
    assert!(r.cycles > 0);
}

fn err(bytes: &[u8], sass: &str) -> String {
    match import(bytes, "r.wwsan", sass, "k.sass", ImportOptions::default()) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn errors_name_file_record_and_expectation() {
    let one = |recs: Vec<Record>| {
        encode(&[kernel(
            "vecadd",
            Dim3::new(2, 1, 1),
            Dim3::new(64, 1, 1),
            recs,
        )])
    };
    let e = err(b"NOTATRACE_______", SASS);
    assert!(e.contains("r.wwsan") && e.contains("WWSANTR1"), "{e}");
    let e = err(&one(vec![mem(0xa8, 0, 0, 0, A, false)]), SASS);
    assert!(
        e.contains("r.wwsan:1") && e.contains("0xa8 is not an instruction"),
        "{e}"
    );
    let e = err(
        &one(vec![
            mem(0xa0, 0, 0, 0, A, false),
            mem(0xd0, 0, 0, 1, A, false),
        ]),
        SASS,
    );
    assert!(
        e.contains("r.wwsan:2") && e.contains("FADD") && e.contains("expected a memory"),
        "{e}"
    );
    let e = err(&one(vec![mem(0xa0, 5, 0, 0, A, false)]), SASS);
    assert!(e.contains("cta") && e.contains("expected < 2"), "{e}");
    // A CTA with no record was not traced: refused, not invented from the SASS.
    let cta0: Vec<Record> = vecadd_records()
        .into_iter()
        .filter(|r| r.cta == 0)
        .collect();
    let e = err(&one(cta0), SASS);
    assert!(
        e.contains("vecadd: CTA 1 has no record")
            && e.contains("the records hold 1 of the grid's 2 CTAs"),
        "{e}"
    );
    // A grid no launch has (checked as every trace reader checks one).
    let e = err(
        &encode(&[kernel(
            "vecadd",
            Dim3::new(1, 1 << 20, 1),
            Dim3::new(64, 1, 1),
            vec![],
        )]),
        SASS,
    );
    assert!(
        e.contains("r.wwsan") && e.contains("larger than CUDA launches"),
        "{e}"
    );
    let mut k = kernel("vecadd", Dim3::new(2, 1, 1), Dim3::new(64, 1, 1), vec![]);
    k.dropped = 7;
    let e = err(&encode(&[k]), SASS);
    assert!(e.contains("7 records were lost"), "{e}");
    let e = err(
        &encode(&[kernel(
            "nope",
            Dim3::new(1, 1, 1),
            Dim3::new(32, 1, 1),
            vec![],
        )]),
        SASS,
    );
    assert!(
        e.contains("k.sass") && e.contains("no function nope") && e.contains("matmul_naive"),
        "{e}"
    );
    let mut b = one(vec![mem(0xa0, 0, 0, 0, A, false)]);
    b.truncate(b.len() - 5);
    let e = err(&b, SASS);
    assert!(e.contains("header says 1 records"), "{e}");
    let e = err(&one(vec![]), "no functions here\n");
    assert!(e.contains("cuobjdump -sass"), "{e}");
    // A store recorded first: every path from the entry passes the two loads.
    let e = err(
        &one(vec![
            mem(0xe0, 0, 0, 0, C, true),
            mem(0xa0, 0, 0, 0, B, false),
        ]),
        SASS,
    );
    assert!(
        e.contains("r.wwsan:1") && e.contains("no SASS path of vecadd from the entry to 0xe0"),
        "{e}"
    );
}

/// The vecadd model (`warpweave gen vecadd`, binary_version 80) against the real sm_80 SASS:
/// records made from the model's own memory accesses, imported against the SASS, give the
/// model's trace back: same PCs, masks and addresses in every warp, opcodes equal but for the
/// constant 4 (`MOV R7, 0x4` in the model, `HFMA2.MMA R7, -RZ, RZ, 0, 2.38e-07` from nvcc).
#[test]
fn vecadd_model_matches_the_real_sass() {
    use crate::workload::{generate, Params};
    let p = Params::parse(&["n=100", "block=64", "binary_version=80"]).unwrap();
    let model = generate("vecadd", &p).unwrap().kernels.remove(0);
    let mut recs = Vec::new();
    for (c, cta) in model.ctas.iter().enumerate() {
        for w in &cta.warps {
            let wid = w.warp_id as u16;
            for i in &w.insts {
                let name = &model.ops.get(i.op).name;
                if i.mem_width > 0 {
                    for (lane, a) in w.lane_addrs(i) {
                        let write = name.starts_with("STG");
                        recs.push(mem(i.pc as u64, c as u32, wid, lane as u8, a, write));
                    }
                } else if name == "EXIT" && i.mask != 0 {
                    recs.push(ev(Kind::BlockExit, i.pc as u64, c as u32, wid, i.mask));
                }
            }
        }
    }
    let (k, st) = import_one(kernel("vecadd", model.info.grid, model.info.block, recs));
    assert_eq!(st.ambiguous, 0);
    assert_eq!(k.warp_insts(), model.warp_insts());
    for (cm, ci) in model.ctas.iter().zip(&k.ctas) {
        for (wm, wi) in cm.warps.iter().zip(&ci.warps) {
            assert_eq!(pcs(wm), pcs(wi));
            assert_eq!(masks(wm), masks(wi));
            assert_eq!(wm.addrs, wi.addrs);
            let (om, oi) = (ops(&model, wm), ops(&k, wi));
            let differ: Vec<(&String, &String)> =
                om.iter().zip(&oi).filter(|(a, b)| a != b).collect();
            assert_eq!(differ, [(&"MOV".to_string(), &"HFMA2.MMA".to_string())]);
        }
    }
}

/// Divergent exit: lane 0 leaves at an unconditional EXIT inside an `if`, lanes 1..31 go on
/// to the store; the rest of the warp resumes from its last recorded point.
#[test]
fn divergent_exit_resumes_the_other_lanes() {
    let sass = "\tcode for sm_80\n\t\tFunction : div\n\
        /*0000*/ S2R R0, SR_TID.X ;\n\
        /*0010*/ LDG.E R2, [R4.64] ;\n\
        /*0020*/ ISETP.NE.AND P0, PT, R0, RZ, PT ;\n\
        /*0030*/ @P0 BRA 0x50 ;\n\
        /*0040*/ EXIT ;\n\
        /*0050*/ STG.E [R4.64], R2 ;\n\
        /*0060*/ EXIT ;\n";
    let mut recs: Vec<Record> = (0..32u8)
        .map(|l| mem(0x10, 0, 0, l, A + 4 * l as u64, false))
        .collect();
    recs.push(ev(Kind::BlockExit, 0x40, 0, 0, 1));
    recs.extend((1..32u8).map(|l| mem(0x50, 0, 0, l, C + 4 * l as u64, true)));
    recs.push(ev(Kind::BlockExit, 0x60, 0, 0, !1));
    let bytes = encode(&[kernel("div", Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), recs)]);
    let im = import(&bytes, "r", sass, "s", ImportOptions::default()).unwrap();
    let w = &im.trace.kernels[0].ctas[0].warps[0];
    assert_eq!(pcs(w), [0, 0x10, 0x20, 0x30, 0x40, 0x20, 0x30, 0x50, 0x60]);
    assert_eq!(masks(w), [!0, !0, !0, !0, 1, !1, !1, !1, !1]);
    assert_eq!(im.stats[0].ambiguous, 1);
}

/// Local memory as the card lays it out: the tracer gives every thread the same window
/// offset; imported, a warp's lanes sit 4 bytes apart (one 128-byte line for a 32-bit STL of
/// the whole warp) and each warp has its own region of 32 x the frame.
#[test]
fn local_offsets_interleave_by_lane_and_warp() {
    use super::import::LocalLayout;
    use crate::workload::builder::LOCAL_BASE;
    // A local store (space 2).
    let rec = |cta: u32, warp: u16, lane: u8, addr: u64| Record {
        flags: flag::WRITE | (2 << flag::SPACE_SHIFT),
        ..mem(0x10, cta, warp, lane, addr, true)
    };
    // Offsets 0xfffd40..0xfffd7f reached: a 64-byte frame from 0xfffd40.
    let k = KernelRecords {
        name: "k".into(),
        grid: Dim3::new(2, 1, 1),
        block: Dim3::new(64, 1, 1),
        dyn_shmem: 0,
        func_pc: 0,
        dropped: 0,
        records: vec![rec(0, 0, 0, 0xfffd40), rec(0, 0, 0, 0xfffd7c)],
        first_record: 1,
    };
    let l = LocalLayout::of(&k);
    assert_eq!(l.address(&rec(0, 0, 0, 0xfffd40)), LOCAL_BASE);
    assert_eq!(l.address(&rec(0, 0, 31, 0xfffd40)), LOCAL_BASE + 124);
    // Word 1 of the frame: the next 128-byte line; byte 2 of word 1 of lane 5.
    assert_eq!(
        l.address(&rec(0, 0, 5, 0xfffd46)),
        LOCAL_BASE + 128 + 20 + 2
    );
    // Warp 1 of CTA 0, then warp 0 of CTA 1 (two warps per CTA): regions of 32 x 64 bytes.
    assert_eq!(l.address(&rec(0, 1, 0, 0xfffd40)), LOCAL_BASE + 2048);
    assert_eq!(l.address(&rec(1, 0, 0, 0xfffd40)), LOCAL_BASE + 2 * 2048);
}
