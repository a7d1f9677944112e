//! Loads, stores, constant loads and atomics: per-lane addresses in lane order, each access
//! checked (inside a buffer, the shared window or the thread's stack, and aligned) and
//! recorded for the timing engine.

use super::cta::{op, Cta};
use super::decode::{AtomOp, AtomTy, MemSpace, Opc};
use super::memory::{resolve_generic, LOCAL_TOP};
use super::operand::Kind;
use super::ops::{atom_int, atom_wide};
use super::program::Inst;
use super::warp::{Ctx, Warp};

type R<T> = std::result::Result<T, String>;

/// Deepest local stack a thread may use (bytes below [`LOCAL_TOP`]).
const MAX_LOCAL: u64 = 1 << 20;

impl Cta<'_, '_> {
    /// Per-lane addresses of the memory operand at `at`.
    fn addrs(&self, w: &Warp, inst: &Inst, at: usize, wide_addr: bool, m: u32) -> R<[u64; 32]> {
        let Kind::Mem { reg, ureg, off } = &op(inst, at)?.kind else {
            return Err(format!("operand {} is not a memory address [..]", at + 1));
        };
        let mut a = [*off as u64; 32];
        if let Some(r) = reg {
            for (l, x) in a.iter_mut().enumerate() {
                if m >> l & 1 == 0 {
                    continue;
                }
                // `[R6.U32+UR4]`: a zero-extended 32-bit offset from a 64-bit uniform base.
                let v = if (r.wide || wide_addr) && !r.u32 {
                    w.pair(r.n, l)
                } else {
                    w.regs[w.row(r.n)][l] as u64
                };
                *x = x.wrapping_add(v.wrapping_mul(r.scale as u64));
            }
        }
        if let Some(u) = ureg {
            // Beside a 64-bit register (or in a 64-bit address), the uniform register is a
            // 64-bit base too: `[R6.64+UR4]` adds the pointer UR4:UR5.
            let wide = u.wide || wide_addr || reg.is_some_and(|r| r.wide || r.u32);
            let v = if wide {
                w.upair(u.n)
            } else if u.n >= 63 {
                0
            } else {
                w.ur[u.n as usize] as u64
            };
            for x in a.iter_mut() {
                *x = x.wrapping_add(v.wrapping_mul(u.scale as u64));
            }
        }
        Ok(a)
    }

    /// Reads `out.len()` bytes of lane `lane` at `addr` in `space`.
    fn read(&mut self, w: &Warp, space: MemSpace, addr: u64, lane: usize, out: &mut [u8]) -> R<()> {
        match space {
            MemSpace::Generic => {
                let (space, addr) = resolve_generic(addr);
                self.read(w, space, addr, lane, out)?
            }
            MemSpace::Global => match self.dev.slice(addr, out.len()) {
                Some(s) => out.copy_from_slice(s),
                None => return Err(self.global_err(addr, out.len())),
            },
            MemSpace::Shared => out.copy_from_slice(self.shared_at(addr, out.len())?),
            MemSpace::Local => {
                for (k, b) in out.iter_mut().enumerate() {
                    *b = local_byte(w, addr + k as u64, lane)?;
                }
            }
        }
        Ok(())
    }

    fn write(
        &mut self,
        w: &mut Warp,
        space: MemSpace,
        addr: u64,
        lane: usize,
        data: &[u8],
    ) -> R<()> {
        match space {
            MemSpace::Generic => {
                let (space, addr) = resolve_generic(addr);
                self.write(w, space, addr, lane, data)?
            }
            MemSpace::Global => match self.dev.slice(addr, data.len()) {
                Some(s) => s.copy_from_slice(data),
                None => return Err(self.global_err(addr, data.len())),
            },
            MemSpace::Shared => self.shared_at(addr, data.len())?.copy_from_slice(data),
            MemSpace::Local => {
                for (k, &b) in data.iter().enumerate() {
                    set_local_byte(w, addr + k as u64, lane, b)?;
                }
            }
        }
        Ok(())
    }

    fn global_err(&self, addr: u64, n: usize) -> String {
        format!(
            "a {n}-byte global access at 0x{addr:x} is outside every buffer ({})",
            self.dev.describe(addr)
        )
    }

