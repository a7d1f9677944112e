//! The memory side of one SM: L1 data cache, shared memory and constant cache behind the
//! fixed interface of `iface` (the SM owns it as the `Cycle` variant of its `SmMem` enum).
//!
//! ```text
//!  try_request ──> input queue (bounded: back-pressure)
//!  tick: up to `banks` requests per cycle, in order, one per L1 bank (a second request to a
//!        busy bank waits: bank conflict)
//!     shared ──> pipeline: latency + (wavefronts - 1), one wavefront per cycle
//!     constant ─ hit: const latency | miss: to L2, answered on the reply
//!     bypass (atomics, .STRONG.GPU, uncached global loads) ─> L2 directly
//!     L1: hit ─> data port (l1d.data_port_bytes per cycle: a hit waits while the port's
//!             credit is spent) ─> response after latency
//!         miss ─> MSHR (new entry: fill request to L2 | merge) ─> deliver(): responses
//!         store ─> write-through to L2 (posted), response after latency
//!  outbox: NocPackets for MemPartitions, merged by the engine in SM order
//! ```

use std::collections::VecDeque;

use serde::Serialize;

use crate::config::GpuConfig;
use crate::mem::cache::{CacheStats, Mshr, SectorCache};
use crate::mem::carveout::{self, Carveout};
use crate::mem::clock::DelayQueue;
use crate::mem::iface::{AccessKind, HitLevel, MemRequest, MemResponse, NocPacket};
use crate::trace::{KernelInfo, MemSpace};
use crate::{Cycle, Result};

/// Shared-memory counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ShmemStats {
    pub accesses: u64,
    pub wavefronts: u64,
    /// Extra wavefronts beyond one per access (cycles lost to bank conflicts).
    pub bank_conflicts: u64,
}

/// Counters of one SM's memory side, merged over SMs in SM order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SmMemStats {
    pub l1: CacheStats,
    pub constant: CacheStats,
    pub shmem: ShmemStats,
    /// Requests sent to L2 without an L1 lookup.
    pub bypass: u64,
    /// Requests refused by `try_request` (input queue full).
    pub input_full: u64,
}

impl SmMemStats {
    pub fn merge(&mut self, o: &SmMemStats) {
        self.l1.merge(&o.l1);
        self.constant.merge(&o.constant);
        self.shmem.accesses += o.shmem.accesses;
        self.shmem.wavefronts += o.shmem.wavefronts;
        self.shmem.bank_conflicts += o.shmem.bank_conflicts;
        self.bypass += o.bypass;
        self.input_full += o.input_full;
    }
}

#[derive(Clone, Debug)]
pub struct SmMemory {
    id: u32,
    l1: SectorCache,
    konst: SectorCache,
    l1_latency: u64,
    const_latency: u64,
    shmem_latency: u64,
    banks: u32,
    cache_global: bool,
    /// Data-port bytes per cycle (0: no limit) and the credit left (may go negative: a 128 B
    /// hit on a 64 B port takes the next cycle's bytes too), refilled at `port_at`.
    port_bytes: i64,
    port_credit: i64,
    port_at: Cycle,
    inq: VecDeque<MemRequest>,
    in_cap: usize,
    resp: DelayQueue<MemResponse>,
    mshr: Mshr<MemRequest>,
    out: Vec<NocPacket>,
    shmem_free: Cycle,
    now: Cycle,
    carveout: Carveout,
    /// Requests sent to the L2 that will be answered directly (not L1 fills).
    direct: usize,
    stats: SmMemStats,
    /// L1D accesses for the timeline recorder (`None`: not recording, one test per access).
    pub l1_log: Option<Vec<L1Event>>,
}

/// What one L1D line access did (logged only while the timeline recorder is attached).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L1Event {
    Access {
        cycle: Cycle,
        line: u64,
        /// Way slot used (`set * assoc + way`), `NO_SLOT` when none.
        slot: u32,
        set: u32,
        sectors: u8,
        write: bool,
        hit: bool,
        /// The tag was present but some sectors were missing (a sector miss).
        tag_present: bool,
    },
    /// A kernel began: the L1 was resized and emptied.
    Reset,
}

impl SmMemory {
    /// SM `id`'s memory; the L1 starts with `l1d.cache.size_kb` until `begin_kernel`.
    pub fn new(cfg: &GpuConfig, id: u32) -> Result<Self> {
        let l1 = SectorCache::new(&cfg.l1d.cache, "l1d.cache")?;
        let konst = SectorCache::new(&cfg.const_cache, "const_cache")?;
        let banks = cfg.l1d.banks.clamp(1, 64);
        Ok(SmMemory {
            id,
            l1,
            konst,
            l1_latency: cfg.l1d.cache.latency as u64,
            const_latency: cfg.const_cache.latency as u64,
            shmem_latency: cfg.shmem.latency as u64,
            banks,
            cache_global: cfg.l1d.cache_global,
            port_bytes: cfg.l1d.data_port_bytes as i64,
            port_credit: cfg.l1d.data_port_bytes as i64,
            port_at: 0,
            inq: VecDeque::with_capacity(2 * banks as usize),
            in_cap: 2 * banks as usize,
            resp: DelayQueue::default(),
            mshr: Mshr::new(cfg.l1d.cache.mshr_entries, cfg.l1d.cache.mshr_merge),
            out: Vec::new(),
            shmem_free: 0,
            now: 0,
            carveout: Carveout::default(),
            direct: 0,
            stats: SmMemStats::default(),
            l1_log: None,
        })
    }

