//! The shape of a memory instruction's lane addresses, recorded by every trace reader while it
//! expands them ([`TraceInst::shape`](crate::trace::TraceInst)), so the coalescer can make its
//! line requests from four numbers in O(lines) instead of looking at every lane.
//!
//! ```text
//!  active lane j (0..n, the j-th set bit of the mask) is at
//!      addr[j] = addr[0] + (j % run) * stride + (j / run) * stride2
//!
//!  unit stride    run 32, stride 4            a a+4 a+8 ... a+124
//!  broadcast      run 32, stride 0            a a a ... a
//!  two runs       run 16, stride 4, stride2 0 a .. a+60 | a .. a+60     (matmul's B row,
//!                                                         two C rows per warp)
//!  half broadcast run 16, stride 0, stride2 512  a x16 | a+512 x16      (matmul's A column)
//! ```
//! The shape is canonical: a function of the addresses alone ([`AddrShape::of`]), so two
//! readers of the same trace produce equal instructions. `run == 0` means no regular shape
//! (irregular lanes, strides beyond 32 bits, or an instruction built by hand): consumers then
//! use the addresses themselves.

/// The regular shape of a memory instruction's active-lane addresses (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AddrShape {
    /// Lanes per run (2..=32); 0 = no regular shape. A single stride is `run = 32`.
    pub run: u8,
    /// Bytes between neighbouring lanes of a run.
    pub stride: i32,
    /// Bytes between the first lanes of neighbouring runs (0 when `run = 32`).
    pub stride2: i32,
}

impl AddrShape {
    /// No regular shape: use the addresses.
    pub const NONE: AddrShape = AddrShape {
        run: 0,
        stride: 0,
        stride2: 0,
    };

    /// One stride for all lanes.
    pub const fn strided(stride: i32) -> AddrShape {
        AddrShape {
            run: 32,
            stride,
            stride2: 0,
        }
    }

    /// True when the shape describes the addresses.
    pub fn is_regular(&self) -> bool {
        self.run != 0
    }

    /// The canonical shape of `addrs` (one address per active lane, lowest lane first): a
    /// single stride when every step is the same, else runs of the length at which the first
    /// step changes, else [`AddrShape::NONE`]. Steps beyond 32 bits give `NONE`.
    pub fn of(addrs: &[u64]) -> AddrShape {
        let n = addrs.len();
        if n == 0 || n > 32 {
            return AddrShape::NONE;
        }
        if n == 1 {
            return AddrShape::strided(0);
        }
        let a0 = addrs[0];
        let Some(s) = step32(addrs[1].wrapping_sub(a0)) else {
            return AddrShape::NONE;
        };
        let su = s as i64 as u64;
        // The first run: as long as the step stays `s`.
        let mut run = 2;
        let mut a = addrs[1];
        while run < n && addrs[run] == a.wrapping_add(su) {
            a = addrs[run];
            run += 1;
        }
        if run == n {
            return AddrShape::strided(s);
        }
        let Some(s2) = step32(addrs[run].wrapping_sub(a0)) else {
            return AddrShape::NONE;
        };
        // The other runs, in one pass: each starts `s2` after the previous one's start.
        let s2u = s2 as i64 as u64;
        let mut first = a0;
        for r in addrs[run..].chunks(run) {
            first = first.wrapping_add(s2u);
            let mut a = first;
            for &x in r {
                if x != a {
                    return AddrShape::NONE;
                }
                a = a.wrapping_add(su);
            }
        }
        AddrShape {
            run: run as u8,
            stride: s,
            stride2: s2,
        }
    }

    /// Lane `j`'s offset from lane 0 (wrapping, as the addresses do).
    #[inline]
    pub fn offset(&self, j: u32) -> u64 {
        let r = self.run.max(1) as u32;
        ((j % r) as i64 * self.stride as i64).wrapping_add((j / r) as i64 * self.stride2 as i64)
            as u64
    }

