//! Skipping cycles is exact (issue 6): with `features.skip_idle_cycles` on, SMs sleep until
//! their next event and the whole GPU jumps over cycles in which nothing can change; with it
//! off every SM steps every cycle. The full JSON results must be equal, for several sample
//! traces (memory-bound, compute-bound, barriers, shared memory, multi-kernel) on the titanv
//! preset in the `cycle`, `hybrid` and `fast` modes.

use std::path::{Path, PathBuf};

use warpweave::config;
use warpweave::engine::{ModelChoice, Simulator};
use warpweave::trace::compact::CompactReader;

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../sample-traces")
        .join(name)
}

fn run(path: &Path, mode: &str, skip: bool) -> (String, u64) {
    run_k(path, mode, skip, 1)
}

fn run_k(path: &Path, mode: &str, skip: bool, epoch: u32) -> (String, u64) {
    let mut cfg = config::load("titanv").expect("titanv preset");
    cfg.features.skip_idle_cycles = skip;
    cfg.features.epoch_cycles = epoch;
    let model = ModelChoice::named(mode).unwrap();
    let src = CompactReader::open(path).expect("compact trace opens");
    let mut res = Simulator::new(cfg, model, Box::new(src))
        .unwrap()
        .run_to_end()
        .unwrap_or_else(|e| panic!("{} {mode}: {e}", path.display()));
    let cycles = res.cycles;
    // The flag itself is part of the echoed config; everything else must match.
    res.config.features.skip_idle_cycles = true;
    (serde_json::to_string(&res).unwrap(), cycles)
}

#[test]
fn skipping_on_and_off_give_identical_json() {
    // pointer_chase: long idle stretches (the whole-GPU jump and the memory-side clock
    // domains); the others: SMs sleeping while their neighbours work.
    for (name, modes) in [
        ("pointer_chase-16k.wwt", &["cycle", "hybrid", "fast"][..]),
        ("vecadd-64k.wwt", &["cycle", "fast"][..]),
        ("matmul_tiled-64.wwt", &["cycle", "hybrid"][..]),
        ("reduction-64k.wwt", &["cycle"][..]),
        ("transpose_naive-256.wwt", &["hybrid"][..]),
    ] {
        let p = sample(name);
        for &mode in modes {
            let (on, cycles) = run(&p, mode, true);
            let (off, _) = run(&p, mode, false);
            assert!(cycles > 100, "{name} {mode}: {cycles} cycles");
            assert!(on == off, "{name} {mode}: skipping changed the result");
        }
    }
}

/// The same with epochs of 8 cycles (`features.epoch_cycles`): jumps land on epoch starts, so
/// skipping still changes nothing.
#[test]
fn skipping_on_and_off_give_identical_json_with_epochs() {
    for (name, mode) in [
        ("pointer_chase-16k.wwt", "cycle"),
        ("vecadd-64k.wwt", "cycle"),
        ("matmul_tiled-64.wwt", "hybrid"),
    ] {
        let p = sample(name);
        let (on, cycles) = run_k(&p, mode, true, 8);
        let (off, _) = run_k(&p, mode, false, 8);
        assert!(cycles > 100, "{name} {mode}: {cycles} cycles");
        assert!(on == off, "{name} {mode} K=8: skipping changed the result");
    }
}
