//! Golden results the browser tests compare against (`tests/browser/fixtures/golden/`): the
//! native library's result JSON for the gallery workload and the uploaded sample traces (the
//! repository's `sample-traces/text/vecadd-100`, and the real vectoradd trace when
//! `../shared/real-traces` is there). The
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
fn uploaded_sample_vecadd_trace_memory() {
    // The repository's Accel-Sim sample folder, uploaded as the page receives it.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../sample-traces/text/vecadd-100");
    let files = ["kernelslist.g", "kernel-1.traceg"]
        .iter()
        .map(|n| {
            (
                format!("vecadd-100/{n}"),
                std::fs::read(dir.join(n)).unwrap(),
            )
        })
        .collect();
    let cfg = config::preset("teaching").unwrap();
    let src = input::open_files(files, super::arch_of(&cfg)).unwrap();
    check(
        "vecadd100-upload-memory",
        Session::new(src, cfg, "memory").unwrap(),
    );
}

#[test]
#[ignore = "needs ../shared/real-traces"]
fn uploaded_real_vectoradd_trace_memory() {
    let dir = crate::testing::real_trace("microgpusim-vectoradd-100-32");
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

/// The gallery's vecadd on the teaching GPU, cycle mode, recorded as the page records it.
pub(crate) const PIPELINE_WINDOW: (u64, u64) = (20, 60);

#[test]
fn pipeline_view_text_equals_the_cli_picture() {
    let src = input::open_workload("vecadd", &[]).unwrap();
    let mut s = Session::new(src, config::preset("teaching").unwrap(), "cycle").unwrap();
    s.record(0, PIPELINE_WINDOW.0, PIPELINE_WINDOW.1).unwrap();
    assert!(s.run_for(u64::MAX).unwrap().done);
    let tl = s.timeline().unwrap();
    assert_eq!(
        tl.sms[0].frames.len() as u64,
        PIPELINE_WINDOW.1 - PIPELINE_WINDOW.0
    );
    // The page's per-cycle texts are the CLI's `--show-pipeline --color never` picture cut at
    // the blank line after each cycle.
    let v: serde_json::Value = serde_json::from_str(&s.timeline_json().unwrap()).unwrap();
    let texts: Vec<String> = v["text"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    let cli = crate::timeline::ascii::render(tl, false);
    assert_eq!(texts.concat() + "\n", cli);
    assert!(texts[0].starts_with(&format!("SM 0 cycle {}", PIPELINE_WINDOW.0)));
    // The golden the browser test compares against (and checks against the CLI binary).
    let path = fixtures()
        .join("golden")
        .join("pipeline-vecadd-teaching.txt");
    if std::env::var_os("WW_BLESS").is_some() {
        std::fs::write(&path, &cli).unwrap();
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with WW_BLESS=1 to create it)", path.display()));
    assert_eq!(
        cli, want,
        "the pipeline picture differs from the golden file"
    );
}

#[test]
fn record_refuses_what_the_page_cannot_show() {
    let src = input::open_workload("vecadd", &[]).unwrap();
    let cfg = config::preset("teaching").unwrap();
    let mut s = Session::new(src, cfg.clone(), "cycle").unwrap();
    let e = s.record(0, 0, 5000).unwrap_err().to_string();
    assert!(
        e.contains("timeline.cycles") && e.contains("at most 2000"),
        "{e}"
    );
    let e = s.record(3, 0, 10).unwrap_err().to_string();
    assert!(e.contains("SM 3 does not exist"), "{e}");
    let src = input::open_workload("vecadd", &[]).unwrap();
    let mut m = Session::new(src, cfg, "memory").unwrap();
    let e = m.record(0, 0, 10).unwrap_err().to_string();
    assert!(e.contains("needs a timing mode"), "{e}");
}

#[test]
fn sass_sample_vecmul_memory() {
    let s = input::sass_samples()
        .into_iter()
        .find(|s| s.name == "vecmul")
        .unwrap();
    let cfg = config::preset("teaching").unwrap();
    let src = input::open_sass(
        s.listing,
        s.listing_name,
        s.spec,
        "vecmul.toml",
        super::arch_of(&cfg),
    )
    .unwrap();
    check(
        "sass-vecmul-memory",
        Session::new(src, cfg, "memory").unwrap(),
    );
}
