//! Nothing lost, nothing trusted that should be checked (issue 37), end to end through the
//! `warpweave` binary: an output that is an input is refused before anything runs; a failed
//! conversion leaves the old output; a closed stdout pipe does not stop a run writing its files;
//! a stopped sweep resumes to the same bytes; kernels lists cannot name files outside their
//! folder.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::{bin, fails_with as fails, ok, tmp};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small text trace folder made by `gen`.
fn text_trace(d: &Path) -> PathBuf {
    let t = d.join("vecadd");
    ok(&[
        "gen",
        "vecadd",
        "-p",
        "n=4096",
        "--format",
        "text",
        "-o",
        s(&t),
    ]);
    t
}

/// Every file under `d` (recursively) with its bytes, sorted by path.
fn snapshot(d: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v = Vec::new();
    let mut stack = vec![d.to_path_buf()];
    while let Some(p) = stack.pop() {
        for e in std::fs::read_dir(&p).unwrap() {
            let e = e.unwrap().path();
            if e.is_dir() {
                stack.push(e);
            } else {
                v.push((e.clone(), std::fs::read(&e).unwrap()));
            }
        }
    }
    v.sort();
    v
}

fn no_temp_files(d: &Path) {
    for (p, _) in snapshot(d) {
        assert!(
            !p.to_string_lossy().contains(".wwtmp-"),
            "a temporary file was left behind: {}",
            p.display()
        );
    }
}

#[test]
fn convert_refuses_an_output_that_is_its_input() {
    let d = tmp("convert-self");
    let t = text_trace(&d);
    let wwt = d.join("x.wwt");
    ok(&["convert", "-q", s(&t), "-o", s(&wwt)]);
    let before = snapshot(&d);
    // A compact file converted onto itself.
    fails(
        &["convert", "-q", s(&wwt), "--to", "compact", "-o", s(&wwt)],
        &["x.wwt", "refusing"],
    );
    // A kernel file onto itself, also through a link and through `..`.
    let k = t.join("kernel-1.traceg");
    fails(
        &["convert", "-q", s(&k), "-o", s(&k)],
        &["kernel-1.traceg", "refusing"],
    );
    let link = d.join("link.traceg");
    std::os::unix::fs::symlink(&k, &link).unwrap();
    fails(
        &["convert", "-q", s(&k), "-o", s(&link)],
        &["link.traceg", "kernel-1.traceg"],
    );
    let dotted = t.join("../vecadd/kernel-1.traceg");
    fails(&["convert", "-q", s(&k), "-o", s(&dotted)], &["refusing"]);
    // A text folder written over its own folder.
    fails(
        &["convert", "-q", s(&wwt), "--to", "text", "-o", s(&d)],
        &["refusing"],
    );
    fails(
        &["convert", "-q", s(&t), "--to", "text", "-o", s(&t)],
        &["refusing"],
    );
    std::fs::remove_file(&link).unwrap();
    assert!(before == snapshot(&d), "an input was changed");
}

#[test]
fn run_and_config_import_refuse_an_output_that_is_an_input() {
    let d = tmp("run-self");
    let t = text_trace(&d);
    let wwt = d.join("s.wwt");
    ok(&["convert", "-q", s(&t), "-o", s(&wwt)]);
    let before = snapshot(&d);
    fails(
        &["run", "-q", "--trace", s(&wwt), "--json", s(&wwt)],
        &["--json", "s.wwt", "refusing"],
    );
    let list = t.join("kernelslist.g");
    fails(
        &["run", "-q", "--trace", s(&t), "--json", s(&list)],
        &["kernelslist.g", "refusing"],
    );
    fails(
        &[
            "compare",
            "--trace",
            s(&wwt),
            "--modes",
            "fast",
            "--csv",
            s(&wwt),
        ],
        &["--csv", "refusing"],
    );
    assert!(before == snapshot(&d), "an input was changed");
    // A result written into the trace's folder beside it is fine, and again over itself.
    let j = t.join("result.json");
    ok(&["run", "-q", "--trace", s(&t), "--json", s(&j)]);
    ok(&["run", "-q", "--trace", s(&t), "--json", s(&j)]);

    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/accelsim_sm75");
    let (g, tc) = (d.join("a.config"), d.join("t.config"));
    std::fs::copy(fx.join("gpgpusim.config"), &g).unwrap();
    std::fs::copy(fx.join("trace.config"), &tc).unwrap();
    let (gb, tb) = (std::fs::read(&g).unwrap(), std::fs::read(&tc).unwrap());
    fails(
        &["config", "import", "-o", s(&g), s(&g), s(&tc)],
        &["a.config", "refusing"],
    );
    fails(
        &["config", "import", "-o", s(&tc), s(&g), s(&tc)],
        &["t.config", "refusing"],
    );
    assert_eq!(std::fs::read(&g).unwrap(), gb);
    assert_eq!(std::fs::read(&tc).unwrap(), tb);
    no_temp_files(&d);
}

