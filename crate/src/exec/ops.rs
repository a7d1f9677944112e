//! Operand reads and the arithmetic, logic, conversion and warp-level instructions.

use super::alu::{self, fcmp, ftz32, icmp, lop3, round_f32};
use super::cta::{op, Cta};
use super::decode::{AtomTy, Cmp, FloatTy, IntTy, Opc, Round, Shfl, VOTE_ALL, VOTE_ANY};
use super::operand::{HalfSel, Kind, Lit, Operand};
use super::program::Inst;
use super::warp::{halves, Ctx, Warp};

type R<T> = std::result::Result<T, String>;

#[inline]
fn lanes(mask: u32) -> impl Iterator<Item = usize> {
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

    /// A word of constant bank `bank` (only bank 0, the launch's, exists).
    pub fn cword(&self, bank: u8, off: i64) -> R<u32> {
        if bank != 0 {
            return Err(format!(
                "constant bank {bank} (__constant__ data) is not supported: only bank 0"
            ));
        }
        let cb = self.l.cbank;
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
                let p = w.pred(op(inst, 2)?) & m;
                let all_m = if inst.uniform {
                    w.groups.iter().fold(0, |a, g| a | g.mask)
                } else {
                    m
                };
                let p = if inst.uniform {
                    w.pred(op(inst, 2)?) & all_m
                } else {
                    p
                };
                let r = match *mode {
                    VOTE_ALL => p == all_m,
                    VOTE_ANY => p != 0,
                    _ => p == 0 || p == all_m,
                };
                w.write(&ops[0], m, &[p; 32]);
                w.set_pred(&ops[1], m, if r { u32::MAX } else { 0 });
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
            Opc::R2ur => {
                let g = w
                    .groups
                    .iter()
                    .find(|g| g.wait == super::warp::Wait::Run)
                    .map_or(1, |g| g.mask);
                let a = self.src(w, op(inst, 1)?, Ctx::Int)?;
                let v = [a[g.trailing_zeros() as usize]; 32];
                w.write(&ops[0], 1, &v);
            }
            Opc::Ld { .. } | Opc::St { .. } | Opc::Ldc { .. } | Opc::Atom { .. } => {
                self.memory(w, inst, m, at)?
            }
            other => return Err(format!("{other:?} is not executable here")),
        }
        Ok(())
    }

    /// A float operand of type `ty` widened to f64.
    fn float_src(&self, w: &Warp, o: &Operand, ty: FloatTy) -> R<[f64; 32]> {
        let mut x = [0f64; 32];
        match ty {
            FloatTy::F64 => {
                let a = self.src64(w, o, true)?;
                for l in 0..32 {
                    x[l] = f64::from_bits(a[l]);
                }
            }
            FloatTy::F32 => {
                let a = self.src(w, o, Ctx::F32)?;
                for l in 0..32 {
                    x[l] = f32::from_bits(a[l]) as f64;
                }
            }
            FloatTy::F16 => {
                let a = self.src(w, o, Ctx::F16)?;
                for l in 0..32 {
                    let (lo, _) = halves(a[l], o.half);
                    let v = alu::h2f(lo) as f64;
                    x[l] = if o.neg { -v } else { v };
                }
            }
        }
        Ok(x)
    }

    pub fn clock(&self, w: &Warp) -> u64 {
        // A deterministic clock: the warp's executed instructions so far.
        w.count
    }

    fn special(&self, w: &Warp, name: &str) -> R<[u32; 32]> {
        let b = self.l.block;
        let mut d = [0u32; 32];
        let tid = |l: usize| (w.index * 32 + l as u32) as u64;
        for (l, x) in d.iter_mut().enumerate() {
            let t = tid(l);
            *x = match name {
                "SR_TID.X" => (t % b.x as u64) as u32,
                "SR_TID.Y" => ((t / b.x as u64) % b.y as u64) as u32,
                "SR_TID.Z" => (t / (b.x as u64 * b.y as u64)) as u32,
                "SR_CTAID.X" => self.id.x,
                "SR_CTAID.Y" => self.id.y,
                "SR_CTAID.Z" => self.id.z,
                "SR_LANEID" => l as u32,
                "SR_WARPID" | "SR_VIRTID" => w.index,
                "SR_CLOCKLO" | "SR_GLOBALTIMERLO" => self.clock(w) as u32,
                "SR_CLOCKHI" | "SR_GLOBALTIMERHI" => (self.clock(w) >> 32) as u32,
                "SR_EQMASK" => 1 << l,
                "SR_LTMASK" => (1u32 << l) - 1,
                "SR_LEMASK" => ((1u64 << (l + 1)) - 1) as u32,
                "SR_GTMASK" => !(((1u64 << (l + 1)) - 1) as u32),
                "SR_GEMASK" => !((1u32 << l) - 1),
                "SR_CgaCtaId" | "SR_SMID" | "SR_VIRTUALSMID" | "SR_SWINHI" => 0,
                "SR_TID" => {
                    (t % b.x as u64) as u32 | (((t / b.x as u64) % b.y as u64) as u32) << 16
                }
                _ => return Err(format!("the special register {name} is not supported")),
            };
        }
        Ok(d)
    }

    #[allow(clippy::too_many_arguments)]
    fn imad(
        &self,
        w: &mut Warp,
        inst: &Inst,
        m: u32,
        hi: bool,
        wide: bool,
        signed: bool,
        x: bool,
    ) -> R<()> {
        // d, [Pcarry_out,] a, b, c [, Pcarry_in]
        let cout = matches!(op(inst, 1)?.kind, Kind::Pred(_));
        let s = if cout { 2 } else { 1 };
        let a = self.src(w, op(inst, s)?, Ctx::Int)?;
        let b = self.src(w, op(inst, s + 1)?, Ctx::Int)?;
        let cin = if x { w.pred(op(inst, s + 3)?) } else { 0 };
        let ext = |v: u32| {
            if signed {
                v as i32 as i64 as u64
            } else {
                v as u64
            }
        };
        if wide || hi {
            let co = op(inst, s + 2)?;
            let c = self.src64(w, co, false)?;
            let mut d = [0u64; 32];
            let mut carry = 0u32;
            for l in lanes(m) {
                let p = ext(a[l]).wrapping_mul(ext(b[l]));
                let (mut r, o1) = p.overflowing_add(c[l]);
                let mut o2 = false;
                if x && cin >> l & 1 != 0 {
                    (r, o2) = r.overflowing_add(1);
                }
                carry |= ((o1 || o2) as u32) << l;
                d[l] = r;
            }
            if hi {
                // The high word of a * b (128-bit product) plus the pair c.
                let mut dh = [0u32; 32];
                for l in lanes(m) {
                    let p: u128 = if signed {
                        ((a[l] as i32 as i128) * (b[l] as i32 as i128)) as u128
                    } else {
                        (a[l] as u128) * (b[l] as u128)
                    };
                    dh[l] = ((p.wrapping_add(c[l] as u128)) >> 32) as u32;
                }
                w.write(&inst.ops[0], m, &dh);
            } else {
                w.write64(&inst.ops[0], m, &d);
            }
            if cout {
                w.set_pred(&inst.ops[1], m, carry);
            }
        } else {
            let c = self.src(w, op(inst, s + 2)?, Ctx::Int)?;
            let mut d = [0u32; 32];
            for l in lanes(m) {
                d[l] = a[l]
                    .wrapping_mul(b[l])
                    .wrapping_add(c[l])
                    .wrapping_add(cin >> l & 1);
            }
            w.write(&inst.ops[0], m, &d);
        }
        Ok(())
    }

    fn iadd3(&self, w: &mut Warp, inst: &Inst, m: u32, x: bool) -> R<()> {
        // d, [P0, [P1,]] a, b, c [, Pc0, Pc1]
        let mut s = 1;
        let mut couts = Vec::new();
        while matches!(op(inst, s)?.kind, Kind::Pred(_) | Kind::UPred(_)) {
            couts.push(s);
            s += 1;
        }
        let mut sum = [0u64; 32];
        for k in 0..3 {
            let o = op(inst, s + k)?;
            let v = self.src(w, o, Ctx::Raw)?;
            // -x is ~x + 1 (its carry counts); in the .X form the +1 comes through the carry.
            let inv = o.neg || o.not;
            let plus = (o.neg && !x) as u64;
            for l in 0..32 {
                let t = if inv { !v[l] } else { v[l] };
                sum[l] += t as u64 + plus;
            }
        }
        if x {
            for k in 0..2 {
                if let Some(o) = inst.ops.get(s + 3 + k) {
                    let p = w.pred(o);
                    for (l, v) in sum.iter_mut().enumerate() {
                        *v += (p >> l & 1) as u64;
                    }
                }
            }
        }
        let mut d = [0u32; 32];
        for l in 0..32 {
            d[l] = sum[l] as u32;
        }
        w.write(&inst.ops[0], m, &d);
        for (k, &at) in couts.iter().enumerate() {
            let mut bits = 0u32;
            for (l, v) in sum.iter().enumerate() {
                bits |= (((v >> 32) as u32 > k as u32) as u32) << l;
            }
            w.set_pred(&inst.ops[at], m, bits);
        }
        Ok(())
    }

    fn lea(&self, w: &mut Warp, inst: &Inst, m: u32, hi: bool, x: bool, sx32: bool) -> R<()> {
        // LEA d, [P,] a, b, s | LEA.HI d, [P,] a, b, c, s [, Pcin] | .SX32: c = sign of a
        let cout = matches!(op(inst, 1)?.kind, Kind::Pred(_));
        let s = if cout { 2 } else { 1 };
        let a = self.src(w, op(inst, s)?, Ctx::Int)?;
        let b = self.src(w, op(inst, s + 1)?, Ctx::Int)?;
        let (c, sh_at) = if hi && !sx32 {
            (self.src(w, op(inst, s + 2)?, Ctx::Int)?, s + 3)
        } else {
            ([0u32; 32], s + 2)
        };
        let sh = self.src(w, op(inst, sh_at)?, Ctx::Int)?;
        let cin = if x {
            inst.ops.get(sh_at + 1).map_or(0, |o| w.pred(o))
        } else {
            0
        };
        let mut d = [0u32; 32];
        let mut carry = 0u32;
        for l in lanes(m) {
            let k = sh[l] & 63;
            let shifted = if hi {
                let c = if sx32 {
                    ((a[l] as i32) >> 31) as u32
                } else {
                    c[l]
                };
                let v = (c as u64) << 32 | a[l] as u64;
                ((v << k.min(63)) >> 32) as u32
            } else {
                ((a[l] as u64) << k.min(32)) as u32
            };
            let t = shifted as u64 + b[l] as u64 + (cin >> l & 1) as u64;
            d[l] = t as u32;
            carry |= ((t >> 32) as u32 & 1) << l;
        }
        w.write(&inst.ops[0], m, &d);
        if cout {
            w.set_pred(&inst.ops[1], m, carry);
        }
        Ok(())
    }

    fn half2(&self, w: &mut Warp, inst: &Inst, m: u32, f32_out: bool) -> R<()> {
        // Sources after d; a pair of literals is one operand (high half first).
        let mut srcs: Vec<[u32; 32]> = Vec::new();
        let mut sels: Vec<HalfSel> = Vec::new();
        let mut i = 1;
        while i < inst.ops.len() {
            let o = &inst.ops[i];
            if let (
                Kind::Lit(h),
                Some(Operand {
                    kind: Kind::Lit(lo),
                    ..
                }),
            ) = (&o.kind, inst.ops.get(i + 1))
            {
                let hb = alu::f2h(h.float as f32) as u32;
                let lb = alu::f2h(lo.float as f32) as u32;
                srcs.push([hb << 16 | lb; 32]);
                sels.push(HalfSel::H1H0);
                i += 2;
                continue;
            }
            let mut v = self.src(w, o, Ctx::F16)?;
            let sel = o.half;
            for x in v.iter_mut() {
                let (lo, hi) = halves(*x, sel);
                let (mut lo, mut hi) = (lo as u32, hi as u32);
                if o.abs {
                    lo &= 0x7fff;
                    hi &= 0x7fff;
                }
                if o.neg {
                    lo ^= 0x8000;
                    hi ^= 0x8000;
                }
                *x = hi << 16 | lo;
            }
            srcs.push(v);
            sels.push(sel);
            i += 1;
        }
        let need = if matches!(inst.opc, Opc::Hfma2 { .. }) {
            3
        } else {
            2
        };
        if srcs.len() < need {
            return Err(format!("expected {need} sources"));
        }
        let mut d = [0u32; 32];
        for l in lanes(m) {
            let h = |v: u32, k: u32| alu::h2f((v >> (16 * k)) as u16);
            let mut out = [0f32; 2];
            for (k, o) in out.iter_mut().enumerate() {
                let k = k as u32;
                let a = h(srcs[0][l], k);
                let b = h(srcs[1][l], k);
                *o = match inst.opc {
                    Opc::Hadd2 { .. } => a + b,
                    Opc::Hmul2 { .. } => a * b,
                    _ => a.mul_add(b, h(srcs[2][l], k)),
                };
            }
            d[l] = if f32_out {
                out[0].to_bits()
            } else {
                (alu::f2h(out[1]) as u32) << 16 | alu::f2h(out[0]) as u32
            };
        }
        w.write(&inst.ops[0], m, &d);
        Ok(())
    }

    fn shfl(&self, w: &mut Warp, inst: &Inst, m: u32, mode: Shfl) -> R<()> {
        // SHFL.mode Pd, d, a, b, c
        let a = self.src(w, op(inst, 2)?, Ctx::Int)?;
        let b = self.src(w, op(inst, 3)?, Ctx::Int)?;
        let c = self.src(w, op(inst, 4)?, Ctx::Int)?;
        let mut d = [0u32; 32];
        let mut valid = 0u32;
        for l in lanes(m) {
            let lane = l as u32;
            let (bv, cv, seg) = (b[l] & 0x1f, c[l] & 0x1f, (c[l] >> 8) & 0x1f);
            let max = (lane & seg) | (cv & !seg);
            let min = lane & seg;
            let (j, ok) = match mode {
                Shfl::Up => {
                    let j = lane as i32 - bv as i32;
                    (j, j >= max as i32)
                }
                Shfl::Down => {
                    let j = lane + bv;
                    (j as i32, j <= max)
                }
                Shfl::Bfly => {
                    let j = lane ^ bv;
                    (j as i32, j <= max)
                }
                Shfl::Idx => {
                    let j = min | (bv & !seg);
                    (j as i32, j <= max)
                }
            };
            let src = if ok { j as usize } else { l };
            d[l] = a[src];
            valid |= (ok as u32) << l;
        }
        w.write(&inst.ops[1], m, &d);
        w.set_pred(&inst.ops[0], m, valid);
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
