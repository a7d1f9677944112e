//! The analytical twins against the cycle model (issue 5): exact agreement where no contention
//! occurs, and every mix of models runs to completion.

use super::*;

fn with_alu(alu: ModuleModel) -> ModelChoice {
    ModelChoice {
        alu,
        ..ModelChoice::default()
    }
}

fn run_model(c: &GpuConfig, m: ModelChoice, ks: Vec<KernelTrace>) -> (SimResult, Vec<IssueEvent>) {
    let mut s = Simulator::new(c.clone(), m, Box::new(MemTrace::from_kernels("t", ks))).unwrap();
    s.gpu.sms[0].enable_issue_log();
    let r = s.run_to_end().unwrap();
    (r, s.gpu.sms[0].sh.issue_log.take().unwrap())
}

/// One warp, dependent FP32/INT chains, operands in distinct banks: no unit, bank or result-bus
/// conflict, so the ALU twin gives the cycle model's exact issue cycles and total.
#[test]
fn alu_twin_equals_cycle_model_without_contention() {
    let o = ops();
    let c = cfg();
    let insts = vec![
        ins(o.ffma, &[2], &[0, 1]),
        ins(o.iadd, &[4], &[2, 3]),
        ins(o.ffma, &[6], &[4, 5]),
        ins(o.fadd, &[8], &[6, 7]),
        ins(o.iadd, &[10], &[8, 9]),
        ins(o.ffma, &[12], &[10]),
    ];
    let k = || vec![kernel("k", &o, vec![vec![warp(insts.clone(), &[])]])];
    let (rc, lc) = run_model(&c, with_alu(ModuleModel::Cycle), k());
    let (ra, la) = run_model(&c, with_alu(ModuleModel::Analytical), k());
    // Issue at 2 + 4k (hand-derived, module docs of engine::tests); 6 x 4 + 3 cycles.
    let cycles: Vec<u64> = lc.iter().map(|e| e.cycle).collect();
    assert_eq!(cycles, vec![2, 6, 10, 14, 18, 22]);
    assert_eq!(rc.cycles, 27);
    assert_eq!(la, lc);
    assert_eq!(ra.cycles, rc.cycles);
    assert_eq!(ra.warp_insts, rc.warp_insts);
    assert_eq!(ra.model.alu, ModuleModel::Analytical);
}

/// Every combination of module models runs every small built-in workload to completion with
/// every warp instruction issued once.
#[test]
fn every_model_mix_runs_workloads_to_completion() {
    use crate::workload::{generate, list, Params};
    let mut c = GpuConfig::default();
    c.gpu.num_sms = 2;
    let ms = [ModuleModel::Cycle, ModuleModel::Analytical];
    // The analytical (event-driven) front end needs the ALU twin.
    let fe = [ModuleModel::Perfect, ModuleModel::Analytical];
    let mut runs = 0;
    for w in list() {
        let t = generate(w.name, &Params::new()).unwrap();
        let expect = t.launched_warp_insts();
        if expect > 6_000 {
            continue;
        }
        for (i, &alu) in ms.iter().enumerate() {
            for &memory in &ms {
                // Two of the four noc/dram/frontend settings per pair keep the suite fast.
                let frontend = fe[i];
                let noc = ms[1 - i];
                let m = ModelChoice {
                    alu,
                    memory,
                    noc,
                    dram: noc,
                    frontend,
                };
                let r = Simulator::new(c.clone(), m, Box::new(t.clone()))
                    .unwrap()
                    .run_to_end()
                    .unwrap();
                assert_eq!(r.warp_insts, expect, "{} {}", w.name, m.describe());
                runs += 1;
            }
        }
    }
    assert!(runs >= 16, "only {runs} runs");
}

