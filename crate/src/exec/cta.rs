//! Executes one CTA: all its warps together, so that `BAR.SYNC` and shared memory work. Each
//! warp runs until it waits at the barrier or exits, round robin; when every warp still
//! running waits, the barrier releases them. Every executed warp instruction is recorded as
//! the timing engine reads traces ([`TraceInst`] with pc, active-and-guard mask, registers,
//! control bits, and per-lane addresses of memory instructions).

use super::decode::Opc;
use super::memory::{Device, LOCAL_TOP, MAX_SHARED};
use super::operand::{Kind, Operand};
use super::program::{Inst, Kernel};
use super::warp::{Ctx, Group, Wait, Warp};
use crate::trace::model::{CtaTrace, Dim3, TraceInst, WARP_SIZE};
use crate::trace::sanitizer::import::LocalLayout;
use crate::workload::builder::SHMEM_BASE;
use crate::Result;

/// Most warp instructions one warp may execute in a launch (an endless loop stops here).
pub const MAX_WARP_INSTS: u64 = 1 << 28;

/// What a launch's CTAs share.
pub struct LaunchCtx<'a> {
    pub k: &'a Kernel,
    pub cbank: &'a [u8],
    /// The user constant banks (`__constant__` data), by bank.
    pub banks: &'a std::collections::BTreeMap<u8, Vec<u8>>,
    pub grid: Dim3,
    pub block: Dim3,
    /// Capacity to reserve per warp for instructions and addresses (the previous CTA's).
    pub reserve: (usize, usize),
}

/// One CTA being executed.
pub struct Cta<'a, 'd> {
    pub l: &'a LaunchCtx<'a>,
    pub dev: &'d mut Device,
    pub shared: Vec<u8>,
    /// Highest shared byte touched + 1.
    pub shared_hi: usize,
    pub id: Dim3,
    pub linear: u64,
    pub warps: Vec<Warp>,
}

/// The result of running one warp as far as it goes.
enum Stop {
    Done,
    Blocked,
}

impl<'a, 'd> Cta<'a, 'd> {
    pub fn new(l: &'a LaunchCtx<'a>, dev: &'d mut Device, linear: u64) -> Self {
        let threads = l.block.count() as u32;
        let nwarps = threads.div_ceil(WARP_SIZE);
        let warps = (0..nwarps)
            .map(|w| {
                let n = threads - w * WARP_SIZE;
                let exist = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
                let mut warp = Warp::new(l.k.rows, w, exist);
                warp.trace.insts.reserve_exact(l.reserve.0);
                warp.trace.addrs.reserve_exact(l.reserve.1);
                warp
            })
            .collect();
        Cta {
            l,
            dev,
            shared: Vec::new(),
            shared_hi: 0,
            id: l.grid.from_linear(linear),
            linear,
            warps,
        }
    }

    /// Runs the CTA to the end; returns its trace.
    pub fn run(mut self) -> Result<(CtaTrace, usize)> {
        loop {
            let mut progress = false;
            for w in 0..self.warps.len() {
                if self.warps[w].runnable().is_some() {
                    progress = true;
                    let mut warp = std::mem::replace(&mut self.warps[w], Warp::new(0, 0, 0));
                    let r = self.run_warp(&mut warp);
                    self.warps[w] = warp;
                    r?;
                }
            }
            if self.warps.iter().all(Warp::done) {
                break;
            }
            if self.warps.iter().all(|w| w.done() || w.at_bar()) {
                for w in &mut self.warps {
                    for g in &mut w.groups {
                        if g.wait == Wait::Bar {
                            g.wait = Wait::Run;
                            g.pc += 1;
                        }
                    }
                }
                continue;
            }
            if !progress {
                let w = self.warps.iter().find(|w| !w.done() && !w.at_bar());
                let (wi, g) = w.map_or((0, None), |w| (w.index, w.groups.first().copied()));
                let i = g.map_or(0, |g| g.pc as usize);
                return Err(self.l.k.error(
                    i,
                    format!(
                        "CTA {} warp {wi}: lanes {:08x} wait here for lanes that never arrive",
                        self.id,
                        g.map_or(0, |g| g.mask)
                    ),
                ));
            }
        }
        let warps = self
            .warps
            .into_iter()
            .map(|mut w| {
                w.trace.fill_shapes();
                w.trace
            })
            .collect();
        Ok((CtaTrace { id: self.id, warps }, self.shared_hi))
    }

