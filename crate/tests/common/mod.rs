//! Helpers shared by the integration tests that run every shipped trace.

use std::path::{Path, PathBuf};

use warpweave::engine::Simulator;
use warpweave::trace::accelsim::{AccelSimTrace, OpenOptions};
use warpweave::trace::compact::CompactReader;
use warpweave::trace::opcodes::Arch;
use warpweave::trace::MemTrace;

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The sample compact files (top level of sample-traces/, not large/), sorted.
#[allow(dead_code)] // (each test crate uses some of these helpers)
pub fn sample_files() -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(repo().join("sample-traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wwt"))
        .collect();
    files.sort();
    assert!(files.len() >= 15, "sample traces: {}", files.len());
    files
}

/// Runs `sim` to the end; its full result as JSON (`what` names it in a failure).
#[allow(dead_code)]
pub fn json_to_end(sim: &mut Simulator, what: &str) -> String {
    let res = sim.run_to_end().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(res.warp_insts > 0, "{what}: no instructions");
    serde_json::to_string(&res).unwrap()
}

/// (name, trace in memory): sample compact files (top level only) and the sample Accel-Sim
/// text folders (`sample-traces/text/`), all in the repository.
#[allow(dead_code)]
pub fn traces() -> Vec<(String, MemTrace)> {
    let mut out = Vec::new();
    for f in sample_files() {
        let mut r = CompactReader::open(&f).unwrap();
        out.push((f.display().to_string(), MemTrace::collect(&mut r).unwrap()));
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join("sample-traces/text"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        out.push((d.display().to_string(), open_text(&d)));
    }
    out
}

/// The three real GPU traces in `../shared/real-traces` (public data the repository does not
/// carry): only the tests marked `#[ignore = "needs ../shared/real-traces"]` call this.
#[allow(dead_code)]
pub fn real_traces() -> Vec<(String, MemTrace)> {
    [
        "microgpusim-vectoradd-100-32",
        "microgpusim-matrixmul-32-32",
        "accelsim-my_app",
    ]
    .into_iter()
    .map(|t| (t.to_string(), open_text(&warpweave::testing::real_trace(t))))
    .collect()
}

fn open_text(dir: &Path) -> MemTrace {
    let opts = OpenOptions {
        default_arch: Arch::default(),
        ..Default::default()
    };
    let mut r = AccelSimTrace::open(dir, opts).unwrap();
    MemTrace::collect(&mut r).unwrap()
}
