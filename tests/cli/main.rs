//! End-to-end tests of the `warpweave` CLI: traces in, exact numbers out, clear errors on bad
//! input. The sample folders in `sample-traces/text/` are always used; the real traces in
//! `../shared/real-traces` only by the tests marked ignored (`scripts/test.sh` runs them when the
//! folder is there). Golden files live in tests/cli/golden/; `WARPWEAVE_BLESS=1` rewrites them after an
//! intended model change (review the diff: every number in them is a simulated result).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Outputs that are inputs, failed writes, closed pipes, stopped sweeps (issue 37).
mod safe_outputs;

/// Control bits joined from a SASS listing: `annotate`, `run --sass`.
mod annotate;

/// Traces checked (CTAs, warps, opcodes, copies), inputs bounded, messages.
mod checked_inputs;

/// Progress, suggestions, option and key names, notes after a result.
mod researcher;

/// Execution from SASS: `run --launch`.
mod exec;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpweave"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn real(name: &str) -> PathBuf {
    warpweave::testing::real_trace(name)
}

/// The Accel-Sim sample folders shipped in the repository.
const SAMPLES: [&str; 3] = ["vecadd-100", "reduction-512", "matmul_tiled-32"];

fn sample(name: &str) -> PathBuf {
    repo().join("sample-traces/text").join(name)
}

/// Runs `trace` on the RTX 2080 Ti and checks the simulated numbers against `golden`.
fn run_golden(trace: &Path, golden_name: &str, d: &Path) {
    let j = d.join(format!("{golden_name}.json"));
    ok(&[
        "run",
        "-q",
        "--gpu",
        "rtx2080ti",
        "--trace",
        trace.to_str().unwrap(),
        "--json",
        j.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&j).unwrap()).unwrap();
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["config"]["gpu"]["id"], "rtx2080ti");
    assert!(
        v["model"].is_object(),
        "the model choice per module is in the result"
    );
    golden(&format!("{golden_name}.txt"), &sim_numbers(&j));
}

/// text -> compact -> text with `convert`: the kernel file comes back byte for byte.
fn convert_round_trip(src: &Path, d: &Path) {
    let wwt = d.join("t.wwt");
    let back = d.join("back");
    ok(&[
        "convert",
        src.to_str().unwrap(),
        "-o",
        wwt.to_str().unwrap(),
    ]);
    ok(&[
        "convert",
        wwt.to_str().unwrap(),
        "-o",
        back.to_str().unwrap(),
    ]);
    // The instruction streams are identical; file names may differ (kernel-<id>.traceg).
    let traceg = |dir: &Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "traceg"))
            .unwrap()
    };
    assert_eq!(
        std::fs::read(traceg(src)).unwrap(),
        std::fs::read(traceg(&back)).unwrap(),
        "{}",
        src.display()
    );
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("warpweave runs")
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(
        o.status.success(),
        "warpweave {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Runs a command that must fail without a panic, naming each of `needles`; returns its stderr.
fn fails_with(args: &[&str], needles: &[&str]) -> String {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success(),
        "warpweave {args:?} should fail, printed {err}"
    );
    assert!(
        !err.contains("panicked"),
        "warpweave {args:?} panicked: {err}"
    );
    for n in needles {
        assert!(
            err.contains(n),
            "error of {args:?} should mention `{n}`: {err}"
        );
    }
    err.into_owned()
}

fn golden(name: &str, actual: &str) {
    let p = repo().join("tests/cli/golden").join(name);
    if std::env::var_os("WARPWEAVE_BLESS").is_some() {
        std::fs::write(&p, actual).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&p)
        .unwrap_or_else(|_| panic!("missing golden {}; run with WARPWEAVE_BLESS=1", p.display()));
    assert_eq!(actual, want, "output differs from golden {}", p.display());
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpweave-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The fields of a result JSON that are simulated numbers (not wall time), as stable text.
fn sim_numbers(json_path: &Path) -> String {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(json_path).unwrap()).unwrap();
    let mut out = String::new();
    for k in ["cycles", "warp_insts", "thread_insts"] {
        out += &format!("{k} = {}\n", v[k]);
    }
    out += &format!("trace_hash = {}\n", v["trace"]["hash"]);
    out += &format!("model = {}\n", v["model"]);
    for (i, k) in v["kernels"].as_array().unwrap().iter().enumerate() {
        out += &format!(
            "kernel {i}: cycles = {} warp_insts = {}\n",
            k["cycles"], k["warp_insts"]
        );
    }
    out += &format!("stall_stack = {}\n", v["stall_stack"]);
    out
}

