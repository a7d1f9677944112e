//! One sectored cache, used by the timing model (L1D, L2 slices, constant cache) and by the
//! functional memory mode (seed 004 section 4.1, Figure 6).
//!
//! ```text
//!  addr ─> line number ─> key (slice-local) ─> set index (linear | ipoly | hash)
//!                     └─> lookup map line -> slot          (O(1), seed 004 Figure 6)
//!  set: a doubly linked list of its ways, most recent at the head, invalid ways at the tail
//!       LRU: move to head on hit and fill    FIFO: move to head on fill only
//!       random (seeded): an invalid way if any, else a random way
//!  slot: tag | valid sector mask | dirty sector mask
//! ```
//! The tag array is updated when an access is made (the fill is assumed); the timing wrappers
//! keep the in-flight state in their MSHRs, so functional and timing modes see the same hits
//! when the access order is the same.
//!
//! Write policies (seed 004 section 3.3 and Figure 4, the write-back state machine):
//! - write-back + write-allocate: read miss fetches the sectors; write miss fetches the missing
//!   sectors (read first, then partial update), marks them dirty; evicting a line writes its
//!   dirty sectors back.
//! - write-back, no allocate: write hits mark dirty, write misses go to the next level.
//! - write-through (+/- allocate): every write goes to the next level; with allocate a write
//!   miss allocates the written sectors as valid (no fetch).
//! - write-evict: a write hit invalidates the line; the write goes to the next level.
//! - lazy fetch-on-read (write-back + allocate, `lazy_fetch_on_read`; Accel-Sim's `L`, the
//!   write-validate of Volta and later L2s that seed 004 section 3.3 cites from Khairy et al.
//!   but does not model): a store ([`SectorCache::store`]) allocates its sectors without
//!   reading them. Sectors it writes whole become valid and dirty; sectors written in part
//!   become dirty and *partial*, and the first load that needs one reads it from the next
//!   level (then it is valid). Such a store counts as a hit: it needs no data (as Nsight
//!   Compute's L2 hit rate counts them). Atomics still fetch (they read the data). Real byte masks are
//!   kept at sector granularity: a sector written in part by two stores that together cover it
//!   stays partial (one extra read when a load needs it).
//! - stores on a write-through, write-allocate cache ([`SectorCache::store`]; the L1s) make
//!   only the sectors they write whole valid: a sector written in part is read from the next
//!   level by the first load that needs it (Accel-Sim's V100 L1 is `L` too).
//! - fetch granularity (`fetch_bytes`, 0 = off): a read miss fetches every sector of each
//!   aligned `fetch_bytes` block its missing sectors touch, except sectors valid already or
//!   written in part; the extra sectors become valid with the rest. sm_80+ L2s fetch 64 B from
//!   DRAM for a lone 32-B sector miss (measured on the H100: tests/hardware/README.md).

pub mod fx;
pub mod index;
pub mod lineidx;
pub mod mshr;
pub mod stats;
#[cfg(test)]
mod tests;

use crate::config::{CacheConfig, IndexFn, Replacement, WritePolicy};
use crate::{Error, Result};
pub use fx::{FxHasher, FxMap};
pub use index::set_index;
pub use lineidx::LineIndex;
pub use mshr::Mshr;
pub use stats::{ratio, CacheStats};

const NIL: u32 = u32::MAX;

/// Set bits of every byte (sector masks are counted per access; a table is cheaper than the
/// bit-twiddling `count_ones` compiles to without a `popcnt` target feature).
const POP8: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).count_ones() as u8;
        i += 1;
    }
    t
};

/// Sectors in a sector mask.
#[inline]
pub fn sector_count(mask: u8) -> u64 {
    POP8[mask as usize] as u64
}
const INVALID: u64 = u64::MAX;

/// A dirty line leaving the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Evicted {
    pub addr: u64,
    pub dirty: u8,
}

/// What one access did, and what it asks of the next level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Every requested sector was valid.
    pub hit: bool,
    pub tag_present: bool,
    /// Sectors to read from the next level.
    pub fetch: u8,
    /// Sectors written to the next level (write-through, no-allocate miss, write-evict).
    pub write: u8,
    /// A line with dirty sectors was evicted (or a write-evicted line was dirty).
    pub evicted: Option<Evicted>,
    /// The way slot (`set * assoc + way`) the access used, [`NO_SLOT`] when it used none (no
    /// cache, or a write miss that does not allocate). Read by the timeline recorder.
    pub slot: u32,
}

