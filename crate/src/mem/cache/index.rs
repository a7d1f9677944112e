//! Set-index functions (seed 004 section 4.1, Figure 6): linear modulo, Accel-Sim's IPOLY
//! (Rau 1991: the line number as a GF(2) polynomial modulo an irreducible polynomial), and
//! seed 004's multiplicative (golden-ratio) hash. All three accept any set count.
//!
//! ```text
//!  line number ──┬─ linear:  n mod sets
//!                ├─ ipoly:   n(x) mod P(x), P of degree log2(sets)  (other set counts:
//!                │           degree + 8, then mod sets)
//!                └─ hash:    hi64((n * 0x9E3779B97F4A7C15) * sets)   (golden ratio, multiply-high)
//! ```

use std::sync::OnceLock;

use crate::config::IndexFn;

/// 2^64 / golden ratio, odd: Knuth's multiplicative hashing constant.
pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// Irreducible polynomials over GF(2) of degree 1..=20 (bit d set = x^d); from Peterson's table.
const IRREDUCIBLE: [u32; 21] = [
    0,
    0b11,
    0b111,
    0b1011,
    0b10011,
    0b100101,
    0b1000011,
    0b10001001,
    0b100011101,
    0b1000010001,
    0b10000001001,
    0b100000000101,
    0b1000001010011,
    0b10000000011011,
    0b100000000101011,
    0b1000000000000011,
    0b10001000000001011,
    0b100000000000001001,
    0b1000000000010000001,
    0b10000000000000100111,
    0b100000000000000001001,
];

/// `(b << 8j)(x) mod P(x)` for every byte value `b` and byte position `j` of a `u64`: GF(2)
/// remainders are linear (XOR in, XOR out), so `n mod P` is the XOR of one entry per byte of
/// `n`: eight loads instead of a loop over `n`'s bits above the degree (~30 of them for a
/// 40-bit line number; this runs once per cache access and address mapping).
struct ModTable([[u32; 256]; 8]);

/// The remainder table of the irreducible polynomial of degree `deg`, built on first use
/// (8 KiB each; a GPU uses two or three degrees).
fn mod_table(deg: u32) -> &'static ModTable {
    static TABLES: [OnceLock<Box<ModTable>>; 21] = [const { OnceLock::new() }; 21];
    TABLES[deg as usize].get_or_init(|| {
        let mut t = Box::new(ModTable([[0; 256]; 8]));
        for (j, row) in t.0.iter_mut().enumerate() {
            for (b, e) in row.iter_mut().enumerate() {
                *e = gf2_mod((b as u64) << (8 * j), deg) as u32;
            }
        }
        t
    })
}

/// `gf2_mod(n, deg)` by [`ModTable`] lookups (`deg` in 1..=20).
#[inline]
fn gf2_mod_table(n: u64, deg: u32) -> u64 {
    let t = &mod_table(deg).0;
    let mut r = 0u32;
    for (j, row) in t.iter().enumerate() {
        r ^= row[(n >> (8 * j)) as usize & 0xff];
    }
    r as u64
}

/// Remainder of `n(x)` divided by the irreducible polynomial of degree `deg` (bit by bit: the
/// reference the tables are built from).
#[inline]
fn gf2_mod(mut n: u64, deg: u32) -> u64 {
    let p = IRREDUCIBLE[deg as usize] as u64;
    if deg == 0 {
        return 0;
    }
    while n >> deg != 0 {
        let top = 63 - n.leading_zeros();
        n ^= p << (top - deg);
    }
    n
}

/// The set of line number `n` in a cache of `sets` sets.
#[inline]
pub fn set_index(f: IndexFn, n: u64, sets: u32) -> u32 {
    if sets <= 1 {
        return 0;
    }
    match f {
        IndexFn::Linear => (n % sets as u64) as u32,
        IndexFn::Ipoly => {
            let bits = 32 - (sets - 1).leading_zeros();
            if sets.is_power_of_two() {
                gf2_mod_table(n, bits.min(20)) as u32 & (sets - 1)
            } else {
                // Not a power of two: a remainder 8 bits wider, then modulo, so every set gets
                // within 1/256 of its share (a plain remainder mod 11 would give sets 0-4
                // twice the lines of sets 5-10).
                (gf2_mod_table(n, (bits + 8).min(20)) % sets as u64) as u32
            }
        }
        IndexFn::Hash => ((n.wrapping_mul(GOLDEN) as u128 * sets as u128) >> 64) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_equal_the_bitwise_remainder() {
        let mut x = 0x1234_5678_9abc_def1u64;
        for deg in 1..=20u32 {
            for i in 0..20_000u64 {
                // LCG values, small ones and every bit pattern of the low 16 bits.
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                for n in [x, x >> 24, i, i << 7, u64::MAX - i] {
                    assert_eq!(gf2_mod_table(n, deg), gf2_mod(n, deg), "n {n:#x} deg {deg}");
                }
            }
        }
    }

    #[test]
    fn linear_is_modulo_and_hashes_stay_in_range() {
        assert_eq!(set_index(IndexFn::Linear, 70, 64), 6);
        assert_eq!(set_index(IndexFn::Linear, 70, 48), 22);
        for f in [IndexFn::Ipoly, IndexFn::Hash] {
            for sets in [1u32, 3, 48, 64, 1000] {
                for n in 0..5000u64 {
                    assert!(set_index(f, n * 977, sets) < sets);
                }
            }
        }
    }

    #[test]
    fn ipoly_spreads_power_of_two_strides() {
        // Lines 64 apart all land in set 0 with a linear index of 64 sets; IPOLY hits
        // every set exactly once over 64 consecutive multiples (the stride property of IPOLY).
        let mut seen = [0u32; 64];
        for k in 0..64u64 {
            seen[set_index(IndexFn::Ipoly, k * 64, 64) as usize] += 1;
            assert_eq!(set_index(IndexFn::Linear, k * 64, 64), 0);
        }
        assert!(seen.iter().all(|&c| c == 1), "{seen:?}");
        // 11 sets (11 memory partitions): every set within 2% of its share.
        let mut n11 = [0u32; 11];
        for c in 0..110_000u64 {
            n11[set_index(IndexFn::Ipoly, c, 11) as usize] += 1;
        }
        assert!(n11.iter().all(|&c| c.abs_diff(10_000) < 200), "{n11:?}");
        // GF(2): x^6 mod (x^6 + x + 1) = x + 1.
        assert_eq!(gf2_mod(64, 6), 3);
    }

    #[test]
    fn table_polynomials_are_irreducible() {
        for (deg, &p) in IRREDUCIBLE.iter().enumerate().skip(1) {
            let p = p as u64;
            assert_eq!(63 - p.leading_zeros(), deg as u32);
            for d in 1..=deg / 2 {
                for q in (1u64 << d)..(1u64 << (d + 1)) {
                    // p mod q over GF(2)
                    let mut r = p;
                    while r != 0 && 63 - r.leading_zeros() >= d as u32 {
                        r ^= q << (63 - r.leading_zeros() - d as u32);
                    }
                    assert_ne!(r, 0, "degree {deg} polynomial {p:b} divisible by {q:b}");
                }
            }
        }
    }
}
