//! The functional hierarchy: per-SM L1D and constant caches, L2 slices addressed like the
//! timing model, DRAM transaction counters. No timing: an access goes all the way down at once,
//! so L1 hits never reach the L2 stream (seed 004 section 4: L1 hits filtered out before the
//! L2 stream is built, unlike PPT-GPU-Mem).

use crate::config::GpuConfig;
use crate::mem::addrmap::AddrMap;
use crate::mem::cache::{sector_count, CacheStats, Evicted, FxMap, Outcome, SectorCache};
use crate::mem::iface::{AccessKind, HitLevel, MemRequest};
use crate::trace::MemSpace;
use crate::Result;

/// Counters kept beside the cache statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PcCounts {
    pub requests: u64,
    pub l1_hits: u64,
    pub l2_hits: u64,
    pub dram: u64,
}

/// Per-PC counters: a table indexed by `pc / 4` for the PCs of ordinary kernels (one index
/// computation per request, no hashing), a map for PCs beyond it.
#[derive(Clone, Debug, Default)]
pub struct PcTable {
    dense: Vec<PcCounts>,
    sparse: FxMap<u32, PcCounts>,
}

/// PCs below `4 * DENSE_PCS` are kept in the table (2 MiB at most).
const DENSE_PCS: usize = 1 << 16;

impl PcTable {
    /// The counters of `pc` (zero when new).
    #[inline]
    pub fn entry(&mut self, pc: u32) -> &mut PcCounts {
        let i = (pc >> 2) as usize;
        if pc & 3 != 0 || i >= DENSE_PCS {
            return self.sparse.entry(pc).or_default();
        }
        if i >= self.dense.len() {
            self.dense.resize(i + 1, PcCounts::default());
        }
        &mut self.dense[i]
    }

    pub fn clear(&mut self) {
        self.dense.clear();
        self.sparse.clear();
    }

    /// Every PC with at least one request, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &PcCounts)> {
        self.dense
            .iter()
            .enumerate()
            .filter(|(_, c)| c.requests > 0)
            .map(|(i, c)| ((i as u32) << 2, c))
            .chain(self.sparse.iter().map(|(&pc, c)| (pc, c)))
    }
}

/// The functional memory hierarchy of a whole GPU.
#[derive(Clone, Debug)]
pub struct FuncMem {
    pub l1: Vec<SectorCache>,
    pub konst: Vec<SectorCache>,
    pub l2: Vec<SectorCache>,
    pub map: AddrMap,
    /// Sectors read from / written to DRAM.
    pub dram_reads: u64,
    pub dram_writes: u64,
    pub global_loads: u64,
    pub global_load_hits: u64,
    pub atomics: u64,
    pub per_pc: PcTable,
}

impl FuncMem {
    /// `l1_bytes`: the L1D capacity (after the carve-out).
    pub fn new(cfg: &GpuConfig, l1_bytes: u64) -> Result<Self> {
        let map = AddrMap::new(&cfg.l2);
        let n = cfg.gpu.num_sms.max(1) as usize;
        let l1 = SectorCache::with_bytes(&cfg.l1d.cache, l1_bytes, "l1d.cache")?;
        let k = SectorCache::new(&cfg.const_cache, "const_cache")?;
        let mut l2 = SectorCache::new(&cfg.l2.cache, "l2.cache")?;
        l2.set_slice_keys(map.interleave / l2.line_bytes().max(1), map.slices() as u64);
        Ok(FuncMem {
            l1: vec![l1; n],
            konst: vec![k; n],
            l2: vec![l2; map.slices() as usize],
            map,
            dram_reads: 0,
            dram_writes: 0,
            global_loads: 0,
            global_load_hits: 0,
            atomics: 0,
            per_pc: PcTable::default(),
        })
    }

    /// Rebuilds the L1s with a new capacity (a new kernel's carve-out): L1s start cold.
    pub fn resize_l1(&mut self, cfg: &GpuConfig, l1_bytes: u64) -> Result<()> {
        let l1 = SectorCache::with_bytes(&cfg.l1d.cache, l1_bytes, "l1d.cache")?;
        for c in &mut self.l1 {
            *c = l1.clone();
        }
        for c in &mut self.konst {
            c.invalidate_all();
        }
        Ok(())
    }

    fn writeback(&mut self, e: Option<Evicted>) {
        if let Some(e) = e {
            self.dram_writes += e.dirty.count_ones() as u64;
        }
    }

    /// One line request to the L2 (read or write); true on a hit.
    pub fn l2_access(&mut self, addr: u64, sectors: u8, write: bool) -> bool {
        let s = self.map.slice(addr) as usize;
        let o = self.l2[s].access(addr, sectors, write);
        self.l2_traffic(o)
    }

