//! The in-memory trace model every reader produces and every consumer (engine, converters,
//! `info`) reads. A kernel is streamed CTA by CTA: a [`KernelStream`] hands out one decoded
//! [`CtaTrace`] at a time, so a whole large trace is never held in memory.
//!
//! ```text
//! TraceSource ── commands (kernel launches, MemcpyHtoD) in file order
//!      ├─ open_kernel(k) -> KernelStream: info(), ops(), next_cta() -> CtaTrace
//!      │                                            └─ warps: [WarpTrace { insts, addrs }]
//!      └─ open_kernel_owned(k) -> the same, owning its input ('static): the engine keeps it
//!         across run slices and pulls num_sms+1 CTAs ahead of the block scheduler
//! ```

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Result;

pub use super::control::{Ctrl, CtrlSource};
pub use super::packed::{PackedCta, Packer};
pub use super::shape::AddrShape;

/// Threads per warp; every NVIDIA GPU we model has 32.
pub const WARP_SIZE: u32 = 32;
/// Most destination registers one trace instruction may carry.
pub const MAX_DST: usize = 4;
/// Most source registers one trace instruction may carry.
pub const MAX_SRC: usize = 6;

/// A register name packed in 16 bits: `R0..R255` are 0..=255 (`R255` is RZ, the zero register),
/// uniform registers `UR0..UR63` are `UR_BASE + n` (`UR63` is URZ).
pub type Reg = u16;
/// The zero register `RZ` (`R255`): never a dependence.
pub const REG_RZ: Reg = 255;
/// First uniform register id.
pub const UR_BASE: Reg = 256;
/// The uniform zero register `URZ`.
pub const REG_URZ: Reg = UR_BASE + 63;

/// True when a register carries no dependence (RZ, URZ).
#[inline]
pub fn is_zero_reg(r: Reg) -> bool {
    r == REG_RZ || r == REG_URZ
}

/// A grid, block or CTA coordinate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }
    /// Number of elements (threads of a block, CTAs of a grid).
    /// Saturates at `u64::MAX` (three sides of 2^32 - 1 do not fit; [`super::check::grid`]
    /// refuses such grids).
    pub fn count(&self) -> u64 {
        (self.x as u64 * self.y as u64).saturating_mul(self.z as u64)
    }
    /// Linear index of `c` inside a grid of this shape (x fastest, as CUDA numbers blocks).
    pub fn linear(&self, c: Dim3) -> u64 {
        // Wrapping: never overflows for a grid inside CUDA's limits (`check::grid`), and a
        // grid outside them must not panic on the way to being refused.
        (c.z as u64)
            .wrapping_mul(self.y as u64)
            .wrapping_add(c.y as u64)
            .wrapping_mul(self.x as u64)
            .wrapping_add(c.x as u64)
    }
    /// Inverse of [`Dim3::linear`].
    pub fn from_linear(&self, i: u64) -> Dim3 {
        let x = (i % self.x.max(1) as u64) as u32;
        let rest = i / self.x.max(1) as u64;
        let y = (rest % self.y.max(1) as u64) as u32;
        let z = (rest / self.y.max(1) as u64) as u32;
        Dim3 { x, y, z }
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{},{})", self.x, self.y, self.z)
    }
}

/// The newest Accel-Sim tracer line format the readers know; a larger version is refused
/// rather than read with the wrong columns.
pub const MAX_TRACER_VERSION: u32 = 5;

