//! Traces that ask a reader to hold more than any CTA needs: thread blocks declaring absurd
//! instruction counts or holding more instructions and addresses than the bound on a CTA
//! (`trace::check::cta_insts`, 1,048,576 warp instructions, 8 addresses counting as one), a
//! compact chunk of such a CTA, and a compact directory that expands to 1 GiB. Each is a small
//! file (gzip members or zstd frames repeated) refused early, under the 200 MB data limit.

use super::*;

/// The bound the readers apply unless told otherwise.
const BOUND: u64 = 1 << 20;

/// A gzip stream of `head` then `lines` repeated `times` times (one compressed member per
/// part, the second repeated: gzip readers read concatenated members as one stream).
fn gz_repeat(head: &str, lines: &str, times: usize) -> Vec<u8> {
    let gz = |s: &str| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(s.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    let mut out = gz(head);
    out.extend(gz(lines).repeat(times));
    out
}

/// The header of the generated vecadd kernel, an ALU line and a load line of 32 addresses.
fn parts(t: &Path) -> (String, String, String) {
    let text = std::fs::read_to_string(t.join("kernel-1.traceg")).unwrap();
    let header = text[..text.find("#BEGIN_TB").unwrap()].to_string();
    let line = |op: &str| {
        text.lines()
            .find(|l| l.contains(op) && l.contains("ffffffff"))
            .unwrap()
            .to_string()
    };
    (header, line(" FADD "), line(" LDG.E "))
}

#[test]
fn blocks_declaring_or_holding_more_than_the_bound_are_refused_early_in_bounded_memory() {
    let d = tmp("cta-bound");
    let (t, _) = traces(&d);
    let (header, alu, load) = parts(&t);
    let head_lines = header.lines().count();
    let block = |insts: u64| {
        format!("{header}#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = {insts}\n")
    };
    let unit = |l: &str| format!("{l}\n").repeat(1 << 16);
    let over = format!("holds more than {BOUND} warp instructions");
    // An absurd count followed by 26 million valid lines (a gzip of a few MB): refused at its
    // line, before any instruction is read.
    let absurd = folder(
        &d,
        "absurd",
        ".gz",
        &gz_repeat(&block(4_000_000_000), &unit(&alu), 400),
    );
    assert!(
        std::fs::metadata(absurd.join("kernel-1.traceg.gz"))
            .unwrap()
            .len()
            < 4 << 20
    );
    let insts_line = head_lines + 4;
    for cmd in ["run", "info", "convert"] {
        let out = d.join("out.wwt");
        let mut args = vec![cmd, s(&absurd)];
        match cmd {
            "run" => args.splice(1..1, ["-q", "--trace"]).for_each(drop),
            "convert" => args.extend(["-o", s(&out)]),
            _ => {}
        }
        case(
            &d,
            &format!("{cmd} of a block declaring 4e9 instructions"),
            &args,
            Expect::Refused {
                file: &format!("absurd/kernel-1.traceg.gz:{insts_line}"),
                needles: &[&over, "--max-cta-insts N or WARPWEAVE_MAX_CTA_INSTS=N"],
            },
            &[],
        );
    }
    // A count at the bound, then loads of 32 addresses each: 1 + 4 per line, refused at the
    // line that passes the bound (209,716 lines in).
    let loads = folder(
        &d,
        "loads",
        ".gz",
        &gz_repeat(&block(BOUND), &unit(&load), 8),
    );
    let at = insts_line as u64 + BOUND / 5 + 1;
    case(
        &d,
        "a block of loads past the bound",
        &["run", "-q", "--trace", s(&loads)],
        Expect::Refused {
            file: &format!("loads/kernel-1.traceg.gz:{at}"),
            needles: &[&over],
        },
        &[],
    );
    // Two warps of 600,000 instructions each: the second's `insts =` line passes the bound.
    let n = 600_000;
    let mut two = format!("{}{}", block(n), format!("{alu}\n").repeat(n as usize));
    let second = head_lines + 4 + n as usize + 2;
    two += &format!(
        "warp = 1\ninsts = {n}\n{}#END_TB\n",
        format!("{alu}\n").repeat(4)
    );
    let two = folder(&d, "two", ".gz", &gz_repeat(&two, "", 0));
    case(
        &d,
        "two warps adding up past the bound",
        &["info", s(&two)],
        Expect::Refused {
            file: &format!("two/kernel-1.traceg.gz:{second}"),
            needles: &[&over],
        },
        &[],
    );
    // A bound raised past the declared counts reads the same block to its (short) end.
    case(
        &d,
        "the same with --max-cta-insts 2000000",
        &["info", "--max-cta-insts", "2000000", s(&two)],
        Expect::Refused {
            file: &format!("two/kernel-1.traceg.gz:{second}"),
            needles: &["warp 1 promises 600000 instructions but 4 lines follow"],
        },
        &[],
    );
}

#[test]
fn a_compact_cta_past_the_bound_and_a_directory_of_a_gigabyte_are_refused_unread() {
    let d = tmp("compact-bound");
    let (_, wwt) = traces(&d);
    // One CTA of 1.5 million instructions (a few KB compressed): refused from the index.
    let p = warpweave::workload::Params::parse(&["n=32"]).unwrap();
    let mut m = warpweave::workload::generate("vecadd", &p).unwrap();
    let k = &mut m.kernels[0];
    assert_eq!(k.ctas.len(), 1);
    let w = &mut k.ctas[0].warps[0];
    let alu = *w.insts.iter().find(|i| i.mem_width == 0).unwrap();
    let exit = w.insts.pop().unwrap();
    w.insts.resize(1_500_000, alu);
    w.insts.push(exit);
    let big = d.join("big.wwt");
    std::fs::write(
        &big,
        warpweave::workload::output::compact_bytes(&mut m).unwrap(),
    )
    .unwrap();
    let over = format!("more than {BOUND} per CTA or twice that in one chunk");
    for args in [vec!["run", "-q", "--trace", s(&big)], vec!["info", s(&big)]] {
        case(
            &d,
            &format!("{} of a compact CTA of 1.5e6 instructions", args[0]),
            &args,
            Expect::Refused {
                file: "big.wwt",
                needles: &[
                    "kernel 0 chunk 0 at byte 16 index",
                    &over,
                    "--max-cta-insts",
                ],
            },
            &[],
        );
    }
    case(
        &d,
        "the same with --max-cta-insts 2000000",
        &["info", "--max-cta-insts", "2000000", s(&big)],
        Expect::Accepted,
        &[],
    );
    // The vecadd file with its directory replaced by a frame of 1 GiB of zeros.
    let b = std::fs::read(&wwt).unwrap();
    let tpos = b.len() - 40;
    let dir_offset = u64::from_le_bytes(b[tpos..tpos + 8].try_into().unwrap()) as usize;
    let frame = zstd_bomb(0, 1 << 30);
    let mut bomb = b[..dir_offset].to_vec();
    bomb.extend_from_slice(&frame);
    for v in [dir_offset as u64, frame.len() as u64, 1 << 30, 0] {
        bomb.extend_from_slice(&v.to_le_bytes());
    }
    bomb.extend_from_slice(&b[b.len() - 8..]);
    let f = d.join("dir-bomb.wwt");
    std::fs::write(&f, &bomb).unwrap();
    let field = format!("directory length at byte {}", bomb.len() - 24);
    for args in [vec!["run", "-q", "--trace", s(&f)], vec!["info", s(&f)]] {
        case(
            &d,
            &format!("{} of a compact directory of 1 GiB", args[0]),
            &args,
            Expect::Refused {
                file: "dir-bomb.wwt",
                needles: &[&field, "1073741824 bytes", "refused before decompressing"],
            },
            &[],
        );
    }
}
