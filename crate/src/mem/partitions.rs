//! The global memory side: request crossbar, L2 slices (partitions x sub-partitions), one DRAM
//! channel per partition, reply crossbar; each in its own clock domain (`cfg.clocks`), stepped
//! after the SMs every core cycle. The crossbars step serially; the partitions (slices and
//! channel, `part.rs`) then step on their own, in parallel when enough of them are busy
//! ([`MemPartitions::set_parallel`]), and their replies enter the reply crossbar in slice
//! order, so results are the same for any thread count and any partition order.
//!
//! ```text
//!  SM outboxes (SM order) ─try_accept─> request crossbar (icnt clock)
//!     ─> L2 slice input ─> L2 slice (L2 clock) ─> DRAM channel of its partition (DRAM clock)
//!     <─ fills (+ dram_latency) <─┘
//!  L2 replies ─> reply crossbar ─> tick(..., replies) in SM order ─> SmMemory::deliver
//! ```
//!
//! A core cycle in two halves: `tick` = request half (the request crossbar steps) then reply
//! half (reply crossbar, slices and channels, replies popped). When nothing the request
//! crossbar moves can reach a slice in the same core cycle ([`MemPartitions::replies_first_ok`]:
//! one flit plus the crossbar latency ends after it), the engine may run the reply half first
//! ([`MemPartitions::tick_replies`], beside the SMs of that cycle) and the request half after
//! ([`MemPartitions::tick_requests`]), with the same results: the request crossbar still
//! counts the packets the slices took from its output queues in this cycle
//! (`Crossbar::hold_outputs` / `outputs_taken`), as it would have stepping first.

use serde::Serialize;

use crate::config::GpuConfig;
use crate::mem::addrmap::AddrMap;
use crate::mem::cache::CacheStats;
use crate::mem::clock::Domain;
use crate::mem::dram::DramReq;
use crate::mem::dram::{DramChannel, DramStats};
use crate::mem::iface::{AccessKind, NocPacket};
use crate::mem::l2::L2Slice;
use crate::mem::noc::{Crossbar, NocStats};
use crate::{Cycle, Result};

mod fabric;
mod part;
use fabric::Fabric;
use part::{CycleIn, Partition};

/// Fewest busy partitions in a cycle for the parallel step to fork (below it they step on the
/// calling thread: the fork would cost more than it saves).
pub const PAR_MIN_BUSY_PARTS: usize = 4;

/// Statistics of the memory partitions, merged in slice / channel order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PartitionStats {
    pub l2: CacheStats,
    pub dram: DramStats,
    pub noc_requests: NocStats,
    pub noc_replies: NocStats,
    /// Core cycles over which the system was stepped.
    pub cycles: u64,
    pub dram_row_hit_rate: f64,
    /// Bytes moved by DRAM per core cycle, and the configured peak.
    pub dram_bytes_per_cycle: f64,
    pub dram_peak_bytes_per_cycle: f64,
}

impl PartitionStats {
    pub fn merge(&mut self, o: &PartitionStats) {
        self.l2.merge(&o.l2);
        self.dram.merge(&o.dram);
        self.noc_requests.merge(&o.noc_requests);
        self.noc_replies.merge(&o.noc_replies);
        self.cycles = self.cycles.max(o.cycles);
        self.dram_row_hit_rate = self.dram.row_hit_rate();
    }
}

