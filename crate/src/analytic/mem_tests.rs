//! Tests of the analytical memory model (`analytic/mem.rs`).

use super::*;

/// A twin of `eq1_cfg` with room for 64 requests and the given limits.
fn twin(c: Contention) -> AnalyticSmMem {
    let mut cfg = eq1_cfg();
    cfg.max_outstanding = 64;
    let mut m = AnalyticSmMem::new(&cfg);
    m.set_contention(c);
    m
}

fn eq1_cfg() -> AnalyticMemConfig {
    AnalyticMemConfig {
        l1_latency: 30,
        l2_latency: 200,
        dram_latency: 400,
        shmem_latency: 20,
        const_latency: 8,
        l1_hit_rate: 0.5,
        l2_hit_rate: 0.5,
        max_outstanding: 2,
    }
}

fn global(tag: u64, pc: u32, addr: u64) -> MemRequest {
    MemRequest {
        tag,
        pc,
        addr,
        sectors: 0xf,
        space: MemSpace::Global,
        ..Default::default()
    }
}

#[test]
fn equation_one_and_ordering() {
    let mut m = AnalyticSmMem::new(&eq1_cfg());
    // 0.5*30 + 0.5*(0.5*200 + 0.5*400) = 15 + 150 = 165
    let g = global(1, 0, 0);
    assert_eq!(m.latency(&g).0, 165);
    // Shared: latency + one cycle per extra wavefront (the cycle model's pipeline).
    let s = MemRequest {
        tag: 2,
        space: MemSpace::Shared,
        shmem_wavefronts: 3,
        ..Default::default()
    };
    assert_eq!(m.latency(&s).0, 22);
    m.try_request(10, g).unwrap();
    m.try_request(10, s).unwrap();
    assert!(
        m.try_request(10, g).is_err(),
        "bounded outstanding requests"
    );
    // Taken at 11 (the cycle after the request, as the cycle L1 does).
    assert_eq!(m.next_event(), Some(33));
    assert_eq!(m.pop_response(32), None);
    assert_eq!(m.pop_response(33).map(|r| r.tag), Some(2));
    assert_eq!(m.pop_response(175), None);
    assert_eq!(m.pop_response(176).map(|r| r.tag), Some(1));
    assert_eq!(m.next_event(), None);
}

/// A crafted stream with known per-PC hit rates: each PC's latency is Equation 1.
#[test]
fn per_pc_latency_is_equation_one() {
    let cfg = AnalyticMemConfig {
        l1_latency: 28,
        l2_latency: 190,
        dram_latency: 420,
        l1_hit_rate: 1.0,
        l2_hit_rate: 1.0,
        ..Default::default()
    };
    let mut m = AnalyticSmMem::new(&cfg);
    m.set_pc_rates(
        &[
            PcRates {
                pc: 0x10,
                l1_hit_rate: 0.75,
                l2_hit_rate: 0.5,
            },
            PcRates {
                pc: 0x40,
                l1_hit_rate: 0.0,
                l2_hit_rate: 0.0,
            },
        ],
        16,
    );
    let at = |pc, bypass| MemRequest {
        space: MemSpace::Global,
        pc,
        bypass_l1: bypass,
        ..Default::default()
    };
    // 0.75*28 + 0.25*(0.5*190 + 0.5*420) = 21 + 76.25 = 97.25 -> 97
    assert_eq!(m.latency(&at(0x10, false)), (97, HitLevel::L1));
    // L1 bypass at the same PC: 0.5*190 + 0.5*420 = 305
    assert_eq!(m.latency(&at(0x10, true)).0, 305);
    assert_eq!(m.latency(&at(0x40, false)), (420, HitLevel::Dram));
    // Unlisted PCs (in or beyond the table) keep the config's rates: the L1 latency.
    assert_eq!(m.latency(&at(0x20, false)).0, 28);
    assert_eq!(m.latency(&at(0x1000, false)).0, 28);
    // Timing follows the latency: accepted at 5, taken at 6, done at 6 + 97.
    m.try_request(
        5,
        MemRequest {
            tag: 9,
            ..at(0x10, false)
        },
    )
    .unwrap();
    assert_eq!(m.next_event(), Some(103));
}

