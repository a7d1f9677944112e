//! Results are bit-identical for any thread count (issue 6): every compact sample trace in
//! `sample-traces/` (not `large/`) runs on the titanv preset (80 SMs) with the cycle memory
//! system at 1, 2, 3, 4, 8 and 16 threads, and the full JSON results must be equal. At two threads
//! and more the engine is made to fork on every cycle with any busy SM (`par_min_busy = 1`) so that
//! small traces exercise the parallel path too (the fallback itself cannot change results: it
//! only picks how the same per-SM steps are scheduled). The memory partitions are made to
//! fork on every cycle with any busy partition too (`par_min_parts = 1`), and a serial run that
//! steps them in reverse order must give the same JSON.

mod common;

use std::path::{Path, PathBuf};

use warpweave::config;
use warpweave::engine::{MemPartitions, ModelChoice, Simulator};
use warpweave::trace::compact::CompactReader;

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../sample-traces")
}

fn run(path: &Path, threads: usize, force_fork: bool) -> String {
    run_k(path, threads, force_fork, 1)
}

fn run_k(path: &Path, threads: usize, force_fork: bool, epoch: u32) -> String {
    run_opts(path, threads, force_fork, epoch, false)
}

fn run_opts(path: &Path, threads: usize, force_fork: bool, epoch: u32, reverse: bool) -> String {
    let mut cfg = config::load("titanv").expect("titanv preset");
    cfg.features.epoch_cycles = epoch;
    let mut model = ModelChoice::default();
    model.set("memory", "cycle").unwrap();
    let src = CompactReader::open(path).expect("compact trace opens");
    let mut sim = Simulator::new(cfg, model, Box::new(src)).unwrap();
    sim.set_threads(threads).unwrap();
    if force_fork {
        sim.gpu.par_min_busy = 1;
        sim.gpu.par_min_parts = 1;
    }
    if let MemPartitions::Cycle(m) = &mut sim.gpu.partitions {
        m.reverse = reverse;
    }
    common::json_to_end(&mut sim, &path.display().to_string())
}

/// The thread counts every sample trace is compared at (against one thread).
const THREADS: [usize; 5] = [2, 3, 4, 8, 16];

#[test]
fn every_sample_trace_is_identical_at_1_to_16_threads() {
    for f in &common::sample_files() {
        let one = run(f, 1, false);
        for (threads, force) in THREADS.map(|t| (t, true)) {
            let par = run(f, threads, force);
            assert!(
                par == one,
                "{}: {threads} threads (fork on every cycle: {force}) differ from 1 thread",
                f.display()
            );
        }
    }
}

/// Epochs of 8 cycles (`features.epoch_cycles`: SMs step 8 cycles per parallel step, then the
/// memory side runs them): 1 and 2 threads give the same JSON, and the result differs from
/// lockstep only slightly (replies are seen up to 7 cycles later).
#[test]
fn epochs_are_identical_at_1_and_2_threads() {
    for name in ["vecadd-64k.wwt", "matmul_tiled-64.wwt", "reduction-64k.wwt"] {
        let f = samples().join(name);
        let one = run_k(&f, 1, false, 8);
        let two = run_k(&f, 2, true, 8);
        assert!(one == two, "{name}: K=8 at 2 threads differs from 1 thread");
        let lockstep: serde_json::Value = serde_json::from_str(&run(&f, 1, false)).unwrap();
        let k8: serde_json::Value = serde_json::from_str(&one).unwrap();
        let (c1, c8) = (
            lockstep["cycles"].as_u64().unwrap(),
            k8["cycles"].as_u64().unwrap(),
        );
        assert!(
            c8.abs_diff(c1) <= c1 / 20,
            "{name}: K=8 {c8} cycles against lockstep {c1}"
        );
    }
}

/// The memory partitions step on their own (each writes only its slices, channel and staged
/// replies, merged in slice order): stepping them in reverse order gives the same JSON, at
/// K = 1 and K = 8, on traces that keep many partitions busy at once.
#[test]
fn partition_order_does_not_leak_into_results() {
    for name in ["vecadd-64k.wwt", "matmul_tiled-64.wwt", "reduction-64k.wwt"] {
        let f = samples().join(name);
        for k in [1, 8] {
            let fwd = run_opts(&f, 1, false, k, false);
            let rev = run_opts(&f, 1, false, k, true);
            assert!(
                fwd == rev,
                "{name}: K={k}: reversed partition order differs"
            );
        }
    }
}

