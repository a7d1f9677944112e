//! The reuse profiles' map from a line to the time position it was last used at
//! ([`super::reuse::ReuseProfile`]): open addressing with linear probing, Fibonacci hashing
//! (high bits), backward-shift deletion, doubling at 3/4 full. A `HashMap<u64, u32>` cost
//! ~10% of the `memory` mode's time in the wasm build (hashing a u64 in 32-bit halves,
//! probing groups without SIMD, rehashing as it grew); this is a multiply and a probe or two.
//!
//! ```text
//!  key ──x GOLDEN, top bits──> home bucket ──probe +1──> (key, value) | EMPTY
//! ```

use crate::mem::cache::index::GOLDEN;
use crate::mem::cache::lineidx::remove_at;

/// A free bucket's value.
const EMPTY: u32 = u32::MAX;

/// The home bucket of `key` in a table of `2^(64 - shift)` buckets.
#[inline]
fn home(key: u64, shift: u32) -> usize {
    (key.wrapping_mul(GOLDEN) >> shift) as usize
}

#[derive(Clone, Debug, Default)]
pub struct KeyMap {
    /// A power of two of buckets (or none before the first insert).
    b: Vec<(u64, u32)>,
    /// 64 - log2(buckets).
    shift: u32,
    len: usize,
}

impl KeyMap {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        home(key, self.shift)
    }

    /// Sets `key`'s value (not `EMPTY`); returns the one it had.
    #[inline]
    pub fn insert(&mut self, key: u64, v: u32) -> Option<u32> {
        debug_assert!(v != EMPTY);
        if (self.len + 1) * 4 > self.b.len() * 3 {
            self.grow();
        }
        let m = self.b.len() - 1;
        let mut i = self.home(key);
        loop {
            let e = &mut self.b[i];
            if e.1 == EMPTY {
                *e = (key, v);
                self.len += 1;
                return None;
            }
            if e.0 == key {
                return Some(std::mem::replace(&mut e.1, v));
            }
            i = (i + 1) & m;
        }
    }

    fn grow(&mut self) {
        let n = (self.b.len() * 2).max(1024);
        let old = std::mem::replace(&mut self.b, vec![(0, EMPTY); n]);
        self.shift = 64 - n.trailing_zeros();
        let m = n - 1;
        for (k, v) in old {
            if v != EMPTY {
                let mut i = self.home(k);
                while self.b[i].1 != EMPTY {
                    i = (i + 1) & m;
                }
                self.b[i] = (k, v);
            }
        }
    }

    /// Removes `key` if present.
    pub fn remove(&mut self, key: u64) {
        if self.len == 0 {
            return;
        }
        let m = self.b.len() - 1;
        let mut i = self.home(key);
        loop {
            let (k, v) = self.b[i];
            if v == EMPTY {
                return;
            }
            if k == key {
                break;
            }
            i = (i + 1) & m;
        }
        self.len -= 1;
        let shift = self.shift;
        remove_at(&mut self.b, i, |k| home(k, shift));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Against a `HashMap` under a seeded mix of inserts, updates and removes of near and
    /// colliding keys, through several doublings.
    #[test]
    fn agrees_with_a_hash_map() {
        let (mut m, mut h) = (KeyMap::default(), HashMap::new());
        let mut x = 0x1234_5678_9abc_def1u64;
        for t in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = match x % 3 {
                0 => x >> 40 & 0xfff,
                1 => (x >> 20 & 0xff) << 32,
                _ => x >> 11 & 0xf_ffff,
            };
            if x >> 60 < 5 {
                m.remove(key);
                h.remove(&key);
            } else {
                assert_eq!(m.insert(key, t), h.insert(key, t), "key {key:#x}");
            }
            assert_eq!(m.len(), h.len());
        }
        for (&k, &v) in &h {
            assert_eq!(m.insert(k, v), Some(v));
        }
    }
}