/// `Outcome::slot` of an access that used no way.
pub const NO_SLOT: u32 = u32::MAX;

/// One way of a cache as the timeline recorder copies it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WayState {
    /// Line address held (`None`: invalid).
    pub line: Option<u64>,
    pub valid: u8,
    pub dirty: u8,
}

/// Cache geometry derived from a [`CacheConfig`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub sets: u32,
    pub assoc: u32,
    pub line_bytes: u32,
    pub sector_bytes: u32,
}

impl Geometry {
    /// Checks a cache config of `bytes` capacity; `key` names it in errors (e.g. `l2.cache`).
    pub fn new(c: &CacheConfig, bytes: u64, key: &str) -> Result<Geometry> {
        let pow2 = |v: u32| v != 0 && v.is_power_of_two();
        if !pow2(c.line_bytes) {
            return Err(Error::config(
                format!("{key}.line_bytes"),
                "expected a power of two",
            ));
        }
        if !pow2(c.sector_bytes)
            || c.sector_bytes > c.line_bytes
            || c.line_bytes / c.sector_bytes > 8
        {
            return Err(Error::config(
                format!("{key}.sector_bytes"),
                "expected a power of two dividing line_bytes into at most 8 sectors",
            ));
        }
        if c.assoc == 0 {
            return Err(Error::config(
                format!("{key}.assoc"),
                "expected at least 1 way",
            ));
        }
        let sets = bytes / (c.line_bytes as u64 * c.assoc as u64);
        if bytes > 0 && sets == 0 {
            return Err(Error::config(
                format!("{key}.size_kb"),
                "smaller than one set (line_bytes * assoc)",
            ));
        }
        if sets > u32::MAX as u64 / c.assoc as u64 {
            return Err(Error::config(format!("{key}.size_kb"), "too large"));
        }
        Ok(Geometry {
            sets: sets as u32,
            assoc: c.assoc,
            line_bytes: c.line_bytes,
            sector_bytes: c.sector_bytes,
        })
    }
    pub fn sectors_per_line(&self) -> u32 {
        self.line_bytes / self.sector_bytes
    }
}

/// A set-associative sectored cache with per-sector valid and dirty bits.
#[derive(Clone, Debug)]
pub struct SectorCache {
    g: Geometry,
    line_shift: u32,
    index: IndexFn,
    repl: Replacement,
    policy: WritePolicy,
    write_allocate: bool,
    /// Stores do not fetch (see the module docs).
    lazy: bool,
    /// Sectors per read fetch block (`fetch_bytes / sector_bytes`; 1 = the missing ones).
    fetch_group: u8,
    /// Slice-local keys: lines `key_il` at a time are interleaved over `key_stride` slices.
    key_il: u64,
    key_stride: u64,
    tag: Vec<u64>,
    valid: Vec<u8>,
    dirty: Vec<u8>,
    /// Sectors written in part under lazy fetch-on-read (dirty, not readable).
    partial: Vec<u8>,
    prev: Vec<u32>,
    next: Vec<u32>,
    head: Vec<u32>,
    tail: Vec<u32>,
    /// Line address -> slot of every valid line.
    map: LineIndex,
    rng: u64,
    pub stats: CacheStats,
}

impl SectorCache {
    /// A cache of `cfg.size_kb` KiB.
    pub fn new(cfg: &CacheConfig, key: &str) -> Result<Self> {
        Self::with_bytes(cfg, cfg.size_kb as u64 * 1024, key)
    }

