//! One memory partition: its L2 slices (sub-partitions) and its DRAM channel, stepped through
//! one core cycle on its own, so partitions can step in parallel (issue 6, seed 002).
//!
//! ```text
//!  request crossbar outputs of my slices (taken, not stepped)
//!     ─> slice j: fills, head request (misses ─> my DRAM channel), replies
//!          └─> staged per slice, accepted by the reply crossbar's rule on the flits its
//!              input held at the cycle's start plus what I staged ─> pushed after the step
//!  my DRAM channel: its ticks of the cycle ─> fills of my slices
//! ```
//! A partition reads the crossbars only (the reply input's held flits, flit sizes) and writes
//! only its own slices, channel, arrival queues and staging, so the order in which partitions
//! step cannot change a result; `MemPartitions::tick` merges their staging in slice order.

use std::collections::VecDeque;
use std::ops::Range;

use crate::mem::addrmap::AddrMap;
use crate::mem::clock::Domain;
use crate::mem::dram::DramChannel;
use crate::mem::iface::AccessKind;
use crate::mem::iface::NocPacket;
use crate::mem::l2::{FabricReq, Handled, L2Slice};
use crate::mem::noc::Crossbar;
use crate::Cycle;

pub(super) struct Partition {
    /// Index of the first slice (slices are numbered partition-major).
    pub first: usize,
    pub slices: Vec<L2Slice>,
    pub chan: DramChannel,
    /// Per slice: replies the reply crossbar accepted this cycle (pushed after the step).
    pub out: Vec<Vec<NocPacket>>,
    /// Per slice: flits its reply-crossbar input holds (at the start plus staged).
    held: Vec<u32>,
    /// Requests taken from the request crossbar and replies refused, this cycle.
    pub taken: usize,
    /// Slices (bit j: slice `first + j`) that took a request from their arrival queue.
    pub popped: u64,
    pub fails: u64,
    /// Whether `out`, `taken` or `fails` may hold something to merge (the L2 ticked).
    pub merge: bool,
    /// After the last step: every slice idle, the channel idle (nothing but an arrival in
    /// the request crossbar's queues of my slices changes them until the next step).
    pub idle: [bool; 2],
    sleep: L2Sleep,
    /// This cycle's misses of near copies, for the fabric (`MemPartitions` takes them).
    pub fab_req: Vec<FabricReq>,
    /// This cycle's DRAM reads done for another half's near copy: (core cycle the data is
    /// ready here, near slice, line, sectors).
    pub fab_fill: Vec<(Cycle, u32, u64, u8)>,
}

#[inline]
fn no_sleep() -> bool {
    #[cfg(test)]
    return crate::mem::l2::NO_SLEEP.with(|c| c.get());
    #[cfg(not(test))]
    false
}

/// The slices of a partition asleep: until core cycle `until` every L2 tick would only repeat
/// the last one's stalls (`stalled`: slices whose head request stalls; each stall counts a
/// reservation failure).
///
/// What a tick of slice j reads: its arrival queue's head, its fills and replies (their
/// times bound `until`), its cache and MSHRs, and the DRAM queue's free entries. Asleep
/// nothing changes them but: a packet arriving in an empty arrival queue (`empty`: checked
/// every call), a DRAM command that takes a queued request or a completed read (the DRAM
/// ticks wake the slices), and a cache change from outside (`MemPartitions::warm` wakes
/// every partition: [`Partition::wake`]). A head request that arrived and stalled stalls
/// again while none of these changes.
#[derive(Clone, Copy, Debug, Default)]
struct L2Sleep {
    until: Cycle,
    stalled: u64,
    empty: u64,
}

