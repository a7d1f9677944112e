//! Breadth-first search, top-down, one kernel launch per level (the Rodinia-style BFS): an
//! irregular gather over a seeded random CSR graph, with loops whose trip count differs per lane.
//!
//! ```text
//!  graph: node v has deg(v) = 1 + rnd % (2*degree - 1) neighbours, each rnd % nodes (SplitMix64)
//!  launch L (L = 0, 1, ... until the frontier is empty), thread v:
//!    if (v >= nodes || level[v] != L) return;            @P0 EXIT, LDG level[v], @P0 EXIT
//!    for (e = row[v]; e < row[v+1]; e++) {               LDG row[v], LDG row[v+1]; BSSY
//!        u = col[e];                                     LDG col[e]      mask: lanes with e < end
//!        if (level[u] == INF) level[u] = L + 1;          LDG level[u], @!P1 STG level[u]
//!    }                                                   @!P0 BRA back; BSYNC; EXIT
//! ```
//! The model knows every level in advance (a host-side BFS from node 0), so "unvisited at launch
//! L" is exact: `level[u] > L`. Arrays: `row` (nodes+1 ints) at 0x7f0000000000, `col` (edges
//! ints), `level` (nodes ints) after it, all copied in.

use super::builder::{r, KernelBuilder, Layout};
use super::params::{Args, ParamDesc};
use super::sass::{self, BINARY_VERSION};
use crate::trace::model::{Dim3, MemTrace};
use crate::Result;

pub static PARAMS: [ParamDesc; 5] = [
    ParamDesc::num("nodes", "4096", 2, 1 << 22, "number of graph nodes"),
    ParamDesc::num("degree", "8", 1, 64, "average out-degree"),
    ParamDesc::num("seed", "1", 0, u64::MAX, "graph seed"),
    ParamDesc::num("block", "256", 32, 1024, "threads per block"),
    BINARY_VERSION,
];

/// SplitMix64: a tiny, fixed, seeded generator (same numbers on every platform).
#[derive(Clone, Copy, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// A CSR graph and its BFS levels from node 0 (`u32::MAX` = unreachable).
pub struct Graph {
    pub row: Vec<u64>,
    pub col: Vec<u64>,
    pub level: Vec<u32>,
}

pub fn graph(nodes: u64, degree: u64, seed: u64) -> Graph {
    let mut rng = SplitMix64(seed);
    let mut row = Vec::with_capacity(nodes as usize + 1);
    let mut col = Vec::new();
    row.push(0);
    for _ in 0..nodes {
        let deg = 1 + rng.below(2 * degree - 1);
        for _ in 0..deg {
            col.push(rng.below(nodes));
        }
        row.push(col.len() as u64);
    }
    let mut level = vec![u32::MAX; nodes as usize];
    level[0] = 0;
    let mut frontier = vec![0u64];
    let mut l = 0;
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &v in &frontier {
            for &u in &col[row[v as usize] as usize..row[v as usize + 1] as usize] {
                if level[u as usize] == u32::MAX {
                    level[u as usize] = l + 1;
                    next.push(u);
                }
            }
        }
        frontier = next;
        l += 1;
    }
    Graph { row, col, level }
}

