//! The timing memory system driven directly with MemRequests (no SM): pointer chases that
//! show the L1, L2 and DRAM latency plateaus, a bandwidth microbenchmark, and equality of hit
//! counts with the functional mode when timing cannot reorder the stream.

use crate::config::GpuConfig;
use crate::mem::functional::FuncMem;
use crate::mem::iface::{AccessKind, HitLevel, MemRequest, NocPacket};
use crate::mem::partitions::{nominal_latencies, MemPartitions};
use crate::mem::sm::SmMemory;
use crate::trace::MemSpace;
use crate::Cycle;

/// SMs + partitions stepped the way the engine does: SMs in order, outboxes merged in SM
/// order, partitions, then replies delivered.
struct Sys {
    sms: Vec<SmMemory>,
    parts: MemPartitions,
    pending: Vec<NocPacket>,
    replies: Vec<NocPacket>,
    now: Cycle,
}

impl Sys {
    fn new(cfg: &GpuConfig) -> Self {
        Sys {
            sms: (0..cfg.gpu.num_sms)
                .map(|i| SmMemory::new(cfg, i).unwrap())
                .collect(),
            parts: MemPartitions::new(cfg),
            pending: Vec::new(),
            replies: Vec::new(),
            now: 0,
        }
    }
    fn step(&mut self) {
        let now = self.now;
        for sm in &mut self.sms {
            sm.tick(now, &mut self.pending);
        }
        self.parts.inject(now, &mut self.pending);
        self.parts.tick(now, &mut self.replies);
        for r in self.replies.drain(..) {
            self.sms[r.src_sm as usize].deliver(now, r);
        }
    }
    /// Advances to the next cycle, skipping cycles in which nothing can happen.
    fn advance(&mut self) {
        let next = self
            .sms
            .iter()
            .filter_map(|s| s.next_event())
            .chain(self.parts.next_event())
            .min();
        let idle = self.pending.is_empty();
        self.now = match next {
            Some(t) if idle => t.max(self.now + 1),
            _ => self.now + 1,
        };
    }
}

fn load(addr: u64, tag: u64) -> MemRequest {
    MemRequest {
        tag,
        kind: AccessKind::Load,
        space: MemSpace::Global,
        addr: addr & !127,
        sectors: 1,
        last: true,
        ..MemRequest::default()
    }
}

/// Serial pointer chase on SM 0: each request issued when the previous one completed.
/// Returns the latency of each request and its level.
fn chase(sys: &mut Sys, reqs: &[MemRequest]) -> Vec<(Cycle, HitLevel)> {
    let mut out = Vec::new();
    for r in reqs {
        let t0 = sys.now;
        sys.sms[0].try_request(t0, *r).unwrap();
        loop {
            sys.step();
            if let Some(resp) = sys.sms[0].pop_response(sys.now) {
                assert_eq!(resp.tag, r.tag);
                out.push((sys.now - t0, resp.level));
                sys.now += 1;
                break;
            }
            sys.advance();
            assert!(sys.now < t0 + 100_000, "request {} never completed", r.tag);
        }
    }
    out
}

fn mean(v: &[(Cycle, HitLevel)], level: HitLevel) -> f64 {
    let l: Vec<f64> = v
        .iter()
        .filter(|x| x.1 == level)
        .map(|x| x.0 as f64)
        .collect();
    assert!(!l.is_empty(), "no {level:?} requests");
    l.iter().sum::<f64>() / l.len() as f64
}

fn small_gpu() -> GpuConfig {
    let mut c = GpuConfig::default();
    c.gpu.num_sms = 4;
    c
}

#[test]
fn pointer_chase_plateaus_match_configured_latencies() {
    let cfg = small_gpu();
    let nom = nominal_latencies(&cfg);
    let mut sys = Sys::new(&cfg);
    // L1: 16 lines, touched twice (the second round hits).
    let l1: Vec<MemRequest> = (0..32)
        .map(|i| load(0x10_0000 + (i % 16) * 128, i))
        .collect();
    let r = chase(&mut sys, &l1);
    assert_eq!(r[16..].iter().filter(|x| x.1 == HitLevel::L1).count(), 16);
    assert_eq!(mean(&r[16..], HitLevel::L1), nom.l1);
    // L2: 384 lines (48 KiB, more than the 32 KiB L1): the second round misses L1, hits L2.
    let l2: Vec<MemRequest> = (0..768)
        .map(|i| load(0x100_0000 + (i % 384) * 128, 1000 + i))
        .collect();
    let r = chase(&mut sys, &l2);
    let m2 = mean(&r[384..], HitLevel::L2);
    assert!(
        (m2 - nom.l2).abs() / nom.l2 < 0.03,
        "L2 plateau {m2} vs {}",
        nom.l2
    );
    // DRAM: 1000 lines 1 MiB + 384 B apart: every access misses both caches and finds another
    // row open in its bank (after the first touch of each bank).
    let dr: Vec<MemRequest> = (0..1000)
        .map(|i| load(0x1_0000_0000 + i * ((1 << 20) + 384), 10_000 + i))
        .collect();
    let r = chase(&mut sys, &dr);
    let md = mean(&r, HitLevel::Dram);
    assert!(
        (md - nom.dram).abs() / nom.dram < 0.03,
        "DRAM plateau {md} vs {}",
        nom.dram
    );
    assert!(nom.l1 < nom.l2 && nom.l2 < nom.dram);
}