pub struct MemPartitions {
    map: AddrMap,
    icnt: Domain,
    l2d: Domain,
    dramd: Domain,
    req: Crossbar,
    rep: Crossbar,
    parts: Vec<Partition>,
    /// Slices per partition.
    sub: usize,
    dram_lat_core: Cycle,
    /// Step the partitions on rayon's current pool when at least `par.min` are busy.
    par: ParSetting,
    /// Tests: step the partitions in reverse order (results must not change).
    pub reverse: bool,
    now: Cycle,
    /// Whether the interconnect, the L2 slices and the DRAM channels were idle at the end of
    /// the last tick: after a jump of the engine's clock, their cycles in between are skipped
    /// exactly as ticking every cycle would have skipped them.
    idle_after: [bool; 3],
    /// The interconnect cycles of the core cycle being stepped (`begin`), for both crossbars.
    icnt_due: std::ops::Range<u64>,
    /// Slices all idle, channels all idle, after the current cycle's reply half.
    quiet: [bool; 2],
    flush: bool,
    sms: usize,
    stats: PartitionStats,
    /// The core cycle of each L2 / DRAM tick of the cycle being stepped (scratch).
    l2_cores: Vec<Cycle>,
    dram_cores: Vec<Cycle>,
    /// The fabric between the two halves of the L2 (`l2.sides` = 2).
    fab: Fabric,
    /// `warm` with `par`: the slice of each line (scratch, kept for the next memcpy).
    #[cfg(feature = "parallel")]
    warm_scratch: Vec<u32>,
}

