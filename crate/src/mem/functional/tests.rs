//! End-to-end functional-mode runs on tiny hand-made traces.

use super::*;
use crate::trace::{
    CtaTrace, Dim3, KernelInfo, KernelTrace, MemTrace, OpInfo, OpKind, TraceInst, Unit, WarpTrace,
};

fn ops() -> OpTable {
    let mut t = OpTable::new();
    let mk = |name: &str, kind, space| OpInfo {
        name: name.into(),
        unit: Unit::Mem,
        kind,
        space,
        ..OpInfo::default()
    };
    t.push(mk("LDG.E.64", OpKind::Load, MemSpace::Global)); // 0
    t.push(mk("STG.E", OpKind::Store, MemSpace::Global)); // 1
    t.push(mk("LDS", OpKind::Load, MemSpace::Shared)); // 2
    t.push(OpInfo {
        name: "IADD3".into(),
        ..OpInfo::default()
    }); // 3
    t.push(mk("ATOMG.ADD", OpKind::Atomic, MemSpace::Global)); // 4
    t
}

/// A warp running `(op, width, lane addresses)` instructions (lanes 0..n active).
fn warp(id: u32, insts: &[(u16, u16, Vec<u64>)]) -> WarpTrace {
    let mut w = WarpTrace {
        warp_id: id,
        ..WarpTrace::default()
    };
    for (k, (op, width, addrs)) in insts.iter().enumerate() {
        let mask = if addrs.len() == 32 {
            u32::MAX
        } else {
            (1u32 << addrs.len()) - 1
        };
        w.insts.push(TraceInst {
            pc: 16 * k as u32,
            mask: if *width == 0 { u32::MAX } else { mask },
            op: crate::trace::OpId(*op),
            mem_width: *width,
            addr_start: w.addrs.len() as u32,
            ..TraceInst::default()
        });
        w.addrs.extend_from_slice(addrs);
    }
    w
}

fn kernel(ctas: Vec<Vec<WarpTrace>>) -> KernelTrace {
    let n = ctas.len() as u32;
    KernelTrace {
        info: KernelInfo {
            name: "k".into(),
            id: 1,
            grid: Dim3::new(n, 1, 1),
            block: Dim3::new(32, 1, 1),
            nregs: 16,
            ..KernelInfo::default()
        },
        ops: ops(),
        ctas: ctas
            .into_iter()
            .enumerate()
            .map(|(i, warps)| CtaTrace {
                id: Dim3::new(i as u32, 1, 1),
                warps,
            })
            .collect(),
    }
}

fn cfg(sms: u32) -> GpuConfig {
    let mut c = GpuConfig::default();
    c.gpu.num_sms = sms;
    c
}

#[test]
fn figure2_stream_filters_l1_hits_from_l2() {
    let fig2 = vec![0x1000u64, 0x1040, 0x1080, 0x10c0];
    let k = kernel(vec![vec![warp(
        0,
        &[(0, 8, fig2.clone()), (3, 0, vec![]), (0, 8, fig2)],
    )]]);
    let r = run(&cfg(1), &mut MemTrace::from_kernels("t", vec![k])).unwrap();
    let k = &r.kernels[0];
    assert_eq!((k.mem_instructions, k.requests, k.sectors), (2, 4, 8));
    assert_eq!(k.sectors_per_instruction, 4.0);
    // L1: 2 misses then 2 hits; the L2 sees only the misses: 4 sectors = 128 B.
    assert_eq!(
        (k.l1.accesses, k.l1.hits, k.l1.next_read_sectors),
        (4, 2, 4)
    );
    assert_eq!(k.l1_global_load_hit_rate, 0.5);
    assert_eq!((k.l2.accesses, k.l2.hits, k.dram_read_sectors), (2, 0, 4));
    assert_eq!(
        k.per_pc,
        vec![PcReport::new(0, 2, 0, 0, 2), PcReport::new(32, 2, 2, 0, 0)]
    );
    // SDCM on the L1 stream: 4 cold sectors then 4 reuses at distance <= 3: all hits.
    assert_eq!(k.sdcm.l1_hit_rate, 0.5);
}

#[test]
fn write_policies_give_dram_transactions() {
    // A full-line store (32 lanes x 4 B), then a load of the same line, then an atomic.
    let line: Vec<u64> = (0..32).map(|i| 0x8000 + 4 * i).collect();
    let k = kernel(vec![vec![warp(
        0,
        &[(1, 4, line.clone()), (0, 4, line), (4, 4, vec![0x9000])],
    )]]);
    let mut c = cfg(1);
    c.l2.flush_at_kernel_end = true;
    let r = run(&c, &mut MemTrace::from_kernels("t", vec![k])).unwrap();
    let k = &r.kernels[0];
    // L1 write-through, no allocate: the store goes to L2 (4 sectors), the load misses in L1.
    assert_eq!(
        (
            k.l1.accesses,
            k.l1.hits,
            k.l1.next_write_sectors,
            k.l1.next_read_sectors
        ),
        (2, 0, 4, 4)
    );
    // L2 write-back write-allocate: the store misses and reads its sectors first (Figure 4),
    // the load hits, the atomic misses (1 sector read); the flush writes 4 + 1 dirty sectors.
    assert_eq!((k.l2.accesses, k.l2.hits, k.l2.writes), (3, 1, 2));
    assert_eq!(
        (k.dram_read_sectors, k.dram_write_sectors, k.atomics),
        (5, 5, 1)
    );
}

