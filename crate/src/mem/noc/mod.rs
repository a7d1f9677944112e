//! The interconnect: an input-queued crossbar (one for requests SM -> L2 slice, one for replies
//! slice -> SM) with flits, per-port bandwidth and bounded buffers, so contention shows under
//! load.
//!
//! ```text
//!  input i (bounded, flits) ──oldest packet whose output is free (virtual output queues)──> output o: free?  room at o's receiver (bounded)?
//!     round-robin over inputs    │     yes: serialize ceil(flits / flits_per_cycle) cycles,
//!                                │          arrive after + latency
//!                                └─ no: the input stalls (counted)
//! ```
//! A packet is an 8 B header plus its data (write data on requests, read data on replies).

use std::collections::VecDeque;

use serde::Serialize;

use crate::config::NocConfig;
use crate::mem::clock::Domain;
use crate::mem::iface::NocPacket;
use crate::Cycle;

/// Header bytes of every packet.
pub const HEADER_BYTES: u32 = 8;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NocStats {
    pub packets: u64,
    pub flits: u64,
    /// Input-port cycles whose head packet could not move (output busy or full).
    pub stall_cycles: u64,
    /// Packets refused at injection (input buffer full).
    pub inject_fails: u64,
}

impl NocStats {
    pub fn merge(&mut self, o: &NocStats) {
        self.packets += o.packets;
        self.flits += o.flits;
        self.stall_cycles += o.stall_cycles;
        self.inject_fails += o.inject_fails;
    }
}

/// Clears the bits of `busy` whose port is free by cycle `d` (`free[i] <= d`).
#[inline]
fn release(busy: &mut [u64], free: &[u64], d: u64) {
    for (w, word) in busy.iter_mut().enumerate() {
        let mut b = *word;
        while b != 0 {
            let i = w * 64 + b.trailing_zeros() as usize;
            b &= b - 1;
            if free[i] <= d {
                *word &= !(1 << (i % 64));
            }
        }
    }
}

/// Calls `f` with the index of every set bit of `words`, in order.
#[inline]
fn each_bit(words: &[u64], mut f: impl FnMut(usize)) {
    for (w, &word) in words.iter().enumerate() {
        let mut b = word;
        while b != 0 {
            f(w * 64 + b.trailing_zeros() as usize);
            b &= b - 1;
        }
    }
}

/// Bytes a packet carries besides its header.
pub fn payload_bytes(p: &NocPacket, sector_bytes: u32) -> u32 {
    let write = p.req.kind.is_write();
    if p.reply {
        if write && !matches!(p.req.kind, crate::mem::AccessKind::Atomic) {
            0
        } else {
            p.req.sectors.count_ones() * sector_bytes
        }
    } else if write {
        p.req.bytes.max(1)
    } else {
        0
    }
}

#[derive(Clone, Debug)]
pub struct Crossbar {
    flit_bytes: u32,
    sector_bytes: u32,
    latency: u64,
    fpc: u32,
    in_cap: u32,
    out_cap: usize,
    /// Virtual output queues: input `i`'s packets for output `o` at `i * n_out + o`, each with
    /// its arrival number at input `i` and its flits; the oldest packet of an input whose
    /// output can take it is the lowest arrival number among those queues' heads.
    voq: Vec<VecDeque<(u64, NocPacket, u32)>>,
    /// Per input: the next arrival number.
    seq: Vec<u64>,
    in_flits: Vec<u32>,
    in_free: Vec<u64>,
    out_free: Vec<u64>,
    transit: Vec<VecDeque<(Cycle, NocPacket)>>,
    /// Scratch for `step`: which outputs can take a packet this cycle (bitset), and the
    /// number of outputs.
    avail_bits: Vec<u64>,
    n_out: usize,
    /// Per input the bitset of outputs with a queued packet (`words` per input): an input
    /// none of whose outputs can take a packet stalls without a look at its queues.
    has_out: Vec<u64>,
    words: usize,
    /// Per output the bitset of inputs with a packet for it (`in_words` per output), so a
    /// step with few free outputs finds the inputs that may send without visiting the rest.
    has_in: Vec<u64>,
    in_words: usize,
    /// Inputs with a queued packet (bit per input).
    nonempty: Vec<u64>,
    /// Scratch for `step`: the inputs that may send this cycle.
    cand: Vec<u64>,
    /// Inputs and outputs still serializing a packet (`in_free` / `out_free` after the
    /// current cycle: set when a packet of more than one cycle is sent, cleared by the first
    /// step that finds them free), so a step passes them over without a look.
    in_busy: Vec<u64>,
    out_busy: Vec<u64>,
    /// Outputs that may hold packets in flight (a superset: set when one is sent, cleared by
    /// [`Crossbar::pop_arrived`] when it finds none).
    occupied: Vec<u64>,
    /// Outputs whose receiver is full (`transit[o].len() + lag[o] >= out_cap`), kept on every
    /// change (a send, a pop, [`Crossbar::outputs_popped`] after the receivers took packets,
    /// the lag bookkeeping), so a step finds the outputs with room without a look at each.
    full: Vec<u64>,
    /// Per output: packets its receiver took in this core cycle ahead of a `step` that comes
    /// before the taking in the reference order (`hold_outputs` / `outputs_taken`); `step`
    /// still counts them against `out_cap` and forgets them.
    lag: Vec<u32>,
    lagging: bool,
    queued: usize,
    in_transit: usize,
    rr: usize,
    /// true: the reply network (destination = `src_sm`), else requests (destination = `slice`).
    replies: bool,
    pub stats: NocStats,
}

