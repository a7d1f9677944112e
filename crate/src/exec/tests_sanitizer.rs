//! The executed stream against the Compute Sanitizer traces recorded on the H100
//! (`tests/hardware/traced/h100-holdout/`): every row of `tests/hardware/results/h100-holdout.csv`
//! with a `trace` is executed from the listing of the binary that ran, with the data
//! `tests/hardware/bench.cu` gives the kernel, and compared with its trace: every warp passes
//! the same PCs in the same order, and its memory instructions, in order, have the same PCs,
//! the same lanes and the same addresses (global ones up to each buffer's base, shared ones
//! exactly, local ones exactly once laid out as the importer lays them out). A row the
//! recording cannot show whole is compared on its memory instructions alone, with the reason
//! ([`scope`]); a workload with no data setup here fails the test, so a new traced row is
//! compared as soon as it is in the table.
//!
//! The recording sees lanes only where it instruments them (memory accesses, block entries):
//! inside a block that lanes leave by a divergent branch, its other instructions carry the
//! block's entry mask, and the groups the branch splits appear as one pass (the executor, as
//! the hardware, issues each group's pass separately, which is what Nsight Compute counts).
//! So PCs are compared with a PC repeated back to back counted once, and lanes on memory
//! instructions.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::{Path, PathBuf};

use super::memory::MAX_SHARED;
use super::tests_kernels::{self, bytes, listing};
use super::*;
use crate::trace::model::{CtaTrace, Dim3, TraceInst, WarpTrace};
use crate::trace::sanitizer::import::LocalLayout;
use crate::workload::builder::SHMEM_BASE;

