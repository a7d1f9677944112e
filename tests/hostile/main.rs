//! Bad, hostile and huge inputs against the `warpweave` binary, by class: outputs that are
//! inputs, decompression bombs, devices and oversized files, paths out of the trace folder,
//! broken traces (text and compact, cut and flipped), GPU files and Accel-Sim configs that say
//! nothing or nonsense, absurd thread counts; blocks and compact directories larger than any
//! trace needs (`bounds.rs`).
//!
//! Every input is generated here from a small trace (a bomb is a few MB on disk at most, made of
//! repeated compressed members or a crafted header); nothing large is committed. Each case runs
//! under a time limit and, when it must be refused, with its data segment capped at 200 MB
//! (`RLIMIT_DATA`: an allocation past it aborts the run, which fails the case). Every case checks:
//! no panic, no abort or signal, no hang, every file it was given unchanged, and for a refusal a
//! non-zero exit whose message names the file and the line, key, field or byte.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod bounds;

/// What a case may take: the wall time, and the data segment of a refused run.
const TIME_LIMIT: Duration = Duration::from_secs(30);
const MEMORY_LIMIT: u64 = 200 << 20;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpweave-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What a case must do.
enum Expect<'a> {
    /// A non-zero exit whose message holds `file` followed by a place (`:<line>:` or
    /// `: <key or field>:`) and each of the needles.
    Refused {
        file: &'a str,
        needles: &'a [&'a str],
    },
    /// A non-zero exit, before anything ran, naming the output (its option and path) that is
    /// one of the inputs.
    OutputIsInput { file: &'a str },
    /// A zero exit.
    Accepted,
    /// Either, but never a panic, an abort or a hang (byte flips that may land in free text).
    Either,
}

/// Every regular file under `d` (links not followed) with its bytes' FNV-64 and length.
fn snapshot(d: &Path) -> BTreeMap<PathBuf, (u64, u64)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![d.to_path_buf()];
    while let Some(p) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&p) else {
            continue;
        };
        for e in rd.flatten() {
            let t = e.file_type().unwrap();
            let path = e.path();
            if t.is_dir() {
                stack.push(path);
            } else if t.is_file() {
                let meta = e.metadata().unwrap();
                // (Sparse giants are compared by length: reading them is what the tool must not do.)
                let h = if meta.len() > 64 << 20 {
                    0
                } else {
                    let mut h = warpweave::trace::Fnv64::new();
                    h.write(&std::fs::read(&path).unwrap());
                    h.finish()
                };
                out.insert(path, (h, meta.len()));
            }
        }
    }
    out
}

/// Runs `warpweave args` in the case folder `d` and checks it against `expect`; `outputs` are
/// the files the run may create or change. Returns stderr.
fn case(d: &Path, name: &str, args: &[&str], expect: Expect, outputs: &[&Path]) -> String {
    let before = snapshot(d);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_warpweave"));
    cmd.args(args)
        .current_dir(d)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if !matches!(expect, Expect::Accepted) {
        use std::os::unix::process::CommandExt;
        // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                let lim = libc::rlimit {
                    rlim_cur: MEMORY_LIMIT,
                    rlim_max: MEMORY_LIMIT,
                };
                if libc::setrlimit(libc::RLIMIT_DATA, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let start = Instant::now();
    let mut child = cmd.spawn().expect("warpweave starts");
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut v);
        v
    });
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{name}: still running after {TIME_LIMIT:?}: warpweave {args:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let err = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    let what = format!("{name}: warpweave {args:?}");
    assert!(!err.contains("panicked"), "{what} panicked: {err}");
    assert!(
        status.code().is_some(),
        "{what} ended by a signal (abort, memory over {MEMORY_LIMIT} bytes?): {status:?} {err}"
    );
    assert!(
        err.len() < 4000,
        "{what}: a message of {} bytes (inputs are cut in messages)",
        err.len()
    );
    match expect {
        Expect::Accepted => assert!(status.success(), "{what} failed: {err}"),
        Expect::OutputIsInput { file } => {
            assert!(!status.success(), "{what} should be refused");
            assert!(
                err.contains(file) && err.contains("is the input"),
                "{what}: the error names the output that is an input: {err}"
            );
        }
        Expect::Either => {}
        Expect::Refused { file, needles } => {
            assert!(!status.success(), "{what} should be refused");
            assert!(
                names_place(&err, file),
                "{what}: the error names no place in `{file}`: {err}"
            );
            for n in needles {
                assert!(err.contains(n), "{what}: the error should say `{n}`: {err}");
            }
        }
    }
    // Nothing the run was given changed: only its outputs may be new or different.
    let after = snapshot(d);
    for (p, h) in &before {
        if outputs.iter().any(|o| o == p) {
            continue;
        }
        assert_eq!(
            after.get(p),
            Some(h),
            "{what} changed or removed {}",
            p.display()
        );
    }
    for p in after.keys() {
        assert!(
            before.contains_key(p) || outputs.iter().any(|o| o == p),
            "{what} left {} behind",
            p.display()
        );
    }
    err
}

