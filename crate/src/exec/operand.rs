//! One SASS operand as `cuobjdump -sass` prints it, parsed into its parts:
//!
//! ```text
//!  R4  R4.reuse  -R7  |R5|  -|R5|  ~R3  RZ      register (255 = RZ), with modifiers
//!  R2.H0_H0  R2.H1  R0.F32                      half selection of a register
//!  UR4  URZ  -UR9                               uniform register (63 = URZ)
//!  P0  !P1  PT  UP0  UPT                        (uniform) predicate (7 = PT)
//!  0x1f  -0x4  3  1.5  -QNAN  +INF  1e-38       literal (its meaning depends on the opcode)
//!  c[0x0][0x210]  c[0x0][RZ]  c[0x0][R2+0x8]    constant bank reference
//!  [R4.64+0x8]  desc[UR4][R2.64]  [R2+UR4+0x10]  [R5.X4]  memory address
//!  SR_TID.X  SR_CLOCKLO  SRZ                    special register
//!  B0                                           convergence barrier
//! ```

/// A literal number, kept in both readings: integer opcodes take `int`, floating-point ones
/// take `float` (or the raw bits of `int` when the literal was written in hex).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lit {
    /// The value as a two's-complement integer (0 when the text is not an integer).
    pub int: i64,
    /// The value as a real number.
    pub float: f64,
    /// Written as `0x...`.
    pub hex: bool,
    /// Written as an integer (hex or decimal digits only).
    pub integral: bool,
}

/// Register part of an address or constant-bank index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddrReg {
    /// Register number (255 = RZ) or uniform register number (63 = URZ).
    pub n: u8,
    pub uniform: bool,
    /// `.64`: the register pair holds a 64-bit address.
    pub wide: bool,
    /// `.X4`, `.X8`, `.X16`: scaled by this factor (1 when absent).
    pub scale: u8,
    /// `.U32`: zero-extended 32-bit offset.
    pub u32: bool,
}

/// What an operand names.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Reg(u8),
    UReg(u8),
    Pred(u8),
    UPred(u8),
    Lit(Lit),
    /// `c[bank][reg + off]`.
    Const {
        bank: u8,
        reg: Option<AddrReg>,
        off: i64,
    },
    /// `[reg + ureg + off]`, `desc[URx]` dropped.
    Mem {
        reg: Option<AddrReg>,
        ureg: Option<AddrReg>,
        off: i64,
    },
    /// `SR_*` (or `SRZ`).
    Special(String),
    /// `B0`..`B15`.
    Barrier(u8),
}

/// Half-word selection of a register operand of a packed-half instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HalfSel {
    /// Both halves as they are.
    #[default]
    H1H0,
    /// The low half in both positions.
    H0H0,
    /// The high half in both positions.
    H1H1,
    /// A single f32 register read as two equal halves (`.F32`).
    F32,
}

/// One operand with its modifiers.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub kind: Kind,
    /// `-x`
    pub neg: bool,
    /// `|x|`
    pub abs: bool,
    /// `~x` or `!P`
    pub not: bool,
    /// `.64` on a register (a pair).
    pub wide: bool,
    pub half: HalfSel,
}

impl Operand {
    pub fn is_zero_reg(&self) -> bool {
        matches!(self.kind, Kind::Reg(255) | Kind::UReg(63))
    }
}

