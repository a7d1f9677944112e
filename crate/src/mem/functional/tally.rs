//! What the functional pass's memory instructions do: shared-memory wavefronts, line
//! requests through the functional caches, and the reuse-distance profiles beside them. Its
//! own struct, so the pass can lend it a warp's addresses while it holds the warp.

use super::memo::{Memo, MemoKey, ShmemMemo};
use super::{FuncMem, MemOp, SharedReport};
use crate::config::GpuConfig;
use crate::mem::coalesce::{coalesce_access, shmem_access, LineReq, WarpAccess};
use crate::mem::iface::AccessKind;
use crate::mem::reuse::ReuseProfile;
use crate::trace::{MemSpace, TraceInst};

/// The counts and models a kernel's memory instructions feed.
pub(super) struct Tally<'a> {
    pub(super) cfg: &'a GpuConfig,
    pub(super) lines: Vec<LineReq>,
    /// Coalescer results by PC, moved by whole lines (`memo`).
    pub(super) memo: Memo<LineReq>,
    /// Shared-memory wavefronts by PC and offset in the banks' period.
    pub(super) shmem: ShmemMemo,
    pub(super) shared: SharedReport,
    pub(super) mem_insts: u64,
    pub(super) requests: u64,
    pub(super) sectors: u64,
    pub(super) reuse_l1: Vec<ReuseProfile>,
    pub(super) reuse_l2: ReuseProfile,
    pub(super) shmem_lo: u64,
    pub(super) shmem_hi: u64,
    /// Keep the reuse-distance profiles (SDCM baseline) and the shared-memory counts.
    pub(super) full: bool,
}

impl Tally<'_> {
    pub(super) fn process(
        &mut self,
        sm: usize,
        fm: &mut FuncMem,
        op: MemOp,
        inst: &TraceInst,
        addrs: &[u64],
    ) {
        let (mask, width, pc) = (inst.mask, inst.mem_width as u32, inst.pc);
        let mut space = op.space;
        if space == MemSpace::Generic {
            let a = addrs.first().copied().unwrap_or(0);
            space = if a >= self.shmem_lo && a < self.shmem_hi {
                MemSpace::Shared
            } else {
                MemSpace::Global
            };
        }
        if space == MemSpace::Shared {
            if !self.full {
                return;
            }
            let (banks, bw) = (self.cfg.shmem.banks, self.cfg.shmem.bank_width_bytes);
            let wf = self
                .shmem
                .get_or(pc, mask, width, inst.shape, addrs, || {
                    shmem_access(mask, addrs, width, banks, bw)
                })
                .0 as u64;
            self.shared.instructions += 1;
            self.shared.wavefronts += wf;
            self.shared.bank_conflicts += wf - 1;
            return;
        }
        if addrs.is_empty() {
            return;
        }
        self.mem_insts += 1;
        let c = &self.cfg.l1d.cache;
        let access = WarpAccess {
            mask,
            addrs,
            width,
            shape: inst.shape,
            store: op.kind == AccessKind::Store,
        };
        let store = access.store as u64;
        let lb = c.line_bytes as u64;
        let key = MemoKey::of(pc, store, mask, width, inst.shape, addrs, lb)
            .filter(|_| addrs.len() == mask.count_ones() as usize);
        self.memo.get_or(key, &mut self.lines, |out| {
            coalesce_access(&access, c.line_bytes, c.sector_bytes, out)
        });
        let sb = c.sector_bytes.max(1) as u64;
        for k in 0..self.lines.len() {
            let l = self.lines[k];
            self.requests += 1;
            self.sectors += crate::mem::cache::sector_count(l.sectors);
            let mut req = l.request(op.kind, space, op.bypass);
            req.pc = pc;
            fm.access(sm, &req);
            if self.full && space != MemSpace::Constant {
                let mut m = l.sectors;
                while m != 0 {
                    let s = m.trailing_zeros() as u64;
                    m &= m - 1;
                    let key = l.addr / sb + s;
                    self.reuse_l1[sm].access(key);
                    self.reuse_l2.access(key);
                }
            }
        }
    }
}
