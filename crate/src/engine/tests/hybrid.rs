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
    let fe = [ModuleModel::Cycle, ModuleModel::Perfect];
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
