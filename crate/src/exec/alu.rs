//! Scalar semantics shared by the vector and uniform datapaths: comparisons, half precision,
//! rounding, conversions, MUFU, byte permutes.
//!
//! Floating point follows IEEE 754 with round to nearest even, as the hardware does for
//! FADD/FMUL/FFMA (FFMA fused). Directed roundings (`.RZ`, `.RM`, `.RP`) of FP32 arithmetic
//! round the double-precision result, which is exact for FADD and FMUL of FP32 values and
//! within one double rounding for FFMA. MUFU is computed exactly rounded where the hardware
//! gives an approximation within about 1 ulp: results may differ from a GPU's in the last
//! bit, never in control flow that depends only on integers.

use super::decode::{Cmp, FloatTy, IntTy, MufuFn, Round};

/// Float comparison (ordered and unordered forms).
#[inline]
pub fn fcmp(c: Cmp, a: f64, b: f64) -> bool {
    let un = a.is_nan() || b.is_nan();
    match c {
        Cmp::F => false,
        Cmp::T => true,
        Cmp::Lt => a < b,
        Cmp::Eq => a == b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ne => !un && a != b,
        Cmp::Ge => a >= b,
        Cmp::Num => !un,
        Cmp::Nan => un,
        Cmp::Ltu => un || a < b,
        Cmp::Equ => un || a == b,
        Cmp::Leu => un || a <= b,
        Cmp::Gtu => un || a > b,
        Cmp::Neu => un || a != b,
        Cmp::Geu => un || a >= b,
    }
}

/// Integer comparison of two values widened to `i64` (signed or unsigned as the caller
/// extended them).
#[inline]
pub fn icmp(c: Cmp, a: i64, b: i64) -> bool {
    match c {
        Cmp::F => false,
        Cmp::T => true,
        Cmp::Lt => a < b,
        Cmp::Eq => a == b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ne => a != b,
        Cmp::Ge => a >= b,
        _ => false,
    }
}

/// Flush an FP32 denormal to a zero of the same sign.
#[inline]
pub fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// Rounds an f64 to f32 in direction `r`.
pub fn round_f32(x: f64, r: Round) -> f32 {
    let n = x as f32;
    if r == Round::Rn || n.is_nan() || (n as f64) == x {
        return n;
    }
    let up = (n as f64) < x;
    match r {
        Round::Rp if up => next_up(n),
        Round::Rm if !up => next_down(n),
        Round::Rz if up && x < 0.0 => next_up(n),
        Round::Rz if !up && x > 0.0 => next_down(n),
        _ => n,
    }
}

/// Rounds `v` to f32 in direction `r`, where `above` tells on which side of `v` the exact
/// result lies (when `v` itself is not exact).
pub fn round_f32_dir(v: f64, above: Option<bool>, r: Round) -> f32 {
    let n = v as f32;
    if n as f64 != v || n.is_nan() {
        return round_f32(v, r);
    }
    match (r, above) {
        (Round::Rp, Some(true)) => next_up(n),
        (Round::Rm, Some(false)) => next_down(n),
        (Round::Rz, Some(true)) if n < 0.0 => next_up(n),
        (Round::Rz, Some(false)) if n > 0.0 => next_down(n),
        _ => n,
    }
}

fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

/// Directed rounding of an f64 operation given its exact-or-nearest value: for `Rn` the
/// value itself; otherwise the neighbour in direction `r` when `exact` says the true result
/// lies above (`Some(true)`) or below (`Some(false)`) it.
pub fn round_f64(n: f64, above: Option<bool>, r: Round) -> f64 {
    let step = |x: f64, up: bool| -> f64 {
        if x.is_nan() || x.is_infinite() {
            return x;
        }
        if x == 0.0 {
            return if up {
                f64::from_bits(1)
            } else {
                -f64::from_bits(1)
            };
        }
        let b = x.to_bits();
        f64::from_bits(if (x > 0.0) == up { b + 1 } else { b - 1 })
    };
    match (r, above) {
        (Round::Rp, Some(true)) => step(n, true),
        (Round::Rm, Some(false)) => step(n, false),
        (Round::Rz, Some(true)) if n < 0.0 => step(n, true),
        (Round::Rz, Some(false)) if n > 0.0 => step(n, false),
        _ => n,
    }
}

/// `a + b` in f64 with the error term's sign (TwoSum): whether the exact sum is above the
/// rounded one.
pub fn add_dir(a: f64, b: f64) -> (f64, Option<bool>) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, (e != 0.0 && e.is_finite()).then_some(e > 0.0))
}

/// `a * b` in f64 with the error's sign (through a fused multiply-add).
pub fn mul_dir(a: f64, b: f64) -> (f64, Option<bool>) {
    let p = a * b;
    let e = a.mul_add(b, -p);
    (p, (e != 0.0 && e.is_finite()).then_some(e > 0.0))
}

