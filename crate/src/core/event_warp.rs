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
    /// Cycle each register below [`UR_BASE`] can be read ([`PENDING`]: a load is still
    /// fetching it); 0 past the end. Grown on a first write past the end (`grow`), so a slot
    /// holds what its kernels write, not all [`NREGS`]: 80 SMs' 64 slots of 320 entries
    /// were 13 MB of fresh pages per run (5% of vecadd-1m's `fast` run, at 1 or 2 threads).
    ready: Vec<Cycle>,
    /// The same for the uniform registers (`ready_u[r - UR_BASE]`).
    ready_u: Vec<Cycle>,
    /// One past the highest register below / from [`UR_BASE`] written since launch: a
    /// launch clears only `ready[..hi_r]` and `ready_u[..hi_u - UR_BASE]`.
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
            ready_u: Vec::new(),
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
        // Only what the last warp in this slot wrote is not zero (`set` grew the vectors
        // past it).
        self.ready[..self.hi_r as usize].fill(0);
        self.ready_u[..self.hi_u.saturating_sub(UR_BASE) as usize].fill(0);
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
        if r < UR_BASE {
            self.ready.get(r as usize)
        } else {
            self.ready_u.get((r - UR_BASE) as usize)
        }
        .copied()
        .unwrap_or(0)
    }

    /// A load's write of `r` completed at `now`.
    #[inline]
    pub fn complete(&mut self, r: Reg, now: Cycle) {
        self.set(r, now);
    }

    #[inline]
    pub(super) fn set(&mut self, r: Reg, t: Cycle) {
        if is_zero_reg(r) || r as usize >= NREGS {
            return;
        }
        let (v, i) = if r < UR_BASE {
            self.hi_r = self.hi_r.max(r + 1);
            (&mut self.ready, r as usize)
        } else {
            self.hi_u = self.hi_u.max(r + 1);
            (&mut self.ready_u, (r - UR_BASE) as usize)
        };
        match v.get_mut(i) {
            Some(e) => *e = t,
            None => grow(v, i, t),
        }
    }
}

/// A slot's first write past the end of `v`: grows it (to a power of two, so a kernel's
/// registers take a few growths per slot over a whole run) and writes `t` at `i`.
#[cold]
#[inline(never)]
fn grow(v: &mut Vec<Cycle>, i: usize, t: Cycle) {
    v.resize((i + 1).next_power_of_two().max(16), 0);
    v[i] = t;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_read_zero_until_written_and_again_after_a_relaunch() {
        let mut w = EvWarp::default();
        w.launch(0);
        assert_eq!((w.reg(5), w.reg(UR_BASE + 3), w.reg(200)), (0, 0, 0));
        w.set(5, 17);
        w.set(UR_BASE + 3, 23);
        w.set(200, PENDING);
        // Zero registers and names past NREGS are never written.
        w.set(crate::trace::REG_RZ, 9);
        w.set(NREGS as Reg, 9);
        assert_eq!(
            (w.reg(5), w.reg(UR_BASE + 3), w.reg(200)),
            (17, 23, PENDING)
        );
        assert_eq!(
            (w.reg(4), w.reg(201), w.reg(crate::trace::REG_RZ)),
            (0, 0, 0)
        );
        assert_eq!(w.reg(NREGS as Reg), 0);
        w.launch(40);
        assert_eq!((w.reg(5), w.reg(UR_BASE + 3), w.reg(200)), (0, 0, 0));
        w.set(6, 41);
        assert_eq!((w.reg(5), w.reg(6)), (0, 41));
    }
}
