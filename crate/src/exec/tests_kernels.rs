//! The kernels of `tests/hardware/kernels.cu`, executed from the sm_90 listing of the binary
//! that was measured on the H100 (nvcc 13.0.88, `tests/hardware/traced/h100-holdout/`), with
//! the data `tests/hardware/bench.cu` gives them: each output equals a host reference computed
//! here, and the executed warp instructions equal Nsight Compute's `warp_insts` of the same
//! workload and parameters in the measured tables.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::*;
use crate::trace::model::Dim3;
use crate::workload::builder::GLOBAL_BASE;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub(super) fn listing(rel: &str) -> String {
    use std::io::Read;
    let mut text = String::new();
    crate::trace::io::open_file(&repo().join(rel))
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    text
}

fn load(rel: &str) -> Program {
    Program::from_listing(&listing(rel), rel, Arch::Hopper).unwrap()
}

/// The listings of kernels.cu: sm_90 of the measured binary (its counts are checked against
/// the measured rows), sm_70 (CUDA 13.5 PTX through the CUDA 12.9 ptxas, `tests/exec/sm70.sh`),
/// sm_75 and sm_80 of nvcc 13.5 (results only: another compiler).
fn programs() -> [(&'static Program, bool); 4] {
    static P: OnceLock<[Program; 4]> = OnceLock::new();
    let p = P.get_or_init(|| {
        [
            load("tests/hardware/traced/h100-holdout/kernels.sm_90.sass.xz"),
            load("tests/exec/kernels.sm_70.sass.xz"),
            load("tests/exec/kernels.sm_75.sass.xz"),
            load("tests/exec/kernels.sm_80.sass.xz"),
        ]
    });
    [
        (&p[0], true),
        (&p[1], false),
        (&p[2], false),
        (&p[3], false),
    ]
}

/// `warp_insts` of (workload, params) in the measured tables.
fn measured(workload: &str, params: &str) -> u64 {
    for f in [
        "tests/hardware/results/h100.csv",
        "tests/hardware/results/h100-holdout.csv",
        "tests/hardware/traced/h100-traced.csv",
    ] {
        let text = std::fs::read_to_string(repo().join(f)).unwrap();
        let mut lines = text.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
        let (wc, pc, ic) = (col("workload"), col("params"), col("warp_insts"));
        for l in lines {
            let c: Vec<&str> = l.split(',').collect();
            if c.len() > ic && c[wc] == workload && c[pc] == params {
                return c[ic].parse().unwrap();
            }
        }
    }
    panic!("no measured row {workload} {params}")
}

/// bench.cu's `input()`: element i is (i % 97) * 0.25.
fn input_f32(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 97) as f32 * 0.25).collect()
}

pub(super) fn bytes<T: Copy>(v: &[T]) -> Vec<u8> {
    let n = std::mem::size_of_val(v);
    // SAFETY: plain numbers as their little-endian bytes (every test target is little endian).
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, n).to_vec() }
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// bench.cu's generator.
struct Lcg(u32);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0
    }
}

pub(super) fn buf(name: &str, elem: Elem, data: Vec<u8>) -> BufferDef {
    BufferDef {
        name: name.into(),
        elem,
        len: (data.len() / elem.bytes()) as u64,
        init: Init::Bytes(data),
        output: true,
    }
}

fn i32a(v: i32) -> Arg {
    Arg::Scalar(v.to_le_bytes().to_vec())
}

fn run(
    p: &Program,
    kernel: &str,
    grid: Dim3,
    block: Dim3,
    shared: u32,
    buffers: Vec<BufferDef>,
    args: Vec<Arg>,
) -> Executed {
    let spec = LaunchSpec {
        buffers,
        launches: vec![Launch {
            kernel: kernel.into(),
            grid,
            block,
            shared,
            args,
            repeat: None,
        }],
        constants: Vec::new(),
    };
    execute(p, &spec, &p.file).unwrap_or_else(|e| panic!("{e}"))
}

fn out(ex: &Executed, i: usize) -> &[u8] {
    &ex.device.bufs[i].data
}

fn close(got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-5 * g.abs().max(w.abs()) + 1e-6,
            "[{i}]: {g} vs {w}"
        );
    }
}

/// Checks a count against the measured one where the listing is the measured binary's.
fn count_ok(counts: bool, got: u64, want: u64, what: &str) {
    if counts {
        assert_eq!(
            got, want,
            "{what}: executed warp instructions vs measured warp_insts"
        );
    }
}