    /// Kernel start: the adaptive carve-out (seed 004 Equation 7) sizes the L1; caches start cold.
    pub fn begin_kernel(&mut self, info: &KernelInfo, cfg: &GpuConfig) {
        let co = carveout::choose(cfg, info);
        self.carveout = co;
        let stats = self.l1.stats;
        // The geometry was validated by `new`; a carve-out that leaves less than one set
        // gives no L1 (every access goes to L2).
        self.l1 = SectorCache::with_bytes(&cfg.l1d.cache, co.l1_kb as u64 * 1024, "l1d.cache")
            .or_else(|_| SectorCache::with_bytes(&cfg.l1d.cache, 0, "l1d.cache"))
            .expect("zero-sized cache is always valid");
        self.l1.stats = stats;
        self.konst.invalidate_all();
        if let Some(log) = &mut self.l1_log {
            log.push(L1Event::Reset);
        }
    }

    /// The L1 data cache (read by the timeline recorder).
    pub fn l1(&self) -> &SectorCache {
        &self.l1
    }

    pub fn carveout(&self) -> Carveout {
        self.carveout
    }

    pub fn try_request(&mut self, _now: Cycle, req: MemRequest) -> Result<(), MemRequest> {
        if self.inq.len() >= self.in_cap {
            self.stats.input_full += 1;
            return Err(req);
        }
        self.inq.push_back(req);
        Ok(())
    }

    pub fn pop_response(&mut self, now: Cycle) -> Option<MemResponse> {
        self.resp.pop_ready(now)
    }

    fn packet(&self, req: MemRequest, ack: bool, fill: bool) -> NocPacket {
        NocPacket {
            src_sm: self.id,
            slice: 0,
            req,
            reply: false,
            level: HitLevel::L2,
            ack,
            fill,
        }
    }

    fn respond(&mut self, at: Cycle, r: &MemRequest, level: HitLevel) {
        self.resp.push(
            at,
            MemResponse {
                tag: r.tag,
                level,
                last: r.last,
            },
        );
    }

    /// Handles one request at `now`; false when it must wait (it stays at the queue head).
    fn handle(&mut self, now: Cycle, r: MemRequest, banks_used: &mut u64) -> bool {
        let direct = r.bypass_l1
            || matches!(r.kind, AccessKind::Atomic | AccessKind::Reduction)
            || (r.space == MemSpace::Global && r.kind == AccessKind::Load && !self.cache_global);
        match r.space {
            MemSpace::Shared => {
                if self.shmem_free > now {
                    return false;
                }
                let wf = r.shmem_wavefronts.max(1) as u64;
                self.shmem_free = now + wf;
                self.stats.shmem.accesses += 1;
                self.stats.shmem.wavefronts += wf;
                self.stats.shmem.bank_conflicts += wf - 1;
                self.respond(now + self.shmem_latency + wf - 1, &r, HitLevel::Shared);
                true
            }
            MemSpace::Constant => {
                let o = self.konst.access(r.addr, r.sectors, false);
                if o.hit {
                    self.respond(now + self.const_latency, &r, HitLevel::Constant);
                } else {
                    let p = self.packet(
                        MemRequest {
                            kind: AccessKind::Load,
                            ..r
                        },
                        true,
                        false,
                    );
                    self.out.push(p);
                    self.direct += 1;
                }
                true
            }
            _ if direct => {
                self.stats.bypass += 1;
                let posted =
                    r.kind == AccessKind::Reduction || (r.kind == AccessKind::Store && !r.last);
                self.out.push(self.packet(r, !posted, false));
                self.direct += !posted as usize;
                if posted {
                    self.respond(now + self.l1_latency, &r, HitLevel::L1);
                }
                true
            }
            _ => {
                let lb = self.l1.line_bytes();
                let bank = if self.banks.is_power_of_two() {
                    ((r.addr >> lb.trailing_zeros()) & (self.banks as u64 - 1)) as u32
                } else {
                    ((r.addr / lb) % self.banks as u64) as u32
                };
                if *banks_used & (1 << bank) != 0 {
                    self.stats.l1.bank_conflicts += 1;
                    return false;
                }
                let write = r.kind.is_write();
                let line = self.l1.line_addr(r.addr);
                // One tag lookup serves the check and the access (nothing changes the L1 in
                // between).
                let slot = self.l1.probe(line);
                let fetch = self.l1.would_fetch_at(slot, r.sectors, write);
                let pending = if write {
                    0
                } else {
                    self.mshr.pending(line) & r.sectors
                };
                let waits = !write && (fetch != 0 || pending != 0);
                // A load hit takes its bytes through the data port (fills and stores are not
                // charged); the port refills once per cycle up to one cycle's worth.
                let port = !write && !waits && self.port_bytes > 0;
                if port && self.port_credit <= 0 {
                    return false;
                }
                if (fetch != 0 || waits) && self.mshr.can_reserve(line, waits).is_err() {
                    self.l1.stats.reservation_fails += 1;
                    return false;
                }
                *banks_used |= 1 << bank;
                if port {
                    self.port_credit -= crate::mem::cache::sector_count(r.sectors) as i64
                        * self.l1.geometry().sector_bytes as i64;
                }
                let o = if r.kind == AccessKind::Store {
                    self.l1.store_at(r.addr, r.sectors, r.full, slot)
                } else {
                    self.l1.access_at(r.addr, r.sectors, write, slot)
                };
                if let Some(log) = &mut self.l1_log {
                    log.push(L1Event::Access {
                        cycle: now,
                        line,
                        slot: o.slot,
                        set: if self.l1.geometry().sets == 0 {
                            0
                        } else {
                            self.l1.set_of(line)
                        },
                        sectors: r.sectors,
                        write,
                        hit: o.hit,
                        tag_present: o.tag_present,
                    });
                }
                if let Some(e) = o.evicted {
                    let wb = MemRequest {
                        kind: AccessKind::Store,
                        addr: e.addr,
                        sectors: e.dirty,
                        full: e.dirty,
                        bytes: e.dirty.count_ones() * 32,
                        ..r
                    };
                    self.out.push(self.packet(wb, false, false));
                }
                if o.write != 0 {
                    let w = MemRequest {
                        sectors: o.write,
                        ..r
                    };
                    self.out.push(self.packet(w, false, false));
                }
                if o.fetch != 0 || pending != 0 {
                    let (new, merged) = self.mshr.reserve(line, o.fetch, waits.then_some(r));
                    if merged && waits {
                        self.l1.stats.mshr_merges += 1;
                    }
                    if new != 0 {
                        let f = MemRequest {
                            kind: AccessKind::Load,
                            addr: line,
                            sectors: new,
                            bytes: 0,
                            ..r
                        };
                        self.out.push(self.packet(f, true, true));
                    }
                }
                if !waits {
                    self.respond(now + self.l1_latency, &r, HitLevel::L1);
                }
                true
            }
        }
    }

