//! One check of the kernel model, the same for every reader (Accel-Sim text, raw `.trace`,
//! compact, the Compute Sanitizer importer), so that they refuse the same inputs with the same
//! words. A reader calls it with what it decoded and wraps the message with where it was (file
//! and line, or kernel, chunk and byte).
//!
//! ```text
//!  header   grid(), block(), tracer_version()     zero or out-of-range launch shapes, formats
//!  copies   memcpy()                              MemcpyHtoD sizes no GPU has
//!  opcodes  opcode(info, policy)                  unknown opcodes: an error, or (warn) INT ALU
//!  CTAs     KernelCheck::cta / cta_id             inside the grid, each once; warp ids inside
//!                                                  the block, each once (warps())
//!  the end  KernelCheck::end(policy)              every CTA of the grid present, or (with
//!                                                  allow_partial) a warning saying how many not
//! ```
//! The per-CTA checks allocate nothing per instruction: the CTAs seen are kept as runs of
//! consecutive linear ids (one run when CTAs come in order, as every tracer writes them), a
//! CTA's warps in a fixed bitset.

use std::collections::BTreeMap;

use crate::error::shown;
use crate::trace::model::{CtaTrace, Dim3, KernelInfo, OpInfo, MAX_TRACER_VERSION, WARP_SIZE};
use crate::{Error, Result};

/// Most threads per block we accept (CUDA allows 1024; the slack is for odd tracers).
pub const MAX_BLOCK_THREADS: u64 = 4096;
/// The largest grid CUDA launches: 2^31 - 1 blocks in x, 65535 in y and z.
pub const MAX_GRID: Dim3 = Dim3::new(i32::MAX as u32, 65535, 65535);
/// The largest host-to-device copy accepted: 1 TiB, more memory than any GPU has.
pub const MAX_MEMCPY_BYTES: u64 = 1 << 40;
/// Most warps a block of [`MAX_BLOCK_THREADS`] has.
const MAX_WARPS: usize = (MAX_BLOCK_THREADS / WARP_SIZE as u64) as usize;

/// What to do with an opcode the architecture's table does not know.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnknownOpcodes {
    /// Refuse the trace, naming the opcode and where it is.
    #[default]
    Error,
    /// Simulate it as an integer ALU instruction and say so in the result's warnings.
    Warn,
}

impl UnknownOpcodes {
    /// `error` or `warn` (the CLI's `--unknown-opcodes`).
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "error" => Ok(UnknownOpcodes::Error),
            "warn" => Ok(UnknownOpcodes::Warn),
            _ => Err(Error::other(format!(
                "--unknown-opcodes {}: expected `error` or `warn`",
                shown(s)
            ))),
        }
    }
}

/// How strict a reader is where a trace can still be simulated: unknown opcodes and kernels
/// with CTAs missing; and how much one CTA may make it hold. Everything else [`KernelCheck`]
/// finds is always an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    pub unknown_opcodes: UnknownOpcodes,
    /// A kernel with CTAs missing runs the ones present (with a warning) instead of failing.
    pub allow_partial: bool,
    /// Most warp instructions one CTA may hold ([`cta_held`]; [`DEFAULT_MAX_CTA_INSTS`]).
    pub max_cta_insts: u64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::STRICT
    }
}

impl Policy {
    /// Errors on unknown opcodes and missing CTAs (the default).
    pub const STRICT: Policy = Policy {
        unknown_opcodes: UnknownOpcodes::Error,
        allow_partial: false,
        max_cta_insts: DEFAULT_MAX_CTA_INSTS,
    };
    /// Reads whatever can be read: for `convert` and `annotate`, which pass a trace on as it is
    /// (it is checked when it is simulated). (`info` describes unknown opcodes whatever the
    /// flags, and kernels with CTAs missing with `--allow-partial`.)
    pub const LENIENT: Policy = Policy {
        unknown_opcodes: UnknownOpcodes::Warn,
        allow_partial: true,
        max_cta_insts: DEFAULT_MAX_CTA_INSTS,
    };

    /// This policy with at most `n` warp instructions per CTA.
    pub const fn with_max_cta_insts(self, n: u64) -> Policy {
        Policy {
            max_cta_insts: n,
            ..self
        }
    }
}

