//! The three real traces (ignored unless `../shared/real-traces` is there: `scripts/test.sh`
//! runs them when it is): counts, opcodes, and the writer reproducing each file byte for byte.

use super::tests::real;
use super::*;
use crate::trace::model::{Command, Dim3, TraceSource};
use crate::trace::opcodes::Arch;

fn open_real(dir: &str, default_arch: Arch) -> AccelSimTrace {
    AccelSimTrace::open(
        real(dir),
        OpenOptions {
            default_arch,
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
#[ignore = "needs ../shared/real-traces"]
fn real_vectoradd() {
    let mut t = open_real("microgpusim-vectoradd-100-32", Arch::Ampere);
    assert_eq!(t.commands().len(), 4);
    assert_eq!(
        t.commands()[0],
        Command::MemcpyHtoD {
            addr: 0x7f2b_2d50_0000,
            bytes: 400
        }
    );
    assert_eq!(t.commands()[3], Command::Kernel { index: 0 });
    assert_eq!(t.arch_of(0), Arch::Pascal);
    let mut s = t.open_kernel(0).unwrap();
    let k = KernelTrace::collect(&mut *s).unwrap();
    drop(s);
    assert_eq!(k.warp_insts(), 344);
    assert_eq!(k.ctas.len(), 1);
    let ws = &k.ctas[0].warps;
    assert_eq!(ws.len(), 32);
    assert_eq!(ws[0].insts.len(), 23);
    assert_eq!(ws[3].insts.len(), 23);
    assert_eq!(ws[4].insts.len(), 9);
    // Zero mask: the EXIT at 0x58 that the in-range warps jump over.
    let z = ws[0].insts[8];
    assert_eq!(
        (z.pc, z.mask, k.ops.get(z.op).name.as_str()),
        (0x58, 0, "EXIT")
    );
    // Partial mask: warp 3 after the bounds check runs lanes 0..3 only.
    let ld = ws[3].insts[14];
    assert_eq!((ld.pc, ld.mask, ld.mem_width), (0x98, 0xf, 4));
    let a: Vec<(u32, u64)> = ws[3].lane_addrs(&ld).collect();
    assert_eq!(
        a,
        vec![
            (0, 0x7f2b_2d50_0180),
            (1, 0x7f2b_2d50_0184),
            (2, 0x7f2b_2d50_0188),
            (3, 0x7f2b_2d50_018c)
        ]
    );
    // Base + stride on a full warp.
    let a: Vec<(u32, u64)> = ws[0].lane_addrs(&ws[0].insts[14]).collect();
    assert_eq!(
        (a[0], a[31]),
        ((0, 0x7f2b_2d50_0000), (31, 0x7f2b_2d50_007c))
    );
    assert!(k.ops.iter().all(|(_, o)| !o.unknown));
}

#[test]
#[ignore = "needs ../shared/real-traces"]
fn real_matrixmul_and_my_app_counts() {
    let mut t = open_real("microgpusim-matrixmul-32-32", Arch::Ampere);
    let m = crate::trace::model::MemTrace::collect(&mut t).unwrap();
    assert_eq!(m.kernels[0].warp_insts(), 4416);
    assert_eq!(m.kernels[0].ctas[0].warps.len(), 32);
    assert!(m.kernels[0].ops.iter().all(|(_, o)| !o.unknown));

    // Binary version 0: the caller's default architecture is used.
    let mut t = open_real("accelsim-my_app", Arch::Ampere);
    assert_eq!(t.kernel_info(0).binary_version, 0);
    assert_eq!(t.arch_of(0), Arch::Ampere);
    assert_eq!(
        open_real("accelsim-my_app", Arch::Volta).arch_of(0),
        Arch::Volta
    );
    let m = crate::trace::model::MemTrace::collect(&mut t).unwrap();
    let k = &m.kernels[0];
    assert_eq!(k.info.tracer_version, 5);
    assert_eq!(k.info.id, 593);
    assert_eq!(k.ctas.len(), 55);
    assert_eq!(k.warp_insts(), 7260);
    assert_eq!(k.ctas[54].id, Dim3::new(54, 0, 0));
    let w = &k.ctas[0].warps[0];
    assert!(w.insts.iter().all(|i| i.has_imm()));
    assert_eq!(w.insts[2].imm, 10);
    assert_eq!(w.insts[5].imm, 528);
    let ld = w.insts[10];
    assert_eq!(k.ops.get(ld.op).name, "LDG.E.128.SYS");
    let a: Vec<(u32, u64)> = w.lane_addrs(&ld).collect();
    assert_eq!(
        (a[0], a[1], a[31]),
        (
            (0, 0x7f58_0fac_e400),
            (1, 0x7f58_0fac_e410),
            (31, 0x7f58_0fac_e400 + 31 * 16)
        )
    );
    assert!(k.ops.iter().all(|(_, o)| !o.unknown));
}

#[test]
#[ignore = "needs ../shared/real-traces"]
fn real_traces_are_rewritten_byte_for_byte() {
    for (dir, file) in [
        ("microgpusim-vectoradd-100-32", "kernel-1.traceg"),
        ("microgpusim-matrixmul-32-32", "kernel-1.traceg"),
        ("accelsim-my_app", "kernel-593-ctx_0x55c28dad19e0.traceg"),
    ] {
        let bytes = std::fs::read(real(dir).join(file)).unwrap();
        let k = read_kernel_bytes(&bytes, file, Arch::Volta).unwrap();
        let text = kernel_to_text(&k).unwrap();
        assert!(
            text == bytes,
            "{dir}: the writer does not reproduce the file"
        );
        let list = std::fs::read(real(dir).join("kernelslist.g")).unwrap();
        let (cmds, names) = parse_kernelslist(&list, "kernelslist.g").unwrap();
        let mut out = Vec::new();
        write_kernelslist(&mut out, &cmds, &names).unwrap();
        assert_eq!(out, list, "{dir}: kernelslist.g");
    }
}
