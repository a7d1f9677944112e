//! The event front end while nothing happens (split from [`super`]): when a sub-core next
//! acts by itself (`next_event`), whether this cycle's step would only repeat its stall
//! (`quiet`), the reason a sub-core gives for a cycle it does not issue, and its refresh after
//! the SM's step (module docs of `event`: approximations). Refreshed only when something was
//! filed or issued since it was computed (`EvSched::stale`).

use super::super::subcore::SubCore;
use super::super::SmShared;
use super::{pc_slot, EvSched, K_RETIRE, K_UNIT};
use crate::stats::StallKind;
use crate::Cycle;

impl EvSched {
    /// Earliest cycle after `now` at which this sub-core's front end acts by itself.
    #[inline]
    pub fn next_event(&self, now: Cycle) -> Option<Cycle> {
        if self.nready > 0 || self.open != 0 {
            return Some(now + 1);
        }
        // The time of `top()`, without its warp order (the `soon` bucket is one time).
        let h = self.heap.peek_time();
        let t = if self.soon.is_empty() {
            h
        } else {
            Some(h.map_or(self.soon_at, |h| h.min(self.soon_at)))
        };
        t.map(|t| t.max(now + 1))
    }

    /// Nothing due at `now` and nothing filed, issued or refused since the sub-core's stall
    /// was computed: a step would only account `last_stall` again.
    #[inline]
    pub(super) fn quiet(&self, now: Cycle) -> bool {
        !self.stale
            && self.nready == 0
            && self.open == 0
            && self.mem_full.is_none()
            && (self.soon.is_empty() || self.soon_at > now)
            && self.heap.peek_time().is_none_or(|t| t > now)
    }
}

impl SubCore {
    /// After the SM's step: what the following cycles account while nothing happens (the
    /// SM may sleep until its next event; `Sm::skip` replays this).
    pub fn ev_refresh_stall(&mut self, sh: &SmShared) {
        if !self.ev.stale {
            return;
        }
        self.ev.stale = false;
        let (kind, pc) = self.ev_stall(sh);
        self.last_stall = kind;
        self.last_stall_pc = pc;
    }

    /// This cycle's stall reason when nothing issued (module docs: approximations).
    pub(super) fn ev_stall(&self, sh: &SmShared) -> (StallKind, Option<(u32, u32)>) {
        if let Some(pc) = self.ev.mem_full {
            return (StallKind::MemStructural, Some(pc));
        }
        if self.ev.wait_struct > 0 {
            return (StallKind::MemStructural, self.ev.struct_blame);
        }
        if self.ev.blocked_mem + self.ev.wait_mem > 0 {
            return (StallKind::MemData, self.ev.mem_blame);
        }
        if let Some((_, w, kind)) = self.ev.top() {
            if kind == K_RETIRE {
                return (StallKind::CompData, None);
            }
            let w = if kind == K_UNIT {
                let bits = self.ev.parked[w as usize];
                if bits == 0 {
                    return (StallKind::CompStructural, None);
                }
                bits.trailing_zeros() as usize * sh.p.subcores + self.id
            } else {
                w as usize
            };
            let wp = &sh.warps[w];
            return (
                wp.ev.reason,
                Some((wp.kernel, pc_slot(wp.ev.pc, sh.p.inst_bytes))),
            );
        }
        if self.ev.blocked_bar > 0 {
            return (StallKind::Barrier, None);
        }
        (StallKind::Idle, None)
    }
}

#[cfg(test)]
mod tests {
    use super::super::EvSched;

    /// `next_event` and `quiet` give the time of `top()` (heap and `soon` bucket) without its
    /// warp order, on a seeded stream of filings near and far.
    #[test]
    fn next_event_and_quiet_follow_the_earliest_entry() {
        let mut ev = EvSched::default();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for step in 0..400u64 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let now = step / 3;
            ev.now_hint = now;
            if x >> 63 == 0 {
                ev.push_ready(now + (x >> 58) % 3, ((x >> 40) % 16) as u16);
            } else if let Some((t, _, _)) = ev.top().filter(|e| e.0 <= now) {
                // Take the due entries, as a step would.
                while ev.heap.peek_time().is_some_and(|t| t <= now) {
                    ev.heap.pop();
                }
                if ev.soon_at <= t {
                    ev.soon.clear();
                }
            }
            ev.stale = false;
            let top = ev.top().map(|(t, _, _)| t);
            assert_eq!(
                ev.next_event(now),
                top.map(|t| t.max(now + 1)),
                "step {step}"
            );
            assert_eq!(ev.quiet(now), top.is_none_or(|t| t > now), "step {step}");
        }
    }
}

#[cfg(test)]
mod layout_tests {
    use super::super::EvSched;
    use std::mem::{align_of, offset_of, size_of};

    /// Everything `quiet` and `push_ready` read lies in `EvSched`'s first cache line.
    #[test]
    fn the_step_checks_fill_the_first_line() {
        assert_eq!(align_of::<EvSched>(), 64);
        for end in [
            offset_of!(EvSched, stale) + 1,
            offset_of!(EvSched, nready) + 4,
            offset_of!(EvSched, open) + 4,
            offset_of!(EvSched, mem_full) + size_of::<Option<(u32, u32)>>(),
            offset_of!(EvSched, soon_at) + 8,
            offset_of!(EvSched, now_hint) + 8,
            offset_of!(EvSched, soon) + size_of::<Vec<u16>>(),
        ] {
            assert!(end <= 64, "a step check's field ends at byte {end}");
        }
    }
}
