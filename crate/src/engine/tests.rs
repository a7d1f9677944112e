//! Microbenchmark traces with cycle counts derived by hand from the pipeline timing:
//!
//! ```text
//!  cycle 0: CTA issued, fetch (L0 hit, latency 1)   cycle 1: decode -> ibuffer
//!  cycle 2: first issue; operands read at issue+1, dispatch the same cycle;
//!  completion c = dispatch + L - 1 = issue + L; a dependent issues at c (write-back runs
//!  before issue); the CTA finishes in the cycle of its last write-back w, so the run ends
//!  with `cycles = w + 1`.
//! ```
//! Default timings: FP32 latency 4 / interval 2, INT 4 / 2; 2 register banks x 2 ports;
//! 2 collector units per sub-core; instruction caches perfect unless a test says otherwise.

use super::*;
use crate::config::{GpuConfig, SchedPolicy};
use crate::core::IssueEvent;
use crate::stats::StallKind;
use crate::trace::*;

pub(super) struct Ops {
    t: OpTable,
    ffma: OpId,
    fadd: OpId,
    pub(super) iadd: OpId,
    bar: OpId,
    ldg: OpId,
    lds: OpId,
    stg: OpId,
}

pub(super) fn ops() -> Ops {
    let mut t = OpTable::new();
    let mut op = |name: &str, unit, lat, kind, space| {
        t.push(OpInfo {
            name: name.into(),
            unit,
            lat,
            kind,
            space,
            unknown: false,
        })
    };
    let ffma = op(
        "FFMA",
        Unit::Sp,
        LatClass::Fp32,
        OpKind::Alu,
        MemSpace::None,
    );
    let fadd = op(
        "FADD",
        Unit::Sp,
        LatClass::Fp32,
        OpKind::Alu,
        MemSpace::None,
    );
    let iadd = op(
        "IADD3",
        Unit::Int,
        LatClass::Int,
        OpKind::Alu,
        MemSpace::None,
    );
    let bar = op(
        "BAR.SYNC",
        Unit::Branch,
        LatClass::Branch,
        OpKind::Barrier,
        MemSpace::None,
    );
    let ldg = op(
        "LDG.E",
        Unit::Mem,
        LatClass::Mem,
        OpKind::Load,
        MemSpace::Global,
    );
    let lds = op(
        "LDS",
        Unit::Mem,
        LatClass::Mem,
        OpKind::Load,
        MemSpace::Shared,
    );
    let stg = op(
        "STG.E",
        Unit::Mem,
        LatClass::Mem,
        OpKind::Store,
        MemSpace::Global,
    );
    Ops {
        stg,
        t,
        ffma,
        fadd,
        iadd,
        bar,
        ldg,
        lds,
    }
}

pub(super) fn ins(op: OpId, dst: &[Reg], src: &[Reg]) -> TraceInst {
    let mut i = TraceInst {
        op,
        mask: u32::MAX,
        ndst: dst.len() as u8,
        nsrc: src.len() as u8,
        ..Default::default()
    };
    i.dst[..dst.len()].copy_from_slice(dst);
    i.src[..src.len()].copy_from_slice(src);
    i
}

/// A warp from instructions (PCs 0, 16, 32, ...); memory instructions take their 32 lane
/// addresses from `addrs` in order.
fn warp(insts: Vec<TraceInst>, addrs: &[Vec<u64>]) -> WarpTrace {
    let mut w = WarpTrace::default();
    let mut a = addrs.iter();
    for (k, mut i) in insts.into_iter().enumerate() {
        i.pc = 16 * k as u32;
        if i.mem_width > 0 {
            let lanes = a.next().expect("addresses for a memory instruction");
            i.addr_start = w.addrs.len() as u32;
            i.mask = if lanes.len() == 32 {
                u32::MAX
            } else {
                (1u32 << lanes.len()) - 1
            };
            w.addrs.extend_from_slice(lanes);
        }
        w.insts.push(i);
    }
    w
}

fn mem(op: OpId, dst: &[Reg], src: &[Reg], width: u16) -> TraceInst {
    TraceInst {
        mem_width: width,
        ..ins(op, dst, src)
    }
}