/// Most warp instructions a reader holds for one CTA unless told otherwise: 1,048,576. A reader
/// holds a whole CTA (a compact chunk's CTAs) before it hands it on: ~72 bytes per instruction
/// and 8 per address, so [`cta_held`] counts 8 addresses as one instruction and a CTA at the
/// bound holds about 72 MB; a block refused at the bound peaks at about 135 MB with its vectors'
/// growth (measured: tests/hostile/bounds.rs). Real CTAs hold far fewer (32 warps of 30,000
/// instructions are 960,000). The CLI raises it with `--max-cta-insts N` or
/// `WARPWEAVE_MAX_CTA_INSTS=N`.
pub const DEFAULT_MAX_CTA_INSTS: u64 = 1 << 20;

/// Addresses counted as one warp instruction by [`cta_held`] (8 bytes each against ~72 bytes).
pub const ADDRS_PER_HELD_INST: u64 = 8;

/// What a CTA of `insts` warp instructions with `addrs` addresses holds, in warp instructions.
pub fn cta_held(insts: u64, addrs: u64) -> u64 {
    insts.saturating_add(addrs.div_ceil(ADDRS_PER_HELD_INST))
}

/// Block `cta` holding `held` warp instructions ([`cta_held`], declared or read so far) inside
/// `policy`'s bound.
pub fn cta_insts(cta: Dim3, held: u64, policy: Policy) -> std::result::Result<(), String> {
    if held > policy.max_cta_insts {
        return Err(cta_too_large(cta, policy.max_cta_insts));
    }
    Ok(())
}

/// The message of block `cta` holding more than `max` warp instructions.
pub fn cta_too_large(cta: Dim3, max: u64) -> String {
    format!(
        "block {},{},{} holds more than {max} warp instructions (8 addresses count as one): \
         more than a real CTA; raise the bound with --max-cta-insts N or \
         WARPWEAVE_MAX_CTA_INSTS=N",
        cta.x, cta.y, cta.z
    )
}

/// The most addresses a CTA that holds `insts` instructions and `addrs` addresses may still
/// take under `policy` ([`cta_held`]).
pub fn cta_addr_room(insts: u64, addrs: u64, policy: Policy) -> u64 {
    policy
        .max_cta_insts
        .saturating_sub(insts)
        .saturating_mul(ADDRS_PER_HELD_INST)
        .saturating_sub(addrs)
}

/// A compact chunk of `ctas` CTAs and `insts` warp instructions (its directory entry, before
/// it is decoded) inside `policy`'s bound: a reader holds a chunk's CTAs together, so a chunk
/// may hold at most twice the bound (a writer closes a chunk once it holds `--chunk-insts`,
/// 32,768 by default, so a chunk is that plus its last CTA), and its CTAs the bound each.
pub fn chunk_insts(ctas: u64, insts: u64, policy: Policy) -> std::result::Result<(), String> {
    let max = policy.max_cta_insts;
    if insts > max.saturating_mul(2) || insts > max.saturating_mul(ctas) {
        return Err(format!(
            "{insts} warp instructions in {ctas} CTAs: more than {max} per CTA or twice that \
             in one chunk; raise the bound with --max-cta-insts N or WARPWEAVE_MAX_CTA_INSTS=N"
        ));
    }
    Ok(())
}

/// A grid with no zero side, inside CUDA's limits.
pub fn grid(g: Dim3) -> std::result::Result<(), String> {
    if g.x == 0 || g.y == 0 || g.z == 0 {
        return Err(format!("{g}: expected (x,y,z) with x, y, z >= 1"));
    }
    if g.x > MAX_GRID.x || g.y > MAX_GRID.y || g.z > MAX_GRID.z {
        return Err(format!(
            "{g}: larger than CUDA launches (at most {MAX_GRID})"
        ));
    }
    Ok(())
}

/// A block of 1..=[`MAX_BLOCK_THREADS`] threads.
pub fn block(b: Dim3) -> std::result::Result<(), String> {
    let n = b.count();
    if n == 0 || n > MAX_BLOCK_THREADS {
        return Err(format!(
            "{n} threads per block ({b}): expected 1..={MAX_BLOCK_THREADS}"
        ));
    }
    Ok(())
}

/// A tracer line format the readers know.
pub fn tracer_version(v: u32) -> std::result::Result<(), String> {
    if v > MAX_TRACER_VERSION {
        return Err(format!(
            "{v} is newer than this reader knows (0..={MAX_TRACER_VERSION})"
        ));
    }
    Ok(())
}

