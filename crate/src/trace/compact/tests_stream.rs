//! Owned streams (what the engine pulls): decoding ahead keeps every CTA and error in place;
//! `keep_only` hands out the kept instructions with their addresses.

use super::tests::{crafted, encode, LENIENT};
use super::*;
use crate::trace::model::*;

/// Pulls every CTA of kernel 0 from an owned stream, calling `prefetch` before each pull when
/// asked; returns the CTAs and the error that ended the stream (if any).
fn pull_owned(bytes: &[u8], prefetch: bool) -> (Vec<CtaTrace>, Option<String>) {
    let mut rd = CompactReader::from_slice_with(bytes, "p.wwt", LENIENT).unwrap();
    let mut s = rd.open_kernel_owned(0).unwrap();
    let mut got = Vec::new();
    loop {
        if prefetch {
            s.prefetch();
            s.prefetch();
        }
        match s.next_cta() {
            Ok(Some(c)) => got.push(c),
            Ok(None) => return (got, None),
            Err(e) => return (got, Some(e.to_string())),
        }
    }
}

#[test]
fn prefetch_keeps_ctas_and_errors_in_place() {
    let t = crafted();
    let bytes = encode(&t, 1);
    let (plain, e) = pull_owned(&bytes, false);
    assert_eq!(e, None);
    assert_eq!(plain, t.kernels[0].ctas);
    assert_eq!(pull_owned(&bytes, true), (plain.clone(), None));
    // Chunk 2 of kernel 0 corrupt: both give chunks 0 and 1 (one CTA each), then its error.
    let mut rd = CompactReader::from_slice_with(&bytes, "p.wwt", LENIENT).unwrap();
    let raw = rd.raw_chunk(0, 2).unwrap();
    let at = bytes
        .windows(raw.len())
        .position(|w| w == raw.as_slice())
        .unwrap();
    let mut bad = bytes.clone();
    bad[at + raw.len() / 2] ^= 0x55;
    let (a, ea) = pull_owned(&bad, false);
    let (b, eb) = pull_owned(&bad, true);
    assert_eq!(a, plain[..2].to_vec());
    assert_eq!((b, eb.clone()), (a, ea));
    assert!(eb.unwrap().contains("kernel 0 chunk 2"));
}

/// Each instruction of `w` that `keep` selects, with `addr_start` cleared, and its lane
/// addresses: what a stream asked to `keep_only` must hand out, whatever the address layout.
fn kept(w: &WarpTrace, keep: &[bool]) -> Vec<(TraceInst, Vec<u64>)> {
    w.insts
        .iter()
        .filter(|i| keep.get(i.op.0 as usize) == Some(&true))
        .map(|i| {
            let a = w.lane_addrs(i).map(|(_, a)| a).collect();
            (
                TraceInst {
                    addr_start: 0,
                    ..*i
                },
                a,
            )
        })
        .collect()
}

#[test]
fn keep_only_hands_out_the_kept_instructions_and_their_addresses() {
    let t = crafted();
    let v10 = include_bytes!("testdata/matmul_naive-64-v1.0.wwt").to_vec();
    for bytes in [encode(&t, 1), encode(&t, 100), v10] {
        let mut rd = CompactReader::from_slice_with(&bytes, "k.wwt", LENIENT).unwrap();
        let full = MemTrace::collect(&mut rd).unwrap();
        for (k, kt) in full.kernels.iter().enumerate() {
            let keep: Vec<bool> = kt.ops.iter().map(|(_, o)| o.is_mem()).collect();
            let all = vec![true; keep.len()];
            let want: Vec<_> = kt
                .ctas
                .iter()
                .flat_map(|c| c.warps.iter().map(|w| (w.warp_id, kept(w, &keep))))
                .collect();
            assert!(want.iter().any(|(_, w)| !w.is_empty()) || kt.ctas.is_empty());
            // Borrowed (the pre-pass's) and owned streams both honour it.
            for owned in [false, true] {
                let mut s = if owned {
                    rd.open_kernel_owned(k).unwrap()
                } else {
                    rd.open_kernel(k).unwrap()
                };
                assert!(s.keep_only(&keep));
                let mut got = Vec::new();
                while let Some(c) = s.next_cta().unwrap() {
                    got.extend(c.warps.iter().map(|w| {
                        assert_eq!(kept(w, &all).len(), w.insts.len());
                        (w.warp_id, kept(w, &all))
                    }));
                }
                assert_eq!(got, want, "kernel {k} owned {owned}");
            }
            // The reader keeps everything again once the stream is gone.
            let again = KernelTrace::collect(&mut *rd.open_kernel(k).unwrap()).unwrap();
            assert_eq!(again.ctas, kt.ctas);
        }
    }
}