pub(super) fn kernel(name: &str, ops: &Ops, ctas: Vec<Vec<WarpTrace>>) -> KernelTrace {
    let nw = ctas.first().map(|c| c.len()).unwrap_or(1) as u32;
    let info = KernelInfo {
        name: name.into(),
        id: 1,
        grid: Dim3::new(ctas.len() as u32, 1, 1),
        block: Dim3::new(32 * nw, 1, 1),
        nregs: 32,
        ..Default::default()
    };
    let ctas = ctas
        .into_iter()
        .enumerate()
        .map(|(i, mut ws)| {
            for (k, w) in ws.iter_mut().enumerate() {
                w.warp_id = k as u32;
            }
            CtaTrace {
                id: Dim3::new(i as u32, 0, 0),
                warps: ws,
            }
        })
        .collect();
    KernelTrace {
        info,
        ops: ops.t.clone(),
        ctas,
    }
}

pub(super) fn cfg() -> GpuConfig {
    let mut c = GpuConfig::default();
    c.gpu.num_sms = 1;
    c.frontend.l0i.size_kb = 0;
    c.frontend.l1i.size_kb = 0;
    c
}

fn sim(c: &GpuConfig, ks: Vec<KernelTrace>) -> Simulator<'static> {
    Simulator::new(
        c.clone(),
        ModelChoice::default(),
        Box::new(MemTrace::from_kernels("test", ks)),
    )
    .unwrap()
}

pub(super) fn run(c: &GpuConfig, ks: Vec<KernelTrace>) -> SimResult {
    sim(c, ks).run_to_end().unwrap()
}

fn run_log(c: &GpuConfig, ks: Vec<KernelTrace>) -> (SimResult, Vec<IssueEvent>) {
    let mut s = sim(c, ks);
    s.gpu.sms[0].enable_issue_log();
    let r = s.run_to_end().unwrap();
    (r, s.gpu.sms[0].sh.issue_log.take().unwrap())
}

fn chain(o: &Ops, n: usize, src: &[Reg]) -> WarpTrace {
    warp((0..n).map(|_| ins(o.ffma, &[0], src)).collect(), &[])
}

#[test]
fn dependent_ffma_chain_costs_its_latency_per_instruction() {
    let o = ops();
    let c = cfg();
    // Issue k at 2 + 4k; the last completes at 2 + 4N; cycles = 4N + 3.
    let r10 = run(
        &c,
        vec![kernel("chain", &o, vec![vec![chain(&o, 10, &[0, 1, 3])]])],
    );
    let r20 = run(
        &c,
        vec![kernel("chain", &o, vec![vec![chain(&o, 20, &[0, 1, 3])]])],
    );
    assert_eq!(r10.cycles, 43);
    assert_eq!(r20.cycles - r10.cycles, 10 * 4);
    assert_eq!(r10.warp_insts, 10);
    assert_eq!(r10.thread_insts, 320);
    // Latency 6: 6N + 3.
    let mut c6 = cfg();
    c6.latency.fp32.latency = 6;
    assert_eq!(
        run(
            &c6,
            vec![kernel("chain", &o, vec![vec![chain(&o, 10, &[0, 1, 3])]])]
        )
        .cycles,
        63
    );
    // CPI stack, 4 sub-cores x 43 cycles. Sub-core 0 issues 10 times, waits for fetch in
    // cycles 0 and 1, on data 3 x 9 cycles between issues and 3 more (39..41) while the last
    // FFMA drains; in cycle 42 its write-back completes the warp: idle. The rest is idle.
    let s = &r10.stall_stack;
    assert_eq!(s.get(StallKind::Issued), 10);
    assert_eq!(s.get(StallKind::IFetch), 2);
    assert_eq!(s.get(StallKind::CompData), 30);
    assert_eq!(s.get(StallKind::Idle), 1 + 3 * 43);
    assert_eq!(s.total(), 4 * 43);
    // Per-PC attribution: each FFMA issued once; the data stalls are blamed on the waiting
    // instruction (PCs 16..144, 3 cycles each).
    let pcs = &r10.kernels[0].per_pc;
    assert_eq!(pcs.iter().map(|p| p.issued).sum::<u64>(), 10);
    assert_eq!(pcs[1].stall_cycles, 3);
}