impl L2Sleep {
    /// The sleep after the ticks up to core cycle `last` (`stalled`: slices whose request
    /// stalled in their latest tick).
    fn after(
        last: Cycle,
        stalled: u64,
        inq: &[VecDeque<(Cycle, NocPacket)>],
        slices: &[L2Slice],
    ) -> Self {
        let soon = last + 1;
        let mut z = L2Sleep {
            until: Cycle::MAX,
            stalled: 0,
            empty: 0,
        };
        for (j, (sl, q)) in slices.iter().zip(inq).enumerate() {
            if let Some(t) = sl.next_event() {
                // A reply still due (the reply crossbar refused it) is tried again next tick.
                z.until = z.until.min(t.max(soon));
            }
            match q.front() {
                None => z.empty |= 1 << j,
                Some((c, _)) if *c > last => z.until = z.until.min(*c),
                Some(_) if stalled & (1 << j) != 0 => z.stalled |= 1 << j,
                // Handled in the last tick: the next request goes in the next.
                Some(_) => z.until = soon,
            }
        }
        if z.until <= soon || slices.len() > 64 {
            z.until = 0;
        }
        z
    }

    /// Whether the slices still sleep in the ticks up to core cycle `last`.
    #[inline]
    fn holds(&self, last: Cycle, inq: &[VecDeque<(Cycle, NocPacket)>]) -> bool {
        if last >= self.until {
            return false;
        }
        let mut e = self.empty;
        while e != 0 {
            let j = e.trailing_zeros() as usize;
            e &= e - 1;
            if !inq[j].is_empty() {
                return false;
            }
        }
        true
    }
}

/// What every partition reads in a cycle.
pub(super) struct CycleIn<'a> {
    pub l2: Range<u64>,
    pub dram: Range<u64>,
    /// The core cycle of each L2 / DRAM tick of `l2` / `dram` (converted once per cycle for
    /// all partitions).
    pub l2_cores: &'a [Cycle],
    pub dram_cores: &'a [Cycle],
    pub l2d: &'a Domain,
    pub map: AddrMap,
    pub rep: &'a Crossbar,
    pub dram_lat_core: Cycle,
}

impl Partition {
    pub fn new(first: usize, slices: Vec<L2Slice>, chan: DramChannel) -> Self {
        let n = slices.len();
        Partition {
            first,
            slices,
            chan,
            out: vec![Vec::new(); n],
            held: vec![0; n],
            taken: 0,
            popped: 0,
            fails: 0,
            merge: false,
            idle: [true; 2],
            sleep: L2Sleep::default(),
            fab_req: Vec::new(),
            fab_fill: Vec::new(),
        }
    }

    /// Whether stepping this cycle can change anything (requests waiting or arriving, slices
    /// or channel busy).
    #[inline]
    pub fn busy(&self, inq: &[VecDeque<(Cycle, NocPacket)>]) -> bool {
        self.idle != [true; 2] || inq.iter().any(|q| !q.is_empty())
    }

    /// The slices' caches changed from outside (L2 warm-up): a sleeping slice may go on.
    pub fn wake(&mut self) {
        self.sleep.until = 0;
    }

    /// One core cycle: the L2 ticks of `x.l2` for every slice (in slice order), then the DRAM
    /// ticks of `x.dram`. `inq`: the request crossbar's arrival queues of this partition's
    /// slices. A slice with no fill, request or reply due in an L2 tick is passed over (what
    /// its tick would do: nothing), and DRAM ticks in which the channel can neither issue nor
    /// complete are counted in one go ([`DramChannel::skip_steps`]). While the slices sleep
    /// ([`L2Sleep`]) their ticks only count the stalls they would repeat.
    #[inline]
    pub fn step(&mut self, inq: &mut [VecDeque<(Cycle, NocPacket)>], x: &CycleIn<'_>) {
        if self.busy(inq) {
            self.step_busy(inq, x);
        }
    }

