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
}

impl AddrMap {
    pub fn new(l2: &L2Config) -> Self {
        AddrMap {
            partitions: l2.partitions.max(1),
            subpartitions: l2.subpartitions.max(1),
            interleave: (l2.interleave_bytes.max(1) as u64).next_power_of_two(),
            index: l2.partition_index,
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
}
