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

use serde::Serialize;

use crate::mem::cache::FxMap;

/// Reuse-distance histogram of one access stream.
#[derive(Clone, Debug, Default)]
pub struct ReuseProfile {
    last: FxMap<u64, u32>,
    /// Fenwick tree over access times: 1 where a line was last used.
    bit: Vec<u32>,
    live: Vec<bool>,
    t: u32,
    /// `hist[d]` = accesses with reuse distance d.
    pub hist: Vec<u64>,
    /// First accesses (infinite distance).
    pub cold: u64,
}

impl ReuseProfile {
    pub fn new() -> Self {
        Self::default()
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

    /// Renumbers the live positions densely (keeps order) when time runs past the tree.
    fn compact(&mut self) {
        let mut order: Vec<(u32, u64)> = self.last.iter().map(|(&k, &p)| (p, k)).collect();
        order.sort_unstable();
        let cap = (order.len() * 2).max(1024);
        self.bit = vec![0; cap];
        self.live = vec![false; cap];
        for (i, (_, k)) in order.iter().enumerate() {
            self.last.insert(*k, i as u32);
            self.live[i] = true;
        }
        // O(n) Fenwick build.
        for i in 0..cap {
            self.bit[i] += self.live[i] as u32;
            let j = i | (i + 1);
            if j < cap {
                self.bit[j] += self.bit[i];
            }
        }
        self.t = order.len() as u32;
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
                self.live[p] = false;
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
        self.live[t] = true;
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