const DIR: &str = "tests/hardware/traced/h100-holdout";
const TABLE: &str = "tests/hardware/results/h100-holdout.csv";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// What of a traced row is compared.
#[derive(Clone, Copy, Debug)]
enum Scope {
    /// Every PC in order, and the memory instructions.
    Everything,
    /// Every PC in order with each loop's trips that pass no memory instruction counted once
    /// (on both sides), and the memory instructions, for the reason given.
    SilentLoopsOnce(&'static str),
    /// Every PC in order outside `[lo, hi)` (a part the recording leaves out), and the memory
    /// instructions, for the reason given.
    PcsOutside(u32, u32, &'static str),
    /// The memory instructions alone (PCs, lanes, addresses), for the reason given.
    MemoryOnly(&'static str),
}

/// Why a workload's recording cannot show every PC; [`Scope::Everything`] for the others.
fn scope(workload: &str) -> Scope {
    match workload {
        // The Compute Sanitizer importer, between two recorded accesses, takes the shortest
        // SASS path; the key search's last pass (lanes leaving the loop at its `k < 7` test,
        // before any load) holds no memory instruction, so the recording cannot show it, nor
        // the BSYNC each group that leaves the loop early issues.
        "btree_find" => Scope::MemoryOnly(
            "the key search's last pass (lanes leaving at `k < 7` before any load) and the \
             BSYNC of each group leaving early hold no memory instruction: the importer's \
             shortest path between recorded accesses leaves them out",
        ),
        "l1_lines" => Scope::SilentLoopsOnce(
            "ptxas hoisted the timed loop's eight loads in front of it (0x3a0-0x410), so its \
             `reps` trips of FADDs (0x430-0x4d0) hold no memory instruction: the importer takes \
             such a loop the fewest times the control flow allows, once",
        ),
        "loop_probe" => Scope::PcsOutside(
            0xf0,
            0x560,
            "the `trips` loop of FADDs (0x0f0-0x550) holds no memory instruction and is entered \
             past a run-time `trips >= 1` test (0x0e0): the importer takes the fewest trips the \
             control flow allows, none, so the recorded stream leaves the loop out",
        ),
        _ => Scope::Everything,
    }
}

/// One row of the table with a trace.
struct Row {
    workload: String,
    params: String,
    kernel: String,
    trace: String,
    /// Nsight Compute's warp instructions of the same launch.
    warp_insts: u64,
}

fn traced_rows() -> Vec<Row> {
    let text = std::fs::read_to_string(repo().join(TABLE)).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (w, p, k, t) = (col("workload"), col("params"), col("kernel"), col("trace"));
    let n = col("warp_insts");
    lines
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .filter(|c| c.get(t).is_some_and(|t| !t.is_empty()))
        .map(|c| Row {
            workload: c[w].into(),
            params: c[p].into(),
            kernel: c[k].into(),
            trace: c[t].into(),
            warp_insts: c[n].parse().unwrap(),
        })
        .collect()
}

/// A row's `key=value` parameters, with bench.cu's defaults.
struct Params(BTreeMap<String, i64>);

impl Params {
    fn parse(s: &str) -> Params {
        Params(
            s.split_whitespace()
                .map(|kv| {
                    let (k, v) = kv.split_once('=').unwrap();
                    (k.to_string(), v.parse().unwrap())
                })
                .collect(),
        )
    }
    fn get(&self, k: &str, default: i64) -> i64 {
        self.0.get(k).copied().unwrap_or(default)
    }
}

/// An input buffer holding `data` (the kernels' tests write theirs back).
fn buf(name: &str, elem: Elem, data: Vec<u8>) -> BufferDef {
    BufferDef {
        output: false,
        ..tests_kernels::buf(name, elem, data)
    }
}

/// bench.cu's `input(bytes)`: float i is (i % 97) * 0.25.
fn input(name: &str, bytes_len: usize) -> BufferDef {
    let v: Vec<f32> = (0..bytes_len / 4).map(|i| (i % 97) as f32 * 0.25).collect();
    buf(name, Elem::F32, bytes(&v))
}

/// bench.cu's `alloc(bytes)`.
fn alloc(name: &str, elem: Elem, bytes_len: usize) -> BufferDef {
    buf(name, elem, vec![0; bytes_len])
}

/// bench.cu's `clk_buf(pairs)`.
fn clk(pairs: usize) -> BufferDef {
    alloc("clk", Elem::I64, pairs * 16)
}

fn scalar(v: i64) -> Arg {
    Arg::Scalar((v as i32).to_le_bytes().to_vec())
}

/// bench.cu's generator.
struct Lcg(u32);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0
    }
}

/// bench.cu's `build_btree`: node j holds FANOUT keys then FANOUT children.
fn btree(depth: usize) -> (Vec<i32>, i64) {
    const FANOUT: usize = 8;
    let (mut nnodes, mut width, mut range) = (0usize, 1usize, 1i64);
    for _ in 0..depth {
        nnodes += width;
        width *= FANOUT;
        range *= FANOUT as i64;
    }
    let mut nodes = vec![0i32; nnodes * 2 * FANOUT];
    fn build(nodes: &mut [i32], j: usize, level: usize, depth: usize, lo: i64, span: i64) {
        let part = span / FANOUT as i64;
        for k in 0..FANOUT {
            nodes[j * 2 * FANOUT + k] = (lo + k as i64 * part) as i32;
            let child = if level + 1 < depth {
                let c = FANOUT * j + 1 + k;
                build(nodes, c, level + 1, depth, lo + k as i64 * part, part);
                c as i32
            } else {
                (lo + k as i64 * part) as i32
            };
            nodes[j * 2 * FANOUT + FANOUT + k] = child;
        }
    }
    build(&mut nodes, 0, 0, depth, 0, range);
    (nodes, range)
}

/// A row's launch as bench.cu makes it, and how many local lane addresses its kernel reaches
/// (each checked against the recording).
struct Case {
    spec: LaunchSpec,
    locals: usize,
}

fn case(workload: &str, kernel: &str, p: &Params) -> Result<Case, String> {
    let (grid, block, buffers, args, locals): (u32, u32, Vec<BufferDef>, Vec<Arg>, usize) =
        match workload {
            "btree_find" => {
                let (depth, ctas, block) =
                    (p.get("depth", 4), p.get("ctas", 8), p.get("block", 128));
                let (nodes, range) = btree(depth as usize);
                let nq = (ctas * block) as usize;
                let mut g = Lcg(12345);
                let q: Vec<i32> = (0..nq).map(|_| (g.next() as i64 % range) as i32).collect();
                (
                    ctas as u32,
                    block as u32,
                    vec![
                        buf("nodes", Elem::I32, bytes(&nodes)),
                        buf("queries", Elem::I32, bytes(&q)),
                        alloc("found", Elem::I32, nq * 4),
                    ],
                    vec![
                        Arg::Buffer(0),
                        Arg::Buffer(1),
                        Arg::Buffer(2),
                        scalar(depth),
                        scalar(nq as i64),
                    ],
                    // Every query stores depth entries of its path and loads one.
                    nq * (depth as usize + 1),
                )
            }
            "bfs_step" => {
                let (n, deg, block) = (p.get("n", 65536), p.get("deg", 8), p.get("block", 256));
                let (n, deg) = (n as usize, deg as usize);
                let mut g = Lcg(12345);
                let row: Vec<i32> = (0..=n).map(|v| (v * deg) as i32).collect();
                let col: Vec<i32> = (0..n * deg).map(|_| (g.next() % n as u32) as i32).collect();
                let fr: Vec<i32> = (0..n).map(|_| g.next().is_multiple_of(10) as i32).collect();
                let vis: Vec<i32> = (0..n).map(|_| g.next().is_multiple_of(5) as i32).collect();
                (
                    n.div_ceil(block as usize) as u32,
                    block as u32,
                    vec![
                        buf("row", Elem::I32, bytes(&row)),
                        buf("col", Elem::I32, bytes(&col)),
                        buf("frontier", Elem::I32, bytes(&fr)),
                        buf("visited", Elem::I32, bytes(&vis)),
                        alloc("cost", Elem::I32, n * 4),
                        alloc("next", Elem::I32, n * 4),
                    ],
                    (0..6).map(Arg::Buffer).chain([scalar(n as i64)]).collect(),
                    0,
                )
            }
            "histogram_atomic" => {
                let (n, bins) = (p.get("n", 1 << 20), p.get("bins", 16));
                let (ctas, block) = (p.get("ctas", 264), p.get("block", 256));
                let mut g = Lcg(12345);
                let data: Vec<u32> = (0..n).map(|_| g.next() >> 8).collect();
                (
                    ctas as u32,
                    block as u32,
                    vec![
                        buf("in", Elem::U32, bytes(&data)),
                        alloc("hist", Elem::U32, bins as usize * 4),
                    ],
                    vec![Arg::Buffer(0), Arg::Buffer(1), scalar(n), scalar(bins)],
                    0,
                )
            }
            "l1_lines" => (
                1,
                128,
                vec![
                    input("buf", 8 * 1024 * 4),
                    alloc("sink", Elem::F32, 4),
                    clk(4),
                ],
                vec![
                    Arg::Buffer(0),
                    Arg::Buffer(1),
                    Arg::Buffer(2),
                    scalar(p.get("lines", 1)),
                    scalar(p.get("reps", 256)),
                ],
                0,
            ),
            "mshr_merge" => {
                let warps = p.get("warps", 1);
                (
                    1,
                    32 * warps as u32,
                    vec![
                        input("buf", 4096),
                        alloc("sink", Elem::F32, 4),
                        clk(warps as usize),
                    ],
                    vec![Arg::Buffer(0), Arg::Buffer(1), Arg::Buffer(2)],
                    0,
                )
            }
            "local_spill" => {
                let (n, reps) = (p.get("n", 32), p.get("reps", 16));
                let (ctas, block) = (p.get("ctas", 1), p.get("block", 128));
                (
                    ctas as u32,
                    block as u32,
                    vec![
                        input("seed", 32 * 4),
                        alloc("out", Elem::I32, (ctas * block) as usize * 4),
                        clk(block as usize / 32),
                    ],
                    vec![
                        Arg::Buffer(0),
                        Arg::Buffer(1),
                        Arg::Buffer(2),
                        scalar(n),
                        scalar(reps),
                    ],
                    // Every thread stores n elements and loads n, reps times.
                    (ctas * block * n * reps * 2) as usize,
                )
            }
            "ifetch" | "ffma_chain" => (
                1,
                32,
                vec![alloc("out", Elem::F32, 32 * 4), clk(1)],
                vec![Arg::Buffer(0), Arg::Buffer(1)],
                0,
            ),
            "loop_probe" => (
                1,
                32,
                vec![alloc("out", Elem::F32, 32 * 4), clk(1)],
                vec![Arg::Buffer(0), Arg::Buffer(1), scalar(p.get("trips", 64))],
                0,
            ),
            "issue_order" => (
                1,
                512,
                vec![alloc("out", Elem::F32, 512 * 4), clk(4)],
                vec![Arg::Buffer(0), Arg::Buffer(1)],
                0,
            ),
            _ => return Err(format!("no data setup for workload {workload} (bench.cu)")),
        };
    Ok(Case {
        spec: LaunchSpec {
            buffers,
            launches: vec![Launch {
                kernel: kernel.into(),
                grid: Dim3::new(grid, 1, 1),
                block: Dim3::new(block, 1, 1),
                shared: 0,
                args,
                repeat: None,
            }],
            constants: Vec::new(),
        },
        locals,
    })
}

fn recorded(rel: &str) -> Result<MemTrace, String> {
    let p = repo().join("tests/hardware").join(rel);
    let mut src = crate::trace::open::open_path(&p, Arch::Hopper).map_err(|e| e.to_string())?;
    MemTrace::collect(&mut *src).map_err(|e| e.to_string())
}

/// Equal sequences, or the first place they differ.
fn same<T: PartialEq + Debug>(got: &[T], want: &[T], what: &str) -> Result<(), String> {
    if let Some(i) = (0..got.len().min(want.len())).find(|&i| got[i] != want[i]) {
        let near = |v: &[T]| format!("{:x?}", &v[i.saturating_sub(2)..(i + 3).min(v.len())]);
        return Err(format!(
            "{what}: first difference at {i} of {} executed / {} recorded: executed {} recorded {}",
            got.len(),
            want.len(),
            near(got),
            near(want)
        ));
    }
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} executed, {} recorded (equal up to the shorter)",
            got.len(),
            want.len()
        ));
    }
    Ok(())
}