    /// True when the shape is regular and gives exactly `addrs`.
    pub fn matches(&self, addrs: &[u64]) -> bool {
        let Some(&a0) = addrs.first() else {
            return false;
        };
        if !self.is_regular() {
            return false;
        }
        let (s, s2) = (self.stride as i64 as u64, self.stride2 as i64 as u64);
        let mut first = a0;
        for run in addrs.chunks(self.run as usize) {
            let mut a = first;
            for &x in run {
                if x != a {
                    return false;
                }
                a = a.wrapping_add(s);
            }
            first = first.wrapping_add(s2);
        }
        true
    }

    /// Writes the addresses of this (regular) shape from `base` into `dst` (one per lane).
    #[inline]
    pub fn fill(&self, base: u64, dst: &mut [u64]) {
        let (s, s2) = (self.stride as i64 as u64, self.stride2 as i64 as u64);
        let r = self.run.max(1) as usize;
        // Run by run: plain loops the compiler unrolls.
        let mut first = base;
        for run in dst.chunks_mut(r) {
            let mut a = first;
            for x in run {
                *x = a;
                a = a.wrapping_add(s);
            }
            first = first.wrapping_add(s2);
        }
    }

    /// Appends the `n` addresses of this (regular) shape from `base`: the decoders' expansion.
    #[inline]
    pub fn expand(&self, base: u64, n: usize, out: &mut Vec<u64>) {
        // For a warp's lanes on the stack and copied once (no zero fill of `out` first).
        if n <= 32 {
            let mut lanes = [0u64; 32];
            self.fill(base, &mut lanes[..n]);
            out.extend_from_slice(&lanes[..n]);
        } else {
            let at = out.len();
            out.resize(at + n, 0);
            self.fill(base, &mut out[at..]);
        }
    }
}

/// A 64-bit address step as a 32-bit signed stride, if it fits.
#[inline]
fn step32(d: u64) -> Option<i32> {
    i32::try_from(d as i64).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_shapes() {
        let unit: Vec<u64> = (0..32).map(|j| 0x1000 + 4 * j).collect();
        assert_eq!(AddrShape::of(&unit), AddrShape::strided(4));
        assert_eq!(AddrShape::of(&[7]), AddrShape::strided(0));
        assert_eq!(AddrShape::of(&[]), AddrShape::NONE);
        assert_eq!(AddrShape::of(&[9; 20]), AddrShape::strided(0));
        // Descending.
        let down: Vec<u64> = (0..5).map(|j| 0x1000 - 8 * j).collect();
        assert_eq!(AddrShape::of(&down), AddrShape::strided(-8));
        // matmul_naive's B row read by two C rows, and its A column (half-warp broadcasts).
        let b: Vec<u64> = (0..32).map(|j| 0x10000 + 4 * (j % 16)).collect();
        let want = AddrShape {
            run: 16,
            stride: 4,
            stride2: 0,
        };
        assert_eq!(AddrShape::of(&b), want);
        let a: Vec<u64> = (0..32).map(|j| 0x20000 + 512 * (j / 16)).collect();
        let want_a = AddrShape {
            run: 16,
            stride: 0,
            stride2: 512,
        };
        assert_eq!(AddrShape::of(&a), want_a);
        // A partial last run (24 lanes in runs of 16).
        assert_eq!(AddrShape::of(&b[..24]), want);
        // Irregular, and a step beyond 32 bits.
        assert_eq!(AddrShape::of(&[0, 4, 8, 100, 104, 200]), AddrShape::NONE);
        assert_eq!(AddrShape::of(&[0, 1 << 33]), AddrShape::NONE);
        // Wrapping below zero is a negative stride.
        assert_eq!(AddrShape::of(&[4, 0, u64::MAX - 3]), AddrShape::strided(-4));
        // Expansion gives the addresses back.
        for v in [&unit[..], &b, &a, &b[..24], &down, &[4, 0, u64::MAX - 3]] {
            let s = AddrShape::of(v);
            let mut out = Vec::new();
            s.expand(v[0], v.len(), &mut out);
            assert_eq!(out, v);
            assert!(s.matches(v));
        }
    }
}
