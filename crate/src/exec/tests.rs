//! Unit tests of the executor on small hand-written listings.

use std::path::Path;

use super::*;

/// `tests/exec/teaching.sm_XX.sass`.
fn teaching_for(arch: u32) -> Program {
    let rel = format!("tests/exec/teaching.sm_{arch}.sass");
    Program::from_listing(&super::tests_kernels::listing(&rel), &rel, Arch::Hopper).unwrap()
}

fn spec(name: &str) -> LaunchSpec {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/exec")
        .join(name);
    LaunchSpec::load(&p, None).unwrap()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn initial(s: &LaunchSpec, i: usize) -> Vec<f32> {
    f32s(&launch::initial_bytes(&s.buffers[i]).unwrap())
}

#[test]
fn the_teaching_kernels_compute_what_the_host_computes() {
    for arch in [70, 75, 80, 90] {
        teaching_kernels_compute_what_the_host_computes(&teaching_for(arch));
    }
}

fn teaching_kernels_compute_what_the_host_computes(p: &Program) {
    let s = spec("vecmul.toml");
    let ex = execute(p, &s, "teaching").unwrap();
    let (a, b) = (initial(&s, 0), initial(&s, 1));
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
    assert_eq!(f32s(&ex.device.bufs[0].data), want);
    // One warp instruction stream per warp, C++ kernel found by its unmangled name.
    assert_eq!(ex.trace.kernels[0].info.name, "_Z6vecmulPfS_");
    assert!(ex.warp_insts() > 0);

    let s = spec("mattranspose.toml");
    let ex = execute(p, &s, "teaching").unwrap();
    let a = initial(&s, 0);
    let got = f32s(&ex.device.bufs[1].data);
    for i in 0..64 {
        for j in 0..64 {
            assert_eq!(got[j * 64 + i], a[i * 64 + j]);
        }
    }

    let s = spec("matmul.toml");
    let ex = execute(p, &s, "teaching").unwrap();
    let (a, b) = (initial(&s, 0), initial(&s, 1));
    let got = f32s(&ex.device.bufs[2].data);
    for i in 0..64 {
        for j in 0..64 {
            let mut sum = 0f32;
            for k in 0..64 {
                sum = b[k * 64 + j].mul_add(a[i * 64 + k], sum);
            }
            let g = got[i * 64 + j];
            assert!(
                (g - sum).abs() <= 1e-5 * sum.abs() + 1e-6,
                "[{i},{j}] {g} vs {sum}"
            );
        }
    }
}

#[test]
fn an_opcode_it_cannot_execute_is_an_error_naming_it_the_kernel_and_the_pc() {
    let text = "\tcode for sm_90\n\t\tFunction : bad_kernel\n        /*0000*/                   S2R R0, SR_TID.X ;\n        /*0010*/                   HMMA.16816.F32 R4, R8, R12, R4 ;\n        /*0020*/                   EXIT ;\n";
    let p = Program::from_listing(text, "bad.sass", Arch::Hopper).unwrap();
    let s = LaunchSpec::parse(
        "grid = 1\nblock = 32",
        "s.toml",
        Path::new("."),
        Some("bad_kernel"),
    )
    .unwrap();
    let e = execute(&p, &s, "bad").err().expect("refused").to_string();
    for needle in ["bad.sass", "bad_kernel", "0x10", "HMMA"] {
        assert!(e.contains(needle), "{e}");
    }
    // A kernel the listing lacks is named with the ones it has.
    let s = LaunchSpec::parse(
        "grid = 1\nblock = 32",
        "s.toml",
        Path::new("."),
        Some("nope"),
    )
    .unwrap();
    let e = execute(&p, &s, "bad").err().expect("refused").to_string();
    assert!(
        e.contains("no function nope") && e.contains("bad_kernel"),
        "{e}"
    );
}

#[test]
fn divergent_lanes_reconverge_at_bsync_and_exit_in_part() {
    // Lanes 0-15 skip the add; the warp reconverges at BSYNC; odd lanes exit before the store.
    let text = "\tcode for sm_90\n\t\tFunction : div\n\
        /*0000*/                   S2R R0, SR_TID.X ;\n\
        /*0010*/                   BSSY B0, 0x50 ;\n\
        /*0020*/                   ISETP.GE.U32.AND P0, PT, R0, 0x10, PT ;\n\
        /*0030*/              @!P0 BRA 0x50 ;\n\
        /*0040*/                   IADD3 R0, R0, 0x64, RZ ;\n\
        /*0050*/                   BSYNC B0 ;\n\
        /*0060*/                   LOP3.LUT P1, RZ, R0, 0x1, RZ, 0xc0, !PT ;\n\
        /*0070*/               @P1 EXIT ;\n\
        /*0080*/                   LDC.64 R2, c[0x0][0x210] ;\n\
        /*0090*/                   S2R R4, SR_TID.X ;\n\
        /*00a0*/                   IMAD.WIDE.U32 R2, R4, 0x4, R2 ;\n\
        /*00b0*/                   STG.E desc[UR4][R2.64], R0 ;\n\
        /*00c0*/                   EXIT ;\n";
    let p = Program::from_listing(text, "div.sass", Arch::Hopper).unwrap();
    let s = LaunchSpec::parse(
        "grid = 1\nblock = 32\nargs = [\"o\"]\n[[buffer]]\nname = \"o\"\ntype = \"i32\"\nlen = 32\ninit = { fill = -1 }",
        "s.toml",
        Path::new("."),
        Some("div"),
    )
    .unwrap();
    let ex = execute(&p, &s, "div").unwrap();
    let o: Vec<i32> = ex.device.bufs[0]
        .data
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for (l, v) in o.iter().enumerate() {
        let r = if l >= 16 { l as i32 + 100 } else { l as i32 };
        assert_eq!(*v, if r % 2 == 1 { -1 } else { r }, "lane {l}");
    }
    let w = &ex.trace.kernels[0].ctas[0].warps[0];
    let pcs: Vec<(u32, u32)> = w.insts.iter().map(|i| (i.pc, i.mask)).collect();
    // The taken lanes (0-15) wait at BSYNC while 16-31 add; each group issues its BSYNC.
    assert_eq!(
        &pcs[..7],
        &[
            (0, !0),
            (0x10, !0),
            (0x20, !0),
            (0x30, 0xffff),
            (0x40, 0xffff_0000),
            (0x50, 0xffff_0000),
            (0x50, 0xffff)
        ]
    );
    let even = 0x5555_5555u32;
    assert_eq!(pcs[pcs.len() - 1], (0xc0, even));
    assert_eq!(w.insts.len(), 14);
}
