//! Memory instructions straight into the analytical memory (`fast` mode: the event front end
//! with `model.memory = analytical`; issue 5). At issue the instruction is coalesced once and
//! each of its requests is timed by [`AnalyticSmMem::request_direct`] (Equation 1 latency plus
//! the bandwidth / MSHR / bank queues); the warp's destination registers become ready at the
//! last response, and the event front end wakes the warp then. Nothing is stepped per cycle:
//! the memory pipeline's latches and arbiter are replaced by a few times kept per pipeline
//! ([`DirectPipe`]) that reproduce the cycle path's timing when nothing contends.
//!
//! ```text
//!  issue at t ─> dispatch latch ─(L = max(t + 1 + dispatch latency, address latch free))─>
//!  address latch: request k pushed at  p_k = max(L + 1 + k / coalesce per cycle,
//!                                                 accept of request k - buffer entries)
//!  arbiter:       request k offered at o_k = max(p_k + 1, previous request's accept + 1)
//!                 (one request per pipeline per cycle)
//!  twin:          (a_k, d_k) = request_direct(o_k): a_k >= o_k once the outstanding and MSHR
//!                 limits admit it; d_k = a_k + 1 + Equation 1 + queue delays
//!  done = max_k d_k (no request: L + 1, a load's write-back L + 2); the registers are ready
//!  then. The dispatch latch is free again at L, the address latch at p_last, the table entry
//!  (at most `MEM_TABLE` instructions per pipeline) at done.
//! ```
//! The coalescer's output is remembered per PC (`mem::functional::memo`): the next warp's
//! access of the same shape, a whole number of lines away, takes it moved (exact). A shared
//! access's one request (its wavefronts and words) repeats a whole number of bank rows
//! (`banks * bank bytes`) away, so shared accesses take the memo with that period.
//!
//! With one request at a time and no queueing this is the cycle path's exact timing (test
//! `engine::tests::hybrid::memory_twin_equals_cycle_model_without_contention`).
//!
//! Approximated against the pipeline path with the same twin:
//! - the whole instruction is timed at issue, so requests of different pipelines reach the
//!   twin's queues in issue order, not in cycle order (the queues are `max(now, ready) +
//!   interval`, so a later request can at worst wait behind an earlier-booked one);
//! - the arbiter takes a pipeline's requests in order (the cycle path may pass a request whose
//!   L1 bank was taken that cycle; the twin's bank queue delays it instead);
//! - one write-back per pipeline per cycle is not modelled (no register-bank ports either);
//! - the statistics: the request counters and `req_backpressure` (cycles a request waited for
//!   the outstanding / MSHR limits) are filled as by the arbiter; the stall stack blames a
//!   warp whose operand a load still fetches (`mem_data`) and a memory instruction held by a
//!   busy pipeline (`mem_struct`), as the blocking path does.

use super::ctx::OpClass;
use super::ctx::StepCtx;
use super::ldst::{coalesce, MEM_TABLE};
use super::mem_port::SmMem;
use super::sm::SmShared;
use crate::mem::functional::memo::{Memo, MemoKey};
use crate::mem::iface::MemRequest;
use crate::trace::{MemSpace, TraceInst};
use crate::Cycle;

/// Accept times remembered per pipeline (the request buffer is at most this deep).
const RING: usize = 64;

/// The timing state of one memory pipeline when instructions go straight to the twin.
#[derive(Clone, Debug)]
pub struct DirectPipe {
    /// Cycle the dispatch latch can take the next instruction.
    pub disp_free: Cycle,
    /// Cycle the address latch can take the next instruction.
    pub addr_free: Cycle,
    /// Cycle the arbiter may take this pipeline's next request.
    pub send_free: Cycle,
    /// Requests sent so far (index into `ring`).
    pub sent: u64,
    /// Accept cycle of request `i` at `ring[i % RING]`.
    pub ring: [Cycle; RING],
    /// Completion of the instruction held in each table entry (free from then on), kept
    /// sorted in a ring from `head`: `table[head]` is the earliest, so
    /// [`DirectPipe::free_at`] scans nothing, and [`issue`]'s completion, mostly the latest,
    /// goes in at the ring's end (an earlier one moves the later ones up). Which entry holds
    /// which instruction is not modelled, only the times.
    pub table: [Cycle; MEM_TABLE],
    /// Where the ring of `table` starts.
    pub head: usize,
    /// Coalescer results by PC, moved by whole lines (`mem::functional::memo`).
    pub memo: Memo<MemRequest>,
}

impl Default for DirectPipe {
    fn default() -> Self {
        DirectPipe {
            disp_free: 0,
            addr_free: 0,
            send_free: 0,
            sent: 0,
            ring: [0; RING],
            table: [0; MEM_TABLE],
            head: 0,
            memo: Memo::default(),
        }
    }
}

impl DirectPipe {
    /// Earliest cycle (at or after `now`) a memory instruction may issue into this pipeline:
    /// the dispatch latch is free and a table entry has completed.
    #[inline]
    pub fn free_at(&self, now: Cycle) -> Cycle {
        debug_assert_eq!(
            self.table[self.head],
            *self.table.iter().min().unwrap_or(&0)
        );
        now.max(self.disp_free).max(self.table[self.head])
    }

