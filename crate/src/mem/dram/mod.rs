//! One DRAM channel (one per memory partition): banks in bank groups with an open row each,
//! the presets' timing parameters (in DRAM command cycles), one command per cycle, FR-FCFS
//! (row hits first, then the oldest) or FIFO scheduling, and optionally a separate write
//! queue drained in batches.
//!
//! ```text
//!            ┌> read queue (dram.queue) ──────┐ read mode: reads only (writes only while no
//!  push ─────┤                                ├─> read is queued)
//!            └> write queue (dram.write_queue)┘ write mode: from write_high queued writes
//!                                                until fewer than write_low remain
//!  active queue ──FR-FCFS──> column: bank row open, tRCD met, tCCD/tCCDL since last column,
//!                    │                data bus free at +tCL (read) / +tCWL (write),
//!                    │                tWTR / tRTW turnarounds  ──> data for n bursts
//!                    └────────> row:  PRE (tRAS, tWR met) +tRP, ACT (tRC, tRRD) +tRCD
//!  burst = bus_width_bytes * burst_length bytes, burst_length / data_rate cycles on the bus
//! ```
//!
//! With `dram.write_queue = 0` reads and writes share the one queue (the scheduler then
//! mixes them freely, paying a turnaround and often a row conflict at each switch). With a
//! write queue, writes wait in it and are drained as a batch when `write_high` of them are
//! queued, until fewer than `write_low` remain: the batch finds its rows open among
//! themselves and the bus turns around twice per batch instead of at every switch. This is
//! Accel-Sim's `-dram_seperate_write_queue_enable` with `-dram_write_queue_size
//! SIZE:HIGH:LOW` (its `frfcfs_scheduler`, read mode / write mode; AS-SM7_TITANV enables it
//! with 128:108:32). One deviation: in read mode with no read queued, writes are served (Accel-Sim
//! leaves them until the high watermark, so a kernel's last writes below it would never
//! reach DRAM).
//!
//! The queues are kept per bank (`queue.rs`): FR-FCFS looks only at banks that hold
//! requests, checks the bank and bus conditions once per bank, and scans a bank only when
//! it holds a request on its open row (per-bank hit counts); otherwise only its first ready
//! request matters. Between commands the channel keeps a lower bound on the next one
//! (`Wake`), so the cycles in which nothing can issue cost a comparison, and a partition
//! counts runs of them at once ([`DramChannel::skip_steps`]).

use serde::Serialize;

use crate::config::{DramConfig, DramTiming};
use crate::Cycle;

mod queue;
#[cfg(test)]
mod tests;

use queue::{BankQueues, Queued};

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
    /// The bank's group (bank index modulo `bank_groups`).
    bg: u32,
}

/// One channel.
#[derive(Clone, Debug)]
pub struct DramChannel {
    t: DramTiming,
    frfcfs: bool,
    nbanks: u32,
    /// Bank groups (the tests' reference scheduler; the channel reads `Bank::bg`).
    #[cfg(test)]
    bgs: u32,
    row_bytes: u64,
    burst_bytes: u32,
    burst_cycles: u64,
    sector_bytes: u32,
    cap: usize,
    /// Reads, and writes when there is no separate write queue.
    rq: BankQueues,
    /// The separate write queue (`wcap` > 0).
    wq: BankQueues,
    wcap: usize,
    high: usize,
    low: usize,
    /// Write mode: draining the write queue.
    draining: bool,
    /// Write-mode batches begun (entries into write mode at the high watermark).
    drains: u64,
    /// The next arrival number.
    seq: u64,
    banks: Vec<Bank>,
    bus_free: u64,
    last_col: Option<(u64, u32)>,
    last_act: Option<u64>,
    last_write_end: u64,
    last_read_col: Option<u64>,
    /// Completed reads: (DRAM cycle the data is complete, request), in completion order.
    done: std::collections::VecDeque<(u64, DramReq)>,
    /// No command can issue from the queue `wake.writes` names before DRAM cycle `wake.d` or
    /// before core cycle `wake.core` (see [`Wake`]).
    wake: Wake,
    /// Whether `step` may use `wake` (off: every step schedules in full; the tests compare).
    pub skip: bool,
    pub stats: DramStats,
}

