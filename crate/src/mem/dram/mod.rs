//! One DRAM channel (one per memory partition): banks in bank groups with an open row each,
//! the presets' timing parameters (in DRAM command cycles), one command per cycle, FR-FCFS
//! (row hits first, then the oldest) or FIFO scheduling.
//!
//! The queue is kept per bank (arrival order inside each, a sequence number across banks), so
//! FR-FCFS looks only at banks that hold requests and, per bank, only until its first
//! candidate; the choice is the same as scanning one arrival-ordered queue.
//!
//! ```text
//!  queue (bounded) ──FR-FCFS──> column: bank row open, tRCD met, tCCD/tCCDL since last column,
//!                    │                   data bus free at +tCL (read) / +tCWL (write),
//!                    │                   tWTR / tRTW turnarounds  ──> data for n bursts
//!                    └────────> row:    PRE (tRAS, tWR met) +tRP, ACT (tRC, tRRD) +tRCD
//!  burst = bus_width_bytes * burst_length bytes, burst_length / data_rate cycles on the bus
//! ```

use serde::Serialize;

use crate::config::{DramConfig, DramTiming};
use crate::Cycle;

/// A request to a channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DramReq {
    /// Global line address (returned to the L2 slice).
    pub addr: u64,
    /// Address within the channel (bank, row and column come from it).
    pub caddr: u64,
    pub sectors: u8,
    pub write: bool,
    /// Global slice index that asked.
    pub slice: u32,
    /// Core cycle from which the request may be scheduled.
    pub ready: Cycle,
}

/// DRAM counters (per channel, merged in channel order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DramStats {
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub row_hits: u64,
    pub row_misses: u64,
    /// DRAM cycles the data bus carried data.
    pub busy_cycles: u64,
    /// DRAM cycles stepped while the channel had work.
    pub active_cycles: u64,
}