    /// One core cycle: serves queued requests; packets for the L2 go to `outbox`.
    #[inline]
    pub fn tick(&mut self, now: Cycle, outbox: &mut Vec<NocPacket>) {
        self.now = now;
        if self.inq.is_empty() {
            // Nothing to serve; `handle` leaves nothing in `out` between ticks. The port's
            // credit refills lazily at the next tick that serves (the same credit).
            debug_assert!(self.out.is_empty());
            return;
        }
        self.serve(now, outbox);
    }

    /// The part of [`SmMemory::tick`] with requests queued (most ticks find none: the SM
    /// ticks its memory at every step; kept out of line so those cost a compare).
    #[inline(never)]
    fn serve(&mut self, now: Cycle, outbox: &mut Vec<NocPacket>) {
        if self.port_bytes > 0 {
            // Skipped idle cycles refill the port as ticked ones would (same results).
            let gain = now.saturating_sub(self.port_at).min(1 << 20) as i64 * self.port_bytes;
            self.port_credit = (self.port_credit + gain).min(self.port_bytes);
            self.port_at = now;
        }
        let mut banks_used = 0u64;
        for _ in 0..self.banks {
            let Some(&r) = self.inq.front() else { break };
            if !self.handle(now, r, &mut banks_used) {
                break;
            }
            self.inq.pop_front();
        }
        outbox.append(&mut self.out);
    }

    /// A reply from the L2 side.
    pub fn deliver(&mut self, now: Cycle, pkt: NocPacket) {
        if pkt.fill {
            let line = self.l1.line_addr(pkt.req.addr);
            let resp = &mut self.resp;
            self.mshr.fill(line, pkt.req.sectors, |w| {
                resp.push(
                    now,
                    MemResponse {
                        tag: w.tag,
                        level: pkt.level,
                        last: w.last,
                    },
                )
            });
        } else if pkt.req.space == MemSpace::Constant || pkt.ack {
            self.direct = self.direct.saturating_sub(1);
            self.respond(now, &pkt.req, pkt.level);
        }
    }

    /// The earliest cycle at which this SM's memory can produce something by itself.
    pub fn next_event(&self) -> Option<Cycle> {
        let busy = (!self.inq.is_empty() || !self.out.is_empty()).then_some(self.now + 1);
        match (busy, self.resp.next_time()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Requests not yet answered: queued, waiting for their latency, or in flight below.
    pub fn outstanding(&self) -> usize {
        self.inq.len() + self.resp.len() + self.mshr.in_use() + self.direct
    }

    pub fn stats(&self) -> SmMemStats {
        SmMemStats {
            l1: self.l1.stats,
            constant: self.konst.stats,
            ..self.stats
        }
    }
}
