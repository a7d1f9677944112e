//! A kernel's SASS as the executor runs it: each instruction of a [`SassFunction`] (the
//! `cuobjdump -sass` parser of `trace::sanitizer::sass`) decoded once into an [`Opc`] with its
//! modifiers, parsed operands ([`super::operand`]), guard predicate, resolved branch target
//! and the [`TraceInst`] template it is recorded as.
//!
//! An opcode or modifier the executor does not implement decodes to [`Opc::Unsupported`]: the
//! kernel still loads (a listing holds code that never runs, such as division slow paths), and
//! executing it is an error naming the opcode, the kernel and the PC.

use std::collections::HashMap;

use super::decode::decode_op;
use super::operand::{self, Kind, Operand};
use crate::trace::model::{CtrlSource, OpTable, TraceInst, MAX_DST, MAX_SRC};
use crate::trace::opcodes::{classify, Arch};
use crate::trace::sanitizer::sass::{SassFunction, SassInst};
use crate::{Error, Result};

pub use super::decode::{AtomOp, Cmp, Conv, FloatTy, IntTy, MemSpace, MufuFn, Opc, Round, Shfl};

/// The guard predicate of an instruction: `@P0`, `@!P1`, `@UP0` (PT when none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Guard {
    /// 0-6, 7 = PT.
    pub pred: u8,
    pub uniform: bool,
    pub not: bool,
}

impl Guard {
    pub const ALWAYS: Guard = Guard {
        pred: 7,
        uniform: false,
        not: false,
    };
}

/// One decoded instruction.
#[derive(Clone, Debug)]
pub struct Inst {
    pub pc: u32,
    pub opc: Opc,
    pub guard: Guard,
    pub ops: Vec<Operand>,
    /// Index of the branch / call / BSSY target in the kernel's instruction list.
    pub target: u32,
    /// The opcode text (`ISETP.GE.U32.AND`), for errors.
    pub name: String,
    /// 1-based line in the listing.
    pub line: u64,
    /// Runs on the uniform datapath (U* opcodes, S2UR, R2UR): writes uniform registers.
    pub uniform: bool,
    /// The instruction as recorded: pc, opcode id, registers and control bits filled; the
    /// executor sets the mask and the addresses.
    pub tmpl: TraceInst,
}

/// One kernel ready to execute.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    /// `code for sm_XX` of the listing (0 when absent).
    pub binary_version: u32,
    pub insts: Vec<Inst>,
    /// pc -> index in `insts`.
    pub index: HashMap<u32, u32>,
    /// Opcodes as the timing engine classifies them.
    pub ops: OpTable,
    /// Registers per thread (highest register named + 2, rounded up to 8), for occupancy.
    pub nregs: u32,
    /// Register rows the executor keeps per warp (every register named, with room for the
    /// widest access).
    pub rows: usize,
    /// Bytes the kernel's entry moves the stack pointer R1 down (its local frame), 0 when it
    /// keeps no local memory.
    pub frame: u32,
    pub ctrl_source: CtrlSource,
    /// The listing's name, for errors.
    pub file: String,
}

impl Kernel {
    /// Decodes `f` (from `file`, the listing's name in errors). `default_arch` picks the
    /// opcode table when the listing says no `code for sm_XX`.
    pub fn decode(f: &SassFunction, file: &str, default_arch: Arch) -> Result<Kernel> {
        let arch = Arch::resolve(f.binary_version, default_arch);
        let mut ops = OpTable::new();
        let mut insts = Vec::with_capacity(f.insts.len());
        let mut max_reg = 0u32;
        for s in &f.insts {
            let inst = decode_inst(s, f, &mut ops, arch).map_err(|m| {
                Error::parse(file, s.line, format!("{} at 0x{:x}", f.name, s.pc), m)
            })?;
            for o in &inst.ops {
                let top = match &o.kind {
                    Kind::Reg(n) if *n != 255 => *n as u32,
                    Kind::Mem { reg: Some(r), .. } | Kind::Const { reg: Some(r), .. }
                        if !r.uniform && r.n != 255 =>
                    {
                        r.n as u32
                    }
                    _ => 0,
                };
                max_reg = max_reg.max(top);
            }
            insts.push(inst);
        }
        let index = f.index.iter().map(|(&pc, &i)| (pc, i as u32)).collect();
        Ok(Kernel {
            name: f.name.clone(),
            binary_version: f.binary_version,
            frame: frame_of(&insts),
            insts,
            index,
            ops,
            nregs: crate::trace::sanitizer::import::nregs(f),
            // A 128-bit access at the highest register named reads three more.
            rows: (max_reg as usize + 4).min(255),
            ctrl_source: if f.has_ctrl() {
                CtrlSource::Sass
            } else {
                CtrlSource::None
            },
            file: file.to_string(),
        })
    }