#[test]
fn independent_ffmas_reach_the_units_issue_rate() {
    let o = ops();
    let c = cfg();
    let indep = |n: usize| {
        warp(
            (0..n)
                .map(|k| ins(o.ffma, &[(8 + 2 * (k % 8)) as Reg], &[1, 3]))
                .collect(),
            &[],
        )
    };
    // FP32 interval 2: dispatch k at 3 + 2k; last completes at 3 + 2(N-1) + 3; cycles 2N + 5.
    let r20 = run(&c, vec![kernel("indep", &o, vec![vec![indep(20)]])]);
    let r40 = run(&c, vec![kernel("indep", &o, vec![vec![indep(40)]])]);
    assert_eq!(r20.cycles, 45);
    assert_eq!(r40.cycles - r20.cycles, 2 * 20);
    assert_eq!(r20.totals.units.sp.dispatches, 20);
    assert_eq!(r20.totals.units.sp.busy_cycles, 40);
}

#[test]
fn a_register_bank_conflict_costs_one_cycle() {
    let o = ops();
    let c = cfg();
    // R0, R2, R4 are all in bank 0 (2 banks): 3 reads through 2 ports take 2 cycles, so each
    // link of the chain costs L + 1 = 5: cycles 5N + 3, and one denied read per instruction.
    let conflict = run(
        &c,
        vec![kernel("c", &o, vec![vec![chain(&o, 10, &[0, 2, 4])]])],
    );
    let free = run(
        &c,
        vec![kernel("f", &o, vec![vec![chain(&o, 10, &[0, 1, 3])]])],
    );
    assert_eq!(conflict.cycles, 53);
    assert_eq!(conflict.cycles - free.cycles, 10);
    assert_eq!(conflict.totals.reg_bank_conflicts(), 10);
    assert_eq!(free.totals.reg_bank_conflicts(), 0);
}

#[test]
fn a_result_bus_port_conflict_delays_completion() {
    let o = ops();
    let mut c = cfg();
    c.regfile.ports_per_bank = 1;
    c.latency.fp32.latency = 5;
    // I0 FADD R2 (latency 5) dispatches at 3 -> writes bank 0 at 7. I1 IADD R4 (latency 4)
    // would dispatch at 4 and also write bank 0 at 7: with one port it waits a cycle
    // (dispatch 5, write 8). I2 = IADD R6 <- R4 issues at 8, dispatches at 9, completes 12:
    // 13 cycles. Without the port check I1 writes at 7, I2 completes at 11: 12 cycles.
    let k = || {
        kernel(
            "rb",
            &o,
            vec![vec![warp(
                vec![
                    ins(o.fadd, &[2], &[]),
                    ins(o.iadd, &[4], &[]),
                    ins(o.iadd, &[6], &[4]),
                ],
                &[],
            )]],
        )
    };
    let on = run(&c, vec![k()]);
    c.features.result_bus_ports = false;
    let off = run(&c, vec![k()]);
    assert_eq!((on.cycles, off.cycles), (13, 12));
    assert_eq!(on.totals.result_bus_conflicts(), 1);
    assert_eq!(off.totals.result_bus_conflicts(), 0);
}

/// One sub-core with an 8-entry instruction buffer, 8-wide fetch and decode and a 32-lane INT
/// unit that starts an instruction every cycle: issue order is the only limit.
fn one_wide_int_subcore() -> GpuConfig {
    let mut c = cfg();
    c.sm.subcores = 1;
    c.frontend.ibuffer_size = 8;
    c.frontend.fetch_width = 8;
    c.frontend.decode_width = 8;
    c.latency.int.interval = 1;
    c.units.int.width = 32;
    c
}

/// Two warps of 4 independent IADDs; warp 0 is fetched at cycle 0 (ready 2), warp 1 at 1
/// (ready 3).
fn two_iadd_warps(o: &Ops) -> KernelTrace {
    let w = || {
        warp(
            (0..4)
                .map(|k| ins(o.iadd, &[(10 + k) as Reg], &[]))
                .collect(),
            &[],
        )
    };
    kernel("order", o, vec![vec![w(), w()]])
}

