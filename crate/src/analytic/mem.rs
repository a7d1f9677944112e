//! The analytical memory model of one SM (seed 000 section III-D2): every request completes a
//! fixed latency after it is accepted, with only the contention that matters simulated (a bound on
//! outstanding requests; the SM's arbiter already serialises one request per structure and bank
//! per cycle).
//!
//! ```text
//!  global / local / texture:  L = L1·R1 + (1-R1)·(L2·R2 + (1-R2)·DRAM)      (Equation 1)
//!  L1-bypassing (atomics, .STRONG.GPU):  L = L2·R2 + (1-R2)·DRAM
//!  shared:    L = shmem_latency × bank-conflict wavefronts
//!  constant:  L = const_latency
//! ```
//! With the defaults (R1 = R2 = 1) a global access costs the L1 hit latency; the functional cache
//! model (issue 5) will give per-PC rates.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::config::AnalyticMemConfig;
use crate::mem::{AccessKind, HitLevel, MemRequest, MemResponse};
use crate::trace::MemSpace;
use crate::Cycle;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    ready: Cycle,
    seq: u64,
    resp: MemResponse,
}

impl Ord for Pending {
    fn cmp(&self, o: &Self) -> Ordering {
        // BinaryHeap is a max-heap: the earliest (ready, seq) must compare greatest.
        (o.ready, o.seq).cmp(&(self.ready, self.seq))
    }
}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

#[derive(Clone, Debug)]
pub struct AnalyticSmMem {
    cfg: AnalyticMemConfig,
    global_lat: u32,
    bypass_lat: u32,
    global_level: HitLevel,
    heap: BinaryHeap<Pending>,
    seq: u64,
    /// Per-PC Equation 1 latencies from a functional pre-pass (`set_pc_rates`), indexed by
    /// `pc / inst_bytes`: (global latency, L1-bypass latency, level); latency 0 = no entry.
    pc_lat: Vec<(u32, u32, HitLevel)>,
    inst_bytes: u32,
}

/// Hit rates of one PC (from `mem::functional`'s per-PC report).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PcRates {
    pub pc: u32,
    pub l1_hit_rate: f64,
    /// Of the requests that reached the L2.
    pub l2_hit_rate: f64,
}

impl AnalyticSmMem {
    pub fn new(cfg: &AnalyticMemConfig) -> Self {
        let (global_lat, bypass_lat, global_level) =
            equation_one(cfg, cfg.l1_hit_rate, cfg.l2_hit_rate);
        AnalyticSmMem {
            cfg: cfg.clone(),
            global_lat,
            bypass_lat,
            global_level,
            heap: BinaryHeap::with_capacity(cfg.max_outstanding.max(1) as usize),
            seq: 0,
            pc_lat: Vec::new(),
            inst_bytes: 16,
        }
    }

    /// Per-PC hit rates (seed 000: from the functional cache pre-pass); PCs not listed keep the
    /// config's global rates.
    pub fn set_pc_rates(&mut self, rates: &[PcRates], inst_bytes: u32) {
        self.inst_bytes = inst_bytes.max(1);
        let n = rates
            .iter()
            .map(|r| (r.pc / self.inst_bytes) as usize + 1)
            .max()
            .unwrap_or(0);
        self.pc_lat = vec![(0, 0, HitLevel::L1); n];
        for r in rates {
            self.pc_lat[(r.pc / self.inst_bytes) as usize] =
                equation_one(&self.cfg, r.l1_hit_rate, r.l2_hit_rate);
        }
    }

    /// Latency and level of a request.
    pub fn latency(&self, req: &MemRequest) -> (u32, HitLevel) {
        match req.space {
            MemSpace::Shared => (
                self.cfg.shmem_latency.max(1) * req.shmem_wavefronts.max(1),
                HitLevel::Shared,
            ),
            MemSpace::Constant => (self.cfg.const_latency.max(1), HitLevel::Constant),
            _ if !self.pc_lat.is_empty() => {
                let e = self
                    .pc_lat
                    .get((req.pc / self.inst_bytes) as usize)
                    .copied()
                    .filter(|e| e.0 > 0)
                    .unwrap_or((self.global_lat, self.bypass_lat, self.global_level));
                if req.bypass_l1 || req.kind == AccessKind::Atomic {
                    (e.1, HitLevel::L2)
                } else {
                    (e.0, e.2)
                }
            }
            _ if req.bypass_l1 || req.kind == AccessKind::Atomic => (
                self.bypass_lat,
                if self.cfg.l2_hit_rate >= 0.5 {
                    HitLevel::L2
                } else {
                    HitLevel::Dram
                },
            ),
            _ => (self.global_lat, self.global_level),
        }
    }