/// A lower bound on the next command, kept between steps so a cycle in which nothing can
/// issue costs a comparison instead of a scan of the queue.
///
/// Every condition of a command is a threshold in the DRAM cycle `d` (bank `col_ok` and
/// `pre_ok`, tCCD(L) since the last column, the data bus, the turnarounds) or in the core
/// cycle (the request's `ready`), as long as no command changes the banks and the bus. So
/// after a step that issued nothing, the least threshold over the served queue's requests
/// bounds the next command; a push lowers it by the new request's own thresholds and a
/// command resets it. Both are monotone in `d`, so a skipped cycle is exactly a cycle in
/// which the full scan would have found nothing.
///
/// Under FR-FCFS a bank whose open row has a ready request in the served queue takes no row
/// command until that request is served (the hit goes first): its other requests do not
/// lower the bound (`blocked`, by bank).
#[derive(Clone, Copy, Debug, Default)]
struct Wake {
    d: u64,
    core: Cycle,
    writes: bool,
    blocked: [u64; 4],
}

/// The bank-independent terms of [`DramChannel::col_from`] (`same` / `other`: tCCDL / tCCD
/// after the last column command, to its bank group `lbg` or another; `base`: the data bus
/// and the turnaround, for a read / a write).
#[derive(Clone, Copy, Debug)]
struct ColTerms {
    same: u64,
    other: u64,
    lbg: u32,
    base: [u64; 2],
}

impl DramChannel {
    pub fn new(c: &DramConfig, sector_bytes: u32) -> Self {
        // Bank bitmasks (`Wake::blocked`) hold 256 banks, the most `dram.banks` allows.
        let banks = c.banks.clamp(1, 256);
        let bgs = c.bank_groups.clamp(1, banks);
        DramChannel {
            t: c.timing.clone(),
            frfcfs: c.scheduler != "fifo",
            nbanks: banks,
            #[cfg(test)]
            bgs,
            row_bytes: c.row_bytes.max(64) as u64,
            burst_bytes: (c.bus_width_bytes * c.burst_length).max(1),
            burst_cycles: (c.burst_length / c.data_rate.max(1)).max(1) as u64,
            sector_bytes: sector_bytes.max(1),
            cap: c.queue.max(2) as usize,
            rq: BankQueues::new(banks),
            wq: BankQueues::new(banks),
            wcap: c.write_queue as usize,
            high: (c.write_high as usize).clamp(1, (c.write_queue as usize).max(1)),
            low: (c.write_low as usize).max(1),
            draining: false,
            drains: 0,
            seq: 0,
            banks: (0..banks)
                .map(|k| Bank {
                    bg: k % bgs,
                    ..Bank::default()
                })
                .collect(),
            bus_free: 0,
            last_col: None,
            last_act: None,
            last_write_end: 0,
            last_read_col: None,
            done: Default::default(),
            wake: Wake::default(),
            skip: true,
            stats: DramStats::default(),
        }
    }

    /// Peak bytes per DRAM cycle.
    pub fn peak_bytes_per_cycle(&self) -> f64 {
        self.burst_bytes as f64 / self.burst_cycles as f64
    }

    /// Free entries: with a separate write queue, the fewer of the read and the write
    /// queue's (a request from the L2 may need one of each).
    pub fn free_slots(&self) -> usize {
        let r = self.cap - self.rq.len;
        if self.wcap == 0 {
            r
        } else {
            r.min(self.wcap - self.wq.len)
        }
    }
    pub fn is_idle(&self) -> bool {
        self.queued() == 0 && self.done.is_empty()
    }
    pub fn queued(&self) -> usize {
        self.rq.len + self.wq.len
    }
    /// Write-mode batches begun so far (0 without a separate write queue).
    pub fn write_drains(&self) -> u64 {
        self.drains
    }

    pub fn push(&mut self, r: DramReq) -> Result<(), DramReq> {
        let sep = r.write && self.wcap > 0;
        let (len, cap) = if sep {
            (self.wq.len, self.wcap)
        } else {
            (self.rq.len, self.cap)
        };
        if len >= cap {
            return Err(r);
        }
        let rb = r.caddr / self.row_bytes;
        let e = Queued {
            r,
            bank: (rb % self.nbanks as u64) as u32,
            row: rb / self.nbanks as u64,
            opened: false,
            seq: self.seq,
        };
        self.seq += 1;
        if r.write == self.wake.writes || self.wcap == 0 {
            // The served queue may be this one: its bound now includes the new request.
            if let Some(t) = self.earliest(&e, &self.wake.blocked) {
                self.wake.d = self.wake.d.min(t);
                self.wake.core = self.wake.core.min(r.ready);
            }
        }
        let open = self.banks[e.bank as usize].row;
        if sep {
            self.wq.push(e, open);
        } else {
            self.rq.push(e, open);
        }
        Ok(())
    }