#[test]
fn streaming_saturates_dram_bandwidth() {
    let mut cfg = GpuConfig::default();
    cfg.gpu.num_sms = 24;
    let mut sys = Sys::new(&cfg);
    let n_sm = cfg.gpu.num_sms as u64;
    let mut next = vec![0u64; n_sm as usize];
    let mut inflight = vec![0u32; n_sm as usize];
    let (warm, cycles) = (1_500, 5_000);
    let mut tag = 0;
    let mut base = None;
    while sys.now < cycles {
        if sys.now == warm {
            base = Some(sys.parts.stats().dram);
        }
        for s in 0..n_sm as usize {
            while let Some(_r) = sys.sms[s].pop_response(sys.now) {
                inflight[s] -= 1;
            }
            // A grid-stride stream over one array (as a copy kernel reads it): line i goes to
            // SM i % n, 4 sectors per request, 64 requests in flight per SM.
            while inflight[s] < 64 {
                let addr = (next[s] * n_sm + s as u64) * 128;
                let r = MemRequest {
                    sectors: 0xf,
                    ..load(addr, tag)
                };
                if sys.sms[s].try_request(sys.now, r).is_err() {
                    break;
                }
                tag += 1;
                next[s] += 1;
                inflight[s] += 1;
            }
        }
        sys.step();
        sys.now += 1;
    }
    let st = sys.parts.stats();
    let b = base.unwrap();
    let bytes = (st.dram.read_bytes - b.read_bytes) as f64 / (cycles - warm) as f64;
    let frac = bytes / st.dram_peak_bytes_per_cycle;
    // Bytes are counted when the column is issued, so a window can read a hair over 100%.
    assert!(
        frac > 0.90 && frac < 1.02,
        "DRAM at {:.1}% of peak ({:?})",
        100.0 * frac,
        st.dram
    );
    assert!(st.dram.row_hit_rate() > 0.5, "{:?}", st.dram);
    assert!(st.noc_requests.stall_cycles + st.noc_replies.stall_cycles > 0);
}

#[test]
fn functional_and_timing_agree_on_a_serial_stream() {
    let cfg = small_gpu();
    let mut sys = Sys::new(&cfg);
    let mut fm = FuncMem::new(&cfg, cfg.l1d.cache.size_kb as u64 * 1024).unwrap();
    let mut x = 12345u64;
    let reqs: Vec<MemRequest> = (0..2000)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let addr = (0x4000_0000 + x % (96 * 1024)) & !127;
            let kind = if x.is_multiple_of(4) {
                AccessKind::Store
            } else {
                AccessKind::Load
            };
            MemRequest {
                kind,
                sectors: 1 << (x % 4),
                bytes: 4,
                ..load(addr, i)
            }
        })
        .collect();
    chase(&mut sys, &reqs);
    for r in &reqs {
        fm.access(0, r);
    }
    let t1 = sys.sms[0].stats().l1;
    let f1 = fm.l1_stats();
    assert_eq!(
        (t1.accesses, t1.hits, t1.read_hits, t1.write_hits),
        (f1.accesses, f1.hits, f1.read_hits, f1.write_hits)
    );
    let t2 = sys.parts.stats().l2;
    let f2 = fm.l2_stats();
    assert_eq!(
        (t2.accesses, t2.hits, t2.writes, t2.fetch_sectors),
        (f2.accesses, f2.hits, f2.writes, f2.fetch_sectors)
    );
    assert!(f1.hits > 100 && f2.hits > 100 && f2.misses > 100);
}

