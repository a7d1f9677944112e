//! `fast` steps each SM on its own between CTA completions (`engine/window.rs`): the results
//! must be those of stepping every SM cycle by cycle (`Gpu::windows = false`), at 1 and 2
//! threads, for every sample trace (and every real trace when `../shared/real-traces` is there), on titanv (80 SMs: most samples
//! have fewer CTAs than SMs, so windows run to the end with no CTA left to issue) and on a
//! 4-SM rtx2080ti (more CTAs than SMs: the block scheduler hands out CTAs as others finish,
//! which is where a window must stop). Also in short `run_for` slices (a window never
//! crosses a slice's end, and every slice ends with each SM at the slice's cycle).

mod common;

use common::{real_traces, traces};

use warpweave::config::{self, GpuConfig};
use warpweave::engine::{ModelChoice, RunStatus, Simulator};
use warpweave::trace::MemTrace;

fn run(cfg: &GpuConfig, t: &MemTrace, threads: usize, windows: bool, slice: u64) -> String {
    let mut sim = Simulator::new(
        cfg.clone(),
        ModelChoice::named("fast").unwrap(),
        Box::new(t.clone()),
    )
    .unwrap();
    sim.set_threads(threads).unwrap();
    sim.gpu.windows = windows;
    loop {
        match sim.run_for(slice).unwrap() {
            RunStatus::Running { .. } => {}
            RunStatus::Done { .. } => break,
            RunStatus::Deadlock(m) => panic!("deadlock: {m}"),
        }
    }
    let res = sim.result();
    assert!(res.warp_insts > 0);
    serde_json::to_string(&res).unwrap()
}

#[test]
fn windows_give_the_results_of_stepping_cycle_by_cycle() {
    let traces = traces();
    assert!(traces.len() >= 20, "{} traces", traces.len());
    check(&traces);
}

#[test]
#[ignore = "needs ../shared/real-traces"]
fn windows_give_the_results_of_stepping_cycle_by_cycle_on_real_traces() {
    check(&real_traces());
}

fn check(traces: &[(String, MemTrace)]) {
    let titanv = config::preset("titanv").unwrap();
    let mut small = config::preset("rtx2080ti").unwrap();
    small.gpu.num_sms = 4;
    for (gpu, cfg) in [("titanv", &titanv), ("rtx2080ti/4", &small)] {
        for (name, t) in traces {
            let want = run(cfg, t, 1, false, 1 << 20);
            for (threads, slice) in [(1, 1 << 20), (2, 1 << 20), (1, 97), (2, 61)] {
                let got = run(cfg, t, threads, true, slice);
                assert!(
                    got == want,
                    "{gpu} {name}: windows at {threads} thread(s), slices of {slice} cycles, \
                     differ from cycle by cycle"
                );
            }
        }
    }
}
