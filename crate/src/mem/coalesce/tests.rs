//! The coalescer's tests: hand-derived requests, and every fast path against the lane-by-lane path.

use super::*;
use crate::trace::AddrShape;

#[test]
fn seed004_figure2_sectors_vs_lines() {
    // 4 threads, 64 B stride, 8 B each.
    let addrs = [0x1000u64, 0x1040, 0x1080, 0x10c0];
    let mut out = Vec::new();
    coalesce(0b1111, &addrs, 8, 128, 32, &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(
        out[0],
        LineReq {
            addr: 0x1000,
            sectors: 0b0101,
            bytes: 16,
            lanes: 0b0011,
            cover: 0xff | 0xff << 64,
            full: 0,
        }
    );
    assert_eq!(
        out[1],
        LineReq {
            addr: 0x1080,
            sectors: 0b0101,
            bytes: 16,
            lanes: 0b1100,
            cover: 0xff | 0xff << 64,
            full: 0,
        }
    );
    let sectors: u32 = out.iter().map(|r| r.sectors.count_ones()).sum();
    assert_eq!(sectors * 32, 128);
    // Without sectors (sector = line): 2 lines, 256 B.
    coalesce(0b1111, &addrs, 8, 128, 128, &mut out);
    let bytes: u32 = out.iter().map(|r| r.sectors.count_ones() * 128).sum();
    assert_eq!((out.len(), bytes), (2, 256));
}

#[test]
fn unit_stride_and_straddling_lanes() {
    let addrs: Vec<u64> = (0..32).map(|i| 0x2000 + 4 * i).collect();
    let mut out = Vec::new();
    coalesce(u32::MAX, &addrs, 4, 128, 32, &mut out);
    assert_eq!(
        out,
        vec![LineReq {
            addr: 0x2000,
            sectors: 0xf,
            bytes: 128,
            lanes: u32::MAX,
            cover: u128::MAX,
            full: 0xf,
        }]
    );
    // A 16 B access starting 8 B before a line boundary touches two lines; sparse mask.
    coalesce(0b100, &[0x207f8], 16, 128, 32, &mut out);
    assert_eq!(
        out,
        vec![
            LineReq {
                addr: 0x20780,
                sectors: 0b1000,
                bytes: 8,
                lanes: 0b100,
                cover: 0xff << 120,
                full: 0,
            },
            LineReq {
                addr: 0x20800,
                sectors: 0b0001,
                bytes: 8,
                lanes: 0b100,
                cover: 0xff,
                full: 0,
            },
        ]
    );
}

#[test]
fn full_sectors_need_every_byte() {
    let mut out = Vec::new();
    // 8 lanes x 4 B fill sector 0; a ninth lane writes 4 B of sector 1.
    let addrs: Vec<u64> = (0..9).map(|i| 0x3000 + 4 * i).collect();
    coalesce(0x1ff, &addrs, 4, 128, 32, &mut out);
    assert_eq!((out[0].sectors, out[0].full), (0b11, 0b01));
    // The same lanes scattered (not unit stride): the same answer from the other paths.
    let mut rev = addrs.clone();
    rev.reverse();
    coalesce(0x1ff, &rev, 4, 128, 32, &mut out);
    assert_eq!((out[0].sectors, out[0].full), (0b11, 0b01));
    // 32 lanes storing to one word: 128 bytes counted, 4 bytes covered, nothing whole.
    coalesce(u32::MAX, &[0x4010; 32], 4, 128, 32, &mut out);
    assert_eq!((out[0].sectors, out[0].bytes, out[0].full), (0b1, 128, 0));
    // Stride 8 with 4 B each: half of every sector.
    let addrs: Vec<u64> = (0..16).map(|i| 0x5000 + 8 * i).collect();
    coalesce(0xffff, &addrs, 4, 128, 32, &mut out);
    assert_eq!((out[0].sectors, out[0].full), (0xf, 0));
    // 256 B lines: no byte mask, so no sector counts as whole.
    let addrs: Vec<u64> = (0..32).map(|i| 0x6000 + 4 * i).collect();
    coalesce(u32::MAX, &addrs, 4, 256, 32, &mut out);
    assert_eq!((out[0].sectors, out[0].full), (0xf, 0));
}

#[test]
fn unit_stride_fast_path_equals_the_lane_by_lane_path() {
    let mut x = 0x1234_5678_9abc_def0u64;
    let (mut fast, mut slow) = (Vec::new(), Vec::new());
    let mut taken = 0;
    for _ in 0..400 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let w = [1u64, 2, 4, 8, 16][(x >> 59) as usize % 5];
        let n = 2 + (x >> 40) as u32 % 31;
        let tz = (x >> 30) as u32 % (33 - n);
        let mask = (((1u64 << n) - 1) << tz) as u32;
        let a0 = 0x8000 + ((x >> 8) & 0x3ff) * w;
        let addrs: Vec<u64> = (0..n as u64).map(|k| a0 + k * w).collect();
        assert!(contiguous::<true>(mask, &addrs, w, 128, 32, &mut fast));
        taken += 1;
        by_lane::<true>(mask, &addrs, w, 128, 32, &mut slow);
        assert_eq!(fast, slow, "w {w} mask {mask:#x} a0 {a0:#x}");
        fast.clear();
        slow.clear();
        // Aligned, any order with repeats (matmul's broadcast rows): the second path.
        let shuffled: Vec<u64> = (0..n as u64)
            .map(|k| a0 + ((k * 7 + (x >> 20)) % 48) * w * (1 + (x >> 33) % 3))
            .collect();
        assert!(within_lines::<true>(mask, &shuffled, w, 128, 32, &mut fast));
        by_lane::<true>(mask, &shuffled, w, 128, 32, &mut slow);
        assert_eq!(fast, slow, "within lines: w {w} mask {mask:#x}");
        fast.clear();
        slow.clear();
        // Runs of lanes on one address (broadcasts, half-warps on one row), and lanes
        // alternating between lines: the repeat shortcut and the line write-back.
        let run = [1u64, 2, 4, 16][(x >> 13) as usize % 4];
        let stride = w * (1 + (x >> 45) % 40);
        let runs: Vec<u64> = (0..n as u64)
            .map(|k| {
                if (x >> 7) & 1 == 0 {
                    a0 + (k / run) * stride
                } else {
                    a0 + (k % 2) * 1024 + (k / run) * w
                }
            })
            .collect();
        assert!(within_lines::<true>(mask, &runs, w, 128, 32, &mut fast));
        by_lane::<true>(mask, &runs, w, 128, 32, &mut slow);
        assert_eq!(fast, slow, "runs: w {w} mask {mask:#x} run {run}");
        fast.clear();
        slow.clear();
    }
    assert_eq!(taken, 400);
    // Not unit stride, or a mask with holes: the fast path declines.
    assert!(!contiguous::<true>(0b11, &[0, 8], 4, 128, 32, &mut fast));
    assert!(!contiguous::<true>(0b101, &[0, 4], 4, 128, 32, &mut fast));
    assert!(fast.is_empty());
}