    /// LD*/ST*/LDC/ATOM*/RED* for lanes `m`.
    pub fn memory(&mut self, w: &mut Warp, inst: &Inst, m: u32, at: usize) -> R<()> {
        match inst.opc {
            Opc::Ldc { bytes } => {
                let words = (bytes as usize).div_ceil(4);
                for k in 0..words {
                    let mut v = [0u32; 32];
                    let o = op(inst, 1)?;
                    let Kind::Const { bank, reg, off } = &o.kind else {
                        return Err("LDC: expected c[bank][offset]".into());
                    };
                    for l in (0..32).filter(|l| m >> l & 1 != 0) {
                        let base = match reg {
                            None => 0,
                            Some(r) if r.uniform => {
                                if r.n >= 63 {
                                    0
                                } else {
                                    w.ur[r.n as usize] as i64
                                }
                            }
                            Some(r) => w.regs[w.row(r.n)][l] as i64,
                        };
                        v[l] = self.cword(*bank, base + off + 4 * k as i64)?;
                    }
                    write_word(w, inst, k, m, &v)?;
                }
            }
            Opc::Ld {
                space,
                bytes,
                signed,
                wide_addr,
            } => {
                let addrs = self.addrs(w, inst, 1, wide_addr, m)?;
                let n = bytes as usize;
                let words = n.div_ceil(4);
                let mut vals = [[0u32; 32]; 4];
                for l in (0..32).filter(|l| m >> l & 1 != 0) {
                    let a = addrs[l];
                    check_align(a, n)?;
                    let mut buf = [0u8; 16];
                    self.read(w, space, a, l, &mut buf[..n])?;
                    self.record_addr(w, at, space, a, l, bytes);
                    for (k, v) in vals.iter_mut().enumerate().take(words) {
                        v[l] = u32::from_le_bytes([
                            buf[4 * k],
                            buf[4 * k + 1],
                            buf[4 * k + 2],
                            buf[4 * k + 3],
                        ]);
                    }
                    if signed {
                        vals[0][l] = match n {
                            1 => buf[0] as i8 as i32 as u32,
                            2 => i16::from_le_bytes([buf[0], buf[1]]) as i32 as u32,
                            _ => vals[0][l],
                        };
                    }
                }
                for (k, v) in vals.iter().enumerate().take(words) {
                    write_word(w, inst, k, m, v)?;
                }
            }
            Opc::St {
                space,
                bytes,
                wide_addr,
            } => {
                let addrs = self.addrs(w, inst, 0, wide_addr, m)?;
                let n = bytes as usize;
                let src = op(inst, 1)?;
                let words = n.div_ceil(4);
                let mut vals = [[0u32; 32]; 4];
                for (k, v) in vals.iter_mut().enumerate().take(words) {
                    *v = self.word_src(w, inst, 1, k)?;
                }
                let _ = src;
                for l in (0..32).filter(|l| m >> l & 1 != 0) {
                    let a = addrs[l];
                    check_align(a, n)?;
                    let mut buf = [0u8; 16];
                    for k in 0..words {
                        buf[4 * k..4 * k + 4].copy_from_slice(&vals[k][l].to_le_bytes());
                    }
                    self.write(w, space, a, l, &buf[..n])?;
                    self.record_addr(w, at, space, a, l, bytes);
                }
            }
            Opc::Atom {
                space,
                op: aop,
                ty,
                ret,
                wide_addr,
            } => {
                let ai = inst
                    .ops
                    .iter()
                    .position(|o| matches!(o.kind, Kind::Mem { .. }))
                    .ok_or("an atomic without a memory address")?;
                let addrs = self.addrs(w, inst, ai, wide_addr, m)?;
                let wide = atom_wide(ty);
                let n = if wide { 8 } else { 4 };
                let src = self.src64_or32(w, inst, ai + 1, wide)?;
                let src2 = if aop == AtomOp::Cas {
                    self.src64_or32(w, inst, ai + 2, wide)?
                } else {
                    [0; 32]
                };
                let mut old = [0u64; 32];
                for l in (0..32).filter(|l| m >> l & 1 != 0) {
                    let a = addrs[l];
                    check_align(a, n)?;
                    let mut buf = [0u8; 8];
                    self.read(w, space, a, l, &mut buf[..n])?;
                    let o = u64::from_le_bytes(buf);
                    let new = atomic(aop, ty, o, src[l], src2[l])?;
                    self.write(w, space, a, l, &new.to_le_bytes()[..n])?;
                    self.record_addr(w, at, space, a, l, n as u8);
                    old[l] = o;
                }
                if ret && ai >= 1 {
                    let d = &inst.ops[ai - 1];
                    if wide {
                        w.write64(d, m, &old);
                    } else {
                        let mut v = [0u32; 32];
                        for l in 0..32 {
                            v[l] = old[l] as u32;
                        }
                        w.write(d, m, &v);
                    }
                }
            }
            _ => return Err("not a memory instruction".into()),
        }
        Ok(())
    }

    /// Word `k` of a multi-register source starting at operand `i` (`R4` -> R4, R5, ..).
    fn word_src(&self, w: &Warp, inst: &Inst, i: usize, k: usize) -> R<[u32; 32]> {
        let o = op(inst, i)?;
        match o.kind {
            Kind::Reg(n) if k > 0 => Ok(if n == 255 {
                [0; 32]
            } else {
                w.regs[w.row(n + k as u8)]
            }),
            Kind::UReg(n) if k > 0 => Ok([if n >= 63 {
                0
            } else {
                w.ur[(n as usize + k).min(63)]
            }; 32]),
            _ if k > 0 => Err("a wide store of a non-register".into()),
            _ => self.src(w, o, Ctx::Int),
        }
    }