/// `a * b + c` in f64 with an approximate error sign.
pub fn fma_dir(a: f64, b: f64, c: f64) -> (f64, Option<bool>) {
    let r = a.mul_add(b, c);
    // The residual a*b + c - r, itself rounded: its sign is exact unless it underflows.
    let e = a.mul_add(b, c - r);
    (r, (e != 0.0 && e.is_finite()).then_some(e > 0.0))
}

/// IEEE half bits -> f32.
pub fn h2f(h: u16) -> f32 {
    let s = ((h >> 15) as u32) << 31;
    let e = ((h >> 10) & 0x1f) as u32;
    let m = (h & 0x3ff) as u32;
    let bits = if e == 0 {
        if m == 0 {
            s
        } else {
            // Subnormal half: value m * 2^-24.
            let v = m as f32 * (1.0 / 16_777_216.0);
            return if s != 0 { -v } else { v };
        }
    } else if e == 31 {
        s | 0x7f80_0000 | (m << 13)
    } else {
        s | ((e + 112) << 23) | (m << 13)
    };
    f32::from_bits(bits)
}

/// f32 -> IEEE half bits, round to nearest even.
pub fn f2h(x: f32) -> u16 {
    let b = x.to_bits();
    let s = ((b >> 16) & 0x8000) as u16;
    let e = ((b >> 23) & 0xff) as i32;
    let m = b & 0x7f_ffff;
    if e == 255 {
        return s | 0x7c00 | if m != 0 { 0x200 } else { 0 };
    }
    let e16 = e - 127 + 15;
    if e16 >= 31 {
        return s | 0x7c00;
    }
    if e16 <= 0 {
        if e16 < -10 {
            return s;
        }
        let m = m | 0x80_0000;
        let shift = (14 - e16) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let r = if rem > mid || (rem == mid && half & 1 == 1) {
            half + 1
        } else {
            half
        };
        return s | r as u16;
    }
    let half = ((e16 as u32) << 10) | (m >> 13);
    let rem = m & 0x1fff;
    let r = if rem > 0x1000 || (rem == 0x1000 && half & 1 == 1) {
        half + 1
    } else {
        half
    };
    s | r as u16
}

/// Rounds to an integral value in direction `r`.
pub fn round_int(x: f64, r: Round) -> f64 {
    match r {
        Round::Rn => {
            let f = x.floor();
            let d = x - f;
            if d > 0.5 || (d == 0.5 && f % 2.0 != 0.0) {
                f + 1.0
            } else {
                f
            }
        }
        Round::Rz => x.trunc(),
        Round::Rm => x.floor(),
        Round::Rp => x.ceil(),
    }
}

/// Float -> integer as F2I does: rounded, saturated to the type, NaN -> 0.
pub fn f2i(x: f64, ty: IntTy, r: Round) -> u64 {
    if x.is_nan() {
        return 0;
    }
    let v = round_int(x, r);
    match ty {
        IntTy::U8 => v.clamp(0.0, u8::MAX as f64) as u64,
        IntTy::S8 => (v.clamp(i8::MIN as f64, i8::MAX as f64) as i64) as u64 & 0xffff_ffff,
        IntTy::U16 => v.clamp(0.0, u16::MAX as f64) as u64,
        IntTy::S16 => (v.clamp(i16::MIN as f64, i16::MAX as f64) as i64) as u64 & 0xffff_ffff,
        IntTy::U32 => v.clamp(0.0, u32::MAX as f64) as u64,
        IntTy::S32 => (v.clamp(i32::MIN as f64, i32::MAX as f64) as i32) as u32 as u64,
        IntTy::U64 => v as u64,
        IntTy::S64 => (v as i64) as u64,
    }
}

/// Integer (its bits widened to 64) -> float of type `dst` rounded in direction `r`, as bits
/// (f64 bits, f32 bits or half bits in the low word).
pub fn i2f(bits: u64, src: IntTy, dst: FloatTy, r: Round) -> u64 {
    let (neg, mag): (bool, u64) = match src {
        IntTy::U8 => (false, bits & 0xff),
        IntTy::U16 => (false, bits & 0xffff),
        IntTy::U32 => (false, bits & 0xffff_ffff),
        IntTy::U64 => (false, bits),
        IntTy::S8 => split(bits as u8 as i8 as i64),
        IntTy::S16 => split(bits as u16 as i16 as i64),
        IntTy::S32 => split(bits as u32 as i32 as i64),
        IntTy::S64 => split(bits as i64),
    };
    // The magnitude rounded in the direction that applies to it.
    let mr = match (r, neg) {
        (Round::Rp, false) | (Round::Rm, true) => Round::Rp,
        (Round::Rp, true) | (Round::Rm, false) | (Round::Rz, _) => Round::Rz,
        (Round::Rn, _) => Round::Rn,
    };
    let f = match dst {
        FloatTy::F64 => {
            let n = mag as f64;
            let exact = n as u128 == mag as u128;
            let v = if exact || mr == Round::Rn {
                n
            } else {
                let above = (n as u128) < mag as u128;
                round_f64(
                    n,
                    Some(above),
                    if mr == Round::Rp {
                        Round::Rp
                    } else {
                        Round::Rz
                    },
                )
            };
            return (if neg { -v } else { v }).to_bits();
        }
        FloatTy::F32 | FloatTy::F16 => {
            let n = mag as f32;
            let nn = n as u128;
            let v = if nn == mag as u128 || mr == Round::Rn {
                n
            } else if (nn < mag as u128) == (mr == Round::Rp) {
                if mr == Round::Rp {
                    next_up(n)
                } else {
                    n
                }
            } else if mr == Round::Rz {
                next_down(n)
            } else {
                n
            };
            if neg {
                -v
            } else {
                v
            }
        }
    };
    match dst {
        FloatTy::F16 => f2h(f) as u64,
        _ => f.to_bits() as u64,
    }
}

