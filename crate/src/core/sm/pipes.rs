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
            let pipe = &self.sh.pipes[p];
            let Some(&e) = pipe.wb.front() else {
                continue;
            };
            let m = &pipe.table[e as usize];
            // The event front end models no register-bank ports (nor does the ALU twin); the
            // modern core's result queue absorbs write conflicts.
            if self.sh.p.analytic_frontend
                || self.sh.p.modern
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
    /// Accel-Sim mode), then each pipeline's coalescer and latches. Only pipelines with
    /// something buffered, latched or dispatched are looked at.
    pub(in crate::core) fn mem_pipes(&mut self, now: Cycle, ctx: &StepCtx) -> bool {
        let sh = &mut self.sh;
        let n = sh.pipes.len();
        // Bit p: pipeline p has buffered requests / something in its latches.
        let (mut buffered, mut latched) = (0u64, 0u64);
        for (p, pipe) in sh.pipes.iter().enumerate() {
            buffered |= (!pipe.buf.is_empty() as u64) << p;
            latched |= ((pipe.dispatch.is_some() || pipe.addr.is_some()) as u64) << p;
        }
        if buffered | latched == 0 {
            return false;
        }
        let mut ch = false;
        if buffered != 0 {
            ch = Self::arbitrate(sh, now, n);
        }
        let mut l = latched;
        while l != 0 {
            let p = l.trailing_zeros() as usize;
            l &= l - 1;
            let before = sh.pipes[p].buf.len();
            let coalescing = sh.pipes[p].addr;
            let (c, empty) = sh.pipes[p].coalesce_step(sh.p.coalesce_per_cycle);
            ch |= c;
            if let (Some(e), None, true) = (coalescing, sh.pipes[p].addr, sh.p.modern) {
                sh.sources_read(p, e as usize);
            }
            if sh.pipes[p].buf.len() != before {
                let bank_of = bank_fn(sh.p.coalesce.line_bytes, sh.p.l1d_banks);
                sh.pipes[p].note_needs(before, bank_of);
            }
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
                let wt = sh.ctas[w.cta as usize].trace.warp(w.widx as usize);
                let inst = wt.inst(m.idx as usize);
                let addrs = wt.addrs(m.idx as usize, &mut sh.lanes);
                let op = kctx.ops[inst.op.0 as usize];
                let tag = ((p as u64) << 8) | e as u64;
                let pipe = &mut sh.pipes[p];
                coalesce(
                    inst,
                    addrs,
                    op.space,
                    op.kind,
                    &kctx.info,
                    &sh.p.coalesce,
                    tag,
                    &mut pipe.gen,
                    &mut pipe.lines,
                );
                pipe.table[e as usize].remaining = pipe.gen.len() as u16;
                ch = true;
            }
        }
        ch
    }

    /// The request arbiter: from pipeline `mem_rr` on, each pipeline offers its oldest request
    /// whose L1D bank (or shared / constant port) is still free this cycle; the first refusal
    /// of the memory (back-pressure) ends the cycle.
    fn arbitrate(sh: &mut super::SmShared, now: Cycle, n: usize) -> bool {
        let mut ch = false;
        let mut l1d_used = 0u64;
        let mut shared_used = false;
        let mut const_used = false;
        let mut first_grant = None;
        let bank_of = bank_fn(sh.p.coalesce.line_bytes, sh.p.l1d_banks);
        let mut p = sh.mem_rr;
        'pipes: for _ in 0..n {
            if p >= n {
                p -= n;
            }
            let pipe = &mut sh.pipes[p];
            // Every request of this pipeline would find its bank or port taken: nothing to try.
            let ports_used = shared_used as u8 | (const_used as u8) << 1;
            if pipe.buf_banks & !l1d_used == 0 && pipe.buf_ports & !ports_used == 0 {
                p += 1;
                continue;
            }
            let limit = if pipe.baseline {
                pipe.buf.len().min(1)
            } else {
                pipe.buf.len()
            };
            for i in 0..limit {
                let (space, addr) = (pipe.buf[i].space, pipe.buf[i].addr);
                let bit = match space {
                    MemSpace::Shared => {
                        if shared_used {
                            continue;
                        }
                        0
                    }
                    MemSpace::Constant => {
                        if const_used {
                            continue;
                        }
                        0
                    }
                    _ => {
                        let b = 1u64 << (bank_of(addr) & 63);
                        if l1d_used & b != 0 {
                            continue;
                        }
                        b
                    }
                };
                let req = pipe.buf[i];
                match sh.mem.try_request(now, req) {
                    Ok(()) => {
                        match space {
                            MemSpace::Shared => shared_used = true,
                            MemSpace::Constant => const_used = true,
                            _ => l1d_used |= bit,
                        }
                        pipe.take_buffered(i);
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
            p += 1;
        }
        if let Some(p) = first_grant {
            sh.mem_rr = p + 1;
        }
        ch
    }
}

/// The L1D bank of an address: shifts and masks when the sizes are powers of two.
#[inline]
fn bank_fn(lb: u64, nb: usize) -> impl Fn(u64) -> usize {
    let pow2 = lb.is_power_of_two() && nb.is_power_of_two();
    let (shift, mask) = (lb.trailing_zeros(), nb.wrapping_sub(1));
    move |a: u64| {
        if pow2 {
            (a >> shift) as usize & mask
        } else {
            (a / lb) as usize % nb
        }
    }
}
