//! Banked register file of a sub-core: `banks` banks with `ports_per_bank` ports each, shared by
//! operand reads and write-backs (seed 001 section 2.2: two ports per bank on recent NVIDIA GPUs,
//! Jia et al.). A register's bank is `reg % banks`; uniform registers live in their own file and
//! never conflict.
//!
//! ```text
//!  cycle t:  ports[b] = ports_per_bank - writes reserved for t (result bus) - memory write-backs
//!            operand reads take what is left, oldest collector unit first
//! ```

use super::result_bus::ResultBus;
use crate::trace::{is_zero_reg, Reg, UR_BASE};
use crate::Cycle;

#[derive(Clone, Debug)]
pub struct RegFile {
    pub banks: usize,
    pub ports: u8,
    /// Ports still free in the current cycle, per bank.
    free: Vec<u8>,
    /// Write-backs consume ports (seed 001's result-bus model); off: writes are free.
    pub writes_use_ports: bool,
}

impl RegFile {
    pub fn new(banks: u32, ports: u32, writes_use_ports: bool) -> Self {
        let banks = banks.max(1) as usize;
        let ports = ports.clamp(1, 255) as u8;
        RegFile {
            banks,
            ports,
            free: vec![ports; banks],
            writes_use_ports,
        }
    }

    /// Bank of a register, or `None` for registers outside the banked file (RZ, uniform).
    #[inline]
    pub fn bank(&self, r: Reg) -> Option<usize> {
        if is_zero_reg(r) || r >= UR_BASE {
            None
        } else {
            Some(r as usize % self.banks)
        }
    }

    /// Starts cycle `now`: writes reserved for it take their ports first.
    pub fn begin_cycle(&mut self, now: Cycle, rb: &mut ResultBus) {
        for b in 0..self.banks {
            let w = if self.writes_use_ports {
                rb.take(now, b)
            } else {
                0
            };
            self.free[b] = self.ports.saturating_sub(w);
        }
    }

    /// Takes a port of `bank` for a read or an unreserved write this cycle.
    #[inline]
    pub fn take(&mut self, bank: usize) -> bool {
        if self.free[bank] > 0 {
            self.free[bank] -= 1;
            true
        } else {
            false
        }
    }

    /// Takes ports for writing all of `dsts` this cycle (memory write-back), all or nothing.
    pub fn take_writes(&mut self, dsts: &[Reg]) -> bool {
        if !self.writes_use_ports {
            return true;
        }
        let mut need = [0u8; 64];
        for &r in dsts {
            if let Some(b) = self.bank(r) {
                need[b.min(63)] += 1;
            }
        }
        if (0..self.banks.min(64)).any(|b| need[b] > self.free[b]) {
            return false;
        }
        for (f, n) in self.free.iter_mut().zip(need.iter()) {
            *f -= *n;
        }
        true
    }
}
