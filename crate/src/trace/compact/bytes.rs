//! Byte-level helpers of the compact format: LEB128 varints, zigzag, length-prefixed strings,
//! and a bounds-checked cursor whose every error names the field and the byte offset.
//!
//! ```text
//! varint: 7 bits per byte, low group first, high bit = "more follows" (at most 10 bytes)
//! zigzag: 0, -1, 1, -2, 2 ... -> 0, 1, 2, 3, 4 ...
//! string: varint length, then UTF-8 bytes
//! ```

use crate::{Error, Result};

/// Appends `v` as a LEB128 varint.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Maps a signed value to an unsigned one with small magnitudes first.
#[inline]
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[inline]
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Appends a signed value as a zigzag varint.
#[inline]
pub fn put_svarint(out: &mut Vec<u8>, v: i64) {
    put_varint(out, zigzag(v));
}

/// Appends a length-prefixed UTF-8 string.
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// A bounds-checked reader over one region of bytes. Errors name the source (`file`), the region
/// (`what`), the field being read and the absolute byte offset (`base + pos`).
pub struct Cur<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Absolute offset of `buf[0]` for error messages (file offset or offset in a chunk).
    base: u64,
    file: &'a str,
    what: &'a str,
}

impl<'a> Cur<'a> {
    pub fn new(buf: &'a [u8], base: u64, file: &'a str, what: &'a str) -> Self {
        Cur {
            buf,
            pos: 0,
            base,
            file,
            what,
        }
    }

    /// The error for `field` at the current position.
    #[cold]
    pub fn err(&self, field: &str, msg: impl Into<String>) -> Error {
        Error::parse(
            self.file,
            0,
            format!(
                "{} `{field}` at byte {}",
                self.what,
                self.base + self.pos as u64
            ),
            msg,
        )
    }

