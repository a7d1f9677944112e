//! The event front end's stall accounting (split from [`super`]): the reason a sub-core
//! gives for a cycle it does not issue, and its refresh after the SM's step (module docs of
//! `event`: approximations). Refreshed only when something was filed or issued since it was
//! computed (`EvSched::stale`).

use super::super::subcore::SubCore;
use super::super::SmShared;
use super::{pc_slot, K_RETIRE, K_UNIT};
use crate::stats::StallKind;

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
