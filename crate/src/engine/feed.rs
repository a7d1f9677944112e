//! A kernel's start and its CTAs' way from the trace stream to the block scheduler: occupancy
//! and opcode classes at the start, then CTAs decoded (or taken decoded ahead) and queued one
//! cycle's worth at a time, finished CTAs' traces handed back to the stream's decoder.

use super::{occupancy, Gpu, KernelCtx, KernelRun};
use crate::trace::check;
use crate::trace::packed::pack_above;
use crate::trace::{KernelInfo, KernelStream, OpTable};
use crate::{Error, Result};

impl Gpu {
    /// Starts a kernel: occupancy, opcode classes, code address. Its CTAs arrive through
    /// [`Gpu::feed_ctas`] (streamed: the kernel is never held whole).
    pub(super) fn start_kernel(
        &mut self,
        mut info: KernelInfo,
        ops: &OpTable,
        trace_index: usize,
        stream: u64,
    ) -> Result<()> {
        if info.nregs > self.cfg.sm.max_regs_per_thread.max(1) {
            // Some real traces carry garbage here (accelsim-my_app says 21955): run the kernel
            // without a register limit rather than refuse it, and say so.
            self.warnings.push(format!(
                "kernel `{}`: header says {} registers per thread (more than sm.max_regs_per_thread = {}); \
                 occupancy ignores registers for it",
                crate::error::shown(&info.name), info.nregs, self.cfg.sm.max_regs_per_thread
            ));
            info.nregs = 0;
        }
        let occ = occupancy(&info, &self.cfg)?;
        let launch = self.kernels.len() as u32;
        let slot = match self.code_slots.iter().position(|n| *n == info.name) {
            Some(s) => s,
            None => {
                self.code_slots.push(info.name.clone());
                self.code_slots.len() - 1
            }
        };
        // Seed 001: distinct code addresses per kernel (Accel-Sim gives them all address 0).
        let code_base = if self.cfg.features.subcore_frontend {
            slot as u64 * self.cfg.frontend.kernel_code_stride
        } else {
            0
        };
        let mut ctx = KernelCtx {
            launch,
            info,
            ops: Vec::new(),
            op_names: Vec::new(),
            code_base,
            pc_slots: 1,
            regs_per_warp: occ.regs_per_warp,
            shmem_per_cta: occ.shmem_per_cta,
            max_ctas_per_sm: occ.ctas_per_sm,
        };
        ctx.refresh_ops(ops, &self.cfg);
        self.warn_unknown(&ctx.info.name, ops, 0);
        self.sched.start_run(KernelRun {
            launch,
            trace_index,
            stream,
            ctas_total: 0,
            ctas_issued: 0,
            ctas_done: 0,
            launched_at: self.now,
            first_cta_at: None,
            end_at: None,
            occupancy: occ,
        });
        self.kernels.push(ctx);
        self.sched.issuing = Some(launch);
        self.sched.more = true;
        self.sched.ready_at = self.now + self.cfg.sm.kernel_launch_latency as u64;
        Ok(())
    }