    /// [`Partition::step`] of a busy partition; ends with the idle flags.
    #[inline(never)]
    fn step_busy(&mut self, inq: &mut [VecDeque<(Cycle, NocPacket)>], x: &CycleIn<'_>) {
        if let Some(&last) = x.l2_cores.last() {
            if self.sleep.holds(last, inq) && !no_sleep() {
                // Every tick would repeat the stalls of the last one and do nothing else.
                let n = x.l2.end - x.l2.start;
                let mut st = self.sleep.stalled;
                while st != 0 {
                    let j = st.trailing_zeros() as usize;
                    st &= st - 1;
                    self.slices[j].cache.stats.reservation_fails += n;
                }
            } else {
                self.l2_ticks(inq, x, last);
            }
        }
        self.dram_ticks(x);
        self.idle = [self.slices.iter().all(|s| s.is_idle()), self.chan.is_idle()];
    }

    /// The L2 ticks of `x.l2` (the last in core cycle `last`), then the sleep they allow.
    fn l2_ticks(&mut self, inq: &mut [VecDeque<(Cycle, NocPacket)>], x: &CycleIn<'_>, last: Cycle) {
        self.merge = true;
        // Reply-crossbar input occupancy, read when a slice first has a reply due.
        let mut held_read = false;
        // Slices whose head request stalled in the latest tick that visited them.
        let mut stalled = 0u64;
        let map = x.map;
        for (d, &core_d) in x.l2.clone().zip(x.l2_cores) {
            for (j, sl) in self.slices.iter_mut().enumerate() {
                let q = &mut inq[j];
                let arrived = q.front().is_some_and(|(c, _)| *c <= core_d);
                if !arrived && !sl.due(core_d) {
                    continue;
                }
                sl.apply_fills(core_d);
                stalled &= !(1 << j);
                if arrived {
                    let p = q.front().expect("arrived").1;
                    let ch = &mut self.chan;
                    let far = map.sides > 1
                        && p.req.kind == AccessKind::Load
                        && map.slice(p.req.addr) != sl.id;
                    let fab = far.then_some(&mut self.fab_req);
                    if sl.handle(&p, d, x.l2d, ch, |a| map.channel_addr(a), fab) == Handled::Done {
                        q.pop_front();
                        self.taken += 1;
                        self.popped |= 1 << j;
                    } else {
                        stalled |= 1 << j;
                    }
                }
                if sl.peek_reply(core_d).is_none() {
                    continue;
                }
                if !held_read {
                    held_read = true;
                    for (k, h) in self.held.iter_mut().enumerate() {
                        *h = x.rep.in_flits(self.first + k);
                    }
                }
                while let Some(r) = sl.peek_reply(core_d).copied() {
                    let f = x.rep.flits(&r);
                    if !x.rep.takes(self.held[j], f) {
                        self.fails += 1;
                        break;
                    }
                    self.held[j] += f;
                    self.out[j].push(r);
                    sl.pop_reply(core_d);
                }
            }
        }
        self.sleep = L2Sleep::after(last, stalled, inq, &self.slices);
    }

    /// The DRAM ticks of `x.dram`; a command that frees a queue entry or a read that
    /// completes wakes the slices (a stalled request may go now, a fill comes due).
    fn dram_ticks(&mut self, x: &CycleIn<'_>) {
        if self.chan.is_idle() {
            return;
        }
        let ds = x.dram.clone();
        let Some(&core_last) = x.dram_cores.last() else {
            return;
        };
        if self.chan.skip_steps(ds.clone(), core_last) {
            return;
        }
        let queued = self.chan.queued();
        for (d, &core_d) in ds.zip(x.dram_cores) {
            self.chan.step(d, core_d);
            while let Some(r) = self.chan.pop_done(d) {
                let at = core_d + x.dram_lat_core;
                match (r.slice as usize).checked_sub(self.first) {
                    Some(j) if j < self.slices.len() => {
                        self.slices[j].fill_at(at, r.addr, r.sectors);
                        self.sleep.until = self.sleep.until.min(at);
                    }
                    // Read for the other half's near copy: back over the fabric.
                    _ => self.fab_fill.push((at, r.slice, r.addr, r.sectors)),
                }
            }
        }
        if self.chan.queued() != queued {
            self.sleep.until = 0;
        }
    }
}