fn bufs_of(ins: &[Vec<f32>], outs: &[usize]) -> Vec<BufferDef> {
    let mut v: Vec<BufferDef> = ins
        .iter()
        .enumerate()
        .map(|(i, d)| buf(&format!("in{i}"), Elem::F32, bytes(d)))
        .collect();
    for (i, &n) in outs.iter().enumerate() {
        v.push(buf(&format!("out{i}"), Elem::F32, vec![0; n * 4]));
    }
    v
}

#[test]
fn vecadd_and_saxpy_compute_and_count_as_measured() {
    for (p, counts) in programs() {
        for n in [32usize, 65536, 4096] {
            let (a, b) = (input_f32(n), input_f32(n));
            let ex = run(
                p,
                "vecadd",
                Dim3::new(n.div_ceil(128) as u32, 1, 1),
                Dim3::new(128, 1, 1),
                0,
                bufs_of(&[a.clone(), b.clone()], &[n]),
                vec![
                    Arg::Buffer(0),
                    Arg::Buffer(1),
                    Arg::Buffer(2),
                    i32a(n as i32),
                ],
            );
            let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            assert_eq!(f32s(out(&ex, 2)), want);
            count_ok(
                counts,
                ex.warp_insts(),
                measured("vecadd", &format!("n={n}")),
                &format!("vecadd n={n}"),
            );
        }
        for n in [65536usize, 4096] {
            let (x, y) = (input_f32(n), input_f32(n));
            let ex = run(
                p,
                "saxpy",
                Dim3::new(n.div_ceil(256) as u32, 1, 1),
                Dim3::new(256, 1, 1),
                0,
                bufs_of(&[x.clone(), y.clone()], &[]),
                vec![
                    Arg::Buffer(0),
                    Arg::Buffer(1),
                    Arg::Scalar(2.0f32.to_le_bytes().to_vec()),
                    i32a(n as i32),
                ],
            );
            let want: Vec<f32> = x
                .iter()
                .zip(&y)
                .map(|(x, y)| 2.0f32.mul_add(*x, *y))
                .collect();
            assert_eq!(f32s(out(&ex, 1)), want);
            count_ok(
                counts,
                ex.warp_insts(),
                measured("saxpy", &format!("n={n}")),
                "saxpy",
            );
        }
    }
}

#[test]
fn transposes_compute_and_count_as_measured() {
    for (p, counts) in programs() {
        for (kernel, workload, rows, cols, by) in [
            (
                "transpose_naive",
                "transpose_naive",
                256usize,
                256usize,
                8u32,
            ),
            ("transpose_tiled0", "transpose_tiled", 256, 256, 32),
            ("transpose_tiled0", "transpose_tiled", 64, 64, 32),
        ] {
            let inp = input_f32(rows * cols);
            let ex = run(
                p,
                kernel,
                Dim3::new(cols.div_ceil(32) as u32, (rows as u32).div_ceil(by), 1),
                Dim3::new(32, 8, 1),
                0,
                bufs_of(std::slice::from_ref(&inp), &[rows * cols]),
                vec![
                    Arg::Buffer(0),
                    Arg::Buffer(1),
                    i32a(rows as i32),
                    i32a(cols as i32),
                ],
            );
            let mut want = vec![0f32; rows * cols];
            for y in 0..rows {
                for x in 0..cols {
                    want[x * rows + y] = inp[y * cols + x];
                }
            }
            assert_eq!(f32s(out(&ex, 1)), want, "{kernel}");
            let params = format!("rows={rows} cols={cols}");
            count_ok(
                counts,
                ex.warp_insts(),
                measured(workload, &params),
                &format!("{kernel} {params}"),
            );
        }
    }
}