/// The kernel header of an Accel-Sim `.traceg` file (or its equivalent in the compact format).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelInfo {
    pub name: String,
    /// `-kernel id`: 1-based in most traces.
    pub id: u32,
    pub grid: Dim3,
    pub block: Dim3,
    /// Static + dynamic shared memory per CTA in bytes (`-shmem`).
    pub shmem_bytes: u32,
    /// Registers per thread (`-nregs`).
    pub nregs: u32,
    /// `-binary version`: the SM version the code was compiled for (61, 70, 75, 80, 86, 89, 90);
    /// 0 in some real traces, where readers fall back to the GPU's architecture.
    pub binary_version: u32,
    pub stream_id: u64,
    pub shmem_base: u64,
    pub local_base: u64,
    pub nvbit_version: String,
    /// `-accelsim tracer version`: 3, 4 or 5 (0 when absent); at most [`MAX_TRACER_VERSION`].
    pub tracer_version: u32,
    /// `-enable lineinfo`: every instruction line starts with a source line number.
    pub lineinfo: bool,
    /// Header keys we do not interpret, kept in file order so converters can write them back.
    pub extra: Vec<(String, String)>,
    /// Where the instructions' control bits came from.
    #[serde(default)]
    pub ctrl_source: CtrlSource,
}

impl KernelInfo {
    pub fn warps_per_cta(&self) -> u32 {
        (self.block.count() as u32).div_ceil(WARP_SIZE)
    }
    pub fn num_ctas(&self) -> u64 {
        self.grid.count()
    }
}

/// An interned opcode: an index into the kernel's [`OpTable`].
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct OpId(pub u16);

/// The execution pipeline an instruction is dispatched to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Integer ALU (IADD3, LOP3, SHF, ISETP, MOV, ...).
    #[default]
    Int,
    /// FP32 (FADD, FMUL, FFMA; IMAD on Volta+ shares this pipe in hardware but Accel-Sim's
    /// tables decide; see the opcode tables).
    Sp,
    /// FP64.
    Dp,
    /// Special functions (MUFU), conversions.
    Sfu,
    /// Tensor cores (HMMA, IMMA, ...).
    Tensor,
    /// Branch / control (BRA, EXIT, BAR handled specially, ...).
    Branch,
    /// Uniform datapath (U* opcodes on Turing and later).
    Uniform,
    /// Load/store: everything that touches memory.
    Mem,
}

impl Unit {
    pub const ALL: [Unit; 8] = [
        Unit::Int,
        Unit::Sp,
        Unit::Dp,
        Unit::Sfu,
        Unit::Tensor,
        Unit::Branch,
        Unit::Uniform,
        Unit::Mem,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Unit::Int => "int",
            Unit::Sp => "sp",
            Unit::Dp => "dp",
            Unit::Sfu => "sfu",
            Unit::Tensor => "tensor",
            Unit::Branch => "branch",
            Unit::Uniform => "uniform",
            Unit::Mem => "mem",
        }
    }
}

/// Which latency entry of the config an ALU instruction uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LatClass {
    #[default]
    Int,
    IntMul,
    Fp32,
    Fp16,
    Dp,
    Sfu,
    Tensor,
    Branch,
    Uniform,
    /// Memory instructions: latency comes from the memory system.
    Mem,
}

/// What an instruction does, beyond the unit it occupies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    #[default]
    Alu,
    Load,
    Store,
    /// Returns a value (ATOM, ATOMS, ATOMG).
    Atomic,
    /// Fire-and-forget reduction (RED).
    Reduction,
    /// BAR.SYNC / BAR.ARV / BAR.RED / BARRIER.
    Barrier,
    /// MEMBAR, FENCE, ERRBAR.
    MemBarrier,
    Exit,
    Branch,
    Nop,
}

/// The memory space a memory instruction addresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemSpace {
    #[default]
    None,
    Global,
    Local,
    Shared,
    Constant,
    Texture,
    /// Generic LD/ST/ATOM: resolved per address with the kernel's shmem/local windows.
    Generic,
}

/// Everything the simulator needs to know about one opcode string.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpInfo {
    /// The full opcode as traced, e.g. `LDG.E.128.SYS`.
    pub name: String,
    pub unit: Unit,
    pub lat: LatClass,
    pub kind: OpKind,
    pub space: MemSpace,
    /// The opcode was not in the architecture's table: counted and reported, run as `Int`.
    pub unknown: bool,
}

