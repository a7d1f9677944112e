//! The analytical memory model of one SM (seed 000 section III-D2): every request completes a
//! fixed latency after it is accepted, plus the contention that dominates memory-bound kernels
//! (in the spirit of the MDM model), each as `ready = max(now, ready) + interval`.
//!
//! ```text
//!  request at t ─> start s = t + 1  (the cycle the cycle model's L1 takes it from its queue)
//!   shared:     s' = max(s, shm_ready); shm_ready = s' + W          (W = bank-conflict
//!               done = s' + L_shm + W - 1                               wavefronts)
//!   constant:   done = s + L_const
//!   global / local / texture (per PC, hit rates R1, R2 from the functional pre-pass):
//!     L1 bank   s' = max(s, bank_ready[b]); bank_ready[b] = s' + 1   (b = line % L1 banks)
//!     MSHR      expected misses in flight Σ(1 - R1) <= L1 MSHR entries, else refused
//!               (back-pressure: the SM retries, so misses are served in MSHR-sized batches)
//!     NoC       q1 = max(s', noc_ready);  noc_ready  = q1 + (1-R1)·bytes / port B/cycle
//!     DRAM      q2 = max(q1, dram_ready); dram_ready = q2 + (1-R1)(1-R2)·bytes / DRAM share
//!     done = s' + L + ceil((1-R1)·(q2 - s'))        (hits never wait below the L1)
//!     MSHR merge: a load of a line this SM is still fetching waits for that fill:
//!       done = max(done, fill[line]); fetching loads are picked by error diffusion of 1 - R1
//!       per PC and set fill[line] = s' + L2·R2 + (1-R2)·DRAM + ceil(q2 - s')
//!       L = L1·R1 + (1-R1)·(L2·R2 + (1-R2)·DRAM)                         (Equation 1)
//!       L1-bypassing (atomics, .STRONG.GPU): L = L2·R2 + (1-R2)·DRAM, all bytes cross the NoC
//! ```
//! The queues keep time in 1/65536 cycle so fractional intervals add up exactly (integer
//! arithmetic: deterministic). The DRAM share of an SM is the GPU's peak DRAM bandwidth divided
//! by the SMs the kernel occupies (`min(SMs, CTAs)`); the NoC port is the SM's own. The L2's
//! write-backs use the same DRAM bandwidth: with a pre-pass, every DRAM charge is scaled by
//! `1 + written / read` sectors of the whole trace (`set_dram_writes`). The DRAM share streams
//! at the efficiency η < 1 the preset's DRAM timing allows (columns, row openings, read/write
//! turnarounds between write-queue batches; `analytic::dram_eff`), not at the peak.
//! With no contention (one request at a time) `done = t + 1 + L`: Equation 1 exactly, and for
//! an L1 hit or a shared access exactly the cycle model's time (test `engine::tests::hybrid`).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use crate::config::{AnalyticMemConfig, GpuConfig};
use crate::mem::{AccessKind, HitLevel, MemRequest, MemResponse};
use crate::trace::{KernelInfo, MemSpace};
use crate::Cycle;

/// Fixed point of the bandwidth queues: 1 cycle = `FP` units.
pub const FP: u64 = 1 << 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    ready: Cycle,
    seq: u64,
    /// Expected L1 misses this request holds in the MSHR (FP units).
    mshr: u64,
    resp: MemResponse,
}

impl Ord for Pending {
    fn cmp(&self, o: &Self) -> Ordering {
        // BinaryHeap is a max-heap: the earliest (ready, seq) must compare greatest.
        (o.ready, o.seq).cmp(&(self.ready, self.seq))
    }
}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Bandwidth and occupancy limits of one SM's memory path (set per kernel from the GPU config;
/// all zero = no contention beyond `max_outstanding`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Contention {
    /// L1 banks (one lookup per bank per cycle); 0 = unlimited.
    pub l1_banks: u32,
    pub line_bytes: u32,
    pub sector_bytes: u32,
    /// The SM's crossbar port: FP units per byte.
    pub noc_fp_per_byte: u64,
    /// This SM's share of the DRAM bandwidth: FP units per byte.
    pub dram_fp_per_byte: u64,
    /// L1 MSHR entries in FP units (expected misses in flight); 0 = unlimited.
    pub mshr_fp: u64,
}

