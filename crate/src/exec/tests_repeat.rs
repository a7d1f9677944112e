//! Repeated launches (`until_zero`) and the streamed executed stream: breadth-first search by
//! `bfs_step` of `tests/hardware/kernels.cu` (the measured sm_90 binary) relaunched until no
//! vertex is reached, its levels equal to a host BFS; streaming gives the CTAs, headers and
//! hash the in-memory execution gives, in whatever order the launches are opened.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use super::tests_kernels::listing;
use super::*;
use crate::trace::model::TraceSource;

const SASS: &str = "tests/hardware/traced/h100-holdout/kernels.sm_90.sass.xz";

fn bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A random graph of `n` vertices with `deg` edges each (CSR), as bench.cu's generator makes.
fn graph(n: usize, deg: usize) -> (Vec<i32>, Vec<i32>) {
    let mut s = 12345u32;
    let row = (0..=n).map(|v| (v * deg) as i32).collect();
    let col = (0..n * deg)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s % n as u32) as i32
        })
        .collect();
    (row, col)
}

/// BFS with `bfs_step`: `cost` doubles as `visited` (non-zero once reached; the source has
/// level 1), the new frontier is `next`, which becomes `front` for the following launch.
fn bfs_spec(n: usize, deg: usize, max_iterations: u32) -> LaunchSpec {
    let text = format!(
        r#"
[[buffer]]
name = "row"
type = "i32"
len = {rows}
[[buffer]]
name = "col"
type = "i32"
len = {edges}
[[buffer]]
name = "front"
type = "i32"
len = {n}
[[buffer]]
name = "cost"
type = "i32"
len = {n}
output = true
[[buffer]]
name = "next"
type = "i32"
len = {n}

[[launch]]
kernel = "bfs_step"
grid = {grid}
block = 256
args = ["row", "col", "front", "cost", "cost", "next", {n}]
until_zero = "next"
max_iterations = {max_iterations}
swap = ["front", "next"]
zero = ["next"]
"#,
        rows = n + 1,
        edges = n * deg,
        grid = n.div_ceil(256)
    );
    let mut spec = LaunchSpec::parse(&text, "bfs.toml", Path::new("."), None).unwrap();
    let (row, col) = graph(n, deg);
    let mut one = vec![0i32; n];
    one[0] = 1;
    spec.buffers[0].init = Init::Bytes(bytes(&row));
    spec.buffers[1].init = Init::Bytes(bytes(&col));
    spec.buffers[2].init = Init::Bytes(bytes(&one));
    spec.buffers[3].init = Init::Bytes(bytes(&one));
    spec
}

fn program() -> Program {
    Program::from_listing(&listing(SASS), SASS, Arch::Hopper).unwrap()
}

#[test]
fn bfs_step_repeated_until_no_vertex_is_reached_gives_the_bfs_levels() {
    let (n, deg) = (4096, 2);
    let p = program();
    let ex = execute(&p, &bfs_spec(n, deg, 64), SASS).unwrap();
    let (row, col) = graph(n, deg);
    let mut level = vec![0i32; n];
    level[0] = 1;
    let mut q = VecDeque::from([0usize]);
    while let Some(v) = q.pop_front() {
        for &nb in &col[row[v] as usize..row[v + 1] as usize] {
            if level[nb as usize] == 0 {
                level[nb as usize] = level[v] + 1;
                q.push_back(nb as usize);
            }
        }
    }
    let got: Vec<i32> = ex.device.bufs[3]
        .data
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(got, level);
    let depth = *level.iter().max().unwrap() as usize;
    assert!(depth > 3, "a graph worth searching: {depth} levels");
    // One launch per level: the last one reaches nothing.
    assert_eq!(ex.trace.kernels.len(), depth);
    assert!(ex.trace.kernels.iter().all(|k| k.info.name == "bfs_step"));
    // Bounded: too few iterations is an error naming the key and the flag.
    let e = execute(&p, &bfs_spec(n, deg, 2), SASS)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("bfs.toml: key `launch[0].max_iterations`") && e.contains("\"next\""),
        "{e}"
    );
}

#[test]
fn repeat_keys_are_checked() {
    for (extra, want) in [
        ("max_iterations = 3", "launch[0].max_iterations"),
        (
            "until_zero = \"nope\"\nmax_iterations = 3",
            "launch[0].until_zero",
        ),
        (
            "until_zero = \"a\"\nmax_iterations = 3\nswap = [\"a\"]",
            "launch[0].swap",
        ),
        ("until_zero = \"a\"", "launch[0].max_iterations"),
    ] {
        let text = format!(
            "[[buffer]]\nname = \"a\"\ntype = \"u32\"\nlen = 4\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\n{extra}\n"
        );
        let e = LaunchSpec::parse(&text, "s.toml", Path::new("."), None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains(want), "{extra}: {e}");
    }
}

#[test]
fn streamed_execution_equals_execution_in_memory_in_any_opening_order() {
    let p = Arc::new(program());
    let spec = Arc::new(bfs_spec(2048, 3, 64));
    let ex = execute(&p, &spec, SASS).unwrap();
    let mut src = ExecSource::new(p.clone(), spec.clone(), SASS).unwrap();
    assert_eq!(src.commands(), ex.trace.commands.as_slice());
    // Launch 0 pulled once, then launch 1 opened and drained (launch 0 runs ahead into its
    // queue), then the rest in order.
    let mut s0 = src.open_kernel_owned(0).unwrap();
    let first = s0.next_cta().unwrap().unwrap();
    let mut s1 = src.open_kernel_owned(1).unwrap();
    let k1 = KernelTrace::collect(&mut *s1).unwrap();
    let mut k0 = KernelTrace::collect(&mut *s0).unwrap();
    k0.ctas.insert(0, first);
    let mut got = vec![k0, k1];
    for k in 2..src.kernel_count() {
        got.push(KernelTrace::collect(&mut *src.open_kernel_owned(k).unwrap()).unwrap());
    }
    assert_eq!(got.len(), ex.trace.kernels.len());
    for (g, w) in got.iter().zip(&ex.trace.kernels) {
        assert_eq!(g.info, w.info);
        assert_eq!(g.ctas, w.ctas);
    }
    assert_eq!(src.trace_hash(), ex.trace.trace_hash());
    // A source asked for its hash before it ran computes it.
    let fresh = ExecSource::new(p, spec, SASS).unwrap();
    assert_eq!(fresh.trace_hash(), ex.trace.trace_hash());
}
