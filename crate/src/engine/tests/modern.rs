//! The modern core (`core.model = "modern"`, core/modern.rs) against the unit tests of
//! modern-gpu-cores.md section 7, with cycle counts derived by hand.
//!
//! Set-up: one SM with one sub-core, CGGTY, 2 register banks with one read port each, FP32 and
//! INT units a full warp wide (interval 1, latency 4), perfect instruction caches, a 3-entry
//! instruction buffer filled one instruction per fetch. Instructions without register
//! operands stand for the sheet's NOPs and clock reads (CS2R reads the clock in Control, one
//! cycle after issue for both reads, so a clock delta is an issue-cycle delta).

use super::*;
use crate::config::{CoreModel, SchedPolicy};
use crate::trace::Ctrl;

fn mcfg() -> GpuConfig {
    let mut c = cfg();
    c.core.model = CoreModel::Modern;
    c.scheduler.policy = SchedPolicy::Cggty;
    c.sm.subcores = 1;
    c.regfile.banks = 2;
    c.regfile.ports_per_bank = 1;
    c.units.sp.width = 32;
    c.units.int.width = 32;
    c.latency.fp32.interval = 1;
    c.latency.int.interval = 1;
    c.frontend.ibuffer_size = 3;
    c.frontend.fetch_width = 1;
    c
}

/// `i` with control bits: stall `s`, yield `y`, write-back SB `wb`, wait mask `wait`.
fn ctl(mut i: TraceInst, s: u8, y: bool, wb: u8, wait: u8) -> TraceInst {
    i.ctrl = Ctrl::new(s, y, wb, 7, wait, 0);
    i
}

/// Issue cycles of warp slot `w`.
fn issues_of(log: &[IssueEvent], w: u16) -> Vec<u64> {
    log.iter()
        .filter(|e| e.warp == w)
        .map(|e| e.cycle)
        .collect()
}

fn run_one(c: &GpuConfig, w: Vec<TraceInst>) -> (SimResult, Vec<IssueEvent>) {
    let o = ops();
    run_log(c, vec![kernel("k", &o, vec![vec![warp(w, &[])]])])
}

/// Lst. 2: CLOCK; NOP; FADD with S; NOP; NOP; CLOCK: a clock delta of 4 + S (5 at S = 1, 8 at
/// S = 4): the warp's next instruction issues S cycles after the FADD.
#[test]
fn stall_count_lst2() {
    let o = ops();
    for (s, delta) in [(1u8, 5u64), (4, 8)] {
        let w = vec![
            ctl(ins(o.iadd, &[], &[]), 1, false, 7, 0),
            ctl(ins(o.iadd, &[], &[]), 1, false, 7, 0),
            ctl(ins(o.fadd, &[2], &[]), s, false, 7, 0),
            ctl(ins(o.iadd, &[], &[]), 1, false, 7, 0),
            ctl(ins(o.iadd, &[], &[]), 1, false, 7, 0),
            ctl(ins(o.iadd, &[], &[]), 1, false, 7, 0),
        ];
        let (_, log) = run_one(&mcfg(), w);
        let t = issues_of(&log, 0);
        assert_eq!(t[5] - t[0], delta, "S = {s}: {t:?}");
    }
}

/// Lst. 1: CLOCK; NOP; FFMA reading three even registers; FFMA reading X, Y and an even
/// register; NOP; CLOCK. One read per bank per cycle in a 3-cycle window: the second FFMA's
/// window starts (its even reads - 1) cycles late and holds issue as long: 5, 6 or 7.
#[test]
fn register_banks_lst1() {
    let o = ops();
    for (x, y, delta) in [(3u16, 5u16, 5u64), (4, 5, 6), (4, 6, 7)] {
        let w = vec![
            ctl(ins(o.iadd, &[], &[]), 1, false, 7, 0),
            ctl(ins(o.iadd, &[], &[]), 1, false, 7, 0),
            ctl(ins(o.ffma, &[20], &[10, 12, 14]), 1, false, 7, 0),
            ctl(ins(o.ffma, &[22], &[x, y, 16]), 1, false, 7, 0),
            ctl(ins(o.iadd, &[], &[]), 1, false, 7, 0),
            ctl(ins(o.iadd, &[], &[]), 1, false, 7, 0),
        ];
        let (r, log) = run_one(&mcfg(), w);
        let t = issues_of(&log, 0);
        assert_eq!(t[5] - t[0], delta, "X = R{x}, Y = R{y}: {t:?}");
        assert_eq!(
            r.totals.subcores[0].read_window_delay,
            delta - 5,
            "X = R{x}, Y = R{y}"
        );
    }
}

