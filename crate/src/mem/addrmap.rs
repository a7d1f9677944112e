//! Address mapping from a global address to an L2 slice (memory partition x sub-partition)
//! and to the address inside that partition's DRAM channel.
//!
//! ```text
//!  addr ─> chunk = addr / interleave_bytes
//!          partition = index(chunk)  (linear: chunk mod P | ipoly | golden-ratio hash)
//!          sub       = (chunk / P) mod S          slice = partition * S + sub
//!          channel address = (chunk / P) * interleave + addr mod interleave
//! ```

use crate::config::{IndexFn, L2Config};
use crate::mem::cache::set_index;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddrMap {
    pub partitions: u32,
    pub subpartitions: u32,
    pub interleave: u64,
    pub index: IndexFn,
    /// Halves of the L2 (`l2.sides`): 1, or 2 (partitions `0..P/2` and `P/2..P`).
    pub sides: u32,
}

impl AddrMap {
    pub fn new(l2: &L2Config) -> Self {
        AddrMap {
            partitions: l2.partitions.max(1),
            subpartitions: l2.subpartitions.max(1),
            interleave: (l2.interleave_bytes.max(1) as u64).next_power_of_two(),
            index: l2.partition_index,
            sides: l2.sides.clamp(1, 2),
        }
    }
    /// The half of the L2 holding slice `slice` (0 with one half).
    #[inline]
    pub fn side_of_slice(&self, slice: u32) -> u32 {
        slice * self.sides / self.slices()
    }
    /// The slice in the other half at the same place (itself with one half): where a load
    /// from the other half looks for its copy of `slice`'s lines.
    #[inline]
    pub fn mirror(&self, slice: u32) -> u32 {
        let n = self.slices();
        if self.sides < 2 {
            slice
        } else {
            (slice + n / 2) % n
        }
    }
    pub fn slices(&self) -> u32 {
        self.partitions * self.subpartitions
    }
    #[inline]
    pub fn partition(&self, addr: u64) -> u32 {
        set_index(self.index, addr / self.interleave, self.partitions)
    }
    /// Global slice index (partition * subpartitions + sub).
    #[inline]
    pub fn slice(&self, addr: u64) -> u32 {
        let chunk = addr / self.interleave;
        let sub = ((chunk / self.partitions as u64) % self.subpartitions as u64) as u32;
        self.partition(addr) * self.subpartitions + sub
    }
    /// The address within the partition's DRAM channel.
    #[inline]
    pub fn channel_addr(&self, addr: u64) -> u64 {
        let chunk = addr / self.interleave;
        (chunk / self.partitions as u64) * self.interleave + addr % self.interleave
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_mapping_interleaves_chunks() {
        let m = AddrMap {
            partitions: 4,
            subpartitions: 2,
            interleave: 256,
            index: IndexFn::Linear,
            sides: 1,
        };
        let slices: Vec<u32> = (0..10u64).map(|k| m.slice(k * 256)).collect();
        assert_eq!(slices, vec![0, 2, 4, 6, 1, 3, 5, 7, 0, 2]);
        assert_eq!(m.channel_addr(5 * 256 + 17), 256 + 17);
        // Hashed mapping covers every partition for a power-of-two stride.
        let h = AddrMap {
            index: IndexFn::Ipoly,
            ..m
        };
        let parts: std::collections::BTreeSet<u32> =
            (0..64u64).map(|k| h.partition(k * 4096)).collect();
        assert_eq!(parts.len(), 4);
        let l: std::collections::BTreeSet<u32> =
            (0..64u64).map(|k| m.partition(k * 4096)).collect();
        assert_eq!(l.len(), 1);
    }

    /// Two halves: slices 0-3 (partitions 0-1) and 4-7; a slice's mirror is the one at the
    /// same place in the other half. One half: every slice in half 0, its own mirror.
    #[test]
    fn halves_and_mirrors() {
        let m = AddrMap {
            partitions: 4,
            subpartitions: 2,
            interleave: 256,
            index: IndexFn::Linear,
            sides: 2,
        };
        let sides: Vec<u32> = (0..8).map(|s| m.side_of_slice(s)).collect();
        assert_eq!(sides, vec![0, 0, 0, 0, 1, 1, 1, 1]);
        let mirrors: Vec<u32> = (0..8).map(|s| m.mirror(s)).collect();
        assert_eq!(mirrors, vec![4, 5, 6, 7, 0, 1, 2, 3]);
        let one = AddrMap { sides: 1, ..m };
        assert!((0..8).all(|s| one.side_of_slice(s) == 0 && one.mirror(s) == s));
    }
}
