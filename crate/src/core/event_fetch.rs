//! The event front end's fetch model and issue statistics (split from [`super::event`]):
//! fetch groups per sub-core fetch unit with L0I / L1I probes, filling a warp's instruction
//! buffer right after each issue (see the approximations in `event`'s docs). A sub-core's
//! fetches come in time order, so a probe of the line it probed last (its L0's most recently
//! used line) is answered from a memo (`EvSched::l0_last`) with the cycle the probe would give
//! and no change to the LRU order: the same results, without the tag walk. In `fast`
//! (`event_ahead`) warps issue out of time order, so the sub-core's fetch unit is not shared:
//! each warp's fetches wait only for its own previous fetch.

use super::ctx::StepCtx;
use super::event::IBUF;
use super::subcore::SubCore;
use super::{IssueEvent, SmShared};
use crate::trace::TraceInst;
use crate::Cycle;

impl SubCore {
    /// Fetches for warp `wi` from cycle `t` until its instruction buffer is full: one fetch
    /// group (consecutive instructions of one line, at most `min(fetch_width, decode_width)`)
    /// per fetch; the sub-core's fetch unit takes one fetch at a time and is free again when
    /// that fetch is decoded; an L0 I-cache miss goes to the SM's L1I (no arbiter modelled).
    /// Instructions decoded in cycle d issue from d + 1 (the cycle model's order: issue, decode,
    /// fetch within a cycle).
    #[inline(always)]
    pub(super) fn ev_fetch(&mut self, sh: &mut SmShared, ctx: &StepCtx, wi: usize, t: Cycle) {
        let cap = (sh.p.ibuffer as usize).clamp(1, IBUF) as u32;
        let w = &sh.warps[wi];
        let (head, fetched) = (w.ib.head, w.ev.fetched);
        if fetched >= w.n_insts || fetched - head.min(fetched) >= cap {
            return;
        }
        if fetched - head.min(fetched) + 1 == cap && self.fetch_refill(sh, ctx, wi, t) {
            return;
        }
        self.ev_fetch_groups(sh, ctx, wi, t);
    }

    /// [`Self::ev_fetch`] of the refill after an issue (one free entry, so a group of one)
    /// when the instruction lies on the line the sub-core's L0 probed last (`l0_last`): the
    /// loop of [`Self::ev_fetch_groups`] for that case, without its set-up. False (nothing
    /// done) in any other case.
    #[inline]
    fn fetch_refill(&mut self, sh: &mut SmShared, ctx: &StepCtx, wi: usize, t: Cycle) -> bool {
        let Some((l0_line, h)) = self.ev.l0_last else {
            return false;
        };
        if !sh.p.fetch.subcore {
            return false;
        }
        let w = &sh.warps[wi];
        let fetched = w.ev.fetched;
        let insts = sh.ctas[w.cta as usize].trace.warp(w.widx as usize);
        let pc = insts.pc(fetched as usize);
        let addr = ctx.kernels[w.kernel as usize].code_base + pc as u64;
        if addr >> self.fetch.l0.line_bytes().trailing_zeros() != l0_line {
            return false;
        }
        if sh.p.fetch.taken_branch_delay > 0
            && super::fetch::is_jump_target(&insts, fetched as usize, sh.p.fetch.inst_bytes)
        {
            return false; // a jump target: the general case waits for the branch
        }
        let unit_free = if super::mem_direct::is_direct(sh) {
            0
        } else {
            self.ev.fetch_free
        };
        let f = t.max(w.ev.fetch_free).max(unit_free);
        sh.stats.subcores[self.id].l0i_hits += 1;
        let d = (h.max(f) + self.fetch.l0.latency as u64).max(f + 1);
        self.ev.fetch_free = d;
        let e = &mut sh.warps[wi].ev;
        e.avail[fetched as usize % IBUF] = d + 1;
        e.fetched = fetched + 1;
        e.fetch_free = d;
        true
    }

