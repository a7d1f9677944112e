//! Per-warp scoreboard: pending writes (RAW and WAW hazards) and pending reads (WAR hazards).
//!
//! Issue is in order, but collector units dispatch out of order (seed 001 section 5.1): a younger
//! instruction that writes a register an older one has not read yet must not overtake it. With
//! `features.war_check` the issue stage holds such an instruction until the older one has read
//! its operands; without it (Accel-Sim's behaviour) the write-back that overtakes is counted as a
//! violation.
//!
//! ```text
//!  issue: reserve dsts (pend[r]++), add srcs (reads[r]++)
//!  operand read: reads[r]--          write-back: pend[r]--
//!  RAW/WAW: any src or dst with pend > 0      WAR: any dst with reads > 0
//! ```

use crate::trace::{is_zero_reg, Reg, TraceInst};

/// Regular (R0..R255) plus uniform (UR0..UR63) registers.
pub const NREGS: usize = 320;

#[derive(Clone, Debug)]
#[repr(C)]
pub struct Scoreboard {
    /// Bumped by every change (the issue stage caches a warp's hazard check against it).
    version: u32,
    /// Number of registers with a pending write.
    npend: u32,
    /// Bit per register: the pending write comes from a memory instruction.
    mem: [u64; NREGS / 64],
    pend: [u8; NREGS],
    reads: [u8; NREGS],
}

impl Default for Scoreboard {
    fn default() -> Self {
        Scoreboard {
            pend: [0; NREGS],
            reads: [0; NREGS],
            mem: [0; NREGS / 64],
            npend: 0,
            version: 0,
        }
    }
}

/// What a hazard waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hazard {
    /// A source or destination waits on a memory instruction's write.
    Mem,
    /// ... on an ALU instruction's write.
    Alu,
}

#[inline]
fn idx(r: Reg) -> Option<usize> {
    if is_zero_reg(r) || r as usize >= NREGS {
        None
    } else {
        Some(r as usize)
    }
}

impl Scoreboard {
    pub fn reset(&mut self) {
        let v = self.version.wrapping_add(1);
        *self = Scoreboard::default();
        self.version = v;
    }

    /// Changes with every reserve, release and read: equal versions, equal answers.
    #[inline]
    pub fn version(&self) -> u32 {
        self.version
    }

    /// RAW (sources) or WAW (destinations) hazard of `inst`, memory first.
    pub fn hazard(&self, inst: &TraceInst) -> Option<Hazard> {
        let mut found = None;
        for &r in inst.srcs().iter().chain(inst.dsts().iter()) {
            if let Some(i) = idx(r) {
                if self.pend[i] > 0 {
                    if self.mem[i / 64] & (1 << (i % 64)) != 0 {
                        return Some(Hazard::Mem);
                    }
                    found = Some(Hazard::Alu);
                }
            }
        }
        found
    }

    /// A destination of `inst` still has to be read by an older in-flight instruction.
    pub fn war(&self, inst: &TraceInst) -> bool {
        inst.dsts()
            .iter()
            .any(|&r| idx(r).is_some_and(|i| self.reads[i] > 0))
    }

    /// Marks `inst`'s destinations pending.
    pub fn reserve(&mut self, inst: &TraceInst, from_mem: bool) {
        self.version = self.version.wrapping_add(1);
        for &r in inst.dsts() {
            if let Some(i) = idx(r) {
                if self.pend[i] == 0 {
                    self.npend += 1;
                }
                self.pend[i] = self.pend[i].saturating_add(1);
                if from_mem {
                    self.mem[i / 64] |= 1 << (i % 64);
                } else {
                    self.mem[i / 64] &= !(1 << (i % 64));
                }
            }
        }
    }

    /// One write of `r` completed. Returns true when a read of `r` was still pending
    /// (a WAR violation: the write overtook an older reader).
    pub fn release(&mut self, r: Reg) -> bool {
        self.version = self.version.wrapping_add(1);
        if let Some(i) = idx(r) {
            if self.pend[i] > 0 {
                self.pend[i] -= 1;
                if self.pend[i] == 0 {
                    self.npend -= 1;
                    self.mem[i / 64] &= !(1 << (i % 64));
                }
            }
            return self.reads[i] > 0;
        }
        false
    }

    /// An instruction entered a collector unit: its register sources are pending reads.
    pub fn add_read(&mut self, r: Reg) {
        self.version = self.version.wrapping_add(1);
        if let Some(i) = idx(r) {
            self.reads[i] = self.reads[i].saturating_add(1);
        }
    }

    /// A source operand was read from its bank.
    pub fn read_done(&mut self, r: Reg) {
        self.version = self.version.wrapping_add(1);
        if let Some(i) = idx(r) {
            self.reads[i] = self.reads[i].saturating_sub(1);
        }
    }

    pub fn is_pending(&self, r: Reg) -> bool {
        idx(r).is_some_and(|i| self.pend[i] > 0)
    }

    pub fn any_pending(&self) -> bool {
        self.npend > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(dst: &[Reg], src: &[Reg]) -> TraceInst {
        let mut i = TraceInst {
            ndst: dst.len() as u8,
            nsrc: src.len() as u8,
            ..Default::default()
        };
        i.dst[..dst.len()].copy_from_slice(dst);
        i.src[..src.len()].copy_from_slice(src);
        i
    }

    #[test]
    fn raw_waw_war_and_zero_register() {
        let mut sb = Scoreboard::default();
        let ld = inst(&[4], &[2]);
        sb.reserve(&ld, true);
        assert_eq!(sb.hazard(&inst(&[8], &[4])), Some(Hazard::Mem)); // RAW
        assert_eq!(sb.hazard(&inst(&[4], &[9])), Some(Hazard::Mem)); // WAW
        assert_eq!(sb.hazard(&inst(&[8], &[255, 9])), None); // RZ is never a dependence
        sb.reserve(&inst(&[6], &[]), false);
        assert_eq!(sb.hazard(&inst(&[1], &[6])), Some(Hazard::Alu));
        assert!(!sb.release(4));
        assert_eq!(sb.hazard(&inst(&[8], &[4])), None);
        sb.add_read(7);
        assert!(sb.war(&inst(&[7], &[])));
        sb.reserve(&inst(&[7], &[]), false);
        assert!(sb.release(7), "write overtook the pending read");
        sb.read_done(7);
        assert!(!sb.war(&inst(&[7], &[])));
        assert!(!sb.release(6));
        assert!(!sb.any_pending());
    }
}