#[test]
fn matmuls_compute_and_count_as_measured() {
    for (p, counts) in programs() {
        for (kernel, workload, n, t) in [
            ("matmul_naive", "matmul_naive", 64usize, 16u32),
            ("matmul_naive", "matmul_naive", 32, 16),
            ("matmul_tiled16", "matmul_tiled", 128, 16),
            ("matmul_tiled16", "matmul_tiled", 64, 16),
        ] {
            let (a, b) = (input_f32(n * n), input_f32(n * n));
            let ex = run(
                p,
                kernel,
                Dim3::new((n as u32).div_ceil(t), (n as u32).div_ceil(t), 1),
                Dim3::new(t, t, 1),
                0,
                bufs_of(&[a.clone(), b.clone()], &[n * n]),
                vec![
                    Arg::Buffer(0),
                    Arg::Buffer(1),
                    Arg::Buffer(2),
                    i32a(n as i32),
                    i32a(n as i32),
                    i32a(n as i32),
                ],
            );
            let mut want = vec![0f32; n * n];
            for r in 0..n {
                for c in 0..n {
                    let mut acc = 0f32;
                    for k in 0..n {
                        acc = a[r * n + k].mul_add(b[k * n + c], acc);
                    }
                    want[r * n + c] = acc;
                }
            }
            close(&f32s(out(&ex, 2)), &want);
            let params = format!("m={n} n={n} k={n}");
            count_ok(
                counts,
                ex.warp_insts(),
                measured(workload, &params),
                &format!("{kernel} {params}"),
            );
        }
    }
}

#[test]
fn reduction_computes_and_counts_as_measured() {
    for (p, counts) in programs() {
        for n in [65536usize, 16384] {
            let inp = input_f32(n);
            let grid = n.div_ceil(256);
            let ex = run(
                p,
                "reduction",
                Dim3::new(grid as u32, 1, 1),
                Dim3::new(256, 1, 1),
                1024,
                bufs_of(std::slice::from_ref(&inp), &[grid]),
                vec![Arg::Buffer(0), Arg::Buffer(1), i32a(n as i32)],
            );
            let mut want = Vec::new();
            for c in 0..grid {
                let mut s: Vec<f32> = inp[c * 256..(c + 1) * 256].to_vec();
                let mut h = 128;
                while h >= 32 {
                    for t in 0..h {
                        s[t] += s[t + h];
                    }
                    h /= 2;
                }
                let mut v: Vec<f32> = s[..32].to_vec();
                for o in [16, 8, 4, 2, 1] {
                    v = (0..32)
                        .map(|l| v[l] + if l + o < 32 { v[l + o] } else { v[l] })
                        .collect();
                }
                want.push(v[0]);
            }
            assert_eq!(f32s(out(&ex, 1)), want);
            count_ok(
                counts,
                ex.warp_insts(),
                measured("reduction", &format!("n={n}")),
                "reduction",
            );
        }
    }
}

#[test]
fn histogram_atomic_computes_and_counts_as_measured() {
    for (p, counts) in programs() {
        let (n, bins, ctas) = (65536usize, 1u32, 33u32);
        let mut g = Lcg(12345);
        let data: Vec<u32> = (0..n).map(|_| g.next() >> 8).collect();
        let ex = run(
            p,
            "histogram_atomic",
            Dim3::new(ctas, 1, 1),
            Dim3::new(256, 1, 1),
            0,
            vec![
                buf("in", Elem::U32, bytes(&data)),
                buf("hist", Elem::U32, vec![0; bins as usize * 4]),
            ],
            vec![
                Arg::Buffer(0),
                Arg::Buffer(1),
                i32a(n as i32),
                i32a(bins as i32),
            ],
        );
        assert_eq!(i32s(out(&ex, 1)), vec![n as i32]);
        count_ok(
            counts,
            ex.warp_insts(),
            measured("histogram_atomic", "n=65536 bins=1 ctas=33"),
            "histogram_atomic",
        );
    }
}

#[test]
fn bfs_step_computes_and_counts_as_measured() {
    for (p, counts) in programs() {
        let (n, deg) = (16384usize, 4usize);
        let mut g = Lcg(12345);
        let row: Vec<i32> = (0..=n).map(|v| (v * deg) as i32).collect();
        let col: Vec<i32> = (0..n * deg).map(|_| (g.next() % n as u32) as i32).collect();
        let fr: Vec<i32> = (0..n).map(|_| g.next().is_multiple_of(10) as i32).collect();
        let vis: Vec<i32> = (0..n).map(|_| g.next().is_multiple_of(5) as i32).collect();
        let ex = run(
            p,
            "bfs_step",
            Dim3::new(n.div_ceil(256) as u32, 1, 1),
            Dim3::new(256, 1, 1),
            0,
            vec![
                buf("row", Elem::I32, bytes(&row)),
                buf("col", Elem::I32, bytes(&col)),
                buf("frontier", Elem::I32, bytes(&fr)),
                buf("visited", Elem::I32, bytes(&vis)),
                buf("cost", Elem::I32, vec![0; n * 4]),
                buf("next", Elem::I32, vec![0; n * 4]),
            ],
            (0..6).map(Arg::Buffer).chain([i32a(n as i32)]).collect(),
        );
        let mut next = vec![0i32; n];
        for v in (0..n).filter(|&v| fr[v] != 0) {
            for &nb in &col[row[v] as usize..row[v + 1] as usize] {
                if vis[nb as usize] == 0 {
                    next[nb as usize] = 1;
                }
            }
        }
        assert_eq!(i32s(out(&ex, 5)), next);
        count_ok(
            counts,
            ex.warp_insts(),
            measured("bfs_step", "n=16384 deg=4"),
            "bfs_step",
        );
    }
}