fn split(v: i64) -> (bool, u64) {
    (v < 0, v.unsigned_abs())
}

/// MUFU on an f32 (or the high word of an f64 for the 64H forms), as bits.
pub fn mufu(f: MufuFn, bits: u32) -> u32 {
    let x = f32::from_bits(bits);
    let r = match f {
        MufuFn::Rcp => 1.0 / x,
        MufuFn::Rsq => 1.0 / x.sqrt(),
        MufuFn::Sqrt => x.sqrt(),
        MufuFn::Ex2 => x.exp2(),
        MufuFn::Lg2 => x.log2(),
        MufuFn::Sin => x.sin(),
        MufuFn::Cos => x.cos(),
        MufuFn::Tanh => x.tanh(),
        MufuFn::Rcp64h | MufuFn::Rsq64h => {
            // The operand is the high word of a double; the result the high word of the
            // approximate reciprocal (square root).
            let d = f64::from_bits((bits as u64) << 32);
            let r = if f == MufuFn::Rcp64h {
                1.0 / d
            } else {
                1.0 / d.sqrt()
            };
            return (r.to_bits() >> 32) as u32;
        }
    };
    r.to_bits()
}

/// PRMT's default mode: byte `i` of the result is byte `sel[4i..4i+3]` of `{b, a}` (a in
/// bytes 0-3), replicating its sign bit when bit 3 of the selector nibble is set.
pub fn prmt(a: u32, sel: u32, b: u32) -> u32 {
    let src = (a as u64) | ((b as u64) << 32);
    let mut r = 0u32;
    for i in 0..4 {
        let n = (sel >> (4 * i)) & 0xf;
        let byte = ((src >> (8 * (n & 7))) & 0xff) as u32;
        let byte = if n & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        r |= byte << (8 * i);
    }
    r
}

/// LOP3's truth table applied bitwise: result bit = `lut[(a << 2) | (b << 1) | c]`.
#[inline]
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut r = 0u32;
    for i in 0..8u32 {
        if lut & (1 << i) != 0 {
            let ta = if i & 4 != 0 { a } else { !a };
            let tb = if i & 2 != 0 { b } else { !b };
            let tc = if i & 1 != 0 { c } else { !c };
            r |= ta & tb & tc;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_round_trip_and_luts_are_truth_tables() {
        for v in [0.0f32, 1.0, -2.5, 65504.0, 6.1035156e-5, 5.9604645e-8] {
            assert_eq!(h2f(f2h(v)), v);
        }
        assert_eq!(f2h(2.384_185_8e-7), 4);
        assert_eq!(lop3(0xf0, 0xcc, 0xaa, 0x33), !0xcc);
        assert_eq!(lop3(0xf0, 0xcc, 0xaa, 0x96), 0xf0 ^ 0xcc ^ 0xaa);
        assert_eq!(lop3(0xf0, 0xcc, 0xaa, 0xc0) & 0xff, 0xf0 & 0xcc);
        // I2F.U32.RP rounds up; F2I truncates and saturates.
        let up = f32::from_bits(i2f(0x0100_0001, IntTy::U32, FloatTy::F32, Round::Rp) as u32);
        assert!(up as f64 > 16_777_217.0 - 1.0 && up as u64 >= 0x0100_0001);
        assert_eq!(f2i(-3.7, IntTy::S32, Round::Rz) as u32 as i32, -3);
        assert_eq!(f2i(1e20, IntTy::U32, Round::Rz), u32::MAX as u64);
        assert_eq!(prmt(0x4433_2211, 0x3210, 0), 0x4433_2211);
        assert_eq!(prmt(0x4433_2211, 0x0123, 0), 0x1122_3344);
        assert_eq!(round_f32(1.0 + 1e-12, Round::Rp), next_up(1.0));
    }
}