/// One warp: a global load that misses to DRAM, the same line again (an L1 hit), a shared
/// load with a 2-way bank conflict, each used by a dependent IADD. No two requests overlap, so
/// nothing contends. The memory twin (Equation 1 with the pre-pass's per-PC hit rates) gives
/// the cycle memory system's exact issue cycles and total once its DRAM latency is set to the
/// cycle model's round trip, read off the first load (the only constant the cycle model does
/// not have as one number). The L1 hit and the shared access must then agree by themselves.
#[test]
fn memory_twin_equals_cycle_model_without_contention() {
    use crate::engine::compare::{run_mode, Outcome};
    let o = ops();
    let mut c = cfg();
    c.l1d.cache_global = true;
    c.l2.warm_from_memcpy = false;
    c.l1d.cache.latency = c.analytic.l1_latency;
    c.shmem.latency = c.analytic.shmem_latency;
    let line: Vec<u64> = (0..32).map(|l| 0x4_0000 + 4 * l).collect();
    let shm: Vec<u64> = (0..32).map(|l| 8 * l).collect();
    let insts = vec![
        mem(o.ldg, &[4], &[2], 4),
        ins(o.iadd, &[5], &[4]),
        mem(o.ldg, &[6], &[5], 4),
        ins(o.iadd, &[7], &[6]),
        mem(o.lds, &[8], &[7], 4),
        ins(o.iadd, &[9], &[8]),
    ];
    let t = MemTrace::from_kernels(
        "t",
        vec![kernel(
            "k",
            &o,
            vec![vec![warp(insts, &[line.clone(), line, shm])]],
        )],
    );
    let logged = |c: &GpuConfig, mode: &str| {
        let m = ModelChoice::named(mode).unwrap();
        let mut s = Simulator::new(c.clone(), m, Box::new(t.clone())).unwrap();
        if m.memory == ModuleModel::Analytical {
            let mut open = || -> Result<Box<dyn TraceSource + Send>> { Ok(Box::new(t.clone())) };
            let Outcome::Timed {
                prepass: Some(p), ..
            } = run_mode(c, Mode::Timing(m), &mut open).unwrap()
            else {
                panic!("fast mode runs a pre-pass")
            };
            // Hand-checked rates: PC 0 misses both levels, PC 32 hits the L1.
            assert_eq!(
                p.rates
                    .iter()
                    .map(|r| (r.pc, r.l1_hit_rate, r.l2_hit_rate))
                    .collect::<Vec<_>>(),
                vec![(0, 0.0, 0.0), (32, 1.0, 1.0)]
            );
            s.use_pc_rates(&p.rates);
        }
        s.gpu.sms[0].enable_issue_log();
        let r = s.run_to_end().unwrap();
        let log: Vec<u64> = s.gpu.sms[0]
            .sh
            .issue_log
            .take()
            .unwrap()
            .iter()
            .map(|e| e.cycle)
            .collect();
        (r.cycles, log)
    };
    // Both ALU models are the same here (no contention): compare memory models under the
    // analytical ALU, i.e. `hybrid` against `fast`.
    let (cc, lc) = logged(&c, "hybrid");
    let (_, lf0) = logged(&c, "fast");
    // Calibrate: the first load's use issues (lc[1] - lf0[1]) cycles later in the cycle model.
    let mut cf = c.clone();
    cf.analytic.dram_latency =
        (c.analytic.dram_latency as i64 + lc[1] as i64 - lf0[1] as i64) as u32;
    let (cfast, lf) = logged(&cf, "fast");
    assert_eq!(lf, lc);
    assert_eq!(cfast, cc);
}

/// Fast mode (analytical ALU pipeline; Equation 1 memory with the pre-pass's per-PC rates,
/// bandwidth queues and MSHR merging) gives the same full result with idle-cycle skipping on
/// and off: every analytical block reports its exact next-ready cycle. (`hybrid` keeps the
/// cycle memory system, whose DRAM `active_cycles` counter differs under skipping today.)
#[test]
fn analytical_modes_skip_exactly() {
    use crate::engine::compare::{run_mode, Outcome};
    use crate::workload::{generate, Params};
    let mut c = GpuConfig::default();
    c.gpu.num_sms = 4;
    for w in [
        "matmul_naive",
        "reduction",
        "bank_conflict",
        "pointer_chase",
    ] {
        let t = generate(w, &Params::new()).unwrap();
        let run = |c: &GpuConfig| {
            let mut open = || -> Result<Box<dyn TraceSource + Send>> { Ok(Box::new(t.clone())) };
            match run_mode(c, Mode::parse("fast").unwrap(), &mut open).unwrap() {
                Outcome::Timed { result, .. } => *result,
                Outcome::Functional(_) => unreachable!("a timing mode"),
            }
        };
        let mut on = run(&c);
        let mut off_cfg = c.clone();
        off_cfg.features.skip_idle_cycles = false;
        let off = run(&off_cfg);
        on.config.features.skip_idle_cycles = false;
        assert_eq!(
            serde_json::to_string(&on).unwrap(),
            serde_json::to_string(&off).unwrap(),
            "{w}"
        );
    }
}