#[test]
fn run_sample_text_traces_gives_golden_numbers_and_says_how_it_was_made() {
    let d = tmp("run-sample");
    for t in SAMPLES {
        run_golden(&sample(t), &format!("run-sample-{t}"), &d);
    }
}

#[test]
#[ignore = "needs ../shared/real-traces"]
fn run_real_traces_gives_golden_numbers_and_says_how_it_was_made() {
    let d = tmp("run");
    for t in [
        "microgpusim-vectoradd-100-32",
        "microgpusim-matrixmul-32-32",
        "accelsim-my_app",
    ] {
        run_golden(&real(t), &format!("run-{t}"), &d);
    }
}

#[test]
fn run_is_the_same_for_every_trace_format() {
    // Accel-Sim text and its compact conversion are the same instruction stream: same cycles.
    let d = tmp("formats");
    let src = sample("matmul_tiled-32");
    let wwt = d.join("mm.wwt");
    ok(&[
        "convert",
        src.to_str().unwrap(),
        "-o",
        wwt.to_str().unwrap(),
    ]);
    let (a, b) = (d.join("a.json"), d.join("b.json"));
    ok(&[
        "run",
        "-q",
        "--trace",
        src.to_str().unwrap(),
        "--json",
        a.to_str().unwrap(),
    ]);
    ok(&[
        "run",
        "-q",
        "--trace",
        wwt.to_str().unwrap(),
        "--json",
        b.to_str().unwrap(),
    ]);
    let num = |p: &Path| {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
        (
            v["cycles"].clone(),
            v["warp_insts"].clone(),
            v["stall_stack"].clone(),
        )
    };
    assert_eq!(num(&a), num(&b));
}

#[test]
fn convert_round_trips_sample_text_traces_byte_for_byte() {
    for t in SAMPLES {
        convert_round_trip(&sample(t), &tmp(&format!("conv-sample-{t}")));
    }
}

#[test]
#[ignore = "needs ../shared/real-traces"]
fn convert_round_trips_real_traces_byte_for_byte() {
    for t in ["microgpusim-vectoradd-100-32", "accelsim-my_app"] {
        convert_round_trip(&real(t), &tmp(&format!("conv-{t}")));
    }
}

