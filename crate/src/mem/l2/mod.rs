//! One L2 slice (a sub-partition of a memory partition): sectored write-back write-allocate
//! cache, MSHRs, atomics performed here, misses to the partition's DRAM channel.
//!
//! ```text
//!  request crossbar ──> [tag, one request per L2 cycle]
//!     hit ───────────────────────────────> reply after `latency` (+ atomic_latency)
//!     miss ──MSHR (merge | new)──> DRAM read ──fill (+ dram_latency)──> replies to waiters
//!     dirty victim ──────────────> DRAM write
//!  replies ──> reply crossbar
//! ```
//! Reservation failures (MSHR full, merge limit, DRAM queue full) stall the head request.

use crate::config::GpuConfig;
use crate::mem::cache::{CacheStats, Mshr, SectorCache};
use crate::mem::clock::{DelayQueue, Domain};
use crate::mem::dram::{DramChannel, DramReq};
use crate::mem::iface::{AccessKind, HitLevel, NocPacket};
use crate::{Cycle, Result};

#[cfg(test)]
thread_local! {
    /// Tests: the slices of a partition never sleep (`mem/partitions/part.rs`), every L2 tick
    /// runs in full (`timing_tests::sleeping_slices_equal_ticking` compares).
    pub(crate) static NO_SLEEP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[derive(Clone, Debug)]
pub struct L2Slice {
    pub id: u32,
    pub cache: SectorCache,
    latency: u64,
    atomic_latency: u64,
    /// L2 cycles per serialized atomic update (`l2.atomic_interval`), and the atomic unit:
    /// the L2 cycle (fractional) it is free again, and the finish cycles of the requests it
    /// holds (at most [`ATOMIC_QUEUE`]; a full unit stalls the slice's input).
    atomic_interval: f64,
    atomic_free: f64,
    atomic_q: [u64; ATOMIC_QUEUE],
    atomic_n: usize,
    /// While the atomic unit is full: the core cycle its first request finishes (a stalled
    /// head request is tried again then), else `Cycle::MAX`.
    atomic_wake: Cycle,
    mshr: Mshr<NocPacket>,
    /// Replies waiting for their latency, in core cycles.
    replies: DelayQueue<NocPacket>,
    /// Fills from DRAM arriving (core cycle), with the sectors.
    fills: DelayQueue<(u64, u8)>,
    /// The earlier of the first fill's and the first reply's core cycle (`Cycle::MAX`: none),
    /// kept on every push and pop, so the per-tick checks read one field.
    due_at: Cycle,
}

/// A load's miss in the near half's copy of a far-homed line (`l2.sides` = 2): it crosses the
/// fabric to the line's home slice instead of going to this partition's DRAM channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FabricReq {
    pub line: u64,
    pub sectors: u8,
    /// The near slice (global index) whose MSHR waits for the sectors.
    pub near: u32,
    /// Core cycle it leaves the near slice.
    pub at: Cycle,
}

/// Atomic requests the slice's atomic unit holds at most.
pub const ATOMIC_QUEUE: usize = 32;

/// What the slice did with the head request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handled {
    Done,
    Stalled,
}

impl L2Slice {
    pub fn new(cfg: &GpuConfig, id: u32, slices: u32, interleave: u64) -> Result<Self> {
        let mut cache = SectorCache::new(&cfg.l2.cache, "l2.cache")?;
        cache.set_slice_keys(interleave / cache.line_bytes().max(1), slices as u64);
        Ok(L2Slice {
            id,
            cache,
            latency: cfg.l2.cache.latency as u64,
            atomic_latency: cfg.l2.atomic_latency as u64,
            atomic_interval: cfg.l2.atomic_interval,
            atomic_free: 0.0,
            atomic_q: [0; ATOMIC_QUEUE],
            atomic_n: 0,
            atomic_wake: Cycle::MAX,
            mshr: Mshr::new(cfg.l2.cache.mshr_entries, cfg.l2.cache.mshr_merge),
            replies: DelayQueue::default(),
            fills: DelayQueue::default(),
            due_at: Cycle::MAX,
        })
    }

    pub fn stats(&self) -> &CacheStats {
        &self.cache.stats
    }

    #[inline]
    pub fn is_idle(&self) -> bool {
        // No fill and no reply queued (`due_at`), no miss in flight.
        self.due_at == Cycle::MAX && self.mshr.is_empty()
    }

