//! README.md states no figure that its results files do not hold: speed from bench/results.md
//! (`bench/run.sh`), thread scaling from bench/scaling-16core.csv (`tests/hardware/lease.sh`),
//! the modes' cycle errors from bench/compare.csv (`bench/compare.sh`), accuracy against the
//! H100 from the held-out table `crate/tests/hardware_compare.rs` regenerates. A figure is
//! read at the precision the README writes it (`702 K` to the thousand, `1.44%` to the
//! hundredth, `~1,700×` to the hundred) and must equal the file's value rounded alike.
//! The scripts and the README's commands work in any clone: scratch files come from `mktemp`,
//! no path of a development machine is named.

use std::path::{Path, PathBuf};

use warpweave::engine::notes::FAST_MAX_ERROR;
use warpweave::validate::held_out::HELD_OUT;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A figure as written: its value and the step it is rounded to.
#[derive(Debug)]
struct Figure {
    text: String,
    value: f64,
    step: f64,
}

/// Every figure in `text`, in order: numbers not part of a word (`h100`, `80GB`, `vecadd-1m`
/// are not figures), with a sign from `−`, thousands commas, and ` K` / ` M` multipliers.
fn figures(text: &str) -> Vec<Figure> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let starts = c[i].is_ascii_digit()
            && (i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_' || c[i - 1] == '.'));
        if !starts {
            i += 1;
            continue;
        }
        let b = i;
        while i < c.len()
            && (c[i].is_ascii_digit()
                || (c[i] == ',' && i + 1 < c.len() && c[i + 1].is_ascii_digit())
                || (c[i] == '.' && i + 1 < c.len() && c[i + 1].is_ascii_digit()))
        {
            i += 1;
        }
        let digits: String = c[b..i].iter().filter(|&&x| x != ',').collect();
        // A word goes on (`1m`, `80GB`, `2080ti`): not a figure.
        if i < c.len() && (c[i].is_alphabetic() && c[i] != '×') {
            continue;
        }
        let mut mult = 1.0;
        let mut end = i;
        if i + 1 < c.len() && c[i] == ' ' && (c[i + 1] == 'K' || c[i + 1] == 'M') {
            let after = c.get(i + 2).copied().unwrap_or(' ');
            if !after.is_alphanumeric() || after == '-' {
                mult = if c[i + 1] == 'K' { 1e3 } else { 1e6 };
                end = i + 2;
            }
        }
        let neg = b > 0 && c[b - 1] == '−';
        let mantissa: f64 = digits.parse().unwrap();
        let step = match digits.split_once('.') {
            Some((_, d)) => 10f64.powi(-(d.len() as i32)),
            None => {
                let zeros = digits.len() - digits.trim_end_matches('0').len();
                10f64.powi(zeros.min(digits.len() - 1) as i32)
            }
        };
        out.push(Figure {
            text: c[if neg { b - 1 } else { b }..end].iter().collect(),
            value: if neg { -mantissa } else { mantissa } * mult,
            step: step * mult,
        });
        i = end;
    }
    out
}

/// The first `n` figures after `anchor` (which must occur once in `text`).
fn after(text: &str, anchor: &str, n: usize) -> Vec<Figure> {
    assert_eq!(
        text.matches(anchor).count(),
        1,
        "README.md should hold `{anchor}` once"
    );
    let at = text.find(anchor).unwrap() + anchor.len();
    let f = figures(&text[at..]);
    assert!(f.len() >= n, "fewer than {n} figures after `{anchor}`");
    f.into_iter().take(n).collect()
}

/// Checks that each figure states its expected value at its own precision.
fn check(anchor: &str, got: &[Figure], want: &[f64], bad: &mut Vec<String>) {
    for (f, w) in got.iter().zip(want) {
        let rounded = (w / f.step).round() * f.step;
        if (rounded - f.value).abs() > f.step * 1e-6 {
            bad.push(format!(
                "after `{anchor}`: README says {} but the results file gives {w} (rounded: {rounded})",
                f.text
            ));
        }
    }
}

/// Rows of the markdown table whose header row starts with `head`, as cells.
fn md_table(text: &str, head: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut on = false;
    for l in text.lines() {
        if l.starts_with(head) {
            on = true;
            continue;
        }
        if on {
            if !l.starts_with('|') {
                break;
            }
            if l.starts_with("|---") {
                continue;
            }
            rows.push(
                l.trim_matches('|')
                    .split('|')
                    .map(|c| c.trim().to_string())
                    .collect(),
            );
        }
    }
    rows
}

fn min_max(v: &[f64]) -> [f64; 2] {
    [
        v.iter().copied().fold(f64::INFINITY, f64::min),
        v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    ]
}

/// bench/compare.csv: (trace, gpu, mode, cycles, err_pct).
fn compare_rows() -> Vec<(String, String, String, f64)> {
    read("bench/compare.csv")
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (
                c[0].to_string(),
                c[1].to_string(),
                c[2].to_string(),
                c[4].parse().unwrap(),
            )
        })
        .collect()
}