    /// The table entry that completed first holds a new instruction until `done`: the ring's
    /// first entry leaves, `done` goes in at its place in the order.
    #[inline]
    fn hold(&mut self, done: Cycle) {
        const M: usize = MEM_TABLE - 1;
        const _: () = assert!(MEM_TABLE.is_power_of_two());
        let t = &mut self.table;
        let h = (self.head + 1) & M;
        self.head = h;
        // The free place is the ring's last (the old first); later entries move up one.
        let mut j = (h + M) & M;
        while j != h {
            let prev = (j + M) & M;
            if t[prev] <= done {
                break;
            }
            t[j] = t[prev];
            j = prev;
        }
        t[j] = done;
    }
}

/// Whether memory instructions of this SM go straight to the analytical memory.
#[inline]
pub fn is_direct(sh: &SmShared) -> bool {
    matches!(sh.mem, SmMem::Analytic(_))
}

/// Issues warp `wi`'s memory instruction `idx` (`inst`) at `now` into pipeline `p` (the caller
/// checked [`DirectPipe::free_at`]); returns the cycle it completes (its registers are written).
#[allow(clippy::too_many_arguments)]
pub fn issue(
    now: Cycle,
    sh: &mut SmShared,
    ctx: &StepCtx,
    wi: usize,
    p: usize,
    idx: u32,
    inst: &TraceInst,
    op: OpClass,
) -> Cycle {
    let writes_regs = writes_regs(inst, op);
    let w = &sh.warps[wi];
    let kctx = &ctx.kernels[w.kernel as usize];
    let addrs = sh.ctas[w.cta as usize]
        .trace
        .warp(w.widx as usize)
        .addrs(idx as usize, &mut sh.lanes);
    let pipe = &mut sh.pipes[p];
    let mut gen = std::mem::take(&mut pipe.gen);
    // Global, local and shared accesses of a regular shape: the memo
    // (`mem::functional::memo`). A shared access's one request (its bank conflicts) is the
    // same for addresses moved by a whole number of bank rows (banks * bank bytes), so that
    // period stands for the line there.
    let period = match op.space {
        MemSpace::Global | MemSpace::Local => sh.p.coalesce.line_bytes,
        MemSpace::Shared => sh.p.coalesce.shmem_banks * sh.p.coalesce.shmem_bank_bytes,
        _ => 0,
    };
    let key = if period > 0 && inst.mem_width > 0 {
        let bits = op.kind as u64 | (op.space as u64) << 8;
        MemoKey::of(
            inst.pc,
            bits,
            inst.mask,
            inst.mem_width as u32,
            inst.shape,
            addrs,
            period,
        )
    } else {
        None
    };
    let lines = &mut pipe.lines;
    pipe.direct.memo.get_or(key, &mut gen, |gen| {
        coalesce(
            inst,
            addrs,
            op.space,
            op.kind,
            &kctx.info,
            &sh.p.coalesce,
            0,
            gen,
            lines,
        )
    });
    let d = &mut pipe.direct;
    let per = sh.p.coalesce_per_cycle.max(1) as u64;
    let cap = pipe.buf_cap.clamp(1, RING) as u64;
    let l = (now + 1 + sh.p.mem_dispatch_latency.max(1) as u64).max(d.addr_free);
    let SmMem::Analytic(m) = &mut sh.mem else {
        unreachable!("is_direct checked the analytical memory")
    };
    let st = &mut sh.stats.mem;
    let mut last_push = l + 1;
    let mut last_acc = l;
    let mut done = if gen.is_empty() {
        l + 1 + writes_regs as u64
    } else {
        0
    };
    for (k, req) in gen.iter().enumerate() {
        let mut push = l + 1 + k as u64 / per;
        if d.sent >= cap {
            push = push.max(d.ring[((d.sent - cap) % RING as u64) as usize]);
        }
        let offer = (push + 1).max(d.send_free);
        let (acc, due) = m.request_direct(offer, req);
        st.req_backpressure += acc - offer;
        st.count_request(req);
        d.ring[(d.sent % RING as u64) as usize] = acc;
        d.sent += 1;
        d.send_free = acc + 1;
        done = done.max(due);
        last_push = push;
        last_acc = acc;
    }
    d.addr_free = last_push;
    d.disp_free = if pipe.baseline {
        // Accel-Sim's LDST unit: one instruction until all its requests are sent.
        l.max(last_push).max(last_acc)
    } else {
        l
    };
    // The table entry that completed first holds this instruction until `done`.
    d.hold(done);
    pipe.gen = gen;
    done
}

/// Whether the instruction writes registers when it completes (loads, atomics).
#[inline]
pub fn writes_regs(inst: &TraceInst, op: OpClass) -> bool {
    super::ldst::writes_regs(inst.ndst, op.kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sorted ring gives the earliest entry as the scan of a plain table that replaces
    /// its first earliest entry did.
    #[test]
    fn table_heap_keeps_the_earliest_as_a_scan() {
        let mut d = DirectPipe::default();
        let mut plain = [0 as Cycle; MEM_TABLE];
        let mut x: u64 = 12345;
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let min = *plain.iter().min().unwrap();
            assert_eq!(d.free_at(0), min);
            let done = min + (x >> 58);
            let e = plain.iter().position(|&c| c == min).unwrap();
            plain[e] = done;
            d.hold(done);
            let mut a = plain;
            let mut b = d.table;
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b);
        }
    }
}
