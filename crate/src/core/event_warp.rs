//! The per-warp state of the event-driven front end ([`super::event`]): register ready times,
//! next-issue bounds, fetch progress and where the warp is filed.

use super::ctx::OpClass;
use super::scoreboard::NREGS;
use crate::stats::StallKind;
use crate::trace::{is_zero_reg, Reg, UR_BASE};
use crate::Cycle;

/// `EvWarp::ready` of a register a memory instruction is still writing.
pub const PENDING: Cycle = Cycle::MAX;

/// Flag in `EvWarp::ready`: the time is a memory instruction's completion (`fast` mode's
/// direct issue), so a warp waiting for it stalls on `mem_data`.
pub const MEM_BIT: Cycle = 1 << 62;

/// `EvWarp::wait`: why a warp in the heap waits, for the stall stack's precedence.
pub(super) const W_NONE: u8 = 0;
pub(super) const W_MEM_DATA: u8 = 1;
pub(super) const W_MEM_STRUCT: u8 = 2;

/// Where a warp is in the event front end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EvState {
    /// Not resident, or nothing left to issue.
    #[default]
    Idle,
    /// In its sub-core's heap with a known next-issue time.
    Heap,
    /// In the ready set: may issue now.
    Ready,
    /// Waits on a load's register or a MEMBAR (woken by a memory completion).
    BlockedMem,
    /// Waits at a barrier (woken by its release).
    BlockedBar,
}

/// The per-warp state of the event front end.
#[derive(Clone, Debug)]
pub struct EvWarp {
    /// Cycle each register's value can be read ([`PENDING`]: a load is still fetching it).
    pub ready: Vec<Cycle>,
    /// One past the highest register below / from [`UR_BASE`] written since launch: a
    /// launch clears only `ready[..hi_r]` and `ready[UR_BASE..hi_u]`, not all [`NREGS`].
    hi_r: u16,
    hi_u: u16,
    /// Earliest issue of the head instruction from the warp itself: issue slot, launch
    /// (fetch + decode), branch resolution.
    pub not_before: Cycle,
    /// Latest completion of an issued ALU instruction (the warp retires then).
    pub done_at: Cycle,
    pub state: EvState,
    /// The time of the warp's live heap entry (older entries for it are stale).
    pub at: Cycle,
    /// Why `not_before` holds the warp (fetch at launch, a branch, the issue slot).
    pub nb_reason: StallKind,
    /// Why the head instruction waits (for the stall stack) and its PC.
    pub reason: StallKind,
    pub pc: u32,
    /// Instructions fetched so far (trace index of the next fetch).
    pub fetched: u32,
    /// Cycle the warp's last fetch is decoded (its next fetch may start then).
    pub fetch_free: Cycle,
    /// Cycle instruction `i` is in the instruction buffer, at `avail[i % IBUF]`.
    pub avail: [Cycle; IBUF],
    /// Latest completion of a memory instruction issued straight to the analytical memory.
    pub mem_done: Cycle,
    /// In the heap waiting for memory data / a memory pipeline (`W_*`).
    pub wait: u8,
    /// The head instruction's opcode class (set by the evaluation that filed the warp).
    pub op: OpClass,
}

/// Instruction-buffer entries the event front end models (`frontend.ibuffer_size`, at most).
pub const IBUF: usize = 8;

impl Default for EvWarp {
    fn default() -> Self {
        EvWarp {
            ready: Vec::new(),
            hi_r: 0,
            hi_u: 0,
            not_before: 0,
            done_at: 0,
            state: EvState::Idle,
            at: 0,
            nb_reason: StallKind::IFetch,
            reason: StallKind::IFetch,
            pc: 0,
            fetched: 0,
            fetch_free: 0,
            avail: [0; IBUF],
            mem_done: 0,
            wait: W_NONE,
            op: OpClass::default(),
        }
    }
}

impl EvWarp {
    /// A warp launched at `now` (its first fetch is made by the first evaluation).
    pub fn launch(&mut self, now: Cycle) {
        if self.ready.len() == NREGS {
            // Only what the last warp in this slot wrote is not zero.
            self.ready[..self.hi_r as usize].fill(0);
            self.ready[UR_BASE as usize..self.hi_u.max(UR_BASE) as usize].fill(0);
        } else {
            // The slot's first launch: zeroed memory (`calloc`, which need not write fresh
            // pages) rather than a resize that writes every entry.
            self.ready = vec![0; NREGS];
        }
        (self.hi_r, self.hi_u) = (0, 0);
        self.fetched = 0;
        self.fetch_free = now;
        self.not_before = now;
        self.done_at = 0;
        self.state = EvState::Idle;
        self.at = 0;
        self.nb_reason = StallKind::IFetch;
        self.reason = StallKind::IFetch;
        self.pc = 0;
        self.mem_done = 0;
        self.wait = W_NONE;
    }

    /// `r`'s ready time (the zero registers' entries are never written: they read 0).
    #[inline]
    pub(super) fn reg(&self, r: Reg) -> Cycle {
        self.ready.get(r as usize).copied().unwrap_or(0)
    }

    /// A load's write of `r` completed at `now`.
    #[inline]
    pub fn complete(&mut self, r: Reg, now: Cycle) {
        self.set(r, now);
    }

    #[inline]
    pub(super) fn set(&mut self, r: Reg, t: Cycle) {
        if !is_zero_reg(r) && (r as usize) < self.ready.len() {
            self.ready[r as usize] = t;
            if r < UR_BASE {
                self.hi_r = self.hi_r.max(r + 1);
            } else {
                self.hi_u = self.hi_u.max(r + 1);
            }
        }
    }
}
