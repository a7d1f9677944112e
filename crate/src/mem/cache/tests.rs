//! Behaviour of the sectored cache: write policies' transactions on scripted streams,
//! replacement policies, index functions under a power-of-two stride.

use super::*;
use crate::config::{CacheConfig, IndexFn, Replacement, WritePolicy};

fn cfg(policy: WritePolicy, alloc: bool) -> CacheConfig {
    CacheConfig {
        size_kb: 1, // 8 lines of 128 B
        line_bytes: 128,
        sector_bytes: 32,
        assoc: 2,
        write_policy: policy,
        write_allocate: alloc,
        ..CacheConfig::default()
    }
}

/// Runs `(addr, sectors, write)` accesses; returns (fetch sectors, write sectors, writeback
/// sectors, hits).
fn run(c: &mut SectorCache, s: &[(u64, u8, bool)]) -> (u64, u64, u64, u64) {
    for &(a, m, w) in s {
        c.access(a, m, w);
    }
    let st = c.stats;
    (
        st.fetch_sectors,
        st.write_sectors,
        st.writeback_sectors,
        st.hits,
    )
}

/// 4 sets x 2 ways; lines 0x000, 0x200, 0x400 share set 0 (linear index).
const SCRIPT: [(u64, u8, bool); 6] = [
    (0x000, 0b0001, true),  // write miss
    (0x000, 0b0001, false), // read: hit unless the write did not allocate
    (0x200, 0b0011, false), // read miss
    (0x000, 0b0010, true),  // write to another sector of line 0
    (0x400, 0b0001, false), // read miss: evicts the LRU line of set 0
    (0x000, 0b0011, false), // read line 0 again
];

#[test]
fn write_back_write_allocate() {
    let mut c = SectorCache::new(&cfg(WritePolicy::WriteBack, true), "t").unwrap();
    // fetch: 1 (write miss, Figure 4 reads the sector first) + 2 + 1 (sector miss on write)
    // + 1 (0x400) ; LRU victim for 0x400 is 0x200 (line 0 was touched later) -> no writeback;
    // last read hits.
    assert_eq!(run(&mut c, &SCRIPT), (5, 0, 0, 2));
    // Flush writes back the two dirty sectors of line 0.
    let mut seen = Vec::new();
    assert_eq!(c.flush(|a, d| seen.push((a, d))), 2);
    assert_eq!(seen, vec![(0x000, 0b0011)]);
    // Evicting a dirty line writes it back.
    let mut c = SectorCache::new(&cfg(WritePolicy::WriteBack, true), "t").unwrap();
    assert_eq!(
        run(
            &mut c,
            &[(0x000, 0b1111, true), (0x200, 1, false), (0x400, 1, false)]
        ),
        (6, 0, 4, 0)
    );
}

#[test]
fn write_back_no_allocate() {
    let mut c = SectorCache::new(&cfg(WritePolicy::WriteBack, false), "t").unwrap();
    // write miss forwarded (1); read miss 1; read miss 2; write hit on a missing sector
    // forwarded (1); read miss 1 (evicts 0x000? LRU: 0x000 read at t1, 0x200 at t2, write to
    // 0x000 at t3 touches it -> victim 0x200); last read: sector 1 missing -> fetch 1.
    assert_eq!(run(&mut c, &SCRIPT), (1 + 2 + 1 + 1, 2, 0, 0));
}

#[test]
fn write_through_both_allocations_and_write_evict() {
    let mut c = SectorCache::new(&cfg(WritePolicy::WriteThrough, false), "t").unwrap();
    // Every write forwarded (2 sectors); reads: miss 1, miss 2, miss 1, sector miss 1 (line 0
    // sector 1 was written but not allocated).
    assert_eq!(run(&mut c, &SCRIPT), (5, 2, 0, 0));
    let mut c = SectorCache::new(&cfg(WritePolicy::WriteThrough, true), "t").unwrap();
    // The write allocates sector 0 valid: read hits; second write validates sector 1: last
    // read hits too. Fetches: 2 (0x200) + 1 (0x400).
    assert_eq!(run(&mut c, &SCRIPT), (3, 2, 0, 2));
    let mut c = SectorCache::new(&cfg(WritePolicy::WriteEvict, false), "t").unwrap();
    // Reads: miss 1, miss 2, (write evicts line 0), miss 1, miss 2.
    assert_eq!(run(&mut c, &SCRIPT), (6, 2, 0, 0));
    // The write to sector 1 of the present line 0 is a sector miss.
    assert_eq!(c.stats.sector_misses, 1);
}

