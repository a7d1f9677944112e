//! The SASS control-flow path a warp took between two recorded instructions.
//!
//! ```text
//!  recorded a ──? ── ... ──? ──> recorded b       successors: fall-through, BRA target,
//!                                                 none after an unpredicated EXIT
//! ```
//! The path may not pass an unpredicated memory instruction or barrier (the tracer would have
//! recorded it); predicated ones may be passed (all lanes off). Among the allowed paths the
//! shortest is chosen (fewest instructions, fall-through first at ties), so a loop with no
//! memory access between two recorded points runs as few trips as the control flow allows.
//! Each conditional branch on the chosen path whose other side could also have reached `b`
//! counts as one ambiguous choice (reported per kernel by the importer).

use std::collections::{HashMap, VecDeque};

use super::sass::SassFunction;

/// A path: the instructions strictly between the two points, and its ambiguous choices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub insts: Vec<usize>,
    pub ambiguous: u32,
}

/// Path finder over one function, caching every (from, to) it has answered.
pub struct PathFinder<'a> {
    f: &'a SassFunction,
    cache: HashMap<(Option<usize>, usize), Option<Path>>,
}

impl<'a> PathFinder<'a> {
    pub fn new(f: &'a SassFunction) -> Self {
        PathFinder {
            f,
            cache: HashMap::new(),
        }
    }

    /// Successors of instruction `i` (fall-through first).
    pub fn successors(&self, i: usize) -> Vec<usize> {
        let inst = &self.f.insts[i];
        let next = (i + 1 < self.f.insts.len()).then_some(i + 1);
        if inst.never {
            return next.into_iter().collect();
        }
        if inst.is_exit() {
            return if inst.predicated {
                next.into_iter().collect()
            } else {
                Vec::new()
            };
        }
        if inst.is_unsupported_flow() {
            return Vec::new();
        }
        if inst.is_branch() {
            let t = inst.target.and_then(|t| self.f.index.get(&t).copied());
            return if inst.predicated {
                next.into_iter().chain(t).collect()
            } else {
                t.into_iter().collect()
            };
        }
        next.into_iter().collect()
    }

    /// May a path pass through `i` (other than as its end)?
    fn passable(&self, i: usize) -> bool {
        let inst = &self.f.insts[i];
        !(inst.is_recorded() && !inst.predicated && !inst.never)
    }

    /// The path from after `from` (None: the kernel entry, instruction 0 included) to `to`.
    pub fn find(&mut self, from: Option<usize>, to: usize) -> Option<Path> {
        if let Some(p) = self.cache.get(&(from, to)) {
            return p.clone();
        }
        let p = self.search(from, to);
        self.cache.insert((from, to), p.clone());
        p
    }

    fn search(&self, from: Option<usize>, to: usize) -> Option<Path> {
        let n = self.f.insts.len();
        let starts: Vec<usize> = match from {
            None => vec![0],
            Some(a) => self.successors(a),
        };
        let mut parent: Vec<Option<usize>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut q = VecDeque::new();
        let mut found = false;
        for &s in &starts {
            if s == to {
                found = true;
                break;
            }
            if !seen[s] && self.passable(s) {
                seen[s] = true;
                q.push_back(s);
            }
        }
        while !found {
            let Some(i) = q.pop_front() else { break };
            for s in self.successors(i) {
                if s == to {
                    parent[to] = Some(i);
                    found = true;
                    break;
                }
                if !seen[s] && self.passable(s) {
                    seen[s] = true;
                    parent[s] = Some(i);
                    q.push_back(s);
                }
            }
        }
        if !found {
            return None;
        }
        let mut insts = Vec::new();
        let mut at = parent[to];
        while let Some(i) = at {
            insts.push(i);
            at = parent[i];
        }
        insts.reverse();
        // Ambiguity: a conditional choice (at `from` or on the path) whose other successor
        // can also reach `to`.
        let reach = self.reaches(to);
        let mut ambiguous = 0;
        let mut prev = from;
        for &next in insts.iter().chain(std::iter::once(&to)) {
            if let Some(p) = prev {
                let succ = self.successors(p);
                if succ.len() > 1 {
                    ambiguous += succ
                        .iter()
                        .filter(|&&s| s != next && (s == to || (self.passable(s) && reach[s])))
                        .count() as u32;
                }
            }
            prev = Some(next);
        }
        Some(Path { insts, ambiguous })
    }

    /// `reach[i]`: instruction i (passable) can reach `to` through passable instructions.
    fn reaches(&self, to: usize) -> Vec<bool> {
        let n = self.f.insts.len();
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for i in 0..n {
            for s in self.successors(i) {
                preds[s].push(i);
            }
        }
        let mut reach = vec![false; n];
        let mut q: VecDeque<usize> = preds[to].iter().copied().collect();
        while let Some(i) = q.pop_front() {
            if reach[i] || !self.passable(i) {
                continue;
            }
            reach[i] = true;
            q.extend(preds[i].iter().copied());
        }
        reach
    }

    /// The path from after `from` to the nearest unpredicated EXIT (for warps whose exit was
    /// not recorded), with that EXIT's index.
    pub fn to_exit(&mut self, from: Option<usize>) -> Option<(Path, usize)> {
        let exits: Vec<usize> = (0..self.f.insts.len())
            .filter(|&i| self.f.insts[i].is_exit() && !self.f.insts[i].predicated)
            .collect();
        exits
            .into_iter()
            .filter_map(|e| self.find(from, e).map(|p| (p, e)))
            .min_by_key(|(p, e)| (p.insts.len(), *e))
    }
}