#[test]
fn a_convert_that_fails_midway_leaves_the_previous_output() {
    let d = tmp("convert-fail");
    let t = text_trace(&d);
    let wwt = d.join("out.wwt");
    let back = d.join("back");
    ok(&["convert", "-q", s(&t), "-o", s(&wwt)]);
    ok(&["convert", "-q", s(&wwt), "-o", s(&back)]);
    let (old_wwt, old_back) = (std::fs::read(&wwt).unwrap(), snapshot(&back));
    // A second kernel whose file ends mid-CTA: the conversion fails after the first kernel.
    let k1 = std::fs::read_to_string(t.join("kernel-1.traceg")).unwrap();
    let cut: String = k1
        .lines()
        .take(k1.lines().count() * 2 / 3)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(t.join("kernel-2.traceg"), cut).unwrap();
    std::fs::write(
        t.join("kernelslist.g"),
        "kernel-1.traceg\nkernel-2.traceg\n",
    )
    .unwrap();
    fails(
        &["convert", "-q", s(&t), "-o", s(&wwt)],
        &["kernel-2.traceg"],
    );
    assert!(
        std::fs::read(&wwt).unwrap() == old_wwt,
        "out.wwt was changed"
    );
    // The same through the text writer: a compact file with the broken trace cannot be made,
    // so break the text output side by converting the broken folder into `back`.
    fails(
        &["convert", "-q", s(&t), "--to", "text", "-o", s(&back)],
        &["kernel-2.traceg"],
    );
    assert!(snapshot(&back) == old_back, "back/ was changed");
    no_temp_files(&d);
}

