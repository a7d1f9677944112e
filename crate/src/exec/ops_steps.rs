//! The instructions of several steps the big match in [`super::ops`] hands off: IMAD (and
//! its wide and high forms), IADD3 with carries, LEA, the packed-half operations and SHFL, with
//! the float operand reads and special registers they share.

use super::alu;
use super::cta::{op, Cta};
use super::decode::{FloatTy, Opc, ReduxOp, Shfl};
use super::memory::SHARED_WINDOW;
use super::operand::{HalfSel, Kind, Operand};
use super::program::Inst;
use super::warp::{halves, Ctx, Warp};

type R<T> = std::result::Result<T, String>;

use super::ops::lanes;

impl Cta<'_, '_> {
    /// A float operand of type `ty` widened to f64.
    pub(super) fn float_src(&self, w: &Warp, o: &Operand, ty: FloatTy) -> R<[f64; 32]> {
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

    pub(super) fn special(&self, w: &Warp, name: &str) -> R<[u32; 32]> {
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
                "SR_CgaCtaId" | "SR_SMID" | "SR_VIRTUALSMID" => 0,
                // The generic shared window's high word (sm_90 builds generic shared
                // pointers as SR_SWINHI : shared address).
                "SR_SWINHI" => (SHARED_WINDOW >> 32) as u32,
                "SR_SWINLO" => SHARED_WINDOW as u32,
                "SR_TID" => {
                    (t % b.x as u64) as u32 | (((t / b.x as u64) % b.y as u64) as u32) << 16
                }
                _ => return Err(format!("the special register {name} is not supported")),
            };
        }
        Ok(d)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn imad(
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

    pub(super) fn iadd3(&self, w: &mut Warp, inst: &Inst, m: u32, x: bool) -> R<()> {
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

    pub(super) fn lea(
        &self,
        w: &mut Warp,
        inst: &Inst,
        m: u32,
        hi: bool,
        x: bool,
        sx32: bool,
    ) -> R<()> {
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

    pub(super) fn half2(&self, w: &mut Warp, inst: &Inst, m: u32, f32_out: bool) -> R<()> {
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

    pub(super) fn shfl(&self, w: &mut Warp, inst: &Inst, m: u32, mode: Shfl) -> R<()> {
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

    /// `R2UR UR, R` (lane of the first running group) or `R2UR P, UR, R`, where P says
    /// whether R was uniform over that group's lanes.
    pub(super) fn r2ur(&self, w: &mut Warp, inst: &Inst) -> R<()> {
        let g = w
            .groups
            .iter()
            .find(|g| g.wait == super::warp::Wait::Run)
            .map_or(1, |g| g.mask);
        let s = usize::from(matches!(op(inst, 0)?.kind, Kind::Pred(_)));
        let a = self.src(w, op(inst, s + 1)?, Ctx::Int)?;
        let first = a[g.trailing_zeros() as usize];
        w.write(op(inst, s)?, 1, &[first; 32]);
        if s == 1 {
            let uniform = (0..32).all(|l| g >> l & 1 == 0 || a[l] == first);
            w.set_pred(&inst.ops[0], g, if uniform { u32::MAX } else { 0 });
        }
        Ok(())
    }

    /// `REDUX.op UR, R`: R reduced over lanes `m` into a uniform register.
    pub(super) fn redux(
        &self,
        w: &mut Warp,
        inst: &Inst,
        m: u32,
        rop: ReduxOp,
        signed: bool,
    ) -> R<()> {
        let a = self.src(w, op(inst, 1)?, Ctx::Int)?;
        let mut acc: Option<u32> = None;
        for l in (0..32).filter(|l| m >> l & 1 != 0) {
            let x = a[l];
            acc = Some(match acc {
                None => x,
                Some(y) => match (rop, signed) {
                    (ReduxOp::And, _) => y & x,
                    (ReduxOp::Or, _) => y | x,
                    (ReduxOp::Xor, _) => y ^ x,
                    (ReduxOp::Sum, _) => y.wrapping_add(x),
                    (ReduxOp::Min, false) => y.min(x),
                    (ReduxOp::Max, false) => y.max(x),
                    (ReduxOp::Min, true) => (y as i32).min(x as i32) as u32,
                    (ReduxOp::Max, true) => (y as i32).max(x as i32) as u32,
                },
            });
        }
        w.write(op(inst, 0)?, m, &[acc.unwrap_or(0); 32]);
        Ok(())
    }
}
