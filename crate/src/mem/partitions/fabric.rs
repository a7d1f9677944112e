//! The fabric between the two halves of the L2 (`l2.sides` = 2): the near copies' misses
//! crossing to their home slices, and the data coming back.
//!
//! ```text
//!  near slice miss (FabricReq) ─send: + latency─> home slice lookup (MemPartitions)
//!     hit  ── + home tag latency ─┐
//!     miss ── home DRAM read ─────┤
//!                                 └─back: waits for the bandwidth towards the near half,
//!                                         + latency ─> fill of the near slice's MSHR
//! ```
//! Requests carry no data and cross at once after the latency; data going back takes
//! `1 / l2.fabric_sectors_per_cycle` L2 cycles a sector, in the order it is sent.

use std::collections::{HashMap, VecDeque};

use crate::config::GpuConfig;
use crate::mem::clock::Domain;
use crate::mem::l2::FabricReq;
use crate::Cycle;

pub(super) struct Fabric {
    /// One-way latency, core cycles.
    lat: Cycle,
    /// Core cycles from a home hit's arrival to its data leaving (the home's tag latency).
    pub home_hit: Cycle,
    /// Core cycles a sector holds the way back (0: unlimited).
    per_sector: f64,
    /// Per half: the core cycle (fractional) the way back to it is free again.
    free: [f64; 2],
    /// Requests crossing, with the core cycle each reaches its home slice.
    crossing: VecDeque<(Cycle, FabricReq)>,
    /// Sectors a near slice waits for from its home's DRAM, by (near slice, line).
    waiting: HashMap<(u32, u64), u8>,
}

impl Fabric {
    pub fn new(cfg: &GpuConfig, l2d: &Domain) -> Self {
        let bw = cfg.l2.fabric_sectors_per_cycle;
        Fabric {
            lat: l2d.to_core(cfg.l2.fabric_latency as u64),
            home_hit: l2d.to_core(cfg.l2.cache.latency as u64),
            // Sectors per L2 cycle to core cycles per sector.
            per_sector: if bw > 0.0 {
                l2d.to_core(1_000_000) as f64 / 1_000_000.0 / bw
            } else {
                0.0
            },
            free: [0.0; 2],
            crossing: VecDeque::new(),
            waiting: HashMap::new(),
        }
    }

    /// A near copy's miss leaves for its home slice.
    pub fn send(&mut self, r: FabricReq) {
        self.crossing.push_back((r.at + self.lat, r));
    }

    /// The first request crossing if it reached its home by core cycle `now` (not taken).
    pub fn next_arrived(&self, now: Cycle) -> Option<(Cycle, FabricReq)> {
        self.crossing.front().copied().filter(|(t, _)| *t <= now)
    }

    /// Takes the request [`Fabric::next_arrived`] showed.
    pub fn pop_arrived(&mut self) {
        self.crossing.pop_front();
    }

    /// The home read the DRAM for `sectors` of `line` for near slice `near`.
    pub fn wait(&mut self, near: u32, line: u64, sectors: u8) {
        *self.waiting.entry((near, line)).or_insert(0) |= sectors;
    }

    /// The sectors near slice `near` waited for from `line`'s DRAM read (now done).
    pub fn done(&mut self, near: u32, line: u64) -> u8 {
        self.waiting.remove(&(near, line)).unwrap_or(0)
    }

    /// `sectors` leave the home at core cycle `ready` for half `to`: the core cycle they reach
    /// the near slice.
    pub fn back(&mut self, to: u32, ready: Cycle, sectors: u8) -> Cycle {
        let mut t = ready;
        if self.per_sector > 0.0 {
            let free = &mut self.free[to as usize & 1];
            let start = free.max(ready as f64);
            *free = start + sectors.count_ones() as f64 * self.per_sector;
            t = start.ceil() as Cycle;
        }
        t + self.lat
    }

    /// Whether requests are still crossing (the reads waiting on a DRAM are the channel's).
    pub fn in_flight(&self) -> bool {
        !self.crossing.is_empty()
    }

    /// The core cycle the first request crossing reaches its home.
    pub fn next_arrival(&self) -> Option<Cycle> {
        self.crossing.front().map(|(t, _)| *t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Data going back holds its half's way 1 / bandwidth cycles a sector, in order; the
    /// other half's way is apart.
    #[test]
    fn data_back_waits_for_the_bandwidth_of_its_half() {
        let mut cfg = GpuConfig::default();
        cfg.l2.fabric_latency = 40;
        cfg.l2.fabric_sectors_per_cycle = 2.0;
        let d = Domain::new(cfg.clocks.core_mhz, cfg.clocks.core_mhz);
        let mut f = Fabric::new(&cfg, &d);
        assert_eq!(f.back(0, 100, 0xf), 140, "an idle way: the latency only");
        assert_eq!(f.back(0, 100, 0x3), 142, "4 sectors at 2 a cycle ahead");
        assert_eq!(f.back(1, 100, 0xf), 140, "the other half's way is free");
        assert_eq!(f.back(0, 200, 0x1), 240, "free again");
    }
}