#[test]
fn conflict_free_path_equals_the_sorting_path() {
    let mut x = 0x0bad_cafe_f00d_d00du64;
    let mut fast = 0;
    for _ in 0..500 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let w = [1u32, 4, 8, 16][(x >> 61) as usize % 4];
        let stride = [0u64, 4, 8, 12, 16, 128, 132][(x >> 50) as usize % 7];
        let mask = if x & 1 == 0 {
            u32::MAX
        } else {
            (x >> 8) as u32 | 1
        };
        let base = (x >> 20) & 0xffc;
        // Runs of lanes on one address (a half-warp reading one row) as well.
        let run = [1u64, 1, 2, 16][(x >> 40) as usize % 4];
        let addrs: Vec<u64> = (0..32u64).map(|k| base + (k / run) * stride).collect();
        let want = shmem_sorted(mask, &addrs, w, 32, 4);
        if let Some(got) = conflict_free(mask, &addrs, w, 32, 4) {
            assert_eq!(got, want, "w {w} stride {stride} mask {mask:#x}");
            fast += 1;
        }
        assert_eq!(shmem_access(mask, &addrs, w, 32, 4), want);
    }
    assert!(fast > 100, "fast path taken {fast} times");
}

#[test]
fn shared_bank_conflicts() {
    let m = u32::MAX;
    let lin: Vec<u64> = (0..32).map(|i| 4 * i).collect();
    assert_eq!(shmem_wavefronts(m, &lin, 4, 32, 4), 1);
    let bcast = vec![0x40u64; 32];
    assert_eq!(shmem_wavefronts(m, &bcast, 4, 32, 4), 1);
    let stride2: Vec<u64> = (0..32).map(|i| 8 * i).collect();
    assert_eq!(shmem_wavefronts(m, &stride2, 4, 32, 4), 2);
    let col: Vec<u64> = (0..32).map(|i| 128 * i).collect();
    assert_eq!(shmem_wavefronts(m, &col, 4, 32, 4), 32);
    let wide: Vec<u64> = (0..32).map(|i| 8 * i).collect();
    assert_eq!(shmem_wavefronts(m, &wide, 8, 32, 4), 2);
}

