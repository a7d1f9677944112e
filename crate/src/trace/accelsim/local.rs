//! Local memory as the hardware lays it out, for NVBit traces.
//!
//! NVBit records a local load or store (`LDL`, `STL`) at the thread's own window offset: every
//! lane of a warp that spills `R7` records the same address, and so does every warp. Taken as
//! recorded, a warp's `STL` would touch one sector and every warp of every SM would share it.
//! The hardware interleaves local memory by 32-bit words across a warp's lanes (word `w` of
//! a thread's frame at `w * 128 + lane * 4`), so one warp-wide access of one offset covers
//! 128 consecutive bytes per word, and every warp has a region of its own. A 64- or 128-bit
//! access is laid out at its own width (lane `l` at `off * 32 + l * width`): the same lines
//! and sectors for the warp as the card's words 128 bytes apart. The Compute Sanitizer
//! importer lays local memory out the same way ([`crate::trace::sanitizer`]).
//!
//! ```text
//!  recorded:  lane 0..31  STL [0xfffcc0]           (one address)
//!  laid out:  LOCAL_LAYOUT_BASE + warp * REGION + (0xfcc0 / 4) * 128 + lane * 4
//! ```
//! The frame offset is the address's low 16 bits (a thread's frame under 64 KiB, as CUDA's
//! default stack of 1 KiB is); addresses already laid out (at or above
//! [`LOCAL_LAYOUT_BASE`], above every device pointer) are kept, so a trace converted to the
//! compact format and back reads the same.

use crate::trace::model::{AddrShape, CtaTrace, Dim3, MemSpace, OpTable};

/// Where laid-out local memory starts: above the 48-bit virtual addresses device pointers use.
pub const LOCAL_LAYOUT_BASE: u64 = 1 << 48;
/// Bytes of a thread's frame kept from a recorded address.
const FRAME: u64 = 1 << 16;
/// Bytes of one warp's region: 32 interleaved frames.
const REGION: u64 = 32 * FRAME;

/// Rewrites the addresses of every local-space instruction of `cta` (of a grid `grid`) to
/// the interleaved layout. Returns whether anything changed.
pub fn lay_out(cta: &mut CtaTrace, grid: Dim3, ops: &OpTable) -> bool {
    let warps = cta.warps.len() as u64;
    let cta_lin = grid.linear(cta.id);
    let mut changed = false;
    for w in &mut cta.warps {
        let region = LOCAL_LAYOUT_BASE + (cta_lin * warps + w.warp_id as u64) * REGION;
        for inst in &mut w.insts {
            if inst.mem_width == 0 || ops.get(inst.op).space != MemSpace::Local {
                continue;
            }
            let start = inst.addr_start as usize;
            let n = (inst.mask.count_ones() as usize).min(w.addrs.len().saturating_sub(start));
            // The interleaving granule: 4 bytes, or the access's width for 64- and 128-bit
            // accesses (whose lanes' words lie 128 bytes apart on the card; one span per lane
            // here, the same lines and sectors for the warp).
            let g = (inst.mem_width as u64).clamp(4, 16).next_power_of_two();
            let mut lanes = inst.mask;
            let addrs = &mut w.addrs[start..start + n];
            for a in addrs.iter_mut() {
                let lane = lanes.trailing_zeros() as u64;
                lanes &= lanes - 1;
                if *a >= LOCAL_LAYOUT_BASE {
                    continue;
                }
                let rel = *a % FRAME;
                *a = region + (rel / g) * 32 * g + lane * g + rel % g;
                changed = true;
            }
            inst.shape = AddrShape::of(addrs);
        }
    }
    changed
}
