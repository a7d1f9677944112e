//! Traces checked, inputs bounded, messages that name the place (issue 37 items 7, 9, 11, 13),
//! end to end through the `warpweave` binary. Every bad input is made here from a small trace
//! that `gen` writes (nothing large is committed): a text trace cut at a block boundary, a block
//! twice, blocks and warps outside their bounds, unknown opcodes, copies and tracer versions no
//! reader knows, devices, FIFOs and oversized files, lines longer than any trace line.

use std::path::{Path, PathBuf};

use super::{fails_with as fails, ok, run, tmp};
use warpweave::trace::model::MemTrace;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// vecadd of 4096 elements in blocks of 128: 32 CTAs of 4 warps, as an Accel-Sim folder.
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

/// The same kernel in memory, to write edited compact files.
fn model() -> MemTrace {
    let p = warpweave::workload::Params::parse(&["n=4096"]).unwrap();
    warpweave::workload::generate("vecadd", &p).unwrap()
}

fn write_compact(p: &Path, m: &mut MemTrace) {
    std::fs::write(p, warpweave::workload::output::compact_bytes(m).unwrap()).unwrap();
}

/// The kernel file of a text trace, and its text.
fn kernel(t: &Path) -> (PathBuf, String) {
    let k = t.join("kernel-1.traceg");
    let text = std::fs::read_to_string(&k).unwrap();
    (k, text)
}

/// 1-based number of the first line of `text` that satisfies `f`.
fn line_of(text: &str, f: impl Fn(&str) -> bool) -> usize {
    text.lines().position(f).expect("a matching line") + 1
}

fn warnings(json: &Path) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    let w = if v.is_array() {
        &v[0]["warnings"]
    } else {
        &v["warnings"]
    };
    w.as_array()
        .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn a_trace_cut_at_a_block_boundary_is_refused_unless_partial_runs_are_allowed() {
    let d = tmp("partial");
    let t = text_trace(&d);
    let (k, text) = kernel(&t);
    let blocks: Vec<&str> = text.split_inclusive("#END_TB\n").collect();
    assert_eq!(blocks.len(), 32);
    let cut: String = blocks[..3].concat();
    std::fs::write(&k, &cut).unwrap();
    let last = cut.lines().count();
    let need = [
        &format!("kernel-1.traceg:{last}") as &str,
        "29 of 32 CTAs are missing",
        "--allow-partial",
    ];
    fails(&["run", "-q", "--trace", s(&t)], &need);
    fails(&["info", s(&t)], &need);
    fails(
        &["compare", "--trace", s(&t), "--modes", "cycle,memory"],
        &need,
    );
    let warn = "29 of 32 CTAs missing from the trace (--allow-partial: the 3 present are used)";
    let j = d.join("r.json");
    let out = ok(&[
        "run",
        "-q",
        "--trace",
        s(&t),
        "--allow-partial",
        "--json",
        s(&j),
    ]);
    assert!(out.contains(warn), "{out}");
    assert_eq!(warnings(&j).len(), 1);
    assert!(warnings(&j)[0].ends_with(warn), "{:?}", warnings(&j));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&j).unwrap()).unwrap();
    assert_eq!(
        v["warp_insts"],
        3 * 4 * 16,
        "the CTAs present are simulated"
    );
    assert!(ok(&["info", s(&t), "--allow-partial"]).contains(warn));
    let c = d.join("c.json");
    ok(&[
        "compare",
        "--trace",
        s(&t),
        "--modes",
        "cycle,memory",
        "--allow-partial",
        "--json",
        s(&c),
    ]);
    assert!(warnings(&c)[0].ends_with(warn), "{:?}", warnings(&c));
    let m = ok(&[
        "run",
        "-q",
        "--trace",
        s(&t),
        "--mode",
        "memory",
        "--allow-partial",
    ]);
    assert!(m.contains(warn), "{m}");
    // Converted as it is, the compact file is refused the same way (naming the kernel).
    let w = d.join("cut.wwt");
    ok(&["convert", s(&t), "-o", s(&w)]);
    fails(
        &["run", "-q", "--trace", s(&w)],
        &[
            "cut.wwt: kernel 0: kernel `_Z6vecadd",
            "29 of 32 CTAs are missing",
        ],
    );
    let j2 = d.join("r2.json");
    ok(&[
        "run",
        "-q",
        "--trace",
        s(&w),
        "--allow-partial",
        "--json",
        s(&j2),
    ]);
    assert_eq!(warnings(&j2), warnings(&j));
}

