//! Warp and CTA slots of an SM.
//!
//! A warp lives in a hardware warp slot (0..max_warps); its sub-core is `slot % subcores`, as the
//! hardware assigns them (seed 001 section 2.1). Its instructions are read from the CTA's trace.

use super::ctx::OpClass;
use super::ibuffer::IBuffer;
use super::scoreboard::Scoreboard;
use crate::stats::StallKind;
use crate::trace::packed::PackedCta;
use crate::Cycle;

/// Everything the warp-local part of the issue check reads. While it is unchanged the
/// cached [`WarpCheck`] is still the answer (the scoreboard's version covers its contents).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckKey {
    age: u64,
    sb: u32,
    head: u32,
    n_insts: u32,
    flags: u8,
    cb: super::modern::CtrlState,
}

/// The warp-local part of the issue check (the sub-core's resources are checked every cycle).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WarpCheck {
    /// Nothing left to issue.
    #[default]
    Skip,
    /// `war_hold`: held only by a write-after-read hazard; `pc`: the instruction blamed.
    Stall {
        kind: StallKind,
        war_hold: bool,
        pc: u32,
    },
    /// The head instruction may issue if its unit / collector allows.
    /// (Modern core) `at`: the stall counter lets it issue from this cycle; `before`: only
    /// dependence-counter increments not yet visible let it issue, until this cycle.
    Ready {
        op: OpClass,
        pc: u32,
        at: Cycle,
        before: Cycle,
    },
}

/// A warp slot. `repr(C)` with the fields the issue stage reads every cycle first (they share
/// the first cache lines; the 700-byte scoreboard comes last, its version first).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct Warp {
    pub active: bool,
    pub at_barrier: bool,
    /// A fetch for this warp is in flight.
    pub fetching: bool,
    /// CTA slot in the SM.
    pub cta: u16,
    /// Warp index inside its CTA trace.
    pub widx: u16,
    /// Kernel launch number.
    pub kernel: u32,
    pub n_insts: u32,
    /// Trace index the instruction buffer's head must reach before the next fetch: one past
    /// a taken branch whose target is next (`frontend.taken_branch_delay`; 0: no wait).
    pub fetch_hold: u32,
    /// First cycle the warp may fetch again: its taken branch's issue plus the redirect.
    pub fetch_at: Cycle,
    /// Instructions issued and not yet completed (collector, unit, memory pipeline).
    pub inflight: u16,
    /// Memory instructions not yet completed (MEMBAR waits for zero).
    pub mem_inflight: u16,
    /// Branches issued and not yet resolved.
    pub branch_pending: u16,
    pub ib: IBuffer,
    /// Launch order on this SM (GTO's "oldest").
    pub age: u64,
    /// Cycle the warp was launched (stats, deadlock report).
    pub launched_at: Cycle,
    /// The inputs the cached issue check (`SmShared::wchk`) was computed from (debug builds
    /// only: they check that every change marked the warp).
    pub chk_key: CheckKey,
    pub sb: Scoreboard,
    /// Control-bit state (modern core).
    pub cb: super::modern::CtrlState,
    /// The event-driven front end's state (`model.frontend = analytical`).
    pub ev: super::event::EvWarp,
}

impl Warp {
    /// The inputs of the warp-local issue check, now.
    #[inline]
    pub fn check_key(&self) -> CheckKey {
        CheckKey {
            age: self.age,
            sb: self.sb.version(),
            head: self.ib.head,
            n_insts: self.n_insts,
            cb: self.cb,
            flags: self.active as u8
                | (self.at_barrier as u8) << 1
                | ((self.branch_pending > 0) as u8) << 2
                | (self.ib.is_empty() as u8) << 3
                | ((self.mem_inflight > 0) as u8) << 4,
        }
    }
    /// Every instruction issued and every one completed.
    #[inline]
    pub fn finished(&self) -> bool {
        self.active
            && self.ib.head >= self.n_insts
            && self.ib.len == 0
            && self.inflight == 0
            && !self.fetching
    }
    /// More instructions to fetch.
    #[inline]
    pub fn wants_fetch(&self) -> bool {
        self.active
            && !self.fetching
            && self.ib.next_fetch() < self.n_insts
            && self.ib.free() > 0
            && self.ib.head >= self.fetch_hold
    }
}

/// A resident CTA and the resources it holds.
#[derive(Clone, Debug, Default)]
pub struct CtaSlot {
    pub active: bool,
    pub trace: PackedCta,
    pub kernel: u32,
    /// Warp slots of this CTA.
    pub warp_slots: Vec<u16>,
    /// Warps not yet finished.
    pub live: u16,
    /// Warps waiting at the barrier.
    pub bar_arrived: u16,
    pub threads: u32,
    /// Warps the CTA occupies (from the block size).
    pub wpc: u32,
    pub regs: u32,
    pub shmem: u32,
}

/// One bit per warp slot of an SM: the issue and fetch stages' "may have changed" marks and
/// their cached answers, kept apart from the (large) warp slots so that a stage walking its
/// warps touches a few words instead of a cache line per warp.
#[derive(Clone, Debug, Default)]
pub struct SlotBits(Vec<u64>);

impl SlotBits {
    /// `n` slots, every bit `on`.
    pub fn new(n: usize, on: bool) -> Self {
        SlotBits(vec![if on { u64::MAX } else { 0 }; n.div_ceil(64).max(1)])
    }
    #[inline]
    pub fn get(&self, w: usize) -> bool {
        self.0[w >> 6] & (1 << (w & 63)) != 0
    }
    #[inline]
    pub fn set(&mut self, w: usize) {
        self.0[w >> 6] |= 1 << (w & 63);
    }
    #[inline]
    pub fn put(&mut self, w: usize, on: bool) {
        let m = 1u64 << (w & 63);
        let x = &mut self.0[w >> 6];
        *x = (*x & !m) | if on { m } else { 0 };
    }
    /// Clears bit `w`, or sets it (growing the set when `w` is beyond it: not for hot paths).
    pub fn assign_grow(&mut self, w: usize, on: bool) {
        if w >> 6 >= self.0.len() {
            self.0.resize((w >> 6) + 1, 0);
        }
        self.put(w, on);
    }
    /// Whether any bit of `self` is set in `a` or in `b`.
    #[inline]
    pub fn meets(&self, a: &SlotBits, b: Option<&SlotBits>) -> bool {
        self.0.iter().enumerate().any(|(i, &m)| {
            let x =
                a.0.get(i).copied().unwrap_or(0) | b.and_then(|b| b.0.get(i).copied()).unwrap_or(0);
            m & x != 0
        })
    }
    /// The bit, cleared.
    #[inline]
    pub fn take(&mut self, w: usize) -> bool {
        let m = 1u64 << (w & 63);
        let x = &mut self.0[w >> 6];
        let on = *x & m != 0;
        *x &= !m;
        on
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_bits() {
        let mut b = SlotBits::new(70, false);
        b.set(3);
        b.set(69);
        assert!(b.get(3) && b.get(69) && !b.get(4) && !b.get(5));
        assert!(b.take(69));
        assert!(!b.take(69));
        b.put(64, true);
        b.put(3, false);
        assert!(b.get(64) && !b.get(3));
        let a = SlotBits::new(65, true);
        assert!(a.get(0) && a.get(64));
        let mut m = SlotBits::default();
        m.assign_grow(130, true);
        assert!(!m.meets(&b, None) && m.meets(&b, Some(&SlotBits::new(192, true))));
        m.assign_grow(64, true);
        assert!(m.meets(&b, None));
        m.assign_grow(64, false);
        assert!(!m.meets(&b, None));
    }
}
