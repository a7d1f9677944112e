//! The result bus (seed 001 section 2.2): a fixed-latency instruction may only be dispatched if,
//! in the cycle it will complete, its destination banks still have a free write port. Ports are
//! reserved at dispatch in a ring indexed by completion cycle; at most `ports_per_bank`
//! write-backs per bank per cycle, so two instructions of different units writing the same bank
//! in the same cycle are fine with two ports, and the second waits a cycle with one.
//!
//! ```text
//!  dispatch at d, latency L -> completes c = d + L - 1 ;  ring[c % N][bank(dst)] < ports ?
//!     yes: reserve, dispatch          no: stay in the collector unit (result_bus_conflicts++)
//! ```
//! Off (`features.result_bus_ports = false`): no check, as in Accel-Sim.

use crate::trace::Reg;
use crate::Cycle;

#[derive(Clone, Debug)]
pub struct ResultBus {
    banks: usize,
    ports: u8,
    mask: usize,
    ring: Vec<u8>,
    pub enabled: bool,
}

impl ResultBus {
    /// `horizon`: the longest latency that will be reserved.
    pub fn new(banks: usize, ports: u8, horizon: u32, enabled: bool) -> Self {
        let n = (horizon as usize + 2).next_power_of_two();
        ResultBus {
            banks,
            ports,
            mask: n - 1,
            ring: vec![0; n * banks],
            enabled,
        }
    }

    #[inline]
    fn slot(&self, c: Cycle, b: usize) -> usize {
        (c as usize & self.mask) * self.banks + b
    }

    /// Can all `banks` (bank index per destination, duplicates allowed) be written at `c`?
    pub fn can_reserve(&self, c: Cycle, banks: &[usize]) -> bool {
        if !self.enabled {
            return true;
        }
        let mut need = [0u8; 64];
        for &b in banks {
            need[b.min(63)] += 1;
        }
        banks
            .iter()
            .all(|&b| self.ring[self.slot(c, b)] + need[b.min(63)] <= self.ports)
    }

    pub fn reserve(&mut self, c: Cycle, banks: &[usize]) {
        if !self.enabled {
            return;
        }
        for &b in banks {
            let s = self.slot(c, b);
            self.ring[s] += 1;
        }
    }

    /// The writes reserved for bank `b` in cycle `now`; clears the slot.
    pub fn take(&mut self, now: Cycle, b: usize) -> u8 {
        let s = self.slot(now, b);
        std::mem::take(&mut self.ring[s])
    }

    /// The horizon this ring can reserve.
    pub fn horizon(&self) -> usize {
        self.mask
    }
}

/// Banks of `dsts` (regular registers only) into `out`, returns how many.
pub fn dst_banks(dsts: &[Reg], nbanks: usize, out: &mut [usize; 4]) -> usize {
    let mut n = 0;
    for &r in dsts {
        if !crate::trace::is_zero_reg(r) && r < crate::trace::UR_BASE && n < 4 {
            out[n] = r as usize % nbanks;
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_ports_take_two_writes_per_bank() {
        let mut rb = ResultBus::new(2, 2, 40, true);
        assert!(rb.can_reserve(10, &[0]));
        rb.reserve(10, &[0]);
        assert!(rb.can_reserve(10, &[0]));
        assert!(
            !rb.can_reserve(10, &[0, 0]),
            "a two-register write needs both ports"
        );
        rb.reserve(10, &[0]);
        assert!(!rb.can_reserve(10, &[0]));
        assert!(rb.can_reserve(10, &[1]));
        assert!(rb.can_reserve(11, &[0]));
        assert_eq!(rb.take(10, 0), 2);
        assert_eq!(rb.take(10, 0), 0);
    }
}
