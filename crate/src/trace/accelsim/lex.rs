//! Byte-level tokenising of trace lines: no `String` per token, no UTF-8 validation except for
//! opcodes and header values. Every failure names the file, line and field.

use crate::Error;

/// Where we are, for error messages.
#[derive(Clone, Copy, Debug)]
pub struct Ctx<'a> {
    pub file: &'a str,
    pub line: u64,
}

impl Ctx<'_> {
    pub fn err(&self, field: &str, msg: impl Into<String>) -> Error {
        Error::parse(self.file, self.line, field, msg)
    }
}

/// Space-separated tokens of one line.
pub struct Toks<'a> {
    b: &'a [u8],
    pos: usize,
}

#[inline]
fn is_space(c: u8) -> bool {
    c == b' ' || c == b'\t' || c == b'\r'
}

impl<'a> Toks<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Toks { b, pos: 0 }
    }

    #[inline]
    pub fn next_tok(&mut self) -> Option<&'a [u8]> {
        let b = self.b;
        let mut i = self.pos;
        while i < b.len() && is_space(b[i]) {
            i += 1;
        }
        if i == b.len() {
            self.pos = i;
            return None;
        }
        let start = i;
        while i < b.len() && !is_space(b[i]) {
            i += 1;
        }
        self.pos = i;
        Some(&b[start..i])
    }

    /// The next token, or an error saying `field` is missing.
    #[inline]
    pub fn req(&mut self, ctx: &Ctx, field: &str) -> crate::Result<&'a [u8]> {
        self.next_tok()
            .ok_or_else(|| ctx.err(field, "missing (line ends too early)"))
    }

    pub fn is_empty(&mut self) -> bool {
        let save = self.pos;
        let r = self.next_tok().is_none();
        self.pos = save;
        r
    }
}

/// Shows a token in an error message (lossy, shortened).
pub fn show(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(&tok[..tok.len().min(40)]).into_owned();
    if tok.len() > 40 {
        format!("`{s}...`")
    } else {
        format!("`{s}`")
    }
}

/// Hexadecimal with an optional `0x` prefix, at most 16 digits.
#[inline]
pub fn hex(tok: &[u8], ctx: &Ctx, field: &str) -> crate::Result<u64> {
    let digits = tok
        .strip_prefix(b"0x")
        .or_else(|| tok.strip_prefix(b"0X"))
        .unwrap_or(tok);
    if digits.is_empty() || digits.len() > 16 {
        return Err(ctx.err(
            field,
            format!("expected a hexadecimal number, found {}", show(tok)),
        ));
    }
    let mut v: u64 = 0;
    for &c in digits {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => {
                return Err(ctx.err(
                    field,
                    format!("expected a hexadecimal number, found {}", show(tok)),
                ))
            }
        };
        v = (v << 4) | d as u64;
    }
    Ok(v)
}

/// Hexadecimal that must fit in 32 bits.
#[inline]
pub fn hex32(tok: &[u8], ctx: &Ctx, field: &str) -> crate::Result<u32> {
    let v = hex(tok, ctx, field)?;
    u32::try_from(v).map_err(|_| ctx.err(field, format!("{} does not fit in 32 bits", show(tok))))
}

/// Unsigned decimal.
#[inline]
pub fn dec(tok: &[u8], ctx: &Ctx, field: &str) -> crate::Result<u64> {
    if tok.is_empty() || tok.len() > 20 {
        return Err(ctx.err(
            field,
            format!("expected a decimal number, found {}", show(tok)),
        ));
    }
    let mut v: u64 = 0;
    for &c in tok {
        if !c.is_ascii_digit() {
            return Err(ctx.err(
                field,
                format!("expected a decimal number, found {}", show(tok)),
            ));
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add((c - b'0') as u64))
            .ok_or_else(|| ctx.err(field, format!("{} is too large", show(tok))))?;
    }
    Ok(v)
}

