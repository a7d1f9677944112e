//! The text reader's part of `trace::check`: kernels with blocks missing, a block twice,
//! unknown opcodes (a NUL inside one too), lines longer than any trace line, copies no GPU
//! takes and kernels-list lines that are no command; each named by file and line.

use super::tests::{err, read, v4};
use super::*;
use crate::trace::check::Policy;
use crate::trace::opcodes::Arch;

#[test]
fn kernelslist_copies_no_gpu_takes_and_lines_that_are_no_command_are_refused() {
    let e = |t: &[u8]| parse_kernelslist(t, "kl").unwrap_err().to_string();
    assert!(
        e(b"MemcpyHtoD,0x1000,9223372036854775808\n").starts_with(
            "kl:1: MemcpyHtoD bytes: a copy of 9223372036854775808 bytes: more than any GPU's memory"
        ),
        "{}",
        e(b"MemcpyHtoD,0x1000,9223372036854775808\n")
    );
    assert!(e(b"\nMemcpyHtoD,0xffffffffffffff00,4096\n")
        .contains("kl:2: MemcpyHtoD bytes: 4096 bytes at"));
    // A `kernel...` line that names no kernel file, and a copy line of no known shape.
    for (text, line) in [
        (&b"kernel-1.traceg\nkernelfoo\n"[..], 2),
        (b"kernel-1.txt\n", 1),
        (b"kernel-1.traceg\nMemcpy garbage\n", 2),
    ] {
        let m = e(text);
        assert!(
            m.starts_with(&format!(
                "kl:{line}: kernelslist line: expected a kernel file"
            )),
            "{m}"
        );
    }
    // Copies other than host-to-device and comments are still skipped.
    let (c, n) = parse_kernelslist(b"# c\nMemcpyDtoD,0x1,4\nkernel-2.traceg.xz\n", "kl").unwrap();
    assert_eq!((c.len(), n.len()), (1, 1));
}

#[test]
fn partial_duplicated_and_unknown_are_refused_naming_file_and_line() {
    let strict = |t: &str| {
        read_kernel_bytes(t.as_bytes(), "kernel-3.traceg", Arch::Turing)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    // One block of a grid of two (the sample): the end of the file names how many are missing.
    let t = v4();
    let end = t.lines().count();
    assert_eq!(
        strict(&t),
        format!(
            "kernel-3.traceg:{end}: thread blocks: kernel `_Z4testPfS_`: 1 of 2 CTAs are missing \
             from the trace (it holds 1; cut short?); --allow-partial simulates the ones present"
        )
    );
    // A file that ends after its header holds no block at all.
    let header_only = &t[..t.find("#BEGIN_TB").unwrap()];
    assert!(
        strict(header_only).contains("2 of 2 CTAs are missing"),
        "{}",
        strict(header_only)
    );
    // The same block twice: named at its second `thread block` line, not simulated twice.
    let block = &t[t.find("#BEGIN_TB").unwrap()..];
    let twice = format!("{t}{block}");
    let line = twice
        .lines()
        .position(|l| l == "thread block = 1,0,0")
        .unwrap();
    let second = twice
        .lines()
        .skip(line + 1)
        .position(|l| l == "thread block = 1,0,0")
        .unwrap()
        + line
        + 2;
    let e = err(&twice);
    assert!(
        e.starts_with(&format!(
            "kernel-3.traceg:{second}: thread block: block 1,0,0 appears twice in kernel `_Z4testPfS_`"
        )),
        "{e}"
    );
    // A block with two ids.
    let e = err(&t.replace(
        "thread block = 1,0,0\n",
        "thread block = 1,0,0\nthread block = 0,0,0\n",
    ));
    assert!(e.contains("a second `thread block =`"), "{e}");
    // Unknown opcodes, and a NUL inside a known one: the opcode, file and line.
    let op_line = t.lines().position(|l| l.contains("LDG.E.64")).unwrap() + 1;
    for (op, shown) in [("FOOBAR.X", "FOOBAR.X"), ("LDG.E.\0X", "LDG.E.\\0X")] {
        let e = err(&t.replace("LDG.E.64", op));
        assert!(
            e.starts_with(&format!(
                "kernel-3.traceg:{op_line}: opcode: unknown opcode `{shown}`"
            )) && e.contains("--unknown-opcodes=warn"),
            "{e}"
        );
    }
    // ... which a warning policy reads as integer ALU instructions.
    let warn = Policy {
        unknown_opcodes: crate::trace::check::UnknownOpcodes::Warn,
        allow_partial: true,
        ..Policy::STRICT
    };
    let k = read_kernel_bytes_with(
        t.replace("LDG.E.64", "FOOBAR.X").as_bytes(),
        "k.traceg",
        Arch::Turing,
        warn,
    )
    .unwrap();
    let op = k.ops.iter().find(|(_, o)| o.name == "FOOBAR.X").unwrap().1;
    assert!(op.unknown && op.unit == crate::trace::model::Unit::Int);
    // A line longer than any trace line: refused at its number, not read into memory.
    let long = t.replace(
        "-future key = something new",
        &format!("-future key = {}", "x".repeat(100_000)),
    );
    let line = long
        .lines()
        .position(|l| l.starts_with("-future key"))
        .unwrap()
        + 1;
    let e = err(&long);
    assert!(
        e.starts_with(&format!(
            "kernel-3.traceg:{line}: line: longer than 65536 bytes"
        )),
        "{e}"
    );
    // The longest line accepted, with either line end.
    for end in ["\n", "\r\n"] {
        let max = t.replace(
            "-future key = something new\n",
            &format!("-k = {}{end}", "y".repeat(super::header::MAX_LINE - 5)),
        );
        read(&max, "k.traceg").unwrap();
    }
}

#[test]
fn runs_of_empty_lines_and_oversized_headers_are_refused_at_the_line_that_passes_the_bound() {
    let t = v4();
    let idle = super::header::MAX_IDLE_LINES as usize;
    // Runs of empty or comment lines under the bound, between header and blocks, are read.
    let at = t.find("#BEGIN_TB").unwrap();
    let pad = |n: usize, l: &str| format!("{}{}{}", &t[..at], l.repeat(n), &t[at..]);
    // (The sample already has a few: its `#traces format` line and blank lines.)
    read(&pad(idle - 16, "\n"), "k.traceg").unwrap();
    read(&pad(idle - 16, "# note\n"), "k.traceg").unwrap();
    // More: refused at the line that makes one too many (the run starts after the last
    // header line), with the file's line number.
    let head_lines = t[..at]
        .lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .count();
    let run_start = t[..at]
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with('-'))
        .last()
        .unwrap()
        .0
        + 2;
    assert!(head_lines > 5);
    for l in ["\n", "  \r\n", "#\n"] {
        let e = err(&pad(idle + 10, l));
        let want = format!(
            "kernel-3.traceg:{}: line: {} empty or comment lines in a row: no trace has that many",
            run_start + idle,
            idle + 1
        );
        assert!(e.starts_with(&want), "{e}\n{want}");
    }
    // A header longer than any real one: refused, not kept.
    let head: String = (0..20_000)
        .map(|i| format!("-x{i} = {}\n", "v".repeat(60)))
        .collect();
    let e = err(&format!("{head}{t}"));
    assert!(
        e.contains(": header: more than 1048576 bytes of header"),
        "{e}"
    );
}