fn errors(
    rows: &[(String, String, String, f64)],
    gpu: &str,
    mode: &str,
    large_only: bool,
) -> Vec<f64> {
    rows.iter()
        .filter(|r| r.1 == gpu && r.2 == mode && (!large_only || r.0 != "vecadd-1m"))
        .map(|r| r.3)
        .collect()
}

#[test]
fn readme_figures_equal_their_results_files() {
    let readme = read("README.md");
    let mut bad = Vec::new();

    // Speed: bench/results.md, native, one thread, K = 1.
    let results = read("bench/results.md");
    let speed = md_table(&results, "| trace | mode | build | threads |");
    let row = |trace: &str, mode: &str| {
        speed
            .iter()
            .find(|r| {
                r[0] == trace && r[1] == mode && r[2] == "native" && r[3] == "1" && r[9] == "1"
            })
            .unwrap_or_else(|| panic!("bench/results.md has no row {trace} {mode} native 1"))
            .clone()
    };
    let num = |s: &str| s.parse::<f64>().unwrap();
    let accel = after(&read("bench/README.md"), "Accel-Sim simulates about ", 1)[0].value;
    for (mode, anchor) in [
        ("cycle", "| `cycle` | every module ticked every cycle | "),
        ("hybrid", "| `hybrid` | event-driven SM front end, analytical ALU pipeline, cycle memory system | "),
        ("fast", "and warps issuing ahead | "),
    ] {
        let wips = num(&row("vecadd-1m", mode)[7]);
        check(anchor, &after(&readme, anchor, 2), &[wips, wips / accel], &mut bad);
    }
    let mem = row("vecadd-1m", "memory");
    let anchor = "| `memory` | caches only, functionally, no timing | ";
    check(
        anchor,
        &after(&readme, anchor, 2),
        &[1048576.0, num(&mem[6])],
        &mut bad,
    );

    // Cycle errors of the modes: bench/compare.csv.
    let cmp = compare_rows();
    let hy = |g: &str| min_max(&errors(&cmp, g, "hybrid", false));
    let fa = |g: &str| min_max(&errors(&cmp, g, "fast", false));
    let fast_large = errors(&cmp, "titanv", "fast", true);
    let mean = fast_large.iter().sum::<f64>() / fast_large.len() as f64;
    let anchor = "965 K | ~240× | ";
    let want = [hy("titanv"), hy("rtx2080ti")].concat();
    check(anchor, &after(&readme, anchor, 4), &want, &mut bad);
    let anchor = "6.79 M | ~1,700× | ";
    let want = [&fa("titanv")[..], &[mean], &fa("rtx2080ti")[..]].concat();
    check(anchor, &after(&readme, anchor, 5), &want, &mut bad);
    // The figure `fast`'s note quotes is the largest of them, where it was measured.
    let worst = cmp
        .iter()
        .filter(|r| r.2 == "fast")
        .max_by(|a, b| a.3.total_cmp(&b.3))
        .unwrap();
    assert_eq!(
        FAST_MAX_ERROR,
        (worst.3, format!("{} on the {}", worst.0, worst.1).as_str()),
        "engine::notes::FAST_MAX_ERROR differs from bench/compare.csv"
    );

    // Two threads and wasm: the goals table of bench/results.md ("fastest" ratios).
    let goals = md_table(&results, "| goal | trace | measured | met |");
    // `2.10 / 2.14 / 2.14 (11 of 11)`, `1.12x / 1.11x (...)`: the fastest runs' ratio.
    let first = |r: &Vec<String>| -> f64 {
        r[2].split('/')
            .next()
            .unwrap()
            .trim()
            .trim_end_matches('x')
            .parse()
            .unwrap()
    };
    let two: Vec<f64> = goals
        .iter()
        .filter(|r| r[0].starts_with("2 threads"))
        .map(first)
        .collect();
    let anchor = "Two threads run ";
    check(anchor, &after(&readme, anchor, 2), &min_max(&two), &mut bad);
    let wasm: Vec<f64> = goals
        .iter()
        .filter(|r| r[0].starts_with("wasm warm"))
        .map(first)
        .collect();
    let anchor = "the browser\n(wasm) runs within ";
    check(
        anchor,
        &after(&readme, anchor, 1),
        &[min_max(&wasm)[1]],
        &mut bad,
    );
    let big = row("vecadd-10m", "stream");
    let anchor = "A 10 M-instruction trace (about 1 GB as Accel-Sim text)\nstreams in under ";
    let under = after(&readme, anchor, 1)[0].value;
    assert!(num(&big[8]) < under, "vecadd-10m peaks at {} MB", big[8]);

    // Sixteen cores: bench/scaling-16core.csv, best speed-up per trace and mode.
    let csv = read("bench/scaling-16core.csv");
    let mut best: Vec<(String, String, f64)> = Vec::new();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    for r in &rows {
        if r[3] != "1" {
            continue;
        }
        let one: f64 = r[4].parse().unwrap();
        let fastest = rows
            .iter()
            .filter(|x| x[0] == r[0] && x[2] == r[2])
            .map(|x| x[4].parse::<f64>().unwrap())
            .fold(f64::INFINITY, f64::min);
        best.push((r[0].to_string(), r[2].to_string(), one / fastest));
    }
    let by = |m: &str| -> Vec<f64> { best.iter().filter(|b| b.1 == m).map(|b| b.2).collect() };
    let anchor = "(sixteen cores:\n`cycle` ";
    let want = [&min_max(&by("cycle"))[..], &[min_max(&by("fast"))[1]]].concat();
    check(anchor, &after(&readme, anchor, 3), &want, &mut bad);

    // Accuracy against the H100: the held-out table.
    let file = |f: &str| HELD_OUT.iter().find(|h| h.file == f).unwrap();
    let (a, b) = (file("h100.csv"), file("h100-holdout.csv"));
    let kernels = (a.holdout_kernels + b.holdout_kernels) as f64;
    let all = (a.holdout_cycles_mape * a.holdout_kernels as f64
        + b.holdout_cycles_mape * b.holdout_kernels as f64)
        / kernels;
    let anchor = "reference; ";
    check(
        anchor,
        &after(&readme, anchor, 2),
        &[all, kernels],
        &mut bad,
    );
    let anchor = "the `h100` preset in `cycle` mode has a\n";
    let want = [
        all,
        kernels,
        a.holdout_cycles_mape,
        a.holdout_kernels as f64,
        a.holdout_cycles_signed,
        a.holdout_cycles_corr,
        b.holdout_cycles_mape,
        b.holdout_kernels as f64,
        b.holdout_cycles_signed,
        b.holdout_cycles_corr,
        a.fit_cycles_mape,
        b.fit_cycles_mape,
    ];
    check(anchor, &after(&readme, anchor, want.len()), &want, &mut bad);

    // The launch overhead the h100 preset was fitted to.
    let h100 = warpweave::config::preset("h100").unwrap();
    let anchor = "elapsed cycles of one-CTA kernels (";
    check(
        anchor,
        &after(&readme, anchor, 1),
        &[h100.sm.kernel_launch_latency as f64],
        &mut bad,
    );

    assert!(
        bad.is_empty(),
        "README.md is out of date:\n{}",
        bad.join("\n")
    );
}