/// Fig. 4c: four warps on one sub-core, 32 independent instructions each, the second with
/// yield. CGGTY: W3 x2, W2 x2, W3 x30, W2 x30, W1 x2, W0 x2, W1 x30, W0 x30: 128 issues in
/// 128 consecutive cycles. As in the paper's experiment the warps are already running when
/// the measured code starts: each first issues one instruction with S = 11 (the most that
/// is honoured without yield) while the instruction buffers fill (3 instructions per fetch
/// here, so that the four first instructions issue within 4 cycles).
#[test]
fn yield_interleaves_warps_fig4c() {
    let o = ops();
    let body = || {
        let mut v = vec![ctl(ins(o.iadd, &[], &[]), 11, false, 7, 0)];
        v.extend((0..32).map(|k| ctl(ins(o.iadd, &[], &[]), 1, k == 1, 7, 0)));
        v
    };
    let ws = (0..4).map(|_| warp(body(), &[])).collect();
    let mut c = mcfg();
    c.frontend.fetch_width = 3;
    c.frontend.decode_width = 3;
    let (_, log) = run_log(&c, vec![kernel("k", &o, vec![ws])]);
    let body_log: Vec<&IssueEvent> = log.iter().filter(|e| e.pc > 0).collect();
    let t0 = body_log[0].cycle;
    let cycles: Vec<u64> = body_log.iter().map(|e| e.cycle - t0).collect();
    let mut runs: Vec<(u16, usize)> = vec![];
    for e in &body_log {
        match runs.last_mut() {
            Some((w, n)) if *w == e.warp => *n += 1,
            _ => runs.push((e.warp, 1)),
        }
    }
    let want = [
        (3, 2),
        (2, 2),
        (3, 30),
        (2, 30),
        (1, 2),
        (0, 2),
        (1, 30),
        (0, 30),
    ];
    assert_eq!(runs, want);
    assert_eq!(cycles, (0..128).collect::<Vec<u64>>(), "no bubbles");
}

/// A lone warp: yield costs one bubble (section 2), S = 2 the same, and without control bits
/// independent instructions issue back to back.
#[test]
fn yield_alone_costs_one_bubble() {
    let o = ops();
    let three = |y: bool, s: u8| {
        vec![
            ctl(ins(o.iadd, &[], &[]), 1, false, 7, 0),
            ctl(ins(o.iadd, &[], &[]), s, y, 7, 0),
            ctl(ins(o.iadd, &[], &[]), 1, false, 7, 0),
        ]
    };
    let gaps = |w| {
        let (_, log) = run_one(&mcfg(), w);
        let t = issues_of(&log, 0);
        (t[1] - t[0], t[2] - t[1])
    };
    assert_eq!(gaps(three(true, 1)), (1, 2));
    assert_eq!(gaps(three(false, 2)), (1, 2));
    assert_eq!(gaps(three(false, 1)), (1, 1));
    let plain = (0..3).map(|_| ins(o.iadd, &[], &[])).collect();
    assert_eq!(gaps(plain), (1, 1));
}

/// A dependence-counter increment lands in Control (issue + 1) and is seen from issue + 2: a
/// consumer waiting on the load's SB right behind it with S = 1 is not held (the compiler
/// must set S >= 2); with S = 2 it waits for the load's write-back.
#[test]
fn sb_increment_not_seen_at_issue_plus_one() {
    let o = ops();
    let addrs = vec![(0..32).map(|l| 0x1000 + 4 * l).collect::<Vec<u64>>()];
    let pair = |s: u8| {
        let ld = ctl(mem(o.ldg, &[4], &[2], 4), s, false, 0, 0);
        let use_ = ctl(ins(o.iadd, &[6], &[4]), 1, false, 7, 1);
        let (_, log) = run_log(
            &mcfg(),
            vec![kernel("k", &o, vec![vec![warp(vec![ld, use_], &addrs)]])],
        );
        let t = issues_of(&log, 0);
        t[1] - t[0]
    };
    assert_eq!(pair(1), 1);
    assert!(pair(2) > 20, "waits for the load: {}", pair(2));
}