/// Per launch L, a warp runs 6 instructions when all its lanes are out of range, 12 when none
/// of its nodes is in the frontier, else `22 + 9 * maxdeg` on sm_80 (one fewer before sm_80),
/// with maxdeg the largest degree among its frontier lanes. Iteration j of the edge loop runs
/// with the frontier lanes whose degree exceeds j.
pub fn bfs(a: &Args) -> Result<MemTrace> {
    let (nodes, degree, seed, block) = (
        a.num("nodes"),
        a.num("degree"),
        a.num("seed"),
        a.num("block"),
    );
    let bv = a.u32("binary_version");
    let isa = sass::isa(bv);
    let g = graph(nodes, degree, seed);
    let mut lay = Layout::new();
    let prow = lay.input((nodes + 1) * 4);
    let pcol = lay.input(g.col.len() as u64 * 4);
    let plev = lay.input(nodes * 4);
    let depth = g
        .level
        .iter()
        .filter(|&&l| l != u32::MAX)
        .max()
        .copied()
        .unwrap_or(0);
    let grid = nodes.div_ceil(block) as u32;
    let mut kernels = Vec::new();
    for lv in 0..=depth {
        let mut kb = KernelBuilder::new(
            "_Z8bfs_stepPKiS0_Pii",
            Dim3::new(grid, 1, 1),
            Dim3::new(block as u32, 1, 1),
        )
        .binary_version(bv)
        .nregs(18)
        .kernel_id(lv + 1);
        let g = &g;
        kb.add_all_ctas(|w| {
            sass::stack_ptr(w);
            sass::global_index_x(w, r(0), r(3));
            let oob = w.lanes(|t| t.gx >= nodes);
            if !sass::bounds_exit(w, r(0), oob) {
                return;
            }
            w.alu_imm("MOV", &[r(5)], &[], 4);
            sass::uldc(w, isa);
            w.alu("IMAD.WIDE", &[r(2)], &[r(0), r(5)]);
            w.mem(isa.ldg, &[r(4)], &[r(2)], 4, |t| plev + 4 * t.gx);
            w.alu("ISETP.NE.AND", &[], &[r(4)]);
            let out = w.lanes(|t| g.level[t.gx as usize] != lv);
            if !w.exit_if(out) {
                return;
            }
            w.alu("IMAD.WIDE", &[r(6)], &[r(0), r(5)]);
            w.mem(isa.ldg, &[r(8)], &[r(6)], 4, |t| prow + 4 * t.gx);
            w.mem(isa.ldg, &[r(9)], &[r(6)], 4, |t| prow + 4 * (t.gx + 1));
            w.alu("ISETP.GE.AND", &[], &[r(8), r(9)]);
            let empty = w.lanes(|t| g.row[t.gx as usize] == g.row[t.gx as usize + 1]);
            if !w.exit_if(empty) {
                return;
            }
            w.alu("IADD3", &[r(17)], &[r(4)]);
            w.alu("IMAD.WIDE", &[r(10)], &[r(8), r(5)]);
            let after = w.pc() + 16 * 10;
            w.alu_imm("BSSY", &[], &[], after as u64);
            let frontier = w.mask();
            let deg = |gx: u64| g.row[gx as usize + 1] - g.row[gx as usize];
            let top = w.pc();
            let mut j = 0u64;
            while w.mask() != 0 {
                w.set_pc(top);
                let edge = |gx: u64| g.col[(g.row[gx as usize] + j) as usize];
                w.mem(isa.ldg, &[r(12)], &[r(10)], 4, |t| {
                    pcol + 4 * (g.row[t.gx as usize] + j)
                });
                w.alu("IMAD.WIDE", &[r(14)], &[r(12), r(5)]);
                w.mem(isa.ldg, &[r(16)], &[r(14)], 4, |t| plev + 4 * edge(t.gx));
                w.alu("ISETP.NE.AND", &[], &[r(16)]);
                let fresh = w.lanes(|t| g.level[edge(t.gx) as usize] > lv);
                w.mem_p(fresh, isa.stg, &[], &[r(14), r(17)], 4, |t| {
                    plev + 4 * edge(t.gx)
                });
                w.alu("IADD3", &[r(8)], &[r(8)]);
                w.alu("IADD3", &[r(10)], &[r(10)]);
                w.alu("ISETP.GE.AND", &[], &[r(8), r(9)]);
                let more = w.lanes(|t| deg(t.gx) > j + 1);
                w.bra_if(more, top);
                w.set_mask(more);
                j += 1;
            }
            w.set_mask(frontier);
            w.alu("BSYNC", &[], &[]);
            w.exit();
        });
        kernels.push(kb.build());
    }
    Ok(lay.into_trace("bfs", kernels))
}