#[test]
fn replacement_policies() {
    let mk = |r| {
        let mut c = cfg(WritePolicy::WriteBack, true);
        c.replacement = r;
        SectorCache::new(&c, "t").unwrap()
    };
    // Set 0: A B A C -> LRU evicts B (A hits after), FIFO evicts A (A misses after).
    let s = [
        (0x000, 1, false),
        (0x200, 1, false),
        (0x000, 1, false),
        (0x400, 1, false),
        (0x000, 1, false),
    ];
    assert_eq!(run(&mut mk(Replacement::Lru), &s).3, 2);
    assert_eq!(run(&mut mk(Replacement::Fifo), &s).3, 1);
    // Random is seeded: same seed, same hits.
    let long: Vec<(u64, u8, bool)> = (0..200u64)
        .map(|i| ((i * 7919 % 13) * 0x200, 1, false))
        .collect();
    let a = run(&mut mk(Replacement::Random), &long);
    assert_eq!(a, run(&mut mk(Replacement::Random), &long));
}

#[test]
fn power_of_two_stride_thrashes_linear_and_spreads_under_hashes() {
    // 32 KiB, 4-way, 64 sets; 16 lines 8 KiB apart, read 10 times.
    let mk = |f| {
        let c = CacheConfig {
            size_kb: 32,
            assoc: 4,
            index: f,
            ..CacheConfig::default()
        };
        SectorCache::new(&c, "t").unwrap()
    };
    let mut s = Vec::new();
    for _ in 0..10 {
        for k in 0..16u64 {
            s.push((k * 8192, 1u8, false));
        }
    }
    // Linear: all 16 lines in one 4-way set, LRU over a cyclic stream: never a hit.
    assert_eq!(run(&mut mk(IndexFn::Linear), &s).3, 0);
    // IPOLY: 16 different sets, every reuse hits.
    assert_eq!(run(&mut mk(IndexFn::Ipoly), &s).3, 144);
    // Golden-ratio hash: spread (at most a few collisions, no set over 4 ways here).
    let mut h = mk(IndexFn::Hash);
    let sets: std::collections::BTreeSet<u32> = (0..16u64).map(|k| h.set_of(k * 8192)).collect();
    assert!(sets.len() >= 12, "{sets:?}");
    assert_eq!(run(&mut h, &s).3, 144);
}

#[test]
fn non_power_of_two_sets_and_bad_config() {
    let c = CacheConfig {
        size_kb: 24,
        assoc: 4,
        ..CacheConfig::default()
    }; // 48 sets
    let mut sc = SectorCache::new(&c, "l1d.cache").unwrap();
    assert_eq!(sc.geometry().sets, 48);
    let s: Vec<(u64, u8, bool)> = (0..2)
        .flat_map(|_| (0..192u64).map(|k| (k * 128, 1, false)))
        .collect();
    assert_eq!(run(&mut sc, &s).3, 192);
    let bad = CacheConfig {
        line_bytes: 96,
        ..CacheConfig::default()
    };
    let e = SectorCache::new(&bad, "l1d.cache").unwrap_err().to_string();
    assert!(e.contains("l1d.cache.line_bytes"), "{e}");
}

fn lazy() -> SectorCache {
    let c = CacheConfig {
        lazy_fetch_on_read: true,
        ..cfg(WritePolicy::WriteBack, true)
    };
    SectorCache::new(&c, "t").unwrap()
}