    #[inline]
    pub fn next_event(&self) -> Option<Cycle> {
        let t = self.due_at.min(self.atomic_wake);
        (t != Cycle::MAX).then_some(t)
    }

    /// Whether a fill arrives or a reply is ready by core cycle `now` (a tick without them
    /// and without a request does nothing).
    #[inline]
    pub fn due(&self, now: Cycle) -> bool {
        self.due_at <= now
    }

    /// `due_at` after a pop.
    #[inline]
    fn refresh_due(&mut self) {
        let f = self.fills.next_time().unwrap_or(Cycle::MAX);
        let r = self.replies.next_time().unwrap_or(Cycle::MAX);
        self.due_at = f.min(r);
    }

    /// A DRAM read of `sectors` of `line` arrives at core cycle `at`.
    #[inline]
    pub fn fill_at(&mut self, at: Cycle, line: u64, sectors: u8) {
        self.fills.push(at, (line, sectors));
        self.due_at = self.due_at.min(at);
    }

    /// The reply ready by core cycle `now` that leaves next, without taking it.
    #[inline]
    pub fn peek_reply(&self, now: Cycle) -> Option<&NocPacket> {
        self.replies.peek_ready(now)
    }

    /// Takes the reply [`L2Slice::peek_reply`] showed.
    #[inline]
    pub fn pop_reply(&mut self, now: Cycle) {
        self.replies.pop_ready(now);
        self.refresh_due();
    }

    fn reply(p: &NocPacket, level: HitLevel) -> NocPacket {
        NocPacket {
            reply: true,
            level,
            ..*p
        }
    }

    /// Applies the fills that have arrived by core cycle `now`.
    #[inline]
    pub fn apply_fills(&mut self, now: Cycle) {
        if self.due_at <= now && self.fills.next_time().is_some_and(|t| t <= now) {
            self.apply_fills_due(now);
        }
    }

    #[inline(never)]
    fn apply_fills_due(&mut self, now: Cycle) {
        while let Some((line, sectors)) = self.fills.pop_ready(now) {
            let extra = self.atomic_latency;
            let replies = &mut self.replies;
            self.mshr.fill(line, sectors, |w: NocPacket| {
                let at = if w.req.kind == AccessKind::Atomic {
                    now + extra
                } else {
                    now
                };
                replies.push(at, Self::reply(&w, HitLevel::Dram));
            });
        }
        self.refresh_due();
    }

    /// Whether the atomic unit holds [`ATOMIC_QUEUE`] requests not finished by L2 cycle `d`
    /// (the finished ones leave).
    fn atomic_unit_full(&mut self, d: u64, dom: &Domain) -> bool {
        let mut k = 0;
        for i in 0..self.atomic_n {
            if self.atomic_q[i] > d {
                self.atomic_q[k] = self.atomic_q[i];
                k += 1;
            }
        }
        self.atomic_n = k;
        let full = k == ATOMIC_QUEUE;
        self.atomic_wake = match self.atomic_q[..k].iter().min() {
            Some(&first) if full => dom.core_of(first),
            _ => Cycle::MAX,
        };
        full
    }

    /// A request with `serial` updates of one address enters the atomic unit in L2 cycle
    /// `d`: the L2 cycles until it is done.
    fn atomic_unit_take(&mut self, d: u64, serial: u8) -> u64 {
        let start = self.atomic_free.max(d as f64);
        self.atomic_free = start + serial as f64 * self.atomic_interval;
        let done = self.atomic_free.ceil() as u64;
        self.atomic_q[self.atomic_n] = done;
        self.atomic_n += 1;
        done - d
    }