impl DramStats {
    pub fn merge(&mut self, o: &DramStats) {
        self.reads += o.reads;
        self.writes += o.writes;
        self.read_bytes += o.read_bytes;
        self.write_bytes += o.write_bytes;
        self.row_hits += o.row_hits;
        self.row_misses += o.row_misses;
        self.busy_cycles += o.busy_cycles;
        self.active_cycles += o.active_cycles;
    }
    pub fn row_hit_rate(&self) -> f64 {
        crate::mem::cache::ratio(self.row_hits, self.row_hits + self.row_misses)
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Bank {
    row: Option<u64>,
    act: u64,
    col_ok: u64,
    pre_ok: u64,
}

#[derive(Clone, Copy, Debug)]
struct Queued {
    r: DramReq,
    bank: u32,
    row: u64,
    opened: bool,
    /// Arrival order across banks.
    seq: u64,
}

/// One channel.
#[derive(Clone, Debug)]
pub struct DramChannel {
    t: DramTiming,
    frfcfs: bool,
    nbanks: u32,
    bgs: u32,
    row_bytes: u64,
    burst_bytes: u32,
    burst_cycles: u64,
    sector_bytes: u32,
    cap: usize,
    /// Queued requests per bank, in arrival order.
    q: Vec<Vec<Queued>>,
    /// Requests queued in all banks, and the next arrival number.
    len: usize,
    seq: u64,
    /// Banks with queued requests (bit b of word b / 64).
    busy: Vec<u64>,
    banks: Vec<Bank>,
    bus_free: u64,
    last_col: Option<(u64, u32)>,
    last_act: Option<u64>,
    last_write_end: u64,
    last_read_col: Option<u64>,
    /// Completed reads: (DRAM cycle the data is complete, request), in completion order.
    done: std::collections::VecDeque<(u64, DramReq)>,
    pub stats: DramStats,
}

impl DramChannel {
    pub fn new(c: &DramConfig, sector_bytes: u32) -> Self {
        let banks = c.banks.max(1);
        DramChannel {
            t: c.timing.clone(),
            frfcfs: c.scheduler != "fifo",
            nbanks: banks,
            bgs: c.bank_groups.clamp(1, banks),
            row_bytes: c.row_bytes.max(64) as u64,
            burst_bytes: (c.bus_width_bytes * c.burst_length).max(1),
            burst_cycles: (c.burst_length / c.data_rate.max(1)).max(1) as u64,
            sector_bytes: sector_bytes.max(1),
            cap: c.queue.max(2) as usize,
            q: vec![Vec::new(); banks as usize],
            len: 0,
            seq: 0,
            busy: vec![0; (banks as usize).div_ceil(64)],
            banks: vec![Bank::default(); banks as usize],
            bus_free: 0,
            last_col: None,
            last_act: None,
            last_write_end: 0,
            last_read_col: None,
            done: Default::default(),
            stats: DramStats::default(),
        }
    }

    /// Peak bytes per DRAM cycle.
    pub fn peak_bytes_per_cycle(&self) -> f64 {
        self.burst_bytes as f64 / self.burst_cycles as f64
    }

    pub fn free_slots(&self) -> usize {
        self.cap - self.len
    }
    pub fn is_idle(&self) -> bool {
        self.len == 0 && self.done.is_empty()
    }
    pub fn queued(&self) -> usize {
        self.len
    }

    pub fn push(&mut self, r: DramReq) -> Result<(), DramReq> {
        if self.len >= self.cap {
            return Err(r);
        }
        let rb = r.caddr / self.row_bytes;
        let bank = (rb % self.nbanks as u64) as u32;
        let row = rb / self.nbanks as u64;
        self.q[bank as usize].push(Queued {
            r,
            bank,
            row,
            opened: false,
            seq: self.seq,
        });
        self.seq += 1;
        self.len += 1;
        self.busy[bank as usize / 64] |= 1 << (bank % 64);
        Ok(())
    }

    /// Banks with queued requests, in bank order.
    fn busy_banks(&self) -> impl Iterator<Item = usize> + '_ {
        self.busy.iter().enumerate().flat_map(|(w, &bits)| {
            let mut b = bits;
            std::iter::from_fn(move || {
                (b != 0).then(|| {
                    let i = b.trailing_zeros() as usize;
                    b &= b - 1;
                    w * 64 + i
                })
            })
        })
    }

    /// Takes request `i` of `bank`'s queue.
    fn take(&mut self, bank: usize, i: usize) -> Queued {
        let e = self.q[bank].remove(i);
        self.len -= 1;
        if self.q[bank].is_empty() {
            self.busy[bank / 64] &= !(1 << (bank % 64));
        }
        e
    }

    /// The oldest queued request (FIFO): (bank, index in its queue).
    fn oldest(&self) -> Option<(usize, usize)> {
        self.oldest_where(|_, _| true, |_| true)
    }

    /// FR-FCFS's pick: the oldest request (arrival order across banks) among the busy banks
    /// `bank_ok` admits, each bank offering its first entry `entry_ok` accepts. Returns (bank,
    /// index in its queue).
    fn oldest_where(
        &self,
        bank_ok: impl Fn(usize, &Bank) -> bool,
        entry_ok: impl Fn(&Queued) -> bool,
    ) -> Option<(usize, usize)> {
        let mut best: Option<(u64, usize, usize)> = None;
        for b in self.busy_banks() {
            if !bank_ok(b, &self.banks[b]) {
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

    fn bursts(&self, sectors: u8) -> u64 {
        let bytes = sectors.count_ones().max(1) * self.sector_bytes;
        bytes.div_ceil(self.burst_bytes) as u64
    }

    fn col_ok(&self, e: &Queued, d: u64) -> bool {
        let b = &self.banks[e.bank as usize];
        if b.row != Some(e.row) || b.col_ok > d {
            return false;
        }
        let bg = e.bank % self.bgs;
        if let Some((lc, lbg)) = self.last_col {
            let gap = if lbg == bg {
                self.t.t_ccdl.max(self.t.t_ccd)
            } else {
                self.t.t_ccd
            } as u64;
            if d < lc + gap.max(1) {
                return false;
            }
        }
        let lat = if e.r.write { self.t.t_cwl } else { self.t.t_cl } as u64;
        if d + lat < self.bus_free {
            return false;
        }
        if e.r.write {
            self.last_read_col
                .is_none_or(|c| d >= c + self.t.t_rtw as u64)
        } else {
            d >= self.last_write_end + self.t.t_wtr as u64 || self.last_write_end == 0
        }
    }

    /// One DRAM cycle `d` (which starts at core cycle `core_d`): at most one command.
    pub fn step(&mut self, d: u64, core_d: Cycle) {
        if self.len == 0 {
            return;
        }
        self.stats.active_cycles += 1;
        let avail = |e: &Queued| e.r.ready <= core_d;
        // Column command: the oldest ready row hit (FIFO: only the oldest request).
        let col = if self.frfcfs {
            self.oldest_where(
                |_, bk| bk.row.is_some() && bk.col_ok <= d,
                |e| avail(e) && self.col_ok(e, d),
            )
        } else {
            self.oldest()
                .filter(|&(b, i)| avail(&self.q[b][i]) && self.col_ok(&self.q[b][i], d))
        };
        if let Some((bank, i)) = col {
            let e = self.take(bank, i);
            let n = self.bursts(e.r.sectors);
            let lat = if e.r.write { self.t.t_cwl } else { self.t.t_cl } as u64;
            let start = (d + lat).max(self.bus_free);
            let end = start + n * self.burst_cycles;
            self.bus_free = end;
            self.stats.busy_cycles += n * self.burst_cycles;
            self.last_col = Some((d, e.bank % self.bgs));
            let bytes = n * self.burst_bytes as u64;
            if e.opened {
                self.stats.row_misses += 1;
            } else {
                self.stats.row_hits += 1;
            }
            let b = &mut self.banks[e.bank as usize];
            b.col_ok = b.col_ok.max(d + self.t.t_ccdl.max(1) as u64);
            if e.r.write {
                b.pre_ok = b.pre_ok.max(end + self.t.t_wr as u64);
                self.last_write_end = end;
                self.stats.writes += 1;
                self.stats.write_bytes += bytes;
            } else {
                self.last_read_col = Some(d);
                self.stats.reads += 1;
                self.stats.read_bytes += bytes;
                self.done.push_back((end, e.r));
            }
            return;
        }
        // Row command for the oldest ready request whose bank has no ready hit on its open row
        // (FIFO: the oldest request, when it is ready and misses).
        let row = if self.frfcfs {
            self.oldest_where(
                |b, bk| match bk.row {
                    Some(open) => {
                        d >= bk.pre_ok && !self.q[b].iter().any(|o| o.row == open && avail(o))
                    }
                    None => true,
                },
                avail,
            )
        } else {
            self.oldest().filter(|&(b, i)| {
                let (e, bk) = (&self.q[b][i], &self.banks[b]);
                avail(e) && bk.row != Some(e.row) && (bk.row.is_none() || d >= bk.pre_ok)
            })
        };
        let Some((bi, i)) = row else {
            return;
        };
        let e = self.q[bi][i];
        let b = self.banks[bi];
        let mut act = d;
        if b.row.is_some() {
            act = d + self.t.t_rp as u64;
        }
        if b.row.is_some() || b.act > 0 {
            act = act.max(b.act + self.t.t_rc as u64);
        }
        if let Some(la) = self.last_act {
            act = act.max(la + self.t.t_rrd as u64);
        }
        let bank = &mut self.banks[bi];
        bank.row = Some(e.row);
        bank.act = act;
        bank.col_ok = act + self.t.t_rcd as u64;
        bank.pre_ok = act + self.t.t_ras as u64;
        self.last_act = Some(act);
        self.q[bi][i].opened = true;
    }

    /// A read whose data is complete by DRAM cycle `d`.
    pub fn pop_done(&mut self, d: u64) -> Option<DramReq> {
        if self.done.front().is_some_and(|(e, _)| *e <= d) {
            self.done.pop_front().map(|(_, r)| r)
        } else {
            None
        }
    }
    /// DRAM cycle of the next completion.
    pub fn next_done(&self) -> Option<u64> {
        self.done.front().map(|(e, _)| *e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Saturated channel: 40 sequential streams of 128 B requests; the data bus should be
    /// busy nearly all the time.
    #[test]
    fn saturated_channel_keeps_the_bus_busy() {
        let c = DramConfig::default();
        let mut ch = DramChannel::new(&c, 32);
        let mut next = [0u64; 40];
        let mut s = 0usize;
        let cycles = 20_000u64;
        for d in 0..cycles {
            while ch.free_slots() > 0 {
                let caddr = ((s as u64) << 24) + next[s] * 128;
                next[s] += 1;
                s = (s * 7 + 3) % 40;
                ch.push(DramReq {
                    caddr,
                    sectors: 0xf,
                    ..DramReq::default()
                })
                .unwrap();
            }
            ch.step(d, d);
            while ch.pop_done(d).is_some() {}
        }
        let util = ch.stats.busy_cycles as f64 / cycles as f64;
        assert!(util > 0.9);
    }

    /// Completion order of reads A (bank 0, row 0), then B (bank 0, row 1) and C (bank 0,
    /// row 0) queued while A's row is open: FR-FCFS serves the younger row hit C before the
    /// older miss B; FIFO keeps arrival order (A, D, B, C). D (bank 1, queued second) opens its
    /// own bank; under FR-FCFS it may go before or after C, but always before B, which must
    /// wait for bank 0's hits and a precharge.
    #[test]
    fn frfcfs_serves_row_hits_first_and_fifo_keeps_order() {
        for sched in ["frfcfs", "fifo"] {
            let c = DramConfig {
                scheduler: sched.into(),
                ..DramConfig::default()
            };
            let mut ch = DramChannel::new(&c, 32);
            let (rowb, nb) = (c.row_bytes.max(64) as u64, c.banks.max(1) as u64);
            // caddr of (bank, row): row-major over banks.
            let at = |bank: u64, row: u64| (row * nb + bank) * rowb;
            let rd = |addr: u64, caddr: u64| DramReq {
                addr,
                caddr,
                sectors: 1,
                ..DramReq::default()
            };
            ch.push(rd(1, at(0, 0))).unwrap();
            ch.push(rd(4, at(1, 0))).unwrap();
            let mut got = Vec::new();
            for d in 0..400u64 {
                if d == 1 {
                    ch.push(rd(2, at(0, 1))).unwrap();
                    ch.push(rd(3, at(0, 0) + 64)).unwrap();
                }
                ch.step(d, d);
                while let Some(r) = ch.pop_done(d) {
                    got.push(r.addr);
                }
            }
            let pos = |a: u64| got.iter().position(|&x| x == a).unwrap();
            assert_eq!(got.len(), 4, "{sched}: {got:?}");
            assert_eq!(got[0], 1, "{sched}: {got:?}");
            if sched == "fifo" {
                assert_eq!(got, [1, 4, 2, 3]);
            } else {
                assert!(pos(3) < pos(2) && pos(4) < pos(2), "{sched}: {got:?}");
                assert_eq!(got[3], 2, "{sched}: {got:?}");
            }
        }
    }
}