    /// The first DRAM cycle at which `e` could take a command with the banks and the bus as
    /// they are (its `ready` aside): a column command on its open row, else a row command
    /// (an open row must have met tRAS / tWR first, and its bank must not be `blocked`).
    fn earliest(&self, e: &Queued, blocked: &[u64; 4]) -> Option<u64> {
        let k = e.bank as usize;
        let b = &self.banks[k];
        match b.row {
            None => Some(0),
            Some(open) if open != e.row => {
                (blocked[k / 64] & (1 << (k % 64)) == 0).then_some(b.pre_ok)
            }
            Some(_) => Some(self.col_from(k, e.r.write)),
        }
    }

    /// The first DRAM cycle at which a column command for a read (`write` false) or a write
    /// could go to bank `k`'s open row: the bank's tRCD / tCCDL, tCCD(L) since the last column
    /// command, the data bus at +tCL / +tCWL, and the turnarounds.
    fn col_from(&self, k: usize, write: bool) -> u64 {
        self.col_from_terms(&self.col_terms(), k, write)
    }

    /// The terms of [`DramChannel::col_from`] that do not depend on the bank, computed once
    /// where many banks are asked with the bus and the last column command as they are (a
    /// pick, the wake bound).
    fn col_terms(&self) -> ColTerms {
        let (mut same, mut other, mut lbg) = (0, 0, u32::MAX);
        if let Some((lc, g)) = self.last_col {
            same = lc + (self.t.t_ccdl.max(self.t.t_ccd) as u64).max(1);
            other = lc + (self.t.t_ccd as u64).max(1);
            lbg = g;
        }
        let mut read = self.bus_free.saturating_sub(self.t.t_cl as u64);
        if self.last_write_end != 0 {
            read = read.max(self.last_write_end + self.t.t_wtr as u64);
        }
        let mut write = self.bus_free.saturating_sub(self.t.t_cwl as u64);
        if let Some(c) = self.last_read_col {
            write = write.max(c + self.t.t_rtw as u64);
        }
        ColTerms {
            same,
            other,
            lbg,
            base: [read, write],
        }
    }

    /// [`DramChannel::col_from`] from the terms of [`DramChannel::col_terms`].
    #[inline]
    fn col_from_terms(&self, c: &ColTerms, k: usize, write: bool) -> u64 {
        let b = &self.banks[k];
        let gap = if c.lbg == b.bg { c.same } else { c.other };
        b.col_ok.max(gap).max(c.base[write as usize])
    }

    /// The bound of [`Wake`] over the queue `writes` names, from DRAM cycle `d` + 1 on (core
    /// cycle `core_d` is the current one), one pass per bank.
    fn compute_wake(&mut self, writes: bool, d: u64, core_d: Cycle) {
        let q = if writes { &self.wq } else { &self.rq };
        let mut blocked = [0u64; 4];
        let (mut td, mut tc) = (u64::MAX, Cycle::MAX);
        let terms = self.col_terms();
        let fast = self.wcap > 0 && self.frfcfs;
        for b in q.busy_banks() {
            let bk = &self.banks[b];
            if fast && q.ready_max[b] <= core_d {
                // Every request of the bank is ready (and of the queue's one kind): what the
                // scan below finds, from the bank alone. Its core bound is at or before
                // `core_d`, and any such bound acts alike (later steps come later).
                match bk.row {
                    None => td = 0,
                    Some(_) if q.hits[b] == 0 => td = td.min(bk.pre_ok),
                    Some(_) => {
                        td = td.min(self.col_from_terms(&terms, b, writes));
                        blocked[(b >> 6) & 3] |= 1 << (b & 63);
                    }
                }
                tc = tc.min(core_d);
                continue;
            }
            let Some(open) = bk.row else {
                // A row command may go as soon as a request is ready.
                td = 0;
                for e in q.bank(b) {
                    tc = tc.min(e.r.ready);
                }
                continue;
            };
            if q.hits[b] == 0 {
                // No hit: a row command after tRAS / tWR, once a request is ready (a ready one
                // makes the core bound moot: stop there).
                td = td.min(bk.pre_ok);
                for e in q.bank(b) {
                    tc = tc.min(e.r.ready);
                    if e.r.ready <= core_d {
                        break;
                    }
                }
                continue;
            }
            // Hits: their column bound (by kind, computed once); others: tRAS / tWR, unless
            // a ready hit blocks the bank's row commands.
            let (mut col_r, mut col_w) = (None, None);
            let (mut miss_ready, mut block) = (Cycle::MAX, false);
            for e in q.bank(b) {
                if e.row == open {
                    let slot = if e.r.write { &mut col_w } else { &mut col_r };
                    let t = *slot.get_or_insert_with(|| self.col_from_terms(&terms, b, e.r.write));
                    td = td.min(t);
                    tc = tc.min(e.r.ready);
                    if e.r.ready <= core_d {
                        block = true;
                        // With a separate write queue every request here is of one kind, so
                        // the rest of the bank can lower neither bound: this hit's column
                        // bound is theirs, it is ready already (the core bound is moot), and
                        // the bank's row commands are blocked.
                        if self.wcap > 0 && self.frfcfs {
                            break;
                        }
                    }
                } else {
                    miss_ready = miss_ready.min(e.r.ready);
                }
            }
            if block && self.frfcfs {
                blocked[b / 64] |= 1 << (b % 64);
            } else if miss_ready != Cycle::MAX {
                td = td.min(bk.pre_ok);
                tc = tc.min(miss_ready);
            }
        }
        self.wake = Wake {
            d: td.max(d + 1),
            core: tc,
            writes,
            blocked,
        };
    }

