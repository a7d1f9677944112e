//! A resident CTA kept packed (`trace::packed`: instruction templates by PC, 8 bytes per
//! instruction, lane addresses from their shape) simulates exactly as one kept as decoded:
//! every compact sample trace runs in `cycle`, `hybrid` and `fast` on titanv with every CTA
//! packed (`Gpu::pack_above = Some(0)`) and with none packed, and the full JSON results must be
//! equal. (The default rule packs only CTAs too long to keep decoded, which none of the
//! samples are.)

mod common;

use std::path::Path;

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
    common::json_to_end(&mut sim, &format!("{} {mode}", path.display()))
}

#[test]
fn packed_ctas_simulate_as_decoded_ones() {
    for f in &common::sample_files() {
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
