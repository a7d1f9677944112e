//! Execution-driven simulation from real SASS: a `cuobjdump -sass` listing, a
//! kernel name and a launch spec in; every warp executed functionally, CTA by CTA, and the
//! executed instruction stream out as a trace the timing engine runs like any other.
//!
//! ```text
//!  listing ──trace::sanitizer::sass::parse──> SassFunction ──program.rs──> Kernel (decoded)
//!  spec.toml ──launch.rs──> LaunchSpec ──memory.rs──> Device (buffers), constant bank 0
//!  per launch, per CTA in grid order: cta.rs runs its warps together (BAR.SYNC, shared
//!      memory), SIMT groups per warp (warp.rs); ops.rs / memops.rs compute; every executed
//!      warp instruction recorded -> CtaTrace
//!  ──> ExecSource (stream.rs, a TraceSource: host-to-device copies, then the launches,
//!      each CTA executed as the engine pulls it) + final buffers; or MemTrace (execute:
//!      the whole stream in memory, about 60 bytes per warp instruction)
//! ```
//!
//! A launch's CTAs run one after another in linear order, each warp of a CTA to its next
//! barrier in turn: a deterministic order, so the same inputs always give the same stream.
//!
//! The launch spec's format: [`launch`] and `LAUNCH.md` beside this file (the user's guide). What each instruction does: [`decode`] (which
//! opcodes and modifiers), [`ops`], [`memops`], [`warp`] (divergence). Anything the executor
//! cannot execute stops the run with an error naming the listing line, kernel, PC and
//! opcode.

pub mod alu;
pub mod cta;
pub mod decode;
pub mod fuzz;
pub mod launch;
pub mod launch_values;
pub mod memops;
pub mod memory;
pub mod opc;
pub mod operand;
pub mod ops;
mod ops_steps;
pub mod program;
pub mod stream;
pub mod warp;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_gaps;
#[cfg(test)]
mod tests_kernels;
#[cfg(test)]
mod tests_repeat;
#[cfg(test)]
mod tests_sanitizer;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

pub use launch::{
    Arg, BufferDef, ConstDef, Elem, Init, Launch, LaunchSpec, Repeat, MAX_CONST_BANK,
};
pub use memory::Device;
pub use program::Kernel;
pub use stream::{ExecHandle, ExecSource, Executor};

use crate::trace::model::{KernelTrace, MemTrace};
use crate::trace::opcodes::Arch;
use crate::{Error, Result};

/// The kernels of one listing, decoded.
#[derive(Clone, Debug)]
pub struct Program {
    pub kernels: HashMap<String, Kernel>,
    pub file: String,
    /// Initial contents of the user constant banks by bank (`__constant__` data in bank 3,
    /// from the cubin's `.nv.constant3` section); a launch spec's `[[constant]]` writes over
    /// them.
    pub banks: BTreeMap<u8, Vec<u8>>,
}

impl Program {
    /// Decodes every function of a `cuobjdump -sass` listing named `file` in errors;
    /// `default_arch` for listings without `code for sm_XX`.
    pub fn from_listing(text: &str, file: &str, default_arch: Arch) -> Result<Program> {
        let funcs = crate::trace::sanitizer::sass::parse(text, file)?;
        let mut kernels = HashMap::new();
        for (name, f) in &funcs {
            kernels.insert(name.clone(), Kernel::decode(f, file, default_arch)?);
        }
        Ok(Program {
            kernels,
            file: file.to_string(),
            banks: BTreeMap::new(),
        })
    }

    /// The kernel `name` (a C++ kernel also by its unmangled name, `vecmul` for
    /// `_Z6vecmulPfS_`, when one function alone has it), or an error listing the kernels.
    pub fn kernel(&self, name: &str) -> Result<&Kernel> {
        if let Some(k) = self.kernels.get(name) {
            return Ok(k);
        }
        let prefix = format!("_Z{}{name}", name.len());
        let mut mangled = self.kernels.iter().filter(|(n, _)| n.starts_with(&prefix));
        if let (Some((_, k)), None) = (mangled.next(), mangled.next()) {
            return Ok(k);
        }
        self.kernels.get(name).ok_or_else(|| {
            let mut names: Vec<&str> = self.kernels.keys().map(String::as_str).collect();
            names.sort_unstable();
            Error::parse(
                &self.file,
                0,
                "kernel",
                format!("no function {name}; the listing has: {}", names.join(", ")),
            )
        })
    }
}

