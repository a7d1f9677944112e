//! Operand reads and the arithmetic, logic, conversion and warp-level instructions (the ones
//! of several steps in [`super::ops_steps`]).

use super::alu::{self, fcmp, ftz32, icmp, lop3, round_f32};
use super::cta::{op, Cta};
use super::decode::{AtomTy, Cmp, FloatTy, IntTy, Opc, Round, VOTE_ALL, VOTE_ANY};
use super::operand::{HalfSel, Kind, Lit, Operand};
use super::program::Inst;
use super::warp::{Ctx, Warp};

type R<T> = std::result::Result<T, String>;

#[inline]
pub(super) fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

fn lit32(l: &Lit, ctx: Ctx) -> u32 {
    match ctx {
        Ctx::F32 if !l.hex => (l.float as f32).to_bits(),
        Ctx::F16 if !l.hex => {
            let h = alu::f2h(l.float as f32) as u32;
            h | h << 16
        }
        _ if l.integral => l.int as u32,
        _ => (l.float as f32).to_bits(),
    }
}

impl Cta<'_, '_> {
    /// A 32-bit operand of every lane, modifiers applied as `ctx` says.
    pub fn src(&self, w: &Warp, o: &Operand, ctx: Ctx) -> R<[u32; 32]> {
        let mut v = match &o.kind {
            Kind::Reg(n) => w.regs[w.row(*n)],
            Kind::UReg(n) => [if *n >= 63 { 0 } else { w.ur[*n as usize] }; 32],
            Kind::Lit(l) => [lit32(l, ctx); 32],
            Kind::Const { bank, reg, off } => {
                let mut v = [0u32; 32];
                match reg {
                    None => v = [self.cword(*bank, *off)?; 32],
                    Some(r) if r.uniform => {
                        let base = if r.n >= 63 { 0 } else { w.ur[r.n as usize] } as i64;
                        v = [self.cword(*bank, base + off)?; 32];
                    }
                    Some(r) => {
                        let row = w.regs[w.row(r.n)];
                        for l in 0..32 {
                            v[l] = self.cword(*bank, row[l] as i64 + off).unwrap_or(0);
                        }
                    }
                }
                v
            }
            Kind::Pred(_) | Kind::UPred(_) => {
                let p = w.pred(o);
                let mut v = [0u32; 32];
                for (l, x) in v.iter_mut().enumerate() {
                    *x = (p >> l) & 1;
                }
                return Ok(v);
            }
            k => return Err(format!("operand {k:?} cannot be read as a value here")),
        };
        if o.half != HalfSel::H1H0 && ctx != Ctx::F16 {
            return Err("a half-selected register outside a packed-half instruction".into());
        }
        match ctx {
            Ctx::Raw | Ctx::F16 => {}
            Ctx::Int => {
                if o.abs {
                    v.iter_mut().for_each(|x| *x = (*x as i32).unsigned_abs());
                }
                if o.neg {
                    v.iter_mut().for_each(|x| *x = x.wrapping_neg());
                }
                if o.not {
                    v.iter_mut().for_each(|x| *x = !*x);
                }
            }
            Ctx::F32 => {
                if o.abs {
                    v.iter_mut().for_each(|x| *x &= 0x7fff_ffff);
                }
                if o.neg {
                    v.iter_mut().for_each(|x| *x ^= 0x8000_0000);
                }
            }
        }
        Ok(v)
    }