/// NoC and DRAM bandwidth queues, hand-derived. R1 = R2 = 0.5, 128-byte requests, a NoC
/// port of 32 B/cycle and a DRAM share of 8 B/cycle: each request puts 0.5 x 128 / 32 = 2
/// cycles on the NoC queue and 0.25 x 128 / 8 = 4 on the DRAM queue.
#[test]
fn bandwidth_queues_hand_derived() {
    let mut m = twin(Contention {
        l1_banks: 0,
        line_bytes: 128,
        sector_bytes: 32,
        noc_fp_per_byte: FP / 32,
        dram_fp_per_byte: FP / 8,
        mshr_fp: 0,
    });
    for t in 0..4 {
        m.try_request(0, global(t, 0, 128 * t)).unwrap();
    }
    // Taken at 1, Eq. 1 latency 165. Queue starts (cycles): NoC 1, 3, 5, 7;
    // DRAM max(NoC, ready) = 1, 5, 9, 13 -> waits 0, 4, 8, 12, of which only the
    // missing half is charged: 0, 2, 4, 6.
    let done: Vec<Cycle> = (0..4)
        .map(|_| {
            let t = m.next_event().unwrap();
            m.pop_response(t).unwrap();
            t
        })
        .collect();
    assert_eq!(done, vec![166, 168, 170, 172]);
    // After an idle period the queues are empty again: no burst-after-idle charge.
    m.try_request(1000, global(9, 0, 0)).unwrap();
    assert_eq!(m.next_event(), Some(1166));
}

/// MSHR batching: expected misses in flight are bounded by the MSHR entries; L1 bank
/// conflicts serialise lookups of one bank.
#[test]
fn mshr_bound_and_bank_conflicts() {
    let mut m = twin(Contention {
        l1_banks: 4,
        line_bytes: 128,
        sector_bytes: 32,
        noc_fp_per_byte: 0,
        dram_fp_per_byte: 0,
        mshr_fp: FP,
    });
    // Miss probability 0.5 each: two fit in one MSHR entry's worth, the third waits.
    m.try_request(0, global(1, 0, 0)).unwrap();
    // Same bank (line 4 % 4 == 0): its lookup is one cycle later.
    m.try_request(0, global(2, 0, 4 * 128)).unwrap();
    assert!(m.try_request(0, global(3, 0, 128)).is_err());
    assert_eq!(m.pop_response(166).map(|r| r.tag), Some(1));
    assert_eq!(m.pop_response(166), None);
    assert_eq!(m.pop_response(167).map(|r| r.tag), Some(2));
    // Freed: a different bank goes at once.
    m.try_request(200, global(3, 0, 128)).unwrap();
    assert_eq!(m.next_event(), Some(366));
    // Shared memory: W wavefronts hold the pipeline W cycles.
    let shm = |tag| MemRequest {
        tag,
        space: MemSpace::Shared,
        shmem_wavefronts: 4,
        ..Default::default()
    };
    m.try_request(300, shm(5)).unwrap();
    m.try_request(300, shm(6)).unwrap();
    let t5 = m.next_event().unwrap();
    assert_eq!(t5, 301 + 20 + 3);
    m.pop_response(t5).unwrap();
    assert_eq!(m.next_event(), Some(305 + 20 + 3));
}

/// Direct issue (`fast` mode): a request the MSHR budget refuses is taken when the
/// earliest in-flight request completes, as the pipeline's retries would take it; the
/// response queue stays empty. R1 = 0.5 each, one MSHR entry: two fit, the third waits
/// for both (due at 1 + 165) and is taken at 166, done 166 + 1 + 165.
#[test]
fn direct_requests_wait_for_the_mshr() {
    let mut m = twin(Contention {
        line_bytes: 128,
        sector_bytes: 32,
        mshr_fp: FP,
        ..Contention::default()
    });
    assert_eq!(m.request_direct(0, &global(1, 0, 0)), (0, 166));
    assert_eq!(m.request_direct(0, &global(2, 0, 4 * 128)), (0, 166));
    assert_eq!(m.request_direct(3, &global(3, 0, 128)), (166, 332));
    // Later offers after the first two completed: taken at once.
    assert_eq!(m.request_direct(400, &global(4, 0, 2 * 128)), (400, 566));
    assert_eq!(m.next_event(), None);
    // The outstanding bound alone (no MSHR limit): the third of two slots waits too.
    let mut cfg2 = eq1_cfg();
    cfg2.max_outstanding = 2;
    let mut m = AnalyticSmMem::new(&cfg2);
    m.request_direct(0, &global(1, 0, 0));
    m.request_direct(1, &global(2, 0, 128));
    assert_eq!(m.request_direct(2, &global(3, 0, 256)), (166, 332));
}

