//! Fuzz entry points for the Accel-Sim readers. Each takes arbitrary bytes, must never panic,
//! hang or allocate without bound on bad input, and checks an invariant on good input: what
//! the reader accepts, the writer renders, and reading that back gives the same model.
//!
//! They are driven by `cargo fuzz` (see `crate/fuzz/README.md`) and, on stable, by the seeded
//! mutation test `fuzz_mutation_loop` (ignored by default; run it with `--ignored`).

use std::sync::Arc;

use crate::trace::model::{KernelInfo, KernelTrace};
use crate::trace::opcodes::Arch;

use super::{kernel_to_text, parse_kernelslist, read_kernel_bytes, AccelSimTrace, OpenOptions};

/// True when two kernels decode to the same thing: header (tracer versions before 3 are
/// written back as 4), blocks, warps, instructions with their opcode names, and addresses.
pub fn kernels_equal(a: &KernelTrace, b: &KernelTrace) -> bool {
    let norm = |i: &KernelInfo| {
        let mut i = i.clone();
        i.tracer_version = super::writer::layout_version(&i);
        i
    };
    if norm(&a.info) != norm(&b.info) || a.ctas.len() != b.ctas.len() {
        return false;
    }
    a.ctas.iter().zip(&b.ctas).all(|(ca, cb)| {
        ca.id == cb.id
            && ca.warps.len() == cb.warps.len()
            && ca.warps.iter().zip(&cb.warps).all(|(wa, wb)| {
                wa.warp_id == wb.warp_id
                    && wa.addrs == wb.addrs
                    && wa.insts.len() == wb.insts.len()
                    && wa.insts.iter().zip(&wb.insts).all(|(ia, ib)| {
                        let mut ib2 = *ib;
                        ib2.op = ia.op;
                        *ia == ib2 && a.ops.get(ia.op).name == b.ops.get(ib.op).name
                    })
            })
    })
}

fn round_trip(k: &KernelTrace, name: &str) {
    let text = kernel_to_text(k).expect("writing an accepted kernel");
    let back = read_kernel_bytes(&text, name, Arch::Volta)
        .unwrap_or_else(|e| panic!("re-reading written text failed: {e}\n{}", String::from_utf8_lossy(&text)));
    assert!(kernels_equal(k, &back), "round trip changed the kernel:\n{}", String::from_utf8_lossy(&text));
}

/// A `.traceg` kernel file (plain or compressed).
pub fn fuzz_text_trace(data: &[u8]) {
    if let Ok(k) = read_kernel_bytes(data, "fuzz.traceg", Arch::Volta) {
        round_trip(&k, "fuzz.traceg");
    }
}

/// A raw `.trace` kernel file.
pub fn fuzz_raw_trace(data: &[u8]) {
    if let Ok(k) = read_kernel_bytes(data, "fuzz.trace", Arch::Ampere) {
        round_trip(&k, "fuzz.traceg");
    }
}

/// A `kernelslist.g` with one kernel file: the first line of `data` up to a NUL byte is the
/// list, the rest is `kernel-1.traceg`.
pub fn fuzz_kernelslist(data: &[u8]) {
    let cut = data.iter().position(|&c| c == 0).unwrap_or(data.len());
    let _ = parse_kernelslist(&data[..cut], "kernelslist.g");
    let kernel = data.get(cut + 1..).unwrap_or(&[]);
    let files = vec![
        ("kernelslist.g".to_string(), Arc::<[u8]>::from(&data[..cut])),
        ("kernel-1.traceg".to_string(), Arc::<[u8]>::from(kernel)),
    ];
    if let Ok(mut t) = AccelSimTrace::from_files("fuzz", files, OpenOptions::default()) {
        let _ = crate::trace::model::MemTrace::collect(&mut t);
    }
}