impl OpInfo {
    pub fn is_mem(&self) -> bool {
        self.space != MemSpace::None
    }
}

/// Interned opcodes of one kernel (or one trace file). Interning happens at decode time only.
#[derive(Clone, Debug, Default)]
pub struct OpTable {
    ops: Vec<OpInfo>,
    index: HashMap<String, OpId>,
}

impl OpTable {
    pub fn new() -> Self {
        Self::default()
    }
    /// Interns `name`, classifying it with `classify` the first time it is seen.
    pub fn intern_with(&mut self, name: &str, classify: impl FnOnce(&str) -> OpInfo) -> OpId {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = OpId(self.ops.len() as u16);
        let mut info = classify(name);
        info.name = name.to_string();
        self.ops.push(info);
        self.index.insert(name.to_string(), id);
        id
    }
    /// Adds a fully described op (used by the compact reader and the workload models).
    pub fn push(&mut self, info: OpInfo) -> OpId {
        if let Some(&id) = self.index.get(&info.name) {
            return id;
        }
        let id = OpId(self.ops.len() as u16);
        self.index.insert(info.name.clone(), id);
        self.ops.push(info);
        id
    }
    pub fn get(&self, id: OpId) -> &OpInfo {
        &self.ops[id.0 as usize]
    }
    pub fn lookup(&self, name: &str) -> Option<OpId> {
        self.index.get(name).copied()
    }
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (OpId, &OpInfo)> {
        self.ops
            .iter()
            .enumerate()
            .map(|(i, o)| (OpId(i as u16), o))
    }
}

/// Flags of a [`TraceInst`].
pub mod inst_flags {
    /// The instruction carries an immediate (tracer version 5).
    pub const HAS_IMM: u8 = 1;
}

/// One warp instruction of a trace.
///
/// Memory addresses live in the owning [`WarpTrace::addrs`]: a memory instruction's active lanes
/// (set bits of `mask`, lowest lane first) own `addrs[addr_start .. addr_start + mask.count_ones()]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceInst {
    /// Byte offset of the instruction in the kernel's code.
    pub pc: u32,
    /// Active-thread mask (bit i = lane i).
    pub mask: u32,
    pub op: OpId,
    pub ndst: u8,
    pub nsrc: u8,
    pub dst: [Reg; MAX_DST],
    pub src: [Reg; MAX_SRC],
    /// Bytes accessed per thread; 0 for instructions that do not touch memory.
    pub mem_width: u16,
    pub flags: u8,
    /// Index of this instruction's first address in [`WarpTrace::addrs`].
    pub addr_start: u32,
    /// Immediate operand (tracer version 5), valid when `flags & HAS_IMM`.
    pub imm: u64,
    /// Source line number (lineinfo traces), 0 when absent.
    pub line: u32,
    /// The regular shape of the addresses ([`AddrShape::of`] of them), filled by every reader
    /// while it expands them; [`AddrShape::NONE`] when irregular or unknown.
    pub shape: AddrShape,
    /// Compiler control bits ([`Ctrl::NONE`] when the trace has none).
    pub ctrl: Ctrl,
}

impl TraceInst {
    pub fn dsts(&self) -> &[Reg] {
        &self.dst[..self.ndst as usize]
    }
    pub fn srcs(&self) -> &[Reg] {
        &self.src[..self.nsrc as usize]
    }
    pub fn active_lanes(&self) -> u32 {
        self.mask.count_ones()
    }
    pub fn has_imm(&self) -> bool {
        self.flags & inst_flags::HAS_IMM != 0
    }
}

/// One warp's instruction stream inside a CTA.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarpTrace {
    /// Warp index within its CTA.
    pub warp_id: u32,
    pub insts: Vec<TraceInst>,
    /// Addresses of every memory instruction, active lanes in lane order.
    pub addrs: Vec<u64>,
}

