//! Fuzz entry points for the Accel-Sim readers. Each takes arbitrary bytes, must never panic,
//! hang or allocate without bound on bad input, and checks an invariant on good input: what
//! the reader accepts, the writer renders, and reading that back gives the same model.
//!
//! They are driven by `cargo fuzz` (see `crate/fuzz/README.md`) and, on stable, by the seeded
//! mutation test `fuzz_mutation_loop` (ignored by default; run it with `--ignored`). Kernels are
//! read leniently (unknown opcodes and missing blocks accepted) so that the round trip covers
//! them; the strict checks are plain functions of what was read (`trace::check`).

use std::sync::Arc;

use crate::trace::model::{KernelInfo, KernelTrace};
use crate::trace::opcodes::Arch;

use super::{
    kernel_to_text, parse_kernelslist, read_kernel_bytes_with, AccelSimTrace, OpenOptions,
};
use crate::trace::check::Policy;

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

/// `k` as the text writer keeps it: at most [`super::writer::TEXT_MAX_DST`] destination and
/// [`super::writer::TEXT_MAX_SRC`] source registers per instruction (what the tracer records
/// and Accel-Sim's reader takes), and a memory instruction with no active lane at its opcode's
/// width (as the tracer prints it).
fn as_written(k: &KernelTrace) -> KernelTrace {
    use super::writer::{traced_as_memory, width_from_opcode, TEXT_MAX_DST, TEXT_MAX_SRC};
    let mut k = k.clone();
    for c in &mut k.ctas {
        for w in &mut c.warps {
            for i in &mut w.insts {
                i.ndst = i.ndst.min(TEXT_MAX_DST as u8);
                for r in i.dst.iter_mut().skip(TEXT_MAX_DST) {
                    *r = Default::default();
                }
                i.nsrc = i.nsrc.min(TEXT_MAX_SRC as u8);
                for r in i.src.iter_mut().skip(TEXT_MAX_SRC) {
                    *r = Default::default();
                }
                let op = k.ops.get(i.op);
                if i.mem_width == 0 && i.mask == 0 && traced_as_memory(op) {
                    i.mem_width = width_from_opcode(&op.name);
                }
            }
        }
    }
    k
}

fn round_trip(k: &KernelTrace, name: &str) {
    let k = &as_written(k);
    let text = kernel_to_text(k).expect("writing an accepted kernel");
    let back =
        read_kernel_bytes_with(&text, name, Arch::Volta, Policy::LENIENT).unwrap_or_else(|e| {
            panic!(
                "re-reading written text failed: {e}\n{}",
                String::from_utf8_lossy(&text)
            )
        });
    assert!(
        kernels_equal(k, &back),
        "round trip changed the kernel:\n{}",
        String::from_utf8_lossy(&text)
    );
}

/// A `.traceg` kernel file (plain or compressed).
pub fn fuzz_text_trace(data: &[u8]) {
    if let Ok(k) = read_kernel_bytes_with(data, "fuzz.traceg", Arch::Volta, Policy::LENIENT) {
        round_trip(&k, "fuzz.traceg");
    }
}

/// A raw `.trace` kernel file.
pub fn fuzz_raw_trace(data: &[u8]) {
    if let Ok(k) = read_kernel_bytes_with(data, "fuzz.trace", Arch::Ampere, Policy::LENIENT) {
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

/// A small `.traceg` exercising every address mode, lineinfo and immediates.
const SEED_V5: &str = "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n-nregs = 8\n-binary version = 75\n-cuda stream id = 0\n-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007f0010000000\n-nvbit version = 1.5.5\n-accelsim tracer version = 5\n-enable lineinfo = 1\n\n#traces format = x\n\n\n\n#BEGIN_TB\n\nthread block = 1,0,0\n\nwarp = 0\ninsts = 4\n7 0010 ffffffff 1 R2 LDG.E.SYS 1 R4 4 1 0x7f0020000000 4 0 \n8 0020 0000000f 1 R3 LD.E.64 1 R4 8 0 0x1000 0x1010 0x1008 0xff0 -3 \n9 0030 00000505 0 STG.E 2 R4 R3 4 2 0x2000 -16 48 -8 12 \n9 0050 ffffffff 0 EXIT 0 0 0 \n\nwarp = 1\ninsts = 1\n3 0010 80000000 1 R2 LDS.U.32 1 UR4 4 2 0x40 0 \n\n#END_TB\n";

const SEED_V4: &str = "-kernel name = k\n-kernel id = 2\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-binary version = 61\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n#traces format = x\n\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n0008 ffffffff 1 R1 MOV 0 0 \n0098 0000000f 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500180 4 \n0058 00000000 0 EXIT 0 0 \n#END_TB\n";

const SEED_RAW: &str = "-kernel name = k\n-kernel id = 3\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-binary version = 80\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n#traces format = x\n\n1 0 0 1 0010 80000000 1 R2 LDS.U.32 1 R4 4 2 0x40 \n0 0 0 0 0010 ffffffff 0 NOP 0 0 \n1 0 0 0 0020 ffffffff 0 LDGSTS.E.128 2 R1 R2 16 1 0x100 16 \n1 0 0 0 0020 ffffffff 0 LDGSTS.E.128 2 R1 R2 16 1 0x7f0020001000 16 \n1 0 0 1 0050 ffffffff 0 EXIT 0 0 \n0 0 0 0 0050 ffffffff 0 EXIT 0 0 \n";

pub fn seeds_text() -> Vec<Vec<u8>> {
    vec![SEED_V5.as_bytes().to_vec(), SEED_V4.as_bytes().to_vec()]
}

pub fn seeds_raw() -> Vec<Vec<u8>> {
    vec![SEED_RAW.as_bytes().to_vec()]
}

pub fn seeds_kernelslist() -> Vec<Vec<u8>> {
    let mut v = b"MemcpyHtoD,0x00007f2b2d500000,400\nkernel-1.traceg\n".to_vec();
    v.push(0);
    v.extend_from_slice(SEED_V4.as_bytes());
    vec![v]
}
