//! Compiler control bits in the compact format (1.2): per-instruction [`Ctrl`] in the chunks'
//! `cbits` stream, each kernel's [`CtrlSource`] in the directory, and files of 1.0 and 1.1
//! still read (no control bits, source none).

use super::tests::{assert_same, crafted, encode, LENIENT};
use super::*;
use crate::trace::model::*;

/// `crafted()` with control bits: kernel 0 from SASS (a word per PC, as a listing gives), kernel
/// 1 none, kernel 2 (no CTAs) from a workload model; one instruction of kernel 0 also differs
/// from the others at its PC, which a static-field miss must carry.
fn with_ctrl() -> MemTrace {
    let mut t = crafted();
    let sources = [CtrlSource::Sass, CtrlSource::None, CtrlSource::Workload];
    for (k, s) in t.kernels.iter_mut().zip(sources) {
        k.info.ctrl_source = s;
    }
    let word = |pc: u32| {
        let p = pc as u8;
        Ctrl::new(
            p % 16,
            p.is_multiple_of(3),
            p % 8,
            (p / 8) % 8,
            p % 64,
            p % 8,
        )
    };
    for w in t.kernels[0].ctas.iter_mut().flat_map(|c| &mut c.warps) {
        for i in &mut w.insts {
            i.ctrl = word(i.pc);
        }
    }
    let odd = &mut t.kernels[0].ctas[1].warps[0].insts[1];
    odd.ctrl = Ctrl(0x7fff_ffff); // not a Ctrl::new word: stored as it is, too
    t
}

/// The stream lengths of an uncompressed chunk.
fn stream_lens(chunk: &[u8]) -> Vec<u64> {
    let mut c = bytes::Cur::new(chunk, 0, "chunk", "chunk");
    let n = c.u8("n").unwrap();
    (0..n).map(|_| c.varint("len").unwrap()).collect()
}

#[test]
fn control_bits_and_sources_round_trip_every_chunking() {
    let t = with_ctrl();
    for chunk in [1, 100, 1 << 20] {
        let bytes = encode(&t, chunk);
        let mut rd = CompactReader::from_bytes_with(bytes, "mem", LENIENT).unwrap();
        assert_eq!(rd.version(), (1, 2));
        let sources: Vec<CtrlSource> = (0..3).map(|k| rd.kernel_info(k).ctrl_source).collect();
        assert_eq!(
            sources,
            [CtrlSource::Sass, CtrlSource::None, CtrlSource::Workload]
        );
        let back = MemTrace::collect(&mut rd).unwrap();
        assert_same(&t, &back);
        // Random access decodes the same words.
        let last = rd.cta_count(0) - 1;
        assert_eq!(
            rd.read_cta(0, last).unwrap(),
            t.kernels[0].ctas[last as usize]
        );
    }
    // The hash names the content without the control bits: annotating keeps it.
    let plain = encode(&crafted(), 100);
    let a = CompactReader::from_slice_with(&plain, "a", LENIENT)
        .unwrap()
        .trace_hash();
    let bytes = encode(&t, 100);
    assert_eq!(
        CompactReader::from_slice_with(&bytes, "b", LENIENT)
            .unwrap()
            .trace_hash(),
        a
    );
}

#[test]
fn a_chunk_without_control_bits_has_an_empty_cbits_stream() {
    let t = with_ctrl();
    let mut enc = chunk::ChunkEncoder::new();
    let none = enc.encode(&t.kernels[1].ctas);
    let lens = stream_lens(&none);
    assert_eq!((lens.len(), lens[11]), (12, 0), "{lens:?}");
    // With control bits: one word per static-field miss, 1-3 bytes each.
    let some = enc.encode(&t.kernels[0].ctas);
    let lens = stream_lens(&some);
    let misses = lens[3]; // the `op` stream: one 1-byte opcode id per miss here
    assert!(lens[11] >= misses && lens[11] <= 5 * misses, "{lens:?}");
    // The whole file grows by little: the words repeat per PC and compress.
    let (a, b) = (encode(&crafted(), 1 << 20), encode(&t, 1 << 20));
    assert!(b.len() < a.len() + 200, "{} -> {}", a.len(), b.len());
}