/// One CTA of two warps meeting at a barrier. Warp 0: BAR, IADD (PCs 0, 16). Warp 1: 5
/// dependent FFMAs, BAR, IADD (PCs 0..64, 80, 96).
fn barrier_pair(o: &Ops) -> KernelTrace {
    let w0 = warp(vec![ins(o.bar, &[], &[]), ins(o.iadd, &[1], &[])], &[]);
    let mut v: Vec<TraceInst> = (0..5).map(|_| ins(o.ffma, &[0], &[0, 1, 3])).collect();
    v.push(ins(o.bar, &[], &[]));
    v.push(ins(o.iadd, &[2], &[]));
    kernel("bar", o, vec![vec![w0, warp(v, &[])]])
}

/// (cycle, warp) of each issue of [`two_iadd_warps`] on [`one_wide_int_subcore`]: GTO keeps
/// warp 0 until it runs dry; LRR alternates from cycle 3 on.
const GTO_ORDER: [(u64, u16); 8] = [
    (2, 0),
    (3, 0),
    (4, 0),
    (5, 0),
    (6, 1),
    (7, 1),
    (8, 1),
    (9, 1),
];
const LRR_ORDER: [(u64, u16); 8] = [
    (2, 0),
    (3, 1),
    (4, 0),
    (5, 1),
    (6, 0),
    (7, 1),
    (8, 0),
    (9, 1),
];

#[test]
fn gto_and_lrr_issue_in_their_orders() {
    let o = ops();
    let mut c = one_wide_int_subcore();
    let order = |c: &GpuConfig| {
        run_log(c, vec![two_iadd_warps(&o)])
            .1
            .iter()
            .map(|e| (e.cycle, e.warp))
            .collect::<Vec<_>>()
    };
    c.scheduler.policy = SchedPolicy::Gto;
    assert_eq!(order(&c), GTO_ORDER);
    c.scheduler.policy = SchedPolicy::Lrr;
    assert_eq!(order(&c), LRR_ORDER);
}

#[test]
fn war_hazard_is_respected_when_collectors_dispatch_out_of_order() {
    let o = ops();
    let mut c = cfg();
    c.regfile.banks = 1;
    c.regfile.ports_per_bank = 1;
    // I0 FFMA R1 <- R2..R7 reads one operand per cycle from cycle 3: R7 last, at cycle 8.
    // I1 IADD R7 (no sources) is younger and would issue at 3, dispatch at 4 and write R7 at 7,
    // before I0 has read it. With war_check, I1 waits until the read (issues at 8; held in
    // cycles 3..7). Without, it issues at 3, its write takes cycle 7's only port (I0's reads
    // slip to 8 and 9) and the write overtakes the read: one violation.
    let k = || {
        kernel(
            "war",
            &o,
            vec![vec![warp(
                vec![
                    ins(o.ffma, &[1], &[2, 3, 4, 5, 6, 7]),
                    ins(o.iadd, &[7], &[]),
                ],
                &[],
            )]],
        )
    };
    let (on, log) = run_log(&c, vec![k()]);
    assert_eq!(log.iter().map(|e| e.cycle).collect::<Vec<_>>(), [2, 8]);
    assert_eq!(on.totals.subcores[0].war_holds, 5);
    assert_eq!(on.totals.subcores[0].war_violations, 0);
    c.features.war_check = false;
    let (off, log) = run_log(&c, vec![k()]);
    assert_eq!(log.iter().map(|e| e.cycle).collect::<Vec<_>>(), [2, 3]);
    assert_eq!(off.totals.subcores[0].war_violations, 1);
    assert_eq!(off.totals.subcores[0].war_holds, 0);
}

#[test]
fn a_barrier_holds_warps_until_the_last_arrives() {
    let o = ops();
    let mut c = cfg();
    c.sm.subcores = 1;
    // Warp 0: BAR, IADD. Warp 1: 5 dependent FFMAs, BAR, IADD. Warp 0's IADD may only issue
    // after warp 1's BAR; GTO stays with warp 1 for its IADD (the cycle after its BAR), so
    // warp 0's IADD comes one cycle later.
    let (r, log) = run_log(&c, vec![barrier_pair(&o)]);
    let at = |w: u16, pc: u32| {
        log.iter()
            .find(|e| e.warp == w && e.pc == pc)
            .unwrap()
            .cycle
    };
    let bar1 = at(1, 80);
    assert_eq!(at(1, 96), bar1 + 1);
    assert_eq!(at(0, 16), bar1 + 2);
    assert!(
        at(0, 0) < at(1, 0) + 4 * 4,
        "warp 0 reached the barrier early"
    );
    assert_eq!(r.warp_insts, 9);
}

