//! The cycle memory system inside the whole simulator (`model.memory = cycle`), and the SM's
//! coalescer checked against `mem::coalesce` (both must see the same requests).

use crate::config::GpuConfig;
use crate::core::ldst::{self, CoalesceParams};
use crate::engine::{ModelChoice, ModuleModel, Simulator};
use crate::mem::coalesce::{coalesce, shmem_wavefronts};
use crate::mem::functional;
use crate::mem::partitions::nominal_latencies;
use crate::trace::*;

fn op(
    t: &mut OpTable,
    name: &str,
    unit: Unit,
    lat: LatClass,
    kind: OpKind,
    space: MemSpace,
) -> OpId {
    t.push(OpInfo {
        name: name.into(),
        unit,
        lat,
        kind,
        space,
        unknown: false,
    })
}

/// `ctas` CTAs of 2 warps; warp w of CTA c loads its own line twice (the second load hits
/// the L1), each load feeding an FADD.
fn kernel(ctas: u32) -> KernelTrace {
    let mut t = OpTable::new();
    let ldg = op(
        &mut t,
        "LDG.E",
        Unit::Mem,
        LatClass::Mem,
        OpKind::Load,
        MemSpace::Global,
    );
    let fadd = op(
        &mut t,
        "FADD",
        Unit::Sp,
        LatClass::Fp32,
        OpKind::Alu,
        MemSpace::None,
    );
    let mk = |op, dst: Reg, src: Reg, width: u16| {
        let mut i = TraceInst {
            op,
            mask: u32::MAX,
            ndst: 1,
            nsrc: 1,
            mem_width: width,
            ..TraceInst::default()
        };
        i.dst[0] = dst;
        i.src[0] = src;
        i
    };
    let mut cs = Vec::new();
    for c in 0..ctas {
        let mut warps = Vec::new();
        for w in 0..2u32 {
            let base = 0x7000_0000u64 + ((c * 2 + w) as u64) * 4096;
            let lanes: Vec<u64> = (0..32).map(|l| base + 4 * l).collect();
            let mut wt = WarpTrace {
                warp_id: w,
                ..WarpTrace::default()
            };
            for (k, mut i) in [
                mk(ldg, 1, 2, 4),
                mk(fadd, 3, 1, 0),
                mk(ldg, 4, 2, 4),
                mk(fadd, 5, 4, 0),
            ]
            .into_iter()
            .enumerate()
            {
                i.pc = 16 * k as u32;
                if i.mem_width > 0 {
                    i.addr_start = wt.addrs.len() as u32;
                    wt.addrs.extend_from_slice(&lanes);
                }
                wt.insts.push(i);
            }
            warps.push(wt);
        }
        cs.push(CtaTrace {
            id: Dim3::new(c, 0, 0),
            warps,
        });
    }
    KernelTrace {
        info: KernelInfo {
            name: "twice".into(),
            id: 1,
            grid: Dim3::new(ctas, 1, 1),
            block: Dim3::new(64, 1, 1),
            nregs: 16,
            ..KernelInfo::default()
        },
        ops: t,
        ctas: cs,
    }
}

fn cfg() -> GpuConfig {
    let mut c = GpuConfig::default();
    c.gpu.num_sms = 2;
    c.frontend.l0i.size_kb = 0;
    c.frontend.l1i.size_kb = 0;
    c
}

#[test]
fn cycle_memory_runs_a_kernel_and_matches_functional_counts() {
    let c = cfg();
    let model = ModelChoice {
        memory: ModuleModel::Cycle,
        ..ModelChoice::default()
    };
    let mut sim = Simulator::new(
        c.clone(),
        model,
        Box::new(MemTrace::from_kernels("t", vec![kernel(4)])),
    )
    .unwrap();
    let r = sim.run_to_end().unwrap();
    let m = r.memory.expect("cycle memory statistics");
    let f = functional::run(&c, &mut MemTrace::from_kernels("t", vec![kernel(4)])).unwrap();
    let fk = &f.kernels[0];
    // 8 warps x 2 loads of one full line: 16 L1 accesses, 8 hits, 8 line fills from L2.
    assert_eq!(
        (m.sm.l1.accesses, m.sm.l1.hits),
        (fk.l1.accesses, fk.l1.hits)
    );
    assert_eq!((m.sm.l1.accesses, m.sm.l1.hits), (16, 8));
    assert_eq!(
        (m.partitions.l2.accesses, m.partitions.l2.hits),
        (fk.l2.accesses, fk.l2.hits)
    );
    assert_eq!(m.partitions.dram.reads, 8);
    // Every warp waits for one DRAM access: the run lasts at least the DRAM latency.
    let nom = nominal_latencies(&c);
    assert!(
        r.cycles as f64 >= nom.dram,
        "{} cycles < {}",
        r.cycles,
        nom.dram
    );
    assert!((r.cycles as f64) < 3.0 * nom.dram, "{} cycles", r.cycles);
}

