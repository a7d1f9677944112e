//! `KernelBuilder`: write a kernel's SASS trace warp by warp, with exact per-lane addresses.
//!
//! Every built-in workload is written with it, and other engineers' tests use it to craft
//! microbenchmark traces with hand-derived cycle counts. The model is the Accel-Sim trace
//! (seed 001 simulates these traces): a kernel is CTAs, a CTA is warps, a warp is the list of
//! instructions it executed, each with its PC, active mask, registers and, for memory
//! instructions, one address per active lane.
//!
//! ```text
//!  KernelBuilder::new(name, grid, block)      header: shmem, nregs, binary version, windows
//!     .add_all_ctas(|w: &mut WarpBuilder| {   called once per warp, CTAs in linear order
//!         w.alu("S2R", &[r(0)], &[]);          PC 0x00, mask = lanes that exist
//!         let oob = w.lanes(|t| t.gx >= n);    predicate P0 per lane, computed by the model
//!         w.exit_if(oob);                      @P0 EXIT: traced mask = exiting lanes
//!         w.mem("LDG.E", &[r(2)], &[r(2)], 4, |t| base + 4 * t.gx);
//!         w.exit();                            EXIT: the warp is done
//!     })
//!     .build() -> KernelTrace
//! ```
//!
//! Conventions, as NVBit / the Accel-Sim tracer records them:
//! - PCs are byte offsets of 16-byte instructions (Volta and later) from 0 per kernel; each emit
//!   advances the PC by 16. A loop re-uses its PCs: remember [`WarpBuilder::pc`] at the top and
//!   [`WarpBuilder::set_pc`] back to it for every iteration, ending with a backward `BRA`.
//! - The traced mask of an instruction is `active & predicate`: a predicated-off instruction is
//!   still traced with mask 0 (the real vectoradd trace has `00000000 EXIT`).
//! - A memory instruction carries one address per lane of its mask (lowest lane first). When its
//!   mask is 0 it is traced with `mem_width` 0 and no addresses, as an ALU instruction.
//! - Registers: `R0..R254`, [`RZ`]; predicates are not traced (Accel-Sim ignores them).
//! - Shared-memory addresses (LDS/STS/ATOMS) are offsets inside the CTA's shared memory
//!   window, `0..shmem_bytes`, as the real traces print them (the real matmul trace has
//!   `STS ... 0x1000`); use [`WarpBuilder::mem`] with the offset. The kernel header still carries
//!   `shmem_base`/`local_base` (see [`SHMEM_BASE`]) so generic LD/ST can be classified.

use crate::trace::model::{
    CtaTrace, Dim3, KernelInfo, KernelTrace, OpId, OpTable, Reg, TraceInst, WarpTrace, MAX_DST,
    MAX_SRC, REG_RZ, UR_BASE, WARP_SIZE,
};
use crate::trace::{inst_flags, AddrShape, Command, MemTrace};

use super::ops;

/// Size of one SASS instruction in bytes (Volta and later).
pub const INST_BYTES: u32 = 16;
/// First byte of the global arrays the workloads allocate (see [`Layout`]).
pub const GLOBAL_BASE: u64 = 0x0000_7f00_0000_0000;
/// `-local mem base_addr` of every built-in kernel (real traces put it 32 MiB below shmem).
pub const LOCAL_BASE: u64 = 0x0000_7ff0_0000_0000;
/// `-shmem base_addr` of every built-in kernel.
pub const SHMEM_BASE: u64 = 0x0000_7ff0_0200_0000;
/// The zero register.
pub const RZ: Reg = REG_RZ;

/// Register `Rn`.
#[inline]
pub const fn r(n: u8) -> Reg {
    n as Reg
}

/// Uniform register `URn`.
#[inline]
pub const fn ur(n: u8) -> Reg {
    UR_BASE + n as Reg
}

