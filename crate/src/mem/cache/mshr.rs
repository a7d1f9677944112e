//! Miss status holding registers: one entry per line in flight, with the sectors still pending
//! and the requests waiting for them (at most `merge` per entry). Entries and waiter lists are
//! allocated once; a full table or a full entry is a reservation failure (back-pressure).
//!
//! ```text
//!  line ──LineIndex──> (open addressing, linear probing, 2x entries, power of two)
//!                   └─> entry slot ──> {pending sectors, waiters}      free slots: a stack
//! ```
//! Lookups are O(1) (the L2's 192-256 entries were scanned linearly per request before).

use super::LineIndex;

/// Why a miss could not be reserved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MshrFail {
    /// No free entry for a new line.
    Full,
    /// The line's entry already holds `merge` requests.
    MergeLimit,
}

#[derive(Clone, Debug)]
struct Entry<W> {
    line: u64,
    pending: u8,
    waiters: Vec<W>,
    busy: bool,
}

/// An MSHR table whose waiters are `W` (a response to send when the line is filled).
#[derive(Clone, Debug)]
pub struct Mshr<W> {
    entries: Vec<Entry<W>>,
    merge: usize,
    used: usize,
    /// Line -> entry slot of the busy entries.
    index: LineIndex,
    /// Free entry slots (a stack).
    free: Vec<u32>,
}

impl<W: Copy> Mshr<W> {
    pub fn new(entries: u32, merge: u32) -> Self {
        let merge = merge.max(1) as usize;
        // Waiter lists start empty and keep what they grew to (clear and drain keep capacity):
        // memory follows the merges that happen, not entries x merge (an h100 SM's L1 has 512
        // x 64: 120 MB over 132 SMs when reserved up front); the free stack hands the same few
        // slots out again, so growth stops after the first busy cycles.
        let e = (0..entries.max(1))
            .map(|_| Entry {
                line: 0,
                pending: 0,
                waiters: Vec::new(),
                busy: false,
            })
            .collect();
        let n = entries.max(1) as usize;
        Mshr {
            entries: e,
            merge,
            used: 0,
            index: LineIndex::new(n),
            free: (0..n as u32).rev().collect(),
        }
    }

    #[inline]
    fn find(&self, line: u64) -> Option<usize> {
        self.index.get(line).map(|i| i as usize)
    }

    /// Sectors of `line` still in flight (0 when none).
    pub fn pending(&self, line: u64) -> u8 {
        self.find(line).map_or(0, |i| self.entries[i].pending)
    }

    pub fn in_use(&self) -> usize {
        self.used
    }
    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// Could `line` take one more waiter (`waiter`) or a new entry?
    pub fn can_reserve(&self, line: u64, waiter: bool) -> Result<(), MshrFail> {
        match self.find(line) {
            Some(i) if waiter && self.entries[i].waiters.len() >= self.merge => {
                Err(MshrFail::MergeLimit)
            }
            Some(_) => Ok(()),
            None if self.free.is_empty() => Err(MshrFail::Full),
            None => Ok(()),
        }
    }

    /// Registers `fetch` sectors of `line` as in flight and `waiter` as waiting for the line.
    /// Returns (sectors not already in flight, merged into an existing entry). Call
    /// [`Mshr::can_reserve`] first.
    pub fn reserve(&mut self, line: u64, fetch: u8, waiter: Option<W>) -> (u8, bool) {
        let (i, merged) = match self.find(line) {
            Some(i) => (i, true),
            None => {
                let i = self.free.pop().expect("can_reserve checked") as usize;
                self.index.insert(line, i as u32);
                let e = &mut self.entries[i];
                e.busy = true;
                e.line = line;
                e.pending = 0;
                e.waiters.clear();
                self.used += 1;
                (i, false)
            }
        };
        let e = &mut self.entries[i];
        let new = fetch & !e.pending;
        e.pending |= fetch;
        if let Some(w) = waiter {
            e.waiters.push(w);
        }
        (new, merged)
    }

    /// Sectors of `line` arrived. When none is pending any more, the entry is freed and its
    /// waiters are handed to `f` in arrival order; returns true then.
    pub fn fill(&mut self, line: u64, sectors: u8, mut f: impl FnMut(W)) -> bool {
        let Some(i) = self.find(line) else {
            return false;
        };
        let e = &mut self.entries[i];
        e.pending &= !sectors;
        if e.pending != 0 {
            return false;
        }
        for w in e.waiters.drain(..) {
            f(w);
        }
        e.busy = false;
        self.used -= 1;
        self.free.push(i as u32);
        self.index.remove(line);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hashed index against a plain list of (line, pending, waiters), under a seeded mix
    /// of reserves and fills on colliding lines (lines 128 B apart and 2^k apart).
    #[test]
    fn index_agrees_with_a_linear_table() {
        let mut m: Mshr<u32> = Mshr::new(16, 3);
        let mut model: Vec<(u64, u8, Vec<u32>)> = Vec::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let line = ((x >> 8) % 40) * if x & 1 == 0 { 128 } else { 1 << 20 };
            let sectors = 1u8 << ((x >> 3) % 4);
            let want = model.iter().position(|e| e.0 == line);
            assert_eq!(
                m.pending(line),
                want.map_or(0, |i| model[i].1),
                "step {step}"
            );
            if x & 2 == 0 {
                let ok = match want {
                    Some(i) => model[i].2.len() < 3,
                    None => model.len() < 16,
                };
                assert_eq!(m.can_reserve(line, true).is_ok(), ok, "step {step}");
                if ok {
                    let (new, merged) = m.reserve(line, sectors, Some(step));
                    let i = want.unwrap_or_else(|| {
                        model.push((line, 0, Vec::new()));
                        model.len() - 1
                    });
                    assert_eq!((new, merged), (sectors & !model[i].1, want.is_some()));
                    model[i].1 |= sectors;
                    model[i].2.push(step);
                }
            } else {
                let mut got = Vec::new();
                let freed = m.fill(line, sectors, |w| got.push(w));
                let mut expect = Vec::new();
                if let Some(i) = want {
                    model[i].1 &= !sectors;
                    if model[i].1 == 0 {
                        expect = model.remove(i).2;
                    }
                }
                assert_eq!((freed, got), (!expect.is_empty(), expect), "step {step}");
            }
            assert_eq!(m.in_use(), model.len());
        }
    }
}