    pub fn try_request(&mut self, now: Cycle, req: MemRequest) -> Result<(), MemRequest> {
        if self.heap.len() >= self.cfg.max_outstanding.max(1) as usize {
            return Err(req);
        }
        let (lat, level) = self.latency(&req);
        self.seq += 1;
        self.heap.push(Pending {
            ready: now + lat as u64,
            seq: self.seq,
            resp: MemResponse {
                tag: req.tag,
                level,
                last: req.last,
            },
        });
        Ok(())
    }

    pub fn pop_response(&mut self, now: Cycle) -> Option<MemResponse> {
        if self.heap.peek().is_some_and(|p| p.ready <= now) {
            return self.heap.pop().map(|p| p.resp);
        }
        None
    }

    pub fn next_event(&self) -> Option<Cycle> {
        self.heap.peek().map(|p| p.ready)
    }

    pub fn outstanding(&self) -> usize {
        self.heap.len()
    }
}

/// Equation 1 for hit rates `r1`, `r2`: (global latency, L1-bypass latency, dominant level).
fn equation_one(cfg: &AnalyticMemConfig, r1: f64, r2: f64) -> (u32, u32, HitLevel) {
    let r1 = r1.clamp(0.0, 1.0);
    let r2 = r2.clamp(0.0, 1.0);
    let below = r2 * cfg.l2_latency as f64 + (1.0 - r2) * cfg.dram_latency as f64;
    let global = r1 * cfg.l1_latency as f64 + (1.0 - r1) * below;
    let level = if r1 >= 0.5 {
        HitLevel::L1
    } else if r2 >= 0.5 {
        HitLevel::L2
    } else {
        HitLevel::Dram
    };
    (
        global.round().max(1.0) as u32,
        below.round().max(1.0) as u32,
        level,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equation_one_and_ordering() {
        let cfg = AnalyticMemConfig {
            l1_latency: 30,
            l2_latency: 200,
            dram_latency: 400,
            shmem_latency: 20,
            const_latency: 8,
            l1_hit_rate: 0.5,
            l2_hit_rate: 0.5,
            max_outstanding: 2,
        };
        let mut m = AnalyticSmMem::new(&cfg);
        // 0.5*30 + 0.5*(0.5*200 + 0.5*400) = 15 + 150 = 165
        let g = MemRequest {
            tag: 1,
            space: MemSpace::Global,
            ..Default::default()
        };
        assert_eq!(m.latency(&g).0, 165);
        let s = MemRequest {
            tag: 2,
            space: MemSpace::Shared,
            shmem_wavefronts: 3,
            ..Default::default()
        };
        assert_eq!(m.latency(&s).0, 60);
        m.try_request(10, g).unwrap();
        m.try_request(10, s).unwrap();
        assert!(
            m.try_request(10, g).is_err(),
            "bounded outstanding requests"
        );
        assert_eq!(m.next_event(), Some(70));
        assert_eq!(m.pop_response(69), None);
        assert_eq!(m.pop_response(70).map(|r| r.tag), Some(2));
        assert_eq!(m.pop_response(174), None);
        assert_eq!(m.pop_response(175).map(|r| r.tag), Some(1));
        assert_eq!(m.next_event(), None);
    }

    /// A crafted stream with known per-PC hit rates: each PC's latency is Equation 1.
    #[test]
    fn per_pc_latency_is_equation_one() {
        let cfg = AnalyticMemConfig {
            l1_latency: 28,
            l2_latency: 190,
            dram_latency: 420,
            l1_hit_rate: 1.0,
            l2_hit_rate: 1.0,
            ..Default::default()
        };
        let mut m = AnalyticSmMem::new(&cfg);
        m.set_pc_rates(
            &[
                PcRates {
                    pc: 0x10,
                    l1_hit_rate: 0.75,
                    l2_hit_rate: 0.5,
                },
                PcRates {
                    pc: 0x40,
                    l1_hit_rate: 0.0,
                    l2_hit_rate: 0.0,
                },
            ],
            16,
        );
        let at = |pc, bypass| MemRequest {
            space: MemSpace::Global,
            pc,
            bypass_l1: bypass,
            ..Default::default()
        };
        // 0.75*28 + 0.25*(0.5*190 + 0.5*420) = 21 + 76.25 = 97.25 -> 97
        assert_eq!(m.latency(&at(0x10, false)), (97, HitLevel::L1));
        // L1 bypass at the same PC: 0.5*190 + 0.5*420 = 305
        assert_eq!(m.latency(&at(0x10, true)).0, 305);
        assert_eq!(m.latency(&at(0x40, false)), (420, HitLevel::Dram));
        // Unlisted PCs (in or beyond the table) keep the config's rates: the L1 latency.
        assert_eq!(m.latency(&at(0x20, false)).0, 28);
        assert_eq!(m.latency(&at(0x1000, false)).0, 28);
        // Timing follows the latency: accepted at 5, done at 5 + 97.
        m.try_request(
            5,
            MemRequest {
                tag: 9,
                ..at(0x10, false)
            },
        )
        .unwrap();
        assert_eq!(m.next_event(), Some(102));
    }
}
