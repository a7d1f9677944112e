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
    /// slices.
    pub fn step(&mut self, inq: &mut [VecDeque<(Cycle, NocPacket)>], x: &CycleIn<'_>) {
        if !self.busy(inq) {
            return;
        }
        for (j, h) in self.held.iter_mut().enumerate() {
            *h = x.rep.in_flits(self.first + j);
        }
        let map = x.map;
        for d in x.l2.clone() {
            let core_d = x.l2d.core_of(d);
            for (j, sl) in self.slices.iter_mut().enumerate() {
                sl.apply_fills(core_d);
                let q = &mut inq[j];
                if let Some(&(_, p)) = q.front().filter(|(c, _)| *c <= core_d) {
                    let ch = &mut self.chan;
                    if sl.handle(&p, d, x.l2d, ch, |a| map.channel_addr(a)) == Handled::Done {
                        q.pop_front();
                        self.taken += 1;
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
        for d in x.dram.clone() {
            let core_d = x.dramd.core_of(d);
            self.chan.step(d, core_d);
            while let Some(r) = self.chan.pop_done(d) {
                let at = core_d + x.dram_lat_core;
                self.slices[r.slice as usize - self.first].fill_at(at, r.addr, r.sectors);
            }
        }
    }
}
