//! Compiler control bits joined onto any trace from its kernels' SASS, by kernel name and PC
//! (`warpweave annotate`, `warpweave run --sass`): the recipe of the modern-cores paper's
//! tracer for traces that carry none (`../shared/reference/modern-gpu-cores.md` section 1.1:
//! NVBit does not see control bits; `cuobjdump -sass` of the same binary has them).
//!
//! ```text
//!  cuobjdump -sass ─sass.rs─> SassCtrl: function name -> pc -> (Ctrl, opcode, reused registers)
//!  TraceSource ─Annotated─> every kernel: its function by name (the mangled `Function :` name),
//!      ctrl_source = Sass; every decoded CTA: each instruction's ctrl from its PC
//! ```
//! The join checks what it can: a kernel missing from the listing, a PC that is not one of its
//! function's instructions, or an opcode whose base name (`LDG` of `LDG.E.SYS`) differs from
//! the listing's at that PC is an error naming the listing, the kernel and the PC. Reuse flags
//! follow registers, not positions: a flag the listing puts on its i-th register source goes
//! to the position of that register in the trace instruction's `src` (a tracer may order them
//! otherwise), and is dropped where the trace does not name it among its first three.
//!
//! Annotation happens as CTAs are decoded, never in the per-cycle path.

use std::collections::HashMap;
use std::sync::Arc;

use super::control::{Ctrl, CtrlSource, REUSE_SLOTS};
use super::model::{
    Command, CtaTrace, KernelInfo, KernelStream, OpTable, PackedCta, PrefetchHalf, Reg, TraceSource,
};
use super::opcodes::base_name;
use super::sanitizer::sass::{self, SassFunction};
use crate::{Error, Result};

/// One instruction of the listing, as the join needs it.
#[derive(Clone, Debug)]
struct Slot {
    /// Its control bits, reuse flags cleared (they are set per trace instruction).
    ctrl: Ctrl,
    /// Full opcode and its base name.
    op: Box<str>,
    base: Box<str>,
    /// The register the listing flags for reuse at each source position.
    reuse: [Option<Reg>; REUSE_SLOTS],
    /// Line in the listing.
    line: u64,
}

/// One function of the listing.
#[derive(Debug)]
struct FuncCtrl {
    name: String,
    binary_version: u32,
    has_ctrl: bool,
    at: HashMap<u32, Slot>,
    /// First and last pc, for messages.
    span: (u32, u32),
}

impl FuncCtrl {
    fn of(f: &SassFunction) -> FuncCtrl {
        let at = f
            .insts
            .iter()
            .map(|i| {
                let mut reuse = [None; REUSE_SLOTS];
                for (k, r) in reuse.iter_mut().enumerate() {
                    if i.ctrl.reuse() & (1 << k) != 0 {
                        *r = i.src.get(k).copied();
                    }
                }
                let slot = Slot {
                    ctrl: i.ctrl.with_reuse(0),
                    op: i.op.as_str().into(),
                    base: base_name(&i.op).into(),
                    reuse,
                    line: i.line,
                };
                (i.pc, slot)
            })
            .collect();
        FuncCtrl {
            name: f.name.clone(),
            binary_version: f.binary_version,
            has_ctrl: f.has_ctrl(),
            at,
            span: (
                f.insts.first().map_or(0, |i| i.pc),
                f.insts.last().map_or(0, |i| i.pc),
            ),
        }
    }
}

/// The control bits of every function of a `cuobjdump -sass` listing.
#[derive(Debug)]
pub struct SassCtrl {
    file: Arc<str>,
    funcs: HashMap<String, Arc<FuncCtrl>>,
}

