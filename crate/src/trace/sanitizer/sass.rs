//! `cuobjdump -sass` text: functions, their instructions, registers and branch targets.
//!
//! ```text
//!         code for sm_80                                    -> binary version 80
//!                 Function : matmul_naive                   -> a new function
//!         /*0110*/              @!P0 BRA 0x320 ;  /* 0x...*/ -> pc 0x110, guard !P0, BRA, target
//!         /*01a0*/                   LDG.E R14, [R4.64] ;    -> dst R14, src R4
//! ```
//! Destinations: the first operand when it is a register and the opcode writes one (not
//! stores, reductions, branches, barriers). Sources: every other register (R, UR; RZ, URZ and
//! predicates skipped), the base of `[R4.64]` included.
//!
//! Control bits (Volta and later, [`Ctrl`]): each instruction's 128-bit encoding is printed as
//! two comments, the low word on the instruction's line and the high word alone on the next;
//! the high word's stall, yield and dependence-counter fields plus the `.reuse` suffixes of the
//! register sources (bit i = `SassInst::src[i]`, positions past [`REUSE_SLOTS`] dropped) make
//! the instruction's [`Ctrl`]:
//!
//! ```text
//!  /*0010*/  LDC R0, c[0x0][0x220] ;        /* 0x00008800ff007b82 */   low word
//!                                           /* 0x000e220000000800 */   high word: S1 wb0 rd-
//!  /*0060*/  FADD R4, R2.reuse, 1 ;  ...                               reuse bit 0 (R2 = src[0])
//! ```
//! A function gets control bits for all its instructions or for none: listings without
//! encodings, and pre-Volta ones (`code for sm_5x/6x`: one 64-bit word per instruction and a
//! scheduling word per three), give [`Ctrl::NONE`]; a Volta+ function where some instruction
//! lacks its high word is an error.

use std::collections::HashMap;

use crate::trace::control::{Ctrl, REUSE_SLOTS};
use crate::trace::model::{Reg, MAX_DST, MAX_SRC, REG_RZ, REG_URZ, UR_BASE};
use crate::{Error, Result};

/// One SASS instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SassInst {
    pub pc: u32,
    /// True when the instruction has a guard predicate other than `PT`.
    pub predicated: bool,
    /// `@!PT`: never executes.
    pub never: bool,
    /// Opcode with modifiers, as Accel-Sim traces spell it (`LDG.E.SYS`, `IMAD.WIDE`).
    pub op: String,
    pub dst: Vec<Reg>,
    pub src: Vec<Reg>,
    /// `BRA` target (absolute pc in the function).
    pub target: Option<u32>,
    /// 1-based line in the SASS file.
    pub line: u64,
    /// Compiler control bits ([`Ctrl::NONE`] when the listing has no Volta+ encodings).
    pub ctrl: Ctrl,
    /// The guard predicate as written (`P0`, `!P1`, `UP0`), empty when there is none or it is
    /// `PT` (`@!PT` sets [`SassInst::never`]).
    pub guard: String,
    /// The operands as written, comma-separated in the listing (`R4.reuse`, `c[0x0][0x210]`,
    /// `desc[UR4][R2.64+0x4]`), for the functional executor (`crate::exec`).
    pub operands: Vec<String>,
}

impl SassInst {
    fn base(&self) -> &str {
        crate::trace::opcodes::base_name(&self.op)
    }
    pub fn is_exit(&self) -> bool {
        self.base() == "EXIT"
    }
    pub fn is_branch(&self) -> bool {
        matches!(self.base(), "BRA" | "JMP")
    }
    /// Indirect or call-like control flow the importer cannot follow.
    pub fn is_unsupported_flow(&self) -> bool {
        matches!(
            self.base(),
            "BRX" | "JMX" | "CALL" | "RET" | "JMXU" | "BRXU" | "KILL"
        )
    }
    /// Instructions the tracer records (memory accesses and barriers): a path between two
    /// recorded points may not pass an unpredicated one.
    pub fn is_recorded(&self) -> bool {
        matches!(
            self.base(),
            "LDG"
                | "STG"
                | "LDS"
                | "STS"
                | "LDL"
                | "STL"
                | "LD"
                | "ST"
                | "ATOM"
                | "ATOMG"
                | "ATOMS"
                | "RED"
                | "REDG"
                | "LDGSTS"
                | "BAR"
        )
    }
}

/// One function of the dump.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SassFunction {
    pub name: String,
    /// From the enclosing `code for sm_XX` (0 when absent).
    pub binary_version: u32,
    pub insts: Vec<SassInst>,
    /// pc -> index in `insts`.
    pub index: HashMap<u32, usize>,
}

impl SassFunction {
    /// Whether the listing gave this function's instructions control bits (all or none do).
    pub fn has_ctrl(&self) -> bool {
        self.insts.first().is_some_and(|i| i.ctrl.present())
    }
}