/// The event-driven front end (`frontend = analytical`, which needs the ALU twin) with the
/// cycle memory side (`hybrid`): with the analytical memory (`fast`) warps run ahead
/// (`core::event_ahead`), which is not exact.
fn event_fe() -> ModelChoice {
    ModelChoice::named("hybrid").unwrap()
}

fn cycles_of(log: &[IssueEvent]) -> Vec<(u64, u16)> {
    log.iter().map(|e| (e.cycle, e.warp)).collect()
}

/// One warp of dependent and independent ALU instructions, no contention: the event front end
/// gives the cycle front end's exact issue cycles and total (both with the ALU twin).
#[test]
fn event_frontend_equals_cycle_frontend_on_one_warp() {
    let o = ops();
    let c = cfg();
    // I0 FFMA R2: issue 2 (launch + fetch + decode), starts 3, done 3 + 4 - 1 = 6.
    // I1 IADD R4 (independent): issue 3, starts 4; the INT pipe is busy until 4 + 2 = 6.
    // I2 IADD R5 (independent): the pipe takes it at 6, so it issues at 5; done 9.
    // I3 FFMA R6 <- R2, R4: R4 done at 7 -> issue 7, done 11. I4 FADD <- R6: issue 11,
    // done 15; the run ends the cycle after: 16.
    let insts = vec![
        ins(o.ffma, &[2], &[0, 1]),
        ins(o.iadd, &[4], &[3]),
        ins(o.iadd, &[5], &[3]),
        ins(o.ffma, &[6], &[2, 4]),
        ins(o.fadd, &[8], &[6]),
    ];
    let k = || vec![kernel("k", &o, vec![vec![warp(insts.clone(), &[])]])];
    let (rc, lc) = run_model(&c, with_alu(ModuleModel::Analytical), k());
    let (re, le) = run_model(&c, event_fe(), k());
    let at: Vec<u64> = le.iter().map(|e| e.cycle).collect();
    assert_eq!(at, vec![2, 3, 5, 7, 11]);
    assert_eq!(re.cycles, 16);
    assert_eq!(le, lc);
    assert_eq!(re.cycles, rc.cycles);
    assert_eq!(re.model.frontend, ModuleModel::Analytical);
    // The stall stack of sub-core 0 (16 cycles): 5 issues; fetch at 0 and 1; cycle 4 waits
    // on the INT pipe; 6 (I3) and 8..10 (I4) on data, 12..14 while I4 drains; 15 idle.
    let s = &re.stall_stack;
    assert_eq!(s.get(StallKind::Issued), 5);
    assert_eq!(s.get(StallKind::IFetch), 2);
    assert_eq!(s.get(StallKind::CompStructural), 1);
    assert_eq!(s.get(StallKind::CompData), 7);
    assert_eq!(s.total(), 4 * 16);
}