#[test]
fn lazy_fetch_on_read_stores_never_fetch() {
    let mut c = lazy();
    // A store writing sectors 0 and 1 whole and 2 in part: allocated, nothing read.
    let o = c.store(0x000, 0b0111, 0b0011);
    assert_eq!(
        (o.hit, o.tag_present, o.fetch, o.write),
        (true, false, 0, 0)
    );
    assert_eq!((c.stats.hits, c.stats.sector_hits), (1, 3));
    assert_eq!(c.would_fetch_store(0x200, 0b1111), 0);
    // Loads: the whole sectors hit; the partial one is read once, then hits.
    assert_eq!(c.access(0x000, 0b0011, false).fetch, 0);
    let o = c.access(0x000, 0b0100, false);
    assert_eq!((o.hit, o.fetch), (false, 0b0100));
    assert_eq!(c.access(0x000, 0b0100, false).fetch, 0);
    // A load of a sector never written is an ordinary miss.
    assert_eq!(c.access(0x000, 0b1000, false).fetch, 0b1000);
    // A partial store then a whole store of the same sector: valid, no read.
    c.store(0x080, 0b0001, 0);
    c.store(0x080, 0b0001, 0b0001);
    assert_eq!(c.access(0x080, 0b0001, false).fetch, 0);
    // An atomic (access as a write) still reads what it lacks.
    assert_eq!(c.access(0x100, 0b0001, true).fetch, 0b0001);
    // Everything stored is dirty: the flush writes back line 0's three stored sectors, line
    // 0x080's one and the atomic's one.
    let mut seen = Vec::new();
    assert_eq!(c.flush(|a, d| seen.push((a, d))), 5);
    assert_eq!(
        seen,
        vec![(0x000, 0b0111), (0x080, 0b0001), (0x100, 0b0001)]
    );
    // fetch sectors: the partial sector (1), the never-written one (1), the atomic (1).
    assert_eq!(c.stats.fetch_sectors, 3);
}

#[test]
fn lazy_fetch_on_read_evicts_partial_sectors_dirty() {
    let mut c = lazy();
    c.store(0x000, 0b0001, 0); // partial
    c.access(0x200, 1, false);
    let o = c.access(0x400, 1, false); // set 0's LRU victim is line 0
    assert_eq!(
        o.evicted,
        Some(Evicted {
            addr: 0x000,
            dirty: 0b0001
        })
    );
    // Re-stored after eviction: a fresh partial sector, read when loaded.
    c.store(0x000, 0b0001, 0);
    assert_eq!(c.access(0x000, 0b0001, false).fetch, 0b0001);
}

#[test]
fn without_lazy_fetch_a_store_is_a_write_access() {
    // lazy_fetch_on_read off, or on a write-through cache: store == access(write).
    for cfg in [
        cfg(WritePolicy::WriteBack, true),
        CacheConfig {
            lazy_fetch_on_read: true,
            ..cfg(WritePolicy::WriteThrough, false)
        },
    ] {
        let (mut a, mut b) = (
            SectorCache::new(&cfg, "t").unwrap(),
            SectorCache::new(&cfg, "t").unwrap(),
        );
        for &(addr, m, w) in &SCRIPT {
            let (x, y) = if w {
                (a.store(addr, m, 0), b.access(addr, m, true))
            } else {
                (a.access(addr, m, false), b.access(addr, m, false))
            };
            assert_eq!(x, y);
        }
        assert_eq!(a.stats, b.stats);
    }
}