/// The lane-by-lane requests of `addrs`, with or without the byte cover (and `full` from it,
/// as [`coalesce_access`] adds it).
fn slow(mask: u32, addrs: &[u64], w: u64, lb: u64, sb: u64, cover: bool) -> Vec<LineReq> {
    let mut out = Vec::new();
    if cover {
        by_lane::<true>(mask, addrs, w, lb, sb, &mut out);
        if lb <= 128 {
            for r in out.iter_mut() {
                r.full = full_sectors(r.cover, lb, sb);
            }
        }
    } else {
        by_lane::<false>(mask, addrs, w, lb, sb, &mut out);
    }
    out
}

#[test]
fn shape_path_equals_the_lane_by_lane_path() {
    let mut x = 0x05ee_d0f5_a9e5_u64;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 16
    };
    let (mut taken, mut declined) = (0, 0);
    let mut got = Vec::new();
    for it in 0..6000u64 {
        let lb = [32u64, 64, 128, 128, 128, 256][next() as usize % 6];
        let sb = [lb / 4, lb / 4, lb / 2, lb, 32.min(lb)][next() as usize % 5];
        let w = [1u64, 2, 4, 4, 8, 16, 32][next() as usize % 7].min(lb);
        let mask = match next() % 4 {
            0 => u32::MAX,
            1 => {
                let len = 1 + next() as u32 % 32;
                let tz = next() as u32 % (33 - len);
                (((1u64 << len) - 1) << tz) as u32
            }
            _ => (next() as u32) | 1 << (next() % 32),
        };
        let n = mask.count_ones() as usize;
        let pick = |r: u64| -> i64 {
            let l = lb as i64;
            let wi = w as i64;
            let v = [
                0,
                wi,
                2 * wi,
                3 * wi,
                wi + 1,
                l,
                l + 4,
                l - wi / 2,
                2 * l + wi,
                100,
            ][r as usize % 10];
            if r & 1024 != 0 {
                -v
            } else {
                v
            }
        };
        let stride = if next() % 5 == 0 {
            next() as i64 % 700 - 350
        } else {
            pick(next())
        };
        let stride2 = if next() % 3 == 0 {
            pick(next())
        } else {
            next() as i64 % 5000 - 2500
        };
        let run = [32u8, 16, 8, 4, 2, 3, 5, 1 + (next() % 32) as u8][next() as usize % 8];
        let shape = AddrShape {
            run,
            stride: stride as i32,
            stride2: stride2 as i32,
        };
        // Mostly mid-space; sometimes near either end (declined when an access could wrap).
        let base = match it % 50 {
            0 => next() % 512,
            1 => u64::MAX - next() % 2048,
            _ => 0x7f00_0000_0000 + next() % 0x10000,
        };
        let mut addrs = Vec::new();
        shape.expand(base, n, &mut addrs);
        let canon = AddrShape::of(&addrs);
        for cover in [false, true] {
            let want = slow(mask, &addrs, w, lb, sb, cover);
            for sh in [shape, canon] {
                if !sh.is_regular() {
                    continue;
                }
                got.clear();
                let ok = if cover {
                    runs::by_shape::<true>(mask, base, sh, w, lb, sb, &mut got)
                } else {
                    runs::by_shape::<false>(mask, base, sh, w, lb, sb, &mut got)
                };
                if ok {
                    taken += 1;
                    if cover && lb <= 128 {
                        for r in got.iter_mut() {
                            r.full = full_sectors(r.cover, lb, sb);
                        }
                    }
                    assert_eq!(
                        got, want,
                        "mask {mask:#x} base {base:#x} {sh:?} w {w} line {lb} sector {sb}"
                    );
                } else {
                    declined += 1;
                }
                // The public entry: the same requests whichever path it takes.
                let a = WarpAccess {
                    mask,
                    addrs: &addrs,
                    width: w as u32,
                    shape: sh,
                    store: cover,
                };
                coalesce_access(&a, lb as u32, sb as u32, &mut got);
                // (Near the top of the space the lane paths saturate where they wrap.)
                if addrs.iter().all(|&a| a < u64::MAX - 4096) {
                    assert_eq!(got, want, "coalesce_access {sh:?} mask {mask:#x}");
                }
            }
        }
    }
    // Overlapping lanes (0 < |stride| < width) and wrapping bases are declined.
    assert!(
        taken > 15000 && declined > 300,
        "taken {taken} declined {declined}"
    );
}