/// Two warps on different sub-cores (slots 0 and 1), a dependent chain and independent IADDs:
/// they do not interact, so each runs as if alone, in both front ends.
#[test]
fn event_frontend_equals_cycle_frontend_on_two_subcores() {
    let o = ops();
    let c = cfg();
    // Warp 0: three dependent FFMAs, issue 2, 6, 10 (done 14). Warp 1: four independent
    // IADDs, one per INT interval: issue 2, 4, 6, 8 (the last done 8 + 1 + 4 - 1 = 12).
    let w0 = warp((0..3).map(|_| ins(o.ffma, &[0], &[0, 1])).collect(), &[]);
    let w1 = warp(
        (0..4)
            .map(|k| ins(o.iadd, &[(10 + k) as Reg], &[3]))
            .collect(),
        &[],
    );
    let k = || vec![kernel("k", &o, vec![vec![w0.clone(), w1.clone()]])];
    let (rc, lc) = run_model(&c, with_alu(ModuleModel::Analytical), k());
    let (re, le) = run_model(&c, event_fe(), k());
    let mut got = cycles_of(&le);
    got.sort_unstable();
    assert_eq!(
        got,
        vec![(2, 0), (2, 1), (4, 1), (6, 0), (6, 1), (8, 1), (10, 0)]
    );
    assert_eq!(re.cycles, 15);
    let mut want = cycles_of(&lc);
    want.sort_unstable();
    assert_eq!(got, want);
    assert_eq!(rc.cycles, re.cycles);
}

/// GTO and LRR on one sub-core with two warps of independent IADDs (the cycle model's
/// `gto_and_lrr_issue_in_their_orders`): the event front end issues in the same orders.
#[test]
fn event_frontend_keeps_gto_and_lrr_orders() {
    use crate::config::SchedPolicy;
    let o = ops();
    let mut c = one_wide_int_subcore();
    let k = || vec![two_iadd_warps(&o)];
    for (policy, want) in [(SchedPolicy::Gto, GTO_ORDER), (SchedPolicy::Lrr, LRR_ORDER)] {
        c.scheduler.policy = policy;
        let (_, lc) = run_model(&c, with_alu(ModuleModel::Analytical), k());
        let (_, le) = run_model(&c, event_fe(), k());
        assert_eq!(cycles_of(&le), want, "{policy:?}");
        assert_eq!(cycles_of(&lc), want, "{policy:?}");
    }
}

/// A barrier: warp 0 waits at BAR until warp 1 (same sub-core) arrives; both continue.
#[test]
fn event_frontend_barrier_and_loads_complete() {
    let o = ops();
    let mut c = cfg();
    c.sm.subcores = 1;
    let (r, log) = run_model(&c, event_fe(), vec![barrier_pair(&o)]);
    let at = |w: u16, pc: u32| {
        log.iter()
            .find(|e| e.warp == w && e.pc == pc)
            .unwrap()
            .cycle
    };
    // Warp 1's chain: issue 3 (rank 1), 7, 11, 15, 19; its BAR (no operands) at 20 releases
    // warp 0; GTO stays with warp 1 for its IADD at 21 (as in the cycle model's
    // `a_barrier_holds_warps_until_the_last_arrives`). Warp 0's IADD needs the INT pipe,
    // busy until 22 + 2 = 24, so it issues at 23 (the cycle model issues it into a collector
    // at 22 and dispatches it at 24: the same start).
    assert_eq!(at(1, 64), 19);
    assert_eq!(at(1, 80), 20);
    assert_eq!((at(1, 96), at(0, 16)), (21, 23));
    assert_eq!(r.warp_insts, 9);
    // A load and its use: the use waits for the load's write-back.
    let line: Vec<u64> = (0..32).map(|l| 0x4_0000 + 4 * l).collect();
    let w = warp(
        vec![mem(o.ldg, &[4], &[2], 4), ins(o.iadd, &[5], &[4])],
        &[line],
    );
    let (r, log) = run_model(&c, event_fe(), vec![kernel("ld", &o, vec![vec![w]])]);
    assert_eq!(r.warp_insts, 2);
    assert!(log[1].cycle > log[0].cycle + c.analytic.l1_latency as u64);
}