/// A host-to-device copy a GPU could receive.
pub fn memcpy(addr: u64, bytes: u64) -> std::result::Result<(), String> {
    if bytes > MAX_MEMCPY_BYTES {
        return Err(format!(
            "a copy of {bytes} bytes: more than any GPU's memory (at most {MAX_MEMCPY_BYTES})"
        ));
    }
    if addr.checked_add(bytes).is_none() {
        return Err(format!(
            "{bytes} bytes at {addr:#x} run past the end of the 64-bit address space"
        ));
    }
    Ok(())
}

/// An opcode the simulator can run under `policy`: an unknown one is an error unless the
/// policy warns (it then runs as an integer ALU instruction, as [`crate::trace::opcodes`]
/// classifies it).
pub fn opcode(info: &OpInfo, policy: Policy) -> std::result::Result<(), String> {
    if info.unknown && policy.unknown_opcodes == UnknownOpcodes::Error {
        return Err(format!(
            "unknown opcode `{}` (not in the architecture's opcode table); \
             --unknown-opcodes=warn simulates it as an integer ALU instruction",
            shown(&info.name)
        ));
    }
    Ok(())
}

/// The warning of a kernel whose unknown opcodes were simulated as integer ALU instructions.
pub fn unknown_opcodes_warning<'a>(
    kernel: &str,
    names: impl Iterator<Item = &'a str>,
) -> Option<String> {
    let names: Vec<String> = names.map(|n| format!("`{}`", shown(n))).collect();
    if names.is_empty() {
        return None;
    }
    let shown_names = if names.len() > 8 {
        format!("{} and {} more", names[..8].join(", "), names.len() - 8)
    } else {
        names.join(", ")
    };
    Some(format!(
        "kernel `{}`: unknown opcode{} {shown_names} simulated as integer ALU instructions \
         (--unknown-opcodes=warn)",
        shown(kernel),
        if names.len() == 1 { "" } else { "s" }
    ))
}

/// `id` inside `grid`.
pub fn inside_grid(id: Dim3, grid: Dim3) -> std::result::Result<(), String> {
    if id.x >= grid.x || id.y >= grid.y || id.z >= grid.z {
        return Err(format!(
            "block {},{},{} is outside the grid {grid}",
            id.x, id.y, id.z
        ));
    }
    Ok(())
}

/// Warp `w` of block `cta` inside a block of `warps_per_cta` warps.
pub fn warp_id(cta: Dim3, w: u32, warps_per_cta: u32) -> std::result::Result<(), String> {
    if w >= warps_per_cta || w as usize >= MAX_WARPS {
        return Err(format!(
            "block {},{},{}: warp {w} but a block has {warps_per_cta} warps",
            cta.x, cta.y, cta.z
        ));
    }
    Ok(())
}

/// The message of warp `w` listed twice in block `cta`.
pub fn warp_twice(cta: Dim3, w: u32) -> String {
    format!(
        "block {},{},{}: warp {w} appears twice",
        cta.x, cta.y, cta.z
    )
}

/// The warps of a CTA: each warp id inside a block of `warps_per_cta` warps, and once.
pub fn warps(c: &CtaTrace, warps_per_cta: u32) -> std::result::Result<(), String> {
    let mut seen = [0u64; MAX_WARPS.div_ceil(64)];
    for w in &c.warps {
        let wi = w.warp_id;
        warp_id(c.id, wi, warps_per_cta)?;
        let (word, bit) = (wi as usize / 64, 1u64 << (wi % 64));
        if seen[word] & bit != 0 {
            return Err(warp_twice(c.id, wi));
        }
        seen[word] |= bit;
    }
    Ok(())
}

/// Linear CTA ids seen, as disjoint runs `start -> end` (end exclusive). Ids are below a grid's
/// count, at most 2^63 ([`MAX_GRID`]), so `id + 1` never overflows.
#[derive(Clone, Debug, Default)]
struct CtaSet {
    runs: BTreeMap<u64, u64>,
    len: u64,
}

impl CtaSet {
    /// Adds `id`; false when it was there already.
    fn insert(&mut self, id: u64) -> bool {
        let before = self.runs.range(..=id).next_back().map(|(&s, &e)| (s, e));
        if let Some((_, e)) = before {
            if id < e {
                return false;
            }
        }
        let after = id
            .checked_add(1)
            .and_then(|n| self.runs.get(&n).map(|&e| (n, e)));
        match (before, after) {
            (Some((s, e)), Some((n, ne))) if e == id => {
                self.runs.remove(&n);
                self.runs.insert(s, ne);
            }
            (Some((s, e)), None) if e == id => {
                self.runs.insert(s, id.saturating_add(1));
            }
            (_, Some((n, ne))) => {
                self.runs.remove(&n);
                self.runs.insert(id, ne);
            }
            _ => {
                self.runs.insert(id, id.saturating_add(1));
            }
        }
        self.len += 1;
        true
    }
}

