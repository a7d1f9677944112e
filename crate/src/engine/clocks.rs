//! Clock domains (Accel-Sim's core : interconnect : L2 : DRAM), advanced deterministically in
//! integer femtoseconds. The engine runs in core cycles; for core cycle `n` each other domain
//! has ticked `floor(n * T_core / T_d)` times, so skipping idle core cycles skips exactly the
//! other domains' ticks in between (the memory side steps them when it exists).
//!
//! ```text
//!  core  |   |   |   |   |   |      ticks of domain d up to core cycle n:
//!  dram  | | | | | | | | | | | |      floor(n * period_core_fs / period_d_fs)
//! ```

use serde::Serialize;

use crate::config::Clocks;
use crate::Cycle;

/// The four domains, in the fixed order they are stepped within a core cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Domain {
    Core,
    Icnt,
    L2,
    Dram,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClockDomains {
    /// Period of core, icnt, L2, DRAM in femtoseconds.
    pub period_fs: [u64; 4],
}

fn period(mhz: f64) -> u64 {
    if mhz.is_finite() && mhz > 0.0 {
        (1e9 / mhz).round().max(1.0) as u64
    } else {
        1_000_000
    }
}

impl ClockDomains {
    pub fn new(c: &Clocks) -> Self {
        ClockDomains {
            period_fs: [
                period(c.core_mhz),
                period(c.icnt_mhz),
                period(c.l2_mhz),
                period(c.dram_mhz),
            ],
        }
    }

    /// Ticks domain `d` has made by the end of core cycle `n`.
    pub fn ticks_at(&self, d: Domain, n: Cycle) -> u64 {
        let i = d as usize;
        ((n as u128 * self.period_fs[0] as u128) / self.period_fs[i] as u128) as u64
    }

    /// Ticks of domain `d` that fall in core cycle `n` (between cycle n-1 and n).
    pub fn ticks_in(&self, d: Domain, n: Cycle) -> u64 {
        if n == 0 {
            return self.ticks_at(d, 0);
        }
        self.ticks_at(d, n) - self.ticks_at(d, n - 1)
    }

    /// Core cycles to seconds.
    pub fn seconds(&self, n: Cycle) -> f64 {
        n as f64 * self.period_fs[0] as f64 * 1e-15
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dram_at_2_5x_core_ticks_5_per_2() {
        let c = ClockDomains::new(&Clocks {
            core_mhz: 1000.0,
            icnt_mhz: 1000.0,
            l2_mhz: 500.0,
            dram_mhz: 2500.0,
        });
        assert_eq!(c.period_fs, [1_000_000, 1_000_000, 2_000_000, 400_000]);
        let d: Vec<u64> = (1..=4).map(|n| c.ticks_in(Domain::Dram, n)).collect();
        assert_eq!(d, [2, 3, 2, 3]);
        assert_eq!(c.ticks_at(Domain::L2, 7), 3);
        assert_eq!(c.ticks_at(Domain::Icnt, 7), 7);
        assert!((c.seconds(1000) - 1e-6).abs() < 1e-15);
    }
}