/// `fast` mode issues memory instructions straight into the twin (`core::mem_direct`), timed
/// by hand: all L1 hits (no NoC / DRAM queue, no MSHR share), dispatch latency 1. LDG R4 with
/// 32 lanes 128 B apart makes 32 requests; LDG R6 (unit stride) one; each load's use follows.
/// LDG1 issues at t0: dispatch latch until L1 = t0 + 2, request k pushed at L1 + 1 + k and
/// sent at L1 + 2 + k (one per pipeline per cycle), taken by the L1 the cycle after: the last
/// completes at L1 + 2 + 31 + 1 + L_L1. LDG2 waits for the dispatch latch (issue at L1), for
/// the address latch (free once LDG1's last request is pushed, L1 + 32) and for the arbiter
/// (after LDG1's last request, L1 + 33): sent at L1 + 34, done L1 + 35 + L_L1. The pipeline
/// path (cycle front end with the same twin) completes them at the same cycles. (The uses are on different
/// units so that neither waits for the other's pipeline.)
#[test]
fn direct_memory_issue_times_by_hand() {
    let o = ops();
    let mut c = cfg();
    c.analytic.l1_hit_rate = 1.0;
    c.mem_pipeline.dispatch_latency = 1;
    let l1 = c.analytic.l1_latency as u64;
    let strided: Vec<u64> = (0..32).map(|l| 0x10_0000 + 128 * l).collect();
    let unit: Vec<u64> = (0..32).map(|l| 0x20_0000 + 4 * l).collect();
    let insts = vec![
        mem(o.ldg, &[4], &[2], 4),
        mem(o.ldg, &[6], &[2], 4),
        ins(o.iadd, &[5], &[4]),
        ins(o.fadd, &[7], &[6]),
    ];
    let k = || {
        vec![kernel(
            "k",
            &o,
            vec![vec![warp(insts.clone(), &[strided.clone(), unit.clone()])]],
        )]
    };
    let fast = ModelChoice::named("fast").unwrap();
    let (r, log) = run_model(&c, fast, k());
    let at: Vec<u64> = log.iter().map(|e| e.cycle).collect();
    let t0 = at[0];
    let l1_at = t0 + 2;
    assert_eq!(
        at,
        vec![t0, l1_at, l1_at + 34 + l1, l1_at + 35 + l1],
        "L_L1 = {l1}"
    );
    // 33 requests; the warp runs ahead (`core::event_ahead`) through LDG2 (issued at once
    // for t0 + 2, its latch's free cycle), so no cycle is filed as `mem_struct`; then
    // `mem_data` until the uses.
    assert_eq!(r.totals.mem.global_reqs, 33);
    assert_eq!(r.stall_stack.get(StallKind::MemStructural), 0);
    assert!(r.stall_stack.get(StallKind::MemData) >= 33 + l1 - 1);
    // The same twin behind the per-cycle memory pipeline and the cycle front end.
    let piped = ModelChoice {
        frontend: ModuleModel::Perfect,
        ..fast
    };
    // (Its front end issues LDG2 at t0 + 1 into an operand collector, which dispatches it when
    // the latch frees: the same start, so the loads complete and their uses issue alike.)
    let (rp, lp) = run_model(&c, piped, k());
    let piped_at: Vec<u64> = lp.iter().map(|e| e.cycle).collect();
    assert_eq!(piped_at, vec![t0, t0 + 1, at[2], at[3]]);
    assert_eq!(rp.cycles, r.cycles);
}

/// `fast` runs warps ahead (`core::event_ahead`): on one sub-core with two warps of 4
/// independent IADDs (INT interval 1), each warp fetches for itself, so both are ready at 2;
/// warp 0 (first in heap order) issues all four at once for 2, 3, 4, 5, booking those issue
/// slots and INT cycles 3..6, and warp 1 takes the next free slots, 6..9: GTO's order, under
/// either policy (the run-ahead books first come, first served). The stall stack still sums
/// to the cycles simulated (issue cycles counted when booked, paid back later).
#[test]
fn fast_runs_ahead_and_books_issue_slots() {
    use crate::config::SchedPolicy;
    let o = ops();
    let mut c = one_wide_int_subcore();
    let k = || vec![two_iadd_warps(&o)];
    let fast = ModelChoice::named("fast").unwrap();
    for policy in [SchedPolicy::Gto, SchedPolicy::Lrr] {
        c.scheduler.policy = policy;
        let (r, log) = run_model(&c, fast, k());
        assert_eq!(cycles_of(&log), GTO_ORDER, "{policy:?}");
        let s = &r.stall_stack;
        assert_eq!(s.get(StallKind::Issued), 8);
        let lanes = c.gpu.num_sms as u64 * c.sm.subcores as u64;
        assert_eq!(s.total(), r.cycles * lanes, "{policy:?}");
    }
}