    /// FR-FCFS in one pass over the busy banks of the served queue: the oldest ready row hit
    /// whose column command can go now (`(true, bank, index)`), else the oldest ready request
    /// of a bank whose row may change (no ready hit on its open row, tRAS / tWR met, or no
    /// row open) for a row command (`(false, bank, index)`).
    fn frfcfs_pick(&self, writes: bool, d: u64, core_d: Cycle) -> Option<(bool, usize, usize)> {
        let q = if writes { &self.wq } else { &self.rq };
        let mut col: Option<(u64, usize, usize)> = None;
        let mut row: Option<(u64, usize, usize)> = None;
        let single = self.wcap > 0;
        let terms = self.col_terms();
        for b in q.busy_banks() {
            let bk = &self.banks[b];
            if single && q.ready_max[b] <= core_d {
                // Every request of the bank is ready (and of the queue's one kind): a bank with
                // a request on its open row offers its first such for a column command and
                // keeps its row; another offers its first request for a row command.
                if q.hits[b] > 0 {
                    let s = q.hit_seq[b];
                    if col.is_none_or(|(c, _, _)| s < c)
                        && self.col_from_terms(&terms, b, writes) <= d
                    {
                        col = Some((s, b, q.first_hit[b] as usize));
                    }
                } else if (bk.row.is_none() || d >= bk.pre_ok)
                    && row.is_none_or(|(c, _, _)| q.head_seq[b] < c)
                {
                    row = Some((q.head_seq[b], b, 0));
                }
                continue;
            }
            let es = q.bank(b);
            let open = match bk.row {
                Some(open) if q.hits[b] > 0 => open,
                // No row open, or no request on the open row (which may close after tRAS /
                // tWR): the oldest ready request opens its row.
                _ => {
                    if bk.row.is_none() || d >= bk.pre_ok {
                        if let Some(i) = es.iter().position(|e| e.r.ready <= core_d) {
                            if row.is_none_or(|(s, _, _)| es[i].seq < s) {
                                row = Some((es[i].seq, b, i));
                            }
                        }
                    }
                    continue;
                }
            };
            // Whether a column command for a read / a write can go to the open row now
            // (computed when first needed).
            let mut can: [Option<bool>; 2] = [None; 2];
            let mut can_col = |w: bool| {
                *can[w as usize].get_or_insert_with(|| self.col_from_terms(&terms, b, w) <= d)
            };
            let (mut hit, mut first) = (false, None);
            for (i, e) in es.iter().enumerate() {
                if e.r.ready > core_d {
                    continue;
                }
                if e.row == open {
                    hit = true;
                    if can_col(e.r.write) {
                        if col.is_none_or(|(s, _, _)| e.seq < s) {
                            col = Some((e.seq, b, i));
                        }
                        break;
                    }
                    if single || !can_col(!e.r.write) {
                        // No column command from this bank now (with a separate write
                        // queue every request here is of this one's kind), and its row
                        // stays open.
                        break;
                    }
                } else if first.is_none() {
                    first = Some(i);
                }
            }
            if let (false, Some(i), true) = (hit, first, d >= bk.pre_ok) {
                if row.is_none_or(|(s, _, _)| es[i].seq < s) {
                    row = Some((es[i].seq, b, i));
                }
            }
        }
        col.map(|(_, b, i)| (true, b, i))
            .or(row.map(|(_, b, i)| (false, b, i)))
    }