impl Contention {
    /// The limits of an SM of `cfg` running a kernel of `ctas` CTAs.
    pub fn from_config(cfg: &GpuConfig, ctas: u64) -> Self {
        let core = cfg.clocks.core_mhz.max(1e-3);
        let port = cfg.noc.flit_bytes.max(1) as f64
            * cfg.noc.port_flits_per_cycle.max(1) as f64
            * (cfg.clocks.icnt_mhz.max(1e-3) / core);
        let sector = cfg.l2.cache.sector_bytes.max(1);
        let chan = crate::mem::dram::DramChannel::new(&cfg.dram, sector);
        let dram = chan.peak_bytes_per_cycle()
            * cfg.l2.partitions.max(1) as f64
            * (cfg.clocks.dram_mhz.max(1e-3) / core);
        let sms = (cfg.gpu.num_sms.max(1) as u64).min(ctas.max(1)) as f64;
        let per_byte = |bw: f64| (FP as f64 / bw.max(1e-6)).round() as u64;
        Contention {
            l1_banks: cfg.l1d.banks.clamp(1, 64),
            line_bytes: cfg.l1d.cache.line_bytes.max(1),
            sector_bytes: cfg.l1d.cache.sector_bytes.max(1),
            noc_fp_per_byte: per_byte(port),
            dram_fp_per_byte: per_byte(dram / sms),
            mshr_fp: cfg.l1d.cache.mshr_entries as u64 * FP,
        }
    }
}

/// Equation 1 of one PC: latencies and the expected traffic below the L1 (FP units).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PcLat {
    global: u32,
    bypass: u32,
    level: HitLevel,
    /// 1 - R1.
    miss: u64,
    /// (1 - R1)(1 - R2).
    dram: u64,
    /// 1 - R2 (L1-bypassing requests).
    bypass_dram: u64,
}

#[derive(Clone, Debug)]
pub struct AnalyticSmMem {
    cfg: AnalyticMemConfig,
    global: PcLat,
    heap: BinaryHeap<Pending>,
    seq: u64,
    /// Per-PC Equation 1 latencies from a functional pre-pass (`set_pc_rates`), indexed by
    /// `pc / inst_bytes`; latency 0 = no entry.
    pc_lat: Vec<PcLat>,
    inst_bytes: u32,
    q: Box<Queues>,
    mshr_used: u64,
    /// Error diffusion of the miss probability per PC (index as `pc_lat`; last: unlisted).
    acc: Vec<i64>,
    /// DRAM bytes moved per byte a request charges, FP units: 1 + the L2's written-back
    /// sectors per sector read, from the pre-pass (`set_dram_writes`); `FP` = reads only.
    dram_scale: u64,
    /// The pre-pass's DRAM sectors read and written (for the DRAM efficiency, `dram_eff`).
    dram_sectors: (u64, u64),
}

/// The contention state of one SM (boxed: the SM holds `SmMem` inline).
#[derive(Clone, Debug)]
struct Queues {
    cont: Contention,
    shm_ready: Cycle,
    bank_ready: [Cycle; 64],
    /// NoC and DRAM queues, FP units.
    noc_ready: u64,
    dram_ready: u64,
    /// Lines on their way from the L2 to this SM's L1: (line, arrival), direct-mapped.
    inflight: [(u64, Cycle); INFLIGHT],
    /// Requests issued directly ([`AnalyticSmMem::request_direct`]) still in flight: (due,
    /// expected MSHR share) packed into one key ([`direct_key`]), for the outstanding and MSHR
    /// limits; sorted, earliest first. Due cycles mostly come in order (the bandwidth queues
    /// only grow), so a new key usually goes at the back and the completed ones leave from the
    /// front: no heap sifting ([`insert_sorted`]).
    direct: VecDeque<u64>,
}

/// `x / d` (`d > 0`) as a shift when `d` is a power of two (line sizes, banks and instruction
/// bytes of every preset): the per-request path divides by runtime values.
#[inline(always)]
fn div_p2(x: u64, d: u64) -> u64 {
    if d.is_power_of_two() {
        x >> d.trailing_zeros()
    } else {
        x / d
    }
}

/// `x % d` (`d > 0`), a mask when `d` is a power of two.
#[inline(always)]
fn rem_p2(x: u64, d: u64) -> u64 {
    if d.is_power_of_two() {
        x & (d - 1)
    } else {
        x % d
    }
}

/// Bits of a direct request's key that hold its MSHR share (at most `FP`).
const SHARE_BITS: u32 = 17;
const _: () = assert!(FP < 1 << SHARE_BITS);