#[test]
fn info_counts_the_sample_text_traces() {
    for t in SAMPLES {
        // Every `insts = N` line of the kernel file, summed.
        let text = std::fs::read_to_string(sample(t).join("kernel-1.traceg")).unwrap();
        let n: u64 = text
            .lines()
            .filter_map(|l| l.strip_prefix("insts = "))
            .map(|n| n.parse::<u64>().unwrap())
            .sum();
        let out = ok(&["info", "--json", sample(t).to_str().unwrap()]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["total"]["warp_insts"], n, "{t}: {out}");
    }
    let out = ok(&["info", "--json", sample("vecadd-100").to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["total"]["warp_insts"], 64, "{out}");
}

#[test]
fn a_listed_kernel_file_that_exists_only_compressed_is_read() {
    // kernelslist.g names kernel-1.traceg; the folder holds kernel-1.traceg.gz only.
    let d = tmp("listed-gz");
    let src = sample("vecadd-100");
    std::fs::copy(src.join("kernelslist.g"), d.join("kernelslist.g")).unwrap();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut e, &std::fs::read(src.join("kernel-1.traceg")).unwrap())
        .unwrap();
    std::fs::write(d.join("kernel-1.traceg.gz"), e.finish().unwrap()).unwrap();
    let out = ok(&["info", "--json", d.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["total"]["warp_insts"], 64, "{out}");
}

#[test]
#[ignore = "needs ../shared/real-traces"]
fn info_counts_the_real_traces() {
    for (t, n) in [
        ("microgpusim-vectoradd-100-32", "344"),
        ("microgpusim-matrixmul-32-32", "4416"),
        ("accelsim-my_app", "7260"),
    ] {
        let out = ok(&["info", "--json", real(t).to_str().unwrap()]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["total"]["warp_insts"].to_string(), n, "{t}: {out}");
    }
}

#[test]
fn bad_input_gets_a_clear_error_and_a_nonzero_exit() {
    let d = tmp("bad");
    // A missing trace names the path.
    fails_with(&["run", "--trace", "/no/such/trace"], &["/no/such/trace"]);
    // An unknown preset lists the valid ones.
    fails_with(
        &["run", "--gpu", "rtx9999", "--trace", "builtin:vecadd"],
        &["rtx9999", "rtx2080ti"],
    );
    // A wrong config key names the key; an out-of-range value names the range.
    fails_with(
        &["run", "--set", "l1d.nope=1", "--trace", "builtin:vecadd"],
        &["l1d.nope"],
    );
    fails_with(
        &["run", "--set", "sm.subcores=0", "--trace", "builtin:vecadd"],
        &["sm.subcores"],
    );
    // A truncated trace names the file and line.
    let t = d.join("trunc");
    std::fs::create_dir_all(&t).unwrap();
    let src = std::fs::read_to_string(sample("vecadd-100").join("kernel-1.traceg")).unwrap();
    let cut: String = src.lines().take(40).map(|l| format!("{l}\n")).collect();
    std::fs::write(t.join("kernel-1.traceg"), cut).unwrap();
    std::fs::write(t.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    fails_with(
        &["run", "--trace", t.to_str().unwrap()],
        &["kernel-1.traceg"],
    );
    // An empty file and garbage bytes are refused, not simulated.
    let e = d.join("empty.wwt");
    std::fs::write(&e, b"").unwrap();
    fails_with(&["run", "--trace", e.to_str().unwrap()], &["empty.wwt"]);
    let g = d.join("garbage.wwt");
    std::fs::write(&g, [0x57u8, 0x57, 0x54, 0x52, 1, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
    fails_with(&["run", "--trace", g.to_str().unwrap()], &["garbage.wwt"]);
}

#[test]
fn config_show_prints_the_effective_config_with_overrides() {
    let out = ok(&["config", "show", "rtx2080ti", "--set", "l1d.cache.assoc=64"]);
    assert!(out.contains("num_sms = 68"), "{out}");
    assert!(out.contains("assoc = 64"), "{out}");
}

#[test]
fn config_show_prints_the_held_out_error_of_a_measured_preset() {
    let out = ok(&["config", "show", "h100"]);
    let line = out.lines().nth(1).unwrap_or_default();
    assert!(
        line.contains("held-out error against the real GPU") && line.contains("h100.csv"),
        "{out}"
    );
    assert!(!ok(&["config", "show", "teaching"]).contains("held-out"));
}

/// `validate --hardware DIR` on a one-row table: the row is simulated, reported as held out.
#[test]
fn validate_hardware_compares_a_results_table() {
    let d = tmp("validate-hw");
    let src = std::fs::read_to_string(repo().join("tests/hardware/results/h100.csv")).unwrap();
    let head = src.lines().next().unwrap();
    let row = src
        .lines()
        .find(|l| l.contains(",vecadd,n=32,"))
        .expect("vecadd n=32 row")
        .replace(",fit,", ",holdout,");
    std::fs::write(d.join("h100.csv"), format!("{head}\n{row}\n")).unwrap();
    let out = ok(&["validate", "--hardware", d.to_str().unwrap()]);
    assert!(out.contains("h100.csv, holdout rows (1 kernels)"), "{out}");
    assert!(out.contains("holdout vecadd n=32: cycles hw 5496"), "{out}");
    fails_with(
        &["validate", "--hardware", d.join("none").to_str().unwrap()],
        &["no such folder"],
    );
}