/// The CTAs of one kernel as a reader hands them out: each inside the grid and once, its
/// warps inside the block; at the end, all of them.
#[derive(Clone, Debug)]
pub struct KernelCheck {
    name: String,
    grid: Dim3,
    warps: u32,
    seen: CtaSet,
}

impl KernelCheck {
    pub fn new(info: &KernelInfo) -> Self {
        KernelCheck {
            name: info.name.clone(),
            grid: info.grid,
            warps: info.warps_per_cta(),
            seen: CtaSet::default(),
        }
    }

    /// A CTA id: inside the grid, not seen before in this kernel.
    pub fn cta_id(&mut self, id: Dim3) -> std::result::Result<(), String> {
        inside_grid(id, self.grid)?;
        if !self.seen.insert(self.grid.linear(id)) {
            return Err(format!(
                "block {},{},{} appears twice in kernel `{}` (a thread block is traced once; \
                 a copy would be simulated twice)",
                id.x,
                id.y,
                id.z,
                shown(&self.name)
            ));
        }
        Ok(())
    }

    /// A decoded CTA: its id ([`KernelCheck::cta_id`]) and its warps ([`warps`]).
    pub fn cta(&mut self, c: &CtaTrace) -> std::result::Result<(), String> {
        warps(c, self.warps)?;
        self.cta_id(c.id)
    }

    /// CTAs seen so far.
    pub fn present(&self) -> u64 {
        self.seen.len
    }

    /// At the end of the kernel: Ok(None) when every CTA of the grid was there; with CTAs
    /// missing, the warning to report when `policy` allows partial kernels, else the error.
    pub fn end(&self, policy: Policy) -> std::result::Result<Option<String>, String> {
        missing(&self.name, self.present(), self.grid.count(), policy)
    }
}

/// A kernel of `total` CTAs of which a trace holds `present`: Ok(None) when none is missing;
/// else the warning (`policy.allow_partial`) or the error, both saying how many of how many.
pub fn missing(
    kernel: &str,
    present: u64,
    total: u64,
    policy: Policy,
) -> std::result::Result<Option<String>, String> {
    if present >= total {
        return Ok(None);
    }
    let gone = total - present;
    if policy.allow_partial {
        Ok(Some(partial_warning(kernel, present, total)))
    } else {
        Err(format!(
            "kernel `{}`: {gone} of {total} CTAs are missing from the trace (it holds {present}; \
             cut short?); --allow-partial simulates the ones present",
            shown(kernel)
        ))
    }
}