impl MemPartitions {
    /// Panics only on an invalid L2 cache geometry; use [`MemPartitions::try_new`] to get the
    /// error naming the key.
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::try_new(cfg).expect("valid l2 config (validated at load)")
    }

    pub fn try_new(cfg: &GpuConfig) -> Result<Self> {
        let map = AddrMap::new(&cfg.l2);
        let slices = map.slices();
        let sms = cfg.gpu.num_sms.max(1) as usize;
        let sb = cfg.l2.cache.sector_bytes;
        let core = cfg.clocks.core_mhz;
        let l2d = Domain::new(cfg.clocks.l2_mhz, core);
        let inq = cfg.l2.input_queue.max(1) as usize;
        Ok(MemPartitions {
            map,
            icnt: Domain::new(cfg.clocks.icnt_mhz, core),
            l2d,
            dramd: Domain::new(cfg.clocks.dram_mhz, core),
            req: Crossbar::new(&cfg.noc, sms, slices as usize, inq, sb, false),
            rep: Crossbar::new(&cfg.noc, slices as usize, sms, usize::MAX, sb, true),
            parts: (0..map.partitions)
                .map(|p| {
                    let sub = map.subpartitions;
                    let sl = (p * sub..(p + 1) * sub)
                        .map(|i| L2Slice::new(cfg, i, slices, map.interleave))
                        .collect::<Result<Vec<_>>>()?;
                    let ch = DramChannel::new(&cfg.dram, sb);
                    Ok(Partition::new((p * sub) as usize, sl, ch))
                })
                .collect::<Result<Vec<_>>>()?,
            sub: map.subpartitions.max(1) as usize,
            par: ParSetting {
                on: false,
                min: PAR_MIN_BUSY_PARTS,
            },
            reverse: false,
            dram_lat_core: l2d.to_core(cfg.l2.dram_latency as u64 + cfg.l2.cache.latency as u64),
            now: 0,
            idle_after: [true; 3],
            icnt_due: 0..0,
            quiet: [true; 2],
            flush: cfg.l2.flush_at_kernel_end,
            sms,
            stats: PartitionStats::default(),
            l2_cores: Vec::new(),
            dram_cores: Vec::new(),
            fab: Fabric::new(cfg, &l2d),
            #[cfg(feature = "parallel")]
            warm_scratch: Vec::new(),
        })
    }

    /// Accepts a packet from an SM (back-pressure when that SM's crossbar input is full). The
    /// destination slice is set here from the address map.
    pub fn try_accept(&mut self, _now: Cycle, mut pkt: NocPacket) -> Result<(), NocPacket> {
        pkt.slice = self.map.slice(pkt.req.addr);
        if self.map.sides > 1
            && pkt.req.kind == AccessKind::Load
            && self.map.side_of_slice(pkt.slice) != self.sm_side(pkt.src_sm)
        {
            // A load of a line homed in the far half: the near half's copy.
            pkt.slice = self.map.mirror(pkt.slice);
        }
        pkt.reply = false;
        let i = (pkt.src_sm as usize).min(self.sms - 1);
        self.req.try_push(i, pkt)
    }

    /// The half of the L2 near SM `sm` (the first half of the SM indices are near the first).
    pub fn sm_side(&self, sm: u32) -> u32 {
        ((sm as usize).min(self.sms - 1) * self.map.sides as usize / self.sms) as u32
    }

    /// Accepts packets in order; the ones refused stay in `pending` (in order) for a retry.
    pub fn inject(&mut self, now: Cycle, pending: &mut Vec<NocPacket>) {
        let mut keep = 0;
        for k in 0..pending.len() {
            let p = pending[k];
            if let Err(p) = self.try_accept(now, p) {
                pending[keep] = p;
                keep += 1;
            }
        }
        pending.truncate(keep);
    }

    /// Steps every domain up to core cycle `now`; replies for the SMs are appended to `replies`
    /// in SM order. (The request crossbar steps first, then the slices, channels and the reply
    /// crossbar; [`MemPartitions::tick_replies`] + [`MemPartitions::tick_requests`] are the
    /// same cycle in the other order.)
    pub fn tick(&mut self, now: Cycle, replies: &mut Vec<NocPacket>) {
        self.begin(now);
        self.step_requests();
        self.step_replies(now, replies, false);
        self.finish();
    }

    /// Whether cycle `now` may run its reply half ([`MemPartitions::tick_replies`]) before the
    /// packets of `now` are injected and the request crossbar steps
    /// ([`MemPartitions::tick_requests`]): true when nothing the request crossbar moves in
    /// `now` can arrive at a slice in `now` (one flit plus the crossbar latency in
    /// interconnect cycles ends after this core cycle), so neither half reads what the other
    /// writes. Always true with the presets (interconnect clock <= core clock, latency >= 1).
    pub fn replies_first_ok(&self, now: Cycle) -> bool {
        let mut next = self.icnt.next_cycle();
        if now > self.now + 1 && self.idle_after[0] {
            next = next.max(self.icnt.own(now - 1) + 1);
        }
        let end = self.icnt.own(now) + 1;
        next >= end || self.icnt.core_of(next + 1 + self.req.latency()) > now
    }

    /// The first half of cycle `now` in the split order (only when
    /// [`MemPartitions::replies_first_ok`]): the reply crossbar, the slices and channels, the
    /// replies popped for the SMs (in SM order). Reads nothing the SMs send in `now`, so it
    /// may run beside them; [`MemPartitions::tick_requests`] completes the cycle.
    pub fn tick_replies(&mut self, now: Cycle, replies: &mut Vec<NocPacket>) {
        debug_assert!(self.replies_first_ok(now));
        self.begin(now);
        self.step_replies(now, replies, true);
    }

    /// The second half of the cycle begun by [`MemPartitions::tick_replies`], after
    /// [`MemPartitions::inject`]: the request crossbar steps the same interconnect cycles.
    pub fn tick_requests(&mut self) {
        self.step_requests();
        self.finish();
    }

    /// Clocks up to `now`: the skipped cycles' domain ticks, this cycle's interconnect ticks.
    fn begin(&mut self, now: Cycle) {
        if now > self.now + 1 {
            // The engine skipped cycles self.now+1 .. now-1 (nothing could happen in them): a
            // domain idle at the end of the last tick would have skipped them one by one.
            let [icnt, l2, dram] = self.idle_after;
            if icnt {
                self.icnt.skip_to(now - 1);
            }
            if l2 {
                self.l2d.skip_to(now - 1);
            }
            if dram {
                self.dramd.skip_to(now - 1);
            }
        }
        self.now = now;
        self.stats.cycles = now + 1;
        // Stepped or skipped, the domain ends at the same cycle; a crossbar with nothing
        // queued does nothing in a step.
        self.icnt_due = self.icnt.due(now);
    }

    /// The request crossbar's interconnect cycles of this core cycle.
    fn step_requests(&mut self) {
        if self.req.has_queued() {
            for d in self.icnt_due.clone() {
                self.req.step(d, &self.icnt);
            }
        }
        self.req.release_outputs();
    }

    /// The reply crossbar's interconnect cycles, the slices and channels (partition by
    /// partition, see part.rs), then the replies that reached the SMs by `now`. `ahead`: the
    /// request crossbar steps after this (split order), and must still see the requests the
    /// slices take here in its output queues, as it would stepping first.
    fn step_replies(&mut self, now: Cycle, replies: &mut Vec<NocPacket>, ahead: bool) {
        if self.idle_after == [true; 3] && self.req.is_idle() && self.rep.is_idle() {
            // Idle since the last tick and nothing arriving: the L2 and DRAM domains skip
            // this cycle (what the steps below would do, without visiting slices, channels
            // and ports).
            self.l2d.skip_to(now);
            self.dramd.skip_to(now);
            self.quiet = [true; 2];
            return;
        }
        if self.rep.has_queued() {
            for d in self.icnt_due.clone() {
                self.rep.step(d, &self.icnt);
            }
        }
        // Requests that crossed the fabric by now are looked up at home before the partitions
        // step, so a DRAM read they start is scheduled from this cycle on.
        let fab_home = self.map.sides > 1 && self.fabric_arrivals(now);
        let (l2, dram) = (self.l2d.due(now), self.dramd.due(now));
        self.l2_cores.clear();
        self.l2_cores
            .extend(l2.clone().map(|d| self.l2d.core_of(d)));
        self.dram_cores.clear();
        self.dram_cores
            .extend(dram.clone().map(|d| self.dramd.core_of(d)));
        let x = CycleIn {
            l2,
            dram,
            l2_cores: &self.l2_cores,
            dram_cores: &self.dram_cores,
            l2d: &self.l2d,
            map: self.map,
            rep: &self.rep,
            dram_lat_core: self.dram_lat_core,
        };
        if ahead {
            self.req.hold_outputs();
        }
        let inqs = self.req.outputs_mut();
        step_parts(
            &mut self.parts,
            inqs,
            self.sub,
            &x,
            self.par.on,
            self.par.min,
            self.reverse,
        );
        let mut taken = 0;
        let mut quiet = [true; 2];
        for p in &mut self.parts {
            quiet[0] &= p.idle[0];
            quiet[1] &= p.idle[1];
            if !std::mem::take(&mut p.merge) {
                continue;
            }
            let mut fails = 0;
            for (j, out) in p.out.iter_mut().enumerate() {
                for r in out.drain(..) {
                    let ok = self.rep.try_push(p.first + j, r).is_ok();
                    debug_assert!(ok, "the partition staged a reply its input refuses");
                }
            }
            std::mem::swap(&mut fails, &mut p.fails);
            taken += std::mem::take(&mut p.taken);
            self.req
                .outputs_popped(p.first, std::mem::take(&mut p.popped));
            self.rep.taken(0, fails);
        }
        self.req.taken(taken, 0);
        if ahead {
            self.req.outputs_taken();
        }
        let fab_busy = self.map.sides > 1 && (self.fabric_collect() || fab_home);
        if self.rep.in_transit() > 0 {
            self.rep.pop_arrived(now, replies);
        }
        debug_assert!(
            fab_busy
                || quiet
                    == [
                        self.slices().all(|s| s.is_idle()),
                        self.parts.iter().all(|p| p.chan.is_idle())
                    ]
        );
        self.quiet = if fab_busy { [false; 2] } else { quiet };
    }

    /// The fabric before the partitions step in core cycle `now`: the near copies' misses
    /// that reached their home slices are looked up there, in the order they left (a hit
    /// goes back after the home's tag latency; a miss reads the home partition's DRAM, and
    /// waits, with those behind it, while that queue is full). Returns whether it did
    /// anything or holds requests.
    fn fabric_arrivals(&mut self, now: Cycle) -> bool {
        let mut busy = false;
        while let Some((arrive, r)) = self.fab.next_arrived(now) {
            let h = self.map.slice(r.line) as usize;
            let part = &mut self.parts[h / self.sub];
            let sl = &mut part.slices[h % self.sub];
            let slot = sl.cache.probe(r.line);
            let miss = sl.cache.would_fetch_at(slot, r.sectors, false);
            if miss != 0 && part.chan.free_slots() < 2 {
                // The home's DRAM queue is full: this and the later ones wait.
                break;
            }
            self.fab.pop_arrived();
            let o = sl.cache.access_at(r.line, r.sectors, false, slot);
            if miss == 0 {
                let at = self.fab.back(
                    self.map.side_of_slice(r.near),
                    arrive + self.fab.home_hit,
                    r.sectors,
                );
                Self::fill_near(&mut self.parts, self.sub, r.near, at, r.line, r.sectors);
                busy = true;
                continue;
            }
            let caddr = |a| self.map.channel_addr(a);
            if let Some(e) = o.evicted {
                let _ = part.chan.push(DramReq {
                    addr: e.addr,
                    caddr: caddr(e.addr),
                    sectors: e.dirty,
                    write: true,
                    slice: h as u32,
                    ready: arrive,
                });
            }
            // The fill goes to the near slice (`slice`): the DRAM hands it back to the fabric.
            let _ = part.chan.push(DramReq {
                addr: r.line,
                caddr: caddr(r.line),
                sectors: o.fetch | miss,
                write: false,
                slice: r.near,
                ready: arrive,
            });
            self.fab.wait(r.near, r.line, r.sectors);
            part.idle = [false; 2];
            part.wake();
            busy = true;
        }
        busy || self.fab.in_flight()
    }

    /// The fabric after the partitions stepped (in slice order, so the results do not depend
    /// on how they stepped): the near copies' new misses leave for their homes, the DRAM
    /// reads done for near copies go back (waiting for the bandwidth towards their half).
    /// Returns whether it did anything or holds requests.
    fn fabric_collect(&mut self) -> bool {
        let mut busy = false;
        for p in &mut self.parts {
            for r in p.fab_req.drain(..) {
                self.fab.send(r);
                busy = true;
            }
        }
        for pi in 0..self.parts.len() {
            if self.parts[pi].fab_fill.is_empty() {
                continue;
            }
            let fills = std::mem::take(&mut self.parts[pi].fab_fill);
            for &(ready, near, line, sectors) in &fills {
                let want = self.fab.done(near, line) | sectors;
                let at = self.fab.back(self.map.side_of_slice(near), ready, want);
                Self::fill_near(&mut self.parts, self.sub, near, at, line, want);
            }
            let mut fills = fills;
            fills.clear();
            self.parts[pi].fab_fill = fills;
            busy = true;
        }
        busy || self.fab.in_flight()
    }

    /// Sectors of `line` reach the near slice `near` at core cycle `at` (its MSHR's waiters
    /// are answered then).
    fn fill_near(parts: &mut [Partition], sub: usize, near: u32, at: Cycle, line: u64, s: u8) {
        let p = &mut parts[near as usize / sub];
        p.slices[near as usize % sub].fill_at(at, line, s);
        p.idle[0] = false;
        p.wake();
    }

    /// Which domains are idle at the end of the cycle (for the next cycle's skips).
    fn finish(&mut self) {
        self.idle_after = [
            !(self.req.has_queued() || self.rep.has_queued()),
            self.req.is_idle() && self.quiet[0],
            self.quiet[1],
        ];
    }

    /// The earliest core cycle at which something can happen without new input (None: idle).
    pub fn next_event(&self) -> Option<Cycle> {
        let soon = self.now + 1;
        let mut best: Option<Cycle> = None;
        let mut take = |c: Option<Cycle>| {
            if let Some(c) = c {
                let c = c.max(soon);
                best = Some(best.map_or(c, |b: Cycle| b.min(c)));
            }
        };
        if self.req.has_queued() || self.rep.has_queued() {
            take(Some(soon));
        }
        take(self.req.next_arrival());
        take(self.rep.next_arrival());
        take(self.fab.next_arrival());
        for s in self.slices() {
            take(s.next_event());
        }
        for c in self.parts.iter().map(|p| &p.chan) {
            if c.queued() > 0 {
                take(Some(soon));
            }
            take(c.next_done().map(|d| self.dramd.core_of(d)));
        }
        best
    }

    /// MemcpyHtoD: the copied lines (the last L2-capacity bytes of them) become valid in the
    /// L2. Any 64-bit address.
    pub fn warm(&mut self, addr: u64, bytes: u64) {
        let cap: u64 = self.slices().map(|s| s.cache.capacity_bytes()).sum();
        let lb = self.slices().next().map_or(128, |s| s.cache.line_bytes());
        let end = addr.saturating_add(bytes);
        let mut a = end.saturating_sub(cap).max(addr) & !(lb - 1);
        #[cfg(feature = "parallel")]
        if self.par.on && self.parts.len() > 1 {
            // Each partition warms its own slices' lines, in address order as below: the
            // slices of the lines first (in order), then the partitions on rayon's pool.
            let first = a;
            let mut slices = std::mem::take(&mut self.warm_scratch);
            slices.clear();
            while a < end {
                slices.push(self.map.slice(a));
                a = match a.checked_add(lb) {
                    Some(n) => n,
                    None => break,
                };
            }
            let sub = self.sub;
            use rayon::prelude::*;
            self.parts.par_iter_mut().enumerate().for_each(|(pi, p)| {
                let mut a = first;
                for &s in &slices {
                    let s = s as usize;
                    if s / sub == pi {
                        p.slices[s % sub].cache.warm(a);
                    }
                    a = a.wrapping_add(lb);
                }
            });
            self.warm_scratch = slices;
            self.parts.iter_mut().for_each(Partition::wake);
            return;
        }
        while a < end {
            let s = self.map.slice(a) as usize;
            self.parts[s / self.sub].slices[s % self.sub].cache.warm(a);
            a = match a.checked_add(lb) {
                Some(n) => n,
                None => break,
            };
        }
        self.parts.iter_mut().for_each(Partition::wake);
    }

    /// Kernel end: with `l2.flush_at_kernel_end`, dirty sectors are written back (counted as
    /// DRAM writes; the lines stay valid and clean).
    pub fn end_kernel(&mut self) {
        if !self.flush {
            return;
        }
        for p in &mut self.parts {
            let ch = &mut p.chan;
            for s in &mut p.slices {
                s.cache.flush(|_, d| {
                    ch.stats.writes += 1;
                    ch.stats.write_bytes += d.count_ones() as u64 * 32;
                });
            }
        }
    }

    /// Statistics merged in slice and channel order.
    pub fn stats(&self) -> PartitionStats {
        let mut st = PartitionStats {
            cycles: self.stats.cycles,
            ..PartitionStats::default()
        };
        for s in self.slices() {
            st.l2.merge(s.stats());
        }
        for p in &self.parts {
            st.dram.merge(&p.chan.stats);
        }
        st.noc_requests = self.req.stats;
        st.noc_replies = self.rep.stats;
        st.dram_row_hit_rate = st.dram.row_hit_rate();
        let bytes = (st.dram.read_bytes + st.dram.write_bytes) as f64;
        st.dram_bytes_per_cycle = if st.cycles == 0 {
            0.0
        } else {
            bytes / st.cycles as f64
        };
        st.dram_peak_bytes_per_cycle = self
            .parts
            .iter()
            .map(|p| p.chan.peak_bytes_per_cycle())
            .sum::<f64>()
            * self.dramd.own(1_000_000) as f64
            / 1_000_000.0;
        st
    }

    pub fn is_idle(&self) -> bool {
        !self.fab.in_flight()
            && self.req.is_idle()
            && self.rep.is_idle()
            && self.slices().all(|s| s.is_idle())
            && self.parts.iter().all(|p| p.chan.is_idle())
    }

    /// Every L2 slice, in slice order.
    fn slices(&self) -> impl Iterator<Item = &L2Slice> {
        self.parts.iter().flat_map(|p| &p.slices)
    }

    /// Lets [`MemPartitions::tick`] step the partitions on rayon's current pool (when the
    /// `parallel` feature is on and enough of them are busy). Results do not change.
    /// `min`: the least number of busy partitions worth a fork.
    pub fn set_parallel(&mut self, on: bool, min: usize) {
        // Written only when it changes: the engine sets it every cycle, and with two threads
        // the partner steps the partitions (and reads this) between those calls.
        let p = ParSetting { on, min };
        if self.par != p {
            self.par = p;
        }
    }

    pub fn address_map(&self) -> &AddrMap {
        &self.map
    }
}