/// A direct request's heap key: due cycle above, MSHR share below (ordered by due first, as the
/// (due, share) pair; cycles below 2^47 — about 10^14 — fit).
#[inline]
fn direct_key(due: Cycle, share: u64) -> u64 {
    debug_assert!(due < 1 << (64 - SHARE_BITS) && share <= FP);
    (due << SHARE_BITS) | share
}

/// Inserts `k` into the ascending `q` (after equal keys): at the back when it is the largest
/// (the common case), else at its place found by bisection.
#[inline(always)]
fn insert_sorted(q: &mut VecDeque<u64>, k: u64) {
    if q.back().is_none_or(|&b| b <= k) {
        q.push_back(k);
    } else {
        let at = q.partition_point(|&x| x <= k);
        q.insert(at, k);
    }
}

/// Entries of the in-flight line table (a power of two).
const INFLIGHT: usize = 256;

/// Hit rates of one PC (from `mem::functional`'s per-PC report).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PcRates {
    pub pc: u32,
    pub l1_hit_rate: f64,
    /// Of the requests that reached the L2.
    pub l2_hit_rate: f64,
}

impl AnalyticSmMem {
    pub fn new(cfg: &AnalyticMemConfig) -> Self {
        AnalyticSmMem {
            cfg: cfg.clone(),
            global: equation_one(cfg, cfg.l1_hit_rate, cfg.l2_hit_rate),
            heap: BinaryHeap::with_capacity(cfg.max_outstanding.max(1) as usize),
            seq: 0,
            pc_lat: Vec::new(),
            inst_bytes: 16,
            q: Box::new(Queues {
                cont: Contention::default(),
                shm_ready: 0,
                bank_ready: [0; 64],
                noc_ready: 0,
                dram_ready: 0,
                inflight: [(u64::MAX, 0); INFLIGHT],
                direct: VecDeque::with_capacity(cfg.max_outstanding.clamp(1, 4096) as usize),
            }),
            mshr_used: 0,
            acc: vec![0],
            dram_scale: FP,
            dram_sectors: (0, 0),
        }
    }

    /// The L2's write-backs share the DRAM bandwidth with the reads (seed 000's DRAM queue
    /// charges only what requests fetch): every DRAM charge is scaled by
    /// `1 + written / read` sectors of the functional pre-pass. No reads: unchanged.
    pub fn set_dram_writes(&mut self, read_sectors: u64, write_sectors: u64) {
        self.dram_sectors = (read_sectors, write_sectors);
        self.dram_scale = if read_sectors == 0 {
            FP
        } else {
            FP + (write_sectors as u128 * FP as u128 / read_sectors as u128) as u64
        };
    }

    /// Bandwidth and occupancy limits (`Contention::default()`: none).
    pub fn set_contention(&mut self, c: Contention) {
        self.q.cont = c;
    }

    pub fn contention(&self) -> Contention {
        self.q.cont
    }

    /// A kernel starts on this SM: its bandwidth share follows the SMs the kernel occupies,
    /// at the DRAM efficiency of the pre-pass's read/write mix (`dram_eff`).
    pub fn begin_kernel(&mut self, info: &KernelInfo, cfg: &GpuConfig) {
        let mut c = Contention::from_config(cfg, info.num_ctas());
        let (r, w) = self.dram_sectors;
        let wf = if r + w == 0 {
            0.0
        } else {
            w as f64 / (r + w) as f64
        };
        let sector = cfg.l2.cache.sector_bytes;
        let eta =
            super::dram_eff::dram_efficiency(&cfg.dram, sector, cfg.l2.cache.line_bytes, wf).eta();
        let scaled = c.dram_fp_per_byte as f64 * (self.dram_scale as f64 / FP as f64) / eta;
        c.dram_fp_per_byte = scaled.round() as u64;
        self.set_contention(c);
    }

    /// Per-PC hit rates (seed 000: from the functional cache pre-pass); PCs not listed keep the
    /// config's global rates.
    pub fn set_pc_rates(&mut self, rates: &[PcRates], inst_bytes: u32) {
        self.inst_bytes = inst_bytes.max(1);
        let n = rates
            .iter()
            .map(|r| (r.pc / self.inst_bytes) as usize + 1)
            .max()
            .unwrap_or(0);
        let none = PcLat {
            global: 0,
            ..self.global
        };
        self.pc_lat = vec![none; n];
        self.acc = vec![0; n + 1];
        for r in rates {
            self.pc_lat[(r.pc / self.inst_bytes) as usize] =
                equation_one(&self.cfg, r.l1_hit_rate, r.l2_hit_rate);
        }
    }