/// A warp's PCs in order with every trip around a loop that passes no memory instruction taken
/// out (a PC met again since the last memory instruction cuts the stream back to its first
/// pass), as the importer rebuilds a stream between recorded points; a PC repeated back to
/// back counts once.
fn pcs_silent_loops_once(t: &WarpTrace) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    let mut since = 0;
    for i in &t.insts {
        if let Some(at) = out[since..].iter().position(|&p| p == i.pc) {
            out.truncate(since + at);
        }
        out.push(i.pc);
        if i.mem_width > 0 && i.mask != 0 {
            since = out.len();
        }
    }
    out
}

/// What [`same_stream`] compared.
#[derive(Debug, Default)]
struct Compared {
    insts: usize,
    mem: usize,
    locals: usize,
}

/// Compares two launches warp by warp; `dev` maps executed addresses to buffers, whose
/// recorded bases are learnt from the first access and must hold for every other. Local
/// addresses are compared exactly, once `local` has laid the executed ones out as the importer
/// did (`None` for an address outside the local window); shared ones exactly. The PCs as
/// `scope` says.
fn same_stream(
    got: &[CtaTrace],
    want: &[CtaTrace],
    dev: &Device,
    scope: Scope,
    local: &dyn Fn(u64) -> Option<u64>,
) -> Result<Compared, String> {
    let mut n = Compared::default();
    if got.len() != want.len() {
        return Err(format!(
            "{} CTAs executed, {} recorded",
            got.len(),
            want.len()
        ));
    }
    let want: BTreeMap<(u32, u32, u32), &CtaTrace> =
        want.iter().map(|c| ((c.id.z, c.id.y, c.id.x), c)).collect();
    let mut bases: BTreeMap<usize, u64> = BTreeMap::new();
    for c in got {
        let w = want
            .get(&(c.id.z, c.id.y, c.id.x))
            .ok_or_else(|| format!("CTA {} not recorded", c.id))?;
        if c.warps.len() != w.warps.len() {
            return Err(format!(
                "CTA {}: {} warps executed, {} recorded",
                c.id,
                c.warps.len(),
                w.warps.len()
            ));
        }
        for (g, r) in c.warps.iter().zip(&w.warps) {
            let at = format!("CTA {} warp {}", c.id, g.warp_id);
            if g.warp_id != r.warp_id {
                return Err(format!("{at}: recorded warp {}", r.warp_id));
            }
            let pcs = |t: &WarpTrace| {
                let mut v: Vec<u32> = t.insts.iter().map(|i| i.pc).collect();
                v.dedup();
                v
            };
            match scope {
                Scope::Everything => same(&pcs(g), &pcs(r), &format!("{at}: PCs in order"))?,
                Scope::SilentLoopsOnce(_) => same(
                    &pcs_silent_loops_once(g),
                    &pcs_silent_loops_once(r),
                    &format!("{at}: PCs in order, memory-free loop trips once"),
                )?,
                Scope::PcsOutside(lo, hi, _) => {
                    let outside = |t: &WarpTrace| -> Vec<u32> {
                        pcs(t)
                            .into_iter()
                            .filter(|p| !(lo..hi).contains(p))
                            .collect()
                    };
                    same(
                        &outside(g),
                        &outside(r),
                        &format!("{at}: PCs in order outside {lo:#x}..{hi:#x}"),
                    )?
                }
                Scope::MemoryOnly(_) => {}
            }
            let mem = |t: &WarpTrace| -> Vec<TraceInst> {
                t.insts
                    .iter()
                    .filter(|i| i.mem_width > 0 && i.mask != 0)
                    .copied()
                    .collect()
            };
            let (gm, rm) = (mem(g), mem(r));
            let key =
                |v: &[TraceInst]| -> Vec<(u32, u32)> { v.iter().map(|i| (i.pc, i.mask)).collect() };
            same(
                &key(&gm),
                &key(&rm),
                &format!("{at}: memory instructions (pc, lanes) in order"),
            )?;
            n.insts += g.insts.len();
            n.mem += gm.len();
            for (a, b) in gm.iter().zip(&rm) {
                let ga: Vec<u64> = g.lane_addrs(a).map(|x| x.1).collect();
                let ra: Vec<u64> = r.lane_addrs(b).map(|x| x.1).collect();
                let at = format!("{at} pc {:#x}", a.pc);
                if ga.len() != ra.len() {
                    return Err(format!("{at}: {} lanes, {} recorded", ga.len(), ra.len()));
                }
                for (x, y) in ga.iter().zip(&ra) {
                    if let Some(l) = local(*x) {
                        if l != *y {
                            return Err(format!("{at}: local address {l:#x}, recorded {y:#x}"));
                        }
                        n.locals += 1;
                        continue;
                    }
                    if (SHMEM_BASE..SHMEM_BASE + MAX_SHARED as u64).contains(x) {
                        if x != y {
                            return Err(format!("{at}: shared address {x:#x}, recorded {y:#x}"));
                        }
                        continue;
                    }
                    let Some(i) = dev
                        .bufs
                        .iter()
                        .position(|d| *x >= d.base && *x < d.base + d.data.len() as u64)
                    else {
                        return Err(format!("{at}: address {x:#x} outside every buffer"));
                    };
                    let off = x - dev.bufs[i].base;
                    let base = *bases.entry(i).or_insert(y.wrapping_sub(off));
                    if y.wrapping_sub(base) != off {
                        return Err(format!(
                            "{at}: buffer {i} offset {off:#x}, recorded {:#x}",
                            y.wrapping_sub(base)
                        ));
                    }
                }
            }
        }
    }
    if n.mem == 0 || bases.is_empty() {
        return Err(format!("nothing compared: {n:?}"));
    }
    Ok(n)
}

