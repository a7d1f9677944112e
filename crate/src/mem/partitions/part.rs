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
use crate::mem::iface::NocPacket;
use crate::mem::l2::{Handled, L2Slice};
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
    pub fails: u64,
}

/// What every partition reads in a cycle.
pub(super) struct CycleIn<'a> {
    pub l2: Range<u64>,
    pub dram: Range<u64>,
    pub l2d: &'a Domain,
    pub dramd: &'a Domain,
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
            fails: 0,
        }
    }

    /// Whether stepping this cycle can change anything (requests waiting or arriving, slices
    /// or channel busy).
    pub fn busy(&self, inq: &[VecDeque<(Cycle, NocPacket)>]) -> bool {
        !self.chan.is_idle()
            || inq.iter().any(|q| !q.is_empty())
            || self.slices.iter().any(|s| !s.is_idle())
    }

    /// One core cycle: the L2 ticks of `x.l2` for every slice (in slice order), then the DRAM
    /// ticks of `x.dram`. `inq`: the request crossbar's arrival queues of this partition's
    /// slices. A slice with no fill, request or reply due in an L2 tick is passed over (what
    /// its tick would do: nothing), and DRAM ticks in which the channel can neither issue nor
    /// complete are counted in one go ([`DramChannel::skip_steps`]).
    pub fn step(&mut self, inq: &mut [VecDeque<(Cycle, NocPacket)>], x: &CycleIn<'_>) {
        if !self.busy(inq) {
            return;
        }
        // Reply-crossbar input occupancy, read when a slice first has a reply due.
        let mut held_read = false;
        let map = x.map;
        for d in x.l2.clone() {
            let core_d = x.l2d.core_of(d);
            for (j, sl) in self.slices.iter_mut().enumerate() {
                let q = &mut inq[j];
                let arrived = q.front().is_some_and(|(c, _)| *c <= core_d);
                if !arrived && !sl.due(core_d) {
                    continue;
                }
                sl.apply_fills(core_d);
                if arrived {
                    let p = q.front().expect("arrived").1;
                    let ch = &mut self.chan;
                    if sl.handle(&p, d, x.l2d, ch, |a| map.channel_addr(a)) == Handled::Done {
                        q.pop_front();
                        self.taken += 1;
                    }
                }
                if sl.replies.peek_ready(core_d).is_none() {
                    continue;
                }
                if !held_read {
                    held_read = true;
                    for (k, h) in self.held.iter_mut().enumerate() {
                        *h = x.rep.in_flits(self.first + k);
                    }
                }
                while let Some(r) = sl.replies.peek_ready(core_d).copied() {
                    let f = x.rep.flits(&r);
                    if !x.rep.takes(self.held[j], f) {
                        self.fails += 1;
                        break;
                    }
                    self.held[j] += f;
                    self.out[j].push(r);
                    sl.replies.pop_ready(core_d);
                }
            }
        }
        if self.chan.is_idle() {
            return;
        }
        let ds = x.dram.clone();
        if ds.is_empty()
            || self
                .chan
                .skip_steps(ds.clone(), x.dramd.core_of(ds.end - 1))
        {
            return;
        }
        for d in ds {
            let core_d = x.dramd.core_of(d);
            self.chan.step(d, core_d);
            while let Some(r) = self.chan.pop_done(d) {
                let at = core_d + x.dram_lat_core;
                self.slices[r.slice as usize - self.first].fill_at(at, r.addr, r.sectors);
            }
        }
    }
}