impl WarpTrace {
    /// `(lane, address)` of each active lane of a memory instruction.
    pub fn lane_addrs<'a>(&'a self, inst: &TraceInst) -> impl Iterator<Item = (u32, u64)> + 'a {
        let n = if inst.mem_width > 0 {
            inst.mask.count_ones() as usize
        } else {
            0
        };
        let start = inst.addr_start as usize;
        let slice = &self.addrs[start.min(self.addrs.len())..(start + n).min(self.addrs.len())];
        let mask = inst.mask;
        let lanes = (0..32u32).filter(move |l| mask & (1 << l) != 0);
        lanes.zip(slice.iter().copied())
    }
}

impl WarpTrace {
    /// Sets every memory instruction's [`TraceInst::shape`] from its addresses, as the readers
    /// do (for warps built by hand).
    pub fn fill_shapes(&mut self) {
        for i in &mut self.insts {
            let (at, n) = (i.addr_start as usize, i.mask.count_ones() as usize);
            i.shape = match self.addrs.get(at..at.saturating_add(n)) {
                Some(a) if i.mem_width > 0 => AddrShape::of(a),
                _ => AddrShape::NONE,
            };
        }
    }
}

/// One thread block (CTA) of a kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CtaTrace {
    pub id: Dim3,
    pub warps: Vec<WarpTrace>,
}

impl CtaTrace {
    pub fn warp_insts(&self) -> u64 {
        self.warps.iter().map(|w| w.insts.len() as u64).sum()
    }
}

/// A command of `kernelslist.g`, in file order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// Launch the kernel with this index in the source's kernel list.
    Kernel { index: usize },
    /// Host-to-device copy: warms the L2 in the timing model.
    MemcpyHtoD { addr: u64, bytes: u64 },
}

/// One half of [`KernelStream::prefetch_pair`], to run on any thread.
pub type PrefetchHalf<'a> = Box<dyn FnOnce() + Send + 'a>;

/// A stream of one kernel's CTAs, decoded lazily.
pub trait KernelStream {
    fn info(&self) -> &KernelInfo;
    /// The opcode table; it may grow as CTAs are decoded, so read it after `next_cta`.
    fn ops(&self) -> &OpTable;
    /// The next CTA in trace order, or `None` at the end of the kernel.
    fn next_cta(&mut self) -> Result<Option<CtaTrace>>;
    /// The next CTA as an SM keeps it ([`PackedCta`]: packed if it has more than `above` warp
    /// instructions), in the same order as `next_cta`. A stream is pulled one way: `next_cta`
    /// after this may fail. The default packs `next_cta`'s CTA with `pk`; a stream that
    /// decodes ahead packs there (with the last `above` it was given).
    fn next_packed(&mut self, pk: &mut Packer, above: u64) -> Result<Option<PackedCta>> {
        Ok(self.next_cta()?.map(|c| PackedCta::new(c, pk, above)))
    }
    /// Says that this stream will be pulled by `next_packed` with this `above`, so that a
    /// stream that decodes ahead packs (and notes [`PackedCta::note_max`]) chunks it decodes
    /// before the first `next_packed` too. Default: nothing.
    fn will_pack(&mut self, _above: u64) {}
    /// Takes back a CTA its holder is done with (retired on its SM, or run through the
    /// functional pass), so a stream that decodes can fill its buffers again instead of
    /// allocating new ones (a bounded pool: the CTAs it hands out are the same either way).
    /// Default: dropped.
    fn recycle(&mut self, _cta: PackedCta) {}
    /// Decodes ahead (e.g. the next chunk) so a later `next_cta` finds its CTAs ready; the
    /// engine calls it on another thread while the SMs step. The CTAs and any error come out
    /// of `next_cta` exactly where they would have without it. Default: nothing.
    fn prefetch(&mut self) {}
    /// `prefetch` in two halves that may run at the same time on two threads (the next two
    /// chunks, each with its own decoder), or None when there is nothing to decode ahead now.
    /// The engine's crew calls only this (a stream with a `prefetch` implements both): a
    /// chunk takes far longer to decode than a cycle, so one thread decoding alone would keep
    /// the others waiting. Run both halves (one dropped unrun only costs its decoding later);
    /// the CTAs and any error come out of `next_cta` exactly where they would have without it.
    fn prefetch_pair(&mut self) -> Option<[PrefetchHalf<'_>; 2]> {
        None
    }
    /// Whether the next `next_cta` (or `next_packed`) hands out a CTA already decoded, without
    /// decoding. The engine decodes ahead on its own time (not beside the SMs) only when this
    /// is false: a decode it does not need yet waits for the next step, where it runs beside
    /// the SMs' work. Default: false.
    fn has_decoded(&self) -> bool {
        false
    }
    /// Asks the stream to hand out only instructions whose opcode id `op` has `keep[op]`
    /// (the functional pre-pass wants memory instructions only), each warp's kept
    /// instructions in order with their addresses. Call it before the first `next_cta`.
    /// Returns whether the stream does so; the default keeps everything (false), so a caller
    /// must still skip what it does not want.
    fn keep_only(&mut self, _keep: &[bool]) -> bool {
        false
    }
}