/// `insert_sorted` keeps the queue sorted (the multiset a heap would hold, in order), on
/// seeded keys mostly ascending with some earlier ones, as the direct requests' are.
#[test]
fn insert_sorted_keeps_the_order() {
    let mut q = VecDeque::new();
    let mut all = Vec::new();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in 0..5_000u64 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let k = if x.is_multiple_of(4) {
            i * 8 - (x >> 50) % (i * 8 + 1)
        } else {
            i * 8 + (x >> 60)
        };
        insert_sorted(&mut q, k);
        all.push(k);
        if x.is_multiple_of(3) {
            let f = q.pop_front().unwrap();
            all.sort_unstable();
            assert_eq!(f, all.remove(0));
        }
    }
    all.sort_unstable();
    assert_eq!(q.into_iter().collect::<Vec<_>>(), all);
}

/// The limits a preset gives: the RTX 2080 Ti's DRAM share per SM for a kernel on all 68
/// SMs, against one on 2 SMs (34x the bandwidth per SM).
#[test]
fn contention_from_config() {
    let cfg = GpuConfig::default();
    let all = Contention::from_config(&cfg, 1 << 20);
    let two = Contention::from_config(&cfg, 2);
    assert_eq!(all.mshr_fp, cfg.l1d.cache.mshr_entries as u64 * FP);
    let ratio = all.dram_fp_per_byte as f64 / two.dram_fp_per_byte as f64;
    let expect = cfg.gpu.num_sms as f64 / 2.0;
    assert!(
        (ratio - expect).abs() / expect < 0.01,
        "{ratio} vs {expect}"
    );
}

/// The L2's write-backs share the DRAM queue: with 1 sector written back per 4 read, every
/// DRAM charge is 5/4 of the read-only one, at the DRAM efficiency of a stream a fifth
/// written (`dram_eff`); a pre-pass with no reads leaves the read-only charge (the NoC is
/// not affected). TITAN V: η = 1540/1555 by hand (`dram_eff`'s test), so the charge is
/// 5/4 · 1555/1540 of the peak's.
#[test]
fn write_backs_scale_the_dram_share() {
    for id in ["rtx2080ti", "titanv"] {
        let cfg = crate::config::presets::preset(id).unwrap();
        let mut info = KernelInfo::default();
        info.grid.x = 1 << 20;
        info.grid.y = 1;
        info.grid.z = 1;
        let peak = Contention::from_config(&cfg, info.num_ctas());
        let eff = |w: f64| {
            super::super::dram_eff::dram_efficiency(
                &cfg.dram,
                cfg.l2.cache.sector_bytes,
                cfg.l2.cache.line_bytes,
                w,
            )
            .eta()
        };
        let mut m = AnalyticSmMem::new(&cfg.analytic);
        m.begin_kernel(&info, &cfg);
        let read_only = m.contention();
        let want = (peak.dram_fp_per_byte as f64 / eff(0.0)).round() as u64;
        assert_eq!(read_only.dram_fp_per_byte, want);
        m.set_dram_writes(4, 1);
        m.begin_kernel(&info, &cfg);
        let want = (peak.dram_fp_per_byte as f64 * 1.25 / eff(0.2)).round() as u64;
        assert_eq!(m.contention().dram_fp_per_byte, want);
        assert_eq!(m.contention().noc_fp_per_byte, peak.noc_fp_per_byte);
        if id == "titanv" {
            let by_hand = peak.dram_fp_per_byte as f64 * 1.25 * 1555.0 / 1540.0;
            assert_eq!(want, by_hand.round() as u64);
        }
        m.set_dram_writes(0, 7);
        m.begin_kernel(&info, &cfg);
        assert_eq!(m.contention(), read_only);
    }
}

/// MSHR merging, hand-derived: R1 = 0.5 per PC, so error diffusion makes the 1st, 3rd, ...
/// request of the PC fetch its line (fill at s + L2·R2 + (1-R2)·DRAM = s + 300). A load of
/// a line being fetched completes with the fill, not at its own Equation 1 time.
#[test]
fn a_load_of_a_line_in_flight_waits_for_its_fill() {
    let mut m = twin(Contention {
        line_bytes: 128,
        sector_bytes: 32,
        ..Contention::default()
    });
    m.try_request(0, global(1, 0, 0)).unwrap(); // fetches line 0: fill at 1 + 300
    m.try_request(9, global(2, 0, 64)).unwrap(); // line 0 again: waits for the fill
    m.try_request(9, global(3, 0, 128)).unwrap(); // line 1, not fetching (diffusion)
    m.try_request(20, global(4, 0, 128)).unwrap(); // line 1: nothing in flight
    let done: Vec<(u64, Cycle)> = (0..4)
        .map(|_| {
            let t = m.next_event().unwrap();
            (m.pop_response(t).unwrap().tag, t)
        })
        .collect();
    assert_eq!(done, vec![(1, 166), (3, 175), (4, 186), (2, 301)]);
}
