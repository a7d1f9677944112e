//! Golden results the browser tests compare against (`tests/browser/fixtures/golden/`): the
//! native library's result JSON for the gallery workload and the uploaded sample trace. The
//! browser must reproduce these bytes exactly (wasm == native). Regenerate with
//! `WW_BLESS=1 cargo test -p warpweave --lib session::golden`.

use std::path::PathBuf;

use super::{config, input, Session};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/browser/fixtures")
}

fn check(name: &str, mut s: Session) {
    let p = s.run_for(u64::MAX).unwrap();
    assert!(p.done);
    let got = s.result_json().unwrap().to_string();
    let path = fixtures().join("golden").join(format!("{name}.json"));
    if std::env::var_os("WW_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with WW_BLESS=1 to create it)", path.display()));
    assert_eq!(
        got, want,
        "{name}: native result differs from the golden file"
    );
}

#[test]
fn gallery_vecadd_memory() {
    let src = input::open_workload("vecadd", &[]).unwrap();
    check(
        "vecadd-memory",
        Session::new(src, config::preset("teaching").unwrap(), "memory").unwrap(),
    );
}

#[test]
fn gallery_vecadd_cycle() {
    let src = input::open_workload("vecadd", &[]).unwrap();
    check(
        "vecadd-cycle",
        Session::new(src, config::preset("teaching").unwrap(), "cycle").unwrap(),
    );
}

#[test]
fn uploaded_vectoradd_trace_memory() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/real-traces/microgpusim-vectoradd-100-32");
    let files = ["kernelslist.g", "kernel-1.traceg"]
        .iter()
        .map(|n| {
            (
                format!("vectoradd-100-32/{n}"),
                std::fs::read(dir.join(n)).unwrap(),
            )
        })
        .collect();
    let cfg = config::preset("teaching").unwrap();
    let src = input::open_files(files, super::arch_of(&cfg)).unwrap();
    check(
        "vectoradd-upload-memory",
        Session::new(src, cfg, "memory").unwrap(),
    );
}