impl SassCtrl {
    /// Parses a listing; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<SassCtrl> {
        let funcs = sass::parse(text, file)?
            .iter()
            .map(|(name, f)| (name.clone(), Arc::new(FuncCtrl::of(f))))
            .collect();
        Ok(SassCtrl {
            file: file.into(),
            funcs,
        })
    }

    /// The listing's name, as given to [`SassCtrl::parse`].
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The function of kernel `k` of `trace` (for errors), checked for control bits and target.
    fn function(&self, info: &KernelInfo, k: usize, trace: &str) -> Result<Arc<FuncCtrl>> {
        let err = |field: &str, msg: String| Error::parse(&*self.file, 0, field, msg);
        let f = self.funcs.get(&info.name).ok_or_else(|| {
            let mut names: Vec<&str> = self.funcs.keys().map(String::as_str).collect();
            names.sort_unstable();
            err(
                "Function",
                format!(
                    "no function {} (kernel {k} of {trace}); the listing has: {}",
                    crate::error::shown(&info.name),
                    names.join(", ")
                ),
            )
        })?;
        if !f.has_ctrl {
            return Err(err(
                "Function",
                format!(
                    "{}: no control bits (no Volta+ encodings: expected cuobjdump -sass of code for sm_70 or later)",
                    f.name
                ),
            ));
        }
        let (tv, lv) = (info.binary_version, f.binary_version);
        if tv != 0 && lv != 0 && tv != lv {
            return Err(err(
                "code for",
                format!(
                    "kernel {} of {trace} is code for sm_{tv}, the listing's function is code for sm_{lv} (dump the same target: cuobjdump -sass -arch sm_{tv})",
                    crate::error::shown(&info.name)
                ),
            ));
        }
        Ok(Arc::clone(f))
    }
}

/// A trace whose kernels get their control bits from a listing ([`SassCtrl`]).
pub struct Annotated {
    inner: Box<dyn TraceSource + Send>,
    infos: Vec<KernelInfo>,
    funcs: Vec<Arc<FuncCtrl>>,
    file: Arc<str>,
}

impl Annotated {
    /// Joins every kernel of `inner` to its function of `sass`; a kernel the listing lacks (or
    /// has without control bits, or for another target) is an error here, a PC or opcode that
    /// does not join one when its CTA is decoded.
    pub fn new(inner: Box<dyn TraceSource + Send>, sass: &SassCtrl) -> Result<Annotated> {
        let mut infos = Vec::with_capacity(inner.kernel_count());
        let mut funcs = Vec::with_capacity(inner.kernel_count());
        for k in 0..inner.kernel_count() {
            let mut info = inner.kernel_info(k).clone();
            funcs.push(sass.function(&info, k, inner.name())?);
            info.ctrl_source = CtrlSource::Sass;
            infos.push(info);
        }
        Ok(Annotated {
            inner,
            infos,
            funcs,
            file: Arc::clone(&sass.file),
        })
    }

    /// What a stream of kernel `k` needs besides the inner stream.
    fn parts(&self, k: usize) -> Result<Parts> {
        match (self.infos.get(k), self.funcs.get(k)) {
            (Some(info), Some(func)) => Ok(Parts {
                info: info.clone(),
                func: Arc::clone(func),
                file: Arc::clone(&self.file),
            }),
            _ => Err(Error::other(format!(
                "{}: no kernel {k} (it has {})",
                self.inner.name(),
                self.infos.len()
            ))),
        }
    }
}

struct Parts {
    info: KernelInfo,
    func: Arc<FuncCtrl>,
    file: Arc<str>,
}

impl Parts {
    fn wrap<'a>(
        self,
        inner: Box<dyn KernelStream + Send + 'a>,
    ) -> Box<dyn KernelStream + Send + 'a> {
        Box::new(AnnotatedStream {
            inner,
            info: self.info,
            func: self.func,
            file: self.file,
            bases: Vec::new(),
        })
    }
}

