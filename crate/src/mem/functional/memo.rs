//! A memo of coalescer results for the analytical paths (`fast`'s direct memory issue,
//! `core::mem_direct`, and the functional pre-pass, [`super::run_with`]): issue 6. Warps of a
//! kernel run the same memory instruction on addresses that differ by a multiple of the line
//! size (the warp's stride), and the coalescer's output then differs only by that offset.
//!
//! ```text
//!  access (pc, op, mask, width, shape, addr0)        regular shape, non-negative strides,
//!      │                                             all lanes' addresses present
//!      ├─ key = (pc, op, mask, width, shape, addr0 % line) ──> slot (pc / 8) % SLOTS
//!      │      hit:  the remembered lines, each address + (addr0 - remembered addr0)
//!      └──────────  miss: the coalescer, remembered in the slot
//! ```
//! Exact: with a regular shape the active lanes' addresses are `addr0 + f(shape, k)`, so two
//! accesses with equal keys have addresses that differ by one `delta`, a multiple of the line
//! size; the line requests (first-touch order, sectors, bytes, lanes, byte cover) are then
//! equal but for `addr + delta`. Negative strides are left out, so no address wraps around
//! the 64-bit space (where the coalescer would take another path).

use crate::mem::coalesce::LineReq;
use crate::mem::iface::MemRequest;
use crate::trace::AddrShape;

/// Memo slots (direct-mapped by `pc / 8`: instructions up to 512 B apart never share one).
pub const SLOTS: usize = 64;

/// A coalescer output whose addresses can be moved by a whole number of lines.
pub trait Shift: Copy {
    fn shift(&mut self, delta: u64);
}

impl Shift for LineReq {
    #[inline(always)]
    fn shift(&mut self, delta: u64) {
        self.addr = self.addr.wrapping_add(delta);
    }
}

impl Shift for MemRequest {
    #[inline(always)]
    fn shift(&mut self, delta: u64) {
        self.addr = self.addr.wrapping_add(delta);
    }
}

/// The first address of an access whose lanes are `addr0 + f(shape, k)` for all `k` below
/// `mask`'s lane count (a regular shape with non-negative strides, every address present,
/// none near the top of the 64-bit space: moving them all by a delta wraps none), or None.
/// Both memos key on where `addr0` lies in a period and move results by whole periods.
#[inline]
fn movable_base(mask: u32, shape: AddrShape, addrs: &[u64]) -> Option<u64> {
    let a0 = *addrs.first()?;
    let ok = shape.is_regular()
        && shape.stride >= 0
        && shape.stride2 >= 0
        && addrs.len() >= mask.count_ones() as usize
        && a0 < 1 << 62;
    ok.then_some(a0)
}

/// What the coalescer's output depends on, but for the first address's line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoKey {
    pub pc: u32,
    /// The caller's opcode bits (kind, space, store, flags: whatever its output depends on).
    pub op: u64,
    pub mask: u32,
    pub width: u32,
    pub shape: AddrShape,
    /// The first address modulo the line size.
    pub off: u64,
}

impl MemoKey {
    /// The key of an access (`addrs[k]` of the k-th set bit of `mask`), with its first
    /// address; `None` when the memo does not apply (irregular or negative shape, missing
    /// addresses, addresses near the top of the 64-bit space).
    #[inline]
    pub fn of(
        pc: u32,
        op: u64,
        mask: u32,
        width: u32,
        shape: AddrShape,
        addrs: &[u64],
        line_bytes: u64,
    ) -> Option<(MemoKey, u64)> {
        let a0 = movable_base(mask, shape, addrs)?;
        if line_bytes == 0 {
            return None;
        }
        Some((
            MemoKey {
                pc,
                op,
                mask,
                width,
                shape,
                off: a0 % line_bytes,
            },
            a0,
        ))
    }
}

#[derive(Clone, Debug, Default)]
struct Entry<T> {
    key: Option<MemoKey>,
    a0: u64,
    out: Vec<T>,
}

/// The memo: one remembered access per slot.
#[derive(Clone, Debug)]
pub struct Memo<T> {
    slots: Vec<Entry<T>>,
}

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Memo { slots: Vec::new() }
    }
}

impl<T: Shift> Memo<T> {
    #[inline]
    fn slot(pc: u32) -> usize {
        (pc as usize / 8) % SLOTS
    }

    /// The remembered output for `key` moved to `a0`, into `out` (cleared); false on a miss.
    #[inline]
    pub fn get(&self, key: &MemoKey, a0: u64, out: &mut Vec<T>) -> bool {
        let Some(e) = self.slots.get(Self::slot(key.pc)) else {
            return false;
        };
        if e.key.as_ref() != Some(key) {
            return false;
        }
        let delta = a0.wrapping_sub(e.a0);
        out.clear();
        out.extend(e.out.iter().map(|&r| {
            let mut r = r;
            r.shift(delta);
            r
        }));
        true
    }

