//! The compact reader refuses what the text reader refuses (`trace::check`), with the kernel,
//! chunk and byte: CTAs twice or outside the grid, kernels with CTAs missing (unless allowed),
//! unknown opcodes (unless warned), copies no GPU takes, a newer tracer version; and an empty
//! file or bytes after the end are called so.

use super::tests::{encode, LENIENT};
use super::*;
use crate::trace::check::{Policy, UnknownOpcodes};
use crate::trace::model::*;

/// vecadd of 1024 elements: 8 CTAs of 4 warps.
fn vecadd() -> MemTrace {
    let p = crate::workload::Params::parse(&["n=1024"]).unwrap();
    crate::workload::generate("vecadd", &p).unwrap()
}

fn strict_err(b: &[u8]) -> String {
    match CompactReader::from_slice(b, "t.wwt") {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

/// Every CTA of kernel 0 pulled every way a reader hands them out; the first error.
fn pull_all(b: &[u8], policy: Policy) -> Vec<String> {
    let mut errs = Vec::new();
    let mut rd = CompactReader::from_slice_with(b, "t.wwt", policy).unwrap();
    let mut s = rd.open_kernel(0).unwrap();
    errs.push(loop {
        match s.next_cta() {
            Ok(Some(_)) => {}
            Ok(None) => break String::new(),
            Err(e) => break e.to_string(),
        }
    });
    drop(s);
    for packed in [false, true] {
        let mut s = rd.open_kernel_owned(0).unwrap();
        let mut pk = Packer::default();
        errs.push(loop {
            let r = if packed {
                s.prefetch();
                s.next_packed(&mut pk, 0).map(|c| c.is_some())
            } else {
                s.next_cta().map(|c| c.is_some())
            };
            match r {
                Ok(true) => {}
                Ok(false) => break String::new(),
                Err(e) => break e.to_string(),
            }
        });
    }
    errs
}

#[test]
fn a_cta_twice_is_refused_wherever_it_is_handed_out() {
    let mut t = vecadd();
    let k = &mut t.kernels[0];
    assert_eq!(k.ctas.len(), 8);
    k.ctas[6].id = k.ctas[1].id;
    // Seven distinct CTAs and a copy: the index holds the grid's 8, so the copy is found
    // where it is handed out (in a later chunk than the first).
    let b = encode(&t, 10);
    for e in pull_all(&b, Policy::STRICT) {
        assert!(
            e.starts_with("t.wwt: kernel 0 chunk 6 at byte ")
                && e.contains(": block 1,0,0 appears twice in kernel `_Z6vecadd"),
            "{e}"
        );
    }
    // More CTAs than the grid holds: refused from the index, before decoding.
    let mut t = vecadd();
    let extra = t.kernels[0].ctas[0].clone();
    t.kernels[0].ctas.push(extra);
    let e = strict_err(&encode(&t, 10));
    assert!(
        e.starts_with("t.wwt: kernel 0 chunk index: 9 CTAs in kernel `_Z6vecadd")
            && e.contains("more than the 8 of its grid (8,1,1)"),
        "{e}"
    );
    // Outside the grid, and a warp outside the block (checked where each chunk is decoded).
    for (edit, needle) in [
        (
            (|c: &mut CtaTrace| c.id.x = (1 << 31) + 5) as fn(&mut CtaTrace),
            "block 2147483653,0,0 is outside the grid (8,1,1)",
        ),
        (
            |c| c.warps[0].warp_id = 99_999,
            "warp 99999 but a block has 4 warps",
        ),
    ] {
        let mut t = vecadd();
        edit(&mut t.kernels[0].ctas[3]);
        for e in pull_all(&encode(&t, 10), Policy::STRICT) {
            assert!(
                e.starts_with("t.wwt: kernel 0 chunk 3 at byte ") && e.contains(needle),
                "{e}"
            );
        }
    }
}

#[test]
fn missing_ctas_are_an_error_unless_allowed() {
    let mut t = vecadd();
    t.kernels[0].ctas.truncate(3);
    let b = encode(&t, 10);
    let e = strict_err(&b);
    assert_eq!(
        e,
        "t.wwt: kernel 0: kernel `vecAdd`: 5 of 8 CTAs are missing from the trace (it holds 3; \
         cut short?); --allow-partial simulates the ones present"
            .replace("vecAdd", &t.kernels[0].info.name)
    );
    let allow = Policy {
        allow_partial: true,
        ..Policy::STRICT
    };
    assert_eq!(pull_all(&b, allow), ["", "", ""]);
}

#[test]
fn unknown_opcodes_are_an_error_naming_kernel_and_opcode_unless_warned() {
    let b = encode(&super::tests::crafted(), 100);
    let e = strict_err(&b);
    assert!(
        e.starts_with("t.wwt: kernel 0 `_Z6kernel0PfS_i`: unknown opcode `WEIRDOP`"),
        "{e}"
    );
    let warn = Policy {
        unknown_opcodes: UnknownOpcodes::Warn,
        allow_partial: true,
        ..Policy::STRICT
    };
    assert!(CompactReader::from_slice_with(&b, "t.wwt", warn).is_ok());
    // A NUL inside an opcode is never a known one.
    let mut t = vecadd();
    let n = t.kernels[0].ops.len();
    let mut ops = OpTable::new();
    for (_, o) in t.kernels[0].ops.iter() {
        let mut o = o.clone();
        if o.name.starts_with("IMAD") {
            o.name.push_str(".\0X");
            o = crate::trace::opcodes::classify(crate::trace::opcodes::Arch::Turing, &o.name);
        }
        ops.push(o);
    }
    assert_eq!(ops.len(), n);
    t.kernels[0].ops = ops;
    let e = strict_err(&encode(&t, 1000));
    assert!(
        e.contains("unknown opcode `IMAD") && e.contains(".\\0X`"),
        "{e}"
    );
}

#[test]
fn header_values_are_refused_as_the_text_reader_refuses_them() {
    // A copy no GPU takes, at the top of the address space, a newer tracer version.
    let mut t = vecadd();
    t.commands.insert(
        0,
        Command::MemcpyHtoD {
            addr: 0x1000,
            bytes: 1 << 63,
        },
    );
    let e = strict_err(&encode(&t, 1000));
    assert!(
        e.contains("`memcpy bytes` at byte")
            && e.ends_with("a copy of 9223372036854775808 bytes: more than any GPU's memory (at most 1099511627776)"),
        "{e}"
    );
    let mut t = vecadd();
    t.kernels[0].info.tracer_version = 99;
    let e = strict_err(&encode(&t, 1000));
    assert!(
        e.ends_with("99 is newer than this reader knows (0..=5)"),
        "{e}"
    );
    let text = crate::trace::accelsim::kernel_to_text(&t.kernels[0]).unwrap();
    let e = crate::trace::accelsim::read_kernel_bytes(&text, "k.traceg", Default::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("99 is newer than this reader knows (0..=5)"),
        "{e}"
    );
    // Grids no launch has.
    for (g, needle) in [
        (
            Dim3::new(0, 1, 1),
            "(0,1,1): expected (x,y,z) with x, y, z >= 1",
        ),
        (Dim3::new(1, 1 << 20, 1), "larger than CUDA launches"),
    ] {
        let mut t = vecadd();
        t.kernels[0].info.grid = g;
        let e = strict_err(&encode(&t, 1000));
        assert!(e.contains("`grid dim`") && e.contains(needle), "{e}");
    }
}

#[test]
fn an_empty_file_and_bytes_after_the_end_are_called_so() {
    assert_eq!(
        strict_err(&[]),
        "t.wwt: file: an empty compact file (0 bytes)"
    );
    let b = encode(&vecadd(), 1000);
    let end = b.len();
    let mut more = b.clone();
    more.extend_from_slice(b"garbage\n");
    assert_eq!(
        strict_err(&more),
        format!(
            "t.wwt: trailing data at byte {end}: 8 bytes after the end of the compact trace (at \
             byte {end}); was something appended to the file?"
        )
    );
    // Two files one after the other: the second's end is the one found.
    let mut two = b.clone();
    two.extend_from_slice(&b);
    assert!(strict_err(&two).contains(&format!("{end} bytes after the end")));
    // Cut short: still truncated.
    let e = strict_err(&b[..end - 3]);
    assert!(e.contains("truncated"), "{e}");
    // (The lenient policy changes none of this.)
    assert!(CompactReader::from_slice_with(&more, "t", LENIENT).is_err());
}

#[test]
fn a_cta_holding_more_than_the_bound_is_refused_at_the_index_or_where_it_is_decoded() {
    let t = vecadd();
    let cta = &t.kernels[0].ctas[0];
    let n = cta.warp_insts();
    let addrs: u64 = cta.warps.iter().map(|w| w.addrs.len() as u64).sum();
    let held = crate::trace::check::cta_held(n, addrs);
    assert!(addrs > 0 && t.kernels[0].ctas.iter().all(|c| c.warp_insts() == n));
    let bound = |max: u64| Policy::STRICT.with_max_cta_insts(max);
    // One CTA per chunk, each declaring more than the bound: refused from the index, before
    // any chunk is decompressed.
    let b = encode(&t, 1);
    let e = match CompactReader::from_slice_with(&b, "t.wwt", bound(n - 1)) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    assert_eq!(
        e,
        format!(
            "t.wwt: kernel 0 chunk 0 at byte 16 index: {n} warp instructions in 1 CTAs: more \
             than {} per CTA or twice that in one chunk; raise the bound with --max-cta-insts N \
             or WARPWEAVE_MAX_CTA_INSTS=N",
            n - 1
        )
    );
    // Two CTAs per chunk whose instructions fit the bound but whose addresses pass it: the
    // index cannot tell, decoding refuses the first CTA at its byte, whichever way it is read.
    let b = encode(&t, n + 1);
    let errs = pull_all(&b, bound(held - 1));
    for e in &errs {
        assert!(
            e.starts_with("t.wwt: kernel 0 chunk 0 `control byte` at byte ")
                && e.contains("(uncompressed; chunk at file byte 16)")
                && e.contains(&format!(
                    "block 0,0,0 holds more than {} warp instructions (8 addresses count as one)",
                    held - 1
                )),
            "{e}"
        );
    }
    // At the bound exactly: read.
    assert_eq!(pull_all(&b, bound(held)), ["", "", ""]);
}

#[test]
fn a_directory_longer_than_its_chunks_can_need_is_refused_before_decompressing() {
    let b = encode(&vecadd(), 1 << 15);
    let tpos = b.len() - dir::TRAILER_LEN as usize;
    let dir_offset = u64::from_le_bytes(b[tpos..tpos + 8].try_into().unwrap());
    let area = dir_offset - dir::HEADER_LEN;
    let most = dir::dir_bytes_at_most(area);
    assert_eq!(most, (16 << 20) + 64 * area);
    // The trailer claims a directory of 512 MiB: more than the chunks can need.
    let mut big = b.clone();
    big[tpos + 16..tpos + 24].copy_from_slice(&(512u64 << 20).to_le_bytes());
    let e = strict_err(&big);
    assert_eq!(
        e,
        format!(
            "t.wwt: directory length at byte {}: 536870912 bytes for a file whose chunks take \
             {area} bytes: more than any directory of them takes (at most {most}); refused \
             before decompressing",
            tpos + 16
        )
    );
    // Within the bound but not what the frame holds: the frame's own check.
    big[tpos + 16..tpos + 24].copy_from_slice(&most.to_le_bytes());
    assert!(
        strict_err(&big).contains("directory at byte"),
        "{}",
        strict_err(&big)
    );
}