impl Crossbar {
    /// `out_cap`: packets each receiver can hold (its input buffer).
    pub fn new(
        c: &NocConfig,
        inputs: usize,
        outputs: usize,
        out_cap: usize,
        sector_bytes: u32,
        replies: bool,
    ) -> Self {
        Crossbar {
            flit_bytes: c.flit_bytes.max(1),
            sector_bytes,
            latency: c.latency as u64,
            fpc: c.port_flits_per_cycle.max(1),
            in_cap: c.buffer_flits.max(1),
            out_cap: out_cap.max(1),
            voq: vec![VecDeque::new(); inputs * outputs],
            seq: vec![0; inputs],
            in_flits: vec![0; inputs],
            in_free: vec![0; inputs],
            out_free: vec![0; outputs],
            transit: vec![VecDeque::new(); outputs],
            n_out: outputs,
            avail_bits: vec![0; outputs.div_ceil(64)],
            has_out: vec![0; inputs * outputs.div_ceil(64)],
            words: outputs.div_ceil(64),
            has_in: vec![0; outputs * inputs.div_ceil(64).max(1)],
            in_words: inputs.div_ceil(64).max(1),
            nonempty: vec![0; inputs.div_ceil(64).max(1)],
            cand: vec![0; inputs.div_ceil(64).max(1)],
            occupied: vec![0; outputs.div_ceil(64)],
            full: vec![0; outputs.div_ceil(64)],
            in_busy: vec![0; inputs.div_ceil(64).max(1)],
            out_busy: vec![0; outputs.div_ceil(64)],
            lag: vec![0; outputs],
            lagging: false,
            queued: 0,
            in_transit: 0,
            rr: 0,
            replies,
            stats: NocStats::default(),
        }
    }

    pub fn flits(&self, p: &NocPacket) -> u32 {
        (HEADER_BYTES + payload_bytes(p, self.sector_bytes)).div_ceil(self.flit_bytes)
    }

    fn dest(&self, p: &NocPacket) -> usize {
        if self.replies {
            p.src_sm as usize
        } else {
            p.slice as usize
        }
    }

    /// Puts a packet into input `i`; a full input buffer refuses it (back-pressure). A packet
    /// larger than the whole buffer is accepted into an empty one.
    pub fn try_push(&mut self, i: usize, p: NocPacket) -> Result<(), NocPacket> {
        let f = self.flits(&p);
        if !self.takes(self.in_flits[i], f) {
            self.stats.inject_fails += 1;
            return Err(p);
        }
        self.in_flits[i] += f;
        let o = self.dest(&p);
        let q = &mut self.voq[i * self.n_out + o];
        if q.is_empty() {
            self.has_out[i * self.words + o / 64] |= 1 << (o % 64);
            self.has_in[o * self.in_words + i / 64] |= 1 << (i % 64);
        }
        q.push_back((self.seq[i], p, f));
        self.seq[i] += 1;
        self.nonempty[i / 64] |= 1 << (i % 64);
        self.queued += 1;
        Ok(())
    }

