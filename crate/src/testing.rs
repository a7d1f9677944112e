//! Where the tests find the real GPU traces. They live beside the repository, in
//! `../shared/real-traces` (never copied in), or wherever `WARPWEAVE_SHARED` points (the folder
//! that holds `real-traces/`, for a clone or worktree that is not a sibling of `shared/`).
//! A test that needs them and does not find them fails with a message saying so, rather than
//! with a bare "No such file or directory" or by skipping silently.

use std::path::{Path, PathBuf};

/// The environment variable naming the folder that holds `real-traces/`.
pub const SHARED_VAR: &str = "WARPWEAVE_SHARED";

/// The `real-traces` folder: `$WARPWEAVE_SHARED/real-traces`, else the first `shared/real-traces`
/// found walking up from the crate. Panics with what to do when neither exists.
pub fn real_traces() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let from_env = std::env::var_os(SHARED_VAR).map(|s| PathBuf::from(s).join("real-traces"));
    if let Some(p) = &from_env {
        if p.is_dir() {
            return p.clone();
        }
    }
    if let Some(p) = manifest
        .ancestors()
        .map(|a| a.join("shared/real-traces"))
        .find(|p| p.is_dir())
    {
        return p;
    }
    match from_env {
        Some(p) => panic!(
            "the real traces are not at {} ({SHARED_VAR} is set): point {SHARED_VAR} at the \
             folder that holds real-traces/",
            p.display()
        ),
        None => panic!(
            "the real traces (shared/real-traces) were not found beside the repository, walking \
             up from {}: clone the repository beside shared/, or set {SHARED_VAR} to the folder \
             that holds real-traces/",
            manifest.display()
        ),
    }
}

/// One real trace's folder, e.g. `real_trace("microgpusim-vectoradd-100-32")`; panics with a
/// message naming it when it is missing.
pub fn real_trace(name: &str) -> PathBuf {
    let root = real_traces();
    let p = root.join(name);
    assert!(
        p.is_dir(),
        "the real trace {name} is missing from {} (expected a folder with kernelslist.g)",
        root.display()
    );
    p
}