    /// `fast`'s [`Self::ev_fetch`] after an issue at `t` in the run-ahead loop
    /// (`event_ahead`): [`Self::fetch_refill`]'s case inline, its L0 hit counted in `l0_hits`
    /// (added to the statistics at the run's end). The sub-core's fetch unit is not shared in
    /// `fast`, so its `fetch_free` is not kept.
    #[inline(always)]
    pub(super) fn ahead_fetch(
        &mut self,
        sh: &mut SmShared,
        ctx: &StepCtx,
        wi: usize,
        t: Cycle,
        l0_hits: &mut u64,
    ) {
        let cap = (sh.p.ibuffer as usize).clamp(1, IBUF) as u32;
        let w = &sh.warps[wi];
        let (head, fetched) = (w.ib.head, w.ev.fetched);
        if fetched >= w.n_insts || fetched - head.min(fetched) >= cap {
            return;
        }
        if fetched - head.min(fetched) + 1 == cap && sh.p.fetch.subcore {
            if let Some((l0_line, h)) = self.ev.l0_last {
                let insts = sh.ctas[w.cta as usize].trace.warp(w.widx as usize);
                let pc = insts.pc(fetched as usize);
                let addr = ctx.kernels[w.kernel as usize].code_base + pc as u64;
                let jump = sh.p.fetch.taken_branch_delay > 0
                    && super::fetch::is_jump_target(
                        &insts,
                        fetched as usize,
                        sh.p.fetch.inst_bytes,
                    );
                if !jump && addr >> self.fetch.l0.line_bytes().trailing_zeros() == l0_line {
                    let f = t.max(w.ev.fetch_free);
                    *l0_hits += 1;
                    let d = (h.max(f) + self.fetch.l0.latency as u64).max(f + 1);
                    let e = &mut sh.warps[wi].ev;
                    e.avail[fetched as usize % IBUF] = d + 1;
                    e.fetched = fetched + 1;
                    e.fetch_free = d;
                    return;
                }
            }
        }
        self.ev_fetch_groups(sh, ctx, wi, t);
    }

