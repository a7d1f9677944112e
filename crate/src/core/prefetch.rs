//! Instruction prefetch: a stream buffer beside each sub-core's L0 I-cache (modern-gpu-cores
//! fact sheet section 3 and Tab. 5: off, cycles MAPE 45.55%; 8 entries, 13.45%).
//!
//! After every demand access to line `L` of the L0, the lines `L+1 .. L+depth` are kept on
//! their way: each one the L0 does not hold is requested from the SM's L1I, one request per
//! cycle, and allocated in the L0 with the cycle its data arrives, so a later fetch of it waits
//! for that data (a hit under the fill) instead of missing. An access that is not within or
//! just after the current stream (a jump) starts a new stream at its next line. Lines the L0
//! already holds are passed over (a loop that fits sends nothing).
//!
//! A stream sends a request every `frontend.prefetch_interval` cycles (1 on every preset but
//! the h100). The sheet gives the stream buffer's depth, not its rate; the H100's in-kernel
//! clock probes (`tests/hardware/results/h100-probes.csv`, ifetch lines=16/64/256) show one
//! warp running cold straight-line code at 13.9-15.4 cycles per 128-byte line from the first
//! line on, which a stream of one request per cycle cannot give (it has the first 16 lines on
//! their way at once: 7 cycles per line over 16 lines) and a rate limit can.
//!
//! The requests go to the L1I directly, beside the sub-cores' demand misses (whose arbiter
//! grants one per cycle); the L1I has no port limit in the model, so the two do not delay each
//! other. The request times are computed when the stream advances, so the event-driven front
//! end (`event_fetch`) and the cycle one (`fetch`) send the same requests at the same cycles.

use super::fetch::l1_access;
use super::icache::ICache;
use crate::Cycle;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamBuffer {
    /// Lines kept ahead of the last demand access (0: no prefetch).
    depth: u32,
    /// Cycles between two requests of the stream (`frontend.prefetch_interval`).
    interval: u32,
    /// The stream covers lines `base .. next`; `next` is the next one to request.
    base: u64,
    next: u64,
    /// First cycle the next request may be sent (one per cycle).
    free: Cycle,
}

impl StreamBuffer {
    pub fn new(depth: u32, interval: u32) -> Self {
        StreamBuffer {
            depth,
            interval: interval.max(1),
            ..Default::default()
        }
    }

    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// After a demand access of the L0 at `addr` in cycle `now`: requests what the stream
    /// still lacks up to `depth` lines ahead. Returns the number of lines requested.
    pub fn access(
        &mut self,
        addr: u64,
        now: Cycle,
        l0: &mut ICache,
        l1i: &mut ICache,
        miss_penalty: u32,
    ) -> u32 {
        if self.depth == 0 || l0.is_perfect() {
            return 0;
        }
        let line = l0.line_of(addr);
        let first = line + 1;
        if first < self.base || first > self.next {
            // A jump (or the first access): a new stream at the next line.
            self.base = first;
            self.next = first;
        }
        let end = first + self.depth as u64;
        let bytes = l0.line_bytes();
        let mut sent = 0;
        while self.next < end {
            let a = self.next * bytes;
            self.next += 1;
            if l0.contains(a) {
                continue;
            }
            let at = now.max(self.free);
            self.free = at + self.interval as u64;
            let (ready, _) = l1_access(l1i, a, at, l1i.latency, miss_penalty);
            l0.fill(a, ready);
            sent += 1;
        }
        sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ICacheConfig;

    fn caches() -> (ICache, ICache) {
        let c = |kb, lat| ICacheConfig {
            size_kb: kb,
            line_bytes: 128,
            assoc: 4,
            latency: lat,
            mshr: 1,
        };
        (ICache::new(&c(16, 1)), ICache::new(&c(128, 20)))
    }

    /// A demand miss of line 0 at cycle 10 sends lines 1..=4 at cycles 10..=13; each arrives
    /// after the L1I latency (20) and the miss penalty (100).
    #[test]
    fn a_stream_requests_one_line_per_cycle() {
        let (mut l0, mut l1) = caches();
        let mut s = StreamBuffer::new(4, 1);
        assert_eq!(s.access(0, 10, &mut l0, &mut l1, 100), 4);
        for k in 1..=4u64 {
            assert_eq!(
                l0.probe(k * 128, 11),
                super::super::icache::Probe::Hit(10 + (k - 1) + 120),
                "line {k}"
            );
        }
        assert!(!l0.contains(5 * 128));
        // The demand moves to line 1 at cycle 200: one more line (5) at cycle 200.
        assert_eq!(s.access(128, 200, &mut l0, &mut l1, 100), 1);
        assert_eq!(
            l0.probe(5 * 128, 200),
            super::super::icache::Probe::Hit(320)
        );
        // Same line again: nothing new.
        assert_eq!(s.access(130, 201, &mut l0, &mut l1, 100), 0);
    }

    /// With an interval of 16 the same miss sends lines 1..=4 at cycles 10, 26, 42, 58, and a
    /// later access sends no sooner than the interval after the last request.
    #[test]
    fn an_interval_spaces_the_requests() {
        let (mut l0, mut l1) = caches();
        let mut s = StreamBuffer::new(4, 16);
        assert_eq!(s.access(0, 10, &mut l0, &mut l1, 100), 4);
        for k in 1..=4u64 {
            assert_eq!(
                l0.probe(k * 128, 11),
                super::super::icache::Probe::Hit(10 + 16 * (k - 1) + 120),
                "line {k}"
            );
        }
        assert_eq!(s.access(128, 60, &mut l0, &mut l1, 100), 1);
        assert_eq!(
            l0.probe(5 * 128, 60),
            super::super::icache::Probe::Hit(74 + 120)
        );
    }

    /// A jump starts a new stream; lines the L0 holds are passed over; depth 0 sends nothing.
    #[test]
    fn jumps_restart_and_cached_lines_are_skipped() {
        let (mut l0, mut l1) = caches();
        let mut s = StreamBuffer::new(2, 1);
        assert_eq!(s.access(0, 0, &mut l0, &mut l1, 100), 2); // lines 1, 2
        assert_eq!(s.access(40 * 128, 5, &mut l0, &mut l1, 100), 2); // lines 41, 42
        assert_eq!(s.access(0, 9, &mut l0, &mut l1, 100), 0); // 1, 2 held
        let mut off = StreamBuffer::new(0, 1);
        assert_eq!(off.access(80 * 128, 9, &mut l0, &mut l1, 100), 0);
    }
}