/// Parses one operand; the error says what was expected.
pub fn parse(text: &str) -> Result<Operand, String> {
    let mut t = text.trim();
    let mut op = Operand {
        kind: Kind::Reg(255),
        neg: false,
        abs: false,
        not: false,
        wide: false,
        half: HalfSel::H1H0,
    };
    // Leading modifiers.
    loop {
        if let Some(r) = t.strip_prefix('-') {
            // A negative literal keeps its sign in the number.
            if r.starts_with(|c: char| c.is_ascii_digit())
                || r.starts_with("QNAN")
                || r.starts_with("INF")
            {
                break;
            }
            op.neg = true;
            t = r;
        } else if let Some(r) = t.strip_prefix('~') {
            op.not = true;
            t = r;
        } else if let Some(r) = t.strip_prefix('!') {
            op.not = true;
            t = r;
        } else if let Some(r) = t.strip_prefix('|') {
            op.abs = true;
            t = r
                .strip_suffix('|')
                .ok_or_else(|| format!("\"{text}\": unclosed |...|"))?;
        } else {
            break;
        }
    }
    let t = t.replace(".reuse", "");
    let t = t.as_str();
    if t.starts_with('[') || t.starts_with("desc[") {
        op.kind = mem(t).map_err(|m| format!("\"{text}\": {m}"))?;
        return Ok(op);
    }
    if let Some(rest) = t.strip_prefix("c[") {
        op.kind = constant(rest).map_err(|m| format!("\"{text}\": {m}"))?;
        return Ok(op);
    }
    if t.starts_with("SR_") || t == "SRZ" {
        op.kind = Kind::Special(t.to_string());
        return Ok(op);
    }
    let (base, suffix) = match t.find('.') {
        Some(i) if t.starts_with(|c: char| c.is_ascii_alphabetic()) => (&t[..i], &t[i + 1..]),
        _ => (t, ""),
    };
    if let Some(k) = register(base) {
        op.kind = k;
        for s in suffix.split('.').filter(|s| !s.is_empty()) {
            match s {
                "64" => op.wide = true,
                "H0_H0" => op.half = HalfSel::H0H0,
                "H1_H1" => op.half = HalfSel::H1H1,
                "F32" => op.half = HalfSel::F32,
                "H0" | "B0" | "B1" | "B2" | "B3" | "H1" | "U32" | "X4" => {
                    return Err(format!(
                        "\"{text}\": the register modifier .{s} is not supported"
                    ));
                }
                _ => return Err(format!("\"{text}\": unknown register modifier .{s}")),
            }
        }
        return Ok(op);
    }
    if let Some(n) = t.strip_prefix('B').and_then(|n| n.parse::<u8>().ok()) {
        if n < 16 {
            op.kind = Kind::Barrier(n);
            return Ok(op);
        }
    }
    if let Some(l) = literal(t) {
        op.kind = Kind::Lit(l);
        return Ok(op);
    }
    Err(format!("\"{text}\": not an operand this executor reads"))
}

/// `R12`, `RZ`, `UR4`, `URZ`, `P0`, `PT`, `UP1`, `UPT`.
fn register(s: &str) -> Option<Kind> {
    match s {
        "RZ" => return Some(Kind::Reg(255)),
        "URZ" => return Some(Kind::UReg(63)),
        "PT" => return Some(Kind::Pred(7)),
        "UPT" => return Some(Kind::UPred(7)),
        _ => {}
    }
    let num = |p: &str, max: u32| -> Option<u8> {
        let d = s.strip_prefix(p)?;
        if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        d.parse::<u32>().ok().filter(|&n| n < max).map(|n| n as u8)
    };
    if let Some(n) = num("UR", 63) {
        return Some(Kind::UReg(n));
    }
    if let Some(n) = num("UP", 7) {
        return Some(Kind::UPred(n));
    }
    if let Some(n) = num("R", 255) {
        return Some(Kind::Reg(n));
    }
    if let Some(n) = num("P", 7) {
        return Some(Kind::Pred(n));
    }
    None
}

/// Integer or real literal: `0x1f`, `-0x4`, `12`, `1.5`, `-2.5e-08`, `+INF`, `-QNAN`.
pub fn literal(s: &str) -> Option<Lit> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let sign = if neg { -1.0 } else { 1.0 };
    if let Some(h) = body.strip_prefix("0x") {
        let v = u64::from_str_radix(h, 16).ok()?;
        let int = if neg {
            (v as i64).wrapping_neg()
        } else {
            v as i64
        };
        return Some(Lit {
            int,
            float: int as f64,
            hex: true,
            integral: true,
        });
    }
    match body {
        "INF" => return Some(lit_f(sign * f64::INFINITY)),
        "QNAN" | "NAN" => return Some(lit_f(f64::NAN)),
        _ => {}
    }
    if !body.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if body.bytes().all(|b| b.is_ascii_digit()) {
        let v: i64 = body.parse().ok()?;
        let int = if neg { -v } else { v };
        return Some(Lit {
            int,
            float: int as f64,
            hex: false,
            integral: true,
        });
    }
    let f: f64 = body.parse().ok()?;
    Some(lit_f(sign * f))
}

fn lit_f(f: f64) -> Lit {
    Lit {
        int: 0,
        float: f,
        hex: false,
        integral: false,
    }
}

/// A signed hex or decimal offset (`0x10`, `-0x4`).
fn offset(s: &str) -> Option<i64> {
    let l = literal(s)?;
    l.integral.then_some(l.int)
}