#[test]
fn figures_are_read_at_their_written_precision() {
    let f = figures(
        "702 K | ~1,700× | 0.01–0.52% signed −4.7% h100 80GB vecadd-1m 10 M-instruction 0.940",
    );
    let v: Vec<(f64, f64)> = f.iter().map(|x| (x.value, x.step)).collect();
    assert_eq!(
        v,
        [
            (702e3, 1e3),
            (1700.0, 100.0),
            (0.01, 0.01),
            (0.52, 0.01),
            (-4.7, 0.1),
            (10e6, 10e6),
            (0.94, 0.001)
        ]
    );
    let mut bad = Vec::new();
    check("x", &figures("~180×"), &[175.6], &mut bad);
    check("x", &figures("702 K"), &[702_404.0], &mut bad);
    assert!(bad.is_empty(), "{bad:?}");
    check("x", &figures("1.44%"), &[1.4449], &mut bad);
    check("x", &figures("6.2%"), &[5.51], &mut bad);
    assert_eq!(bad.len(), 1, "{bad:?}");
}

/// Every shell script of the repository.
fn scripts() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    stack.push(p);
                }
            } else if name.ends_with(".sh") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn scripts_use_mktemp_and_name_no_development_path() {
    let all = scripts();
    assert!(all.iter().any(|p| p.ends_with("scripts/test.sh")));
    let mut bad = Vec::new();
    for p in &all {
        let text = std::fs::read_to_string(p).unwrap();
        let rel = p.strip_prefix(root()).unwrap().display().to_string();
        for (i, l) in text.lines().enumerate() {
            let fixed_tmp = l.contains("/tmp/") && !l.contains("mktemp");
            if fixed_tmp || l.contains("/work/") || l.contains("../shared") {
                bad.push(format!("{rel}:{}: {}", i + 1, l.trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "fixed scratch paths or paths of a development machine:\n{}",
        bad.join("\n")
    );
}

#[test]
fn readme_commands_run_in_a_public_clone() {
    let readme = read("README.md");
    let mut in_sh = false;
    let mut bad = Vec::new();
    for l in readme.lines() {
        if l.starts_with("```") {
            in_sh = l.starts_with("```sh");
            continue;
        }
        if !in_sh {
            continue;
        }
        if l.contains("../shared") || l.contains("/work/") || l.contains("/tmp/") {
            bad.push(l.to_string());
        }
        // Every file of the repository a command names exists.
        for w in l.split_whitespace() {
            let w = w.trim_matches(|c: char| c == '[' || c == ']' || c == '`');
            let in_repo = ["sample-traces/", "configs/", "scripts/"]
                .iter()
                .any(|d| w.starts_with(d));
            if in_repo && !root().join(w).exists() {
                bad.push(format!("{l}  ({w} is not in the repository)"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "README commands that need more than a clone:\n{}",
        bad.join("\n")
    );
}