/// Every function of a `cuobjdump -sass` dump, by name (a later target of the same name
/// replaces an earlier one; dump one target per file).
pub fn parse(text: &str, file: &str) -> Result<HashMap<String, SassFunction>> {
    let mut out: HashMap<String, SassFunction> = HashMap::new();
    let mut cur: Option<SassFunction> = None;
    let mut bv = 0u32;
    // The instruction whose high encoding word may come on the next line: (its line, the
    // reuse flags of its sources).
    let mut awaiting: Option<(u64, u8)> = None;
    for (i, line) in text.lines().enumerate() {
        let ln = i as u64 + 1;
        let t = line.trim();
        let expects_hi = awaiting.take().filter(|&(at, _)| at + 1 == ln);
        if let Some(rest) = t.strip_prefix("code for sm_") {
            bv = rest.trim().parse().map_err(|_| {
                Error::parse(
                    file,
                    ln,
                    "code for",
                    format!("\"{t}\": expected sm_<number>"),
                )
            })?;
            continue;
        }
        if let Some(rest) = t.strip_prefix("Function : ") {
            if let Some(f) = cur.take() {
                let f = finish(f, file)?;
                out.insert(f.name.clone(), f);
            }
            cur = Some(SassFunction {
                name: rest.trim().to_string(),
                binary_version: bv,
                ..Default::default()
            });
            continue;
        }
        let Some(body) = t.strip_prefix("/*") else {
            continue;
        };
        let Some((pc_text, rest)) = body.split_once("*/") else {
            continue;
        };
        let Ok(pc) = u32::from_str_radix(pc_text, 16) else {
            // An encoding comment (/* 0x000fe4... */): the high word of the instruction on
            // the line before, on Volta and later.
            if let (Some((_, reuse)), Some(w)) = (expects_hi, encoding_word(pc_text, rest)) {
                if let Some(last) = cur.as_mut().and_then(|f| f.insts.last_mut()) {
                    last.ctrl = Ctrl::from_sass_hi(w, reuse);
                }
            }
            continue;
        };
        let f = cur.as_mut().ok_or_else(|| {
            Error::parse(
                file,
                ln,
                "instruction",
                "an instruction before any \"Function :\" line",
            )
        })?;
        let (inst, reuse) =
            parse_inst(pc, rest, ln).map_err(|m| Error::parse(file, ln, "instruction", m))?;
        if let Some(last) = f.insts.last() {
            if inst.pc <= last.pc {
                return Err(Error::parse(
                    file,
                    ln,
                    "pc",
                    format!(
                        "0x{:x} after 0x{:x}: expected increasing pcs",
                        inst.pc, last.pc
                    ),
                ));
            }
        }
        // Pre-Volta encodings are 64 bits with a scheduling word per three instructions, on
        // its own line before them: never an instruction's high word.
        if f.binary_version == 0 || f.binary_version >= 70 {
            awaiting = Some((ln, reuse));
        }
        f.index.insert(inst.pc, f.insts.len());
        f.insts.push(inst);
    }
    if let Some(f) = cur.take() {
        let f = finish(f, file)?;
        out.insert(f.name.clone(), f);
    }
    if out.is_empty() {
        return Err(Error::parse(
            file,
            0,
            "Function",
            "no \"Function : NAME\" section: expected the output of cuobjdump -sass",
        ));
    }
    Ok(out)
}