#[test]
fn blocks_twice_or_outside_their_bounds_are_refused_by_both_readers() {
    let d = tmp("blocks");
    let t = text_trace(&d);
    let (k, text) = kernel(&t);
    // Text: the first block again at the end; the error names its second `thread block` line.
    let first = &text[text.find("#BEGIN_TB").unwrap()..text.find("#END_TB\n").unwrap() + 8];
    let twice = format!("{text}{first}");
    let second = text.lines().count() + line_of(first, |l| l.starts_with("thread block"));
    std::fs::write(&k, &twice).unwrap();
    fails(
        &["run", "-q", "--trace", s(&t)],
        &[
            &format!("kernel-1.traceg:{second}: thread block"),
            "block 0,0,0 appears twice in kernel `_Z6vecadd",
        ],
    );
    // Text: a block x of 2^31 + 5, a warp id of 99999, a grid of zero.
    let tb = line_of(&text, |l| l.starts_with("thread block"));
    let warp = line_of(&text, |l| l.starts_with("warp ="));
    let grid = line_of(&text, |l| l.starts_with("-grid dim"));
    for (from, to, line, needle) in [
        (
            "thread block = 0,0,0",
            "thread block = 2147483653,0,0",
            tb,
            "block 2147483653,0,0 is outside the grid (32,1,1)",
        ),
        (
            "warp = 0",
            "warp = 99999",
            warp,
            "warp 99999 but a block has 4 warps",
        ),
        (
            "-grid dim = (32,1,1)",
            "-grid dim = (0,1,1)",
            grid,
            "(0,1,1): expected (x,y,z) with x, y, z >= 1",
        ),
    ] {
        std::fs::write(&k, text.replacen(from, to, 1)).unwrap();
        fails(
            &["run", "-q", "--trace", s(&t)],
            &[&format!("kernel-1.traceg:{line}"), needle],
        );
    }
    // Compact: the same edits, written by the library's writer, named by kernel and chunk.
    type Edit = fn(&mut MemTrace);
    let cases: [(&str, Edit, &[&str]); 5] = [
        (
            "twice",
            |m| m.kernels[0].ctas[20].id = m.kernels[0].ctas[3].id,
            &[
                "twice.wwt: kernel 0 chunk",
                "block 3,0,0 appears twice in kernel `_Z6vecadd",
            ],
        ),
        (
            "grid1",
            |m| m.kernels[0].info.grid.x = 1,
            &[
                "grid1.wwt: kernel 0 chunk index",
                "32 CTAs in kernel",
                "more than the 1 of its grid",
            ],
        ),
        (
            "outside",
            |m| m.kernels[0].ctas[0].id.x = (1 << 31) + 5,
            &[
                "outside.wwt: kernel 0 chunk 0 at byte",
                "outside the grid (32,1,1)",
            ],
        ),
        (
            "warp",
            |m| m.kernels[0].ctas[0].warps[0].warp_id = 99_999,
            &[
                "warp.wwt: kernel 0 chunk 0 at byte",
                "warp 99999 but a block has 4 warps",
            ],
        ),
        (
            "grid0",
            |m| m.kernels[0].info.grid.x = 0,
            &["grid0.wwt", "`grid dim`", ">= 1"],
        ),
    ];
    for (name, edit, needles) in cases {
        let mut m = model();
        edit(&mut m);
        let p = d.join(format!("{name}.wwt"));
        write_compact(&p, &mut m);
        fails(&["run", "-q", "--trace", s(&p)], needles);
        // Not even allowed as a partial run.
        fails(&["run", "-q", "--trace", s(&p), "--allow-partial"], needles);
    }
}

