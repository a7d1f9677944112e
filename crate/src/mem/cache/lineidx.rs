//! An index from line addresses to small slot numbers for the caches' tag arrays and the
//! MSHRs: open addressing with linear probing over twice as many buckets as entries (a power
//! of two), Fibonacci hashing, backward-shift deletion. No allocation after `new`, no hasher
//! state, a handful of instructions per lookup (the std `HashMap` it replaces cost ~30 per
//! lookup and ~40 per insert or remove on the L2's miss path).
//!
//! ```text
//!  line ──x GOLDEN, high bits──> home bucket ──probe +1──> (line, slot) | EMPTY
//!  remove: pull later entries of the run back into the hole unless their home lies between
//! ```

/// A free bucket.
const EMPTY: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct LineIndex {
    /// `mask + 1` buckets: (line, slot); slot `EMPTY` marks a free bucket.
    b: Vec<(u64, u32)>,
    mask: usize,
    len: usize,
}

#[inline]
fn home(line: u64, mask: usize) -> usize {
    // Line addresses are multiples of the line size: mix the high bits down.
    (line.wrapping_mul(crate::mem::cache::index::GOLDEN) >> 32) as usize & mask
}

/// Empties bucket `i` of a linear-probing table of `(key, value)` with `EMPTY` values in its
/// free buckets (a power of two of them), by backward shifts: the later entries of its run move
/// back into the hole unless their home bucket lies cyclically in (hole, their bucket]. Shared
/// by [`LineIndex`] and the reuse profiles' map (`mem::reuse_map`).
pub(crate) fn remove_at(b: &mut [(u64, u32)], i: usize, home: impl Fn(u64) -> usize) {
    let m = b.len() - 1;
    let mut hole = i;
    let mut j = i;
    loop {
        j = (j + 1) & m;
        let (l, s) = b[j];
        if s == EMPTY {
            break;
        }
        let h = home(l);
        let stays = if hole <= j {
            hole < h && h <= j
        } else {
            hole < h || h <= j
        };
        if !stays {
            b[hole] = b[j];
            hole = j;
        }
    }
    b[hole] = (0, EMPTY);
}

impl LineIndex {
    /// An index for at most `n` entries.
    pub fn new(n: usize) -> Self {
        let buckets = (2 * n.max(1)).next_power_of_two();
        LineIndex {
            b: vec![(0, EMPTY); buckets],
            mask: buckets - 1,
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, line: u64) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let mut i = home(line, self.mask);
        loop {
            let (l, s) = self.b[i];
            if s == EMPTY {
                return None;
            }
            if l == line {
                return Some(s);
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Adds `line` (not present) with `slot`.
    #[inline]
    pub fn insert(&mut self, line: u64, slot: u32) {
        debug_assert!(self.len < self.mask && slot != EMPTY);
        let mut i = home(line, self.mask);
        while self.b[i].1 != EMPTY {
            i = (i + 1) & self.mask;
        }
        self.b[i] = (line, slot);
        self.len += 1;
    }

    /// Removes `line` if present.
    pub fn remove(&mut self, line: u64) {
        let m = self.mask;
        let mut i = home(line, m);
        loop {
            let (l, s) = self.b[i];
            if s == EMPTY {
                return;
            }
            if l == line {
                break;
            }
            i = (i + 1) & m;
        }
        self.len -= 1;
        remove_at(&mut self.b, i, |l| home(l, m));
    }

    pub fn clear(&mut self) {
        if self.len > 0 {
            self.b.fill((0, EMPTY));
            self.len = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a `HashMap` under a seeded mix of inserts and removes of colliding lines (128 B
    /// apart and 2^k apart), filled to capacity.
    #[test]
    fn agrees_with_a_hash_map() {
        let mut ix = LineIndex::new(24);
        let mut model = std::collections::HashMap::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for step in 0..30_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let line = ((x >> 8) % 60) * if x & 1 == 0 { 128 } else { 1 << 20 };
            assert_eq!(ix.get(line), model.get(&line).copied(), "step {step}");
            if model.contains_key(&line) {
                if x & 6 != 0 {
                    ix.remove(line);
                    model.remove(&line);
                }
            } else if model.len() < 24 {
                ix.insert(line, step);
                model.insert(line, step);
            }
            assert_eq!(ix.len(), model.len());
        }
        ix.clear();
        assert!(ix.is_empty() && ix.get(0).is_none());
    }
}