    /// Whether input `i`, now holding `held` flits, takes a packet of `f` flits (the rule of
    /// [`Crossbar::try_push`]), so a partition stepped apart can decide as it would.
    #[inline]
    pub fn takes(&self, held: u32, f: u32) -> bool {
        held == 0 || held + f <= self.in_cap
    }

    /// Flits held in input `i`'s buffer.
    pub fn in_flits(&self, i: usize) -> u32 {
        self.in_flits[i]
    }

    /// The arrival queues of every output, for the receivers to take packets from while the
    /// crossbar does not step (a memory partition's slices; see `MemPartitions::tick`). Call
    /// [`Crossbar::taken`] with the number of packets removed, and
    /// [`Crossbar::outputs_popped`] with the outputs they were removed from.
    pub fn outputs_mut(&mut self) -> &mut [VecDeque<(Cycle, NocPacket)>] {
        &mut self.transit
    }

    /// Whether output `o`'s receiver is full (`transit` and `lag` as they stand).
    #[inline]
    fn is_full(&self, o: usize) -> bool {
        self.transit[o].len() + self.lag[o] as usize >= self.out_cap
    }

    /// Recomputes the full bit of output `o`.
    #[inline]
    fn refresh_full(&mut self, o: usize) {
        let bit = 1u64 << (o % 64);
        if self.is_full(o) {
            self.full[o / 64] |= bit;
        } else {
            self.full[o / 64] &= !bit;
        }
    }

    /// Recomputes every output's full bit (the lag changed).
    fn refresh_all_full(&mut self) {
        if self.out_cap != usize::MAX {
            for o in 0..self.n_out {
                self.refresh_full(o);
            }
        }
    }

    /// The receivers took packets from the outputs `first + j` for each bit `j` of `popped`
    /// (through [`Crossbar::outputs_mut`]): their room is looked at again.
    #[inline]
    pub fn outputs_popped(&mut self, first: usize, popped: u64) {
        let mut b = popped;
        while b != 0 {
            let o = first + b.trailing_zeros() as usize;
            b &= b - 1;
            self.refresh_full(o);
        }
    }

    /// `n` packets were removed through [`Crossbar::outputs_mut`] (or refused, for
    /// `fails`): keeps the in-flight count and the statistics as `pop` / `try_push` would.
    pub fn taken(&mut self, n: usize, fails: u64) {
        self.in_transit -= n;
        self.stats.inject_fails += fails;
    }

    pub fn is_idle(&self) -> bool {
        self.queued == 0 && self.in_transit == 0
    }
    pub fn has_queued(&self) -> bool {
        self.queued > 0
    }
    /// Packets sent and not yet taken at their output.
    pub fn in_transit(&self) -> usize {
        self.in_transit
    }
    /// Interconnect cycles a packet spends in flight after its last flit is sent.
    pub fn latency(&self) -> u64 {
        self.latency
    }

    /// Before the receivers take packets (`outputs_mut`) ahead of this core cycle's `step`s:
    /// remembers every output's queue length.
    pub fn hold_outputs(&mut self) {
        for (l, t) in self.lag.iter_mut().zip(&self.transit) {
            *l = t.len() as u32;
        }
    }

    /// After the receivers took packets (since `hold_outputs`): the core cycle's `step`s count
    /// them as still there, as if the receivers had taken them after the steps
    /// ([`Crossbar::release_outputs`] ends that).
    pub fn outputs_taken(&mut self) {
        for (l, t) in self.lag.iter_mut().zip(&self.transit) {
            *l -= t.len() as u32;
        }
        self.lagging = true;
        self.refresh_all_full();
    }

    /// Ends the core cycle begun with [`Crossbar::outputs_taken`].
    pub fn release_outputs(&mut self) {
        if self.lagging {
            self.lag.fill(0);
            self.lagging = false;
            self.refresh_all_full();
        }
    }

