//! Warp schedulers: one per sub-core, choosing among the sub-core's warps.
//!
//! - GTO (greedy then oldest, Rogers et al. 2012): keep issuing from the last warp until it
//!   stalls, then the oldest ready warp.
//! - CGGTY (compiler-guided greedy then youngest, modern-gpu-cores.md section 2): the last warp
//!   while it may issue (the control bits say when), then the youngest ready warp.
//! - LRR (loose round robin): start after the warp that issued last.
//! - Two-level (Narasiman et al. 2011): an active set of `two_level_active` warps scheduled round
//!   robin; a warp waiting on memory data or at a barrier is moved to the back of the pending
//!   queue and the pending head takes its place.
//!
//! ```text
//!  GTO:   [last] + age order          LRR: warps rotated after the last issuer
//!  2-lvl: active set (RR) <──promote── pending FIFO <──demote (memory/barrier)─ active
//! ```

use std::collections::VecDeque;

use super::warp::SlotBits;
use crate::config::SchedPolicy;

#[derive(Clone, Debug)]
pub struct Scheduler {
    pub policy: SchedPolicy,
    /// Warp slots of this scheduler in launch (age) order.
    pub warps: Vec<u16>,
    last: Option<u16>,
    /// LRR / two-level position.
    rr: usize,
    active: Vec<u16>,
    pending: VecDeque<u16>,
    active_cap: usize,
    /// The warp slots of `warps`, as bits (`SlotBits::meets` against the SM's marks).
    pub members: SlotBits,
    /// Bumped by every change of the order ([`Scheduler::version`]).
    ver: u32,
}

impl Scheduler {
    pub fn new(policy: SchedPolicy, max_warps: usize, active_cap: u32) -> Self {
        Scheduler {
            policy,
            warps: Vec::with_capacity(max_warps),
            last: None,
            rr: 0,
            active: Vec::with_capacity(max_warps),
            pending: VecDeque::with_capacity(max_warps),
            active_cap: active_cap.max(1) as usize,
            members: SlotBits::default(),
            ver: 0,
        }
    }

    /// Changes whenever [`Scheduler::order`] would: equal versions, equal orders.
    #[inline]
    pub fn version(&self) -> u32 {
        self.ver
    }

    pub fn add(&mut self, w: u16) {
        self.ver = self.ver.wrapping_add(1);
        self.members.assign_grow(w as usize, true);
        self.warps.push(w);
        if self.active.len() < self.active_cap {
            self.active.push(w);
        } else {
            self.pending.push_back(w);
        }
    }

    pub fn remove(&mut self, w: u16) {
        self.ver = self.ver.wrapping_add(1);
        self.members.assign_grow(w as usize, false);
        self.warps.retain(|&x| x != w);
        if let Some(p) = self.active.iter().position(|&x| x == w) {
            self.active.remove(p);
            if p < self.rr {
                self.rr -= 1;
            }
        }
        self.pending.retain(|&x| x != w);
        if self.last == Some(w) {
            self.last = None;
        }
        while self.active.len() < self.active_cap {
            match self.pending.pop_front() {
                Some(p) => self.active.push(p),
                None => break,
            }
        }
    }

    /// The warps in priority order for this cycle.
    pub fn order(&self, out: &mut Vec<u16>) {
        out.clear();
        match self.policy {
            SchedPolicy::Gto => {
                if let Some(l) = self.last {
                    out.push(l);
                }
                out.extend(self.warps.iter().copied().filter(|&w| Some(w) != self.last));
            }
            SchedPolicy::Cggty => {
                if let Some(l) = self.last {
                    out.push(l);
                }
                let rest = self.warps.iter().rev().copied();
                out.extend(rest.filter(|&w| Some(w) != self.last));
            }
            SchedPolicy::Lrr => {
                let n = self.warps.len();
                out.extend((0..n).map(|k| self.warps[(self.rr + k) % n]));
            }
            SchedPolicy::TwoLevel => {
                let n = self.active.len();
                out.extend((0..n).map(|k| self.active[(self.rr + k) % n]));
            }
        }
    }

    /// `w` issued this cycle.
    pub fn issued(&mut self, w: u16) {
        let (last, rr) = (self.last, self.rr);
        self.last = Some(w);
        match self.policy {
            SchedPolicy::Gto | SchedPolicy::Cggty => {}
            SchedPolicy::Lrr => {
                if let Some(p) = self.warps.iter().position(|&x| x == w) {
                    self.rr = p + 1;
                }
            }
            SchedPolicy::TwoLevel => {
                if let Some(p) = self.active.iter().position(|&x| x == w) {
                    self.rr = p + 1;
                }
            }
        }
        if last != self.last || rr != self.rr {
            self.ver = self.ver.wrapping_add(1);
        }
    }

    /// Two-level: moves `w` (waiting on memory or at a barrier) out of the active set when another warp waits.
    /// Returns true when the sets changed. Called for every memory-stalled warp every cycle,
    /// so inlined: under the other policies it is one comparison.
    #[inline]
    pub fn demote(&mut self, w: u16) -> bool {
        if self.policy != SchedPolicy::TwoLevel || self.pending.is_empty() {
            return false;
        }
        if let Some(p) = self.active.iter().position(|&x| x == w) {
            self.active.remove(p);
            if p < self.rr {
                self.rr -= 1;
            }
            self.pending.push_back(w);
            if let Some(n) = self.pending.pop_front() {
                self.active.push(n);
            }
            self.ver = self.ver.wrapping_add(1);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders() {
        let mut g = Scheduler::new(SchedPolicy::Gto, 8, 2);
        let mut l = Scheduler::new(SchedPolicy::Lrr, 8, 2);
        let mut t = Scheduler::new(SchedPolicy::TwoLevel, 8, 2);
        let mut c = Scheduler::new(SchedPolicy::Cggty, 8, 2);
        for w in [4, 8, 12] {
            c.add(w);
            g.add(w);
            l.add(w);
            t.add(w);
        }
        let mut o = Vec::new();
        g.issued(8);
        let v = g.version();
        g.order(&mut o);
        assert_eq!(o, [8, 4, 12]);
        // The same warp again changes nothing under GTO; another warp does.
        g.issued(8);
        assert_eq!(g.version(), v);
        g.issued(4);
        assert_ne!(g.version(), v);
        c.order(&mut o);
        assert_eq!(o, [12, 8, 4]);
        c.issued(4);
        c.order(&mut o);
        assert_eq!(o, [4, 12, 8]);
        l.issued(8);
        l.order(&mut o);
        assert_eq!(o, [12, 4, 8]);
        t.order(&mut o);
        assert_eq!(o, [4, 8]);
        assert!(t.demote(4));
        t.order(&mut o);
        assert_eq!(o, [8, 12]);
        t.remove(8);
        t.order(&mut o);
        assert_eq!(o, [12, 4]);
    }
}