/// Mask with lanes `0..n` set (`n` up to 32).
#[inline]
pub const fn low_lanes(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// Places global arrays at fixed, documented addresses, like `cudaMalloc` in a fresh context.
///
/// Rule: the first array starts at [`GLOBAL_BASE`]; each next array starts at the end of the
/// previous one rounded up to 512 bytes (what the real vectoradd trace shows: 400-byte arrays at
/// `+0x000`, `+0x200`, `+0x400`), or to 2 MiB when the new array is 1 MiB or larger (large
/// allocations are 2 MiB aligned). Input arrays also produce a `MemcpyHtoD` command.
#[derive(Clone, Debug)]
pub struct Layout {
    next: u64,
    copies: Vec<Command>,
}

impl Default for Layout {
    fn default() -> Self {
        Self::new()
    }
}

impl Layout {
    pub fn new() -> Self {
        Layout {
            next: GLOBAL_BASE,
            copies: Vec::new(),
        }
    }
    /// Reserves `bytes` and returns the base address (no copy).
    pub fn alloc(&mut self, bytes: u64) -> u64 {
        let align = if bytes >= 1 << 20 { 2 << 20 } else { 512 };
        let base = self.next.div_ceil(align) * align;
        self.next = base + bytes.max(1);
        base
    }
    /// Reserves `bytes` and records a host-to-device copy of them.
    pub fn input(&mut self, bytes: u64) -> u64 {
        let base = self.alloc(bytes);
        self.copies.push(Command::MemcpyHtoD { addr: base, bytes });
        base
    }
    /// A trace of `kernels` launched in order after the recorded copies.
    pub fn into_trace(self, name: impl Into<String>, kernels: Vec<KernelTrace>) -> MemTrace {
        let mut commands = self.copies;
        commands.extend((0..kernels.len()).map(|index| Command::Kernel { index }));
        MemTrace {
            name: name.into(),
            commands,
            kernels,
        }
    }
}

/// Builds one kernel: its header, opcode table and CTAs.
#[derive(Clone, Debug)]
pub struct KernelBuilder {
    info: KernelInfo,
    ops: OpTable,
    ctas: Vec<CtaTrace>,
}

impl KernelBuilder {
    /// A kernel with the given launch shape and realistic defaults: binary version 80, 32
    /// registers, no shared memory, tracer version 5 (nvbit 1.7.6), kernel id 1, the fixed
    /// [`SHMEM_BASE`] / [`LOCAL_BASE`] windows.
    pub fn new(name: &str, grid: Dim3, block: Dim3) -> Self {
        let info = KernelInfo {
            name: name.to_string(),
            id: 1,
            grid,
            block,
            shmem_bytes: 0,
            nregs: 32,
            binary_version: 80,
            stream_id: 0,
            shmem_base: SHMEM_BASE,
            local_base: LOCAL_BASE,
            nvbit_version: "1.7.6".to_string(),
            tracer_version: 5,
            lineinfo: false,
            extra: Vec::new(),
            ctrl_source: Default::default(),
        };
        KernelBuilder {
            info,
            ops: OpTable::new(),
            ctas: Vec::new(),
        }
    }
    pub fn binary_version(mut self, v: u32) -> Self {
        self.info.binary_version = v;
        self
    }
    pub fn nregs(mut self, n: u32) -> Self {
        self.info.nregs = n;
        self
    }
    pub fn shmem_bytes(mut self, n: u32) -> Self {
        self.info.shmem_bytes = n;
        self
    }
    pub fn kernel_id(mut self, id: u32) -> Self {
        self.info.id = id;
        self
    }
    pub fn info(&self) -> &KernelInfo {
        &self.info
    }
    /// Interns an opcode (classified by the opcode tables).
    pub fn op(&mut self, name: &str) -> OpId {
        ops::intern(&mut self.ops, name, self.info.binary_version)
    }

    /// Runs `f` once per warp of CTA `id` (warps in order) and appends the CTA.
    pub fn add_cta(&mut self, id: Dim3, mut f: impl FnMut(&mut WarpBuilder)) -> &mut Self {
        let threads = self.info.block.count() as u32;
        let nwarps = threads.div_ceil(WARP_SIZE);
        let mut warps = Vec::with_capacity(nwarps as usize);
        for warp_id in 0..nwarps {
            let exist = low_lanes(threads - warp_id * WARP_SIZE);
            let mut w = WarpBuilder {
                ops: &mut self.ops,
                binary_version: self.info.binary_version,
                grid: self.info.grid,
                block: self.info.block,
                cta: id,
                warp_id,
                pc: 0,
                active: exist,
                done: false,
                warp: WarpTrace {
                    warp_id,
                    insts: Vec::new(),
                    addrs: Vec::new(),
                },
            };
            f(&mut w);
            warps.push(w.warp);
        }
        self.ctas.push(CtaTrace { id, warps });
        self
    }

    /// Runs `f` for every warp of every CTA of the grid, CTAs in linear order (x fastest).
    pub fn add_all_ctas(&mut self, mut f: impl FnMut(&mut WarpBuilder)) -> &mut Self {
        let grid = self.info.grid;
        for i in 0..grid.count() {
            self.add_cta(grid.from_linear(i), &mut f);
        }
        self
    }

    /// The finished kernel.
    pub fn build(&mut self) -> KernelTrace {
        KernelTrace {
            info: self.info.clone(),
            ops: self.ops.clone(),
            ctas: std::mem::take(&mut self.ctas),
        }
    }
}

/// One thread of a warp, as address and predicate closures see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thread {
    /// Lane in the warp (0..32).
    pub lane: u32,
    /// Flat thread index in the CTA (`warp_id * 32 + lane`).
    pub flat: u32,
    /// `threadIdx`.
    pub tid: Dim3,
    /// `blockIdx`.
    pub cta: Dim3,
    /// `blockIdx.x * blockDim.x + threadIdx.x`.
    pub gx: u64,
    /// `blockIdx.y * blockDim.y + threadIdx.y`.
    pub gy: u64,
}