#[test]
fn files_of_format_1_1_read_without_control_bits() {
    // sample-traces/matmul_naive-64.wwt as the 1.1 writer made it.
    let v11 = include_bytes!("testdata/matmul_naive-64-v1.1.wwt");
    let mut rd = CompactReader::from_slice_with(v11, "matmul_naive-64-v1.1.wwt", LENIENT).unwrap();
    assert_eq!(rd.version(), (1, 1));
    assert_eq!(rd.kernel_info(0).ctrl_source, CtrlSource::None);
    let old = MemTrace::collect(&mut rd).unwrap();
    assert!(old.kernels[0].warp_insts() > 1000);
    for w in old.kernels[0].ctas.iter().flat_map(|c| &c.warps) {
        assert!(w.insts.iter().all(|i| i.ctrl == Ctrl::NONE));
    }
    // Written again it is 1.2, and reads back equal, with the same content hash.
    let new = encode(&old, 32768);
    let mut rd2 = CompactReader::from_slice_with(&new, "mem", LENIENT).unwrap();
    assert_eq!(rd2.version(), (1, 2));
    assert_eq!(rd2.trace_hash(), rd.trace_hash());
    assert_same(&old, &MemTrace::collect(&mut rd2).unwrap());
    // And 1.0 (testdata of the 1.1 change) still reads the same way.
    let v10 = include_bytes!("testdata/matmul_naive-64-v1.0.wwt");
    let mut rd0 = CompactReader::from_slice_with(v10, "v1.0", LENIENT).unwrap();
    assert_eq!(rd0.kernel_info(0).ctrl_source, CtrlSource::None);
    assert_eq!(
        MemTrace::collect(&mut rd0).unwrap().kernels[0].warp_insts(),
        old.kernels[0].warp_insts()
    );
}

#[test]
fn older_readers_refuse_a_1_2_directory_and_bad_codes_are_errors() {
    let bytes = encode(&with_ctrl(), 100);
    let rd = CompactReader::from_slice_with(&bytes, "t.wwt", LENIENT).unwrap();
    let d = dir::Directory {
        source_name: "t".into(),
        trace_hash: 0,
        commands: rd.commands().to_vec(),
        kernels: rd.kernel_entries(),
    };
    let raw = d.encode();
    let area = (
        dir::HEADER_LEN,
        rd.file_len() - dir::TRAILER_LEN - rd.dir_clen(),
    );
    let ok = dir::Directory::decode(&raw, "t.wwt", area, 2).unwrap();
    assert_eq!(ok.kernels[2].info.ctrl_source, CtrlSource::Workload);
    // A 1.1 reader stops at the sources: bytes left over, never a misread.
    let e = dir::Directory::decode(&raw, "t.wwt", area, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("3 bytes left over after the last kernel"), "{e}");
    // An unknown source code names the field.
    let mut bad = raw.clone();
    let n = bad.len();
    bad[n - 1] = 9;
    let e = dir::Directory::decode(&bad, "t.wwt", area, 2)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("control-bit source") && e.contains("code 9"),
        "{e}"
    );
    // A chunk claiming more bytes than its CTAs and instructions can take: refused before
    // anything is decompressed.
    let mut big = d.clone();
    let c = &mut big.kernels[0].chunks[0];
    let most = dir::chunk_bytes_at_most(c.n_ctas, c.warp_insts);
    assert!(c.ulen * 10 < most, "{} of at most {most}", c.ulen);
    c.ulen = most + 1;
    let e = dir::Directory::decode(&big.encode(), "t.wwt", area, 2)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`chunk uncompressed length` at byte")
            && e.contains(&format!(": {} bytes for 1 CTAs", most + 1))
            && e.contains("refused before decompressing"),
        "{e}"
    );
    c_ok(&d, area);
    // A 1.2 chunk handed to a 1.1 decoder (or the reverse) is refused by its stream count.
    let t = with_ctrl();
    let chunk = chunk::ChunkEncoder::new().encode(&t.kernels[0].ctas);
    let ctx = |minor| chunk::ChunkCtx {
        file: "t.wwt",
        what: "kernel 0 chunk 0",
        n_ops: 16,
        minor,
        max_cta_insts: crate::trace::check::DEFAULT_MAX_CTA_INSTS,
    };
    let e = chunk::ChunkDecoder::new()
        .decode(&chunk, &ctx(1))
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected 11 (format 1.1), found 12"), "{e}");
    assert!(chunk::ChunkDecoder::new().decode(&chunk, &ctx(2)).is_ok());
}

/// Every chunk of the directory `d` is within its bound (the writer never comes near it).
fn c_ok(d: &dir::Directory, area: (u64, u64)) {
    for k in &dir::Directory::decode(&d.encode(), "t.wwt", area, 2)
        .unwrap()
        .kernels
    {
        for c in &k.chunks {
            assert!(c.ulen <= dir::chunk_bytes_at_most(c.n_ctas, c.warp_insts));
        }
    }
}
