use super::queue::Queued;
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

/// One bank, one row, 1-sector requests of one burst each: tRCD 2, tCL 3, tCWL 1, tCCD(L) 1,
/// tWTR 4, tRTW 2.
fn tiny(write_queue: u32, high: u32, low: u32) -> DramConfig {
    DramConfig {
        banks: 1,
        bank_groups: 1,
        bus_width_bytes: 32,
        burst_length: 2,
        data_rate: 2,
        queue: 12,
        write_queue,
        write_high: high,
        write_low: low,
        timing: DramTiming {
            t_rcd: 2,
            t_cl: 3,
            t_cwl: 1,
            t_ccd: 1,
            t_ccdl: 1,
            t_wtr: 4,
            t_rtw: 2,
            ..DramTiming::default()
        },
        ..DramConfig::default()
    }
}

/// Runs `reqs` (queued at cycle 0) to completion: (read completion cycles in order, last
/// write's data end, drains).
fn drain_run(c: &DramConfig, reqs: &[(u64, bool)]) -> (Vec<(u64, u64)>, u64, u64) {
    let mut ch = DramChannel::new(c, 32);
    for &(k, write) in reqs {
        ch.push(DramReq {
            addr: k,
            caddr: k * 64,
            sectors: 1,
            write,
            ..DramReq::default()
        })
        .unwrap();
    }
    let mut reads = Vec::new();
    let mut last_write = 0;
    for d in 0..200u64 {
        let w = ch.stats.writes;
        ch.step(d, d);
        if ch.stats.writes > w {
            last_write = ch.bus_free;
        }
        while let Some(r) = ch.pop_done(d) {
            reads.push((r.addr, d));
        }
    }
    assert!(ch.is_idle());
    (reads, last_write, ch.write_drains())
}

/// Reads R0..R7 and writes W0..W3 queued at cycle 0 as R0 W0 R1 W1 R2 W2 R3 W3 R4..R7, all
/// in the one open row. Hand-derived:
/// - shared queue: ACT at 0, R0's column at 2 (data 5..6); a write needs the bus free at
///   d + tCWL and d >= last read column + tRTW, so R1..R7 go first, one per cycle (columns
///   3..9, data ends 7..13); W0 at 12 (data 13..14) .. W3 at 15 (data ends 17);
/// - write queue 4 (high 4, low 1): 4 writes queued = the high watermark, so write mode at
///   once: ACT at 0, W0..W3 columns 2..5 (data ends 4..7), then read mode; a read waits for
///   tWTR after the last write's data: R0 at 7 + 4 = 11 (data ends 15) .. R7 at 18 (22).
#[test]
fn write_drain_order_and_cycles_by_hand() {
    let mut reqs = Vec::new();
    for k in 0..4 {
        reqs.push((k, false));
        reqs.push((16 + k, true));
    }
    reqs.extend((4..8).map(|k| (k, false)));
    let (reads, wend, drains) = drain_run(&tiny(0, 0, 0), &reqs);
    let want: Vec<(u64, u64)> = (0..8).map(|k| (k, 6 + k)).collect();
    assert_eq!((reads, wend, drains), (want, 17, 0));
    let (reads, wend, drains) = drain_run(&tiny(4, 4, 1), &reqs);
    let want: Vec<(u64, u64)> = (0..8).map(|k| (k, 15 + k)).collect();
    assert_eq!((reads, wend, drains), (want, 7, 1));
}

/// Below the high watermark, writes wait while reads are queued and are served when none
/// is (no batch begins): R0 W0 R1 W1 with high 4: read columns at 2 and 3 (data ends 6, 7);
/// W0 needs d >= 3 + tRTW = 5 and the bus free at d + tCWL, i.e. d >= 6 (data ends 8); W1
/// at 7 (data ends 9).
#[test]
fn writes_below_the_watermark_go_when_no_read_waits() {
    let reqs = [(0, false), (16, true), (1, false), (17, true)];
    let (reads, wend, drains) = drain_run(&tiny(4, 4, 1), &reqs);
    assert_eq!((reads, wend, drains), (vec![(0, 6), (1, 7)], 9, 0));
}