    /// A 64-bit operand (register pair, uniform pair, 8-byte constant, literal) of every
    /// lane; `float` reads literals as f64 and applies `-`/`|x|` to the sign.
    pub fn src64(&self, w: &Warp, o: &Operand, float: bool) -> R<[u64; 32]> {
        let mut v = [0u64; 32];
        match &o.kind {
            Kind::Reg(n) => {
                for (l, x) in v.iter_mut().enumerate() {
                    *x = w.pair(*n, l);
                }
            }
            Kind::UReg(n) => v = [w.upair(*n); 32],
            Kind::Lit(l) => {
                let b = if float && !l.hex {
                    l.float.to_bits()
                } else if float {
                    // A hex immediate of a double instruction is its high word.
                    (l.int as u64) << 32
                } else {
                    l.int as u64
                };
                v = [b; 32];
            }
            Kind::Const {
                bank,
                reg: None,
                off,
            } => {
                let lo = self.cword(*bank, *off)? as u64;
                let hi = self.cword(*bank, off + 4)? as u64;
                v = [lo | hi << 32; 32];
            }
            Kind::Const {
                bank,
                reg: Some(r),
                off,
            } if r.uniform => {
                let base = if r.n >= 63 { 0 } else { w.ur[r.n as usize] } as i64;
                let lo = self.cword(*bank, base + off)? as u64;
                let hi = self.cword(*bank, base + off + 4)? as u64;
                v = [lo | hi << 32; 32];
            }
            k => return Err(format!("operand {k:?} cannot be read as a 64-bit value")),
        }
        if float {
            if o.abs {
                v.iter_mut().for_each(|x| *x &= !(1 << 63));
            }
            if o.neg {
                v.iter_mut().for_each(|x| *x ^= 1 << 63);
            }
        } else if o.neg {
            v.iter_mut().for_each(|x| *x = x.wrapping_neg());
        }
        Ok(v)
    }

