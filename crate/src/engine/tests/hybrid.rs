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
        let expect: u64 = t
            .commands
            .iter()
            .map(|c| match c {
                Command::Kernel { index } => t.kernels[*index].warp_insts(),
                _ => 0,
            })
            .sum();
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