    /// Read mode / write mode (Accel-Sim's watermarks); true when this cycle serves the
    /// write queue.
    fn serve_writes(&mut self) -> bool {
        if self.wcap == 0 {
            return false;
        }
        if !self.draining && self.wq.len >= self.high {
            self.draining = true;
            self.drains += 1;
        } else if self.draining && self.wq.len < self.low {
            self.draining = false;
        }
        self.wq.len > 0 && (self.draining || self.rq.len == 0)
    }

    fn bursts(&self, sectors: u8) -> u64 {
        let bytes = sectors.count_ones().max(1) * self.sector_bytes;
        bytes.div_ceil(self.burst_bytes) as u64
    }

    /// One DRAM cycle `d` (which starts at core cycle `core_d`): at most one command.
    pub fn step(&mut self, d: u64, core_d: Cycle) {
        if self.queued() == 0 {
            return;
        }
        self.stats.active_cycles += 1;
        let writes = self.serve_writes();
        if self.skip && writes == self.wake.writes && (d < self.wake.d || core_d < self.wake.core) {
            return;
        }
        let pick = if self.frfcfs {
            self.frfcfs_pick(writes, d, core_d)
        } else {
            self.fifo_pick(writes, d, core_d)
        };
        match pick {
            Some((true, bank, i)) => {
                let open = self.banks[bank].row;
                let e = if writes {
                    self.wq.take(bank, i, open)
                } else {
                    self.rq.take(bank, i, open)
                };
                self.column(e, d);
            }
            Some((false, bi, i)) => self.row_command(writes, bi, i, d),
            None => {}
        }
        if self.skip {
            self.compute_wake(writes, d, core_d);
        }
    }

    /// FIFO: the oldest request only, a column command when it is ready and hits, a row
    /// command when it is ready and misses.
    fn fifo_pick(&self, writes: bool, d: u64, core_d: Cycle) -> Option<(bool, usize, usize)> {
        let q = if writes { &self.wq } else { &self.rq };
        let (b, i) = q.oldest()?;
        let (e, bk) = (q.get(b, i), &self.banks[b]);
        if e.r.ready > core_d {
            return None;
        }
        if bk.row == Some(e.row) && self.col_from(b, e.r.write) <= d {
            return Some((true, b, i));
        }
        (bk.row != Some(e.row) && (bk.row.is_none() || d >= bk.pre_ok)).then_some((false, b, i))
    }

    /// Row command (precharge if a row is open, then activate) for request `i` of bank `bi`.
    fn row_command(&mut self, writes: bool, bi: usize, i: usize, d: u64) {
        let q = if writes { &self.wq } else { &self.rq };
        let row = q.get(bi, i).row;
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
        bank.row = Some(row);
        bank.act = act;
        bank.col_ok = act + self.t.t_rcd as u64;
        bank.pre_ok = act + self.t.t_ras as u64;
        self.last_act = Some(act);
        // The open row changed: recount both queues' requests on it, find their first.
        self.rq.reopen(bi, row);
        self.wq.reopen(bi, row);
        if writes {
            self.wq.mark_opened(bi, i);
        } else {
            self.rq.mark_opened(bi, i);
        }
    }

    /// Steps DRAM cycles `ds` (the last starting at core cycle `core_last`) at once when none
    /// of them could issue a command or complete a read, as stepping them one by one would
    /// find (only `active_cycles` counts them); false (nothing done) otherwise.
    pub fn skip_steps(&mut self, ds: std::ops::Range<u64>, core_last: Cycle) -> bool {
        let last = ds.end - 1;
        if self.done.front().is_some_and(|(e, _)| *e <= last) {
            return false;
        }
        if self.queued() == 0 {
            return true;
        }
        // With write_low above write_high the mode could flip at every step: step them.
        if !self.skip || (self.wcap > 0 && self.low > self.high) {
            return false;
        }
        // Idempotent from here on: the queue lengths do not change in skipped cycles.
        let writes = self.serve_writes();
        if writes != self.wake.writes || (last >= self.wake.d && core_last >= self.wake.core) {
            return false;
        }
        self.stats.active_cycles += ds.end - ds.start;
        true
    }

    /// Issues the column command of `e` in DRAM cycle `d`.
    fn column(&mut self, e: Queued, d: u64) {
        let n = self.bursts(e.r.sectors);
        let lat = if e.r.write { self.t.t_cwl } else { self.t.t_cl } as u64;
        let start = (d + lat).max(self.bus_free);
        let end = start + n * self.burst_cycles;
        self.bus_free = end;
        self.stats.busy_cycles += n * self.burst_cycles;
        self.last_col = Some((d, self.banks[e.bank as usize].bg));
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