/// Whether `err` names `file` followed by a place: `file:<line>:` or `file: <key>: ` (a key,
/// field, region or byte offset; line 0 is left out of messages).
fn names_place(err: &str, file: &str) -> bool {
    err.match_indices(file).any(|(i, _)| {
        let rest = &err[i + file.len()..];
        let Some(rest) = rest.strip_prefix(':') else {
            return false;
        };
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 {
            return rest[digits..].starts_with(':');
        }
        rest.strip_prefix(' ')
            .and_then(|r| r.find(": ").map(|j| j > 0 && !r[..j].contains('\n')))
            .unwrap_or(false)
    })
}

/// vecadd of 1024 elements in blocks of 128 as an Accel-Sim folder (`t/`) and a compact file
/// (`v.wwt`), in `d`.
fn traces(d: &Path) -> (PathBuf, PathBuf) {
    let p = warpweave::workload::Params::parse(&["n=1024"]).unwrap();
    let mut m = warpweave::workload::generate("vecadd", &p).unwrap();
    let t = d.join("t");
    std::fs::create_dir_all(&t).unwrap();
    for (name, bytes) in warpweave::workload::output::text_files(&m).unwrap() {
        std::fs::write(t.join(name), bytes).unwrap();
    }
    let wwt = d.join("v.wwt");
    std::fs::write(
        &wwt,
        warpweave::workload::output::compact_bytes(&mut m).unwrap(),
    )
    .unwrap();
    (t, wwt)
}

/// A folder `d/name` whose kernels list names one kernel file, `kernel-1.traceg<suffix>`,
/// holding `bytes`.
fn folder(d: &Path, name: &str, suffix: &str, bytes: &[u8]) -> PathBuf {
    let f = d.join(name);
    std::fs::create_dir_all(&f).unwrap();
    std::fs::write(f.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    std::fs::write(f.join(format!("kernel-1.traceg{suffix}")), bytes).unwrap();
    f
}

/// A gzip file that expands to `members` times `unit` bytes of `byte`: one compressed member
/// repeated (gzip readers read concatenated members as one stream).
fn gzip_bomb(byte: u8, unit: usize, members: usize) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(&vec![byte; unit]).unwrap();
    e.finish().unwrap().repeat(members)
}

/// A zstd frame of `n` bytes of `byte`, compressed as it is written.
fn zstd_bomb(byte: u8, n: usize) -> Vec<u8> {
    let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    let block = vec![byte; 1 << 20];
    for _ in 0..n >> 20 {
        e.write_all(&block).unwrap();
    }
    e.finish().unwrap()
}

