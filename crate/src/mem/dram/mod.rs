//! One DRAM channel (one per memory partition): banks in bank groups with an open row each,
//! the presets' timing parameters (in DRAM command cycles), one command per cycle, FR-FCFS
//! (row hits first, then the oldest) or FIFO scheduling.
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
    q: Vec<Queued>,
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
            q: Vec::with_capacity(c.queue.max(2) as usize),
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
        self.cap - self.q.len()
    }
    pub fn is_idle(&self) -> bool {
        self.q.is_empty() && self.done.is_empty()
    }
    pub fn queued(&self) -> usize {
        self.q.len()
    }

    pub fn push(&mut self, r: DramReq) -> Result<(), DramReq> {
        if self.q.len() >= self.cap {
            return Err(r);
        }
        let rb = r.caddr / self.row_bytes;
        let bank = (rb % self.nbanks as u64) as u32;
        let row = rb / self.nbanks as u64;
        self.q.push(Queued {
            r,
            bank,
            row,
            opened: false,
        });
        Ok(())
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
        if self.q.is_empty() {
            return;
        }
        self.stats.active_cycles += 1;
        let avail = |e: &Queued| e.r.ready <= core_d;
        let limit = if self.frfcfs { self.q.len() } else { 1 };
        // Column command: the oldest ready row hit.
        if let Some(i) = (0..limit).find(|&i| avail(&self.q[i]) && self.col_ok(&self.q[i], d)) {
            let e = self.q.remove(i);
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
        // Row command for the oldest request whose bank has no pending hit on its open row.
        for i in 0..limit {
            let e = self.q[i];
            if !avail(&e) {
                continue;
            }
            let b = self.banks[e.bank as usize];
            if b.row == Some(e.row) {
                if self.frfcfs {
                    continue;
                }
                return;
            }
            if self.frfcfs {
                if let Some(open) = b.row {
                    if self
                        .q
                        .iter()
                        .any(|o| o.bank == e.bank && o.row == open && avail(o))
                    {
                        continue;
                    }
                }
            }
            let mut act = d;
            if b.row.is_some() {
                if d < b.pre_ok {
                    if self.frfcfs {
                        continue;
                    }
                    return;
                }
                act = d + self.t.t_rp as u64;
            }
            if b.row.is_some() || b.act > 0 {
                act = act.max(b.act + self.t.t_rc as u64);
            }
            if let Some(la) = self.last_act {
                act = act.max(la + self.t.t_rrd as u64);
            }
            let bank = &mut self.banks[e.bank as usize];
            bank.row = Some(e.row);
            bank.act = act;
            bank.col_ok = act + self.t.t_rcd as u64;
            bank.pre_ok = act + self.t.t_ras as u64;
            self.last_act = Some(act);
            self.q[i].opened = true;
            return;
        }
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
}