/// Executes one row and compares it with its trace; a line saying what was compared.
fn compare_row(p: &Program, row: &Row) -> Result<String, String> {
    let case = case(&row.workload, &row.kernel, &Params::parse(&row.params))?;
    let ex = execute(p, &case.spec, &row.kernel).map_err(|e| e.to_string())?;
    // What the recording may not show whole, Nsight Compute counted.
    if ex.warp_insts() != row.warp_insts {
        return Err(format!(
            "{} warp instructions executed, Nsight Compute's warp_insts {}",
            ex.warp_insts(),
            row.warp_insts
        ));
    }
    let rec = recorded(&row.trace)?;
    if rec.kernels.len() != 1 {
        return Err(format!("{} kernels recorded", rec.kernels.len()));
    }
    // Local memory: the importer sizes a thread's frame by the offsets the kernel reached,
    // the executor by the frame the listing reserves; both lay it out with `LocalLayout`, so
    // the executed addresses are laid out again with the reached frame to compare exactly.
    let k = p.kernel(&row.kernel).map_err(|e| e.to_string())?;
    let warps = case.spec.launches[0].block.count().div_ceil(32) as usize;
    let exec = super::cta::local_layout(k.frame, warps);
    let (mut lo, mut hi) = (u64::MAX, 0);
    for c in &ex.trace.kernels[0].ctas {
        for w in &c.warps {
            for i in w.insts.iter().filter(|i| i.mem_width > 0) {
                for (_, a) in w.lane_addrs(i) {
                    if let Some(at) = exec.locate(a) {
                        lo = lo.min(at.rel);
                        hi = hi.max(at.rel + i.mem_width as u64);
                    }
                }
            }
        }
    }
    let lo = lo & !15;
    let reached = LocalLayout::new(lo, hi.saturating_sub(lo), warps as u64);
    let scope = scope(&row.workload);
    let n = same_stream(
        &ex.trace.kernels[0].ctas,
        &rec.kernels[0].ctas,
        &ex.device,
        scope,
        &|a| {
            exec.locate(a)
                .map(|at| reached.at(0, at.region, at.lane, at.rel - lo))
        },
    )?;
    if n.locals != case.locals {
        return Err(format!(
            "{} local lane addresses compared, the kernel reaches {}",
            n.locals, case.locals
        ));
    }
    Ok(match scope {
        Scope::Everything => format!(
            "every PC of {} warp instructions, {} memory instructions ({} local lane addresses)",
            n.insts, n.mem, n.locals
        ),
        Scope::SilentLoopsOnce(why) => format!(
            "PCs of {} warp instructions with memory-free loop trips once, {} memory \
             instructions ({} local lane addresses): {why}",
            n.insts, n.mem, n.locals
        ),
        Scope::PcsOutside(lo, hi, why) => format!(
            "PCs of {} warp instructions outside {lo:#x}..{hi:#x}, {} memory instructions ({} \
             local lane addresses): {why}",
            n.insts, n.mem, n.locals
        ),
        Scope::MemoryOnly(why) => format!(
            "{} memory instructions ({} local lane addresses) only: {why}",
            n.mem, n.locals
        ),
    })
}

#[test]
fn every_traced_row_executes_as_the_card_traced_it() {
    let p = Program::from_listing(
        &listing(&format!("{DIR}/kernels.sm_90.sass.xz")),
        DIR,
        Arch::Hopper,
    )
    .unwrap();
    let rows = traced_rows();
    assert!(rows.len() >= 25, "{} traced rows", rows.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let mut results: Vec<(usize, Result<String, String>)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(row) = rows.get(i) else { break };
                        out.push((i, compare_row(&p, row)));
                    }
                    out
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    results.sort_by_key(|r| r.0);
    let mut bad = Vec::new();
    for (i, r) in results {
        let row = &rows[i];
        let name = format!("{} {} ({})", row.workload, row.params, row.trace);
        match r {
            Ok(line) => eprintln!("{name}: {line}"),
            Err(e) => bad.push(format!("{name}: {e}")),
        }
    }
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}