#[test]
fn ctas_beyond_occupancy_wait_for_a_free_slot() {
    let o = ops();
    let mut c = cfg();
    c.sm.max_ctas = 2;
    let cta = || vec![chain(&o, 10, &[0, 1, 3])];
    // One CTA alone: last write-back at 42. CTA0 starts at 0 and ends at 42, CTA1 starts at 1
    // (one CTA per SM per cycle) and ends at 43. CTA2 takes CTA0's slot at 43, CTA3 at 44;
    // they end at 43 + 42 = 85 and 86: 87 cycles. Two CTAs alone: 44.
    let two = run(&c, vec![kernel("w", &o, vec![cta(), cta()])]);
    let four = run(&c, vec![kernel("w", &o, vec![cta(), cta(), cta(), cta()])]);
    assert_eq!((two.cycles, four.cycles), (44, 87));
    assert_eq!(four.kernels[0].occupancy.ctas_per_sm, 2);
    assert_eq!(four.totals.ctas, 4);
}

/// `sm.cta_launch_latency` = L spaces the CTA issues to one SM by L cycles (0: one per cycle).
/// Two slots, four CTAs of 43 cycles each (`ctas_beyond_occupancy_wait_for_a_free_slot`).
/// L = 20: CTA0 0..42, CTA1 20..62; CTA2 takes CTA0's slot when it frees at 43 (the interval,
/// from 20, is met), CTA3 CTA1's at 63 (43 + 20): it ends at 105, 106 cycles; two CTAs: 63.
/// L = 50: CTA1 50..92; CTA2 waits for the interval (100..142) though a slot is free from 43,
/// CTA3 for 150 (its slot frees at 93): 193 cycles; two CTAs: 93.
#[test]
fn cta_issues_to_one_sm_are_spaced_by_the_launch_latency() {
    let o = ops();
    let cta = || vec![chain(&o, 10, &[0, 1, 3])];
    for (lat, two_cycles, four_cycles) in [(20, 63, 106), (50, 93, 193)] {
        let mut c = cfg();
        c.sm.max_ctas = 2;
        c.sm.cta_launch_latency = lat;
        let two = run(&c, vec![kernel("w", &o, vec![cta(), cta()])]);
        let four = run(&c, vec![kernel("w", &o, vec![cta(), cta(), cta(), cta()])]);
        assert_eq!(
            (two.cycles, four.cycles),
            (two_cycles, four_cycles),
            "L = {lat}"
        );
    }
}

/// The block scheduler stops asking a full SM until a CTA finishes there: with one CTA slot
/// per SM, a long CTA on SM 1 and short ones queued, every later CTA goes to SM 0 as its slot
/// frees (43 and 86, as in `ctas_beyond_occupancy_wait_for_a_free_slot`), and the run lasts as
/// long as the long CTA alone.
#[test]
fn a_full_sm_is_asked_again_once_a_cta_finishes_there() {
    let o = ops();
    let mut c = cfg();
    c.gpu.num_sms = 2;
    c.sm.max_ctas = 1;
    let short = || vec![chain(&o, 10, &[0, 1, 3])];
    let long = || vec![chain(&o, 40, &[0, 1, 3])];
    let alone = run(&c, vec![kernel("w", &o, vec![long()])]);
    let ks = vec![kernel("w", &o, vec![short(), long(), short(), short()])];
    for par in [false, true] {
        let mut s = sim(&c, ks.clone());
        if par {
            s.set_threads(2).unwrap();
            s.gpu.par_min_busy = 1;
        }
        let r = s.run_to_end().unwrap();
        let per_sm: Vec<u64> = s.gpu.sms.iter().map(|sm| sm.sh.stats.ctas).collect();
        assert_eq!(per_sm, [3, 1], "parallel: {par}");
        assert_eq!(r.cycles, alone.cycles, "parallel: {par}");
        assert_eq!(s.gpu.sched.runs[0].first_cta_at, Some(0));
    }
}