    /// A cache of `bytes` capacity (0: no cache, every access misses and nothing is kept).
    pub fn with_bytes(cfg: &CacheConfig, bytes: u64, key: &str) -> Result<Self> {
        let g = Geometry::new(cfg, bytes, key)?;
        let n = (g.sets * g.assoc) as usize;
        let mut c = SectorCache {
            g,
            line_shift: cfg.line_bytes.trailing_zeros(),
            index: cfg.index,
            repl: cfg.replacement,
            policy: cfg.write_policy,
            write_allocate: cfg.write_allocate,
            lazy: cfg.lazy_fetch_on_read
                && cfg.write_allocate
                && cfg.write_policy == WritePolicy::WriteBack,
            fetch_group: (cfg.fetch_bytes / cfg.sector_bytes.max(1)).clamp(1, 8) as u8,
            key_il: 1,
            key_stride: 1,
            tag: vec![INVALID; n],
            valid: vec![0; n],
            dirty: vec![0; n],
            partial: vec![0; n],
            prev: vec![NIL; n],
            next: vec![NIL; n],
            head: vec![NIL; g.sets as usize],
            tail: vec![NIL; g.sets as usize],
            map: LineIndex::new(n),
            rng: cfg.seed | 1,
            stats: CacheStats::default(),
        };
        c.reset_lists();
        Ok(c)
    }

    /// Index with slice-local keys: lines come `interleave_lines` at a time, one slice in
    /// `stride`, so the set index uses the line's position within its slice.
    pub fn set_slice_keys(&mut self, interleave_lines: u64, stride: u64) {
        self.key_il = interleave_lines.max(1);
        self.key_stride = stride.max(1);
    }

    fn reset_lists(&mut self) {
        let a = self.g.assoc;
        for s in 0..self.g.sets {
            let base = s * a;
            for w in 0..a {
                let i = (base + w) as usize;
                self.prev[i] = if w == 0 { NIL } else { base + w - 1 };
                self.next[i] = if w + 1 == a { NIL } else { base + w + 1 };
            }
            self.head[s as usize] = base;
            self.tail[s as usize] = base + a - 1;
        }
    }

    pub fn geometry(&self) -> Geometry {
        self.g
    }
    pub fn line_bytes(&self) -> u64 {
        self.g.line_bytes as u64
    }
    pub fn capacity_bytes(&self) -> u64 {
        self.g.sets as u64 * self.g.assoc as u64 * self.g.line_bytes as u64
    }
    /// Line-aligned address.
    #[inline]
    pub fn line_addr(&self, addr: u64) -> u64 {
        addr & !(self.g.line_bytes as u64 - 1)
    }

    /// Set of a line address.
    #[inline]
    pub fn set_of(&self, addr: u64) -> u32 {
        let n = addr >> self.line_shift;
        let key = if self.key_stride > 1 {
            (n / self.key_il / self.key_stride) * self.key_il + n % self.key_il
        } else {
            n
        };
        set_index(self.index, key, self.g.sets)
    }

    #[inline]
    fn lookup(&self, line: u64) -> Option<u32> {
        if self.g.sets == 0 {
            return None;
        }
        self.map.get(line)
    }