#[test]
fn ctas_round_robin_shared_memory_and_memcpy_warmup() {
    let a = |base: u64| vec![base, base + 4];
    let shared: Vec<u64> = (0..32).map(|i| 128 * i).collect();
    // 4 CTAs on 2 SMs: CTAs 0 and 2 on SM 0 touch the same line, so SM 0's L1 hits once;
    // CTAs 1 and 3 on SM 1 touch different lines.
    let k = kernel(vec![
        vec![warp(0, &[(0, 4, a(0x10_0000_0000)), (2, 4, shared)])],
        vec![warp(0, &[(0, 4, a(0x20_0000))])],
        vec![warp(0, &[(0, 4, a(0x10_0000_0000))])],
        vec![warp(0, &[(0, 4, a(0x30_0000))])],
    ]);
    let mut t = MemTrace::from_kernels("t", vec![k]);
    // Warm a line above 4 GiB (Accel-Sim truncates such addresses to 32 bits).
    t.commands.insert(
        0,
        Command::MemcpyHtoD {
            addr: 0x10_0000_0000,
            bytes: 256,
        },
    );
    let r = run(&cfg(2), &mut t).unwrap();
    let k = &r.kernels[0];
    assert_eq!(k.ctas, 4);
    assert_eq!((k.l1.accesses, k.l1.hits), (4, 1));
    // The warmed line hits in L2; the other two lines miss.
    assert_eq!((k.l2.accesses, k.l2.hits), (3, 1));
    assert_eq!(
        k.shared,
        SharedReport {
            instructions: 1,
            wavefronts: 32,
            bank_conflicts: 31
        }
    );
}

#[test]
fn truncated_addresses_are_an_error_not_a_panic() {
    let mut w = warp(0, &[(0, 4, vec![0x100, 0x104])]);
    w.addrs.pop();
    let k = kernel(vec![vec![w]]);
    let e = run(&cfg(1), &mut MemTrace::from_kernels("bad.traceg", vec![k]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.traceg") && e.contains("addresses"), "{e}");
}

/// The pass streams CTAs: with 4 SMs of at most `max_active` CTAs each, a 512-CTA vecadd
/// never holds more than twice the resident CTAs. CTA i goes to SM i % 4 and an SM pulls
/// from the stream only until it finds its own next CTA, so while one SM refills its
/// `max_active` slots the others receive at most `max_active` each to wait for them.
#[test]
fn held_cta_traces_are_bounded_by_resident_ctas() {
    use crate::workload::{generate, Params};
    let t = generate("vecadd", &Params::new().set("n", 65536)).unwrap();
    let c = cfg(4);
    let mut src = t;
    let info = src.kernel_info(0).clone();
    let max_active = carveout::choose(&c, &info).max_active_ctas as usize;
    let mut fm = FuncMem::new(&c, 0).unwrap();
    let mut stream = src.open_kernel(0).unwrap();
    let (rep, peak) = run_kernel(&c, &mut fm, &mut *stream, "t", true).unwrap();
    assert_eq!(rep.ctas, 512);
    assert!(max_active >= 2, "{max_active}");
    assert!(peak <= 2 * 4 * max_active, "{peak} > 2 x 4 x {max_active}");
    assert!(peak >= 4 * max_active, "{peak}");
    // 4 warps x 3 memory instructions per CTA
    assert_eq!(rep.mem_instructions, 512 * 12);
}

#[test]
fn pc_table_keeps_every_pc_apart() {
    // Aligned small PCs go to the indexed table, unaligned and huge ones to the map; each
    // keeps its own counters and a cleared table forgets them all.
    let mut t = hier::PcTable::default();
    for (pc, n) in [
        (0x10u32, 3u64),
        (0x0, 1),
        (0x12, 2),
        (0x40_0000, 4),
        (0x10, 1),
    ] {
        t.entry(pc).requests += n;
    }
    let mut got: Vec<(u32, u64)> = t.iter().map(|(pc, c)| (pc, c.requests)).collect();
    got.sort_unstable();
    assert_eq!(got, [(0x0, 1), (0x10, 4), (0x12, 2), (0x40_0000, 4)]);
    t.clear();
    assert_eq!(t.iter().count(), 0);
}
