//! The DRAM efficiency the memory twin streams at: the fraction of a channel's theoretical peak
//! (`burst bytes / burst cycles`) a stream of line requests can use, derived from the preset's
//! DRAM timing alone (not fitted to the cycle model). The twin's DRAM queue
//! (`analytic::mem`) charges `bytes / (peak · η)` instead of `bytes / peak`.
//!
//! ```text
//!  one request of S bytes (an L2 line):   D = ceil(S / burst_bytes) · burst_cycles   data
//!  consecutive columns of a stream are in one bank (group):
//!                                         C = max(D, tCCDL)                          spacing
//!  a row holds N = row_bytes / S requests; the next row is in the next bank and is opened
//!  (PRE + ACT) while the other Q - 1 queued requests transfer (FR-FCFS, queue Q = dram.queue):
//!                                         R = max(0, tRP + tRCD - (Q - 1)·C,
//!                                                    tRRD - N·C, tRC - banks·N·C)    per row
//!  writes, a fraction w of the bytes (pre-pass: written / (read + written) sectors):
//!   write queue (dram.write_queue > 0): drained in batches of B_w = high - low + 1 writes
//!     (from write_high queued until fewer than write_low remain) between B_r = B_w (1-w)/w
//!     reads; per batch the bus turns around twice:
//!       write -> read  T_wr = tWTR + tCL             (read column tWTR after the write data,
//!                                                     its data tCL later)
//!       read -> write  T_rw = max(0, tRTW + tCWL - tCL - D)  (write column tRTW after the
//!                                                     read column, data tCWL later)
//!     per request T = (T_wr + T_rw) / (B_w + B_r)
//!   shared queue (write_queue = 0): the bus alternates between runs of reads (mean length
//!     L_r) and runs of writes (L_w), one T_wr and one T_rw per pair of runs:
//!                                         T = (T_wr + T_rw) / (L_r + L_w)
//!     FIFO serves in arrival order, reads and writes interleaved at random:
//!       L_r = 1/w, L_w = 1/(1-w)          (T = w(1-w)(T_wr + T_rw))
//!     FR-FCFS serves any queued request whose column can go now, so it keeps the bus's
//!     direction while the queue holds requests of it: a run drains that direction's share
//!     of the queue (never shorter than at random):
//!       L_r = max(1/w, Q(1-w)), L_w = max(1/(1-w), Q·w)
//!
//!  η = D / (C + R / N + T)
//! ```
//! Sources: the column, row and turnaround constraints are the JEDEC ones the cycle DRAM model
//! (`mem::dram`) enforces (tCCD/tCCDL between columns, tRP + tRCD to open a row, tRRD and tRC
//! between activations, tWTR and tRTW between writes and reads); the batch drain between the
//! watermarks is Accel-Sim's `frfcfs_scheduler` read / write mode (seed 004's DRAM model) as
//! `mem::dram` implements it. Not derived (the cycle model's remaining gap): row conflicts
//! between concurrent streams sharing a bank, which depend on the data layout, and the
//! channels' idle ramp at a kernel's start and end.

use crate::config::DramConfig;

/// The parts of the DRAM efficiency of a request stream (DRAM cycles per request).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DramEfficiency {
    /// Data-bus cycles of one request (`D`).
    pub data: f64,
    /// Column-to-column spacing (`C`).
    pub column: f64,
    /// Exposed row-opening cycles per request (`R / N`).
    pub row: f64,
    /// Bus turnaround cycles per request (`T`).
    pub turnaround: f64,
}

impl DramEfficiency {
    /// `η = D / (C + R / N + T)`, in (0, 1].
    pub fn eta(&self) -> f64 {
        let t = self.column + self.row + self.turnaround;
        if t <= 0.0 {
            1.0
        } else {
            (self.data / t).clamp(1e-3, 1.0)
        }
    }
}