    fn src64_or32(&self, w: &Warp, inst: &Inst, i: usize, wide: bool) -> R<[u64; 32]> {
        if wide {
            self.src64(w, op(inst, i)?, false)
        } else {
            let v = self.src(w, op(inst, i)?, Ctx::Int)?;
            let mut o = [0u64; 32];
            for l in 0..32 {
                o[l] = v[l] as u64;
            }
            Ok(o)
        }
    }
}

/// Writes word `k` of a load's destination (register `d + k`, or uniform `d + k`).
fn write_word(w: &mut Warp, inst: &Inst, k: usize, m: u32, v: &[u32; 32]) -> R<()> {
    match op(inst, 0)?.kind {
        Kind::Reg(255) => {}
        Kind::Reg(n) => w.write_row(n.saturating_add(k as u8), m, v),
        Kind::UReg(n) if n < 63 => {
            if m != 0 {
                w.ur[(n as usize + k).min(62)] = v[m.trailing_zeros() as usize];
            }
        }
        Kind::UReg(_) => {}
        _ => return Err("a load's destination must be a register".into()),
    }
    Ok(())
}

fn check_align(a: u64, n: usize) -> R<()> {
    if !a.is_multiple_of(n as u64) {
        return Err(format!("misaligned {n}-byte access at 0x{a:x}"));
    }
    Ok(())
}

/// Row and byte of lane-private local address `a` (below [`LOCAL_TOP`]).
fn local_slot(a: u64) -> R<(usize, usize)> {
    let top = LOCAL_TOP as u64;
    if a >= top || a < top - MAX_LOCAL {
        return Err(format!(
            "local address 0x{a:x} is outside the thread's stack (0x{:x}..0x{top:x})",
            top - MAX_LOCAL
        ));
    }
    let word = a & !3;
    Ok((((top - word) / 4 - 1) as usize, (a & 3) as usize))
}

fn local_byte(w: &Warp, a: u64, lane: usize) -> R<u8> {
    let (row, b) = local_slot(a)?;
    Ok(w.local.get(row).map_or(0, |r| r[lane].to_le_bytes()[b]))
}

fn set_local_byte(w: &mut Warp, a: u64, lane: usize, v: u8) -> R<()> {
    let (row, b) = local_slot(a)?;
    if w.local.len() <= row {
        w.local.resize(row + 1, [0; 32]);
    }
    let mut bytes = w.local[row][lane].to_le_bytes();
    bytes[b] = v;
    w.local[row][lane] = u32::from_le_bytes(bytes);
    Ok(())
}

/// The new value of an atomic on `old` (64-bit lanes; 32-bit types use the low word).
fn atomic(op: AtomOp, ty: AtomTy, old: u64, s: u64, s2: u64) -> R<u64> {
    let wide = atom_wide(ty);
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    let (o, s, s2) = (old & mask, s & mask, s2 & mask);
    let signed = atom_int(ty).signed();
    let sx = |v: u64| {
        if wide {
            v as i64
        } else {
            v as u32 as i32 as i64
        }
    };
    let r = match (op, ty) {
        (AtomOp::Add, AtomTy::F32) => {
            (f32::from_bits(o as u32) + f32::from_bits(s as u32)).to_bits() as u64
        }
        (AtomOp::Add, AtomTy::F64) => (f64::from_bits(o) + f64::from_bits(s)).to_bits(),
        (_, AtomTy::F32 | AtomTy::F64) if op != AtomOp::Exch && op != AtomOp::Cas => {
            return Err(format!("atomic {op:?} on {ty:?} is not supported"));
        }
        (AtomOp::Add, _) => o.wrapping_add(s),
        (AtomOp::Min, _) => {
            if signed {
                sx(o).min(sx(s)) as u64
            } else {
                o.min(s)
            }
        }
        (AtomOp::Max, _) => {
            if signed {
                sx(o).max(sx(s)) as u64
            } else {
                o.max(s)
            }
        }
        (AtomOp::Inc, _) => {
            if o >= s {
                0
            } else {
                o + 1
            }
        }
        (AtomOp::Dec, _) => {
            if o == 0 || o > s {
                s
            } else {
                o - 1
            }
        }
        (AtomOp::And, _) => o & s,
        (AtomOp::Or, _) => o | s,
        (AtomOp::Xor, _) => o ^ s,
        (AtomOp::Exch, _) => s,
        (AtomOp::Cas, _) => {
            if o == s {
                s2
            } else {
                o
            }
        }
    };
    Ok(r & mask)
}