#[test]
fn unknown_opcodes_are_refused_unless_warned_and_then_named_in_the_warnings() {
    let d = tmp("opcodes");
    let t = text_trace(&d);
    let (k, text) = kernel(&t);
    let at = line_of(&text, |l| l.contains(" IMAD"));
    for (op, shown) in [("FOOBAR.X", "FOOBAR.X"), ("IMAD.\0X", "IMAD.\\0X")] {
        std::fs::write(&k, text.replacen("IMAD", op, 1)).unwrap();
        fails(
            &["run", "-q", "--trace", s(&t)],
            &[
                &format!("kernel-1.traceg:{at}: opcode: unknown opcode `{shown}"),
                "--unknown-opcodes=warn",
            ],
        );
    }
    // FOOBAR.X from here on.
    std::fs::write(&k, text.replacen("IMAD", "FOOBAR.X", 1)).unwrap();
    let warn = "unknown opcode `FOOBAR.X` simulated as integer ALU instructions";
    let j = d.join("w.json");
    let out = ok(&[
        "run",
        "-q",
        "--trace",
        s(&t),
        "--unknown-opcodes=warn",
        "--json",
        s(&j),
    ]);
    assert!(out.contains(warn), "{out}");
    assert!(
        warnings(&j).iter().any(|w| w.contains(warn)),
        "{:?}",
        warnings(&j)
    );
    let c = d.join("c.json");
    fails(
        &["compare", "--trace", s(&t), "--modes", "cycle"],
        &["FOOBAR.X"],
    );
    ok(&[
        "compare",
        "--trace",
        s(&t),
        "--modes",
        "cycle",
        "--unknown-opcodes",
        "warn",
        "--json",
        s(&c),
    ]);
    assert!(warnings(&c)[0].contains(warn), "{:?}", warnings(&c));
    // `info` lists them whatever the flag.
    assert!(ok(&["info", s(&t)]).contains("unknown opcodes: 1 warp instructions (FOOBAR.X x1)"));
    // Compact: kernel and opcode.
    let w = d.join("u.wwt");
    ok(&["convert", s(&t), "-o", s(&w)]);
    fails(
        &["run", "-q", "--trace", s(&w)],
        &["u.wwt: kernel 0 `_Z6vecadd", "unknown opcode `FOOBAR.X`"],
    );
    ok(&["run", "-q", "--trace", s(&w), "--unknown-opcodes", "warn"]);
    fails(
        &["run", "-q", "--trace", s(&w), "--unknown-opcodes", "maybe"],
        &["--unknown-opcodes"],
    );
    // A sweep over the trace: refused, and run with the flag.
    let plan = d.join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "name = \"u\"\ngpu = \"teaching\"\n[set]\n\"gpu.num_sms\" = 1\n[[workload]]\ntrace = \"{}\"\n[axes]\n\"sm.subcores\" = [1, 2]\n",
            s(&w)
        ),
    )
    .unwrap();
    fails(
        &["sweep", "-q", s(&plan), "--out", s(&d.join("s1"))],
        &["unknown opcode `FOOBAR.X`"],
    );
    ok(&[
        "sweep",
        "-q",
        s(&plan),
        "--out",
        s(&d.join("s2")),
        "--unknown-opcodes",
        "warn",
    ]);
    // ... and a SLURM sweep passes the flag to every task.
    ok(&[
        "sweep",
        s(&plan),
        "--emit",
        "slurm",
        s(&d.join("slurm")),
        "--unknown-opcodes=warn",
        "--allow-partial",
    ]);
    let script = std::fs::read_to_string(d.join("slurm/sweep.sbatch")).unwrap();
    assert!(
        script.contains("'--unknown-opcodes' 'warn' '--allow-partial'"),
        "{script}"
    );
}