/// `fast` (analytical memory, event front end): the SMs step in windows between CTA
/// completions (`engine/window.rs`), shared by the threads. Every sample trace gives the same
/// JSON at 1, 2, 3, 4, 8 and 16 threads.
#[test]
fn fast_mode_is_identical_at_1_to_16_threads() {
    named_mode_is_identical_at_1_to_16_threads("fast");
}

/// `hybrid` (event front end, cycle memory system): every thread count visits only the SMs
/// that are due, and with two threads or more the crew runs the memory side's halves beside
/// them (`Gpu::sms_step`), a cycle of one due SM shared too. Every sample trace gives the same
/// JSON at 1, 2, 3, 4, 8 and 16 threads.
#[test]
fn hybrid_mode_is_identical_at_1_to_16_threads() {
    named_mode_is_identical_at_1_to_16_threads("hybrid");
}

fn named_mode_is_identical_at_1_to_16_threads(mode: &str) {
    use warpweave::analytic::prepass::PrepassCache;
    use warpweave::engine::compare::prepared_simulator;
    let mut files: Vec<PathBuf> = std::fs::read_dir(samples())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "wwt"))
        .collect();
    files.sort();
    let cfg = config::load("titanv").expect("titanv preset");
    let mut cache = PrepassCache::new();
    for f in &files {
        let mut json = Vec::new();
        for threads in [1].into_iter().chain(THREADS) {
            let mut open =
                || -> warpweave::Result<Box<dyn warpweave::trace::TraceSource + Send>> {
                    Ok(Box::new(CompactReader::open(f)?))
                };
            let model = ModelChoice::named(mode).unwrap();
            let (mut sim, _) = prepared_simulator(&cfg, model, &mut open, &mut cache).unwrap();
            sim.set_threads(threads).unwrap();
            sim.gpu.par_min_busy = 1;
            let res = sim
                .run_to_end()
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            if mode == "fast" && threads > 2 {
                // The pool steps windows (one fork per window of up to 64 cycles), not cycles.
                let x = sim.gpu.exchanges();
                assert!(
                    x * 20 < res.cycles,
                    "{}: {x} exchanges in {} cycles at {threads} threads",
                    f.display(),
                    res.cycles
                );
            }
            json.push(serde_json::to_string(&res).unwrap());
        }
        for (j, threads) in json[1..].iter().zip(THREADS) {
            assert!(
                *j == json[0],
                "{}: {mode} at {threads} threads differs",
                f.display()
            );
        }
    }
}

/// Kernels with more CTAs than the GPU holds at once (the samples have fewer), with the cycle
/// memory system: two and three threads give the JSON of one thread, both run to the end and
/// run in slices of a few dozen cycles (each slice ends with the waiting request half run),
/// in `cycle` and `hybrid`.
#[test]
fn many_ctas_are_identical_at_1_to_3_threads_and_in_slices() {
    use warpweave::analytic::prepass::PrepassCache;
    use warpweave::engine::compare::prepared_simulator;
    use warpweave::engine::RunStatus;
    let cfg = config::load("titanv").expect("titanv preset");
    let mut cache = PrepassCache::new();
    for name in ["builtin:vecadd:n=524288", "builtin:reduction:n=524288"] {
        for mode in ["cycle", "hybrid"] {
            let mut json = Vec::new();
            for (threads, slice) in [(1, 1 << 20), (2, 1 << 20), (2, 37), (3, 41)] {
                let mut open = || warpweave::trace::open::open_builtin(name).unwrap();
                let model = ModelChoice::named(mode).unwrap();
                let (mut sim, _) = prepared_simulator(&cfg, model, &mut open, &mut cache).unwrap();
                sim.set_threads(threads).unwrap();
                loop {
                    match sim.run_for(slice).unwrap() {
                        RunStatus::Running { .. } => {}
                        RunStatus::Done { .. } => break,
                        RunStatus::Deadlock(m) => panic!("{name} {mode}: {m}"),
                    }
                }
                json.push(serde_json::to_string(&sim.result()).unwrap());
            }
            assert!(json[0] == json[1], "{name} {mode}: 2 threads differ");
            assert!(
                json[0] == json[2],
                "{name} {mode}: 2 threads in slices differ"
            );
            assert!(
                json[0] == json[3],
                "{name} {mode}: 3 threads in slices differ"
            );
        }
    }
}