    /// The output of an access with `key` ([`MemoKey::of`]) into `out`: the remembered one
    /// moved, or `compute`'s, remembered for the next; without a key, `compute`'s alone.
    #[inline]
    pub fn get_or(
        &mut self,
        key: Option<(MemoKey, u64)>,
        out: &mut Vec<T>,
        compute: impl FnOnce(&mut Vec<T>),
    ) {
        match key {
            Some((k, a0)) => {
                if !self.get(&k, a0, out) {
                    compute(out);
                    self.put(k, a0, out);
                }
            }
            None => compute(out),
        }
    }

    /// Remembers `out` as the output for `key` at `a0`.
    #[inline]
    pub fn put(&mut self, key: MemoKey, a0: u64, out: &[T]) {
        if self.slots.is_empty() {
            self.slots = (0..SLOTS)
                .map(|_| Entry {
                    key: None,
                    a0: 0,
                    out: Vec::new(),
                })
                .collect();
        }
        let e = &mut self.slots[Self::slot(key.pc)];
        e.key = Some(key);
        e.a0 = a0;
        e.out.clear();
        e.out.extend_from_slice(out);
    }
}

/// Shared-memory memo slots (direct-mapped by PC and the first address's offset).
pub const SHMEM_SLOTS: usize = 256;

/// A memo of [`shmem_access`](crate::mem::coalesce::shmem_access) results for the functional
/// pass. Banks repeat every `banks * bank_width` bytes, so moving every lane by a multiple of
/// that keeps each word's bank and which words are equal: with a regular non-negative shape
/// (lanes `addr0 + f(shape, k)`, none near the top of the 64-bit space), the result depends on
/// `addr0` only through `addr0 % period`. Matmul's tiles and reduction's halves read shared
/// memory at a few such offsets per PC, so most accesses are one lookup instead of a pass
/// over 32 lanes.
#[derive(Clone, Debug)]
pub struct ShmemMemo {
    slots: Vec<(ShmemKey, (u32, u32))>,
    period: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ShmemKey {
    /// 0 = empty slot (a real key has `lanes >= 1`).
    lanes: u32,
    pc: u32,
    width: u32,
    shape: AddrShape,
    off: u64,
}

impl ShmemMemo {
    /// A memo for `banks` banks of `bank_width` bytes (as `shmem_access` takes them).
    pub fn new(banks: u32, bank_width: u32) -> ShmemMemo {
        ShmemMemo {
            slots: Vec::new(),
            period: banks.max(1) as u64 * bank_width.max(1) as u64,
        }
    }