#[test]
fn l0i_miss_storm_when_code_spans_more_lines_than_the_cache() {
    let o = ops();
    let mut c = cfg();
    // L0I: 1 KiB, 128 B lines, 4 ways -> 2 sets of 4. 8 instructions per line.
    c.frontend.l0i = crate::config::ICacheConfig {
        size_kb: 1,
        line_bytes: 128,
        assoc: 4,
        latency: 1,
        mshr: 1,
    };
    c.frontend.l1i = crate::config::ICacheConfig {
        size_kb: 128,
        line_bytes: 128,
        assoc: 16,
        latency: 20,
        mshr: 8,
    };
    // A loop body of `lines` lines run `iters` times: PCs repeat.
    let looped = |lines: u32, iters: u32| {
        let mut w = WarpTrace::default();
        for _ in 0..iters {
            for k in 0..lines * 8 {
                let mut i = ins(o.iadd, &[(10 + k % 16) as Reg], &[]);
                i.pc = 16 * k;
                w.insts.push(i);
            }
        }
        w
    };
    // 16 lines over 2 sets: each set cycles through 8 lines with 4 ways: every line visit
    // misses (16 x 4 = 64); the other fetches of a line hit. 4 lines fit: 4 compulsory misses.
    let storm = run(&c, vec![kernel("big", &o, vec![vec![looped(16, 4)]])]);
    let fits = run(&c, vec![kernel("small", &o, vec![vec![looped(4, 16)]])]);
    assert_eq!(storm.totals.l0i().1, 64);
    assert_eq!(fits.totals.l0i().1, 4);
    assert_eq!((storm.totals.l1i_misses, fits.totals.l1i_misses), (16, 4));
    assert!(
        storm.cycles > fits.cycles + 60 * 20,
        "each L0 miss costs at least the L1I latency"
    );
}

#[test]
fn kernels_get_distinct_code_addresses() {
    let o = ops();
    let mut c = cfg();
    c.frontend.l0i = crate::config::ICacheConfig {
        size_kb: 1,
        line_bytes: 128,
        assoc: 4,
        latency: 1,
        mshr: 1,
    };
    c.frontend.l1i = crate::config::ICacheConfig {
        size_kb: 128,
        line_bytes: 128,
        assoc: 16,
        latency: 20,
        mshr: 8,
    };
    let w = || {
        warp(
            (0..32)
                .map(|k| ins(o.iadd, &[(10 + k % 8) as Reg], &[]))
                .collect(),
            &[],
        )
    };
    let ks = || {
        vec![
            kernel("ka", &o, vec![vec![w()]]),
            kernel("kb", &o, vec![vec![w()]]),
        ]
    };
    // 32 instructions = 4 lines per kernel. Seed 001: the second kernel's code lives elsewhere
    // and misses again (8); Accel-Sim's shared address 0 makes it hit (4).
    assert_eq!(run(&c, ks()).totals.l1i_misses, 8);
    c.features.subcore_frontend = false;
    assert_eq!(run(&c, ks()).totals.l1i_misses, 4);
}

#[test]
fn shared_memory_bank_conflicts_cost_their_wavefronts() {
    let o = ops();
    let c = cfg();
    // LDS then a dependent IADD. Load-to-use = pipeline cycles + 24 + (wavefronts - 1): the
    // analytical shared memory serves one wavefront per cycle, like the cycle model's.
    let k = |stride: u64| {
        let a: Vec<u64> = (0..32).map(|l| l * stride).collect();
        kernel(
            "lds",
            &o,
            vec![vec![warp(
                vec![mem(o.lds, &[1], &[2], 4), ins(o.iadd, &[3], &[1])],
                &[a],
            )]],
        )
    };
    let free = run(&c, vec![k(4)]);
    let two = run(&c, vec![k(8)]);
    assert_eq!(two.cycles - free.cycles, 1);
    let mut cm = c.clone();
    cm.shmem.latency = c.analytic.shmem_latency;
    let cyc = |k| {
        Simulator::new(
            cm.clone(),
            ModelChoice::named("cycle").unwrap(),
            Box::new(MemTrace::from_kernels("t", vec![k])),
        )
        .unwrap()
        .run_to_end()
        .unwrap()
    };
    assert_eq!(cyc(k(8)).cycles - cyc(k(4)).cycles, 1);
    assert_eq!(
        (
            free.totals.mem.shmem_wavefronts,
            two.totals.mem.shmem_wavefronts
        ),
        (1, 2)
    );
}