/// A read stream (row 0) and a write stream (row 1) of one bank, fed alternately into a
/// 4-entry queue: shared, the scheduler keeps switching rows; with a 64-entry write queue
/// drained from 48 down to below 8, the writes go in batches of 41 and the rows are reopened
/// about twice per batch (256 / 41: 6 batches and the idle drain of the last writes).
#[test]
fn write_batches_cut_row_conflicts() {
    let run = |wq: u32| {
        let mut c = tiny(wq, 48, 8);
        c.queue = 4;
        let mut ch = DramChannel::new(&c, 32);
        let (mut r, mut w, mut d) = (0u64, 0u64, 0u64);
        while ch.stats.reads < 256 || ch.stats.writes < 256 {
            while (r < 256 || w < 256) && ch.free_slots() > 0 {
                let write = w < r && w < 256 || r == 256;
                let k = if write { w } else { r };
                let row = write as u64;
                let req = DramReq {
                    addr: k,
                    caddr: row * 2048 + (k % 32) * 64,
                    sectors: 1,
                    write,
                    ..DramReq::default()
                };
                if ch.push(req).is_err() {
                    break;
                }
                if write {
                    w += 1;
                } else {
                    r += 1;
                }
            }
            ch.step(d, d);
            while ch.pop_done(d).is_some() {}
            d += 1;
        }
        (ch.stats.row_misses, ch.write_drains(), d)
    };
    let (shared_miss, _, shared_d) = run(0);
    let (sep_miss, drains, sep_d) = run(64);
    assert!(sep_miss * 3 < shared_miss, "{sep_miss} vs {shared_miss}");
    assert!(sep_d < shared_d, "{sep_d} vs {shared_d}");
    assert_eq!(
        drains,
        256 / 41,
        "{sep_miss} {shared_miss} {sep_d} {shared_d}"
    );
}

/// The wake bound and the bulk skip change nothing: a channel stepped the way a partition
/// steps it (`skip_steps` over 1-3 DRAM cycles at a time, then `step` per cycle) against one
/// that schedules in full every cycle, under seeded random traffic (reads and writes over few
/// banks and rows, requests that become ready later, both schedulers, a shared queue, a write
/// queue with watermarks and one with write_low above write_high): the same completions, in
/// the same cycles, and the same counters.
#[test]
fn wake_skipping_matches_full_scheduling() {
    let base = DramConfig {
        banks: 4,
        bank_groups: 2,
        queue: 6,
        ..DramConfig::default()
    };
    let cfgs = [
        (base.clone(), "frfcfs", 0, 0, 0),
        (base.clone(), "frfcfs", 16, 12, 4),
        (base.clone(), "fifo", 16, 12, 4),
        (base.clone(), "fifo", 0, 0, 0),
        (base.clone(), "frfcfs", 8, 2, 6),
    ];
    for (c0, sched, wq, hi, lo) in cfgs {
        let c = DramConfig {
            scheduler: sched.into(),
            write_queue: wq,
            write_high: hi,
            write_low: lo,
            ..c0
        };
        let mut fast = DramChannel::new(&c, 32);
        let mut full = DramChannel::new(&c, 32);
        full.skip = false;
        let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ wq as u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // DRAM cycle d starts at core cycle d * 10 / 7 (a slower DRAM clock).
        let core = |d: u64| d * 10 / 7;
        let (mut d, mut got_fast, mut got_full) = (0u64, Vec::new(), Vec::new());
        let (mut k, mut skipped) = (0u64, 0u32);
        while d < 6000 {
            let burst = if (d / 700) % 2 == 0 { 3 } else { 1 };
            for _ in 0..rnd() % (burst + 1) {
                let r = rnd();
                let req = DramReq {
                    addr: k,
                    caddr: (r % 4) * 2048 + ((r >> 8) % 3) * 8192 + ((r >> 16) % 16) * 64,
                    sectors: ((r >> 24) % 15 + 1) as u8,
                    write: (r >> 32) % 3 == 0,
                    slice: 0,
                    ready: core(d) + (r >> 40) % 5,
                };
                let a = fast.push(req).is_ok();
                assert_eq!(a, full.push(req).is_ok());
                k += a as u64;
            }
            let n = 1 + rnd() % 3;
            let ds = d..d + n;
            if fast.skip_steps(ds.clone(), core(ds.end - 1)) {
                skipped += (fast.queued() > 0) as u32;
            } else {
                for e in ds.clone() {
                    fast.step(e, core(e));
                    while let Some(r) = fast.pop_done(e) {
                        got_fast.push((r.addr, e));
                    }
                }
            }
            for e in ds {
                let mut c = full.clone();
                if c.queued() > 0 {
                    let w = c.serve_writes();
                    let pick = if c.frfcfs {
                        c.frfcfs_pick(w, e, core(e))
                    } else {
                        c.fifo_pick(w, e, core(e))
                    };
                    assert_eq!(
                        pick,
                        c.reference_pick(w, e, core(e)),
                        "{sched} wq {wq} at {e}"
                    );
                }
                full.step(e, core(e));
                while let Some(r) = full.pop_done(e) {
                    got_full.push((r.addr, e));
                }
            }
            d += n;
            fast.assert_hits();
            full.assert_hits();
            assert_eq!(got_fast, got_full, "{sched} wq {wq} at {d}");
            assert_eq!(fast.stats, full.stats, "{sched} wq {wq} at {d}");
            assert_eq!(fast.write_drains(), full.write_drains());
        }
        let st = full.stats;
        assert!(st.reads + st.writes > 100, "{sched} wq {wq}: {st:?}");
        // The bulk skip was taken (not with write_low above write_high, where it never is).
        assert_eq!(skipped > 0, lo <= hi, "{sched} wq {wq}: {skipped}");
    }
}