/// [`MemPartitions::set_parallel`]'s setting, on a cache line of its own: the engine's thread
/// sets it each cycle, so it must not share a line with what the crew's threads write then.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(align(64))]
struct ParSetting {
    on: bool,
    min: usize,
}

/// Steps every partition through one cycle: serially (in order, or reversed for the tests), or
/// on rayon's current pool when `par` and at least `min` partitions are busy.
fn step_parts(
    parts: &mut [Partition],
    inqs: &mut [std::collections::VecDeque<(Cycle, NocPacket)>],
    sub: usize,
    x: &CycleIn<'_>,
    par: bool,
    min: usize,
    reverse: bool,
) {
    #[cfg(feature = "parallel")]
    if par {
        let busy = parts
            .iter()
            .zip(inqs.chunks(sub))
            .filter(|(p, q)| p.busy(q))
            .count();
        if busy >= min.max(1) {
            use rayon::prelude::*;
            let min_len = (parts.len() / (rayon::current_num_threads().max(1) * 2)).max(1);
            parts
                .par_iter_mut()
                .zip(inqs.par_chunks_mut(sub))
                .with_min_len(min_len)
                .for_each(|(p, q)| p.step(q, x));
            return;
        }
    }
    let _ = (par, min);
    if reverse {
        for (p, q) in parts.iter_mut().zip(inqs.chunks_mut(sub)).rev() {
            p.step(q, x);
        }
    } else {
        for (p, q) in parts.iter_mut().zip(inqs.chunks_mut(sub)) {
            p.step(q, x);
        }
    }
}