impl TraceSource for Annotated {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn commands(&self) -> &[Command] {
        self.inner.commands()
    }
    fn kernel_count(&self) -> usize {
        self.infos.len()
    }
    fn kernel_info(&self, k: usize) -> &KernelInfo {
        &self.infos[k]
    }
    fn open_kernel(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send + '_>> {
        let p = self.parts(k)?;
        Ok(p.wrap(self.inner.open_kernel(k)?))
    }
    fn open_kernel_owned(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send>> {
        let p = self.parts(k)?;
        Ok(p.wrap(self.inner.open_kernel_owned(k)?))
    }
    /// The inner trace's: control bits are not part of a trace's identity (FORMAT.md).
    fn trace_hash(&self) -> String {
        self.inner.trace_hash()
    }
    fn warp_insts_total(&self) -> Option<u64> {
        self.inner.warp_insts_total()
    }
}

/// One kernel's stream with its instructions' control bits set. CTAs are annotated as they
/// come out of `next_cta`; `next_packed` packs those (the default), so the inner stream is
/// never asked to pack (`will_pack` is not passed on) but still decodes ahead.
struct AnnotatedStream<'a> {
    inner: Box<dyn KernelStream + Send + 'a>,
    info: KernelInfo,
    func: Arc<FuncCtrl>,
    file: Arc<str>,
    /// Base name of each opcode id of the inner stream's table, as far as it has grown.
    bases: Vec<Box<str>>,
}

impl AnnotatedStream<'_> {
    fn annotate(&mut self, cta: &mut CtaTrace) -> Result<()> {
        let ops: &OpTable = self.inner.ops();
        while self.bases.len() < ops.len() {
            let op = super::model::OpId(self.bases.len() as u16);
            self.bases.push(base_name(&ops.get(op).name).into());
        }
        let f = &*self.func;
        for w in &mut cta.warps {
            for i in &mut w.insts {
                let err = |line: u64, msg: String| {
                    Error::parse(
                        &*self.file,
                        line,
                        format!(
                            "kernel {} pc 0x{:x}",
                            crate::error::shown(&self.info.name),
                            i.pc
                        ),
                        msg,
                    )
                };
                let Some(s) = f.at.get(&i.pc) else {
                    return Err(err(
                        0,
                        format!(
                            "not an instruction of function {} in the listing (its pcs run 0x{:x}..=0x{:x})",
                            f.name, f.span.0, f.span.1
                        ),
                    ));
                };
                let base = self.bases.get(i.op.0 as usize).map_or("?", |b| &**b);
                if base != &*s.base {
                    let name = &ops.get(i.op).name;
                    return Err(err(
                        s.line,
                        format!(
                            "the trace has {name}, the listing {} (base names {base} and {} differ: a listing of another build?)",
                            s.op, s.base
                        ),
                    ));
                }
                let mut reuse = 0u8;
                for r in s.reuse.iter().flatten() {
                    match i.srcs().iter().position(|x| x == r) {
                        Some(p) if p < REUSE_SLOTS => reuse |= 1 << p,
                        _ => {}
                    }
                }
                i.ctrl = s.ctrl.with_reuse(reuse);
            }
        }
        Ok(())
    }
}

impl KernelStream for AnnotatedStream<'_> {
    fn info(&self) -> &KernelInfo {
        &self.info
    }
    fn ops(&self) -> &OpTable {
        self.inner.ops()
    }
    fn next_cta(&mut self) -> Result<Option<CtaTrace>> {
        let Some(mut c) = self.inner.next_cta()? else {
            return Ok(None);
        };
        self.annotate(&mut c)?;
        Ok(Some(c))
    }
    fn recycle(&mut self, cta: PackedCta) {
        self.inner.recycle(cta)
    }
    fn prefetch(&mut self) {
        self.inner.prefetch()
    }
    fn prefetch_pair(&mut self) -> Option<[PrefetchHalf<'_>; 2]> {
        self.inner.prefetch_pair()
    }
    fn has_decoded(&self) -> bool {
        self.inner.has_decoded()
    }
    fn keep_only(&mut self, keep: &[bool]) -> bool {
        self.inner.keep_only(keep)
    }
}

#[cfg(test)]
mod tests;
