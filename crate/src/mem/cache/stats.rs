//! Counters of one cache (or of many, merged in a fixed order).

use serde::Serialize;

/// Counters of one sectored cache. Requests are line requests (one line, a sector mask);
/// `*_sectors` count 32 B sectors. "to next" counters are the transactions this cache sends
/// to the level below it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    pub accesses: u64,
    pub hits: u64,
    pub misses: u64,
    /// Misses whose tag was present but a requested sector was not valid.
    pub sector_misses: u64,
    pub reads: u64,
    pub read_hits: u64,
    pub writes: u64,
    pub write_hits: u64,
    pub sectors: u64,
    pub sector_hits: u64,
    /// Sectors read from the next level (fills).
    pub fetch_sectors: u64,
    /// Read requests (lines) sent to the next level.
    pub fetch_requests: u64,
    /// Sectors written to the next level by write-through / no-allocate / write-evict.
    pub write_sectors: u64,
    pub write_requests: u64,
    /// Dirty sectors written back on eviction or flush.
    pub writeback_sectors: u64,
    pub evictions: u64,
    pub mshr_merges: u64,
    pub reservation_fails: u64,
    pub bank_conflicts: u64,
}

impl CacheStats {
    pub fn merge(&mut self, o: &CacheStats) {
        self.accesses += o.accesses;
        self.hits += o.hits;
        self.misses += o.misses;
        self.sector_misses += o.sector_misses;
        self.reads += o.reads;
        self.read_hits += o.read_hits;
        self.writes += o.writes;
        self.write_hits += o.write_hits;
        self.sectors += o.sectors;
        self.sector_hits += o.sector_hits;
        self.fetch_sectors += o.fetch_sectors;
        self.fetch_requests += o.fetch_requests;
        self.write_sectors += o.write_sectors;
        self.write_requests += o.write_requests;
        self.writeback_sectors += o.writeback_sectors;
        self.evictions += o.evictions;
        self.mshr_merges += o.mshr_merges;
        self.reservation_fails += o.reservation_fails;
        self.bank_conflicts += o.bank_conflicts;
    }
    /// Hits / accesses (0 when idle).
    pub fn hit_rate(&self) -> f64 {
        ratio(self.hits, self.accesses)
    }
    pub fn read_hit_rate(&self) -> f64 {
        ratio(self.read_hits, self.reads)
    }
    pub fn write_hit_rate(&self) -> f64 {
        ratio(self.write_hits, self.writes)
    }
}

/// `a / b`, 0 when `b` is 0.
pub fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}