#[test]
fn copies_no_gpu_takes_and_newer_tracers_are_refused_by_both_readers() {
    let d = tmp("copies");
    let t = text_trace(&d);
    let list = t.join("kernelslist.g");
    std::fs::write(
        &list,
        "MemcpyHtoD,0x1000,9223372036854775808\nkernel-1.traceg\n",
    )
    .unwrap();
    let too_big = "a copy of 9223372036854775808 bytes: more than any GPU's memory";
    fails(
        &["run", "-q", "--trace", s(&t)],
        &["kernelslist.g:1: MemcpyHtoD bytes", too_big],
    );
    let mut m = model();
    m.commands.insert(
        0,
        warpweave::trace::model::Command::MemcpyHtoD {
            addr: 0x1000,
            bytes: 1 << 63,
        },
    );
    let p = d.join("copy.wwt");
    write_compact(&p, &mut m);
    fails(
        &["run", "-q", "--trace", s(&p)],
        &["copy.wwt", "memcpy bytes", too_big],
    );
    // Tracer version 99: the same words from both readers.
    let (k, text) = kernel(&t);
    std::fs::write(&list, "kernel-1.traceg\n").unwrap();
    let v99: String = text
        .lines()
        .map(|l| match l.starts_with("-accelsim tracer version") {
            true => "-accelsim tracer version = 99\n".to_string(),
            false => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&k, v99).unwrap();
    let mut m = model();
    m.kernels[0].info.tracer_version = 99;
    let p = d.join("v99.wwt");
    write_compact(&p, &mut m);
    let tail = |e: String| e.trim_end().rsplit(": ").next().unwrap().to_string();
    let a = tail(fails(
        &["run", "-q", "--trace", s(&t)],
        &["kernel-1.traceg"],
    ));
    let b = tail(fails(&["run", "-q", "--trace", s(&p)], &["v99.wwt"]));
    assert_eq!(a, "99 is newer than this reader knows (0..=5)");
    assert_eq!(a, b);
}

#[test]
fn thread_counts_above_the_cores_are_capped_with_a_note_and_the_same_result() {
    let d = tmp("threads");
    let t = text_trace(&d);
    let (one, many) = (d.join("1.json"), d.join("many.json"));
    ok(&[
        "run",
        "-q",
        "--trace",
        s(&t),
        "--threads",
        "1",
        "--json",
        s(&one),
    ]);
    let t0 = std::time::Instant::now();
    let o = run(&[
        "run",
        "-q",
        "--trace",
        s(&t),
        "--threads",
        "10000",
        "--json",
        s(&many),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        t0.elapsed().as_secs() < 30,
        "10000 threads were not started"
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(
        err.contains(&format!(
            "note: --threads 10000 is more than the {cores} core"
        )),
        "{err}"
    );
    let numbers = |p: &Path| {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
        (
            v["cycles"].clone(),
            v["warp_insts"].clone(),
            v["kernels"].clone(),
        )
    };
    assert_eq!(numbers(&one), numbers(&many));
}

#[test]
fn only_regular_files_are_read_and_oversized_ones_are_refused_unread() {
    let d = tmp("files");
    let t = text_trace(&d);
    let wwt = d.join("v.wwt");
    write_compact(&wwt, &mut model());
    let not_regular = "not a regular file";
    // A device as the GPU file, the trace, or a kernel file inside a trace folder.
    fails(
        &["run", "-q", "--gpu", "/dev/zero", "--trace", s(&wwt)],
        &["/dev/zero", "character device", not_regular],
    );
    fails(
        &["run", "-q", "--trace", "/dev/zero"],
        &["/dev/zero", not_regular],
    );
    let z = d.join("zero");
    std::fs::create_dir_all(&z).unwrap();
    std::fs::copy(t.join("kernelslist.g"), z.join("kernelslist.g")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", z.join("kernel-1.traceg")).unwrap();
    fails(
        &["run", "-q", "--trace", s(&z)],
        &["zero/kernel-1.traceg", not_regular],
    );
    // A device as a SASS listing or as Compute Sanitizer records.
    let out = d.join("out.wwt");
    fails(
        &["annotate", s(&wwt), "--sass", "/dev/zero", "-o", s(&out)],
        &["/dev/zero", not_regular],
    );
    fails(
        &[
            "import-sanitizer",
            "--records",
            "/dev/zero",
            "--sass",
            "/dev/zero",
            "-o",
            s(&d.join("imp")),
        ],
        &["/dev/zero", not_regular],
    );
    // A FIFO: refused before it is opened (opening would wait for a writer).
    let fifo = d.join("fifo.wwt");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        fails(
            &["run", "-q", "--trace", s(&fifo)],
            &["fifo.wwt", "a FIFO", not_regular],
        );
        fails(&["info", s(&fifo)], &["fifo.wwt", "a FIFO"]);
    }
    // A 50 MB GPU TOML (sparse: nothing written) is refused by its size, unread.
    let big = d.join("big.toml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(50_000_000)
        .unwrap();
    fails(
        &["run", "-q", "--gpu", s(&big), "--trace", s(&wwt)],
        &[
            "big.toml",
            "50000000 bytes: larger than any GPU TOML (at most 1048576)",
        ],
    );
    fails(
        &["config", "show", s(&big)],
        &["big.toml", "larger than any GPU TOML"],
    );
    // A line of 100 KB in a kernel file: refused at its number.
    let (k, text) = kernel(&t);
    let long = format!("-kernel name = {}", "k".repeat(100_000));
    std::fs::write(
        &k,
        text.replacen("-kernel name = ", &format!("{long}\n-x = "), 1),
    )
    .unwrap();
    let line = line_of(&text, |l| l.starts_with("-kernel name"));
    let err = fails(
        &["run", "-q", "--trace", s(&t)],
        &[&format!(
            "kernel-1.traceg:{line}: line: longer than 65536 bytes"
        )],
    );
    assert!(err.len() < 1000, "{err}");
}

#[test]
fn messages_name_the_line_cut_long_names_and_say_what_the_file_is() {
    let d = tmp("messages");
    let t = text_trace(&d);
    // Kernels-list lines that are neither a launch nor a copy.
    for (list, line) in [
        ("kernel-1.traceg\nkernelfoo\n", 2),
        ("MemcpyHtoD,0x1000,64\nMemcpy what\nkernel-1.traceg\n", 2),
        ("kernel-1.txt\n", 1),
    ] {
        std::fs::write(t.join("kernelslist.g"), list).unwrap();
        fails(
            &["run", "-q", "--trace", s(&t)],
            &[
                &format!("kernelslist.g:{line}: kernelslist line"),
                "expected a kernel file",
            ],
        );
    }
    std::fs::write(t.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    // A 10 MB kernel name is cut in messages.
    let mut m = model();
    m.kernels[0].info.name = "n".repeat(10_000_000);
    m.kernels[0].ctas.truncate(5);
    let p = d.join("longname.wwt");
    write_compact(&p, &mut m);
    let err = fails(
        &["run", "-q", "--trace", s(&p)],
        &["27 of 32 CTAs are missing"],
    );
    assert!(err.len() < 1000, "the name is cut: {} bytes", err.len());
    assert!(err.contains(&format!("`{}...`", "n".repeat(200))), "{err}");
    // An empty .wwt, and a compact file with bytes after its end.
    let empty = d.join("empty.wwt");
    std::fs::write(&empty, b"").unwrap();
    fails(
        &["run", "-q", "--trace", s(&empty)],
        &["empty.wwt", "an empty compact file"],
    );
    let good = d.join("v.wwt");
    write_compact(&good, &mut model());
    let mut bytes = std::fs::read(&good).unwrap();
    let end = bytes.len();
    bytes.extend_from_slice(b"appended");
    let tail = d.join("tail.wwt");
    std::fs::write(&tail, &bytes).unwrap();
    let err = fails(
        &["run", "-q", "--trace", s(&tail)],
        &[&format!(
            "tail.wwt: trailing data at byte {end}: 8 bytes after the end"
        )],
    );
    assert!(!err.contains("truncated"), "{err}");
    // A TOML array where a number belongs names the key.
    let g = d.join("g.toml");
    std::fs::write(&g, "[gpu]\nnum_sms = [1, 2]\n").unwrap();
    fails(
        &["run", "-q", "--gpu", s(&g), "--trace", s(&good)],
        &["g.toml:2: gpu.num_sms: invalid type: sequence"],
    );
}