    fn run_warp(&mut self, w: &mut Warp) -> Result<Stop> {
        let k = self.l.k;
        loop {
            let Some(gi) = w.runnable() else {
                return Ok(if w.done() { Stop::Done } else { Stop::Blocked });
            };
            let g = w.groups[gi];
            let i = g.pc as usize;
            let Some(inst) = k.insts.get(i) else {
                return Err(k.error(
                    k.insts.len() - 1,
                    "execution ran past the kernel's last instruction",
                ));
            };
            w.count += 1;
            if w.count > MAX_WARP_INSTS {
                return Err(k.error(
                    i,
                    format!(
                        "CTA {} warp {} executed {MAX_WARP_INSTS} instructions without finishing (an endless loop?)",
                        self.id, w.index
                    ),
                ));
            }
            let gmask = guard_mask(w, inst);
            let exec = g.mask & gmask;
            let at = self.record(w, inst, exec);
            match self.step(w, gi, inst, g, exec, at) {
                Ok(()) => {}
                Err(m) => return Err(k.error(i, m)),
            }
        }
    }

    /// Appends the instruction to the warp's trace; returns its index there.
    #[inline]
    fn record(&self, w: &mut Warp, inst: &Inst, mask: u32) -> usize {
        let mut t: TraceInst = inst.tmpl;
        t.mask = mask;
        t.addr_start = w.trace.addrs.len() as u32;
        w.trace.insts.push(t);
        w.trace.insts.len() - 1
    }

    /// Records the address of lane `lane` of a memory instruction (space-mapped as the
    /// engine expects) and sets its width.
    #[inline]
    pub fn record_addr(
        &self,
        w: &mut Warp,
        at: usize,
        space: super::decode::MemSpace,
        addr: u64,
        lane: usize,
        width: u8,
    ) {
        use super::decode::MemSpace;
        let (space, addr) = match space {
            MemSpace::Generic => super::memory::resolve_generic(addr),
            s => (s, addr),
        };
        // A generic access to shared or local memory lands in the trace's window of that
        // space, where the timing engine classifies it.
        let a = match space {
            MemSpace::Shared => SHMEM_BASE + addr,
            MemSpace::Local => self.local_trace_addr(w.index, addr, lane),
            _ => addr,
        };
        w.trace.addrs.push(a);
        w.trace.insts[at].mem_width = width as u16;
    }

    /// Where a local access lies as the hardware interleaves local memory: word `w` of a
    /// thread's frame at `w * 128 + lane * 4`, a region per warp (as the Compute Sanitizer
    /// importer lays it out).
    fn local_trace_addr(&self, warp: u32, addr: u64, lane: usize) -> u64 {
        let layout = local_layout(self.l.k.frame, self.warps.len());
        let frame = layout.frame();
        let rel = addr.wrapping_sub(LOCAL_TOP as u64 - frame) % (frame * 64);
        layout.at(self.linear, warp as u64, lane as u64, rel)
    }

