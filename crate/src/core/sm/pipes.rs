//! The SM's memory side per core cycle: replies from its L1D/shared memory, the write-back
//! latches of the memory pipelines, the request arbiter and the coalescers (split from
//! `sm.rs`; seed 001 Figure 3's LDST path).
//!
//! ```text
//!  SmMem replies ─> pipeline table (remaining--) ─> write-back latch ─> scoreboard release
//!  pipeline buffers ─RR arbiter (one per L1D bank, shared, constant)─> SmMem::try_request
//!  dispatch latch ─> address latch ─> coalescer ─> pipeline buffer
//! ```

use super::Sm;
use crate::core::ctx::StepCtx;
use crate::core::ldst::coalesce;
use crate::trace::MemSpace;
use crate::Cycle;

impl Sm {
    pub(in crate::core) fn mem_responses(&mut self, now: Cycle) -> bool {
        let sh = &mut self.sh;
        sh.mem.tick(now, &mut sh.outbox);
        let mut ch = false;
        while let Some(r) = sh.mem.pop_response(now) {
            let pipe = (r.tag >> 8) as usize;
            let e = (r.tag & 0xff) as usize;
            let m = &mut sh.pipes[pipe].table[e];
            m.remaining -= 1;
            if m.remaining == 0 {
                if m.writes_regs() {
                    sh.pipes[pipe].wb.push_back(e as u8);
                } else {
                    sh.complete_mem(now, pipe, e);
                }
            }
            ch = true;
        }
        ch
    }

    /// Write-back latch of each memory pipeline: one completed load per cycle, if its
    /// destination banks have free ports.
    pub(in crate::core) fn mem_writeback(&mut self, now: Cycle) -> bool {
        let mut ch = false;
        for p in 0..self.sh.pipes.len() {
            let Some(&e) = self.sh.pipes[p].wb.front() else {
                continue;
            };
            let m = self.sh.pipes[p].table[e as usize];
            // The event front end models no register-bank ports (nor does the ALU twin).
            if self.sh.p.analytic_frontend
                || self.subcores[m.subcore as usize]
                    .rf
                    .take_writes(&m.dst[..m.ndst as usize])
            {
                self.sh.pipes[p].wb.pop_front();
                self.sh.complete_mem(now, p, e as usize);
            } else {
                self.sh.stats.mem.wb_stalls += 1;
            }
            ch = true;
        }
        ch
    }

    /// Request arbiter (round robin over pipelines, out of order within a buffer unless in
    /// Accel-Sim mode), then each pipeline's coalescer and latches.
    pub(in crate::core) fn mem_pipes(&mut self, now: Cycle, ctx: &StepCtx) -> bool {
        let sh = &mut self.sh;
        if sh
            .pipes
            .iter()
            .all(|p| p.dispatch.is_none() && p.addr.is_none() && p.buf.is_empty())
        {
            return false;
        }
        let n = sh.pipes.len();
        let mut ch = false;
        let mut l1d_used = [false; 64];
        let mut shared_used = false;
        let mut const_used = false;
        let mut first_grant = None;
        // The L1D bank of an address: shifts and masks when the sizes are powers of two.
        let (lb, nb) = (sh.p.coalesce.line_bytes, sh.p.l1d_banks);
        let pow2 = lb.is_power_of_two() && nb.is_power_of_two();
        let (shift, mask) = (lb.trailing_zeros(), nb.wrapping_sub(1));
        let bank_of = |a: u64| {
            if pow2 {
                (a >> shift) as usize & mask
            } else {
                (a / lb) as usize % nb
            }
        };
        'pipes: for k in 0..n {
            let p = (sh.mem_rr + k) % n;
            let limit = if sh.pipes[p].baseline {
                sh.pipes[p].buf.len().min(1)
            } else {
                sh.pipes[p].buf.len()
            };
            for i in 0..limit {
                let (space, addr) = (sh.pipes[p].buf[i].space, sh.pipes[p].buf[i].addr);
                let busy = match space {
                    MemSpace::Shared => &mut shared_used,
                    MemSpace::Constant => &mut const_used,
                    _ => &mut l1d_used[bank_of(addr)],
                };
                if *busy {
                    continue;
                }
                let req = sh.pipes[p].buf[i];
                match sh.mem.try_request(now, req) {
                    Ok(()) => {
                        *busy = true;
                        sh.pipes[p].buf.remove(i);
                        sh.stats.mem.count_request(&req);
                        first_grant.get_or_insert(p);
                        ch = true;
                        break;
                    }
                    Err(_) => {
                        sh.stats.mem.req_backpressure += 1;
                        ch = true;
                        break 'pipes;
                    }
                }
            }
        }
        if let Some(p) = first_grant {
            sh.mem_rr = p + 1;
        }
        for p in 0..n {
            let (c, empty) = sh.pipes[p].coalesce_step(sh.p.coalesce_per_cycle);
            ch |= c;
            if let Some(e) = empty {
                let e = e as usize;
                if sh.pipes[p].table[e].writes_regs() {
                    sh.pipes[p].wb.push_back(e as u8);
                } else {
                    sh.complete_mem(now, p, e);
                }
            }
            if let Some(e) = sh.pipes[p].latch_step(now) {
                let m = sh.pipes[p].table[e as usize];
                let w = &sh.warps[m.warp as usize];
                let kctx = &ctx.kernels[w.kernel as usize];
                let wt = &sh.ctas[w.cta as usize].trace.warps[w.widx as usize];
                let inst = wt.insts[m.idx as usize];
                let op = kctx.ops[inst.op.0 as usize];
                let tag = ((p as u64) << 8) | e as u64;
                let mut gen = std::mem::take(&mut sh.pipes[p].gen);
                coalesce(
                    &inst,
                    wt,
                    op.space,
                    op.kind,
                    &kctx.info,
                    &sh.p.coalesce,
                    tag,
                    &mut gen,
                    &mut sh.pipes[p].lines,
                );
                sh.pipes[p].table[e as usize].remaining = gen.len() as u16;
                sh.pipes[p].gen = gen;
                ch = true;
            }
        }
        ch
    }
}