/// Unloaded load-to-use latencies in core cycles as the configuration implies them: an L1 hit,
/// an L2 hit and a DRAM access that finds another row open (precharge, activate, read).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Nominal {
    pub l1: f64,
    pub l2: f64,
    pub dram: f64,
}

pub fn nominal_latencies(cfg: &GpuConfig) -> Nominal {
    let core = cfg.clocks.core_mhz;
    let conv = |cycles: f64, mhz: f64| {
        if mhz > 0.0 {
            cycles * core / mhz
        } else {
            cycles
        }
    };
    let n = &cfg.noc;
    let req_flits = (crate::mem::noc::HEADER_BYTES as f64 / n.flit_bytes.max(1) as f64).ceil();
    let rep_flits = ((crate::mem::noc::HEADER_BYTES + cfg.l2.cache.sector_bytes) as f64
        / n.flit_bytes.max(1) as f64)
        .ceil();
    let fpc = n.port_flits_per_cycle.max(1) as f64;
    let noc = conv(
        2.0 * n.latency as f64 + (req_flits / fpc).ceil() + (rep_flits / fpc).ceil() + 1.0,
        cfg.clocks.icnt_mhz,
    );
    let l2 = noc + conv(cfg.l2.cache.latency as f64, cfg.clocks.l2_mhz);
    let t = &cfg.dram.timing;
    let burst = (cfg.dram.burst_length / cfg.dram.data_rate.max(1)).max(1) as f64;
    let dram = l2
        + conv(cfg.l2.dram_latency as f64, cfg.clocks.l2_mhz)
        + conv(
            (t.t_rp + t.t_rcd + t.t_cl) as f64 + burst,
            cfg.clocks.dram_mhz,
        );
    Nominal {
        l1: cfg.l1d.cache.latency as f64,
        l2,
        dram,
    }
}