    /// Executes one instruction of group `gi` (a copy in `g`) with lanes `exec`.
    fn step(
        &mut self,
        w: &mut Warp,
        gi: usize,
        inst: &Inst,
        g: Group,
        exec: u32,
        at: usize,
    ) -> std::result::Result<(), String> {
        let next = g.pc + 1;
        match &inst.opc {
            Opc::Bra | Opc::Call | Opc::BraWarp { .. } => {
                let taken = match inst.opc {
                    Opc::BraWarp { div } => {
                        let mask = match inst.ops.iter().find(|o| !matches!(o.kind, Kind::Lit(_))) {
                            Some(o) if g.mask != 0 => {
                                self.src(w, o, Ctx::Int)?[g.mask.trailing_zeros() as usize]
                            }
                            _ => u32::MAX,
                        };
                        let live = mask & !w.exited;
                        let converged = live & !g.mask == 0;
                        if converged != div {
                            exec
                        } else {
                            0
                        }
                    }
                    _ => exec,
                };
                if taken == g.mask {
                    w.groups[gi].pc = inst.target;
                } else if taken == 0 {
                    w.groups[gi].pc = next;
                } else {
                    w.groups[gi] = Group {
                        pc: next,
                        mask: g.mask & !taken,
                        wait: Wait::Run,
                    };
                    w.groups.push(Group {
                        pc: inst.target,
                        mask: taken,
                        wait: Wait::Run,
                    });
                }
            }
            Opc::Exit => {
                w.exited |= exec;
                let left = g.mask & !exec;
                if left == 0 {
                    w.groups.remove(gi);
                } else {
                    w.groups[gi].mask = left;
                    w.groups[gi].pc = next;
                }
                if exec != 0 {
                    self.release_all(w);
                }
            }
            Opc::Bssy => {
                let b = barrier(inst, 0)?;
                w.bars[b as usize] = g.mask;
                w.groups[gi].pc = next;
            }
            Opc::Bsync => {
                let b = barrier(inst, 0)?;
                let want = w.bars[b as usize] & !w.exited;
                if exec == 0 || want & !g.mask == 0 {
                    w.groups[gi].pc = next;
                } else {
                    w.groups[gi].wait = Wait::Bsync(b);
                    w.try_release(Wait::Bsync(b), w.bars[b as usize], next);
                }
            }
            Opc::Break => {
                let b = barrier(inst, 0)?;
                w.bars[b as usize] &= !exec;
                w.groups[gi].pc = next;
                self.release_all(w);
            }
            Opc::Bmov { clear } => {
                match (&inst.ops[0].kind, inst.ops.get(1).map(|o| &o.kind)) {
                    (_, Some(Kind::Barrier(b))) => {
                        let v = [w.bars[*b as usize]; 32];
                        w.write(&inst.ops[0], exec, &v);
                        if *clear && exec != 0 {
                            w.bars[*b as usize] = 0;
                        }
                    }
                    (Kind::Barrier(b), Some(_)) => {
                        let v = self.src(w, &inst.ops[1], Ctx::Int)?;
                        if exec != 0 {
                            w.bars[*b as usize] = v[exec.trailing_zeros() as usize];
                        }
                    }
                    _ => return Err("expected BMOV Rd, Bx or BMOV Bx, Ra".into()),
                }
                w.groups[gi].pc = next;
            }
            Opc::Warpsync => {
                let want = match inst.ops.first() {
                    Some(o) => {
                        let v = self.src(w, o, Ctx::Int)?;
                        v[g.mask.trailing_zeros() as usize]
                    }
                    None => u32::MAX,
                } & !w.exited;
                if exec == 0 || want & !g.mask == 0 {
                    w.groups[gi].pc = next;
                } else {
                    w.groups[gi].wait = Wait::Warpsync(g.pc);
                    w.try_release(Wait::Warpsync(g.pc), want, next);
                }
            }
            Opc::Ret => {
                let o = inst.ops.first().ok_or("RET without a register")?;
                let Kind::Reg(r) = o.kind else {
                    return Err("RET: expected a register holding the return address".into());
                };
                let row = w.regs[w.row(r)];
                let mut left = exec;
                let mut first = true;
                while left != 0 {
                    let lane = left.trailing_zeros() as usize;
                    let pc = row[lane];
                    let lanes = (0..32)
                        .filter(|&l| left & (1 << l) != 0 && row[l] == pc)
                        .fold(0u32, |m, l| m | 1 << l);
                    left &= !lanes;
                    let Some(&idx) = self.l.k.index.get(&pc) else {
                        return Err(format!("RET to 0x{pc:x}, not an instruction of the kernel"));
                    };
                    let ng = Group {
                        pc: idx,
                        mask: lanes,
                        wait: Wait::Run,
                    };
                    if first {
                        w.groups[gi] = ng;
                        first = false;
                    } else {
                        w.groups.push(ng);
                    }
                }
                if g.mask & !exec != 0 {
                    let rest = Group {
                        pc: next,
                        mask: g.mask & !exec,
                        wait: Wait::Run,
                    };
                    if first {
                        w.groups[gi] = rest;
                    } else {
                        w.groups.push(rest);
                    }
                }
            }
            Opc::Bar => {
                if exec == 0 {
                    w.groups[gi].pc = next;
                } else {
                    w.groups[gi].wait = Wait::Bar;
                }
            }
            Opc::Never | Opc::Nop => w.groups[gi].pc = next,
            Opc::Unsupported(m) => return Err(format!("cannot execute: {m}")),
            _ => {
                let exec = if inst.uniform {
                    // The uniform datapath computes once per warp: lane 0 stands for it.
                    if exec != 0 {
                        1
                    } else {
                        0
                    }
                } else {
                    exec
                };
                if exec != 0 {
                    self.compute(w, inst, exec, at)?;
                }
                w.groups[gi].pc = next;
            }
        }
        Ok(())
    }

