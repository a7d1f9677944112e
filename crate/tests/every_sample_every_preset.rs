//! Every shipped sample trace (and every real trace, when `../shared/real-traces` is there) runs to
//! completion on every GPU preset, with
//! the analytical and the cycle-accurate memory system, and simulates exactly the trace's warp
//! instructions (nothing dropped, nothing run twice). The `large/` samples run on one preset only
//! to keep the suite short; the benchmark covers them.

mod common;

use common::{real_traces, repo, traces};

use warpweave::config;
use warpweave::engine::{ModelChoice, Simulator};
use warpweave::trace::compact::CompactReader;
use warpweave::trace::{MemTrace, TraceSource};

/// Simulates `t`; returns the cycle count, or `None` when a kernel's CTA cannot fit on the
/// preset's SM at all (e.g. 1024-thread blocks on the teaching GPU), which must be a clear error.
fn run(preset: &str, memory: &str, name: &str, t: &MemTrace) -> Option<u64> {
    let cfg = config::preset(preset).unwrap();
    let mut model = ModelChoice::default();
    model.set("memory", memory).unwrap();
    let r = Simulator::new(cfg, model, Box::new(t.clone())).and_then(|mut s| s.run_to_end());
    let r = match r {
        Ok(r) => r,
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains("cannot fit one CTA") && msg.contains("config key"),
                "{name} on {preset} (memory={memory}): {msg}"
            );
            return None;
        }
    };
    let want: u64 = t.kernels.iter().map(|k| k.warp_insts()).sum();
    assert_eq!(
        r.warp_insts, want,
        "{name} on {preset} (memory={memory}) simulated a different instruction count"
    );
    assert!(
        r.cycles >= r.kernels.len() as u64,
        "{name} on {preset}: every kernel takes time"
    );
    Some(r.cycles)
}

#[test]
fn every_sample_trace_runs_on_every_preset_with_both_memory_models() {
    let traces = traces();
    assert!(
        traces.len() >= 20,
        "the sample set shrank: {}",
        traces.len()
    );
    every_preset(&traces);
}

#[test]
#[ignore = "needs ../shared/real-traces"]
fn every_real_trace_runs_on_every_preset_with_both_memory_models() {
    every_preset(&real_traces());
}

fn every_preset(traces: &[(String, MemTrace)]) {
    // Presets on their own threads: each run is independent and deterministic.
    let refused: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = config::preset_ids()
            .into_iter()
            .map(|preset| {
                s.spawn(move || {
                    let mut refused = Vec::new();
                    for (name, t) in traces {
                        for memory in ["analytical", "cycle"] {
                            if run(preset, memory, name, t).is_none() {
                                refused.push(format!("{preset}/{memory}/{name}"));
                            }
                        }
                    }
                    refused
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    // Only the one-SM teaching GPU (seed 003: 8 warp slots per processing block) refuses
    // kernels, and only those whose blocks are too large for it.
    assert!(
        refused.iter().all(|r| r.starts_with("teaching/")),
        "{refused:?}"
    );
}

#[test]
fn large_samples_run_with_the_full_memory_system() {
    let dir = repo().join("sample-traces/large");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wwt"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let mut r = CompactReader::open(&f).unwrap();
        let t = MemTrace::collect(&mut r as &mut dyn TraceSource).unwrap();
        run("rtx2080ti", "cycle", &f.display().to_string(), &t);
    }
}

/// Every scheduler policy finishes every sample trace on the TITAN V. Two-level once
/// deadlocked on barrier kernels: warps waiting at a barrier filled the active set while the
/// warps they waited for sat in the pending queue.
#[test]
fn every_sample_trace_finishes_under_every_scheduler_policy() {
    every_policy(&traces());
}

#[test]
#[ignore = "needs ../shared/real-traces"]
fn every_real_trace_finishes_under_every_scheduler_policy() {
    every_policy(&real_traces());
}

fn every_policy(traces: &[(String, MemTrace)]) {
    std::thread::scope(|s| {
        for policy in ["gto", "lrr", "two_level"] {
            s.spawn(move || {
                for (name, t) in traces {
                    let mut cfg = config::preset("titanv").unwrap();
                    config::apply_override(&mut cfg, "scheduler.policy", policy).unwrap();
                    let r = Simulator::new(cfg, ModelChoice::default(), Box::new(t.clone()))
                        .and_then(|mut s| s.run_to_end())
                        .unwrap_or_else(|e| panic!("{name} with {policy}: {e}"));
                    let want: u64 = t.kernels.iter().map(|k| k.warp_insts()).sum();
                    assert_eq!(r.warp_insts, want, "{name} with {policy}");
                }
            });
        }
    });
}