#[derive(Clone, Copy, Debug)]
struct WarpCtx {
    block: Dim3,
    cta: Dim3,
    warp_id: u32,
}

impl WarpCtx {
    fn thread(&self, lane: u32) -> Thread {
        let flat = self.warp_id * WARP_SIZE + lane;
        let tid = self.block.from_linear(flat as u64);
        Thread {
            lane,
            flat,
            tid,
            cta: self.cta,
            gx: self.cta.x as u64 * self.block.x as u64 + tid.x as u64,
            gy: self.cta.y as u64 * self.block.y as u64 + tid.y as u64,
        }
    }
}

/// Emits the instructions one warp executes. Created by [`KernelBuilder::add_cta`].
pub struct WarpBuilder<'a> {
    ops: &'a mut OpTable,
    binary_version: u32,
    grid: Dim3,
    block: Dim3,
    cta: Dim3,
    warp_id: u32,
    pc: u32,
    active: u32,
    done: bool,
    warp: WarpTrace,
}

impl WarpBuilder<'_> {
    /// The kernel's binary version (75, 80, ...), for arch-dependent opcode spelling.
    pub fn binary_version(&self) -> u32 {
        self.binary_version
    }
    pub fn cta(&self) -> Dim3 {
        self.cta
    }
    pub fn grid(&self) -> Dim3 {
        self.grid
    }
    pub fn block(&self) -> Dim3 {
        self.block
    }
    pub fn warp_id(&self) -> u32 {
        self.warp_id
    }
    fn ctx(&self) -> WarpCtx {
        WarpCtx {
            block: self.block,
            cta: self.cta,
            warp_id: self.warp_id,
        }
    }
    /// The thread running on `lane`.
    pub fn thread(&self, lane: u32) -> Thread {
        self.ctx().thread(lane)
    }
    /// Linear CTA index (`blockIdx.x` for 1-D grids).
    pub fn cta_linear(&self) -> u64 {
        self.grid.linear(self.cta)
    }
    /// The active mask: lanes that exist and have not exited or branched away.
    pub fn mask(&self) -> u32 {
        self.active
    }
    /// Replaces the active mask (divergence: the caller models the reconvergence itself).
    pub fn set_mask(&mut self, m: u32) {
        self.active = m;
    }
    /// Active lanes whose thread satisfies `pred` (a predicate register, per lane).
    pub fn lanes(&self, pred: impl Fn(&Thread) -> bool) -> u32 {
        let ctx = self.ctx();
        let mut m = 0;
        let mut rest = self.active;
        while rest != 0 {
            let l = rest.trailing_zeros();
            if pred(&ctx.thread(l)) {
                m |= 1 << l;
            }
            rest &= rest - 1;
        }
        m
    }
    /// True once every lane has exited.
    pub fn done(&self) -> bool {
        self.done
    }
    /// PC of the next instruction.
    pub fn pc(&self) -> u32 {
        self.pc
    }
    /// Moves the PC (loop back edge, branch target).
    pub fn set_pc(&mut self, pc: u32) {
        self.pc = pc;
    }
    /// Number of instructions emitted so far.
    pub fn len(&self) -> usize {
        self.warp.insts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.warp.insts.is_empty()
    }

    fn push(&mut self, name: &str, mask: u32, dst: &[Reg], src: &[Reg]) -> &mut TraceInst {
        debug_assert!(!self.done, "emit after the warp exited");
        debug_assert!(dst.len() <= MAX_DST && src.len() <= MAX_SRC);
        let op = ops::intern(self.ops, name, self.binary_version);
        let mut i = TraceInst {
            pc: self.pc,
            mask,
            op,
            ndst: dst.len().min(MAX_DST) as u8,
            nsrc: src.len().min(MAX_SRC) as u8,
            addr_start: self.warp.addrs.len() as u32,
            ..TraceInst::default()
        };
        i.dst[..i.ndst as usize].copy_from_slice(&dst[..i.ndst as usize]);
        i.src[..i.nsrc as usize].copy_from_slice(&src[..i.nsrc as usize]);
        self.pc += INST_BYTES;
        self.warp.insts.push(i);
        self.warp.insts.last_mut().expect("just pushed")
    }

    /// An ALU (or control) instruction executed by every active lane.
    pub fn alu(&mut self, name: &str, dst: &[Reg], src: &[Reg]) -> &mut Self {
        let m = self.active;
        self.push(name, m, dst, src);
        self
    }
    /// An ALU instruction under a predicate: traced with mask `active & pred`.
    pub fn alu_p(&mut self, pred: u32, name: &str, dst: &[Reg], src: &[Reg]) -> &mut Self {
        let m = self.active & pred;
        self.push(name, m, dst, src);
        self
    }
    /// An ALU instruction with an immediate operand (tracer version 5 records it).
    pub fn alu_imm(&mut self, name: &str, dst: &[Reg], src: &[Reg], imm: u64) -> &mut Self {
        let m = self.active;
        let i = self.push(name, m, dst, src);
        i.flags |= inst_flags::HAS_IMM;
        i.imm = imm;
        self
    }
    /// A memory instruction of `width` bytes per lane; `addr(thread)` gives each active lane's
    /// address (global: a full virtual address; shared: an offset in the CTA's window).
    pub fn mem(
        &mut self,
        name: &str,
        dst: &[Reg],
        src: &[Reg],
        width: u16,
        addr: impl FnMut(&Thread) -> u64,
    ) -> &mut Self {
        let m = self.active;
        self.mem_p(m, name, dst, src, width, addr)
    }
    /// A predicated memory instruction: only lanes of `active & pred` access memory.
    pub fn mem_p(
        &mut self,
        pred: u32,
        name: &str,
        dst: &[Reg],
        src: &[Reg],
        width: u16,
        mut addr: impl FnMut(&Thread) -> u64,
    ) -> &mut Self {
        let ctx = self.ctx();
        let m = self.active & pred;
        self.push(name, m, dst, src).mem_width = if m == 0 { 0 } else { width };
        let start = self.warp.addrs.len();
        let mut rest = m;
        while rest != 0 {
            let l = rest.trailing_zeros();
            self.warp.addrs.push(addr(&ctx.thread(l)));
            rest &= rest - 1;
        }
        let shape = AddrShape::of(&self.warp.addrs[start..]);
        if let Some(i) = self.warp.insts.last_mut() {
            i.shape = shape;
        }
        self
    }
    /// `@P EXIT` where `exiting` are the lanes whose predicate holds: traced with mask
    /// `active & exiting`; those lanes leave. Returns true while some lane is still active.
    pub fn exit_if(&mut self, exiting: u32) -> bool {
        let m = self.active & exiting;
        self.push("EXIT", m, &[], &[]);
        self.active &= !exiting;
        if self.active == 0 {
            self.done = true;
        }
        !self.done
    }
    /// `EXIT` for every active lane: the warp is done.
    pub fn exit(&mut self) {
        let m = self.active;
        self.push("EXIT", m, &[], &[]);
        self.active = 0;
        self.done = true;
    }
    /// `@P BRA target` with `taken` the lanes whose predicate holds (mask `active & taken`).
    /// Only records the instruction; the caller moves the PC and mask to model the flow.
    pub fn bra_if(&mut self, taken: u32, target: u32) -> &mut Self {
        let m = self.active & taken;
        let i = self.push("BRA", m, &[], &[]);
        i.flags |= inst_flags::HAS_IMM;
        i.imm = target as u64;
        self
    }
    /// `BAR.SYNC 0` by every active lane.
    pub fn bar(&mut self) -> &mut Self {
        self.alu("BAR.SYNC", &[], &[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_follows_the_documented_rule() {
        let mut l = Layout::new();
        assert_eq!(l.input(400), 0x7f00_0000_0000);
        assert_eq!(l.input(400), 0x7f00_0000_0200);
        assert_eq!(l.alloc(400), 0x7f00_0000_0400);
        // 1 MiB or more: 2 MiB aligned.
        assert_eq!(l.alloc(1 << 20), 0x7f00_0020_0000);
        assert_eq!(l.alloc(4), 0x7f00_0030_0000);
        let t = l.into_trace("t", vec![]);
        assert_eq!(
            t.commands,
            vec![
                Command::MemcpyHtoD {
                    addr: 0x7f00_0000_0000,
                    bytes: 400
                },
                Command::MemcpyHtoD {
                    addr: 0x7f00_0000_0200,
                    bytes: 400
                },
            ]
        );
    }

    #[test]
    fn partial_warp_exit_and_loop_pcs() {
        // 40 threads: warp 0 full, warp 1 has lanes 0..8.
        let mut kb = KernelBuilder::new("k", Dim3::new(1, 1, 1), Dim3::new(40, 1, 1));
        kb.add_all_ctas(|w| {
            w.alu("S2R", &[r(0)], &[]);
            let oob = w.lanes(|t| t.flat >= 36);
            if !w.exit_if(oob) {
                return;
            }
            let top = w.pc();
            for _ in 0..3 {
                w.set_pc(top);
                w.mem("LDG.E", &[r(2)], &[r(2)], 4, |t| 0x1000 + 4 * t.lane as u64);
                w.bra_if(u32::MAX, top);
            }
            w.exit();
        });
        let k = kb.build();
        let w0 = &k.ctas[0].warps[0];
        let w1 = &k.ctas[0].warps[1];
        assert_eq!(w0.insts[0].mask, u32::MAX);
        assert_eq!(
            w0.insts[1].mask, 0,
            "no lane of warp 0 exits: traced with mask 0"
        );
        assert_eq!(w1.insts[0].mask, 0xff);
        assert_eq!(w1.insts[1].mask, 0xf0);
        assert_eq!(w1.insts[2].mask, 0x0f);
        // S2R, EXIT, 3 x (LDG, BRA), EXIT
        assert_eq!(w1.insts.len(), 9);
        let pcs: Vec<u32> = w1.insts.iter().map(|i| i.pc).collect();
        assert_eq!(
            pcs,
            vec![0x0, 0x10, 0x20, 0x30, 0x20, 0x30, 0x20, 0x30, 0x40]
        );
        assert_eq!(w1.addrs.len(), 12);
        let third = &w1.insts[6];
        assert_eq!(third.addr_start, 8);
        let la: Vec<(u32, u64)> = w1.lane_addrs(third).collect();
        assert_eq!(la, vec![(0, 0x1000), (1, 0x1004), (2, 0x1008), (3, 0x100c)]);
        assert_eq!(k.ops.get(third.op).name, "LDG.E");
    }

    #[test]
    fn zero_mask_memory_instruction_has_no_addresses() {
        let mut kb = KernelBuilder::new("k", Dim3::new(1, 1, 1), Dim3::new(32, 1, 1));
        kb.add_all_ctas(|w| {
            w.mem_p(0, "LDG.E", &[r(2)], &[r(2)], 4, |_| unreachable!());
            w.exit();
        });
        let k = kb.build();
        let i = k.ctas[0].warps[0].insts[0];
        assert_eq!((i.mask, i.mem_width), (0, 0));
        assert!(k.ctas[0].warps[0].addrs.is_empty());
    }
}