/// Without control bits the modern core falls back to a scoreboard: a dependent FFMA chain
/// costs the FP32 latency per instruction, as in the Accel-Sim core (4N + 3 cycles), and the
/// inferred reuse flags keep the repeated operands in the register-file cache.
#[test]
fn scoreboard_fallback_without_control_bits() {
    let o = ops();
    let ch = (0..10).map(|_| ins(o.ffma, &[0], &[0, 1, 3])).collect();
    let (r, log) = run_one(&mcfg(), ch);
    let t = issues_of(&log, 0);
    assert_eq!(t.windows(2).map(|p| p[1] - p[0]).max(), Some(4));
    assert_eq!(r.cycles, 43);
    assert_eq!(r.kernels[0].control_bits, "none");
    assert_eq!(r.core, "modern");
    // R1 and R3 (positions B, C) hit from the second FFMA on; R0, rewritten by each FFMA,
    // is never kept.
    assert_eq!(r.totals.subcores[0].rfc_hits, 9 * 2);
}

/// Tab. 2's WAR distances: an instruction overwriting a memory instruction's address register
/// and waiting on its read counter issues 11 cycles after a global load, 9 after a shared
/// load, 14 / 16 / 20 after a 32 / 64 / 128-bit global store.
#[test]
fn war_distances_tab2() {
    let o = ops();
    let lanes = |w: u64, base: u64| vec![(0..32).map(|l| base + w * l).collect::<Vec<u64>>()];
    for (op, width, dst, want) in [
        (o.ldg, 4u16, true, 11u64),
        (o.lds, 4, true, 9),
        (o.stg, 4, false, 14),
        (o.stg, 8, false, 16),
        (o.stg, 16, false, 20),
    ] {
        let d: &[Reg] = if dst { &[4] } else { &[] };
        let mut m = mem(op, d, &[2, 6], width);
        // S = 2: the read counter is seen from issue + 2.
        m.ctrl = Ctrl::new(2, false, if dst { 0 } else { 7 }, 1, 0, 0);
        let over = ctl(ins(o.iadd, &[2], &[]), 1, false, 7, 0b10);
        let base = if op == o.lds { 0 } else { 0x10000 };
        let (_, log) = run_log(
            &mcfg(),
            vec![kernel(
                "k",
                &o,
                vec![vec![warp(vec![m, over], &lanes(width as u64, base))]],
            )],
        );
        let t = issues_of(&log, 0);
        assert_eq!(t[1] - t[0], want, "width {width}");
    }
}

/// Tab. 1 in the whole core: one warp per active sub-core issuing 8 independent global loads
/// (`mem_pipeline.subcore_unit`). Each issues five back to back; the SM issues the rest at
/// Tab. 1's cycles (11 + 2j, then + max(4, 2 x active)). Which sub-core gets which of them
/// follows the SM's round robin over sub-cores, so they are compared as a set.
#[test]
fn memory_issue_rates_tab1() {
    let o = ops();
    for active in 1..=4usize {
        let mut c = mcfg();
        c.sm.subcores = 4;
        c.mem_pipeline.subcore_unit = true;
        let ws = (0..active)
            .map(|j| {
                let loads = (0..8)
                    .map(|k| ctl(mem(o.ldg, &[10 + k], &[2], 4), 1, false, 7, 0))
                    .collect();
                let lanes: Vec<Vec<u64>> = (0..8)
                    .map(|k| {
                        (0..32)
                            .map(|l| 0x10000 * (j as u64 + 1) + 128 * k + 4 * l)
                            .collect()
                    })
                    .collect();
                warp(loads, &lanes)
            })
            .collect();
        let (_, log) = run_log(&c, vec![kernel("k", &o, vec![ws])]);
        let step = 4.max(2 * active as u64);
        let t0 = log[0].cycle;
        let mut late: Vec<u64> = vec![];
        let mut want: Vec<u64> = vec![];
        for j in 0..active {
            let t: Vec<u64> = issues_of(&log, j as u16).iter().map(|x| x - t0).collect();
            assert_eq!(&t[..5], &[0, 1, 2, 3, 4], "{active} active, sub-core {j}");
            late.extend_from_slice(&t[5..]);
            let sixth = 11 + 2 * j as u64;
            want.extend([sixth, sixth + step, sixth + 2 * step]);
        }
        late.sort_unstable();
        want.sort_unstable();
        assert_eq!(late, want, "{active} active");
    }
}
