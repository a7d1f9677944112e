//! The reuse-distance / stack-distance baseline (SDCM, seed 004 section 2.3, Equations 1-2),
//! reported beside the functional cache simulation.
//!
//! ```text
//!  stream of line addresses ──> reuse distance D per access (distinct lines since last use;
//!                               first use: D = inf)      Fenwick tree over time, O(log n)
//!  histogram P(D) ──> P(hit) = sum_D P(D) * P(h|D)                              (2)
//!  P(h|D) = sum_{a=0}^{A-1} C(D,a) (A/B)^a ((B-A)/B)^(D-a)                       (1)
//! ```
//! Equation 1 is evaluated exactly (log-space binomial terms). The public PPT-GPU code uses a
//! normal approximation with an `abs()` that predicts hits for long distances; not repeated here.
//!
//! Memory is bounded by a window: a profile remembers at most W distinct lines (the W most
//! recently used). A line that falls out of the window and comes back is counted with the
//! first uses (infinite distance). [`window_for`] picks W for a cache so that P(h|D) < 1e-30
//! for every D >= W: distances below W are exact, and the predicted hit rate differs from
//! the unbounded profile's by less than 1e-30 (a few times the cache's line count: 0.67 M
//! lines for titanv's L2, 1.3 M for rtx2080ti's). Without it a streaming kernel's profile
//! held every line it ever touched (about 60 B per 32 B sector: 600 MB on a 10M-instruction
//! vecadd).

use serde::Serialize;

use crate::mem::reuse_map::KeyMap;

/// A time position whose line is no longer last used there (line keys are sector or line
/// indices, far below this).
const GONE: u64 = u64::MAX;

/// Reuse-distance histogram of one access stream.
#[derive(Clone, Debug)]
pub struct ReuseProfile {
    last: KeyMap,
    /// Fenwick tree over access times: 1 where a line was last used.
    bit: Vec<u32>,
    /// The line last used at each time position (`GONE`: used again later, or forgotten).
    keys: Vec<u64>,
    t: u32,
    /// No live position is older than this one.
    oldest: u32,
    /// Most distinct lines remembered.
    window: usize,
    /// `hist[d]` = accesses with reuse distance d.
    pub hist: Vec<u64>,
    /// First accesses and returns from beyond the window (infinite distance).
    pub cold: u64,
}

impl Default for ReuseProfile {
    fn default() -> Self {
        Self::with_window(usize::MAX)
    }
}

/// The smallest distance W from which Equation 1 gives P(h|D) < 1e-30 for a cache of `b`
/// lines in sets of `a` ways (P(h|D) falls as D grows), at least 1.
pub fn window_for(a: u64, b: u64) -> usize {
    const EPS: f64 = 1e-30;
    let (mut lo, mut hi) = (0u64, a.max(1));
    while p_hit(hi, a, b) >= EPS {
        lo = hi;
        hi = hi.saturating_mul(2);
    }
    // p_hit(lo) >= EPS (or lo = 0), p_hit(hi) < EPS.
    while lo + 1 < hi {
        let m = lo + (hi - lo) / 2;
        if p_hit(m, a, b) < EPS {
            hi = m;
        } else {
            lo = m;
        }
    }
    hi.max(1) as usize
}

impl ReuseProfile {
    /// Unbounded: remembers every line.
    pub fn new() -> Self {
        Self::default()
    }

    /// Remembers at most `window` distinct lines (at least 1).
    pub fn with_window(window: usize) -> Self {
        ReuseProfile {
            last: KeyMap::default(),
            bit: Vec::new(),
            keys: Vec::new(),
            t: 0,
            oldest: 0,
            window: window.max(1),
            hist: Vec::new(),
            cold: 0,
        }
    }

    /// Distinct lines remembered now.
    pub fn remembered(&self) -> usize {
        self.last.len()
    }

    fn bit_add(&mut self, i: usize, v: i32) {
        let mut i = i + 1;
        while i <= self.bit.len() {
            self.bit[i - 1] = (self.bit[i - 1] as i32 + v) as u32;
            i += i & i.wrapping_neg();
        }
    }