    /// Handles one request in L2 cycle `d` (core cycle `core_d`); misses go to `dram`, or,
    /// for a load looking up this slice's copy of a line homed in the other half (`far`), to
    /// the fabric.
    pub fn handle(
        &mut self,
        p: &NocPacket,
        d: u64,
        dom: &Domain,
        dram: &mut DramChannel,
        caddr: impl Fn(u64) -> u64,
        far: Option<&mut Vec<FabricReq>>,
    ) -> Handled {
        let r = &p.req;
        // A full DRAM queue stalls whatever the request is: checked first, as it is the
        // usual stall of a saturated channel (the checks below change nothing, so the order
        // of the two refusals is not observable).
        if dram.free_slots() < 2 {
            self.cache.stats.reservation_fails += 1;
            return Handled::Stalled;
        }
        let write = r.kind.is_write();
        let atomic = matches!(r.kind, AccessKind::Atomic | AccessKind::Reduction);
        // The atomic unit: updates of one address serialize; a full unit holds the input.
        let serial = atomic && self.atomic_interval > 0.0 && r.atomic_serial > 0;
        if serial && self.atomic_unit_full(d, dom) {
            return Handled::Stalled;
        }
        let line = self.cache.line_addr(r.addr);
        // One tag lookup serves the check and the access (nothing changes the cache between).
        let slot = self.cache.probe(line);
        // Stores may allocate without reading (lazy fetch-on-read); atomics read their data.
        let store = r.kind == AccessKind::Store;
        let fetch = if store {
            self.cache.would_fetch_store_at(slot, r.sectors)
        } else {
            self.cache.would_fetch_at(slot, r.sectors, write)
        };
        let pending = self.mshr.pending(line) & r.sectors;
        // Loads and atomics wait for their data; stores are acknowledged at once.
        let waits = (fetch != 0 || pending != 0) && (!write || atomic) && p.ack;
        if (fetch != 0 || waits) && self.mshr.can_reserve(line, waits).is_err() {
            self.cache.stats.reservation_fails += 1;
            return Handled::Stalled;
        }
        let unit_delay = if serial {
            self.atomic_unit_take(d, r.atomic_serial)
        } else {
            0
        };
        let o = if store {
            self.cache.store_at(r.addr, r.sectors, r.full, slot)
        } else {
            self.cache.access_at(r.addr, r.sectors, write, slot)
        };
        // The tag latency of a miss is charged on the fill path (MemPartitions), so the DRAM
        // queue holds only requests it can schedule.
        let ready = dom.core_of(d);
        let mk = |addr: u64, sectors: u8, write: bool| DramReq {
            addr,
            caddr: caddr(addr),
            sectors,
            write,
            slice: self.id,
            ready,
        };
        if let Some(e) = o.evicted {
            let _ = dram.push(mk(e.addr, e.dirty, true));
        }
        if o.write != 0 {
            let _ = dram.push(mk(line, o.write, true));
        }
        let waiter = waits.then_some(*p);
        if o.fetch != 0 || pending != 0 {
            let (new, merged) = self.mshr.reserve(line, o.fetch, waiter);
            if merged && waits {
                self.cache.stats.mshr_merges += 1;
            }
            if new != 0 {
                match far {
                    Some(f) => f.push(FabricReq {
                        line,
                        sectors: new,
                        near: self.id,
                        at: ready,
                    }),
                    None => {
                        let _ = dram.push(mk(line, new, false));
                    }
                }
            }
        }
        if !waits && p.ack {
            let extra = if atomic {
                self.atomic_latency + unit_delay
            } else {
                0
            };
            let at = dom.core_of(d + self.latency + extra);
            self.replies.push(at, Self::reply(p, HitLevel::L2));
            self.due_at = self.due_at.min(at);
        }
        Handled::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Updates of one address serialize in the atomic unit: a request of 32 lanes on one
    /// address holds it 32 x `atomic_interval` L2 cycles; the next waits behind it; a full
    /// unit refuses until its first request is done.
    #[test]
    fn atomic_unit_serializes_updates_of_one_address() {
        let mut cfg = GpuConfig::default();
        cfg.l2.atomic_interval = 1.5;
        let mut s = L2Slice::new(&cfg, 0, 1, 256).unwrap();
        let dom = Domain::new(1000.0, 1000.0);
        assert!(!s.atomic_unit_full(100, &dom));
        assert_eq!(s.atomic_unit_take(100, 32), 48);
        assert_eq!(s.atomic_unit_take(100, 1), 50, "1.5 cycles after the first");
        assert_eq!(s.atomic_unit_take(200, 2), 3, "idle unit: starts at once");
        // The two done by 150 have left; 31 more fill the unit.
        assert!(!s.atomic_unit_full(200, &dom));
        for _ in 1..ATOMIC_QUEUE {
            s.atomic_unit_take(200, 1);
        }
        assert!(s.atomic_unit_full(200, &dom));
        assert_eq!(
            s.next_event(),
            Some(203),
            "wakes when its first request is done"
        );
        assert!(
            !s.atomic_unit_full(203, &dom),
            "the request done at 203 left"
        );
    }
}