/// A mixed workload: several CTAs on 2 SMs, loads with dependent uses, shared memory, barriers.
fn mixed(o: &Ops) -> KernelTrace {
    let w = |seed: u64| {
        let g: Vec<u64> = (0..32)
            .map(|l| 0x10000 + seed * 4096 + l * 4 * (1 + seed % 3))
            .collect();
        let s: Vec<u64> = (0..32).map(|l| l * 4 * (1 + seed % 2)).collect();
        warp(
            vec![
                mem(o.ldg, &[4], &[2], 4),
                ins(o.ffma, &[6], &[4, 5, 7]),
                ins(o.bar, &[], &[]),
                mem(o.lds, &[8], &[2], 4),
                ins(o.iadd, &[9], &[8]),
                ins(o.ffma, &[10], &[9, 6, 1]),
            ],
            &[g, s],
        )
    };
    kernel(
        "mixed",
        o,
        (0..6)
            .map(|c| (0..3).map(|k| w(c * 3 + k)).collect())
            .collect(),
    )
}

#[test]
fn skipping_idle_cycles_gives_identical_results() {
    let o = ops();
    let mut c = cfg();
    c.gpu.num_sms = 2;
    c.analytic.l1_hit_rate = 0.0;
    c.analytic.l2_hit_rate = 0.0;
    let mut on = run(&c, vec![mixed(&o)]);
    c.features.skip_idle_cycles = false;
    let mut off = run(&c, vec![mixed(&o)]);
    on.config.features.skip_idle_cycles = false;
    on.totals.kernels.clear();
    off.totals.kernels.clear();
    assert!(
        on.cycles > 296,
        "the loads go to DRAM: long idle stretches to skip ({})",
        on.cycles
    );
    assert_eq!(
        serde_json::to_string(&on).unwrap(),
        serde_json::to_string(&off).unwrap()
    );
}

#[test]
fn a_stuck_warp_is_reported_as_a_deadlock() {
    let o = ops();
    let mut c = cfg();
    c.units.int.count = 0;
    let mut s = sim(
        &c,
        vec![kernel(
            "stuck",
            &o,
            vec![vec![warp(vec![ins(o.iadd, &[1], &[])], &[])]],
        )],
    );
    let e = s.run_to_end().unwrap_err().to_string();
    assert!(
        e.contains("deadlock") && e.contains("SM 0 warp slot 0") && e.contains("kernel `stuck`"),
        "{e}"
    );
}

#[test]
fn per_sub_core_memory_pipelines_beat_one_shared_ldst_unit() {
    let o = ops();
    let mut c = cfg();
    // Four warps (one per sub-core), each an uncoalesced load: 32 lines of 128 B.
    let w = |k: u64| {
        warp(
            vec![mem(o.ldg, &[4], &[2], 4), ins(o.iadd, &[5], &[4])],
            &[(0..32).map(|l| k * 65536 + l * 128).collect()],
        )
    };
    let k = || kernel("unc", &o, vec![(0..4).map(w).collect()]);
    let sub = run(&c, vec![k()]);
    c.features.subcore_mem_pipeline = false;
    let one = run(&c, vec![k()]);
    // 128 requests through one in-order pipeline: at least 128 cycles of sending; the four
    // pipelines coalesce in parallel (4 L1D banks).
    assert!(
        one.cycles >= sub.cycles + 64,
        "shared {} vs per-sub-core {}",
        one.cycles,
        sub.cycles
    );
    assert_eq!(sub.totals.mem.global_reqs, 128);
    assert_eq!(one.totals.mem.global_reqs, 128);
}

