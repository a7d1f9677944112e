//! Per-warp instruction buffer (seed 001 Figure 3: decode fills it, the scheduler drains it).
//!
//! Trace-driven: a warp's instructions are consecutive entries of its trace, so the buffer is a
//! window `[head, head + len)` of trace indices plus the entries a fetch has reserved.
//!
//! ```text
//!  trace:  ... | issued | head .. head+len (decoded) | reserved (fetch in flight) | unfetched ...
//! ```

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IBuffer {
    /// Trace index of the oldest decoded instruction (the next to issue).
    pub head: u32,
    /// Decoded entries ready to issue.
    pub len: u8,
    /// Entries reserved by a fetch in flight.
    pub reserved: u8,
    pub cap: u8,
}

impl IBuffer {
    pub fn new(cap: u32) -> Self {
        IBuffer {
            head: 0,
            len: 0,
            reserved: 0,
            cap: cap.clamp(1, 64) as u8,
        }
    }
    /// Entries a new fetch may reserve.
    #[inline]
    pub fn free(&self) -> u32 {
        (self.cap - self.len - self.reserved) as u32
    }
    /// Trace index of the next instruction to fetch.
    #[inline]
    pub fn next_fetch(&self) -> u32 {
        self.head + self.len as u32 + self.reserved as u32
    }
    #[inline]
    pub fn reserve(&mut self, n: u32) {
        debug_assert!(n <= self.free());
        self.reserved += n as u8;
    }
    /// Decode delivered `n` reserved entries.
    #[inline]
    pub fn fill(&mut self, n: u32) {
        debug_assert!(n as u8 <= self.reserved);
        self.reserved -= n as u8;
        self.len += n as u8;
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Removes the head (it issued).
    #[inline]
    pub fn pop(&mut self) -> u32 {
        debug_assert!(self.len > 0);
        let h = self.head;
        self.head += 1;
        self.len -= 1;
        h
    }
    /// Drops everything after `head` up to `end` (EXIT: nothing after it runs).
    pub fn skip_to(&mut self, end: u32) {
        self.head = end;
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_arithmetic() {
        let mut b = IBuffer::new(2);
        assert_eq!((b.free(), b.next_fetch()), (2, 0));
        b.reserve(2);
        assert_eq!((b.free(), b.next_fetch()), (0, 2));
        b.fill(2);
        assert_eq!(b.pop(), 0);
        assert_eq!((b.free(), b.next_fetch(), b.len), (1, 2, 1));
    }
}
