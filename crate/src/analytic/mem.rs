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
}

impl AnalyticSmMem {
    pub fn new(cfg: &AnalyticMemConfig) -> Self {
        let r1 = cfg.l1_hit_rate.clamp(0.0, 1.0);
        let r2 = cfg.l2_hit_rate.clamp(0.0, 1.0);
        let below = r2 * cfg.l2_latency as f64 + (1.0 - r2) * cfg.dram_latency as f64;
        let global = r1 * cfg.l1_latency as f64 + (1.0 - r1) * below;
        let level = if r1 >= 0.5 {
            HitLevel::L1
        } else if r2 >= 0.5 {
            HitLevel::L2
        } else {
            HitLevel::Dram
        };
        AnalyticSmMem {
            cfg: cfg.clone(),
            global_lat: global.round().max(1.0) as u32,
            bypass_lat: below.round().max(1.0) as u32,
            global_level: level,
            heap: BinaryHeap::with_capacity(cfg.max_outstanding.max(1) as usize),
            seq: 0,
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
}