#[test]
fn outputs_that_are_inputs_are_refused_and_the_inputs_kept() {
    let d = tmp("outputs");
    let (t, wwt) = traces(&d);
    let k = t.join("kernel-1.traceg");
    case(
        &d,
        "convert onto its own compact input",
        &["convert", s(&wwt), "--to", "compact", "-o", s(&wwt)],
        Expect::OutputIsInput { file: "v.wwt" },
        &[],
    );
    case(
        &d,
        "convert onto its own kernel file",
        &["convert", s(&k), "-o", s(&k)],
        Expect::OutputIsInput {
            file: "kernel-1.traceg",
        },
        &[],
    );
    case(
        &d,
        "result JSON onto the trace",
        &["run", "-q", "--trace", s(&wwt), "--json", s(&wwt)],
        Expect::OutputIsInput { file: "v.wwt" },
        &[],
    );
    let a = d.join("a.config");
    std::fs::write(&a, "-gpgpu_n_clusters 4\n").unwrap();
    let tc = d.join("t.config");
    std::fs::write(&tc, "").unwrap();
    case(
        &d,
        "config import onto its input",
        &["config", "import", "-o", s(&a), s(&a), s(&tc)],
        Expect::OutputIsInput { file: "a.config" },
        &[],
    );
    // And the inputs still read: a sanity run of the generated traces.
    let j = d.join("r.json");
    case(
        &d,
        "the generated trace runs",
        &["run", "-q", "--trace", s(&t), "--json", s(&j)],
        Expect::Accepted,
        &[&j],
    );
}

#[test]
fn decompression_bombs_are_refused_early_in_bounded_memory() {
    let d = tmp("bombs");
    let huge_line = "longer than 65536 bytes";
    let idle = "4097 empty or comment lines in a row";
    // 3 GiB of zeros and of newlines in a ~3 MB gzip; 1 GiB of each as zstd; xz of newlines.
    let gz_zeros = folder(&d, "gz-zeros", ".gz", &gzip_bomb(0, 16 << 20, 192));
    let gz_lines = folder(&d, "gz-lines", ".gz", &gzip_bomb(b'\n', 16 << 20, 192));
    let zst_zeros = folder(&d, "zst-zeros", ".zst", &zstd_bomb(0, 1 << 30));
    let zst_lines = folder(&d, "zst-lines", ".zst", &zstd_bomb(b'\n', 1 << 30));
    let mut xz = Vec::new();
    lzma_rs::xz_compress(&mut &vec![b'\n'; 1 << 16][..], &mut xz).unwrap();
    let xz_lines = folder(&d, "xz-lines", ".xz", &xz);
    for (f, file, needle) in [
        (&gz_zeros, "gz-zeros/kernel-1.traceg.gz:1", huge_line),
        (&gz_lines, "gz-lines/kernel-1.traceg.gz:4097", idle),
        (&zst_zeros, "zst-zeros/kernel-1.traceg.zst:1", huge_line),
        (&zst_lines, "zst-lines/kernel-1.traceg.zst:4097", idle),
        (&xz_lines, "xz-lines/kernel-1.traceg.xz:4097", idle),
    ] {
        for cmd in ["run", "info", "convert"] {
            let out = d.join("out.wwt");
            let mut args = vec![cmd, s(f)];
            match cmd {
                "run" => args.splice(1..1, ["-q", "--trace"]).for_each(drop),
                "convert" => args.extend(["-o", s(&out)]),
                _ => {}
            }
            case(
                &d,
                &format!("{cmd} {file}"),
                &args,
                Expect::Refused {
                    file,
                    needles: &[needle],
                },
                &[],
            );
        }
    }
    // A single kernel file given directly.
    let single = d.join("kernel-7.traceg.gz");
    std::fs::copy(gz_lines.join("kernel-1.traceg.gz"), &single).unwrap();
    case(
        &d,
        "a gzip of newlines as the trace",
        &["run", "-q", "--trace", s(&single)],
        Expect::Refused {
            file: "kernel-7.traceg.gz:4097",
            needles: &[idle],
        },
        &[],
    );
    // Headers asking for more memory than any trace needs: refused before decoding.
    let mut zst = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 20 << 3];
    zst.extend_from_slice(&zstd_bomb(b'\n', 1 << 20)[6..]);
    let big_window = folder(&d, "zst-window", ".zst", &zst);
    case(
        &d,
        "a zstd window of 1 GiB",
        &["run", "-q", "--trace", s(&big_window)],
        Expect::Refused {
            file: "zst-window/kernel-1.traceg.zst",
            needles: &["zstd frame: a window of 1073741824 bytes"],
        },
        &[],
    );
    // A header of 2 MB and a comment-only stream.
    let head: String = (0..40_000)
        .map(|i| format!("-x{i} = {}\n", "v".repeat(40)))
        .collect();
    let big_head = folder(&d, "head", "", head.as_bytes());
    case(
        &d,
        "a header of 2 MB",
        &["run", "-q", "--trace", s(&big_head)],
        Expect::Refused {
            file: "head/kernel-1.traceg",
            needles: &["header: more than 1048576 bytes of header"],
        },
        &[],
    );
    let comments = folder(&d, "comments", ".gz", &gzip_bomb(b'#', 1 << 20, 4));
    case(
        &d,
        "a line of a million `#`",
        &["run", "-q", "--trace", s(&comments)],
        Expect::Refused {
            file: "comments/kernel-1.traceg.gz:1",
            needles: &[huge_line],
        },
        &[],
    );
}

