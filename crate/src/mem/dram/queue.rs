//! The request queues of one DRAM channel: one arrival-ordered queue per bank, a sequence
//! number across banks, and a bitmask of the banks that hold requests, so a scheduler visits
//! only busy banks and, per bank, stops at its first candidate (the same pick as scanning one
//! arrival-ordered queue).
//!
//! ```text
//!  push ──> bank b's queue (arrival order) ─┐   busy bits: b set while its queue is non-empty
//!           ...                             ├─> oldest_where(bank_ok, entry_ok): the lowest
//!           bank n's queue ────────────────-┘   sequence number over the admitted banks
//! ```
//! A channel keeps one of these for reads (and writes, when they share it) and one for its
//! separate write queue (`dram.write_queue`).

/// A queued request with its bank and row.
#[derive(Clone, Copy, Debug)]
pub(super) struct Queued {
    pub r: super::DramReq,
    pub bank: u32,
    pub row: u64,
    /// This request's row was opened for it (counted as a row miss when served).
    pub opened: bool,
    /// Arrival order across banks (and across the channel's queues).
    pub seq: u64,
}

/// No request of the bank is on its open row (`BankQueues::first_hit`).
pub(super) const NO_HIT: u32 = u32::MAX;

/// Per-bank queues with a busy-bank bitmask.
#[derive(Clone, Debug)]
pub(super) struct BankQueues {
    q: Vec<Vec<Queued>>,
    /// Requests queued in all banks.
    pub len: usize,
    /// Banks with queued requests (bit b of word b / 64).
    busy: Vec<u64>,
    /// Per bank: the index of its first request on the bank's open row (`NO_HIT`: none), kept
    /// on push, take and row change.
    pub first_hit: Vec<u32>,
    /// Per bank: how many of its requests are on the bank's open row, kept likewise.
    pub hits: Vec<u32>,
    /// Per bank: the arrival number of its first request, and of its first request on the
    /// open row (valid while `first_hit` is not `NO_HIT`), so the schedulers' common case reads
    /// these arrays instead of the queues.
    pub head_seq: Vec<u64>,
    pub hit_seq: Vec<u64>,
    /// Per bank: no request of it is ready later than this core cycle (an upper bound: the
    /// largest `ready` pushed since the bank was last empty).
    pub ready_max: Vec<u64>,
}

impl BankQueues {
    pub fn new(banks: u32) -> Self {
        BankQueues {
            q: vec![Vec::new(); banks as usize],
            len: 0,
            busy: vec![0; (banks as usize).div_ceil(64)],
            first_hit: vec![NO_HIT; banks as usize],
            hits: vec![0; banks as usize],
            head_seq: vec![0; banks as usize],
            hit_seq: vec![0; banks as usize],
            ready_max: vec![0; banks as usize],
        }
    }

    /// Queues `e`; `open`: its bank's open row.
    pub fn push(&mut self, e: Queued, open: Option<u64>) {
        let b = e.bank as usize;
        if open == Some(e.row) {
            if self.first_hit[b] == NO_HIT {
                self.first_hit[b] = self.q[b].len() as u32;
                self.hit_seq[b] = e.seq;
            }
            self.hits[b] += 1;
        }
        if self.q[b].is_empty() {
            self.head_seq[b] = e.seq;
        }
        self.ready_max[b] = self.ready_max[b].max(e.r.ready);
        self.q[b].push(e);
        self.len += 1;
        self.busy[b / 64] |= 1 << (b % 64);
    }

    /// Bank `b`'s queue, in arrival order.
    pub fn bank(&self, b: usize) -> &[Queued] {
        &self.q[b]
    }

    pub fn get(&self, b: usize, i: usize) -> &Queued {
        &self.q[b][i]
    }

    pub fn mark_opened(&mut self, b: usize, i: usize) {
        self.q[b][i].opened = true;
    }

    /// Banks with queued requests, in bank order.
    #[inline]
    pub fn busy_banks(&self) -> BusyBanks<'_> {
        BusyBanks {
            words: &self.busy,
            w: 0,
            bits: self.busy.first().copied().unwrap_or(0),
        }
    }

    /// Takes request `i` of bank `b`'s queue (`open`: the bank's open row).
    pub fn take(&mut self, b: usize, i: usize, open: Option<u64>) -> Queued {
        let e = self.q[b].remove(i);
        self.len -= 1;
        if open == Some(e.row) {
            self.hits[b] -= 1;
        }
        if self.q[b].is_empty() {
            self.busy[b / 64] &= !(1 << (b % 64));
            self.first_hit[b] = NO_HIT;
            self.ready_max[b] = 0;
            return e;
        }
        if i == 0 {
            self.head_seq[b] = self.q[b][0].seq;
        }
        let fh = self.first_hit[b];
        if fh != NO_HIT {
            if (i as u32) < fh {
                self.first_hit[b] = fh - 1;
            } else if i as u32 == fh {
                self.set_first_hit(b, self.hit_from(b, i, open));
            }
        }
        e
    }

    /// Bank `b`'s row `open` was opened: its first request on it, and how many there are.
    pub fn reopen(&mut self, b: usize, open: u64) {
        self.set_first_hit(b, self.hit_from(b, 0, Some(open)));
        self.hits[b] = self.q[b].iter().filter(|e| e.row == open).count() as u32;
    }

    /// Sets bank `b`'s first hit to index `h` (`NO_HIT`: none), with its arrival number.
    fn set_first_hit(&mut self, b: usize, h: u32) {
        self.first_hit[b] = h;
        if h != NO_HIT {
            self.hit_seq[b] = self.q[b][h as usize].seq;
        }
    }

    /// The index of bank `b`'s first request on row `open` from index `i` on.
    fn hit_from(&self, b: usize, i: usize, open: Option<u64>) -> u32 {
        self.q[b][i..]
            .iter()
            .position(|e| Some(e.row) == open)
            .map_or(NO_HIT, |k| (i + k) as u32)
    }

    /// The oldest request (arrival order across banks) among the busy banks `bank_ok` admits,
    /// each bank offering its first entry `entry_ok` accepts: (bank, index in its queue).
    pub fn oldest_where(
        &self,
        bank_ok: impl Fn(usize) -> bool,
        entry_ok: impl Fn(&Queued) -> bool,
    ) -> Option<(usize, usize)> {
        let mut best: Option<(u64, usize, usize)> = None;
        for b in self.busy_banks() {
            if !bank_ok(b) {
                continue;
            }
            if let Some(i) = self.q[b].iter().position(&entry_ok) {
                let seq = self.q[b][i].seq;
                if best.is_none_or(|(s, _, _)| seq < s) {
                    best = Some((seq, b, i));
                }
            }
        }
        best.map(|(_, b, i)| (b, i))
    }

    /// The oldest queued request (FIFO).
    pub fn oldest(&self) -> Option<(usize, usize)> {
        self.oldest_where(|_| true, |_| true)
    }
}

/// The set bits of the busy-bank words, in order (a plain loop: the schedulers walk it once
/// or twice per DRAM command).
pub(super) struct BusyBanks<'a> {
    words: &'a [u64],
    w: usize,
    bits: u64,
}

impl Iterator for BusyBanks<'_> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            self.w += 1;
            self.bits = *self.words.get(self.w)?;
        }
        let i = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(self.w * 64 + i)
    }
}