impl DramChannel {
    /// The per-bank summaries the queues keep (hit counts, first hit, the arrival numbers of
    /// the first request and the first hit) and the banks' groups equal a recomputation.
    fn assert_hits(&self) {
        for (k, q) in [&self.rq, &self.wq].into_iter().enumerate() {
            for (b, bank) in self.banks.iter().enumerate() {
                let es = q.bank(b);
                let n = es.iter().filter(|e| Some(e.row) == bank.row).count();
                assert_eq!(q.hits[b] as usize, n, "queue {k} bank {b}");
                let h = es.iter().position(|e| Some(e.row) == bank.row);
                let fh =
                    (q.first_hit[b] != super::queue::NO_HIT).then_some(q.first_hit[b] as usize);
                assert_eq!(fh, h, "queue {k} bank {b} first hit");
                if let Some(h) = h {
                    assert_eq!(q.hit_seq[b], es[h].seq, "queue {k} bank {b} hit seq");
                }
                if let Some(e) = es.first() {
                    assert_eq!(q.head_seq[b], e.seq, "queue {k} bank {b} head seq");
                }
                assert_eq!(bank.bg, b as u32 % self.bgs, "bank {b} group");
            }
        }
    }

    /// Whether `e` may take a column command in DRAM cycle `d`, written out condition by
    /// condition as the scheduler first did (independent of `col_from`, which the picks and
    /// the wake bound use).
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

    /// The scheduler as first written (per-bank `oldest_where` scans with `col_ok` per
    /// request), which the one-pass picks must equal.
    fn reference_pick(&self, writes: bool, d: u64, core_d: Cycle) -> Option<(bool, usize, usize)> {
        let q = if writes { &self.wq } else { &self.rq };
        let avail = |e: &Queued| e.r.ready <= core_d;
        let banks = &self.banks;
        let col = if self.frfcfs {
            q.oldest_where(
                |b| banks[b].row.is_some() && banks[b].col_ok <= d,
                |e| avail(e) && self.col_ok(e, d),
            )
        } else {
            q.oldest()
                .filter(|&(b, i)| avail(q.get(b, i)) && self.col_ok(q.get(b, i), d))
        };
        if let Some((b, i)) = col {
            return Some((true, b, i));
        }
        let row = if self.frfcfs {
            q.oldest_where(
                |b| match banks[b].row {
                    Some(open) => {
                        d >= banks[b].pre_ok && !q.bank(b).iter().any(|o| o.row == open && avail(o))
                    }
                    None => true,
                },
                avail,
            )
        } else {
            q.oldest().filter(|&(b, i)| {
                let (e, bk) = (q.get(b, i), &banks[b]);
                avail(e) && bk.row != Some(e.row) && (bk.row.is_none() || d >= bk.pre_ok)
            })
        };
        row.map(|(b, i)| (false, b, i))
    }
}