    /// Counts what an L2 access asked of DRAM; true on a hit.
    fn l2_traffic(&mut self, o: Outcome) -> bool {
        self.dram_reads += sector_count(o.fetch);
        self.dram_writes += sector_count(o.write);
        self.writeback(o.evicted);
        o.hit
    }

    /// A store of `sectors` (`full` of them written whole) to the L2; true on a hit.
    pub fn l2_store(&mut self, addr: u64, sectors: u8, full: u8) -> bool {
        let s = self.map.slice(addr) as usize;
        let o = self.l2[s].store(addr, sectors, full);
        self.l2_traffic(o)
    }

    fn l1_evicted(&mut self, e: Option<Evicted>) {
        if let Some(e) = e {
            self.l2_store(e.addr, e.dirty, e.dirty);
        }
    }

    /// One coalesced line request from SM `sm`; returns where it was served.
    pub fn access(&mut self, sm: usize, r: &MemRequest) -> HitLevel {
        let MemRequest {
            addr,
            sectors,
            full,
            kind,
            space,
            bypass_l1,
            pc,
            ..
        } = *r;
        let write = kind.is_write();
        let level = if space == MemSpace::Constant {
            let o = self.konst[sm].access(addr, sectors, false);
            if o.hit {
                HitLevel::Constant
            } else if self.l2_access(addr, o.fetch, false) {
                HitLevel::L2
            } else {
                HitLevel::Dram
            }
        } else if bypass_l1 || matches!(kind, AccessKind::Atomic | AccessKind::Reduction) {
            if matches!(kind, AccessKind::Atomic | AccessKind::Reduction) {
                self.atomics += 1;
            }
            let hit = if kind == AccessKind::Store {
                self.l2_store(addr, sectors, full)
            } else {
                self.l2_access(addr, sectors, write)
            };
            if hit {
                HitLevel::L2
            } else {
                HitLevel::Dram
            }
        } else {
            let o = if kind == AccessKind::Store {
                self.l1[sm].store(addr, sectors, full)
            } else {
                self.l1[sm].access(addr, sectors, write)
            };
            if space == MemSpace::Global && kind == AccessKind::Load {
                self.global_loads += 1;
                self.global_load_hits += o.hit as u64;
            }
            self.l1_evicted(o.evicted);
            let mut l2_hit = true;
            if o.fetch != 0 {
                l2_hit &= self.l2_access(addr, o.fetch, false);
            }
            if o.write != 0 {
                l2_hit &= self.l2_store(addr, o.write, o.write & full);
            }
            if o.hit {
                HitLevel::L1
            } else if l2_hit {
                HitLevel::L2
            } else {
                HitLevel::Dram
            }
        };
        let p = self.per_pc.entry(pc);
        p.requests += 1;
        match level {
            HitLevel::L1 | HitLevel::Constant | HitLevel::Shared => p.l1_hits += 1,
            HitLevel::L2 => p.l2_hits += 1,
            HitLevel::Dram => p.dram += 1,
        }
        level
    }

    /// Kernel end: dirty L1 lines (write-back L1s) go to the L2; with `flush_l2` the L2's dirty
    /// sectors are written to DRAM.
    pub fn end_kernel(&mut self, flush_l2: bool) {
        let mut wb = Vec::new();
        for c in &mut self.l1 {
            c.flush(|a, d| wb.push((a, d)));
        }
        for (a, d) in wb {
            self.l2_store(a, d, d);
        }
        if flush_l2 {
            let mut n = 0;
            for c in &mut self.l2 {
                n += c.flush(|_, _| {});
            }
            self.dram_writes += n;
        }
    }

    /// MemcpyHtoD: the copied lines become valid in the L2 (only the last L2-capacity bytes
    /// can survive, so only those are touched). Any 64-bit address.
    pub fn warm(&mut self, addr: u64, bytes: u64) {
        let cap: u64 = self.l2.iter().map(|c| c.capacity_bytes()).sum();
        let lb = self.l2.first().map_or(128, |c| c.line_bytes());
        let end = addr.saturating_add(bytes);
        let start = end.saturating_sub(cap).max(addr) & !(lb - 1);
        let mut a = start;
        while a < end {
            let s = self.map.slice(a) as usize;
            let e = self.l2[s].warm(a);
            self.writeback(e);
            a += lb;
        }
    }

    pub fn l1_stats(&self) -> CacheStats {
        merged(&self.l1)
    }
    pub fn l2_stats(&self) -> CacheStats {
        merged(&self.l2)
    }
    pub fn const_stats(&self) -> CacheStats {
        merged(&self.konst)
    }
}

/// Statistics of many caches merged in index order.
pub fn merged(cs: &[SectorCache]) -> CacheStats {
    let mut s = CacheStats::default();
    for c in cs {
        s.merge(&c.stats);
    }
    s
}
