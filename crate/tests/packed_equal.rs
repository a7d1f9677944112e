//! A resident CTA kept packed (`trace::packed`: instruction templates by PC, 8 bytes per
//! instruction, lane addresses from their shape) simulates exactly as one kept as decoded:
//! every compact sample trace runs in `cycle`, `hybrid` and `fast` on titanv with every CTA
//! packed (`Gpu::pack_above = Some(0)`) and with none packed, and the full JSON results must be
//! equal. (The default rule packs only CTAs too long to keep decoded, which none of the
//! samples are.)

use std::path::{Path, PathBuf};

use warpweave::config;
use warpweave::engine::{ModelChoice, Simulator};
use warpweave::trace::compact::CompactReader;

fn run(path: &Path, mode: &str, pack_above: u64) -> String {
    let cfg = config::load("titanv").expect("titanv preset");
    let model = ModelChoice::named(mode).expect("mode");
    let src = CompactReader::open(path).expect("compact trace opens");
    let mut sim = Simulator::new(cfg, model, Box::new(src)).unwrap();
    sim.set_threads(1).unwrap();
    sim.gpu.pack_above = Some(pack_above);
    let res = sim
        .run_to_end()
        .unwrap_or_else(|e| panic!("{} {mode}: {e}", path.display()));
    assert!(res.warp_insts > 0, "{}: no instructions", path.display());
    serde_json::to_string(&res).unwrap()
}

#[test]
fn packed_ctas_simulate_as_decoded_ones() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sample-traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "wwt"))
        .collect();
    files.sort();
    assert!(files.len() >= 15, "sample traces: {}", files.len());
    for f in &files {
        for mode in ["cycle", "hybrid", "fast"] {
            let decoded = run(f, mode, u64::MAX);
            let packed = run(f, mode, 0);
            assert!(
                decoded == packed,
                "{} {mode}: packed CTAs differ",
                f.display()
            );
        }
    }
}