/// `0x<16 hex digits>` alone in a comment: one 64-bit word of an instruction's encoding.
fn encoding_word(inside: &str, after: &str) -> Option<u64> {
    let hex = inside.trim().strip_prefix("0x")?;
    if hex.len() != 16 || !after.trim().is_empty() {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// Control bits all or nothing: a Volta+ function (`code for sm_70` or later) with some
/// instructions lacking their high word is an error; one of unknown version (no `code for`
/// line) that has them only in part is taken for a pre-Volta listing and gets none.
fn finish(mut f: SassFunction, file: &str) -> Result<SassFunction> {
    let with = f.insts.iter().filter(|i| i.ctrl.present()).count();
    if with == 0 || with == f.insts.len() {
        return Ok(f);
    }
    if f.binary_version == 0 {
        for i in &mut f.insts {
            i.ctrl = Ctrl::NONE;
        }
        return Ok(f);
    }
    let missing = f.insts.iter().find(|i| !i.ctrl.present());
    let (line, pc) = missing.map_or((0, 0), |i| (i.line, i.pc));
    Err(Error::parse(
        file,
        line,
        "encoding",
        format!(
            "{}: the instruction at 0x{pc:x} has no second /* 0x... */ encoding word on the next line, while {with} of the function's {} instructions have one (a cut or edited cuobjdump -sass listing?)",
            f.name,
            f.insts.len()
        ),
    ))
}

/// One instruction line, and the reuse flags of its register sources (bit i = `src[i]`).
fn parse_inst(pc: u32, rest: &str, line: u64) -> std::result::Result<(SassInst, u8), String> {
    let stmt = rest.split(';').next().unwrap_or("").trim();
    if stmt.is_empty() {
        return Err(format!("pc 0x{pc:x}: no instruction text"));
    }
    let (mut predicated, mut never) = (false, false);
    let mut guard_text = String::new();
    let mut text = stmt;
    if let Some(p) = text.strip_prefix('@') {
        let (guard, tail) = p.split_once(char::is_whitespace).unwrap_or((p, ""));
        match guard {
            "PT" | "UPT" => {}
            "!PT" | "!UPT" => never = true,
            _ => {
                predicated = true;
                guard_text = guard.to_string();
            }
        }
        text = tail.trim();
    }
    let (op, args) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    if op.is_empty() || !op.starts_with(|c: char| c.is_ascii_uppercase()) {
        return Err(format!("pc 0x{pc:x}: \"{stmt}\": expected an opcode"));
    }
    let operands: Vec<&str> = args
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let base = op.split('.').next().unwrap_or(op);
    let writes_first = !matches!(
        base,
        "ST" | "STG"
            | "STS"
            | "STL"
            | "RED"
            | "REDG"
            | "BRA"
            | "EXIT"
            | "BAR"
            | "BSSY"
            | "BSYNC"
            | "WARPSYNC"
            | "NOP"
            | "MEMBAR"
            | "ERRBAR"
            | "DEPBAR"
            | "CCTL"
            | "YIELD"
            | "JMP"
    );
    let mut dst = Vec::new();
    let mut src: Vec<Reg> = Vec::new();
    let mut reuse = 0u8;
    for (k, o) in operands.iter().enumerate() {
        let regs = regs_in(o);
        if k == 0 && writes_first && !o.starts_with('[') {
            dst.extend(regs.into_iter().map(|(r, _)| r).take(MAX_DST));
        } else {
            for (r, reused) in regs {
                if src.len() < MAX_SRC && !src.contains(&r) {
                    src.push(r);
                }
                match src.iter().position(|&s| s == r) {
                    Some(at) if reused && at < REUSE_SLOTS => reuse |= 1 << at,
                    _ => {}
                }
            }
        }
    }
    let target = if matches!(base, "BRA" | "JMP") {
        let t = operands
            .iter()
            .find_map(|o| {
                o.strip_prefix("0x")
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
            })
            .ok_or_else(|| format!("pc 0x{pc:x}: \"{stmt}\": expected a branch target 0x..."))?;
        Some(t)
    } else {
        None
    };
    let inst = SassInst {
        pc,
        predicated,
        never,
        op: op.to_string(),
        dst,
        src,
        target,
        line,
        ctrl: Ctrl::NONE,
        guard: guard_text,
        operands: operands.iter().map(|o| o.to_string()).collect(),
    };
    Ok((inst, reuse))
}

/// Registers named in one operand (`R4`, `[R4.64+0x8]`, `UR4`, `-R3.reuse`), each with
/// whether a `.reuse` suffix follows it; RZ/URZ skipped.
fn regs_in(o: &str) -> Vec<(Reg, bool)> {
    let mut out = Vec::new();
    let b = o.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let prev_ok = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let (uniform, start) = if b[i] == b'U' && b.get(i + 1) == Some(&b'R') {
            (true, i + 2)
        } else if b[i] == b'R' {
            (false, i + 1)
        } else {
            i += 1;
            continue;
        };
        let mut j = start;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        let next_ok = j >= b.len() || !(b[j].is_ascii_alphanumeric() || b[j] == b'_');
        if prev_ok && next_ok && j > start {
            // R0..R255 and UR0..UR63 (URZ is UR63): a larger number names no register.
            if let Ok(n) = o[start..j].parse::<u16>().map(|n| n.min(256)) {
                if n > 255 || (uniform && n > 63) {
                    i = j;
                    continue;
                }
                let r = if uniform { UR_BASE + n } else { n };
                if r != REG_RZ && r != REG_URZ && (uniform || n < 255) {
                    out.push((r, o[j..].starts_with(".reuse")));
                }
            }
        }
        i = j.max(i + 1);
    }
    out
}

#[cfg(test)]
mod regs_tests {
    use super::*;

    /// A register number past the register file names no register (the fuzz target
    /// `sass_listing` found `UR65535` overflowing the uniform register index).
    #[test]
    fn register_numbers_past_the_file_name_no_register() {
        assert_eq!(regs_in("UR65535"), vec![]);
        assert_eq!(regs_in("R256, UR64"), vec![]);
        assert_eq!(regs_in("R255, R7.reuse"), vec![(7, true)]);
        assert_eq!(regs_in("UR62"), vec![(UR_BASE + 62, false)]);
    }
}