    /// One interconnect cycle `d` of domain `dom`.
    pub fn step(&mut self, d: u64, dom: &Domain) {
        if self.queued == 0 {
            return;
        }
        let n = self.in_free.len();
        // Outputs that can take a packet this cycle (one that takes a packet is busy for the
        // rest of it), as a bitset: with none left, every input still to visit stalls.
        let outs = self.n_out;
        release(&mut self.in_busy, &self.in_free, d);
        release(&mut self.out_busy, &self.out_free, d);
        let mut n_avail = 0;
        for (wi, word) in self.avail_bits.iter_mut().enumerate() {
            let lo = wi * 64;
            let hi = (lo + 64).min(outs);
            let mut bits = if hi - lo == 64 {
                u64::MAX
            } else {
                (1u64 << (hi - lo)) - 1
            };
            // Not still serializing (`out_busy` holds every output with `out_free > d`), room
            // at the receiver.
            bits &= !(self.out_busy[wi] | self.full[wi]);
            debug_assert!((0..64).all(|k| bits & (1 << k) == 0
                || self.transit[lo + k].len() + (self.lag[lo + k] as usize) < self.out_cap));
            *word = bits;
            n_avail += bits.count_ones() as usize;
        }
        // Every non-empty input is visited in round-robin order from `rr` ([rr, n) then
        // [0, rr)) and stalls unless it sends, so the stalls are the non-empty inputs less the
        // packets sent. Outputs only become busy during the sweep, so an input with no packet
        // for an output free at its start cannot send: only the others (`cand`) are visited,
        // in the same order, each checked as it comes. With few free outputs they are found
        // from the outputs' input sets (again after each send that takes an output: under
        // load most inputs wait for the same few outputs), else from the non-empty inputs.
        let waiting: usize = self.nonempty.iter().map(|w| w.count_ones() as usize).sum();
        let mut sent = 0usize;
        if n_avail > 0 {
            let by_outputs = n_avail * self.in_words <= waiting;
            if by_outputs {
                self.inputs_for_free_outputs();
            } else {
                self.cand.copy_from_slice(&self.nonempty);
                // An input still serializing its last packet stalls.
                for (c, b) in self.cand.iter_mut().zip(&self.in_busy) {
                    *c &= !b;
                }
            }
            let rr = self.rr.min(n);
            'sweep: for (lo, hi) in [(rr, n), (0, rr)] {
                let mut i = lo;
                while i < hi {
                    let bits = self.cand[i / 64] >> (i % 64);
                    if bits == 0 {
                        i = (i / 64 + 1) * 64;
                        continue;
                    }
                    i += bits.trailing_zeros() as usize;
                    if i >= hi {
                        break;
                    }
                    if let Some(full) = self.serve(i, d, dom, &mut n_avail) {
                        sent += 1;
                        if n_avail == 0 {
                            break 'sweep;
                        }
                        if by_outputs && full {
                            self.inputs_for_free_outputs();
                        }
                    }
                    i += 1;
                }
            }
        }
        self.stats.stall_cycles += (waiting - sent) as u64;
        self.rr = (self.rr + 1) % n.max(1);
    }

    /// `cand`: the inputs with a packet for an output that can take one (`avail_bits`) and
    /// not still serializing (visited inputs may stay in it: the sweep has passed them).
    #[inline]
    fn inputs_for_free_outputs(&mut self) {
        // Called after most sends under load: the one- and two-word cases (up to 128 inputs)
        // keep the union in registers.
        let iw = self.in_words;
        match iw {
            1 => {
                let mut c = 0u64;
                let h = &self.has_in;
                each_bit(&self.avail_bits, |o| c |= h[o]);
                self.cand[0] = c & !self.in_busy[0];
            }
            2 => {
                let (mut c0, mut c1) = (0u64, 0u64);
                let (h, _) = self.has_in.as_chunks::<2>();
                each_bit(&self.avail_bits, |o| {
                    let [h0, h1] = h[o];
                    c0 |= h0;
                    c1 |= h1;
                });
                self.cand[0] = c0 & !self.in_busy[0];
                self.cand[1] = c1 & !self.in_busy[1];
            }
            _ => {
                self.cand.fill(0);
                let (h, cand) = (&self.has_in, &mut self.cand);
                each_bit(&self.avail_bits, |o| {
                    for (c, h) in cand.iter_mut().zip(&h[o * iw..(o + 1) * iw]) {
                        *c |= h;
                    }
                });
                for (c, b) in self.cand.iter_mut().zip(&self.in_busy) {
                    *c &= !b;
                }
            }
        }
    }

    /// Input `i` sends its oldest packet whose output can take it: `Some(true)` when that
    /// left the output unable to take another this cycle; `None` when the input stalls.
    #[inline]
    fn serve(&mut self, i: usize, d: u64, dom: &Domain, n_avail: &mut usize) -> Option<bool> {
        let (w, outs) = (self.words, self.n_out);
        if self.in_free[i] > d {
            return None;
        }
        // Virtual output queues: the oldest packet whose output can take it moves; packets
        // to one output keep their order (an earlier one to the same output was refused).
        let mut best: Option<(u64, usize)> = None;
        for wi in 0..w {
            let mut b = self.has_out[i * w + wi] & self.avail_bits[wi];
            while b != 0 {
                let o = wi * 64 + b.trailing_zeros() as usize;
                b &= b - 1;
                let s = self.voq[i * outs + o].front().expect("has_out").0;
                if best.is_none_or(|(bs, _)| s < bs) {
                    best = Some((s, o));
                }
            }
        }
        let (_, o) = best?;
        let q = &mut self.voq[i * outs + o];
        let (_, p, f) = q.pop_front().expect("picked");
        if q.is_empty() {
            self.has_out[i * w + o / 64] &= !(1 << (o % 64));
            self.has_in[o * self.in_words + i / 64] &= !(1 << (i % 64));
            if self.has_out[i * w..(i + 1) * w].iter().all(|&x| x == 0) {
                self.nonempty[i / 64] &= !(1 << (i % 64));
            }
        }
        let ser = f.div_ceil(self.fpc) as u64;
        self.in_free[i] = d + ser;
        self.out_free[o] = d + ser;
        if ser > 1 {
            self.in_busy[i / 64] |= 1 << (i % 64);
            self.out_busy[o / 64] |= 1 << (o % 64);
        }
        self.in_flits[i] -= f;
        self.queued -= 1;
        self.in_transit += 1;
        self.stats.packets += 1;
        self.stats.flits += f as u64;
        self.transit[o].push_back((dom.core_of(d + ser + self.latency), p));
        self.occupied[o / 64] |= 1 << (o % 64);
        let full = self.is_full(o);
        if full {
            self.full[o / 64] |= 1 << (o % 64);
        }
        if self.out_free[o] > d || full {
            self.avail_bits[o / 64] &= !(1 << (o % 64));
            *n_avail -= 1;
            return Some(true);
        }
        Some(false)
    }

    /// The packet that has arrived at output `o` by core cycle `now`, without taking it.
    pub fn peek(&self, o: usize, now: Cycle) -> Option<&NocPacket> {
        self.transit[o]
            .front()
            .filter(|(c, _)| *c <= now)
            .map(|(_, p)| p)
    }
    pub fn pop(&mut self, o: usize, now: Cycle) -> Option<NocPacket> {
        if self.peek(o, now).is_some() {
            self.in_transit -= 1;
            let p = self.transit[o].pop_front().map(|(_, p)| p);
            self.refresh_full(o);
            p
        } else {
            None
        }
    }
    /// Every packet that has arrived by core cycle `now`, output by output in order, appended
    /// to `out` (what [`Crossbar::pop`] on each output in turn gives), visiting only the
    /// outputs with packets in flight.
    pub fn pop_arrived(&mut self, now: Cycle, out: &mut Vec<NocPacket>) {
        for w in 0..self.occupied.len() {
            let mut bits = self.occupied[w];
            while bits != 0 {
                let o = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let t = &mut self.transit[o];
                let mut n = 0;
                while t.front().is_some_and(|(c, _)| *c <= now) {
                    out.push(t.pop_front().expect("front").1);
                    n += 1;
                }
                if t.is_empty() {
                    self.occupied[w] &= !(1 << (o % 64));
                }
                if n > 0 {
                    self.in_transit -= n;
                    self.refresh_full(o);
                }
            }
        }
    }
    /// Earliest arrival among packets in flight.
    pub fn next_arrival(&self) -> Option<Cycle> {
        if self.in_transit == 0 {
            return None;
        }
        self.transit
            .iter()
            .filter_map(|t| t.front().map(|(c, _)| *c))
            .min()
    }
    pub fn outputs(&self) -> usize {
        self.transit.len()
    }
}