    /// Ones in positions [0, i).
    fn bit_sum(&self, i: usize) -> u32 {
        let mut i = i;
        let mut s = 0;
        while i > 0 {
            s += self.bit[i - 1];
            i &= i - 1;
        }
        s
    }

    /// Renumbers the live positions densely (keeps order) when time runs past the tree, in
    /// place (no sort, no second copy); grows the tree only while more than half is live.
    fn compact(&mut self) {
        let mut j = 0;
        for i in self.oldest as usize..self.t as usize {
            let k = self.keys[i];
            if k != GONE {
                self.keys[j] = k;
                self.last.insert(k, j as u32);
                j += 1;
            }
        }
        // Room for as many accesses again as there are live lines (at most 2 x window),
        // allocated exactly.
        let cap = (j * 2)
            .max(1024)
            .min(self.window.saturating_mul(2))
            .max(self.bit.len());
        self.keys.truncate(j);
        self.keys.reserve_exact(cap - j);
        self.keys.resize(cap, GONE);
        self.bit.clear();
        self.bit.reserve_exact(cap);
        self.bit.resize(cap, 0);
        // O(n) Fenwick build over the ones at 0..j.
        for i in 0..cap {
            self.bit[i] += (i < j) as u32;
            let p = i | (i + 1);
            if p < cap {
                self.bit[p] += self.bit[i];
            }
        }
        self.t = j as u32;
        self.oldest = 0;
    }

    /// Records one access to `key` (a line address); returns its reuse distance (None = cold).
    pub fn access(&mut self, key: u64) -> Option<u64> {
        if self.t as usize >= self.bit.len() {
            self.compact();
        }
        let t = self.t as usize;
        self.t += 1;
        let d = match self.last.insert(key, t as u32) {
            Some(p) => {
                let p = p as usize;
                let d = (self.bit_sum(t) - self.bit_sum(p + 1)) as u64;
                self.bit_add(p, -1);
                self.keys[p] = GONE;
                if self.hist.len() <= d as usize {
                    self.hist.resize(d as usize + 1, 0);
                }
                self.hist[d as usize] += 1;
                Some(d)
            }
            None => {
                self.cold += 1;
                None
            }
        };
        self.bit_add(t, 1);
        self.keys[t] = key;
        if self.last.len() > self.window {
            // Forget the least recently used line: every later distance to it is >= window.
            let mut o = self.oldest as usize;
            while self.keys[o] == GONE {
                o += 1;
            }
            self.last.remove(self.keys[o]);
            self.bit_add(o, -1);
            self.keys[o] = GONE;
            self.oldest = o as u32 + 1;
        }
        d
    }

    pub fn accesses(&self) -> u64 {
        self.cold + self.hist.iter().sum::<u64>()
    }

    /// Equation 2: predicted hit rate of an LRU cache with associativity `a` and `b` lines.
    pub fn hit_rate(&self, a: u64, b: u64) -> f64 {
        let n = self.accesses();
        if n == 0 {
            return 0.0;
        }
        let hits: f64 = self
            .hist
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(d, &c)| c as f64 * p_hit(d as u64, a, b))
            .sum();
        hits / n as f64
    }
}

/// Equation 1, exactly: the probability that fewer than `a` of the `d` distinct lines touched
/// since the last use map to the same set (each does with probability a/b).
pub fn p_hit(d: u64, a: u64, b: u64) -> f64 {
    if a == 0 || b == 0 {
        return 0.0;
    }
    if d < a {
        return 1.0;
    }
    if a >= b {
        // Fully associative: a hit while fewer than `a` distinct lines intervened.
        return 0.0;
    }
    let p = a as f64 / b as f64;
    let (lp, lq) = (p.ln(), (1.0 - p).ln());
    let df = d as f64;
    // Far beyond the mean plus 40 standard deviations the sum is below 1e-300.
    let mean = df * p;
    if mean - a as f64 > 40.0 * (df * p * (1.0 - p)).sqrt() + 40.0 {
        return 0.0;
    }
    let mut lt = df * lq; // ln of the a = 0 term
    let mut s = 0.0;
    for k in 0..a {
        s += lt.exp();
        let kf = k as f64;
        lt += (df - kf).ln() - (kf + 1.0).ln() + lp - lq;
    }
    s.min(1.0)
}

