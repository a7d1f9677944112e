//! Miss status holding registers: one entry per line in flight, with the sectors still pending
//! and the requests waiting for them (at most `merge` per entry). Entries and waiter lists are
//! allocated once; a full table or a full entry is a reservation failure (back-pressure).

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
}

impl<W: Copy> Mshr<W> {
    pub fn new(entries: u32, merge: u32) -> Self {
        let merge = merge.max(1) as usize;
        let e = (0..entries.max(1))
            .map(|_| Entry {
                line: 0,
                pending: 0,
                waiters: Vec::with_capacity(merge),
                busy: false,
            })
            .collect();
        Mshr {
            entries: e,
            merge,
            used: 0,
        }
    }

    fn find(&self, line: u64) -> Option<usize> {
        if self.used == 0 {
            return None;
        }
        self.entries.iter().position(|e| e.busy && e.line == line)
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
            None if self.used >= self.entries.len() => Err(MshrFail::Full),
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
                let i = self
                    .entries
                    .iter()
                    .position(|e| !e.busy)
                    .expect("can_reserve checked");
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
        true
    }
}