/// Unsigned decimal no larger than `max`.
#[inline]
pub fn dec_max(tok: &[u8], ctx: &Ctx, field: &str, max: u64) -> crate::Result<u64> {
    let v = dec(tok, ctx, field)?;
    if v > max {
        return Err(ctx.err(field, format!("{v} is out of range (at most {max})")));
    }
    Ok(v)
}

/// Signed decimal (an optional leading `-` or `+`), as a two's-complement 64-bit value.
#[inline]
pub fn signed(tok: &[u8], ctx: &Ctx, field: &str) -> crate::Result<i64> {
    let (neg, digits) = match tok.first() {
        Some(b'-') => (true, &tok[1..]),
        Some(b'+') => (false, &tok[1..]),
        _ => (false, tok),
    };
    let mag = dec(digits, ctx, field)?;
    if neg {
        if mag > 1u64 << 63 {
            return Err(ctx.err(field, format!("{} is out of range", show(tok))));
        }
        Ok((mag as i64).wrapping_neg())
    } else {
        i64::try_from(mag).map_err(|_| ctx.err(field, format!("{} is out of range", show(tok))))
    }
}

/// An immediate: signed or unsigned decimal, kept as 64 raw bits.
#[inline]
pub fn imm(tok: &[u8], ctx: &Ctx, field: &str) -> crate::Result<u64> {
    if tok.first() == Some(&b'-') {
        Ok(signed(tok, ctx, field)? as u64)
    } else {
        dec(tok, ctx, field)
    }
}

/// Trims ASCII whitespace (including `\r`) from both ends.
pub fn trim(b: &[u8]) -> &[u8] {
    let mut s = 0;
    let mut e = b.len();
    while s < e && b[s].is_ascii_whitespace() {
        s += 1;
    }
    while e > s && b[e - 1].is_ascii_whitespace() {
        e -= 1;
    }
    &b[s..e]
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: Ctx = Ctx { file: "f", line: 3 };

    #[test]
    fn numbers_parse_and_fail_with_the_field_named() {
        assert_eq!(hex(b"0x7f2b2d500000", &C, "a").unwrap(), 0x7f2b_2d50_0000);
        assert_eq!(hex(b"00a8", &C, "pc").unwrap(), 0xa8);
        assert_eq!(hex(b"FFFFFFFF", &C, "mask").unwrap(), 0xffff_ffff);
        assert!(hex(b"0x", &C, "a").is_err());
        assert!(hex(b"12g4", &C, "a").is_err());
        assert!(hex(b"0x11112222333344445", &C, "a").is_err());
        assert!(hex32(b"100000000", &C, "mask").is_err());
        assert_eq!(dec(b"18446744073709551615", &C, "n").unwrap(), u64::MAX);
        assert!(dec(b"18446744073709551616", &C, "n").is_err());
        assert_eq!(signed(b"-16", &C, "d").unwrap(), -16);
        assert_eq!(signed(b"-9223372036854775808", &C, "d").unwrap(), i64::MIN);
        assert!(signed(b"9223372036854775808", &C, "d").is_err());
        assert_eq!(imm(b"-1", &C, "i").unwrap(), u64::MAX);
        let e = dec(b"1x", &C, "src_num").unwrap_err().to_string();
        assert_eq!(e, "f:3: src_num: expected a decimal number, found `1x`");
    }

    #[test]
    fn tokens_split_on_spaces_and_tabs() {
        let mut t = Toks::new(b"  0008 ffffffff\t1  R1 \r");
        assert_eq!(t.next_tok(), Some(&b"0008"[..]));
        assert_eq!(t.next_tok(), Some(&b"ffffffff"[..]));
        assert_eq!(t.next_tok(), Some(&b"1"[..]));
        assert!(!t.is_empty());
        assert_eq!(t.next_tok(), Some(&b"R1"[..]));
        assert!(t.is_empty());
        assert_eq!(t.next_tok(), None);
        assert_eq!(trim(b" \tab c\r\n"), b"ab c");
    }
}
