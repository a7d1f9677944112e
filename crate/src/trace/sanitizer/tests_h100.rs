//! The importer on records the tracer wrote on a real GPU: an NVIDIA H100 80GB HBM3 (driver
//! 580.159.04, CUDA 13.0), 2026-11-22, through `tests/hardware/lease.sh`. Fixtures:
//! `h100-kernels-sm90.sass` (`cuobjdump -sass` of the bench that ran, cut to the three
//! functions) and the records files, zstd-compressed. The instruction counts are checked
//! against Nsight Compute's `smsp__inst_executed.sum` of the same kernels at other sizes
//! (tests/hardware/results/h100.csv): the per-warp counts must agree exactly.

use super::*;
use std::io::Read;

const SASS: &str = include_str!("fixtures/h100-kernels-sm90.sass");

fn unzstd(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    ruzstd::decoding::StreamingDecoder::new(bytes)
        .expect("zstd frame")
        .read_to_end(&mut out)
        .expect("zstd data");
    out
}

fn import_h100(records: &[u8]) -> Imported {
    import(
        &unzstd(records),
        "h100.wwsan",
        SASS,
        "h100.sass",
        ImportOptions::default(),
    )
    .expect("import")
}

#[test]
fn h100_vecadd_records() {
    let im = import_h100(include_bytes!("fixtures/h100-vecadd.wwsan.zst"));
    let st = &im.stats[0];
    // n = 4096, block 128: 32 CTAs of 4 warps; 20 instructions per warp on sm_90, as ncu
    // counts (vecadd n=65536: 40,960 warp instructions over 2,048 warps).
    assert_eq!((st.ctas, st.warps, st.insts), (32, 128, 128 * 20));
    assert_eq!(40_960 / 2_048, 20);
    // Recorded: 2 LDG + 1 STG + 1 EXIT per warp, nothing guessed.
    assert_eq!(
        (st.recorded, st.ambiguous, st.synthesized_exits),
        (128 * 4, 0, 0)
    );
    let k = &im.trace.kernels[0];
    let w = &k.ctas[3].warps[2];
    assert_eq!(w.insts.len(), 20);
    let loads: Vec<&crate::trace::model::TraceInst> =
        w.insts.iter().filter(|i| i.mem_width == 4).collect();
    assert_eq!(loads.len(), 3, "LDG, LDG, STG");
    // Thread i = 3 * 128 + 2 * 32 + lane reads element i: 32 consecutive words.
    let lanes: Vec<(u32, u64)> = w.lane_addrs(loads[0]).collect();
    assert_eq!(lanes.len(), 32);
    assert!(lanes.windows(2).all(|p| p[1].1 == p[0].1 + 4));
    assert_eq!(lanes[0].1 % 128, ((3 * 128 + 2 * 32) * 4) % 128);
}

#[test]
fn h100_reduction_records() {
    let im = import_h100(include_bytes!("fixtures/h100-reduction.wwsan.zst"));
    let st = &im.stats[0];
    // n = 16384, block 256: 64 CTAs of 8 warps. ncu, n = 65536: 119,040 warp instructions over
    // 2,048 warps; the importer, n = 16384: 29,760 over 512, the same 58.125 per warp.
    assert_eq!((st.ctas, st.warps, st.insts), (64, 512, 29_760));
    assert_eq!(st.insts * 2_048, 119_040 * 512);
    assert_eq!((st.ambiguous, st.synthesized_exits), (0, 0));
    // Shared accesses arrive as offsets in the CTA's window and barriers as events.
    let k = &im.trace.kernels[0];
    let shared = k.ctas[0].warps[0]
        .insts
        .iter()
        .filter(|i| {
            let op = &k.ops.get(i.op).name;
            op.starts_with("LDS") || op.starts_with("STS")
        })
        .count();
    assert!(shared >= 3, "STS, then LDS/LDS/STS per step");
}

#[test]
fn h100_pointer_chase_records() {
    let im = import_h100(include_bytes!("fixtures/h100-pointer_chase.wwsan.zst"));
    let st = &im.stats[0];
    // iters = 256: 4 instructions per trip and 12 around the loop; ncu, iters = 1024: 4,108.
    assert_eq!((st.ctas, st.warps, st.insts), (1, 1, 4 * 256 + 12));
    assert_eq!(4 * 1024 + 12, 4_108);
    assert_eq!((st.recorded, st.ambiguous), (258, 0));
}