/// Random loads and stores from 8 SMs that fill the DRAM queues and the L2 MSHRs (so slices
/// stall and sleep), with an L2 warm-up in the middle: the run with sleeping slices equals
/// the one that ticks every slice in full, response by response and in every counter.
#[test]
fn sleeping_slices_equal_ticking() {
    fn run(no_sleep: bool) -> (Vec<(Cycle, u64)>, crate::mem::partitions::PartitionStats) {
        crate::mem::l2::NO_SLEEP.with(|c| c.set(no_sleep));
        let mut cfg = GpuConfig::default();
        cfg.gpu.num_sms = 8;
        cfg.dram.queue = 4;
        cfg.l2.cache.mshr_entries = 6;
        let mut sys = Sys::new(&cfg);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut got = Vec::new();
        let mut tag = 0;
        while sys.now < 2_000 {
            if sys.now == 800 {
                sys.parts.warm(0, 1 << 20);
            }
            for s in 0..8 {
                while let Some(r) = sys.sms[s].pop_response(sys.now) {
                    got.push((sys.now, r.tag));
                }
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                if sys.now < 1_400 && x >> 62 != 0 {
                    let addr = (x >> 20) % (4 << 20);
                    let r = if x & 3 == 0 {
                        MemRequest {
                            kind: AccessKind::Store,
                            sectors: 0xf,
                            full: 0xf,
                            ..load(addr, tag)
                        }
                    } else {
                        load(addr, tag)
                    };
                    if sys.sms[s].try_request(sys.now, r).is_ok() {
                        tag += 1;
                    }
                }
            }
            sys.step();
            sys.now += 1;
        }
        crate::mem::l2::NO_SLEEP.with(|c| c.set(false));
        (got, sys.parts.stats())
    }
    let (a, sa) = run(false);
    let (b, sb) = run(true);
    assert!(a.len() > 2_000, "{} responses", a.len());
    assert!(sa.l2.reservation_fails > 1_000, "{:?}", sa.l2);
    assert_eq!(a, b);
    assert_eq!(sa, sb);
}

/// Two L2 halves (`l2.sides` = 2) on a GPU whose clocks are all equal: SMs 0-1 are near
/// partitions 0-1, SMs 2-3 near partitions 2-3.
fn two_halves(fabric_latency: u32) -> GpuConfig {
    let mut c = small_gpu();
    c.l2.partitions = 4;
    c.l2.sides = 2;
    c.l2.fabric_latency = fabric_latency;
    let core = c.clocks.core_mhz;
    c.clocks.icnt_mhz = core;
    c.clocks.l2_mhz = core;
    c.clocks.dram_mhz = core;
    c
}

/// A load that skips the L1 (each one reaches the L2).
fn l2_load(addr: u64, tag: u64) -> MemRequest {
    MemRequest {
        bypass_l1: true,
        ..load(addr, tag)
    }
}

/// The first line from `from` whose home slice is in half `side`.
fn homed_in(sys: &Sys, side: u32, from: u64) -> u64 {
    let m = *sys.parts.address_map();
    (0..)
        .map(|i| from + i * 128)
        .find(|&a| m.side_of_slice(m.slice(a)) == side)
        .unwrap()
}

/// Latency of one load of SM `sm` (the system otherwise idle).
fn one_load(sys: &mut Sys, sm: usize, r: MemRequest) -> (Cycle, HitLevel) {
    let t0 = sys.now;
    sys.sms[sm].try_request(t0, r).unwrap();
    loop {
        sys.step();
        if let Some(resp) = sys.sms[sm].pop_response(sys.now) {
            let out = (sys.now - t0, resp.level);
            sys.now += 1;
            return out;
        }
        sys.advance();
        assert!(sys.now < t0 + 100_000, "load never completed");
    }
}

/// A far-homed line's first read misses the near half's copy, crosses the fabric, misses at
/// home and reads the home's DRAM (the same channel and bank as with one half): exactly two
/// crossings (2 x 40 cycles) more than with one L2. A near-homed line's costs the same in
/// both.
#[test]
fn far_homed_first_read_costs_two_fabric_crossings() {
    let one = {
        let mut c = two_halves(40);
        c.l2.sides = 1;
        c
    };
    let probe = Sys::new(&two_halves(40));
    let far = homed_in(&probe, 1, 0x40_0000);
    let near = homed_in(&probe, 0, 0x40_0000);
    for (addr, extra) in [(far, 80), (near, 0)] {
        let mut a = Sys::new(&one);
        let mut b = Sys::new(&two_halves(40));
        let (ta, la) = one_load(&mut a, 0, l2_load(addr, 1));
        let (tb, lb) = one_load(&mut b, 0, l2_load(addr, 1));
        assert_eq!((la, lb), (HitLevel::Dram, HitLevel::Dram));
        assert_eq!(tb, ta + extra, "address {addr:#x}");
    }
}