/// The SDCM prediction for one kernel, beside the functional result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SdcmReport {
    /// L1: per-SM streams at sector granularity (PPT-GPU-Mem's 32 B line approximation).
    pub l1_hit_rate: f64,
    /// L2: the unfiltered interleaving of the L1 streams (PPT-GPU-Mem's L2 trace).
    pub l2_hit_rate: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed004_table1_distances() {
        // Table 1: addresses 2 4 6 2 3 6 with line size 2 -> lines 1 2 3 1 1 3.
        let mut r = ReuseProfile::new();
        let d: Vec<Option<u64>> = [2u64, 4, 6, 2, 3, 6]
            .iter()
            .map(|a| r.access(a / 2))
            .collect();
        assert_eq!(d, vec![None, None, None, Some(2), Some(0), Some(1)]);
    }

    #[test]
    fn distances_survive_compaction() {
        let mut r = ReuseProfile::new();
        // Cycle over 700 lines three times: every reuse has distance 699.
        for _ in 0..3 {
            for k in 0..700u64 {
                r.access(k);
            }
        }
        assert_eq!(r.cold, 700);
        assert_eq!(r.hist[699], 1400);
        assert_eq!(r.hist.iter().sum::<u64>(), 1400);
    }

    /// A windowed profile gives the unbounded one's distances below the window, counts the
    /// rest as first uses, and never remembers more than the window.
    #[test]
    fn window_keeps_short_distances_and_bounds_memory() {
        let (mut full, mut win) = (ReuseProfile::new(), ReuseProfile::with_window(100));
        let mut x = 12345u64;
        let mut peak = 0;
        for _ in 0..20_000 {
            // xorshift: keys 0..400, so distances spread around 100
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = x % 400;
            let (a, b) = (full.access(k), win.access(k));
            match a {
                Some(d) if d < 100 => assert_eq!(b, Some(d)),
                _ => assert_eq!(b, None),
            }
            peak = peak.max(win.remembered());
        }
        assert_eq!(peak, 100);
        assert_eq!(full.remembered(), 400);
        assert_eq!(win.accesses(), 20_000);
        assert_eq!(win.hist[..], full.hist[..100]);
    }

    #[test]
    fn window_for_cuts_where_equation1_vanishes() {
        for (a, b) in [
            (32u64, 147_456u64),
            (16, 1024),
            (4, 256),
            (256, 1024),
            (1, 8),
        ] {
            let w = window_for(a, b) as u64;
            assert!(
                p_hit(w, a, b) < 1e-30 && p_hit(w - 1, a, b) >= 1e-30,
                "{a} {b} {w}"
            );
        }
        // fully associative (a >= b): hits only below a
        assert_eq!(window_for(256, 128), 256);
        // a 4.5 MiB L2 in 32 B sectors, 32 ways: 4.55 x its lines
        assert_eq!(window_for(32, 147_456), 671_038);
    }

    #[test]
    fn equation1_exact_values() {
        // A = 2, B = 4, D = 3: (1/2)^3 + 3 (1/2)^3 = 0.5.
        assert!((p_hit(3, 2, 4) - 0.5).abs() < 1e-12);
        assert_eq!(p_hit(1, 2, 4), 1.0);
        // Direct mapped, B = 8, D = 5: (7/8)^5.
        assert!((p_hit(5, 1, 8) - (7.0f64 / 8.0).powi(5)).abs() < 1e-12);
        // Long distances predict (almost) no hits, unlike the abs() bug.
        assert!(p_hit(100_000, 16, 1024) < 1e-100);
        assert!(p_hit(10_000, 4, 256) < 1e-12);
    }
}