/// The efficiency of a stream of `req_bytes` requests, a fraction `write_frac` of its bytes
/// written, on one channel of `d` (module docs).
pub fn dram_efficiency(
    d: &DramConfig,
    sector_bytes: u32,
    req_bytes: u32,
    write_frac: f64,
) -> DramEfficiency {
    let t = &d.timing;
    let burst_bytes = (d.bus_width_bytes * d.burst_length).max(1) as u64;
    let burst_cycles = (d.burst_length / d.data_rate.max(1)).max(1) as u64;
    let s = (req_bytes.max(sector_bytes).max(1)) as u64;
    let data = (s.div_ceil(burst_bytes) * burst_cycles) as f64;
    let column = data.max(t.t_ccdl.max(t.t_ccd).max(1) as f64);
    let n = (d.row_bytes as u64 / s).max(1) as f64;
    let q = d.queue.max(2) as f64;
    let open = (t.t_rp + t.t_rcd) as f64 - (q - 1.0) * column;
    let rrd = t.t_rrd as f64 - n * column;
    let rc = t.t_rc as f64 - d.banks.max(1) as f64 * n * column;
    let row = open.max(rrd).max(rc).max(0.0) / n;
    let w = write_frac.clamp(0.0, 1.0);
    let t_wr = (t.t_wtr + t.t_cl) as f64;
    let t_rw = ((t.t_rtw + t.t_cwl) as f64 - t.t_cl as f64 - data).max(0.0);
    let turnaround = if w <= 0.0 || w >= 1.0 {
        0.0
    } else if d.write_queue > 0 {
        let high = d.write_high.clamp(1, d.write_queue) as f64;
        let low = d.write_low.max(1) as f64;
        let bw = (high - low + 1.0).max(1.0);
        let br = bw * (1.0 - w) / w;
        (t_wr + t_rw) / (bw + br)
    } else if d.scheduler == "fifo" {
        w * (1.0 - w) * (t_wr + t_rw)
    } else {
        let runs = (1.0 / w).max(q * (1.0 - w)) + (1.0 / (1.0 - w)).max(q * w);
        (t_wr + t_rw) / runs
    };
    DramEfficiency {
        data,
        column,
        row,
        turnaround,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn titanv() -> DramConfig {
        crate::config::presets::preset("titanv").unwrap().dram
    }

    /// TITAN V (HBM2: 32-byte bursts of one cycle; 128-byte lines): D = 4 = C (tCCDL 2), a
    /// row of 16 lines opened within (8 - 1)·4 = 28 >= tRP + tRCD = 24 cycles: no row cost.
    /// A fifth of the bytes written: batches of 108 - 32 + 1 = 77 writes between 77·4 = 308
    /// reads, turnarounds 3 + 12 = 15 and max(0, 4 + 2 - 12 - 4) = 0 cycles:
    /// η = 4 / (4 + 15/385) = 1540 / 1555.
    #[test]
    fn titanv_streaming_by_hand() {
        let e = dram_efficiency(&titanv(), 32, 128, 0.2);
        assert_eq!((e.data, e.column, e.row), (4.0, 4.0, 0.0));
        assert!((e.turnaround - 15.0 / 385.0).abs() < 1e-12);
        assert!((e.eta() - 1540.0 / 1555.0).abs() < 1e-12);
        // Reads only: the peak.
        assert_eq!(dram_efficiency(&titanv(), 32, 128, 0.0).eta(), 1.0);
    }

    /// Sector requests (D = 1) limited by tCCDL = 2; a queue of 4 hides only 3·2 = 6 of the
    /// 24 row-opening cycles, per row of 64 requests; half the bytes written through the
    /// shared queue, runs of max(2, 4·0.5) = 2 reads and 2 writes under FR-FCFS (as at random):
    /// T = (15 + max(0, 4 + 2 - 12 - 1)) / 4 = 3.75.
    /// η = 1 / (2 + 18/64 + 3.75). With a write queue of batches 8 - 4 + 1 = 5 writes and
    /// 5 reads: T = 15 / 10.
    #[test]
    fn sector_stream_small_queue_by_hand() {
        let mut d = titanv();
        d.queue = 4;
        d.write_queue = 0;
        let e = dram_efficiency(&d, 32, 32, 0.5);
        assert_eq!((e.data, e.column), (1.0, 2.0));
        assert!((e.row - 18.0 / 64.0).abs() < 1e-12);
        assert!((e.turnaround - 3.75).abs() < 1e-12);
        assert!((e.eta() - 1.0 / (2.0 + 18.0 / 64.0 + 3.75)).abs() < 1e-12);
        d.write_queue = 16;
        d.write_high = 8;
        d.write_low = 4;
        let e = dram_efficiency(&d, 32, 32, 0.5);
        assert!((e.turnaround - 1.5).abs() < 1e-12);
        assert!((e.eta() - 1.0 / (2.0 + 18.0 / 64.0 + 1.5)).abs() < 1e-12);
    }

    /// RTX 2080 Ti (GDDR6, 32-byte bursts of 4 cycles; 128-byte lines): D = 16 = C, no row
    /// cost (rows of 16 lines, a queue of 64 hides every opening). A quarter of the bytes
    /// written through the shared queue (T_wr = 10 + 24, T_rw = max(0, 4 + 8 - 24 - 16) = 0):
    ///   FIFO, at random:   T = 0.25·0.75·34 = 6.375,   η = 16 / 22.375
    ///   FR-FCFS, runs of max(4, 48) reads and max(4/3, 16) writes: T = 34 / 64, η = 16 / (16 + 34/64)
    #[test]
    fn shared_queue_runs_by_hand() {
        let mut d = crate::config::presets::preset("rtx2080ti").unwrap().dram;
        assert_eq!((d.write_queue, d.queue), (0, 64));
        let e = dram_efficiency(&d, 32, 128, 0.25);
        assert_eq!((e.data, e.column, e.row), (16.0, 16.0, 0.0));
        assert!((e.turnaround - 34.0 / 64.0).abs() < 1e-12);
        assert!((e.eta() - 16.0 / (16.0 + 34.0 / 64.0)).abs() < 1e-12);
        d.scheduler = "fifo".into();
        let e = dram_efficiency(&d, 32, 128, 0.25);
        assert!((e.turnaround - 6.375).abs() < 1e-12);
        assert!((e.eta() - 16.0 / 22.375).abs() < 1e-12);
    }

    /// Activations limited by tRC: 2 banks, rows of 2 requests of 4 cycles: banks·N·C = 16
    /// < tRC = 40, so each row waits 24 cycles: η = 4 / (4 + 24/2).
    #[test]
    fn row_cycle_bound_by_hand() {
        let mut d = titanv();
        d.banks = 2;
        d.bank_groups = 1;
        d.row_bytes = 256;
        let e = dram_efficiency(&d, 32, 128, 0.0);
        assert!((e.row - 12.0).abs() < 1e-12);
        assert!((e.eta() - 0.25).abs() < 1e-12);
    }
}