/// The warning of a kernel used (simulated, described) with `present` of its `total` CTAs.
pub fn partial_warning(kernel: &str, present: u64, total: u64) -> String {
    format!(
        "kernel `{}`: {} of {total} CTAs missing from the trace (--allow-partial: the {present} \
         present are used)",
        shown(kernel),
        total.saturating_sub(present)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::model::WarpTrace;

    fn info(grid: Dim3, threads: u32) -> KernelInfo {
        KernelInfo {
            name: "k".into(),
            grid,
            block: Dim3::new(threads, 1, 1),
            ..Default::default()
        }
    }

    fn cta(x: u32, warps: &[u32]) -> CtaTrace {
        CtaTrace {
            id: Dim3::new(x, 0, 0),
            warps: warps
                .iter()
                .map(|&w| WarpTrace {
                    warp_id: w,
                    ..Default::default()
                })
                .collect(),
        }
    }

    #[test]
    fn shapes_outside_cuda_limits_are_refused() {
        assert!(grid(Dim3::new(1, 1, 1)).is_ok());
        assert!(grid(MAX_GRID).is_ok());
        assert!(grid(Dim3::new(0, 1, 1)).unwrap_err().contains(">= 1"));
        let e = grid(Dim3::new(u32::MAX, u32::MAX, u32::MAX)).unwrap_err();
        assert!(e.contains("larger than CUDA launches"), "{e}");
        assert!(block(Dim3::new(1024, 1, 1)).is_ok());
        assert!(block(Dim3::new(0, 1, 1)).is_err());
        // The product of three u32 sides neither overflows nor passes.
        let e = block(Dim3::new(u32::MAX, u32::MAX, u32::MAX)).unwrap_err();
        assert!(e.contains("expected 1..=4096"), "{e}");
        assert!(tracer_version(MAX_TRACER_VERSION).is_ok());
        let e = tracer_version(99).unwrap_err();
        assert_eq!(
            e,
            format!("99 is newer than this reader knows (0..={MAX_TRACER_VERSION})")
        );
    }

    #[test]
    fn copies_larger_than_any_gpu_are_refused() {
        assert!(memcpy(0x7f00_0000_0000, 1 << 20).is_ok());
        let e = memcpy(0x1000, 1 << 63).unwrap_err();
        assert!(e.contains("9223372036854775808 bytes"), "{e}");
        let e = memcpy(u64::MAX - 10, 64).unwrap_err();
        assert!(e.contains("address space"), "{e}");
    }

    #[test]
    fn unknown_opcodes_are_errors_unless_the_policy_warns() {
        let op = OpInfo {
            name: "FOOBAR.X".into(),
            unknown: true,
            ..Default::default()
        };
        let e = opcode(&op, Policy::STRICT).unwrap_err();
        assert!(
            e.contains("`FOOBAR.X`") && e.contains("--unknown-opcodes=warn"),
            "{e}"
        );
        assert!(opcode(&op, Policy::LENIENT).is_ok());
        let known = OpInfo {
            name: "IADD3".into(),
            ..Default::default()
        };
        assert!(opcode(&known, Policy::STRICT).is_ok());
        let nul = OpInfo {
            name: "IADD3\0X".into(),
            unknown: true,
            ..Default::default()
        };
        assert!(opcode(&nul, Policy::STRICT)
            .unwrap_err()
            .contains("`IADD3\\0X`"));
        let w = unknown_opcodes_warning("k", ["A", "B"].into_iter()).unwrap();
        assert!(w.contains("`A`, `B`") && w.contains("integer ALU"), "{w}");
        assert!(unknown_opcodes_warning("k", std::iter::empty()).is_none());
    }

    #[test]
    fn ctas_inside_the_grid_once_and_their_warps_inside_the_block() {
        let mut k = KernelCheck::new(&info(Dim3::new(4, 1, 1), 64));
        k.cta(&cta(0, &[0, 1])).unwrap();
        k.cta(&cta(2, &[1])).unwrap();
        let e = k.cta(&cta(0, &[0])).unwrap_err();
        assert!(e.contains("block 0,0,0 appears twice in kernel `k`"), "{e}");
        let e = k.cta(&cta((1 << 31) + 5, &[0])).unwrap_err();
        assert!(e.contains("outside the grid (4,1,1)"), "{e}");
        let e = k.cta(&cta(1, &[99_999])).unwrap_err();
        assert!(e.contains("warp 99999 but a block has 2 warps"), "{e}");
        let e = k.cta(&cta(1, &[1, 1])).unwrap_err();
        assert!(e.contains("warp 1 appears twice"), "{e}");
        assert_eq!(k.present(), 2);
        let e = k.end(Policy::STRICT).unwrap_err();
        assert!(e.contains("2 of 4 CTAs are missing"), "{e}");
        let w = k.end(Policy::LENIENT).unwrap().unwrap();
        assert!(
            w.contains("2 of 4 CTAs missing") && w.contains("the 2 present are used"),
            "{w}"
        );
        k.cta(&cta(1, &[])).unwrap();
        k.cta(&cta(3, &[])).unwrap();
        assert_eq!(k.end(Policy::STRICT), Ok(None));
    }

    #[test]
    fn the_cta_set_takes_any_order_and_finds_every_repeat() {
        // In order, reversed, interleaved, and runs joined from both sides.
        let mut s = CtaSet::default();
        for i in (0..100)
            .chain((200..300).rev())
            .chain((100..200).step_by(2))
        {
            assert!(s.insert(i), "{i}");
        }
        for i in (101..200).step_by(2) {
            assert!(s.insert(i), "{i}");
        }
        assert_eq!(s.runs.len(), 1, "{:?}", s.runs);
        assert_eq!(s.len, 300);
        for i in [0, 99, 100, 150, 199, 299] {
            assert!(!s.insert(i), "{i}");
        }
    }
}
