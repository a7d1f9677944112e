//! Instruction cache tag array (L0I per sub-core, L1I per SM): set-associative, LRU, with the
//! cycle each line's data arrives so a fetch to a line still in flight waits for that fill
//! (a merged miss) instead of counting as a hit or a second miss.

use crate::config::ICacheConfig;
use crate::Cycle;

/// Result of a probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// Present: data usable from this cycle (the current one, or a fill still in flight).
    Hit(Cycle),
    Miss,
}

#[derive(Clone, Debug)]
pub struct ICache {
    perfect: bool,
    sets: u64,
    assoc: usize,
    line_shift: u32,
    /// `sets * assoc` lines: tag + 1 (0 = invalid).
    tags: Vec<u64>,
    last_use: Vec<u64>,
    fill_at: Vec<Cycle>,
    clock: u64,
    pub latency: u32,
}

impl ICache {
    pub fn new(c: &ICacheConfig) -> Self {
        let line = c.line_bytes.max(4).next_power_of_two();
        let lines = (c.size_kb as u64 * 1024 / line as u64).max(1);
        let assoc = (c.assoc.max(1) as u64).min(lines);
        let sets = (lines / assoc).max(1);
        let n = (sets * assoc) as usize;
        ICache {
            perfect: c.size_kb == 0,
            sets,
            assoc: assoc as usize,
            line_shift: line.trailing_zeros(),
            tags: vec![0; if c.size_kb == 0 { 0 } else { n }],
            last_use: vec![0; if c.size_kb == 0 { 0 } else { n }],
            fill_at: vec![0; if c.size_kb == 0 { 0 } else { n }],
            clock: 0,
            latency: c.latency,
        }
    }

    pub fn is_perfect(&self) -> bool {
        self.perfect
    }

    pub fn line_of(&self, addr: u64) -> u64 {
        addr >> self.line_shift
    }

    pub fn line_bytes(&self) -> u64 {
        1 << self.line_shift
    }

    /// Looks `addr` up, updating LRU on a hit.
    pub fn probe(&mut self, addr: u64, now: Cycle) -> Probe {
        if self.perfect {
            return Probe::Hit(now);
        }
        let line = addr >> self.line_shift;
        let base = (line % self.sets) as usize * self.assoc;
        self.clock += 1;
        for w in base..base + self.assoc {
            if self.tags[w] == line + 1 {
                self.last_use[w] = self.clock;
                return Probe::Hit(self.fill_at[w].max(now));
            }
        }
        Probe::Miss
    }

    /// Whether the line of `addr` is present (or on its way), without touching LRU.
    pub fn contains(&self, addr: u64) -> bool {
        if self.perfect {
            return true;
        }
        let line = addr >> self.line_shift;
        let base = (line % self.sets) as usize * self.assoc;
        self.tags[base..base + self.assoc].contains(&(line + 1))
    }

    /// Allocates the line of `addr` (LRU victim), its data arriving at `at`.
    pub fn fill(&mut self, addr: u64, at: Cycle) {
        if self.perfect {
            return;
        }
        let line = addr >> self.line_shift;
        let base = (line % self.sets) as usize * self.assoc;
        self.clock += 1;
        let mut victim = base;
        for w in base..base + self.assoc {
            if self.tags[w] == line + 1 {
                victim = w;
                break;
            }
            if self.tags[w] == 0 {
                victim = w;
                break;
            }
            if self.last_use[w] < self.last_use[victim] {
                victim = w;
            }
        }
        self.tags[victim] = line + 1;
        self.last_use[victim] = self.clock;
        self.fill_at[victim] = at;
    }

    /// Forgets everything (a new kernel with code at other addresses keeps its lines; this is
    /// for tests and explicit invalidation).
    pub fn invalidate(&mut self) {
        self.tags.iter_mut().for_each(|t| *t = 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_two_way_set() {
        // 1 KiB, 128 B lines, 2-way: 4 sets. Lines 0, 4, 8 all map to set 0.
        let mut c = ICache::new(&ICacheConfig {
            size_kb: 1,
            line_bytes: 128,
            assoc: 2,
            latency: 1,
            mshr: 1,
        });
        let a = |l: u64| l * 128;
        assert_eq!(c.probe(a(0), 0), Probe::Miss);
        c.fill(a(0), 5);
        assert_eq!(
            c.probe(a(0), 1),
            Probe::Hit(5),
            "hit under the fill waits for the data"
        );
        c.fill(a(4), 6);
        assert_eq!(c.probe(a(0), 10), Probe::Hit(10)); // 0 most recent, 4 is LRU
        c.fill(a(8), 11); // evicts 4
        assert_eq!(c.probe(a(4), 12), Probe::Miss);
        assert_eq!(c.probe(a(0), 12), Probe::Hit(12));
        let mut p = ICache::new(&ICacheConfig {
            size_kb: 0,
            ..ICacheConfig::default()
        });
        assert_eq!(p.probe(12345, 7), Probe::Hit(7));
    }
}
