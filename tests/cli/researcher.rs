//! The CLI for someone who lives in it: progress on stderr for every long command (plain,
//! rate-limited lines when stderr is not a terminal, nothing with `-q`), "did you mean" for
//! misspelt names, options named as options and config keys as keys, notes after a result
//! that a newcomer would misread.

use std::path::Path;
use std::process::Output;

use super::{bin, fails_with, ok, repo, tmp};

const VAR: &str = "WARPWEAVE_PROGRESS_SECS";

fn with_interval(secs: &str, args: &[&str]) -> Output {
    let o = bin()
        .env(VAR, secs)
        .args(args)
        .output()
        .expect("warpweave runs");
    assert!(
        o.status.success(),
        "warpweave {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The plain progress lines of `what` in a stderr: `[1.23 s] what: ...`.
fn progress_lines(stderr: &[u8], what: &str) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.starts_with('[') && l.contains(&format!(" s] {what}: ")))
        .map(str::to_string)
        .collect()
}

/// The seconds stamp of a progress line.
fn stamp(line: &str) -> f64 {
    line[1..line.find(" s]").unwrap()].parse().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn run_progress_is_plain_lines_with_percent_cycles_rate_and_eta() {
    let o = with_interval(
        "0",
        &[
            "run",
            "--trace",
            "builtin:vecadd:n=1048576",
            "--threads",
            "1",
        ],
    );
    let lines = progress_lines(&o.stderr, "run");
    assert!(lines.len() >= 2, "{}", String::from_utf8_lossy(&o.stderr));
    for l in &lines {
        assert!(
            l.contains("% (") && l.contains("/524288 warp instructions)"),
            "{l}"
        );
        assert!(l.contains(", cycle ") && l.contains(" warp inst/s"), "{l}");
        assert!(l.contains(", ETA "), "{l}");
        assert!(!l.contains('\r'), "{l}");
    }
    // Standard output holds the result only.
    assert!(!String::from_utf8_lossy(&o.stdout).contains("warp instructions),"));
}

/// `run --mode memory` (the functional cache pass) and `fast`'s pre-pass count the CTAs they
/// have taken.
#[test]
fn memory_mode_progress_counts_ctas() {
    let o = with_interval(
        "0",
        &[
            "run",
            "--trace",
            "builtin:vecadd:n=65536",
            "--mode",
            "memory",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = progress_lines(&o.stderr, "run");
    assert!(!lines.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(lines.iter().all(|l| l.contains(" CTAs)")), "{lines:?}");
    assert!(
        lines.last().unwrap().contains("100% (512/512 CTAs)"),
        "{lines:?}"
    );
}

#[test]
fn progress_lines_are_rate_limited_when_stderr_is_not_a_terminal() {
    // One line at most every 0.3 s.
    let o = with_interval(
        "0.3",
        &[
            "run",
            "--trace",
            "builtin:vecadd:n=4194304",
            "--threads",
            "1",
        ],
    );
    let lines = progress_lines(&o.stderr, "run");
    assert!(!lines.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    for w in lines.windows(2) {
        assert!(
            stamp(&w[1]) - stamp(&w[0]) >= 0.29,
            "lines closer than the interval: {w:?}"
        );
    }
    assert!(lines.first().is_none_or(|l| stamp(l) >= 0.29), "{lines:?}");
    // The default is one line every few seconds: a run of a second prints none.
    let o = bin()
        .env_remove(VAR)
        .args(["run", "--trace", "builtin:vecadd:n=65536"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(progress_lines(&o.stderr, "run").is_empty());
}

#[test]
fn every_long_command_reports_progress_and_none_with_quiet() {
    let d = tmp("progress-all");
    let wwt = d.join("v.wwt");
    let text = d.join("vt");
    let conv = d.join("c.wwt");
    let sweep_out = d.join("sweep");
    let plan = repo().join("configs/sweeps/test-2x2.toml");
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "run",
            vec![
                "run",
                "--trace",
                "builtin:vecadd:n=1048576",
                "--threads",
                "1",
            ],
        ),
        (
            "compare",
            vec![
                "compare",
                "--trace",
                "builtin:vecadd:n=4096",
                "--modes",
                "cycle,fast",
            ],
        ),
        (
            "validate",
            vec![
                "validate",
                "--gpu",
                "titanv",
                "--metrics",
                "lat_l1,lat_shmem",
            ],
        ),
        ("gen", vec!["gen", "vecadd", "-p", "n=4096", "-o", s(&wwt)]),
        (
            "gen",
            vec![
                "gen",
                "vecadd",
                "-p",
                "n=4096",
                "--format",
                "text",
                "-o",
                s(&text),
            ],
        ),
        ("converting", vec!["convert", s(&text), "-o", s(&conv)]),
        ("sweep", vec!["sweep", s(&plan), "--out", s(&sweep_out)]),
    ];
    for (what, args) in &cases {
        let o = with_interval("0", args);
        let lines = progress_lines(&o.stderr, what);
        assert!(
            lines.iter().any(|l| l.contains("% (")),
            "{args:?}: no progress: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut quiet = args.clone();
        quiet.insert(1, "-q");
        let q = with_interval("0", &quiet);
        assert!(
            progress_lines(&q.stderr, what).is_empty(),
            "{quiet:?} printed progress: {}",
            String::from_utf8_lossy(&q.stderr)
        );
    }
}

#[test]
fn progress_never_changes_the_result_or_stdout_text() {
    let d = tmp("progress-same");
    let (a, b) = (d.join("a.json"), d.join("b.json"));
    let args = |j: &Path| {
        vec![
            "run".to_string(),
            "--trace".into(),
            "builtin:vecadd:n=1048576".into(),
            "--json".into(),
            j.display().to_string(),
        ]
    };
    let shown = bin().env(VAR, "0").args(args(&a)).output().unwrap();
    let mut q = args(&b);
    q.insert(1, "-q".into());
    let quiet = bin().args(&q).output().unwrap();
    assert!(shown.status.success() && quiet.status.success());
    assert!(!progress_lines(&shown.stderr, "run").is_empty());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // stdout is the same but for the wall-time lines (and how the threads shared the work).
    let stable = |o: &Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| {
                !l.starts_with("simulated in")
                    && !l.starts_with("peak memory")
                    && !l.starts_with("thread exchanges")
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(stable(&shown), stable(&quiet));
}

#[test]
fn misspelt_names_get_a_did_you_mean_beside_the_valid_choices() {
    let v = "builtin:vecadd:n=64";
    fails_with(
        &["run", "--gpu", "a10", "--trace", v],
        &["option `--gpu`", "did you mean `a100`?", "valid: rtx2080ti"],
    );
    fails_with(
        &["run", "--mode", "hybird", "--trace", v],
        &[
            "option `--mode`",
            "did you mean `hybrid`?",
            "allowed: cycle, hybrid, fast, memory",
        ],
    );
    fails_with(
        &["run", "--model", "alu=analytcal", "--trace", v],
        &[
            "option `--model`",
            "did you mean `analytical`?",
            "allowed: cycle, analytical",
        ],
    );
    fails_with(
        &["run", "--model", "nco=cycle", "--trace", v],
        &[
            "option `--model`",
            "did you mean `noc`?",
            "allowed: alu, memory",
        ],
    );
    fails_with(
        &["run", "--set", "l1d.cache.sizekb=64", "--trace", v],
        &[
            "config key `l1d.cache.sizekb`",
            "did you mean `l1d.cache.size_kb`?",
        ],
    );
    fails_with(
        &["run", "--trace", "builtin:vecad"],
        &["did you mean `vecadd`?", "known: vecadd"],
    );
    fails_with(
        &["gen", "vecadd", "-p", "m=3"],
        &["did you mean `n`?", "known: n"],
    );
    fails_with(
        &["compare", "--trace", v, "--modes", "cycle,fats"],
        &["option `--modes`", "did you mean `fast`?"],
    );
    fails_with(
        &["validate", "--gpu", "titanv", "--metrics", "lat_l11"],
        &["option `--metrics`", "did you mean `lat_l1`", "known: "],
    );
    // A GPU TOML file: the file, the line and the key it meant.
    let d = tmp("dym-toml");
    let f = d.join("gpu.toml");
    std::fs::write(&f, "[gpu]\nnum_sms = 4\n\n[l1d.cache]\nsizekb = 64\n").unwrap();
    fails_with(
        &["run", "--gpu", s(&f), "--trace", v],
        &["gpu.toml:5", "sizekb", "did you mean `l1d.cache.size_kb`?"],
    );
}

#[test]
fn messages_never_call_an_option_a_config_key() {
    for args in [
        vec!["run", "--gpu", "rtx9999", "--trace", "builtin:vecadd"],
        vec!["run", "--mode", "turbo", "--trace", "builtin:vecadd"],
        vec!["validate", "--metrics", "nope"],
        vec!["run", "--model", "alu", "--trace", "builtin:vecadd"],
    ] {
        let e = fails_with(&args, &["option `--"]);
        assert!(!e.contains("config key `gpu`"), "{e}");
        assert!(!e.contains("config key `--"), "{e}");
    }
}

#[test]
fn compare_help_describes_csv_and_json() {
    let h = ok(&["compare", "--help"]);
    for flag in ["--csv <FILE>", "--json <FILE>"] {
        let line = h
            .lines()
            .find(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("{flag} not in {h}"));
        let rest = line.trim_start()[flag.len()..].trim();
        let next = h.lines().skip_while(|l| *l != line).nth(1).unwrap_or("");
        assert!(
            !rest.is_empty() || next.trim_start().starts_with("Write"),
            "{flag} has no description: {h}"
        );
    }
}

/// `run`'s notes: printed after the result and in the JSON's `notes`, between `warnings` and
/// `config`.
fn notes_of(args: &[&str]) -> (String, Vec<String>) {
    // A folder per call: the tests calling this run in parallel, and `tmp` empties its folder.
    let name = args.join("_").replace(['/', ':', '=', '.'], "-");
    let d = tmp(&format!("notes-{name}"));
    let j = d.join("result.json");
    let mut all = vec!["run", "-q"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", s(&j)]);
    let out = ok(&all);
    let text = std::fs::read_to_string(&j).unwrap();
    let (w, n, c) = (
        text.find("\n  \"warnings\"").unwrap(),
        text.find("\n  \"notes\"").unwrap(),
        text.find("\n  \"config\"").unwrap(),
    );
    assert!(w < n && n < c, "notes sit between warnings and config");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let notes: Vec<String> = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    for n in &notes {
        assert!(
            out.contains(&format!("  - {n}\n")),
            "{n} not printed: {out}"
        );
    }
    assert_eq!(out.contains("\nnotes:\n"), !notes.is_empty(), "{out}");
    (out, notes)
}

fn has(notes: &[String], needle: &str) -> bool {
    notes.iter().any(|n| n.contains(needle))
}

#[test]
fn a_tiny_kernel_says_its_cycles_are_mostly_launch_and_its_inputs_sit_in_the_l2() {
    let t = repo().join("sample-traces/text/vecadd-100");
    let (_, notes) = notes_of(&["--trace", s(&t)]);
    assert!(
        has(&notes, "launch overhead is 91% of the cycles"),
        "{notes:?}"
    );
    assert!(has(&notes, "l2.warm_from_memcpy = true"), "{notes:?}");
    // A cold L2: no note on it.
    let (_, cold) = notes_of(&["--trace", s(&t), "--set", "l2.warm_from_memcpy=false"]);
    assert!(!has(&cold, "warm_from_memcpy = true"), "{cold:?}");
    assert!(has(&cold, "launch overhead"), "{cold:?}");
    // A kernel of many cycles: no launch note.
    let (_, long) = notes_of(&["--trace", "builtin:vecadd:n=1048576"]);
    assert!(!has(&long, "launch overhead"), "{long:?}");
}

#[test]
fn an_l1_size_replaced_by_the_adaptive_carveout_is_noted() {
    let (_, n) = notes_of(&["--trace", "builtin:vecadd", "--set", "l1d.cache.size_kb=48"]);
    assert!(
        has(
            &n,
            "l1d.cache.size_kb = 48 was not used: l1d.adaptive_carveout chose an L1D of 64 KiB"
        ),
        "{n:?}"
    );
    let (_, n) = notes_of(&["--trace", "builtin:vecadd"]);
    assert!(!has(&n, "adaptive_carveout"), "{n:?}");
}

#[test]
fn fast_on_a_memory_bound_kernel_notes_its_known_error() {
    let v = "builtin:vecadd:n=1048576";
    let (_, n) = notes_of(&["--trace", v, "--mode", "fast"]);
    assert!(
        has(&n, "analytical memory model, whose cycles were up to"),
        "{n:?}"
    );
    let (_, n) = notes_of(&["--trace", v, "--mode", "hybrid"]);
    assert!(!has(&n, "from `cycle`"), "{n:?}");
}

/// A kernel of many short CTAs under a CTA issue interval says so: vecadd of 1 M elements is
/// 8,192 CTAs over the rtx2080ti's 68 SMs, so some SM receives at least 121 of them, and at
/// one per 200 cycles their issue takes (n - 1) x 200 cycles, at least 80% of the kernel's
/// execution. Without an interval, or with one CTA per SM, no note.
#[test]
fn a_kernel_bounded_by_its_cta_issue_interval_is_noted() {
    let v = "builtin:vecadd:n=1048576";
    let (_, n) = notes_of(&["--trace", v, "--set", "sm.cta_launch_latency=200"]);
    let note = n
        .iter()
        .find(|t| t.starts_with("CTA issue bounds kernel _Z6vecaddPKfS0_Pfi"))
        .unwrap_or_else(|| panic!("{n:?}"));
    let nums: Vec<u64> = note
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    // "... received M of its CTAs, one per sm.cta_launch_latency = 200 cycles, which takes
    // I of its E execution cycles ..." (the kernel name holds digits too: take the last four).
    let [most, lat, issue, exec] = nums[nums.len() - 4..] else {
        panic!("{note}")
    };
    assert_eq!(lat, 200, "{note}");
    assert!(most >= 121, "{note}");
    assert_eq!(issue, (most - 1) * 200, "{note}");
    assert!(issue as f64 >= 0.8 * exec as f64, "{note}");
    let (_, n) = notes_of(&["--trace", v]);
    assert!(!has(&n, "CTA issue"), "{n:?}");
    let (_, n) = notes_of(&[
        "--trace",
        "builtin:vecadd:n=4096",
        "--set",
        "sm.cta_launch_latency=200",
    ]);
    assert!(!has(&n, "CTA issue"), "{n:?}");
}