#[test]
fn run_for_slices_give_the_same_result() {
    let o = ops();
    let c = cfg();
    let whole = run(&c, vec![mixed(&o)]);
    let mut s = sim(&c, vec![mixed(&o)]);
    let mut slices = 0;
    loop {
        match s.run_for(7).unwrap() {
            RunStatus::Running { .. } => slices += 1,
            RunStatus::Done { cycle } => {
                assert_eq!(cycle, whole.cycles);
                break;
            }
            RunStatus::Deadlock(m) => panic!("{m}"),
        }
    }
    assert!(slices > 10);
    assert_eq!(
        serde_json::to_string(&s.result()).unwrap(),
        serde_json::to_string(&whole).unwrap()
    );
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_stepping_equals_serial() {
    let o = ops();
    let mut c = cfg();
    c.gpu.num_sms = 4;
    let serial = run(&c, vec![mixed(&o), mixed(&o)]);
    // Three threads (a crew of two beside this one), sharing every cycle with a busy SM.
    let mut s = sim(&c, vec![mixed(&o), mixed(&o)]);
    s.set_threads(3).unwrap();
    s.gpu.par_min_busy = 1;
    let par = s.run_to_end().unwrap();
    assert_eq!(
        serde_json::to_string(&par).unwrap(),
        serde_json::to_string(&serial).unwrap()
    );
}

/// More threads than a crew can have are refused with the limit, not a panic.
#[cfg(feature = "parallel")]
#[test]
fn more_threads_than_a_crew_can_have_are_refused() {
    let o = ops();
    let mut s = sim(&cfg(), vec![mixed(&o)]);
    let e = s.set_threads(40_000).unwrap_err().to_string();
    assert!(e.contains("40000 threads: at most 32767"), "{e}");
}

/// Every built-in workload runs to completion with every warp instruction issued once, and
/// skipping idle cycles changes nothing (the per-PC tables included).
#[test]
fn builtin_workloads_run_and_skip_exactly() {
    use crate::workload::{generate, list, Params};
    let mut c = GpuConfig::default();
    c.gpu.num_sms = 4;
    c.analytic.l1_hit_rate = 0.5;
    let mut covered = 0;
    for w in list() {
        let t = generate(w.name, &Params::new()).unwrap();
        let expect = t.launched_warp_insts();
        if expect > 20_000 {
            continue; // keep the suite fast: the small ones cover every kernel shape
        }
        covered += 1;
        c.features.skip_idle_cycles = true;
        let on = Simulator::new(c.clone(), ModelChoice::default(), Box::new(t.clone()))
            .unwrap()
            .run_to_end()
            .unwrap();
        c.features.skip_idle_cycles = false;
        let mut off = Simulator::new(c.clone(), ModelChoice::default(), Box::new(t))
            .unwrap()
            .run_to_end()
            .unwrap();
        assert_eq!(on.warp_insts, expect, "{}", w.name);
        assert!(
            on.cycles > 0 && on.kernels.iter().all(|k| k.end_at <= on.cycles),
            "{}",
            w.name
        );
        off.config.features.skip_idle_cycles = true;
        assert_eq!(
            serde_json::to_string(&on).unwrap(),
            serde_json::to_string(&off).unwrap(),
            "{}",
            w.name
        );
    }
    assert!(covered >= 8, "only {covered} workloads small enough");
}

/// Cycles two ways: a 100-cycle launch overhead is reported apart from the execution (the
/// dependent FFMA chain's 4N + 3 cycles), the elapsed cycles are their sum, and the duration
/// leaves out the 30 launch cycles only Nsight Compute counts.
#[test]
fn kernel_cycles_split_into_execution_and_launch() {
    let o = ops();
    let mut c = cfg();
    c.sm.kernel_launch_latency = 100;
    c.sm.launch_ncu_only = 30;
    let r = run(
        &c,
        vec![kernel("chain", &o, vec![vec![chain(&o, 10, &[0, 1, 3])]])],
    );
    let k = &r.kernels[0];
    assert_eq!((k.launch_cycles, k.exec_cycles), (100, 43));
    assert_eq!(k.cycles, 143);
    assert_eq!(k.duration_cycles, 113);
}

mod hybrid;
mod modern;
mod multi_issue;