    fn pc_entry(&self, pc: u32) -> PcLat {
        self.pc_index(pc).1
    }

    /// The error-diffusion slot and Equation 1 entry of a PC.
    fn pc_index(&self, pc: u32) -> (usize, PcLat) {
        let i = div_p2(pc as u64, self.inst_bytes as u64) as usize;
        match self.pc_lat.get(i) {
            Some(e) if e.global > 0 => (i, *e),
            _ => (self.acc.len() - 1, self.global),
        }
    }

    /// Latency (without contention) and level of a request.
    pub fn latency(&self, req: &MemRequest) -> (u32, HitLevel) {
        match req.space {
            MemSpace::Shared => (
                self.cfg.shmem_latency.max(1) + req.shmem_wavefronts.max(1) - 1,
                HitLevel::Shared,
            ),
            MemSpace::Constant => (self.cfg.const_latency.max(1), HitLevel::Constant),
            _ => {
                let e = self.pc_entry(req.pc);
                if bypasses(req) {
                    (e.bypass, bypass_level(&e))
                } else {
                    (e.global, e.level)
                }
            }
        }
    }

    pub fn try_request(&mut self, now: Cycle, req: MemRequest) -> Result<(), MemRequest> {
        if self.heap.len() >= self.cfg.max_outstanding.max(1) as usize {
            return Err(req);
        }
        let Some((ready, mshr, level)) = self.admit(now, &req, true) else {
            return Err(req);
        };
        self.seq += 1;
        self.heap.push(Pending {
            ready,
            seq: self.seq,
            mshr,
            resp: MemResponse {
                tag: req.tag,
                level,
                last: req.last,
            },
        });
        Ok(())
    }

    /// Direct issue (`fast` mode, the event front end: no per-cycle memory pipeline): a request
    /// offered at `offer` waits, as the cycle path's retries would, until the outstanding
    /// requests and the MSHR budget admit it (the earliest completion frees them, at its
    /// cycle). Returns (accepted, done): the cycle the request is taken and the cycle its
    /// response is due (the same arithmetic as [`AnalyticSmMem::try_request`]). Nothing goes
    /// to the response queue: the caller files the completion itself.
    pub fn request_direct(&mut self, offer: Cycle, req: &MemRequest) -> (Cycle, Cycle) {
        let max = self.cfg.max_outstanding.max(1) as usize;
        let mut t = offer;
        loop {
            while let Some(&k) = self.q.direct.front() {
                if k >> SHARE_BITS > t {
                    break;
                }
                self.q.direct.pop_front();
                self.mshr_used -= k & ((1 << SHARE_BITS) - 1);
            }
            if self.q.direct.len() < max {
                // With nothing in flight the MSHR budget admits any request.
                let check = !self.q.direct.is_empty();
                if let Some((ready, mshr, _)) = self.admit(t, req, check) {
                    insert_sorted(&mut self.q.direct, direct_key(ready, mshr));
                    return (t, ready);
                }
            }
            match self.q.direct.front() {
                Some(&k) => t = k >> SHARE_BITS,
                None => t += 1,
            }
        }
    }