#[test]
fn sm_coalescer_agrees_with_mem_coalesce() {
    let p = CoalesceParams {
        line_bytes: 128,
        sector_bytes: 32,
        const_line_bytes: 64,
        shmem_banks: 32,
        shmem_bank_bytes: 4,
    };
    let k = KernelInfo::default();
    let mut x = 0x9e37_79b9u64;
    let mut theirs = Vec::new();
    let mut ours = Vec::new();
    for round in 0..300 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let width = [1u16, 4, 8, 16][(x >> 60) as usize % 4];
        let stride = [0u64, 4, 8, 36, 128, 4096][(x >> 50) as usize % 6];
        let mask = if round % 3 == 0 {
            (x >> 16) as u32
        } else {
            u32::MAX
        };
        let n = mask.count_ones() as usize;
        // Naturally aligned, as the hardware requires.
        let base = 0x1000_0000 + ((x & 0xfff) & !(width as u64 - 1));
        let addrs: Vec<u64> = (0..n as u64).map(|l| base + l * stride).collect();
        let inst = TraceInst {
            mask,
            mem_width: width,
            ..TraceInst::default()
        };
        let wt = WarpTrace {
            warp_id: 0,
            insts: vec![inst],
            addrs: addrs.clone(),
        };
        ldst::coalesce(
            &inst,
            &wt.addrs,
            MemSpace::Global,
            OpKind::Load,
            &k,
            &p,
            0,
            &mut theirs,
            &mut Vec::new(),
        );
        coalesce(mask, &addrs, width as u32, 128, 32, &mut ours);
        let a: Vec<(u64, u8, u32)> = theirs
            .iter()
            .map(|r| (r.addr, r.sectors, r.bytes))
            .collect();
        let b: Vec<(u64, u8, u32)> = ours.iter().map(|r| (r.addr, r.sectors, r.bytes)).collect();
        assert_eq!(a, b, "width {width} stride {stride} mask {mask:#x}");
        if n > 0 {
            ldst::coalesce(
                &inst,
                &wt.addrs,
                MemSpace::Shared,
                OpKind::Load,
                &k,
                &p,
                0,
                &mut theirs,
                &mut Vec::new(),
            );
            assert_eq!(
                theirs[0].shmem_wavefronts,
                shmem_wavefronts(mask, &addrs, width as u32, 32, 4)
            );
        }
    }
}

/// vecadd (c = a + b, n floats, every store a whole sector) from a cold L2: with lazy
/// fetch-on-read only a and b are read from DRAM, n*4/32 sectors each; fetching on write
/// reads c too. The cycle memory system and the functional mode agree on both.
#[test]
fn lazy_fetch_on_read_reads_only_the_inputs() {
    use crate::workload::{generate, Params};
    let n = 8192u64;
    let t = generate("vecadd", &Params::new().set("n", n)).unwrap();
    let per_array = n * 4 / 32;
    for (lazy, reads) in [(true, 2 * per_array), (false, 3 * per_array)] {
        let mut c = crate::config::preset("titanv").unwrap();
        c.gpu.num_sms = 4;
        c.l2.warm_from_memcpy = false;
        c.l2.cache.lazy_fetch_on_read = lazy;
        let model = ModelChoice {
            memory: ModuleModel::Cycle,
            ..ModelChoice::default()
        };
        let mut sim = Simulator::new(c.clone(), model, Box::new(t.clone())).unwrap();
        let m = sim.run_to_end().unwrap().memory.unwrap();
        assert_eq!(
            m.partitions.dram.read_bytes / 32,
            reads,
            "cycle, lazy {lazy}"
        );
        let f = functional::run(&c, &mut t.clone()).unwrap();
        assert_eq!(
            f.kernels[0].dram_read_sectors, reads,
            "functional, lazy {lazy}"
        );
        // Stores hit under lazy fetch-on-read; with fetch-on-write they miss (cold lines).
        let store_hits = if lazy { per_array / 4 } else { 0 };
        assert_eq!(f.kernels[0].l2.write_hits, store_hits, "lazy {lazy}");
    }
}
