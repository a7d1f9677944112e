//! Operand collector units of a sub-core (seed 001 Figure 1 / section 5.1).
//!
//! An issued instruction takes a free collector unit, reads its source operands from the banked
//! register file (ports arbitrated oldest unit first, see `regfile`), and is dispatched to its
//! execution unit once all operands are in. Dispatch is out of order across units, which is why
//! the scoreboard tracks pending reads (WAR).
//!
//! ```text
//!  issue ──> [CU0][CU1]..  ──read (bank ports)──> all operands? ──dispatch──> unit / mem latch
//! ```

use super::regfile::RegFile;
use super::warp::Warp;
use crate::stats::SubCoreStats;
use crate::trace::{Reg, TraceInst, MAX_SRC};

/// Why a collector unit did not dispatch in its last attempt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Block {
    #[default]
    None,
    /// Operands still to read (bank conflicts).
    Operands,
    /// The execution pipeline is busy (initiation interval).
    Unit,
    /// No write port in the completion cycle.
    ResultBus,
    /// The memory pipeline's dispatch latch or in-flight table is full.
    MemPipe,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Cu {
    pub busy: bool,
    pub warp: u16,
    /// Trace index of the instruction.
    pub idx: u32,
    /// Issue order (oldest first for port arbitration and dispatch).
    pub seq: u64,
    /// Registers still to read.
    pub unread: [Reg; MAX_SRC],
    pub nunread: u8,
    pub block: Block,
}

#[derive(Clone, Debug)]
pub struct Collectors {
    pub cus: Vec<Cu>,
    /// Busy units, oldest first (rebuilt when units change).
    pub order: Vec<u8>,
    next_seq: u64,
}

impl Collectors {
    pub fn new(n: u32) -> Self {
        let n = n.clamp(1, 64) as usize;
        Collectors {
            cus: vec![Cu::default(); n],
            order: Vec::with_capacity(n),
            next_seq: 0,
        }
    }

    pub fn free_slot(&self) -> Option<usize> {
        self.cus.iter().position(|c| !c.busy)
    }

    pub fn all_busy(&self) -> bool {
        self.cus.iter().all(|c| c.busy)
    }

    /// The oldest busy unit's block reason (what a full collector waits on).
    pub fn oldest_block(&self) -> Block {
        self.order
            .first()
            .map(|&i| self.cus[i as usize].block)
            .unwrap_or_default()
    }

    /// Puts an issued instruction in unit `slot`; its banked sources become pending reads.
    pub fn alloc(
        &mut self,
        slot: usize,
        warp: u16,
        idx: u32,
        inst: &TraceInst,
        rf: &RegFile,
        w: &mut Warp,
    ) {
        let cu = &mut self.cus[slot];
        cu.busy = true;
        cu.warp = warp;
        cu.idx = idx;
        cu.seq = self.next_seq;
        cu.block = Block::Operands;
        self.next_seq += 1;
        cu.nunread = 0;
        for &r in inst.srcs() {
            if rf.bank(r).is_none() || cu.unread[..cu.nunread as usize].contains(&r) {
                continue;
            }
            cu.unread[cu.nunread as usize] = r;
            cu.nunread += 1;
            w.sb.add_read(r);
        }
        self.order.push(slot as u8);
    }

    /// Frees unit `slot` (dispatched).
    pub fn release(&mut self, slot: usize) {
        self.cus[slot].busy = false;
        self.order.retain(|&i| i as usize != slot);
    }

    /// Operand-read stage: oldest unit first, each operand needs a port of its bank.
    /// Returns true when anything was read or denied (state changed).
    pub fn read_stage(
        &mut self,
        rf: &mut RegFile,
        warps: &mut [Warp],
        dirty: &mut super::warp::SlotBits,
        st: &mut SubCoreStats,
    ) -> bool {
        let mut changed = false;
        for k in 0..self.order.len() {
            let cu = &mut self.cus[self.order[k] as usize];
            let mut j = 0;
            while j < cu.nunread as usize {
                let r = cu.unread[j];
                let b = rf.bank(r).unwrap_or(0);
                if rf.take(b) {
                    warps[cu.warp as usize].sb.read_done(r);
                    dirty.set(cu.warp as usize);
                    // Keep source order: operands are read first to last.
                    cu.unread.copy_within(j + 1..cu.nunread as usize, j);
                    cu.nunread -= 1;
                    changed = true;
                } else {
                    st.reg_bank_conflicts += 1;
                    changed = true;
                    j += 1;
                }
            }
            if cu.nunread == 0 && cu.block == Block::Operands {
                cu.block = Block::None;
            }
        }
        changed
    }
}