    fn unlink(&mut self, set: usize, i: u32) {
        let (p, n) = (self.prev[i as usize], self.next[i as usize]);
        if p == NIL {
            self.head[set] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail[set] = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    fn push_head(&mut self, set: usize, i: u32) {
        let h = self.head[set];
        self.prev[i as usize] = NIL;
        self.next[i as usize] = h;
        if h == NIL {
            self.tail[set] = i;
        } else {
            self.prev[h as usize] = i;
        }
        self.head[set] = i;
    }

    fn push_tail(&mut self, set: usize, i: u32) {
        let t = self.tail[set];
        self.next[i as usize] = NIL;
        self.prev[i as usize] = t;
        if t == NIL {
            self.head[set] = i;
        } else {
            self.next[t as usize] = i;
        }
        self.tail[set] = i;
    }

    #[inline]
    fn touch(&mut self, set: usize, i: u32) {
        if self.repl == Replacement::Lru && self.head[set] != i {
            self.unlink(set, i);
            self.push_head(set, i);
        }
    }

    fn next_rand(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Allocates a way for `line` in its set, evicting the victim; returns the slot.
    fn allocate(&mut self, line: u64, set: u32) -> (u32, Option<Evicted>) {
        let s = set as usize;
        let t = self.tail[s];
        let victim = if self.tag[t as usize] == INVALID || self.repl != Replacement::Random {
            t
        } else {
            set * self.g.assoc + (self.next_rand() % self.g.assoc as u64) as u32
        };
        let v = victim as usize;
        let mut ev = None;
        if self.tag[v] != INVALID {
            self.stats.evictions += 1;
            self.map.remove(self.tag[v]);
            if self.dirty[v] != 0 {
                ev = Some(Evicted {
                    addr: self.tag[v],
                    dirty: self.dirty[v],
                });
                self.stats.writeback_sectors += sector_count(self.dirty[v]);
            }
        }
        self.tag[v] = line;
        self.valid[v] = 0;
        self.dirty[v] = 0;
        self.partial[v] = 0;
        self.map.insert(line, victim);
        self.unlink(s, victim);
        self.push_head(s, victim);
        (victim, ev)
    }

    /// The slot of `line` in `set`: touched when present (`slot`), else allocated, its victim
    /// and slot recorded in `o`.
    fn touch_or_allocate(
        &mut self,
        line: u64,
        set: u32,
        slot: Option<u32>,
        o: &mut Outcome,
    ) -> u32 {
        match slot {
            Some(i) => {
                self.touch(set as usize, i);
                i
            }
            None => {
                let (i, ev) = self.allocate(line, set);
                o.evicted = ev;
                o.slot = i;
                i
            }
        }
    }

    fn invalidate_slot(&mut self, i: u32) {
        let set = (i / self.g.assoc) as usize;
        self.map.remove(self.tag[i as usize]);
        self.tag[i as usize] = INVALID;
        self.valid[i as usize] = 0;
        self.dirty[i as usize] = 0;
        self.partial[i as usize] = 0;
        self.unlink(set, i);
        self.push_tail(set, i);
    }

    /// The sectors an access would fetch from the next level, without changing anything (for
    /// the timing wrappers' MSHR reservation check).
    pub fn would_fetch(&self, addr: u64, sectors: u8, write: bool) -> u8 {
        self.would_fetch_at(self.lookup(self.line_addr(addr)), sectors, write)
    }

    /// The way slot holding the line at line address `line` (`None`: not present), for the
    /// `*_at` variants that take it instead of looking it up again.
    #[inline]
    pub fn probe(&self, line: u64) -> Option<u32> {
        self.lookup(line)
    }

    /// [`Self::would_fetch`] of a line whose slot [`Self::probe`] found.
    #[inline]
    pub fn would_fetch_at(&self, slot: Option<u32>, sectors: u8, write: bool) -> u8 {
        let valid = slot.map_or(0, |i| self.valid[i as usize]);
        let missing = sectors & !valid;
        if !write {
            return if self.g.sets == 0 {
                sectors
            } else {
                let partial = slot.map_or(0, |i| self.partial[i as usize]);
                self.read_fetch(missing, valid, partial)
            };
        }
        if self.policy == WritePolicy::WriteBack && self.write_allocate && self.g.sets > 0 {
            missing
        } else {
            0
        }
    }

    /// [`Self::would_fetch`] for a [`Self::store`]: nothing under lazy fetch-on-read.
    pub fn would_fetch_store(&self, addr: u64, sectors: u8) -> u8 {
        self.would_fetch_store_at(self.lookup(self.line_addr(addr)), sectors)
    }

    /// [`Self::would_fetch_store`] of a line whose slot [`Self::probe`] found.
    #[inline]
    pub fn would_fetch_store_at(&self, slot: Option<u32>, sectors: u8) -> u8 {
        if self.lazy && self.g.sets > 0 {
            0
        } else {
            self.would_fetch_at(slot, sectors, true)
        }
    }

    /// A store of `sectors` of the line at `addr`, of which `full` are written whole. Under
    /// lazy fetch-on-read a miss allocates without fetching (see the module docs). A
    /// write-through, write-allocate cache makes only the sectors written whole readable (a
    /// load of the rest of a sector written in part must not hit bytes never fetched).
    /// Otherwise the same as `access(addr, sectors, true)`.
    pub fn store(&mut self, addr: u64, sectors: u8, full: u8) -> Outcome {
        self.store_at(addr, sectors, full, self.lookup(self.line_addr(addr)))
    }

    /// [`Self::store`] with the line's slot from [`Self::probe`] (the cache unchanged since).
    pub fn store_at(&mut self, addr: u64, sectors: u8, full: u8, slot: Option<u32>) -> Outcome {
        if self.g.sets > 0 && self.policy == WritePolicy::WriteThrough && self.write_allocate {
            return self.store_through(addr, sectors, full, slot);
        }
        if !self.lazy || self.g.sets == 0 {
            return self.access_at(addr, sectors, true, slot);
        }
        let line = self.line_addr(addr);
        // It needs no data, so it never misses (Nsight Compute reports such stores as L2
        // hits); only `tag_present` says whether the line was there.
        let mut o = Outcome {
            hit: true,
            tag_present: slot.is_some(),
            slot: slot.unwrap_or(NO_SLOT),
            ..Outcome::default()
        };
        self.count(o, sectors, sectors, true);
        let set = self.set_of(line);
        let i = self.touch_or_allocate(line, set, slot, &mut o) as usize;
        let whole = sectors & full;
        self.valid[i] |= whole;
        self.partial[i] = (self.partial[i] & !whole) | (sectors & !full & !self.valid[i]);
        self.dirty[i] |= sectors;
        self.account(o)
    }

    /// [`Self::store`] on a write-through, write-allocate cache: every sector goes to the next
    /// level; the line is allocated or touched; only the whole sectors become valid.
    fn store_through(&mut self, addr: u64, sectors: u8, full: u8, slot: Option<u32>) -> Outcome {
        let line = self.line_addr(addr);
        let valid = slot.map_or(0, |i| self.valid[i as usize]);
        let mut o = Outcome {
            hit: slot.is_some() && sectors & !valid == 0,
            tag_present: slot.is_some(),
            slot: slot.unwrap_or(NO_SLOT),
            write: sectors,
            ..Outcome::default()
        };
        self.count(o, sectors, valid, true);
        let set = self.set_of(line);
        let i = self.touch_or_allocate(line, set, slot, &mut o);
        self.valid[i as usize] |= sectors & full;
        self.account(o)
    }

    /// True when every sector of `sectors` is valid in `addr`'s line.
    pub fn contains(&self, addr: u64, sectors: u8) -> bool {
        self.lookup(self.line_addr(addr))
            .is_some_and(|i| self.valid[i as usize] & sectors == sectors)
    }

    /// One line request: `sectors` of the line at `addr`, a read or a write.
    pub fn access(&mut self, addr: u64, sectors: u8, write: bool) -> Outcome {
        self.access_at(addr, sectors, write, self.lookup(self.line_addr(addr)))
    }

    /// [`Self::access`] with the line's slot from [`Self::probe`] (the cache unchanged since).
    pub fn access_at(&mut self, addr: u64, sectors: u8, write: bool, slot: Option<u32>) -> Outcome {
        if write
            && self.g.sets > 0
            && self.policy == WritePolicy::WriteThrough
            && self.write_allocate
        {
            return self.store_through(addr, sectors, sectors, slot);
        }
        let line = self.line_addr(addr);
        let valid = slot.map_or(0, |i| self.valid[i as usize]);
        let missing = sectors & !valid;
        let mut o = Outcome {
            hit: slot.is_some() && missing == 0,
            tag_present: slot.is_some(),
            slot: slot.unwrap_or(NO_SLOT),
            ..Outcome::default()
        };
        self.count(o, sectors, valid, write);
        if self.g.sets == 0 {
            if write {
                o.write = sectors;
            } else {
                o.fetch = sectors;
            }
            return self.account(o);
        }
        let set = self.set_of(line);
        if !write {
            let partial = slot.map_or(0, |i| self.partial[i as usize]);
            o.fetch = self.read_fetch(missing, valid, partial);
            let i = self.touch_or_allocate(line, set, slot, &mut o);
            self.valid[i as usize] |= sectors | o.fetch;
            self.partial[i as usize] &= !sectors;
            return self.account(o);
        }
        match self.policy {
            WritePolicy::WriteBack => {
                let i = (slot.is_some() || self.write_allocate)
                    .then(|| self.touch_or_allocate(line, set, slot, &mut o));
                match i {
                    Some(i) if self.write_allocate => {
                        o.fetch = missing;
                        self.valid[i as usize] |= sectors;
                        self.partial[i as usize] &= !sectors;
                        self.dirty[i as usize] |= sectors;
                    }
                    Some(i) => {
                        self.dirty[i as usize] |= sectors & valid;
                        o.write = missing;
                    }
                    None => o.write = sectors,
                }
            }
            WritePolicy::WriteThrough => {
                // No allocate (allocating writes went to `store_through` above).
                o.write = sectors;
                if let Some(i) = slot {
                    self.touch(set as usize, i);
                }
            }
            WritePolicy::WriteEvict => {
                o.write = sectors;
                if let Some(i) = slot {
                    let d = self.dirty[i as usize];
                    if d != 0 {
                        o.evicted = Some(Evicted {
                            addr: line,
                            dirty: d,
                        });
                        self.stats.writeback_sectors += sector_count(d);
                    }
                    self.invalidate_slot(i);
                }
            }
        }
        self.account(o)
    }

    /// The sectors a read missing `missing` fetches: those, and with `fetch_bytes` the rest of
    /// each aligned block they touch that is neither valid nor written in part.
    #[inline]
    fn read_fetch(&self, missing: u8, valid: u8, partial: u8) -> u8 {
        let g = self.fetch_group as u32;
        if g <= 1 || missing == 0 {
            return missing;
        }
        let block = ((1u32 << g) - 1) as u8;
        let mut wide = 0u8;
        let mut s = 0;
        while s < 8 {
            if missing & (block << s) != 0 {
                wide |= block << s;
            }
            s += g;
        }
        missing | (wide & !valid & !partial)
    }

    /// Counts one access (hits, sectors, reads or writes).
    #[inline]
    fn count(&mut self, o: Outcome, sectors: u8, valid: u8, write: bool) {
        let st = &mut self.stats;
        st.accesses += 1;
        st.sectors += sector_count(sectors);
        st.sector_hits += sector_count(sectors & valid);
        if o.hit {
            st.hits += 1;
        } else {
            st.misses += 1;
            if o.tag_present {
                st.sector_misses += 1;
            }
        }
        if write {
            st.writes += 1;
            st.write_hits += o.hit as u64;
        } else {
            st.reads += 1;
            st.read_hits += o.hit as u64;
        }
    }

    #[inline]
    fn account(&mut self, o: Outcome) -> Outcome {
        if o.fetch != 0 {
            self.stats.fetch_requests += 1;
            self.stats.fetch_sectors += sector_count(o.fetch);
        }
        if o.write != 0 {
            self.stats.write_requests += 1;
            self.stats.write_sectors += sector_count(o.write);
        }
        o
    }

    /// Fills a whole line as valid and clean without counting an access (L2 warm-up from
    /// MemcpyHtoD). Returns a dirty victim, if any.
    pub fn warm(&mut self, addr: u64) -> Option<Evicted> {
        if self.g.sets == 0 {
            return None;
        }
        let line = self.line_addr(addr);
        let full = ((1u32 << self.g.sectors_per_line()) - 1) as u8;
        let set = self.set_of(line);
        match self.lookup(line) {
            Some(i) => {
                self.valid[i as usize] = full;
                self.partial[i as usize] = 0;
                self.touch(set as usize, i);
                None
            }
            None => {
                let (i, ev) = self.allocate(line, set);
                self.valid[i as usize] = full;
                ev
            }
        }
    }

    /// Writes back every dirty sector (kernel-end flush): calls `f(line_addr, dirty_mask)` in
    /// slot order and leaves the lines valid and clean. Returns the sectors written back.
    pub fn flush(&mut self, mut f: impl FnMut(u64, u8)) -> u64 {
        let mut n = 0;
        for i in 0..self.tag.len() {
            if self.dirty[i] != 0 {
                f(self.tag[i], self.dirty[i]);
                n += self.dirty[i].count_ones() as u64;
                self.dirty[i] = 0;
            }
        }
        self.stats.writeback_sectors += n;
        n
    }

    /// Way slot `i` (`set * assoc + way`), for the timeline recorder.
    pub fn way_state(&self, i: u32) -> WayState {
        let i = i as usize;
        match self.tag.get(i) {
            Some(&t) if t != INVALID => WayState {
                line: Some(t),
                valid: self.valid[i],
                dirty: self.dirty[i],
            },
            _ => WayState::default(),
        }
    }

    /// Drops every line (dirty data is discarded: flush first if it matters).
    pub fn invalidate_all(&mut self) {
        self.tag.fill(INVALID);
        self.valid.fill(0);
        self.dirty.fill(0);
        self.partial.fill(0);
        self.map.clear();
        self.reset_lists();
    }
}