    /// A word of constant bank `bank`: bank 0 is the launch's, the others the program's
    /// `__constant__` data (bytes past what was given read zero, as unset constants do).
    pub fn cword(&self, bank: u8, off: i64) -> R<u32> {
        let cb = if bank == 0 {
            self.l.cbank
        } else {
            self.l.banks.get(&bank).ok_or_else(|| {
                format!(
                    "constant bank {bank} (__constant__ data) has no contents: `run --cuda` reads \
                     them from the cubin; with --sass give them in the launch spec's [[constant]]"
                )
            })?
        };
        if off < 0 || off % 4 != 0 {
            return Err(format!("constant offset {off:#x} is not a word"));
        }
        let o = off as usize;
        Ok(cb
            .get(o..o + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
    }

    /// Executes a non-control instruction for lanes `m` (lane 0 alone on the uniform path).
    pub fn compute(&mut self, w: &mut Warp, inst: &Inst, m: u32, at: usize) -> R<()> {
        let ops = &inst.ops;
        match &inst.opc {
            Opc::Mov => {
                let a = self.src(w, op(inst, 1)?, Ctx::Int)?;
                w.write(&ops[0], m, &a);
            }
            Opc::Imad {
                hi,
                wide,
                signed,
                x,
            } => self.imad(w, inst, m, *hi, *wide, *signed, *x)?,
            Opc::Iadd3 { x } => self.iadd3(w, inst, m, *x)?,
            Opc::Viadd => {
                let a = self.src(w, op(inst, 1)?, Ctx::Int)?;
                let b = self.src(w, op(inst, 2)?, Ctx::Int)?;
                let mut d = [0u32; 32];
                for l in 0..32 {
                    d[l] = a[l].wrapping_add(b[l]);
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Lea { hi, x, sx32 } => self.lea(w, inst, m, *hi, *x, *sx32)?,
            Opc::Shf { left, hi, ty, wrap } => {
                let a = self.src(w, op(inst, 1)?, Ctx::Int)?;
                let s = self.src(w, op(inst, 2)?, Ctx::Int)?;
                let c = self.src(w, op(inst, 3)?, Ctx::Int)?;
                let bits = if ty.wide() { 64 } else { 32 };
                let mut d = [0u32; 32];
                for l in lanes(m) {
                    let sh = if *wrap {
                        s[l] & (bits - 1)
                    } else {
                        s[l].min(bits)
                    };
                    let v = (c[l] as u64) << 32 | a[l] as u64;
                    let r: u64 = if *left {
                        ((v as u128) << sh) as u64
                    } else if ty.signed() {
                        ((v as i64) >> sh.min(63)) as u64
                    } else {
                        ((v as u128) >> sh) as u64
                    };
                    d[l] = if *hi { (r >> 32) as u32 } else { r as u32 };
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Shl | Opc::Shr { .. } => {
                let a = self.src(w, op(inst, 1)?, Ctx::Int)?;
                let s = self.src(w, op(inst, 2)?, Ctx::Int)?;
                let mut d = [0u32; 32];
                for l in lanes(m) {
                    let sh = s[l].min(32);
                    d[l] = match inst.opc {
                        Opc::Shl => ((a[l] as u64) << sh) as u32,
                        Opc::Shr { signed: true } => ((a[l] as i32 as i64) >> sh) as u32,
                        _ => ((a[l] as u64) >> sh) as u32,
                    };
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Lop3 => {
                // LOP3.LUT [Pd,] Rd, a, b, c, lut, Pin
                let pd = matches!(op(inst, 0)?.kind, Kind::Pred(_) | Kind::UPred(_));
                let (d_at, s) = if pd { (1, 2) } else { (0, 1) };
                let a = self.src(w, op(inst, s)?, Ctx::Int)?;
                let b = self.src(w, op(inst, s + 1)?, Ctx::Int)?;
                let c = self.src(w, op(inst, s + 2)?, Ctx::Int)?;
                let lut = match op(inst, s + 3)?.kind {
                    Kind::Lit(l) if l.integral => l.int as u8,
                    _ => return Err("LOP3: expected the truth table as a literal".into()),
                };
                let mut d = [0u32; 32];
                let mut nz = 0u32;
                for l in lanes(m) {
                    d[l] = lop3(a[l], b[l], c[l], lut);
                    nz |= ((d[l] != 0) as u32) << l;
                }
                w.write(&ops[d_at], m, &d);
                if pd {
                    w.set_pred(&ops[0], m, nz);
                }
            }
            Opc::Isetp {
                cmp,
                signed,
                bop,
                ex,
            } => {
                let a = self.src(w, op(inst, 2)?, Ctx::Int)?;
                let b = self.src(w, op(inst, 3)?, Ctx::Int)?;
                let pc = w.pred(op(inst, 4)?);
                let plo = if *ex { w.pred(op(inst, 5)?) } else { 0 };
                let mut res = 0u32;
                for l in lanes(m) {
                    let (x, y) = if *signed {
                        (a[l] as i32 as i64, b[l] as i32 as i64)
                    } else {
                        (a[l] as i64, b[l] as i64)
                    };
                    let r = if *ex {
                        let lo = plo >> l & 1 != 0;
                        match cmp {
                            Cmp::Eq => x == y && lo,
                            Cmp::Ne => x != y || lo,
                            Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge => {
                                icmp(*cmp, x, y) && x != y || x == y && lo
                            }
                            _ => icmp(*cmp, x, y),
                        }
                    } else {
                        icmp(*cmp, x, y)
                    };
                    res |= (r as u32) << l;
                }
                w.set_pred(&ops[0], m, bop.apply(res, pc));
                w.set_pred(&ops[1], m, bop.apply(!res, pc));
            }
            Opc::Plop3 => {
                let (a, b, c) = (
                    w.pred(op(inst, 2)?),
                    w.pred(op(inst, 3)?),
                    w.pred(op(inst, 4)?),
                );
                let lut = |i: usize| match inst.ops.get(i).map(|o| &o.kind) {
                    Some(Kind::Lit(l)) => l.int as u8,
                    _ => 0,
                };
                w.set_pred(&ops[0], m, lop3(a, b, c, lut(5)));
                w.set_pred(&ops[1], m, lop3(a, b, c, lut(6)));
            }
            Opc::Sel | Opc::Fsel => {
                let a = self.src(w, op(inst, 1)?, Ctx::F32)?;
                let b = self.src(w, op(inst, 2)?, Ctx::F32)?;
                let p = w.pred(op(inst, 3)?);
                let mut d = [0u32; 32];
                for l in 0..32 {
                    d[l] = if p >> l & 1 != 0 { a[l] } else { b[l] };
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Iabs | Opc::Popc | Opc::Brev | Opc::Flo { .. } => {
                let a = self.src(w, op(inst, 1)?, Ctx::Int)?;
                let mut d = [0u32; 32];
                for l in 0..32 {
                    d[l] = match inst.opc {
                        Opc::Iabs => (a[l] as i32).unsigned_abs(),
                        Opc::Popc => a[l].count_ones(),
                        Opc::Brev => a[l].reverse_bits(),
                        Opc::Flo { signed, sh } => {
                            let v = if signed && (a[l] as i32) < 0 {
                                !a[l]
                            } else {
                                a[l]
                            };
                            if v == 0 {
                                u32::MAX
                            } else if sh {
                                v.leading_zeros()
                            } else {
                                31 - v.leading_zeros()
                            }
                        }
                        _ => 0,
                    };
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Imnmx { signed } => {
                let a = self.src(w, op(inst, 1)?, Ctx::Int)?;
                let b = self.src(w, op(inst, 2)?, Ctx::Int)?;
                let p = w.pred(op(inst, 3)?);
                let mut d = [0u32; 32];
                for l in 0..32 {
                    let min = p >> l & 1 != 0;
                    d[l] = if *signed {
                        let (x, y) = (a[l] as i32, b[l] as i32);
                        (if min { x.min(y) } else { x.max(y) }) as u32
                    } else if min {
                        a[l].min(b[l])
                    } else {
                        a[l].max(b[l])
                    };
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Prmt => {
                let a = self.src(w, op(inst, 1)?, Ctx::Int)?;
                let s = self.src(w, op(inst, 2)?, Ctx::Int)?;
                let b = self.src(w, op(inst, 3)?, Ctx::Int)?;
                let mut d = [0u32; 32];
                for l in 0..32 {
                    d[l] = alu::prmt(a[l], s[l], b[l]);
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Bmsk { wrap } => {
                let p = self.src(w, op(inst, 1)?, Ctx::Int)?;
                let n = self.src(w, op(inst, 2)?, Ctx::Int)?;
                let mut d = [0u32; 32];
                for l in 0..32 {
                    let (pos, wid) = if *wrap {
                        (p[l] & 31, n[l] & 31)
                    } else {
                        (p[l].min(32), n[l].min(32))
                    };
                    let mask = if wid >= 32 {
                        u32::MAX
                    } else {
                        (1u32 << wid) - 1
                    };
                    d[l] = ((mask as u64) << pos) as u32;
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Sgxt { signed } => {
                let a = self.src(w, op(inst, 1)?, Ctx::Int)?;
                let n = self.src(w, op(inst, 2)?, Ctx::Int)?;
                let mut d = [0u32; 32];
                for l in 0..32 {
                    let wid = n[l].min(32);
                    d[l] = if wid == 0 {
                        0
                    } else if wid >= 32 {
                        a[l]
                    } else if *signed {
                        (((a[l] << (32 - wid)) as i32) >> (32 - wid)) as u32
                    } else {
                        a[l] & ((1 << wid) - 1)
                    };
                }
                w.write(&ops[0], m, &d);
            }
            Opc::P2r => {
                let a = self.src(w, op(inst, 2)?, Ctx::Int)?;
                let mk = self.src(w, op(inst, 3)?, Ctx::Int)?;
                let mut d = [0u32; 32];
                for l in 0..32 {
                    let bits = (0..7).fold(0u32, |acc, i| acc | ((w.p[i] >> l) & 1) << i);
                    d[l] = (a[l] & !mk[l]) | (bits & mk[l]);
                }
                w.write(&ops[0], m, &d);
            }
            Opc::R2p => {
                let a = self.src(w, op(inst, 1)?, Ctx::Int)?;
                let mk = self.src(w, op(inst, 2)?, Ctx::Int)?;
                for i in 0..7 {
                    let mut bits = 0u32;
                    let mut lm = 0u32;
                    for l in lanes(m) {
                        if mk[l] >> i & 1 != 0 {
                            lm |= 1 << l;
                            bits |= (a[l] >> i & 1) << l;
                        }
                    }
                    w.p[i] = (w.p[i] & !lm) | (bits & lm);
                }
            }
            Opc::Fadd { ftz, sat, rnd } | Opc::Fmul { ftz, sat, rnd } => {
                let a = self.src(w, op(inst, 1)?, Ctx::F32)?;
                let b = self.src(w, op(inst, 2)?, Ctx::F32)?;
                let add = matches!(inst.opc, Opc::Fadd { .. });
                let mut d = [0u32; 32];
                for l in lanes(m) {
                    let (mut x, mut y) = (f32::from_bits(a[l]), f32::from_bits(b[l]));
                    if *ftz {
                        x = ftz32(x);
                        y = ftz32(y);
                    }
                    let mut r = if *rnd == Round::Rn {
                        if add {
                            x + y
                        } else {
                            x * y
                        }
                    } else if add {
                        round_f32(x as f64 + y as f64, *rnd)
                    } else {
                        round_f32(x as f64 * y as f64, *rnd)
                    };
                    if *ftz {
                        r = ftz32(r);
                    }
                    if *sat {
                        r = sat01(r);
                    }
                    d[l] = r.to_bits();
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Ffma { ftz, sat, rnd } => {
                let a = self.src(w, op(inst, 1)?, Ctx::F32)?;
                let b = self.src(w, op(inst, 2)?, Ctx::F32)?;
                let c = self.src(w, op(inst, 3)?, Ctx::F32)?;
                let mut d = [0u32; 32];
                for l in lanes(m) {
                    let (mut x, mut y, mut z) = (
                        f32::from_bits(a[l]),
                        f32::from_bits(b[l]),
                        f32::from_bits(c[l]),
                    );
                    if *ftz {
                        x = ftz32(x);
                        y = ftz32(y);
                        z = ftz32(z);
                    }
                    let mut r = if *rnd == Round::Rn {
                        x.mul_add(y, z)
                    } else {
                        let (v, above) = alu::fma_dir(x as f64, y as f64, z as f64);
                        alu::round_f32_dir(v, above, *rnd)
                    };
                    if *ftz {
                        r = ftz32(r);
                    }
                    if *sat {
                        r = sat01(r);
                    }
                    d[l] = r.to_bits();
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Fmnmx { ftz } => {
                let a = self.src(w, op(inst, 1)?, Ctx::F32)?;
                let b = self.src(w, op(inst, 2)?, Ctx::F32)?;
                let p = w.pred(op(inst, 3)?);
                let mut d = [0u32; 32];
                for l in lanes(m) {
                    let (mut x, mut y) = (f32::from_bits(a[l]), f32::from_bits(b[l]));
                    if *ftz {
                        x = ftz32(x);
                        y = ftz32(y);
                    }
                    let r = if p >> l & 1 != 0 { x.min(y) } else { x.max(y) };
                    d[l] = r.to_bits();
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Fsetp { cmp, bop, ftz } => {
                let a = self.src(w, op(inst, 2)?, Ctx::F32)?;
                let b = self.src(w, op(inst, 3)?, Ctx::F32)?;
                let pc = w.pred(op(inst, 4)?);
                let mut res = 0u32;
                for l in lanes(m) {
                    let (mut x, mut y) = (f32::from_bits(a[l]), f32::from_bits(b[l]));
                    if *ftz {
                        x = ftz32(x);
                        y = ftz32(y);
                    }
                    res |= (fcmp(*cmp, x as f64, y as f64) as u32) << l;
                }
                w.set_pred(&ops[0], m, bop.apply(res, pc));
                w.set_pred(&ops[1], m, bop.apply(!res, pc));
            }
            Opc::Fchk => {
                // True where a/b needs the division slow path: special or denormal operands,
                // or a quotient near the exponent range's ends.
                let a = self.src(w, op(inst, 1)?, Ctx::F32)?;
                let b = self.src(w, op(inst, 2)?, Ctx::F32)?;
                let mut res = 0u32;
                for l in lanes(m) {
                    let (x, y) = (f32::from_bits(a[l]), f32::from_bits(b[l]));
                    let ex = ((a[l] >> 23) & 0xff) as i32;
                    let ey = ((b[l] >> 23) & 0xff) as i32;
                    let special = !x.is_normal() && x != 0.0 || !y.is_normal();
                    let slow =
                        special || !(-125..=125).contains(&(ex - ey)) || ex >= 253 || ey >= 253;
                    res |= (slow as u32) << l;
                }
                w.set_pred(&ops[0], m, res);
            }
            Opc::Frnd { rnd, f64 } => {
                if *f64 {
                    let a = self.src64(w, op(inst, 1)?, true)?;
                    let mut d = [0u64; 32];
                    for l in lanes(m) {
                        d[l] = alu::round_int(f64::from_bits(a[l]), *rnd).to_bits();
                    }
                    w.write64(&ops[0], m, &d);
                } else {
                    let a = self.src(w, op(inst, 1)?, Ctx::F32)?;
                    let mut d = [0u32; 32];
                    for l in lanes(m) {
                        d[l] = (alu::round_int(f32::from_bits(a[l]) as f64, *rnd) as f32).to_bits();
                    }
                    w.write(&ops[0], m, &d);
                }
            }
            Opc::Mufu(f) => {
                let a = self.src(w, op(inst, 1)?, Ctx::F32)?;
                let mut d = [0u32; 32];
                for l in lanes(m) {
                    d[l] = alu::mufu(*f, a[l]);
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Dadd { rnd } | Opc::Dmul { rnd } | Opc::Dfma { rnd } => {
                let a = self.src64(w, op(inst, 1)?, true)?;
                let b = self.src64(w, op(inst, 2)?, true)?;
                let c = if matches!(inst.opc, Opc::Dfma { .. }) {
                    self.src64(w, op(inst, 3)?, true)?
                } else {
                    [0; 32]
                };
                let mut d = [0u64; 32];
                for l in lanes(m) {
                    let (x, y, z) = (
                        f64::from_bits(a[l]),
                        f64::from_bits(b[l]),
                        f64::from_bits(c[l]),
                    );
                    let (v, above) = match inst.opc {
                        Opc::Dadd { .. } => alu::add_dir(x, y),
                        Opc::Dmul { .. } => alu::mul_dir(x, y),
                        _ => alu::fma_dir(x, y, z),
                    };
                    d[l] = alu::round_f64(v, above, *rnd).to_bits();
                }
                w.write64(&ops[0], m, &d);
            }
            Opc::Dsetp { cmp, bop } => {
                let a = self.src64(w, op(inst, 2)?, true)?;
                let b = self.src64(w, op(inst, 3)?, true)?;
                let pc = w.pred(op(inst, 4)?);
                let mut res = 0u32;
                for l in lanes(m) {
                    res |= (fcmp(*cmp, f64::from_bits(a[l]), f64::from_bits(b[l])) as u32) << l;
                }
                w.set_pred(&ops[0], m, bop.apply(res, pc));
                w.set_pred(&ops[1], m, bop.apply(!res, pc));
            }
            Opc::Hadd2 { f32 } | Opc::Hmul2 { f32 } | Opc::Hfma2 { f32 } => {
                self.half2(w, inst, m, *f32)?
            }
            Opc::F2i { src, dst, c } => {
                let mut d = [0u64; 32];
                let x = self.float_src(w, op(inst, 1)?, *src)?;
                for l in lanes(m) {
                    let v =
                        if c.ftz && x[l].abs() < f32::MIN_POSITIVE as f64 && *src == FloatTy::F32 {
                            0.0
                        } else {
                            x[l]
                        };
                    d[l] = alu::f2i(v, *dst, c.rnd);
                }
                if dst.wide() {
                    w.write64(&ops[0], m, &d);
                } else {
                    w.write(&ops[0], m, &lo32(&d));
                }
            }
            Opc::I2f { src, dst, c } => {
                let a: [u64; 32] = if src.wide() {
                    self.src64(w, op(inst, 1)?, false)?
                } else {
                    let v = self.src(w, op(inst, 1)?, Ctx::Int)?;
                    let mut o = [0u64; 32];
                    for l in 0..32 {
                        o[l] = v[l] as u64;
                    }
                    o
                };
                let mut d = [0u64; 32];
                for l in lanes(m) {
                    d[l] = alu::i2f(a[l], *src, *dst, c.rnd);
                }
                if *dst == FloatTy::F64 {
                    w.write64(&ops[0], m, &d);
                } else {
                    w.write(&ops[0], m, &lo32(&d));
                }
            }
            Opc::F2f { src, dst, c } => {
                let x = self.float_src(w, op(inst, 1)?, *src)?;
                let mut d = [0u64; 32];
                for l in lanes(m) {
                    let v = x[l];
                    d[l] = match dst {
                        FloatTy::F64 => v.to_bits(),
                        FloatTy::F32 => {
                            let r = round_f32(v, c.rnd);
                            (if c.ftz { ftz32(r) } else { r }).to_bits() as u64
                        }
                        FloatTy::F16 => alu::f2h(v as f32) as u64,
                    };
                }
                if *dst == FloatTy::F64 {
                    w.write64(&ops[0], m, &d);
                } else {
                    w.write(&ops[0], m, &lo32(&d));
                }
            }
            Opc::F2fpPack => {
                let a = self.src(w, op(inst, 1)?, Ctx::F32)?;
                let b = self.src(w, op(inst, 2)?, Ctx::F32)?;
                let mut d = [0u32; 32];
                for l in lanes(m) {
                    d[l] = (alu::f2h(f32::from_bits(a[l])) as u32) << 16
                        | alu::f2h(f32::from_bits(b[l])) as u32;
                }
                w.write(&ops[0], m, &d);
            }
            Opc::Shfl(mode) => self.shfl(w, inst, m, *mode)?,
            Opc::Vote { mode } => {
                // `VOTE.ALL Rd, Pd, Ps` or, without the ballot register, `VOTE.ALL Pd, Ps`.
                let s = usize::from(!matches!(ops[0].kind, Kind::Pred(_)));
                let p = w.pred(op(inst, s + 1)?) & m;
                let all_m = if inst.uniform {
                    w.groups.iter().fold(0, |a, g| a | g.mask)
                } else {
                    m
                };
                let p = if inst.uniform {
                    w.pred(op(inst, s + 1)?) & all_m
                } else {
                    p
                };
                let r = match *mode {
                    VOTE_ALL => p == all_m,
                    VOTE_ANY => p != 0,
                    _ => p == 0 || p == all_m,
                };
                if s == 1 {
                    w.write(&ops[0], m, &[p; 32]);
                }
                w.set_pred(op(inst, s)?, m, if r { u32::MAX } else { 0 });
            }
            Opc::S2r => {
                let Kind::Special(name) = &op(inst, 1)?.kind else {
                    return Err("S2R: expected a special register SR_*".into());
                };
                let d = self.special(w, name)?;
                w.write(&ops[0], m, &d);
            }
            Opc::Cs2r => {
                let Kind::Special(name) = &op(inst, 1)?.kind else {
                    return Err("CS2R: expected a special register".into());
                };
                let d = match name.as_str() {
                    "SRZ" => [0u64; 32],
                    "SR_CLOCKLO" | "SR_GLOBALTIMERLO" => [self.clock(w); 32],
                    _ => return Err(format!("CS2R of {name} is not supported")),
                };
                if inst.name.contains(".32") {
                    w.write(&ops[0], m, &lo32(&d));
                } else {
                    w.write64(&ops[0], m, &d);
                }
            }
            Opc::R2ur => self.r2ur(w, inst)?,
            Opc::Redux { op: rop, signed } => self.redux(w, inst, m, *rop, *signed)?,
            Opc::Ld { .. } | Opc::St { .. } | Opc::Ldc { .. } | Opc::Atom { .. } => {
                self.memory(w, inst, m, at)?
            }
            other => return Err(format!("{other:?} is not executable here")),
        }
        Ok(())
    }
}

fn sat01(r: f32) -> f32 {
    if r.is_nan() {
        0.0
    } else {
        r.clamp(0.0, 1.0)
    }
}

fn lo32(d: &[u64; 32]) -> [u32; 32] {
    let mut o = [0u32; 32];
    for l in 0..32 {
        o[l] = d[l] as u32;
    }
    o
}

/// Whether an atomic's type is 64 bits wide.
pub fn atom_wide(t: AtomTy) -> bool {
    matches!(t, AtomTy::U64 | AtomTy::S64 | AtomTy::F64)
}

/// Integer types for atomics' comparisons.
pub fn atom_int(t: AtomTy) -> IntTy {
    match t {
        AtomTy::S32 => IntTy::S32,
        AtomTy::U64 => IntTy::U64,
        AtomTy::S64 => IntTy::S64,
        _ => IntTy::U32,
    }
}