#[test]
fn a_closed_stdout_pipe_ends_a_run_quietly_after_its_files_are_written() {
    let d = tmp("pipe");
    let j = d.join("p.json");
    let mut child = bin()
        .args(["run", "-q", "--trace", "builtin:vecadd", "--json", s(&j)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before the run prints anything (`| head -0`).
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(o.status.success(), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&j).unwrap()).unwrap();
    assert!(v["cycles"].as_u64().unwrap() > 0);
}

#[test]
fn a_stopped_sweep_resumes_to_the_same_results() {
    let d = tmp("sweep");
    let plan = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/sweeps/test-2x2.toml");
    let full = d.join("full");
    ok(&["sweep", "-q", s(&plan), "--out", s(&full), "-j", "2"]);
    let journal = std::fs::read_to_string(full.join("points.jsonl")).unwrap();
    assert_eq!(
        journal.lines().count(),
        5,
        "a header and four runs: {journal}"
    );

    // Stopped after two runs, the third cut short mid-line: the folder holds no results yet.
    let part = d.join("part");
    std::fs::create_dir_all(&part).unwrap();
    let lines: Vec<&str> = journal.split_inclusive('\n').collect();
    let mut kept: String = lines[..3].concat();
    kept.push_str(&lines[3][..lines[3].len() / 2]);
    std::fs::write(part.join("points.jsonl"), &kept).unwrap();
    // Without --resume the kept runs are not thrown away.
    fails(
        &["sweep", "-q", s(&plan), "--out", s(&part)],
        &["points.jsonl", "--resume"],
    );
    let out = bin()
        .args(["sweep", "-q", s(&plan), "--out", s(&part), "--resume"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("resuming: 2 of 4 runs"), "{err}");
    for f in ["results.csv", "results.json"] {
        assert!(
            std::fs::read(full.join(f)).unwrap() == std::fs::read(part.join(f)).unwrap(),
            "{f} differs after --resume"
        );
    }
    // A finished sweep run again starts over and gives the same again.
    ok(&["sweep", "-q", s(&plan), "--out", s(&part)]);
    assert!(
        std::fs::read(full.join("results.csv")).unwrap()
            == std::fs::read(part.join("results.csv")).unwrap()
    );
    no_temp_files(&d);

    // An output that is a file is refused before any run.
    let f = d.join("afile");
    std::fs::write(&f, "keep me").unwrap();
    let t0 = std::time::Instant::now();
    fails(&["sweep", "-q", s(&plan), "--out", s(&f)], &["afile"]);
    assert!(t0.elapsed().as_secs() < 5);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "keep me");
}

#[test]
fn a_kernels_list_cannot_name_files_outside_its_folder() {
    let d = tmp("outside");
    let t = text_trace(&d);
    let secret = d.join("outside");
    std::fs::create_dir_all(&secret).unwrap();
    // A file outside the trace folder whose first line would be quoted by a header error.
    std::fs::write(secret.join("kernel-1.traceg"), "SECRET-FIRST-LINE\n").unwrap();
    for (line, n) in [
        ("kernel-d/../../outside/kernel-1.traceg", 1),
        ("kernel-d/../../../../../etc/passwd", 1),
    ] {
        std::fs::write(t.join("kernelslist.g"), format!("{line}\n")).unwrap();
        let err = fails(
            &["run", "-q", "--trace", s(&t)],
            &[&format!("kernelslist.g:{n}"), "not inside the trace folder"],
        );
        assert!(!err.contains("SECRET") && !err.contains("root:"), "{err}");
    }
    // An absolute path on a line of its own is no launch: refused, naming the line.
    std::fs::write(
        t.join("kernelslist.g"),
        "MemcpyHtoD,0x0000000000001000,64\n\nkernel-1.traceg\n/etc/passwd\n",
    )
    .unwrap();
    let err = fails(&["run", "-q", "--trace", s(&t)], &["kernelslist.g:4"]);
    assert!(!err.contains("root:"), "{err}");
    // A line that is neither a launch nor a copy names its line, cut short if long.
    let long = "x".repeat(100_000);
    std::fs::write(
        t.join("kernelslist.g"),
        format!("kernel-1.traceg\n{long}\n"),
    )
    .unwrap();
    let err = fails(&["run", "-q", "--trace", s(&t)], &["kernelslist.g:2"]);
    assert!(err.len() < 1000, "the message is cut: {} bytes", err.len());
    let long_kernel = format!("kernel-{long}.traceg");
    std::fs::write(t.join("kernelslist.g"), format!("{long_kernel}\n")).unwrap();
    let err = fails(&["run", "-q", "--trace", s(&t)], &["kernelslist.g:1"]);
    assert!(err.len() < 1000, "the message is cut: {} bytes", err.len());
}

#[test]
fn a_tracer_version_newer_than_the_readers_know_is_refused() {
    let d = tmp("tracer-version");
    // Text: the header line is named.
    let t = text_trace(&d);
    let k = t.join("kernel-1.traceg");
    let text = std::fs::read_to_string(&k).unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with("-accelsim tracer version"))
        .expect("a tracer version line")
        + 1;
    let bad: String = text
        .lines()
        .map(|l| {
            if l.starts_with("-accelsim tracer version") {
                "-accelsim tracer version = 99\n".to_string()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(&k, bad).unwrap();
    fails(
        &["run", "-q", "--trace", s(&t)],
        &[&format!("kernel-1.traceg:{line}"), "tracer version", "99"],
    );
    // Compact: the same kernel written with version 99 by the library's writer.
    let mut m =
        warpweave::workload::generate("vecadd", &warpweave::workload::Params::new()).unwrap();
    for k in &mut m.kernels {
        k.info.tracer_version = 99;
    }
    let wwt = d.join("v99.wwt");
    std::fs::write(
        &wwt,
        warpweave::workload::output::compact_bytes(&mut m).unwrap(),
    )
    .unwrap();
    fails(
        &["run", "-q", "--trace", s(&wwt)],
        &["v99.wwt", "tracer version", "99"],
    );
}

#[test]
fn the_compact_reader_checks_blocks_and_warps_as_the_text_reader_does() {
    let d = tmp("compact-shape");
    let gen =
        || warpweave::workload::generate("vecadd", &warpweave::workload::Params::new()).unwrap();
    type Edit = fn(&mut warpweave::trace::model::MemTrace);
    let cases: [(&str, Edit, &str); 4] = [
        ("grid0", |m| m.kernels[0].info.grid.x = 0, "grid dim"),
        (
            "outside",
            |m| m.kernels[0].ctas[0].id.x = (1 << 31) + 5,
            "outside the grid",
        ),
        (
            "warp",
            |m| m.kernels[0].ctas[0].warps[0].warp_id = 99_999,
            "warp 99999",
        ),
        (
            "twice",
            |m| {
                let w = m.kernels[0].ctas[0].warps[0].warp_id;
                m.kernels[0].ctas[0].warps[1].warp_id = w;
            },
            "appears twice",
        ),
    ];
    for (name, edit, needle) in cases {
        let mut m = gen();
        edit(&mut m);
        let p = d.join(format!("{name}.wwt"));
        std::fs::write(
            &p,
            warpweave::workload::output::compact_bytes(&mut m).unwrap(),
        )
        .unwrap();
        fails(
            &["run", "-q", "--trace", s(&p)],
            &[&format!("{name}.wwt"), needle],
        );
    }
}