    /// Hands CTAs of the issuing kernel to the block scheduler until it holds more than one
    /// cycle's worth (one per SM) or the stream ends. Per-PC statistics grow with the highest
    /// PC seen; the opcode table is re-read as the stream decodes.
    pub(super) fn feed_ctas(&mut self, s: &mut dyn KernelStream) -> Result<()> {
        let Some(l) = self.sched.issuing else {
            return Ok(());
        };
        let want = self.sms.len() + 1;
        if self.sched.more && self.sched.ctas.len() < want {
            // The traces of CTAs finished since the last feed go back to the stream, whose
            // decoder fills their buffers again (serial here, so no lock, and in SM order).
            // Only the SMs that finished CTAs are visited: with two threads, most of the
            // others' state sits in the other core's cache.
            for i in self.sched.take_spent() {
                for c in self.sms[i].sh.spent.drain(..) {
                    s.recycle(c);
                }
            }
        }
        // CTAs held at once: resident ones and this queue, at most the kernel's.
        let k = &self.kernels[l as usize];
        let held = (self.sms.len() as u64 * k.max_ctas_per_sm as u64 + want as u64)
            .min(k.info.grid.count());
        let above = self.pack_above.unwrap_or_else(|| pack_above(held));
        // (So that chunks decoded ahead before the first `next_packed` are packed there too.)
        s.will_pack(above);
        while self.sched.more && self.sched.ctas.len() < want {
            // With a crew: when the next CTA needs a chunk decoded and nothing is decoded
            // ahead, the next two chunks decode side by side (at a kernel's start, all the
            // chunks its first cycle needs). While the stream still holds decoded CTAs, the
            // decode-ahead waits for the next step, beside the SMs (here it would leave the
            // other thread idle: on vecadd-1m `fast`, 20-80 ms of a 0.2 s run).
            #[cfg(feature = "parallel")]
            if let Some(p) = self.crew.as_mut() {
                if !s.has_decoded() {
                    if let Some([a, b]) = s.prefetch_pair() {
                        p.join_once(a, b);
                    }
                }
            }
            let Some(cta) = s.next_packed(&mut self.packer, above)? else {
                self.sched.more = false;
                // A reader refuses a kernel with CTAs missing unless told to run the rest.
                let info = &self.kernels[l as usize].info;
                let (present, total) = (self.sched.runs[l as usize].ctas_total, info.grid.count());
                if present < total {
                    let w = check::partial_warning(&info.name, present, total);
                    self.warn(w);
                }
                break;
            };
            let ctx = &mut self.kernels[l as usize];
            if ctx.ops.len() < s.ops().len() {
                let from = ctx.ops.len();
                ctx.refresh_ops(s.ops(), &self.cfg);
                let name = ctx.info.name.clone();
                self.warn_unknown(&name, s.ops(), from);
            }
            let ctx = &mut self.kernels[l as usize];
            let ib = self.cfg.frontend.inst_bytes.max(1);
            // One pass for the max opcode id and PC; the loop below (over `distinct`: first
            // uses in trace order, so its first bad one is the trace's first bad instruction)
            // only runs to name the first bad one.
            let max = cta.max_op_pc();
            if let Some((_, max_pc)) = max {
                ctx.pc_slots = ctx.pc_slots.max((max_pc / ib) as usize + 1);
            }
            if max.is_some_and(|(max_op, _)| max_op as usize >= ctx.ops.len()) {
                for i in cta.distinct() {
                    if i.op.0 as usize >= ctx.ops.len() {
                        return Err(Error::parse(
                            &ctx.info.name,
                            0,
                            "opcode",
                            format!(
                                "op id {} at pc {:#x} is not in the kernel's opcode table",
                                i.op.0, i.pc
                            ),
                        ));
                    }
                }
            }
            self.sched.ctas.push_back(cta);
            self.sched.runs[l as usize].ctas_total += 1;
        }
        if !self.sched.more && self.sched.ctas.is_empty() {
            // Every CTA handed out (or none at all): the next kernel may start.
            self.sched.issuing = None;
            if self.sched.runs[l as usize].ctas_total == 0 {
                self.sched.end_run(l, self.now);
            }
        }
        Ok(())
    }
}

impl Gpu {
    /// Adds a warning to the result, once.
    fn warn(&mut self, w: String) {
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }

    /// Says which opcodes of `ops` from index `from` on are unknown to the architecture's
    /// table: they run as integer ALU instructions (a reader refuses them unless told).
    fn warn_unknown(&mut self, kernel: &str, ops: &OpTable, from: usize) {
        let names = ops
            .iter()
            .skip(from)
            .filter(|(_, o)| o.unknown)
            .map(|(_, o)| o.name.as_str());
        if let Some(w) = check::unknown_opcodes_warning(kernel, names) {
            self.warn(w);
        }
    }
}