#[test]
fn btree_find_computes_and_counts_as_measured() {
    for (p, counts) in programs() {
        let (depth, ctas, block) = (4usize, 8u32, 128u32);
        // bench.cu's build_btree: node j holds 8 keys and 8 children (struct of arrays).
        let nnodes: usize = (0..depth).map(|l| 8usize.pow(l as u32)).sum();
        let range = 8i64.pow(depth as u32);
        let mut nodes = vec![[0i32; 16]; nnodes];
        fn build(
            nodes: &mut [[i32; 16]],
            j: usize,
            level: usize,
            depth: usize,
            lo: i64,
            span: i64,
        ) {
            let part = span / 8;
            for k in 0..8 {
                nodes[j][k] = (lo + k as i64 * part) as i32;
                if level + 1 < depth {
                    let c = 8 * j + 1 + k;
                    nodes[j][8 + k] = c as i32;
                    build(nodes, c, level + 1, depth, lo + k as i64 * part, part);
                } else {
                    nodes[j][8 + k] = (lo + k as i64 * part) as i32;
                }
            }
        }
        build(&mut nodes, 0, 0, depth, 0, range);
        let nq = (ctas * block) as usize;
        let mut g = Lcg(12345);
        let q: Vec<i32> = (0..nq).map(|_| (g.next() as i64 % range) as i32).collect();
        let flat: Vec<i32> = nodes.iter().flatten().copied().collect();
        let ex = run(
            p,
            "btree_find",
            Dim3::new(ctas, 1, 1),
            Dim3::new(block, 1, 1),
            0,
            vec![
                buf("nodes", Elem::I32, bytes(&flat)),
                buf("queries", Elem::I32, bytes(&q)),
                buf("found", Elem::I32, vec![0; nq * 4]),
            ],
            vec![
                Arg::Buffer(0),
                Arg::Buffer(1),
                Arg::Buffer(2),
                i32a(depth as i32),
                i32a(nq as i32),
            ],
        );
        let want: Vec<i32> = q
            .iter()
            .map(|&key| {
                let mut path = [0i32; 16];
                let mut node = 0usize;
                for (l, p) in path.iter_mut().enumerate().take(depth) {
                    let n = &nodes[node];
                    let mut k = 0;
                    while k < 7 && n[k + 1] <= key {
                        k += 1;
                    }
                    *p = node as i32;
                    let _ = l;
                    node = n[8 + k] as usize;
                }
                node as i32 + path[(key % depth as i32) as usize]
            })
            .collect();
        assert_eq!(i32s(out(&ex, 2)), want);
        count_ok(
            counts,
            ex.warp_insts(),
            measured("btree_find", "depth=4 ctas=8 block=128"),
            "btree_find",
        );
    }
}

#[test]
fn pointer_chase_follows_device_addresses() {
    for (p, counts) in programs() {
        let (fp, stride, iters) = (16384u64, 128u64, 1024);
        let slots = fp / stride;
        let mut h = vec![0u8; fp as usize];
        for j in 0..slots {
            let next = GLOBAL_BASE + ((j + 1) % slots) * stride;
            h[(j * stride) as usize..(j * stride + 8) as usize]
                .copy_from_slice(&next.to_le_bytes());
        }
        let ex = run(
            p,
            "pointer_chase",
            Dim3::new(1, 1, 1),
            Dim3::new(1, 1, 1),
            0,
            vec![buf("ring", Elem::U8, h), buf("out", Elem::U64, vec![0; 8])],
            vec![Arg::Buffer(0), Arg::Buffer(1), i32a(iters)],
        );
        let got = u64::from_le_bytes(out(&ex, 1).try_into().unwrap());
        assert_eq!(got, GLOBAL_BASE + (iters as u64 % slots) * stride);
        count_ok(
            counts,
            ex.warp_insts(),
            measured("pointer_chase", "footprint=16384 stride=128 iters=1024"),
            "pointer_chase",
        );
    }
}