    /// After lanes exit or leave a barrier: releases whatever they were holding back.
    fn release_all(&self, w: &mut Warp) {
        let waits: Vec<(Wait, u32)> = w
            .groups
            .iter()
            .filter(|g| g.wait != Wait::Run && g.wait != Wait::Bar)
            .map(|g| (g.wait, g.pc))
            .collect();
        for (wait, pc) in waits {
            let want = match wait {
                Wait::Bsync(b) => w.bars[b as usize],
                Wait::Warpsync(_) => {
                    // The mask was checked at arrival; after exits, the live lanes of the
                    // groups waiting there are all it can still wait for.
                    w.groups
                        .iter()
                        .filter(|g| g.wait == wait)
                        .fold(0, |m, g| m | g.mask)
                }
                _ => continue,
            };
            w.try_release(wait, want, pc + 1);
        }
    }

    /// Shared memory bytes `addr..addr+n`, grown on first touch.
    pub fn shared_at(&mut self, addr: u64, n: usize) -> std::result::Result<&mut [u8], String> {
        let end = addr as usize + n;
        if addr > MAX_SHARED as u64 || end > MAX_SHARED {
            return Err(format!(
                "shared address 0x{addr:x} is beyond the {MAX_SHARED} bytes a CTA may use"
            ));
        }
        if self.shared.len() < end {
            self.shared.resize(end.div_ceil(1024) * 1024, 0);
        }
        self.shared_hi = self.shared_hi.max(end);
        Ok(&mut self.shared[addr as usize..end])
    }
}

/// How the trace lays out the local memory of a kernel whose entry reserves a `frame` of bytes,
/// in CTAs of `warps` warps: the Compute Sanitizer importer's layout, with the frame the
/// listing gives (the importer learns it from the offsets recorded).
pub fn local_layout(frame: u32, warps: usize) -> LocalLayout {
    LocalLayout::new(LOCAL_TOP as u64 - frame as u64, frame as u64, warps as u64)
}

/// Lane mask of an instruction's guard.
#[inline]
fn guard_mask(w: &Warp, inst: &Inst) -> u32 {
    let gd = inst.guard;
    if gd.pred == 7 && !gd.not {
        return u32::MAX;
    }
    let v = if gd.uniform {
        w.up[gd.pred as usize]
    } else {
        w.p[gd.pred as usize]
    };
    if gd.not {
        !v
    } else {
        v
    }
}

fn barrier(inst: &Inst, at: usize) -> std::result::Result<u8, String> {
    match inst.ops.get(at).map(|o| &o.kind) {
        Some(Kind::Barrier(b)) => Ok(*b),
        _ => Err("expected a convergence barrier B0-B15".into()),
    }
}

/// The operand at `i`, or an error naming the position.
#[inline]
pub fn op(inst: &Inst, i: usize) -> std::result::Result<&Operand, String> {
    inst.ops
        .get(i)
        .ok_or_else(|| format!("expected at least {} operands", i + 1))
}