/// `R2.64`, `R5.X4`, `UR4`, `R3.U32`: a register in an address.
fn addr_reg(s: &str) -> Option<AddrReg> {
    let mut parts = s.split('.');
    let base = parts.next()?;
    let (n, uniform) = match register(base)? {
        Kind::Reg(n) => (n, false),
        Kind::UReg(n) => (n, true),
        _ => return None,
    };
    let mut r = AddrReg {
        n,
        uniform,
        wide: false,
        scale: 1,
        u32: false,
    };
    for p in parts {
        match p {
            "64" => r.wide = true,
            "U32" => r.u32 = true,
            "X4" => r.scale = 4,
            "X8" => r.scale = 8,
            "X16" => r.scale = 16,
            _ => return None,
        }
    }
    Some(r)
}

/// `[R4.64+0x8]`, `desc[UR4][R2.64+-0x4]`, `[UR4+0x10]`, `[R2+UR4]`.
fn mem(t: &str) -> Result<Kind, String> {
    let t = match t.strip_prefix("desc[") {
        Some(r) => &r[r.find(']').ok_or("unclosed desc[")? + 1..],
        None => t,
    };
    let inner = t
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or("expected [address]")?;
    let (mut reg, mut ureg, mut off) = (None, None, 0i64);
    for term in split_terms(inner) {
        if term.is_empty() {
            continue;
        }
        if let Some(v) = offset(term) {
            off = off.wrapping_add(v);
        } else if let Some(r) = addr_reg(term) {
            if r.uniform && ureg.is_none() {
                ureg = Some(r);
            } else if !r.uniform && reg.is_none() {
                reg = Some(r);
            } else {
                return Err(format!("unexpected register {term} in the address"));
            }
        } else {
            return Err(format!("unexpected term {term} in the address"));
        }
    }
    Ok(Kind::Mem { reg, ureg, off })
}

/// Splits `R2+UR4+-0x4` at `+` (a `-` after `+` stays with its number).
fn split_terms(s: &str) -> impl Iterator<Item = &str> {
    s.split('+').map(str::trim)
}

/// `0x0][0x210]`, `0x0][RZ]`, `0x3][R2+0x8]` (after `c[`).
fn constant(rest: &str) -> Result<Kind, String> {
    let (bank, tail) = rest.split_once("][").ok_or("expected c[bank][offset]")?;
    let bank = offset(bank)
        .filter(|b| (0..32).contains(b))
        .ok_or("expected a constant bank number")? as u8;
    let inner = tail.strip_suffix(']').ok_or("unclosed c[..][..]")?;
    let (mut reg, mut off) = (None, 0i64);
    for term in split_terms(inner) {
        if let Some(v) = offset(term) {
            off = off.wrapping_add(v);
        } else if let Some(r) = addr_reg(term) {
            reg = Some(r);
        } else {
            return Err(format!("unexpected term {term} in the constant offset"));
        }
    }
    Ok(Kind::Const { bank, reg, off })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_of_every_form_parse() {
        assert_eq!(parse("R4.reuse").unwrap().kind, Kind::Reg(4));
        assert_eq!(parse("RZ").unwrap().kind, Kind::Reg(255));
        let o = parse("-|R5|").unwrap();
        assert!(o.neg && o.abs);
        assert_eq!(parse("!P0").unwrap().kind, Kind::Pred(0));
        assert!(parse("!P0").unwrap().not);
        assert_eq!(parse("UPT").unwrap().kind, Kind::UPred(7));
        let l = parse("-0x4").unwrap();
        assert!(matches!(
            l.kind,
            Kind::Lit(Lit {
                int: -4,
                hex: true,
                ..
            })
        ));
        assert!(!l.neg);
        let f = parse("2.384185791015625e-07").unwrap();
        assert!(matches!(
            f.kind,
            Kind::Lit(Lit {
                integral: false,
                ..
            })
        ));
        assert!(matches!(parse("-QNAN").unwrap().kind, Kind::Lit(_)));
        assert_eq!(
            parse("c[0x0][0x210]").unwrap().kind,
            Kind::Const {
                bank: 0,
                reg: None,
                off: 0x210
            }
        );
        match parse("desc[UR6][R8.64+0x1c]").unwrap().kind {
            Kind::Mem {
                reg: Some(r),
                ureg: None,
                off: 0x1c,
            } => assert!(r.wide && r.n == 8),
            k => panic!("{k:?}"),
        }
        match parse("[R2+UR4+-0x4]").unwrap().kind {
            Kind::Mem {
                reg: Some(r),
                ureg: Some(u),
                off: -4,
            } => assert!(r.n == 2 && u.n == 4),
            k => panic!("{k:?}"),
        }
        assert_eq!(parse("R2.H1_H1").unwrap().half, HalfSel::H1H1);
        assert_eq!(parse("B0").unwrap().kind, Kind::Barrier(0));
        assert!(parse("R2.BOGUS").is_err());
        assert!(parse("what").is_err());
    }
}
