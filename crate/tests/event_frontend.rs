//! The event-driven front end (`frontend = analytical`, issue 5) runs every shipped sample
//! trace (and the real traces, when `../shared/real-traces` is there) to completion in the `hybrid` (cycle memory) and `fast`
//! (analytical memory) modes, and in a mix with the cycle NoC / DRAM under analytical memory,
//! simulating exactly the trace's warp instructions; its cycle count stays within a factor of
//! two of the cycle model's (a loose bound: the benchmark measures 0.3-15 %). Analytical
//! memory runs as `compare` runs it, with the functional pre-pass's per-PC hit rates.

mod common;

use common::{real_traces, traces};
use warpweave::trace::MemTrace;

use warpweave::config;
use warpweave::engine::compare::{run_mode, Outcome};
use warpweave::engine::{Mode, ModelChoice, Simulator};
use warpweave::trace::TraceSource;

#[test]
fn every_sample_trace_runs_with_the_event_frontend() {
    let traces = traces();
    assert!(traces.len() >= 20, "{} traces", traces.len());
    check(&traces);
}

#[test]
#[ignore = "needs ../shared/real-traces"]
fn every_real_trace_runs_with_the_event_frontend() {
    check(&real_traces());
}

fn check(traces: &[(String, MemTrace)]) {
    let mut cfg = config::preset("rtx2080ti").unwrap();
    cfg.gpu.num_sms = 8;
    let mut mix = ModelChoice::named("fast").unwrap();
    mix.set_mix("noc=cycle,dram=cycle").unwrap();
    let models = [
        ModelChoice::named("hybrid").unwrap(),
        ModelChoice::named("fast").unwrap(),
        mix,
    ];
    for (name, t) in traces {
        let want: u64 = t.kernels.iter().map(|k| k.warp_insts()).sum();
        let cycle = Simulator::new(
            cfg.clone(),
            ModelChoice::named("cycle").unwrap(),
            Box::new(t.clone()),
        )
        .and_then(|mut s| s.run_to_end())
        .unwrap_or_else(|e| panic!("{name} cycle: {e}"));
        for m in models {
            let mut open =
                || -> warpweave::Result<Box<dyn TraceSource + Send>> { Ok(Box::new(t.clone())) };
            let r = match run_mode(&cfg, Mode::Timing(m), &mut open) {
                Ok(Outcome::Timed { result, .. }) => *result,
                Ok(Outcome::Functional(_)) => unreachable!("a timing mode"),
                Err(e) => panic!("{name} {}: {e}", m.describe()),
            };
            assert_eq!(r.warp_insts, want, "{name} {}", m.describe());
            assert!(
                r.cycles * 2 >= cycle.cycles && r.cycles <= cycle.cycles * 2,
                "{name} {}: {} cycles, cycle model {}",
                m.describe(),
                r.cycles,
                cycle.cycles
            );
        }
    }
}
