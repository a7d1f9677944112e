//! `warpweave annotate` and `run --sass` end to end: a trace recorded on an H100 (`ifetch`
//! with one 128-byte line, as the tracer recorded it: compact 1.1, no control bits) joined with
//! the `cuobjdump -sass` listing of its kernel (`ifetch8` of the bench that ran, nvcc 13.0.88,
//! sm_90); what does not join is an error naming the listing, the kernel and the PC.

use std::path::{Path, PathBuf};

use super::{fails_with as fails, ok, repo, run as cli, sim_numbers, tmp};

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/cli/fixtures").join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn info(trace: &Path) -> serde_json::Value {
    serde_json::from_str(&ok(&["info", "--json", s(trace)])).unwrap()
}

/// The listing with `from` replaced by `to`, written into `d`.
fn edited(d: &Path, name: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(fixture("ifetch8.sm_90.sass")).unwrap();
    assert!(text.contains(from), "{from}");
    let p = d.join(name);
    std::fs::write(&p, text.replace(from, to)).unwrap();
    p
}

fn files_in(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn annotate_joins_the_listing_and_info_names_the_source() {
    let d = tmp("annotate");
    let (trace, sass) = (
        fixture("ifetch-lines-1.v1.1.wwt"),
        fixture("ifetch8.sm_90.sass"),
    );
    let before = info(&trace);
    assert_eq!(before["kernels"][0]["ctrl_source"], "none");
    assert_eq!(before["total"]["ctrl_insts"], 0);
    let out = d.join("annotated.wwt");
    ok(&["annotate", s(&trace), "--sass", s(&sass), "-o", s(&out)]);
    let after = info(&out);
    assert_eq!(after["kernels"][0]["name"], "ifetch8");
    assert_eq!(after["kernels"][0]["ctrl_source"], "sass");
    assert_eq!(after["total"]["warp_insts"], 37);
    assert_eq!(after["total"]["ctrl_insts"], 37);
    // Control bits are not part of the trace's identity.
    assert_eq!(after["trace_hash"], before["trace_hash"]);
    let table = ok(&["info", s(&out)]);
    assert!(
        table.contains("control bits: 37 of 37 warp instructions (kernels from sass: 1)"),
        "{table}"
    );
    assert!(
        table.contains("ctrl") && table.contains(" sass "),
        "{table}"
    );
    // The holdout traces were annotated the same way from the whole (xz-compressed) listing:
    // the same trace, annotated again from it, holds what the fixture's join gave.
    let holdout = repo().join("tests/hardware/traced/h100-holdout");
    let again = d.join("again.wwt");
    let xz = holdout.join("kernels.sm_90.sass.xz");
    ok(&["annotate", s(&out), "--sass", s(&xz), "-o", s(&again)]);
    let mut a = info(&again);
    let mut b = info(&holdout.join("ifetch-lines-1.wwt"));
    a["name"] = serde_json::Value::Null;
    b["name"] = serde_json::Value::Null;
    assert_eq!(a, b);
    // Text cannot hold them: converting says so, and verifies the rest.
    let text = d.join("text");
    let o = cli(&["convert", "-q", s(&out), "-o", s(&text), "--verify"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("no place for compiler control bits: those of 1 kernels were left out"),
        "{err}"
    );
    assert_eq!(info(&text)["kernels"][0]["ctrl_source"], "none");
    assert_eq!(files_in(&d), ["again.wwt", "annotated.wwt", "text"]);
}

#[test]
fn run_with_sass_simulates_what_the_annotated_trace_simulates() {
    let d = tmp("run-sass");
    let (trace, sass) = (
        fixture("ifetch-lines-1.v1.1.wwt"),
        fixture("ifetch8.sm_90.sass"),
    );
    let out = d.join("annotated.wwt");
    ok(&["annotate", s(&trace), "--sass", s(&sass), "-o", s(&out)]);
    let (j1, j2) = (d.join("joined.json"), d.join("annotated.json"));
    for (t, extra, j) in [(&trace, vec!["--sass", s(&sass)], &j1), (&out, vec![], &j2)] {
        let mut args = vec![
            "run",
            "-q",
            "--gpu",
            "h100",
            "--trace",
            s(t),
            "--json",
            s(j),
        ];
        args.extend(extra);
        ok(&args);
    }
    assert_eq!(sim_numbers(&j1), sim_numbers(&j2));
    // The memory mode opens the trace through the same join.
    ok(&[
        "run",
        "-q",
        "--mode",
        "memory",
        "--trace",
        s(&trace),
        "--sass",
        s(&sass),
    ]);
    // A listing that lacks the trace's kernel stops the run before it starts.
    let sample = repo().join("sample-traces/vecadd-64k.wwt");
    fails(
        &["run", "-q", "--trace", s(&sample), "--sass", s(&sass)],
        &[
            "ifetch8.sm_90.sass",
            "no function _Z6vecaddPKfS0_Pfi",
            "the listing has: ifetch8",
        ],
    );
}

#[test]
fn what_does_not_join_is_an_error_naming_listing_kernel_and_pc() {
    let d = tmp("annotate-errors");
    let trace = fixture("ifetch-lines-1.v1.1.wwt");
    let out = d.join("out.wwt");
    let annotate = |sass: &Path, needles: &[&str]| {
        fails(
            &["annotate", s(&trace), "--sass", s(sass), "-o", s(&out)],
            needles,
        );
    };
    // The kernel is not in the listing.
    let other = edited(
        &d,
        "other.sass",
        "Function : ifetch8",
        "Function : ifetch16",
    );
    annotate(
        &other,
        &[
            "other.sass",
            "no function ifetch8 (kernel 0 of",
            "the listing has: ifetch16",
        ],
    );
    // A PC of the trace is not an instruction of the function.
    let gap = edited(&d, "gap.sass", "/*0040*/", "/*0048*/");
    annotate(
        &gap,
        &[
            "gap.sass",
            "kernel ifetch8 pc 0x40",
            "not an instruction of function ifetch8",
        ],
    );
    // Another opcode at a PC: the listing's line is named.
    let op = edited(
        &d,
        "op.sass",
        "FADD R6, R0.reuse, 1 ;",
        "FMUL R6, R0.reuse, 1 ;",
    );
    annotate(
        &op,
        &[
            "op.sass:32: kernel ifetch8 pc 0x40",
            "the trace has FADD, the listing FMUL",
        ],
    );
    // A listing without encodings has nothing to join.
    let text = std::fs::read_to_string(fixture("ifetch8.sm_90.sass")).unwrap();
    let bare: String = text
        .lines()
        .map(|l| format!("{}\n", l.split("/* 0x").next().unwrap_or(l)))
        .collect();
    let bare_path = d.join("bare.sass");
    std::fs::write(&bare_path, bare).unwrap();
    annotate(&bare_path, &["bare.sass", "ifetch8: no control bits"]);
    // None of the failures left an output or a temporary file.
    assert_eq!(
        files_in(&d),
        ["bare.sass", "gap.sass", "op.sass", "other.sass"]
    );
}

#[test]
fn annotate_refuses_to_overwrite_its_inputs() {
    let d = tmp("annotate-inputs");
    let trace = d.join("t.wwt");
    let sass = d.join("k.sass");
    std::fs::copy(fixture("ifetch-lines-1.v1.1.wwt"), &trace).unwrap();
    std::fs::copy(fixture("ifetch8.sm_90.sass"), &sass).unwrap();
    let before = std::fs::read(&trace).unwrap();
    fails(
        &["annotate", s(&trace), "--sass", s(&sass), "-o", s(&trace)],
        &["-o", "t.wwt", "is the input", "refusing to overwrite it"],
    );
    fails(
        &["annotate", s(&trace), "--sass", s(&sass), "-o", s(&sass)],
        &["-o", "k.sass", "is the input"],
    );
    assert_eq!(std::fs::read(&trace).unwrap(), before);
    // Written to another name, then renamed over the input: the way to annotate in place.
    let tmp_out = d.join(".t.wwt.annotating");
    ok(&["annotate", s(&trace), "--sass", s(&sass), "-o", s(&tmp_out)]);
    std::fs::rename(&tmp_out, &trace).unwrap();
    assert_eq!(info(&trace)["kernels"][0]["ctrl_source"], "sass");
    assert_eq!(files_in(&d), ["k.sass", "t.wwt"]);
}