#[test]
fn write_through_allocate_validates_only_whole_sectors() {
    let mut c = SectorCache::new(&cfg(WritePolicy::WriteThrough, true), "t").unwrap();
    // Sector 0 written whole, sector 1 in part: both go to the next level.
    let o = c.store(0x000, 0b0011, 0b0001);
    assert_eq!((o.hit, o.fetch, o.write), (false, 0, 0b0011));
    // A load of sector 0 hits; sector 1 was never fetched, so it misses.
    assert_eq!(c.access(0x000, 0b0001, false).fetch, 0);
    assert_eq!(c.access(0x000, 0b0010, false).fetch, 0b0010);
    // Once loaded, a partial store keeps it valid (the bytes it does not write are there).
    c.store(0x000, 0b0010, 0);
    assert!(c.contains(0x000, 0b0011));
    // Written whole, the result equals the plain write access.
    let mut d = SectorCache::new(&cfg(WritePolicy::WriteThrough, true), "t").unwrap();
    let mut e = d.clone();
    for &(a, m, w) in &SCRIPT {
        let (x, y) = if w {
            (d.store(a, m, m), e.access(a, m, true))
        } else {
            (d.access(a, m, false), e.access(a, m, false))
        };
        assert_eq!(x, y);
    }
    assert_eq!(d.stats, e.stats);
}

#[test]
fn probed_accesses_equal_plain_ones() {
    // The SM's L1 looks a line up once (`probe`) and hands the slot to the `*_at` variants:
    // outcomes and statistics must be those of `access` / `store` under every write policy.
    for (policy, alloc) in [
        (WritePolicy::WriteBack, true),
        (WritePolicy::WriteBack, false),
        (WritePolicy::WriteThrough, true),
        (WritePolicy::WriteThrough, false),
        (WritePolicy::WriteEvict, false),
    ] {
        let mut a = SectorCache::new(&cfg(policy, alloc), "c").unwrap();
        let mut b = a.clone();
        for (k, &(addr, m, w)) in SCRIPT.iter().chain(SCRIPT.iter().rev()).enumerate() {
            let slot = b.probe(b.line_addr(addr));
            assert_eq!(b.would_fetch_at(slot, m, w), a.would_fetch(addr, m, w));
            let (oa, ob) = if k % 3 == 2 && w {
                (a.store(addr, m, m & 1), b.store_at(addr, m, m & 1, slot))
            } else {
                (a.access(addr, m, w), b.access_at(addr, m, w, slot))
            };
            assert_eq!(oa, ob, "{policy:?} alloc {alloc} access {k}");
        }
        assert_eq!(a.stats, b.stats);
    }
}

#[test]
fn sector_count_is_count_ones() {
    for m in 0..=255u8 {
        assert_eq!(sector_count(m), m.count_ones() as u64);
    }
}

/// `fetch_bytes = 64` on 32-B sectors: a read fetches the aligned pair of each sector it
/// lacks, except sectors valid already or written in part (lazy fetch-on-read).
#[test]
fn fetch_bytes_widens_read_misses_to_aligned_blocks() {
    let c = CacheConfig {
        lazy_fetch_on_read: true,
        fetch_bytes: 64,
        ..cfg(WritePolicy::WriteBack, true)
    };
    let mut c = SectorCache::new(&c, "t").unwrap();
    // Sector 0 missing: sectors 0 and 1 come; sector 1 then hits.
    assert_eq!(c.would_fetch(0x000, 0b0001, false), 0b0011);
    assert_eq!(c.access(0x000, 0b0001, false).fetch, 0b0011);
    let o = c.access(0x000, 0b0010, false);
    assert_eq!((o.hit, o.fetch), (true, 0));
    // Sector 2 written in part: a read of sector 3 fetches 3 alone (2 keeps its bytes).
    c.store(0x000, 0b0100, 0);
    assert_eq!(c.access(0x000, 0b1000, false).fetch, 0b1000);
    // Two blocks touched: sectors 1 and 2 of a new line -> all four.
    assert_eq!(c.access(0x080, 0b0110, false).fetch, 0b1111);
    // Writes are unchanged: an atomic reads only what it lacks.
    assert_eq!(c.access(0x100, 0b0001, true).fetch, 0b0001);
    assert_eq!(c.stats.fetch_sectors, 2 + 1 + 4 + 1);
    // fetch_bytes must be a power of two from the sector to the line.
    for bad in ["48", "16", "256"] {
        let set = format!("l2.cache.fetch_bytes={bad}");
        let e = crate::config::load_with_overrides("titanv", &[set.as_str()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("l2.cache.fetch_bytes"), "{bad}: {e}");
    }
}