/// The near half keeps the copy: a second read of a far-homed line by the same SM hits it
/// at the near-homed L2 hit latency. A read of a line the far half holds (another SM there
/// read it) hits at home: two crossings more than that. Each of those reads is looked up
/// twice (near copy, home), as the card counts `lts__t_sectors` (`ltcfabric` part).
#[test]
fn near_copy_hits_and_far_home_hits() {
    let cfg = two_halves(40);
    let mut sys = Sys::new(&cfg);
    let far = homed_in(&sys, 1, 0x40_0000);
    let near = homed_in(&sys, 0, 0x80_0000);
    one_load(&mut sys, 0, l2_load(near, 1));
    let (t_near, l) = one_load(&mut sys, 0, l2_load(near, 2));
    assert_eq!(l, HitLevel::L2);
    one_load(&mut sys, 0, l2_load(far, 3));
    let (t_copy, l) = one_load(&mut sys, 0, l2_load(far, 4));
    assert_eq!((t_copy, l), (t_near, HitLevel::L2), "hit in the near copy");
    // SM 2 (near the second half) reads a line of its half; then SM 0 reads it: the near
    // copy misses, the home hits.
    let other = homed_in(&sys, 1, 0xc0_0000);
    one_load(&mut sys, 2, l2_load(other, 5));
    let before = sys.parts.stats().l2;
    let (t_home, _) = one_load(&mut sys, 0, l2_load(other, 6));
    assert_eq!(t_home, t_near + 80);
    let after = sys.parts.stats().l2;
    assert_eq!(after.reads - before.reads, 2, "near copy and home lookups");
    assert_eq!(after.read_hits - before.read_hits, 1, "the home hit");
}

/// Stores and atomics go to the home slice: a far-homed store leaves no near copy, so a
/// later read by the same SM misses the near half and hits at home (two crossings).
#[test]
fn far_stores_go_home() {
    let mut sys = Sys::new(&two_halves(40));
    let near = homed_in(&sys, 0, 0x80_0000);
    one_load(&mut sys, 0, l2_load(near, 1));
    let (t_near, _) = one_load(&mut sys, 0, l2_load(near, 2));
    let far = homed_in(&sys, 1, 0x40_0000);
    let st = MemRequest {
        kind: AccessKind::Store,
        full: 1,
        bytes: 32,
        ..load(far, 3)
    };
    one_load(&mut sys, 0, st);
    let (t, l) = one_load(&mut sys, 0, l2_load(far, 4));
    assert_eq!(
        (t, l),
        (t_near + 80, HitLevel::Dram),
        "home hit, filled over the fabric"
    );
}

/// With two halves, every SM streaming over its own lines (half of them far-homed, through a
/// fabric of limited bandwidth): the same cycles and counters whichever order the partitions
/// step in, every load answered, and one home lookup per near-copy miss.
#[test]
fn two_halves_streaming_is_order_independent() {
    let run = |reverse: bool| {
        let mut cfg = two_halves(30);
        cfg.l2.fabric_sectors_per_cycle = 2.0;
        let mut sys = Sys::new(&cfg);
        sys.parts.reverse = reverse;
        let n_sm = cfg.gpu.num_sms as usize;
        let (mut sent, mut done) = (vec![0u64; n_sm], 0u64);
        let per_sm = 64;
        while done < per_sm * n_sm as u64 {
            for (s, k) in sent.iter_mut().enumerate() {
                while let Some(_r) = sys.sms[s].pop_response(sys.now) {
                    done += 1;
                }
                if *k < per_sm {
                    let addr = 0x100_0000 + (*k * n_sm as u64 + s as u64) * 128;
                    let r = MemRequest {
                        sectors: 0xf,
                        ..l2_load(addr, *k)
                    };
                    if sys.sms[s].try_request(sys.now, r).is_ok() {
                        *k += 1;
                    }
                }
            }
            sys.step();
            sys.now += 1;
            assert!(sys.now < 200_000, "stream never completed");
        }
        (sys.now, sys.parts.stats())
    };
    let (t, st) = run(false);
    assert_eq!((t, st), run(true));
    // 256 line reads; the far-homed half of them looked up again at home.
    assert!(st.l2.reads > 256 && st.l2.reads < 512, "{:?}", st.l2);
    assert_eq!(st.dram.reads, 256, "each line read from DRAM once");
}