#[test]
fn shape_path_edge_cases_by_hand() {
    let mut out = Vec::new();
    let run = |mask: u32, base: u64, run: u8, s: i32, s2: i32, w: u64, out: &mut Vec<LineReq>| {
        let sh = AddrShape {
            run,
            stride: s,
            stride2: s2,
        };
        out.clear();
        assert!(runs::by_shape::<true>(mask, base, sh, w, 128, 32, out));
        for r in out.iter_mut() {
            r.full = full_sectors(r.cover, 128, 32);
        }
    };
    // matmul_naive's B row read by two C rows: 16 lanes x 4 B from 0x1040, twice.
    run(u32::MAX, 0x1040, 16, 4, 0, 4, &mut out);
    assert_eq!(
        out,
        [LineReq {
            addr: 0x1000,
            sectors: 0b1100,
            bytes: 128,
            lanes: u32::MAX,
            cover: u128::MAX << 64,
            full: 0b1100,
        }]
    );
    // Descending 8 B accesses, stride -128, both lanes straddling: lane 0 opens 0x1000 (its
    // last 4 B) then 0x1080 (low line first), lane 1 opens 0x0f80 and adds 0x1000's first 4 B.
    run(0b11, 0x107c, 32, -128, 0, 8, &mut out);
    let got: Vec<(u64, u8, u32, u32)> = out
        .iter()
        .map(|r| (r.addr, r.sectors, r.bytes, r.lanes))
        .collect();
    assert_eq!(
        got,
        [
            (0x1000, 0b1001, 8, 0b11),
            (0x1080, 0b0001, 4, 0b01),
            (0x0f80, 0b1000, 4, 0b10),
        ]
    );
    // Half-warp broadcasts 512 B apart, mask with holes: lanes 1, 3 (run 0) and 5, 7 (run 1).
    run(0b1010_1010, 0x2004, 2, 0, 512, 4, &mut out);
    let got: Vec<(u64, u8, u32, u32)> = out
        .iter()
        .map(|r| (r.addr, r.sectors, r.bytes, r.lanes))
        .collect();
    assert_eq!(got, [(0x2000, 1, 8, 0b1010), (0x2200, 1, 8, 0b1010_0000)]);
}
