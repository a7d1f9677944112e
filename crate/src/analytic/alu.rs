//! The analytical ALU pipeline (seed 000 Figure 3): an instruction leaves the scheduler and
//! completes a fixed latency later; the only contention simulated is the unit's issue rate.
//! No collector unit, register-bank read port or result-bus port is modelled per instruction.
//!
//! ```text
//!  issue at t ──> start s = max(t + 1, ready[pipe])      (operands "read" at t + 1, as in the
//!                 ready[pipe] = s + interval              cycle model without bank conflicts)
//!                 complete c = s + max(L, 2) - 1          (same formula as core::exec)
//! ```
//! Contention is `ready = max(now, ready) + interval` on the earliest-free pipeline, so a burst
//! after an idle period is not charged for the idle time (the public Swift-Sim code's bug).
//! With a single warp and no conflicts the cycle model dispatches at t + 1 and completes at
//! the same `c`, so both agree exactly (test `engine::tests::hybrid`).

use crate::core::exec::completion;
use crate::Cycle;

/// Reserves the earliest-free pipeline of `pool` for an instruction issued at `now`;
/// returns its completion cycle. `pool` must not be empty.
#[inline]
pub fn issue(pool: &mut [Cycle], now: Cycle, latency: u32, interval: u32) -> Cycle {
    let mut best = 0;
    for (i, &r) in pool.iter().enumerate() {
        if r < pool[best] {
            best = i;
        }
    }
    let start = pool[best].max(now + 1);
    pool[best] = start + interval.max(1) as u64;
    completion(start, latency)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contention_is_ready_max_now_plus_interval() {
        // Two pipes, interval 2, latency 4.
        let mut pool = [0u64; 2];
        assert_eq!(issue(&mut pool, 10, 4, 2), 14); // starts 11 on pipe 0 (ready 13)
        assert_eq!(issue(&mut pool, 10, 4, 2), 14); // pipe 1 (ready 13)
        assert_eq!(issue(&mut pool, 10, 4, 2), 16); // waits for pipe 0: starts 13
        assert_eq!(pool, [15, 13]);
        // After an idle period the next starts at now + 1, not at the stale ready cycle.
        assert_eq!(issue(&mut pool, 100, 4, 2), 104);
        assert_eq!(pool, [15, 103]);
        // Latency 1 completes like the cycle model's `max(L, 2)`.
        assert_eq!(issue(&mut pool, 200, 1, 1), 202);
    }
}