    /// The error for `field` at `back` bytes before the current position (a caller that took
    /// a run of bytes at once reports a fault in it where a byte-by-byte reader would be).
    #[cold]
    pub fn err_back(&self, back: usize, field: &str, msg: impl Into<String>) -> Error {
        Error::parse(
            self.file,
            0,
            format!(
                "{} `{field}` at byte {}",
                self.what,
                self.base + (self.pos - back) as u64
            ),
            msg,
        )
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    #[inline]
    pub fn u8(&mut self, field: &str) -> Result<u8> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.err(field, "unexpected end of data")),
        }
    }

    pub fn bytes(&mut self, n: usize, field: &str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.err(
                field,
                format!("needs {n} bytes, only {} left", self.remaining()),
            ));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn u32_le(&mut self, field: &str) -> Result<u32> {
        let b = self.bytes(4, field)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64_le(&mut self, field: &str) -> Result<u64> {
        let b = self.bytes(8, field)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    #[inline]
    pub fn varint(&mut self, field: &str) -> Result<u64> {
        // Fast path: one byte.
        if let Some(&b) = self.buf.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(b as u64);
            }
        }
        let start = self.pos;
        let mut v = 0u64;
        let mut shift = 0u32;
        loop {
            let b = match self.buf.get(self.pos) {
                Some(&b) => b,
                None => {
                    self.pos = start;
                    return Err(self.err(field, "truncated varint"));
                }
            };
            self.pos += 1;
            if shift == 63 && b > 1 {
                self.pos = start;
                return Err(self.err(field, "varint overflows 64 bits"));
            }
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    #[inline]
    pub fn svarint(&mut self, field: &str) -> Result<i64> {
        Ok(unzigzag(self.varint(field)?))
    }

    /// `n` zigzag varints as running sums from `start` (lane or raw address deltas), appended
    /// to `out`: a tight loop for one-byte deltas, [`Cur::varint`] (and its errors) otherwise.
    #[inline]
    pub fn svarint_sums(
        &mut self,
        n: usize,
        start: u64,
        out: &mut Vec<u64>,
        field: &str,
    ) -> Result<u64> {
        let at = out.len();
        out.resize(at + n, 0);
        let buf = self.buf;
        let mut pos = self.pos;
        let mut a = start;
        for d in &mut out[at..] {
            // One-byte varints (the common lane stride) without the general decoder.
            match buf.get(pos) {
                Some(&b) if b < 0x80 => {
                    a = a.wrapping_add(unzigzag(b as u64) as u64);
                    pos += 1;
                }
                _ => {
                    self.pos = pos;
                    match self.svarint(field) {
                        Ok(v) => a = a.wrapping_add(v as u64),
                        Err(e) => {
                            out.truncate(at);
                            return Err(e);
                        }
                    }
                    pos = self.pos;
                }
            }
            *d = a;
        }
        self.pos = pos;
        Ok(a)
    }

    /// A varint that must fit in `u32`.
    #[inline]
    pub fn var_u32(&mut self, field: &str) -> Result<u32> {
        let v = self.varint(field)?;
        u32::try_from(v).map_err(|_| self.err(field, format!("value {v} exceeds 32 bits")))
    }

    /// A varint that must be at most `max`.
    pub fn var_max(&mut self, field: &str, max: u64) -> Result<u64> {
        let v = self.varint(field)?;
        if v > max {
            return Err(self.err(field, format!("value {v} exceeds the limit {max}")));
        }
        Ok(v)
    }

    /// A count of items each at least `min_bytes` long: capped by the bytes left, so a corrupt
    /// count can never make the reader allocate more than the input could hold.
    pub fn count(&mut self, field: &str, min_bytes: usize) -> Result<usize> {
        let v = self.varint(field)?;
        let cap = (self.remaining() / min_bytes.max(1)) as u64;
        if v > cap {
            return Err(self.err(
                field,
                format!(
                    "count {v} exceeds what the {} bytes left can hold",
                    self.remaining()
                ),
            ));
        }
        Ok(v as usize)
    }

    pub fn string(&mut self, field: &str) -> Result<String> {
        let n = self.varint(field)?;
        if n > self.remaining() as u64 {
            return Err(self.err(
                field,
                format!(
                    "string length {n} exceeds the {} bytes left",
                    self.remaining()
                ),
            ));
        }
        let b = self.bytes(n as usize, field)?;
        String::from_utf8(b.to_vec()).map_err(|_| self.err(field, "string is not valid UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_round_trip_and_lengths() {
        let vals = [
            0u64,
            1,
            127,
            128,
            300,
            16383,
            16384,
            u32::MAX as u64,
            u64::MAX,
        ];
        let lens = [1usize, 1, 1, 2, 2, 2, 3, 5, 10];
        for (&v, &l) in vals.iter().zip(&lens) {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            assert_eq!(b.len(), l, "{v}");
            let mut c = Cur::new(&b, 0, "t", "test");
            assert_eq!(c.varint("v").unwrap(), v);
            assert!(c.is_empty());
        }
    }

    /// Running sums of zigzag deltas: one- and multi-byte deltas mixed give what `svarint`
    /// one by one gives, and a truncated delta fails at the same offset.
    #[test]
    fn svarint_sums_equal_one_by_one() {
        let deltas = [4i64, 4, -60, 452, 4, 0, -1, 1 << 40, 3, -(1 << 20), 4];
        let mut b = Vec::new();
        for &d in &deltas {
            put_svarint(&mut b, d);
        }
        let mut out = vec![7];
        let mut c = Cur::new(&b, 0, "t", "test");
        let last = c.svarint_sums(deltas.len(), 1000, &mut out, "d").unwrap();
        let mut want = vec![7];
        let mut a = 1000u64;
        for &d in &deltas {
            a = a.wrapping_add(d as u64);
            want.push(a);
        }
        assert_eq!((out, last), (want, a));
        assert!(c.is_empty());
        let cut = &b[..b.len() - 5]; // inside the 1 << 20 delta
        let mut one = Cur::new(cut, 0, "t", "test");
        let e1 = (0..deltas.len())
            .find_map(|_| one.svarint("d").err())
            .unwrap();
        let mut run = Cur::new(cut, 0, "t", "test");
        let e2 = run
            .svarint_sums(deltas.len(), 0, &mut Vec::new(), "d")
            .unwrap_err();
        assert_eq!(e1.to_string(), e2.to_string());
    }

    #[test]
    fn zigzag_maps_small_magnitudes_first() {
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
        assert_eq!(zigzag(-2), 3);
        for v in [i64::MIN, -12345, 0, 99, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }

    #[test]
    fn errors_name_field_and_offset() {
        let b = [0x80u8, 0x80];
        let mut c = Cur::new(&b, 100, "f.wwt", "directory");
        let e = c.varint("kernel count").unwrap_err().to_string();
        assert_eq!(
            e,
            "f.wwt: directory `kernel count` at byte 100: truncated varint"
        );
        let over = [0xffu8; 10];
        let mut c = Cur::new(&over, 0, "f", "d");
        assert!(c.varint("x").unwrap_err().to_string().contains("overflows"));
        let big = [0x90u8, 0x4e]; // 10000
        let mut c = Cur::new(&big, 0, "f", "d");
        assert!(c
            .count("n", 1)
            .unwrap_err()
            .to_string()
            .contains("count 10000"));
    }
}