/// Anything that yields kernels: an Accel-Sim trace folder, a compact file, a built-in workload.
pub trait TraceSource {
    /// A short human name (path or workload id) for reports and errors.
    fn name(&self) -> &str;
    /// Kernel launches and copies in order.
    fn commands(&self) -> &[Command];
    fn kernel_count(&self) -> usize;
    /// The header of kernel `k` without decoding its body.
    fn kernel_info(&self, k: usize) -> &KernelInfo;
    fn open_kernel(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send + '_>>;
    /// Kernel `k` as a stream that owns what it needs, so the engine can keep it across
    /// `run_for` slices and pull CTAs as SMs free up (kernels are never loaded whole).
    /// The default decodes the whole kernel into memory; sources that can stream (compact,
    /// Accel-Sim text) override it.
    fn open_kernel_owned(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send>> {
        let mut s = self.open_kernel(k)?;
        Ok(Box::new(OwnedKernelStream::new(KernelTrace::collect(
            &mut *s,
        )?)))
    }
    /// A stable hash identifying the input (hex), printed in every result.
    fn trace_hash(&self) -> String;
    /// Warp instructions of every kernel together, where the source knows them without
    /// decoding (a compact file's index, a trace in memory): what progress displays count
    /// against. `None` otherwise.
    fn warp_insts_total(&self) -> Option<u64> {
        None
    }
}

/// A stream that owns a decoded kernel (the default [`TraceSource::open_kernel_owned`]).
pub struct OwnedKernelStream {
    info: KernelInfo,
    ops: OpTable,
    ctas: std::vec::IntoIter<CtaTrace>,
}

impl OwnedKernelStream {
    pub fn new(k: KernelTrace) -> Self {
        OwnedKernelStream {
            info: k.info,
            ops: k.ops,
            ctas: k.ctas.into_iter(),
        }
    }
}

impl KernelStream for OwnedKernelStream {
    fn info(&self) -> &KernelInfo {
        &self.info
    }
    fn ops(&self) -> &OpTable {
        &self.ops
    }
    fn next_cta(&mut self) -> Result<Option<CtaTrace>> {
        Ok(self.ctas.next())
    }
}

/// A fully decoded kernel, for small traces, tests and the built-in workloads.
#[derive(Clone, Debug, Default)]
pub struct KernelTrace {
    pub info: KernelInfo,
    pub ops: OpTable,
    pub ctas: Vec<CtaTrace>,
}

impl KernelTrace {
    pub fn warp_insts(&self) -> u64 {
        self.ctas.iter().map(|c| c.warp_insts()).sum()
    }
    /// Reads a whole kernel stream into memory.
    pub fn collect(stream: &mut dyn KernelStream) -> Result<KernelTrace> {
        let mut ctas = Vec::new();
        while let Some(c) = stream.next_cta()? {
            ctas.push(c);
        }
        Ok(KernelTrace {
            info: stream.info().clone(),
            ops: stream.ops().clone(),
            ctas,
        })
    }
}

/// A stream over an in-memory kernel.
pub struct MemKernelStream<'a> {
    k: &'a KernelTrace,
    next: usize,
}

impl KernelStream for MemKernelStream<'_> {
    fn info(&self) -> &KernelInfo {
        &self.k.info
    }
    fn ops(&self) -> &OpTable {
        &self.k.ops
    }
    fn next_cta(&mut self) -> Result<Option<CtaTrace>> {
        let c = self.k.ctas.get(self.next).cloned();
        self.next += 1;
        Ok(c)
    }
}