#[test]
fn a_block_holding_more_than_the_bound_is_refused_at_its_line() {
    let t = v4();
    let line_of = |text: &str, needle: &str| text.lines().position(|l| l == needle).unwrap() + 1;
    let read = |text: &str, max: u64| {
        let p = Policy {
            allow_partial: true,
            ..Policy::STRICT
        }
        .with_max_cta_insts(max);
        read_kernel_bytes_with(text.as_bytes(), "k.traceg", Arch::Turing, p)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let over = |max: u64| {
        format!(
            "insts: block 1,0,0 holds more than {max} warp instructions (8 addresses count as \
             one): more than a real CTA; raise the bound with --max-cta-insts N or \
             WARPWEAVE_MAX_CTA_INSTS=N"
        )
    };
    // An absurd count is refused at its `insts =` line under the default bound, before any
    // instruction is read or reserved.
    let absurd = t.replace("insts = 5", "insts = 4000000000");
    let at = line_of(&absurd, "insts = 4000000000");
    assert_eq!(
        read(&absurd, crate::trace::check::DEFAULT_MAX_CTA_INSTS),
        format!("k.traceg:{at}: {}", over(1 << 20))
    );
    // The block's declared counts add up: warp 0's 5 and warp 1's 1000 pass 1000 at warp 1.
    let more = t.replace("insts = 2", "insts = 1000");
    let at = line_of(&more, "insts = 1000");
    assert_eq!(read(&more, 1000), format!("k.traceg:{at}: {}", over(1000)));
    // Addresses count 8 to an instruction: after warp 0's first line (32 lanes) the block
    // holds 1 + 4, after its second (4 lanes) 2 + 5: a bound of 6 stops there.
    let at = line_of(&t, W0_SECOND);
    assert_eq!(read(&t, 6), format!("k.traceg:{at}: {}", over(6)));
    assert_eq!(read(&t, 1000), "");
}

/// Warp 0's second instruction line of the sample.
const W0_SECOND: &str =
    "0020 0000000f 1 R3 LDG.E.64 1 R4 8 0 0x0000000000001000 0x0000000000001010 0x0000000000001008 0x0000000000000ff0";

#[test]
fn a_raw_block_past_the_bound_is_refused_at_its_line() {
    let t = super::tests::raw_text(false);
    let at = t.lines().position(|l| l.contains(" LDG.E.SYS ")).unwrap() + 1;
    let p = Policy::STRICT.with_max_cta_insts(6);
    let e = read_kernel_bytes_with(t.as_bytes(), "kernel-3.trace", Arch::Turing, p)
        .err()
        .unwrap()
        .to_string();
    // Block 1,0,0: a load of one lane (1 + 1), then one of 32 lanes (2 + 5).
    assert!(
        e.starts_with(&format!(
            "kernel-3.trace:{at}: instruction: block 1,0,0 holds more than 6 warp instructions"
        )),
        "{e}"
    );
}