    /// The error for executing instruction `i`: names the listing, line, kernel, PC and
    /// opcode.
    pub fn error(&self, i: usize, msg: impl std::fmt::Display) -> Error {
        let inst = &self.insts[i];
        Error::parse(
            &self.file,
            inst.line,
            format!("kernel {} at pc 0x{:x} ({})", self.name, inst.pc, inst.name),
            msg.to_string(),
        )
    }
}

/// The entry's `IADD3 R1, R1, -X` / `VIADD R1, R1, -X` (the stack frame), if any.
fn frame_of(insts: &[Inst]) -> u32 {
    for i in insts.iter().take(16) {
        let is_add = matches!(i.opc, Opc::Iadd3 { .. } | Opc::Viadd);
        if !is_add || i.ops.len() < 3 {
            continue;
        }
        let r1 = |o: &Operand| o.kind == Kind::Reg(1) && !o.neg;
        if r1(&i.ops[0]) && r1(&i.ops[1]) {
            if let Kind::Lit(l) = i.ops[2].kind {
                let v = l.int as i32;
                let v = if i.ops[2].neg { -v } else { v };
                if v < 0 {
                    return v.unsigned_abs().div_ceil(16) * 16;
                }
            }
        }
    }
    0
}

fn decode_inst(
    s: &SassInst,
    f: &SassFunction,
    ops: &mut OpTable,
    arch: Arch,
) -> std::result::Result<Inst, String> {
    let mut operands = Vec::with_capacity(s.operands.len());
    let mut bad_operand = None;
    for t in &s.operands {
        // `RET.REL.NODEC R18 0x0`: a register and an offset in one comma-separated field.
        for part in t.split_whitespace() {
            match operand::parse(part) {
                Ok(o) => operands.push(o),
                Err(m) => {
                    bad_operand.get_or_insert(m);
                }
            }
        }
    }
    let guard = guard(&s.guard)?;
    let (mut opc, uniform) = decode_op(&s.op);
    if let Some(m) = bad_operand {
        if !matches!(opc, Opc::Unsupported(_)) {
            opc = Opc::Unsupported(m);
        }
    }
    if s.never {
        opc = Opc::Never;
    }
    let mut target = u32::MAX;
    if matches!(opc, Opc::Bra | Opc::BraWarp { .. } | Opc::Call | Opc::Bssy) {
        let pc = operands.iter().rev().find_map(|o| match o.kind {
            Kind::Lit(l) if l.integral => Some(l.int as u32),
            _ => None,
        });
        match pc.and_then(|pc| f.index.get(&pc)) {
            Some(&i) => target = i as u32,
            None => {
                opc = Opc::Unsupported(format!(
                    "the target {} is not an instruction of the kernel",
                    pc.map_or("(none)".to_string(), |p| format!("0x{p:x}"))
                ))
            }
        }
    }
    let mut tmpl = TraceInst {
        pc: s.pc,
        op: ops.intern_with(&s.op, |n| classify(arch, n)),
        ndst: s.dst.len().min(MAX_DST) as u8,
        nsrc: s.src.len().min(MAX_SRC) as u8,
        ctrl: s.ctrl,
        ..Default::default()
    };
    for (k, &r) in s.dst.iter().take(MAX_DST).enumerate() {
        tmpl.dst[k] = r;
    }
    for (k, &r) in s.src.iter().take(MAX_SRC).enumerate() {
        tmpl.src[k] = r;
    }
    Ok(Inst {
        pc: s.pc,
        opc,
        guard,
        ops: operands,
        target,
        name: s.op.clone(),
        line: s.line,
        uniform,
        tmpl,
    })
}

fn guard(text: &str) -> std::result::Result<Guard, String> {
    if text.is_empty() {
        return Ok(Guard::ALWAYS);
    }
    let o = operand::parse(text).map_err(|m| format!("guard {m}"))?;
    match o.kind {
        Kind::Pred(p) => Ok(Guard {
            pred: p,
            uniform: false,
            not: o.not,
        }),
        Kind::UPred(p) => Ok(Guard {
            pred: p,
            uniform: true,
            not: o.not,
        }),
        _ => Err(format!("guard \"{text}\": expected a predicate")),
    }
}