    /// Times a request taken at `now` (start `now + 1`) and books its contention; `None`
    /// (nothing booked) when the MSHR budget refuses it (`check_mshr`).
    fn admit(
        &mut self,
        now: Cycle,
        req: &MemRequest,
        check_mshr: bool,
    ) -> Option<(Cycle, u64, HitLevel)> {
        let start = now + 1;
        let (ready, mshr, level) = match req.space {
            MemSpace::Shared => {
                let (lat, level) = self.latency(req);
                let wf = req.shmem_wavefronts.max(1) as u64;
                let s = start.max(self.q.shm_ready);
                self.q.shm_ready = s + wf;
                (s + lat as u64, 0, level)
            }
            MemSpace::Constant => {
                let (lat, level) = self.latency(req);
                (start + lat as u64, 0, level)
            }
            _ => {
                // `latency`'s global case, from the one look-up of the PC's entry.
                let (pi, e) = self.pc_index(req.pc);
                let bypass = bypasses(req);
                let (lat, level) = if bypass {
                    (e.bypass, bypass_level(&e))
                } else {
                    (e.global, e.level)
                };
                let (miss, dram) = if bypass {
                    (FP, e.bypass_dram)
                } else {
                    (e.miss, e.dram)
                };
                let mshr = if bypass { 0 } else { miss };
                let c = &self.q.cont;
                if check_mshr
                    && c.mshr_fp > 0
                    && self.mshr_used > 0
                    && self.mshr_used + mshr > c.mshr_fp
                {
                    return None;
                }
                let mut s = start;
                if c.l1_banks > 0 && !bypass {
                    let line = div_p2(req.addr, c.line_bytes as u64);
                    let b = rem_p2(line, c.l1_banks as u64) as usize;
                    s = s.max(self.q.bank_ready[b]);
                    self.q.bank_ready[b] = s + 1;
                }
                let bytes =
                    crate::mem::cache::sector_count(req.sectors).max(1) * c.sector_bytes as u64;
                let t0 = s * FP;
                let q1 = t0.max(self.q.noc_ready);
                self.q.noc_ready = q1 + miss * bytes * c.noc_fp_per_byte / FP;
                let q2 = q1.max(self.q.dram_ready);
                self.q.dram_ready = q2 + dram * bytes * c.dram_fp_per_byte / FP;
                self.mshr_used += mshr;
                // Only the missing fraction queues (a hit never leaves the L1).
                let wait = (q2 - t0) * miss / FP;
                let mut done = s + lat as u64 + wait.div_ceil(FP);
                if !bypass && !req.kind.is_write() {
                    // MSHR merging: a request for a line another request of this SM is still
                    // fetching waits for that fill (the functional pass counts it as a hit).
                    // Which requests fetch is decided by error diffusion of the PC's miss
                    // probability (deterministic; the fraction of fetching requests is 1 - R1).
                    let line = div_p2(req.addr, c.line_bytes.max(1) as u64);
                    let slot = &mut self.q.inflight[line as usize & (INFLIGHT - 1)];
                    if slot.0 == line && slot.1 > done {
                        done = slot.1;
                    } else {
                        let a = &mut self.acc[pi];
                        *a += miss as i64;
                        if *a * 2 >= FP as i64 {
                            *a -= FP as i64;
                            *slot = (line, s + e.bypass as u64 + (q2 - t0).div_ceil(FP));
                        }
                    }
                }
                (done, mshr, level)
            }
        };
        Some((ready, mshr, level))
    }

    pub fn pop_response(&mut self, now: Cycle) -> Option<MemResponse> {
        if self.heap.peek().is_some_and(|p| p.ready <= now) {
            return self.heap.pop().map(|p| {
                self.mshr_used -= p.mshr;
                p.resp
            });
        }
        None
    }

    pub fn next_event(&self) -> Option<Cycle> {
        self.heap.peek().map(|p| p.ready)
    }

    pub fn outstanding(&self) -> usize {
        self.heap.len()
    }
}

/// Where an L1-bypassing request of a PC with entry `e` is served (mostly).
fn bypass_level(e: &PcLat) -> HitLevel {
    if e.bypass_dram * 2 <= FP {
        HitLevel::L2
    } else {
        HitLevel::Dram
    }
}

/// Atomics and `.STRONG.GPU` accesses skip the L1.
fn bypasses(req: &MemRequest) -> bool {
    req.bypass_l1 || matches!(req.kind, AccessKind::Atomic | AccessKind::Reduction)
}

/// Equation 1 for hit rates `r1`, `r2`.
fn equation_one(cfg: &AnalyticMemConfig, r1: f64, r2: f64) -> PcLat {
    let r1 = r1.clamp(0.0, 1.0);
    let r2 = r2.clamp(0.0, 1.0);
    let below = r2 * cfg.l2_latency as f64 + (1.0 - r2) * cfg.dram_latency as f64;
    let global = r1 * cfg.l1_latency as f64 + (1.0 - r1) * below;
    let level = if r1 >= 0.5 {
        HitLevel::L1
    } else if r2 >= 0.5 {
        HitLevel::L2
    } else {
        HitLevel::Dram
    };
    let fp = |x: f64| (x * FP as f64).round() as u64;
    PcLat {
        global: global.round().max(1.0) as u32,
        bypass: below.round().max(1.0) as u32,
        level,
        miss: fp(1.0 - r1),
        dram: fp((1.0 - r1) * (1.0 - r2)),
        bypass_dram: fp(1.0 - r2),
    }
}

#[cfg(test)]
#[path = "mem_tests.rs"]
mod tests;