    /// `compute`'s `(wavefronts, distinct words)` for an access at `pc` (the first
    /// `mask.count_ones()` of `addrs`, of shape `shape`), or the remembered one for an equal key.
    #[inline]
    pub fn get_or(
        &mut self,
        pc: u32,
        mask: u32,
        width: u32,
        shape: AddrShape,
        addrs: &[u64],
        compute: impl FnOnce() -> (u32, u32),
    ) -> (u32, u32) {
        // (No lanes: no key, as `lanes == 0` marks an empty slot.)
        let Some(a0) = movable_base(mask, shape, addrs).filter(|_| mask != 0) else {
            return compute();
        };
        let key = ShmemKey {
            lanes: mask.count_ones(),
            pc,
            width,
            shape,
            off: a0 % self.period,
        };
        if self.slots.is_empty() {
            self.slots = vec![Default::default(); SHMEM_SLOTS];
        }
        let h = (pc as u64 / 8).wrapping_mul(0x9e37_79b9) ^ key.off;
        let e = &mut self.slots[h as usize % SHMEM_SLOTS];
        if e.0 != key {
            *e = (key, compute());
        }
        e.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::coalesce::{coalesce_access, WarpAccess};

    /// On seeded accesses (runs and strides of many shapes, masks with holes, widths 1..16,
    /// 128 B lines), a memo hit equals the coalescer's own output, and a hit happens exactly
    /// when the key (offset in the line included) repeats.
    #[test]
    fn memo_hits_equal_the_coalescer() {
        let mut memo = Memo::<LineReq>::default();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut hits, mut got, mut want) = (0, Vec::new(), Vec::new());
        // Twelve instructions (fixed mask, width, shape, store) run by warps whose bases are
        // lines apart or at odd offsets.
        let insts: Vec<(u32, u32, AddrShape, bool)> = (0..12)
            .map(|_| {
                let r = next();
                let mask = if r & 3 == 0 {
                    u32::MAX
                } else {
                    (r >> 32) as u32 | 1
                };
                let width = [1u32, 2, 4, 8, 16][(r >> 2) as usize % 5];
                let run = [32u8, 16, 8, 4][(r >> 5) as usize % 4];
                let stride = [0i32, 4, 8, 16, 128, 132][(r >> 7) as usize % 6];
                let stride2 = if run == 32 {
                    0
                } else {
                    [0i32, 64, 512, 4096][(r >> 10) as usize % 4]
                };
                (
                    mask,
                    width,
                    AddrShape {
                        run,
                        stride,
                        stride2,
                    },
                    r >> 30 & 1 == 1,
                )
            })
            .collect();
        for _ in 0..3000 {
            let r = next();
            let i = (r % 12) as usize;
            let (mask, width, shape, store) = insts[i];
            let odd = if (r >> 20) & 7 == 0 { 4 } else { 0 };
            let base = 0x7f00_0000_0000u64 + ((r >> 12) % 8) * 128 + odd;
            let n = mask.count_ones() as usize;
            let mut addrs = vec![0; n];
            shape.fill(base, &mut addrs);
            let a = WarpAccess {
                mask,
                addrs: &addrs,
                width,
                shape,
                store,
            };
            coalesce_access(&a, 128, 32, &mut want);
            let pc = i as u32 * 16;
            let (key, a0) = MemoKey::of(pc, store as u64, mask, width, shape, &addrs, 128)
                .expect("regular non-negative shape");
            if memo.get(&key, a0, &mut got) {
                hits += 1;
                assert_eq!(got, want, "{shape:?} mask {mask:x} width {width}");
            } else {
                memo.put(key, a0, &want);
            }
        }
        assert!(hits > 100, "{hits} hits");
        // Not memoised: a negative stride, an irregular shape, missing addresses.
        let neg = AddrShape {
            run: 32,
            stride: -4,
            stride2: 0,
        };
        assert!(MemoKey::of(0, 0, 3, 4, neg, &[0x1000, 0xffc], 128).is_none());
        assert!(MemoKey::of(0, 0, 3, 4, AddrShape::NONE, &[0x1000, 0x2000], 128).is_none());
        let one = AddrShape {
            run: 32,
            stride: 4,
            stride2: 0,
        };
        assert!(MemoKey::of(0, 0, 7, 4, one, &[0x1000, 0x1004], 128).is_none());
    }

    /// On seeded shared-memory accesses (many shapes, offsets, widths, lane counts; 32 banks
    /// of 4 B and 16 banks of 8 B), the memo's answer equals `shmem_access`'s, and it hits.
    #[test]
    fn shmem_memo_equals_shmem_access() {
        use crate::mem::coalesce::shmem_access;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for (banks, bw) in [(32u32, 4u32), (16, 8)] {
            let mut memo = ShmemMemo::new(banks, bw);
            let mut hits = 0;
            // Sixteen instructions (fixed mask, width, shape), at bases a few offsets apart.
            let insts: Vec<(u32, u32, AddrShape)> = (0..16)
                .map(|_| {
                    let r = next();
                    let mask = if r & 4 == 0 {
                        u32::MAX
                    } else {
                        (r >> 32) as u32 | 1
                    };
                    let width = [1u32, 2, 4, 8, 16][(r >> 3) as usize % 5];
                    let run = [32u8, 16, 8, 4][(r >> 6) as usize % 4];
                    let stride = [0i32, 4, 8, 12, 16, 128, 132, 260][(r >> 8) as usize % 8];
                    let stride2 = if run == 32 {
                        0
                    } else {
                        [0i32, 64, 512, 68][(r >> 11) as usize % 4]
                    };
                    let shape = AddrShape {
                        run,
                        stride,
                        stride2,
                    };
                    (mask, width, shape)
                })
                .collect();
            for _ in 0..20_000 {
                let r = next();
                let i = (r % 16) as usize;
                let (mask, width, shape) = insts[i];
                let pc = i as u32 * 16;
                let base = 0x1000 + ((r >> 14) % 8) * 4 + ((r >> 20) % 4) * 512;
                let n = mask.count_ones() as usize;
                let mut addrs = vec![0; n];
                shape.fill(base, &mut addrs);
                let want = shmem_access(mask, &addrs, width, banks, bw);
                let mut computed = false;
                let got = memo.get_or(pc, mask, width, shape, &addrs, || {
                    computed = true;
                    shmem_access(mask, &addrs, width, banks, bw)
                });
                hits += !computed as u32;
                assert_eq!(
                    got, want,
                    "{shape:?} mask {mask:x} width {width} base {base:#x}"
                );
            }
            assert!(hits > 1000, "{hits} hits");
        }
    }
}