#[test]
fn devices_and_oversized_files_are_refused_unread() {
    let d = tmp("devices");
    let (t, wwt) = traces(&d);
    let not_regular = "not a regular file";
    case(
        &d,
        "the trace is /dev/zero",
        &["run", "-q", "--trace", "/dev/zero"],
        Expect::Refused {
            file: "/dev/zero",
            needles: &[not_regular],
        },
        &[],
    );
    case(
        &d,
        "the GPU file is /dev/zero",
        &["run", "-q", "--gpu", "/dev/zero", "--trace", s(&wwt)],
        Expect::Refused {
            file: "/dev/zero",
            needles: &[not_regular],
        },
        &[],
    );
    let z = d.join("z");
    std::fs::create_dir_all(&z).unwrap();
    std::fs::copy(t.join("kernelslist.g"), z.join("kernelslist.g")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", z.join("kernel-1.traceg")).unwrap();
    case(
        &d,
        "a kernel file linked to /dev/zero",
        &["run", "-q", "--trace", s(&z)],
        Expect::Refused {
            file: "z/kernel-1.traceg",
            needles: &[not_regular],
        },
        &[],
    );
    // Sparse giants: a 50 MB GPU TOML, a 3 GiB kernels list, a 3 GiB kernel file of zeros.
    let sparse = |p: &Path, n: u64| std::fs::File::create(p).unwrap().set_len(n).unwrap();
    let g = d.join("big.toml");
    sparse(&g, 50_000_000);
    case(
        &d,
        "a 50 MB GPU TOML",
        &["run", "-q", "--gpu", s(&g), "--trace", s(&wwt)],
        Expect::Refused {
            file: "big.toml",
            needles: &["larger than any GPU TOML"],
        },
        &[],
    );
    let kl = d.join("kl");
    std::fs::create_dir_all(&kl).unwrap();
    sparse(&kl.join("kernelslist.g"), 3 << 30);
    case(
        &d,
        "a 3 GiB kernels list",
        &["run", "-q", "--trace", s(&kl)],
        Expect::Refused {
            file: "kl/kernelslist.g",
            needles: &[],
        },
        &[],
    );
    let kz = d.join("kz");
    std::fs::create_dir_all(&kz).unwrap();
    std::fs::write(kz.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    sparse(&kz.join("kernel-1.traceg"), 3 << 30);
    case(
        &d,
        "a 3 GiB kernel file of zeros",
        &["run", "-q", "--trace", s(&kz)],
        Expect::Refused {
            file: "kz/kernel-1.traceg:1",
            needles: &["longer than 65536 bytes"],
        },
        &[],
    );
    // A sweep plan that is a device, or 50 MB.
    let plan = d.join("plan.toml");
    sparse(&plan, 50_000_000);
    let out = d.join("sweep-out");
    for p in ["/dev/zero", s(&plan)] {
        case(
            &d,
            &format!("the sweep plan {p}"),
            &["sweep", p, "--out", s(&out)],
            Expect::Refused {
                file: p,
                needles: &[],
            },
            &[],
        );
    }
    // Thousands of threads: capped at the cores, with a note, same result.
    let j = d.join("r.json");
    let err = case(
        &d,
        "10000 threads",
        &[
            "run",
            "-q",
            "--threads",
            "10000",
            "--trace",
            s(&wwt),
            "--json",
            s(&j),
        ],
        Expect::Accepted,
        &[&j],
    );
    assert!(
        err.contains("10000"),
        "a note says the count was capped: {err}"
    );
}

#[test]
fn kernel_files_outside_the_trace_folder_are_refused_naming_the_line() {
    let d = tmp("paths");
    let (t, _) = traces(&d);
    let outside = d.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::copy(t.join("kernel-1.traceg"), outside.join("kernel-1.traceg")).unwrap();
    std::os::unix::fs::symlink(outside.join("kernel-1.traceg"), t.join("kernel-9.traceg")).unwrap();
    let abs = outside.join("kernel-1.traceg");
    for (n, line) in [
        (1, "kernel-d/../../../../etc/passwd".to_string()),
        (2, "kernel-d/../../outside/kernel-1.traceg".to_string()),
        (3, s(&abs).to_string()),
    ] {
        let list = format!("{}{line}\n", "kernel-1.traceg\n".repeat(n - 1));
        std::fs::write(t.join("kernelslist.g"), &list).unwrap();
        let err = case(
            &d,
            &format!("kernels list line `{line}`"),
            &["run", "-q", "--trace", s(&t)],
            Expect::Refused {
                file: &format!("kernelslist.g:{n}"),
                needles: &[],
            },
            &[],
        );
        assert!(
            !err.contains("root:"),
            "nothing of the file is shown: {err}"
        );
    }
    // A kernel file linked to one outside the folder.
    std::fs::write(t.join("kernelslist.g"), "kernel-9.traceg\n").unwrap();
    case(
        &d,
        "a kernel file linked out of the folder",
        &["run", "-q", "--trace", s(&t)],
        Expect::Refused {
            file: "t/kernel-9.traceg",
            needles: &["outside the trace folder"],
        },
        &[],
    );
    // Lines that are neither a launch nor a copy.
    for (list, n) in [
        ("kernel-1.traceg\nkernelfoo\n", 2),
        ("Memcpy what\n", 1),
        ("MemcpyHtoD,0x1000,9223372036854775808\n", 1),
    ] {
        std::fs::write(t.join("kernelslist.g"), list).unwrap();
        case(
            &d,
            &format!("kernels list {list:?}"),
            &["run", "-q", "--trace", s(&t)],
            Expect::Refused {
                file: &format!("kernelslist.g:{n}"),
                needles: &[],
            },
            &[],
        );
    }
}

#[test]
fn broken_traces_are_refused_by_both_readers_naming_line_or_byte() {
    let d = tmp("broken");
    let (t, wwt) = traces(&d);
    let text = std::fs::read_to_string(t.join("kernel-1.traceg")).unwrap();
    let first_op = text
        .lines()
        .find(|l| l.starts_with("0000 "))
        .and_then(|l| l.split_whitespace().nth(4).map(str::to_string))
        .unwrap();
    let edits: Vec<(&str, String, String)> = vec![
        (
            "unknown opcode",
            text.replacen(&format!(" {first_op} "), " FOOBAR.X ", 1),
            "FOOBAR.X".into(),
        ),
        (
            "a NUL in an opcode",
            text.replacen(&format!(" {first_op} "), " FOO\0BAR ", 1),
            "opcode".into(),
        ),
        (
            "tracer version 99",
            text.replace(
                "-accelsim tracer version = 5",
                "-accelsim tracer version = 99",
            ),
            "accelsim tracer version".into(),
        ),
        (
            "warp id 99999",
            text.replacen("warp = 1\n", "warp = 99999\n", 1),
            "warp".into(),
        ),
        (
            "a block twice",
            {
                let b = text.find("#BEGIN_TB").unwrap();
                let e = text.find("#END_TB").unwrap() + "#END_TB\n".len();
                format!("{}{}", &text, &text[b..e])
            },
            "thread block".into(),
        ),
        (
            "cut at a block boundary",
            {
                let e = text.find("#END_TB").unwrap() + "#END_TB\n".len();
                text[..e].to_string()
            },
            "CTAs".into(),
        ),
        (
            "an instruction count that lies",
            text.replacen("insts = ", "insts = 1", 1),
            "insts".into(),
        ),
    ];
    for (name, body, needle) in &edits {
        let f = d.join(name.replace(' ', "-"));
        std::fs::create_dir_all(&f).unwrap();
        std::fs::copy(t.join("kernelslist.g"), f.join("kernelslist.g")).unwrap();
        std::fs::write(f.join("kernel-1.traceg"), body).unwrap();
        case(
            &d,
            name,
            &["run", "-q", "--trace", s(&f)],
            Expect::Refused {
                file: "kernel-1.traceg",
                needles: &[needle],
            },
            &[],
        );
    }
    // The compact file cut at 24 places, and 32 single bytes flipped: never a panic, an abort
    // or a hang; each cut refused naming the file and the byte or region.
    let bytes = std::fs::read(&wwt).unwrap();
    let n = bytes.len();
    for i in 0..24 {
        let at = n * i / 24;
        let p = d.join(format!("cut-{at}.wwt"));
        std::fs::write(&p, &bytes[..at]).unwrap();
        case(
            &d,
            &format!("compact cut at byte {at}"),
            &["run", "-q", "--trace", s(&p)],
            Expect::Refused {
                file: &format!("cut-{at}.wwt"),
                needles: &[],
            },
            &[],
        );
        std::fs::remove_file(&p).unwrap();
    }
    for i in 0..32 {
        let at = (n * i / 32 + 7) % n;
        let mut b = bytes.clone();
        b[at] ^= 0x5a;
        let p = d.join(format!("flip-{at}.wwt"));
        std::fs::write(&p, &b).unwrap();
        let j = d.join("flip.json");
        case(
            &d,
            &format!("compact byte {at} flipped"),
            &["run", "-q", "--trace", s(&p), "--json", s(&j)],
            Expect::Either,
            &[&j],
        );
        std::fs::remove_file(&p).unwrap();
        let _ = std::fs::remove_file(&j);
    }
    // Bytes after the end, and an empty file.
    let tail = d.join("tail.wwt");
    std::fs::write(&tail, [&bytes[..], b"appended"].concat()).unwrap();
    case(
        &d,
        "compact with bytes after its end",
        &["run", "-q", "--trace", s(&tail)],
        Expect::Refused {
            file: "tail.wwt",
            needles: &["trailing data"],
        },
        &[],
    );
    let empty = d.join("empty.wwt");
    std::fs::write(&empty, b"").unwrap();
    case(
        &d,
        "an empty compact file",
        &["run", "-q", "--trace", s(&empty)],
        Expect::Refused {
            file: "empty.wwt",
            needles: &["empty compact file"],
        },
        &[],
    );
}

#[test]
fn gpu_files_and_accel_sim_configs_that_say_nothing_or_nonsense_are_refused_naming_the_key() {
    let d = tmp("configs");
    let (_, wwt) = traces(&d);
    let toml = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    for (name, text, place, needle) in [
        (
            "empty.toml",
            "",
            "empty.toml",
            "base: a GPU file names the preset",
        ),
        (
            "partial.toml",
            "[gpu]\nnum_sms = 4\n",
            "partial.toml",
            "keys missing",
        ),
        (
            "array.toml",
            "base = \"h100\"\n[gpu]\nnum_sms = [1, 2]\n",
            "array.toml:3",
            "gpu.num_sms",
        ),
        (
            "huge.toml",
            "base = \"h100\"\n[gpu]\nnum_sms = 9223372036854775807\n",
            "huge.toml:3",
            "gpu.num_sms",
        ),
        (
            "negative.toml",
            "base = \"h100\"\n[l1d.cache]\nassoc = -1\n",
            "negative.toml:3",
            "l1d.cache.assoc",
        ),
        (
            "text.toml",
            "base = \"h100\"\n[gpu]\nnum_sms = \"many\"\n",
            "text.toml:3",
            "gpu.num_sms",
        ),
        (
            "nan.toml",
            "base = \"h100\"\n[clocks]\ncore_mhz = nan\n",
            "nan.toml:3",
            "clocks.core_mhz",
        ),
        (
            "base.toml",
            "base = \"gtx9999\"\n",
            "base.toml:1",
            "unknown GPU preset `gtx9999`",
        ),
        ("binary.toml", "\u{0}\u{1}\u{2}", "binary.toml", ""),
    ] {
        let g = toml(name, text);
        case(
            &d,
            name,
            &["run", "-q", "--gpu", s(&g), "--trace", s(&wwt)],
            Expect::Refused {
                file: place,
                needles: &[needle],
            },
            &[],
        );
    }
    // Accel-Sim import: no options, options out of range, and /dev/null.
    let out = d.join("out.toml");
    let tc = toml("trace.config", "");
    for (name, text, place, needle) in [
        ("empty.config", "", "empty.config", "sets no option"),
        (
            "comments.config",
            "# nothing\n\n",
            "comments.config",
            "sets no option",
        ),
        (
            "zero.config",
            "-gpgpu_n_clusters 4\n-gpgpu_n_cores_per_cluster 0\n",
            "zero.config:2",
            "gpu.num_sms",
        ),
        (
            "word.config",
            "-gpgpu_n_mem many\n",
            "word.config:1",
            "-gpgpu_n_mem",
        ),
    ] {
        let c = toml(name, text);
        case(
            &d,
            name,
            &["config", "import", s(&c), s(&tc), "-o", s(&out)],
            Expect::Refused {
                file: place,
                needles: &[needle],
            },
            &[],
        );
    }
    case(
        &d,
        "config import /dev/null",
        &["config", "import", "/dev/null", "/dev/null", "-o", s(&out)],
        Expect::Refused {
            file: "/dev/null",
            needles: &["not a regular file"],
        },
        &[],
    );
}

#[test]
fn an_edited_prepass_file_is_recomputed_not_trusted() {
    let d = tmp("prepass");
    let (t, _) = traces(&d);
    let cache = d.join("cache");
    let j = d.join("r.json");
    let cycles = |j: &Path| {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(j).unwrap()).unwrap();
        v["cycles"].as_u64().unwrap()
    };
    let args = [
        "run",
        "-q",
        "--mode",
        "fast",
        "--prepass-cache",
        s(&cache),
        "--trace",
        s(&t),
        "--json",
        s(&j),
    ];
    let run = |name: &str, outputs: &[&Path]| case(&d, name, &args, Expect::Accepted, outputs);
    let file = |c: &Path| {
        std::fs::read_dir(c)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "json"))
            .unwrap()
    };
    // (The first run writes the cache file; its name is its key.)
    std::fs::create_dir_all(&cache).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_warpweave"));
    assert!(cmd.args(args).status().unwrap().success());
    let f = file(&cache);
    let fresh = cycles(&j);
    // Every rate edited to another value in range: the run recomputes and gives the same cycles.
    let text = std::fs::read_to_string(&f).unwrap();
    let edited = text
        .replace("\"l1_hit_rate\":0.0", "\"l1_hit_rate\":1.0")
        .replace("\"l2_hit_rate\":1.0", "\"l2_hit_rate\":0.0");
    assert_ne!(edited, text, "the pre-pass has rates to edit: {text}");
    std::fs::write(&f, &edited).unwrap();
    run("an edited pre-pass file", &[&j, &f]);
    assert_eq!(cycles(&j), fresh);
    assert_eq!(
        std::fs::read_to_string(&f).unwrap(),
        text,
        "rewritten as computed"
    );
}