    /// [`Self::ev_fetch`]: the general case, group by group.
    #[inline(never)]
    fn ev_fetch_groups(&mut self, sh: &mut SmShared, ctx: &StepCtx, wi: usize, t: Cycle) {
        let cap = (sh.p.ibuffer as usize).clamp(1, IBUF) as u32;
        let w = &sh.warps[wi];
        let (head, n_insts) = (w.ib.head, w.n_insts);
        let mut fetched = w.ev.fetched;
        let (cta, widx) = (w.cta as usize, w.widx as usize);
        let mut warp_free = w.ev.fetch_free;
        let base = ctx.kernels[w.kernel as usize].code_base;
        let fp = sh.p.fetch;
        let direct = super::mem_direct::is_direct(sh);
        let line_bytes = if fp.subcore {
            self.fetch.l0.line_bytes()
        } else {
            sh.l1i.line_bytes()
        };
        loop {
            let queued = fetched - head.min(fetched);
            if fetched >= n_insts || queued >= cap {
                break;
            }
            let insts = sh.ctas[cta].trace.warp(widx);
            // No branch prediction (`frontend.taken_branch_delay`): a jump target is fetched
            // once the branch before it has issued (this call comes right after that issue, at
            // `t`), the delay later; its entries are decoded no earlier than that fetch's L0
            // hit would be (the sub-core's fetch unit is not held meanwhile).
            let mut redirect_at = 0;
            if fp.taken_branch_delay > 0
                && super::fetch::is_jump_target(&insts, fetched as usize, fp.inst_bytes)
            {
                if head < fetched {
                    break;
                }
                redirect_at = t + fp.taken_branch_delay as u64 + self.fetch.l0.latency as u64;
            }
            let max = sh.p.group_limit.min(cap - queued);
            // One free entry (the refill after an issue): a group of one, whatever follows.
            let n = if max <= 1 {
                1
            } else {
                super::fetch::fetch_group(&insts, fetched as usize, max, line_bytes, &fp, base)
            };
            let addr = base + insts.pc(fetched as usize) as u64;
            // `fast` (run-ahead, `event_ahead`): each warp fetches for itself.
            let unit_free = if direct { 0 } else { self.ev.fetch_free };
            let f = t.max(warp_free).max(unit_free);
            // An access to the SM's L1I (on an L0 miss, or as the only level), counted.
            let l1 = |sh: &mut SmShared, lat: u32| {
                let (r, hit) = super::fetch::l1_access(&mut sh.l1i, addr, f, lat, fp.miss_penalty);
                if hit {
                    sh.stats.l1i_hits += 1;
                } else {
                    sh.stats.l1i_misses += 1;
                }
                r
            };
            let ready = if fp.subcore {
                // L0 lines are a power of two (`ICache::line_bytes`).
                let line = addr >> line_bytes.trailing_zeros();
                let lat = self.fetch.l0.latency as u64;
                // `f` only grows from one fetch of the sub-core to the next, so the memo's
                // cycle (the line's fill cycle, or an earlier fetch's) gives max(fill, f).
                let memo = self.ev.l0_last.filter(|&(l, _)| l == line).map(|(_, h)| h);
                let hit = memo.or_else(|| match self.fetch.l0.probe(addr, f) {
                    super::icache::Probe::Hit(h) => Some(h),
                    super::icache::Probe::Miss => None,
                });
                let ready = match hit {
                    Some(h) => {
                        sh.stats.subcores[self.id].l0i_hits += 1;
                        self.ev.l0_last = Some((line, h));
                        h.max(f) + lat
                    }
                    None => {
                        sh.stats.subcores[self.id].l0i_misses += 1;
                        let r = l1(sh, sh.l1i.latency);
                        self.fetch.l0.fill(addr, r);
                        self.ev.l0_last = Some((line, r));
                        r
                    }
                };
                // The stream advances on a probe (a repeat of the memo's line changes nothing).
                if memo.is_none() {
                    let fu = &mut self.fetch;
                    let n = fu
                        .pf
                        .access(addr, f, &mut fu.l0, &mut sh.l1i, fp.miss_penalty);
                    sh.stats.subcores[self.id].l0i_prefetches += n as u64;
                }
                ready
            } else {
                l1(sh, self.fetch.l0.latency)
            };
            // Decoded at `ready` (at the earliest the cycle after the fetch).
            let d = ready.max(f + 1);
            self.ev.fetch_free = d;
            let d = d.max(redirect_at);
            warp_free = d;
            let avail = &mut sh.warps[wi].ev.avail;
            for i in fetched..fetched + n {
                avail[i as usize % IBUF] = d + 1;
            }
            fetched += n;
        }
        let e = &mut sh.warps[wi].ev;
        e.fetched = fetched;
        e.fetch_free = warp_free;
    }
}

/// Issue statistics and the issue log (the cycle front end counts the same).
#[inline(always)]
pub(super) fn count_issue(
    now: Cycle,
    sh: &mut SmShared,
    sc: usize,
    wi: usize,
    kernel: u32,
    inst: &TraceInst,
) {
    let lanes = inst.active_lanes() as u64;
    let ib = sh.p.inst_bytes;
    let st = &mut sh.stats;
    st.warp_insts += 1;
    st.thread_insts += lanes;
    st.subcores[sc].warp_insts += 1;
    st.subcores[sc].thread_insts += lanes;
    let kc = &mut st.kernels[kernel as usize];
    kc.warp_insts += 1;
    kc.thread_insts += lanes;
    if let Some(p) = kc
        .per_pc
        .get_mut(super::event::pc_slot(inst.pc, ib) as usize)
    {
        p.issued += 1;
    }
    if let Some(log) = &mut sh.issue_log {
        log.push(IssueEvent {
            cycle: now,
            subcore: sc as u8,
            warp: wi as u16,
            pc: inst.pc,
        });
    }
}