/// What [`execute`] produced.
pub struct Executed {
    /// Host-to-device copies, then one kernel per launch.
    pub trace: MemTrace,
    /// The buffers after the last launch.
    pub device: Device,
    pub spec: LaunchSpec,
}

impl Executed {
    /// Warp instructions executed over all launches.
    pub fn warp_insts(&self) -> u64 {
        self.trace.kernels.iter().map(KernelTrace::warp_insts).sum()
    }
}

/// Runs every launch of `spec` on `prog` into memory; `name` names the trace (the
/// listing). [`ExecSource`] streams the same executed stream CTA by CTA instead.
pub fn execute(prog: &Program, spec: &LaunchSpec, name: &str) -> Result<Executed> {
    stream::execute_all(prog, spec, name)
}

/// Float comparisons of `--check`: equal when `|a - b| <= REL_TOL * max(|a|, |b|) +
/// ABS_TOL` (NaN equals NaN); integers compare exactly.
pub const REL_TOL: f64 = 1e-5;
pub const ABS_TOL: f64 = 1e-6;

/// Writes every output buffer as `DIR/NAME.bin` (raw little-endian elements); returns the
/// paths.
pub fn write_outputs(
    spec: &LaunchSpec,
    device: &Device,
    dir: &Path,
) -> Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    let mut out = Vec::new();
    for (b, d) in spec.buffers.iter().zip(&device.bufs) {
        if b.output {
            let p = dir.join(format!("{}.bin", b.name));
            std::fs::write(&p, &d.data).map_err(|e| Error::io(p.display().to_string(), e))?;
            out.push(p);
        }
    }
    Ok(out)
}

/// Compares every output buffer with `DIR/NAME.bin`; returns one line per buffer, or an
/// error naming the first differing element of each buffer that differs.
pub fn check_outputs(spec: &LaunchSpec, device: &Device, dir: &Path) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    let mut bad = Vec::new();
    for (b, d) in spec.buffers.iter().zip(&device.bufs) {
        if !b.output {
            continue;
        }
        let p = dir.join(format!("{}.bin", b.name));
        let want = std::fs::read(&p).map_err(|e| Error::io(p.display().to_string(), e))?;
        match compare(b.elem, &d.data, &want) {
            Ok(()) => lines.push(format!(
                "{}: {} {} elements match {}",
                b.name,
                b.len,
                b.elem.name(),
                p.display()
            )),
            Err(m) => bad.push(format!("{}: {m} ({})", b.name, p.display())),
        }
    }
    if !bad.is_empty() {
        return Err(Error::other(format!("--check: {}", bad.join("; "))));
    }
    Ok(lines)
}

/// Compares two buffers' bytes as elements of `e`.
pub fn compare(e: Elem, got: &[u8], want: &[u8]) -> std::result::Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{} bytes, the reference has {}",
            got.len(),
            want.len()
        ));
    }
    let n = e.bytes();
    let mut diffs = 0u64;
    let mut first = None;
    for (i, (g, w)) in got.chunks(n).zip(want.chunks(n)).enumerate() {
        let ok = match e {
            Elem::F32 => close(
                f32::from_le_bytes(g.try_into().expect("4")) as f64,
                f32::from_le_bytes(w.try_into().expect("4")) as f64,
            ),
            Elem::F64 => close(
                f64::from_le_bytes(g.try_into().expect("8")),
                f64::from_le_bytes(w.try_into().expect("8")),
            ),
            _ => g == w,
        };
        if !ok {
            diffs += 1;
            first.get_or_insert((i, show(e, g), show(e, w)));
        }
    }
    match first {
        None => Ok(()),
        Some((i, g, w)) => Err(format!(
            "{diffs} elements differ; the first is [{i}]: {g}, expected {w}"
        )),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan())
        || a == b
        || (a - b).abs() <= REL_TOL * a.abs().max(b.abs()) + ABS_TOL
}

fn show(e: Elem, b: &[u8]) -> String {
    let mut x = [0u8; 8];
    x[..b.len()].copy_from_slice(b);
    let u = u64::from_le_bytes(x);
    match e {
        Elem::F32 => f32::from_bits(u as u32).to_string(),
        Elem::F64 => f64::from_bits(u).to_string(),
        Elem::I8 => (u as i8).to_string(),
        Elem::I16 => (u as i16).to_string(),
        Elem::I32 => (u as i32).to_string(),
        Elem::I64 => (u as i64).to_string(),
        _ => u.to_string(),
    }
}
