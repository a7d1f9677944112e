//! Clock domains (Accel-Sim's core:interconnect:L2:DRAM clocks). Blocks hand items to each
//! other stamped with core cycles; inside, each block counts its own cycles.
//!
//! ```text
//!  own cycle d starts at core cycle core_of(d) = min { c | floor(c * f_dom / f_core) >= d }
//!  due(now): own cycles next..=floor(now * f_dom / f_core) still to step
//! ```

use crate::Cycle;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Domain {
    /// f_dom / f_core.
    ratio: f64,
    /// Next own cycle to step.
    next: u64,
}

impl Domain {
    pub fn new(dom_mhz: f64, core_mhz: f64) -> Self {
        let r = if dom_mhz > 0.0 && core_mhz > 0.0 {
            dom_mhz / core_mhz
        } else {
            1.0
        };
        Domain { ratio: r, next: 0 }
    }
    /// Own cycles per core cycle.
    pub fn ratio(&self) -> f64 {
        self.ratio
    }
    /// The last own cycle that has started by core cycle `now`. (The product is never
    /// negative, so the conversion's truncation is the floor, without a call to `floor`.)
    #[inline]
    pub fn own(&self, now: Cycle) -> u64 {
        (now as f64 * self.ratio) as u64
    }
    /// The core cycle in which own cycle `d` is stepped.
    #[inline]
    pub fn core_of(&self, d: u64) -> Cycle {
        if self.ratio == 1.0 {
            return d;
        }
        // A first guess (truncated, not rounded up: the loops below settle it either way).
        let mut c = (d as f64 / self.ratio) as u64;
        while self.own(c) < d {
            c += 1;
        }
        while c > 0 && self.own(c - 1) >= d {
            c -= 1;
        }
        c
    }
    /// `n` own cycles in core cycles, rounded up.
    pub fn to_core(&self, n: u64) -> Cycle {
        (n as f64 / self.ratio).ceil() as u64
    }
    /// Own cycles due by core cycle `now` (and marks them stepped).
    pub fn due(&mut self, now: Cycle) -> std::ops::Range<u64> {
        let end = self.own(now) + 1;
        let r = self.next..end.max(self.next);
        self.next = r.end;
        r
    }
    /// Own cycles due, without stepping them (skips them: nothing to do there).
    pub fn skip_to(&mut self, now: Cycle) {
        self.next = self.next.max(self.own(now) + 1);
    }
    pub fn next_cycle(&self) -> u64 {
        self.next
    }
}

/// A queue of items released at a core cycle, FIFO among equal times.
#[derive(Clone, Debug)]
pub struct DelayQueue<T> {
    q: std::collections::VecDeque<(Cycle, T)>,
}

impl<T> Default for DelayQueue<T> {
    fn default() -> Self {
        DelayQueue {
            q: std::collections::VecDeque::new(),
        }
    }
}

impl<T> DelayQueue<T> {
    pub fn push(&mut self, at: Cycle, t: T) {
        // Most items come due in push order: append without a search.
        if self.q.back().is_none_or(|(c, _)| *c <= at) {
            self.q.push_back((at, t));
            return;
        }
        let i = self.q.partition_point(|(c, _)| *c <= at);
        self.q.insert(i, (at, t));
    }
    pub fn pop_ready(&mut self, now: Cycle) -> Option<T> {
        if self.q.front().is_some_and(|(c, _)| *c <= now) {
            self.q.pop_front().map(|(_, t)| t)
        } else {
            None
        }
    }
    pub fn peek_ready(&self, now: Cycle) -> Option<&T> {
        self.q.front().filter(|(c, _)| *c <= now).map(|(_, t)| t)
    }
    pub fn next_time(&self) -> Option<Cycle> {
        self.q.front().map(|(c, _)| *c)
    }
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domain_conversions_round_trip() {
        let mut d = Domain::new(3500.0, 1365.0);
        for dc in 0..2000u64 {
            let c = d.core_of(dc);
            assert!(d.own(c) >= dc && (c == 0 || d.own(c - 1) < dc));
        }
        assert_eq!(d.due(0), 0..1);
        // 10 core cycles = 25.6 DRAM cycles: cycles 1..=25 are due.
        assert_eq!(d.due(10), 1..26);
        assert_eq!(d.due(10), 26..26);
        let same = Domain::new(1365.0, 1365.0);
        assert_eq!((same.core_of(7), same.to_core(160)), (7, 160));
    }

    #[test]
    fn delay_queue_orders_by_time_then_push_order() {
        let mut q = DelayQueue::default();
        // In order (appended), then earlier, equal and between (searched).
        for (at, v) in [(5, 'a'), (3, 'b'), (5, 'c'), (4, 'd'), (9, 'e'), (3, 'f')] {
            q.push(at, v);
        }
        assert_eq!(q.next_time(), Some(3));
        assert_eq!(q.pop_ready(2), None);
        let mut out = Vec::new();
        while let Some(v) = q.pop_ready(8) {
            out.push(v);
        }
        assert_eq!(out, ['b', 'f', 'd', 'a', 'c']);
        assert_eq!((q.len(), q.next_time()), (1, Some(9)));
    }
}