/// A whole trace held in memory.
#[derive(Clone, Debug, Default)]
pub struct MemTrace {
    pub name: String,
    pub commands: Vec<Command>,
    pub kernels: Vec<KernelTrace>,
}

impl MemTrace {
    /// Warp instructions over every kernel launch (a kernel launched twice counts twice).
    pub fn launched_warp_insts(&self) -> u64 {
        self.commands
            .iter()
            .map(|c| match c {
                Command::Kernel { index } => self.kernels[*index].warp_insts(),
                _ => 0,
            })
            .sum()
    }

    /// A trace of these kernels launched in order, with no copies.
    pub fn from_kernels(name: impl Into<String>, kernels: Vec<KernelTrace>) -> Self {
        let commands = (0..kernels.len())
            .map(|index| Command::Kernel { index })
            .collect();
        MemTrace {
            name: name.into(),
            commands,
            kernels,
        }
    }
    /// Reads every kernel of `src` into memory.
    pub fn collect(src: &mut dyn TraceSource) -> Result<MemTrace> {
        let mut kernels = Vec::new();
        for k in 0..src.kernel_count() {
            let mut s = src.open_kernel(k)?;
            kernels.push(KernelTrace::collect(&mut *s)?);
        }
        Ok(MemTrace {
            name: src.name().to_string(),
            commands: src.commands().to_vec(),
            kernels,
        })
    }
}

impl TraceSource for MemTrace {
    fn name(&self) -> &str {
        &self.name
    }
    fn warp_insts_total(&self) -> Option<u64> {
        Some(self.kernels.iter().map(|k| k.warp_insts()).sum())
    }
    fn commands(&self) -> &[Command] {
        &self.commands
    }
    fn kernel_count(&self) -> usize {
        self.kernels.len()
    }
    fn kernel_info(&self, k: usize) -> &KernelInfo {
        &self.kernels[k].info
    }
    fn open_kernel(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send + '_>> {
        Ok(Box::new(MemKernelStream {
            k: &self.kernels[k],
            next: 0,
        }))
    }
    fn trace_hash(&self) -> String {
        let mut h = Fnv64::new();
        for k in &self.kernels {
            h.write(k.info.name.as_bytes());
            for c in &k.ctas {
                for w in &c.warps {
                    for i in &w.insts {
                        h.write_u64(((i.pc as u64) << 32) | i.mask as u64);
                        h.write(k.ops.get(i.op).name.as_bytes());
                    }
                    for a in &w.addrs {
                        h.write_u64(*a);
                    }
                }
            }
        }
        h.hex()
    }
}

/// FNV-1a, 64 bit: a tiny stable hash for trace identity (not for hash tables).
#[derive(Clone, Copy, Debug)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Self::new()
    }
}

impl Fnv64 {
    pub fn new() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub fn write_u64(&mut self, v: u64) {
        self.write(&v.to_le_bytes());
    }
    pub fn finish(&self) -> u64 {
        self.0
    }
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}
