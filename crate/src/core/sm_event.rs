//! The SM's cycle with the event-driven front end (`model.frontend = analytical`, see
//! [`super::event`]): the memory side as with the cycle front end, then each sub-core's due
//! heap entries and issues; warps woken by memory completions, barrier releases and launches
//! are filed between the stages.
//!
//! ```text
//!  step_events(now): memory responses ─> write-back latches ─> request arbiter, coalescers
//!                    ─> wakes ─> per sub-core ev_step ─> wakes ─> finished warps ─> wakes
//!                    ─> each sub-core's stall for the cycles it may now sleep through
//! ```

use super::ctx::StepCtx;
use super::sm::Sm;
use crate::Cycle;

impl Sm {
    /// One cycle with the event-driven front end (`core::event`): the memory side as in the
    /// cycle front end, then each sub-core's due heap entries and issues.
    pub(super) fn step_events(&mut self, now: Cycle, ctx: &StepCtx) -> bool {
        let n = self.subcores.len();
        let direct = super::mem_direct::is_direct(&self.sh);
        if direct {
            // Run-ahead (`event_ahead`) issues wakes from this cycle on.
            for sc in &mut self.subcores {
                sc.ev.set_now(now);
            }
        }
        let mut ch = self.mem_responses(now);
        // Idle pipelines (always so in `fast`, whose memory instructions go straight to the
        // twin): neither write-back nor the request stages have anything to do.
        debug_assert!(!direct || self.sh.pipes.iter().all(|p| p.is_idle()));
        if !direct && !self.sh.pipes.iter().all(|p| p.is_idle()) {
            ch |= self.mem_writeback(now);
            ch |= self.mem_pipes(now, ctx);
        }
        ch |= self.drain_wakes(ctx);
        let start = (now % n as u64) as usize;
        for k in 0..n {
            ch |= self.subcores[(start + k) % n].ev_step(now, &mut self.sh, ctx);
        }
        ch |= self.drain_wakes(ctx);
        ch |= self.finish_warps();
        ch |= self.drain_wakes(ctx);
        for sc in &mut self.subcores {
            sc.ev_refresh_stall(&self.sh);
        }
        if self.resident_ctas() > 0 {
            self.sh.stats.active_cycles += 1;
        }
        ch
    }

    /// Files the warps woken by memory completions, barrier releases and launches.
    #[inline]
    fn drain_wakes(&mut self, ctx: &StepCtx) -> bool {
        if self.sh.ev_wake.is_empty() {
            return false;
        }
        self.drain_wakes_some(ctx)
    }

    #[inline(never)]
    fn drain_wakes_some(&mut self, ctx: &StepCtx) -> bool {
        use super::event::EvState;
        let n = self.subcores.len();
        let mut i = 0;
        while i < self.sh.ev_wake.len() {
            let (w, at) = self.sh.ev_wake[i];
            i += 1;
            let st = self.sh.warps[w as usize].ev.state;
            if matches!(st, EvState::Heap | EvState::Ready) || !self.sh.warps[w as usize].active {
                continue;
            }
            self.subcores[w as usize % n].ev_eval(&mut self.sh, ctx, w as usize, at);
        }
        self.sh.ev_wake.clear();
        true
    }
}
