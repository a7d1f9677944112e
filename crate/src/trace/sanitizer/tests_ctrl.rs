//! Control bits from `cuobjdump -sass` listings: real lines of nvcc 13.5 for sm_90 (vecadd of
//! tests/hardware/kernels.cu, as `build.sh` compiles it) and sm_80 (`fixtures/kernels-sm80.sass`).

use super::sass::parse;
use crate::trace::control::Ctrl;

/// vecadd for sm_90 from its first LDC.64 to the end: three constant loads (LDC.64 on SB0, 1,
/// 2), two global loads sharing SB3, and the FADD that waits on SB3.
const VECADD_90: &str = concat!(
    "\tcode for sm_90\n\t\tFunction : vecadd\n",
    "        /*0080*/                   LDC.64 R2, c[0x0][0x210] ;                            /* 0x00008400ff027b82 */\n",
    "                                                                                         /* 0x000e220000000a00 */\n",
    "        /*0090*/                   ULDC.64 UR4, c[0x0][0x208] ;                          /* 0x0000820000047ab9 */\n",
    "                                                                                         /* 0x000fce0000000a00 */\n",
    "        /*00a0*/                   LDC.64 R4, c[0x0][0x218] ;                            /* 0x00008600ff047b82 */\n",
    "                                                                                         /* 0x000e700000000a00 */\n",
    "        /*00b0*/                   LDC.64 R6, c[0x0][0x220] ;                            /* 0x00008800ff067b82 */\n",
    "                                                                                         /* 0x000ea20000000a00 */\n",
    "        /*00c0*/                   IMAD.WIDE R2, R9, 0x4, R2 ;                           /* 0x0000000409027825 */\n",
    "                                                                                         /* 0x001fcc00078e0202 */\n",
    "        /*00d0*/                   LDG.E R3, desc[UR4][R2.64] ;                          /* 0x0000000402037981 */\n",
    "                                                                                         /* 0x000ee2000c1e1900 */\n",
    "        /*00e0*/                   IMAD.WIDE R4, R9, 0x4, R4 ;                           /* 0x0000000409047825 */\n",
    "                                                                                         /* 0x002fcc00078e0204 */\n",
    "        /*00f0*/                   LDG.E R4, desc[UR4][R4.64] ;                          /* 0x0000000404047981 */\n",
    "                                                                                         /* 0x000ee2000c1e1900 */\n",
    "        /*0100*/                   IMAD.WIDE R6, R9, 0x4, R6 ;                           /* 0x0000000409067825 */\n",
    "                                                                                         /* 0x004fc800078e0206 */\n",
    "        /*0110*/                   FADD R9, R4, R3 ;                                     /* 0x0000000304097221 */\n",
    "                                                                                         /* 0x008fca0000000000 */\n",
    "        /*0120*/                   STG.E desc[UR4][R6.64], R9 ;                          /* 0x0000000906007986 */\n",
    "                                                                                         /* 0x000fe2000c101904 */\n",
    "        /*0130*/                   EXIT ;                                                /* 0x000000000000794d */\n",
    "                                                                                         /* 0x000fea0003800000 */\n",
    "        /*0140*/                   BRA 0x140;                                            /* 0xfffffffc00fc7947 */\n",
    "                                                                                         /* 0x000fc0000383ffff */\n",
    "        /*0150*/                   NOP;                                                  /* 0x0000000000007918 */\n",
    "                                                                                         /* 0x000fc00000000000 */\n",
);

fn ctrl_at(text: &str, func: &str, pc: u32) -> Ctrl {
    let f = parse(text, "t.sass").unwrap();
    let f = &f[func];
    f.insts[f.index[&pc]].ctrl
}

#[test]
fn a_load_s_consumer_waits_on_its_write_back_counter() {
    let f = parse(VECADD_90, "t.sass").unwrap();
    let f = &f["vecadd"];
    assert!(f.has_ctrl());
    let show = |pc: u32| f.insts[f.index[&pc]].ctrl.to_string();
    // LDC.64 R2 / R4 / R6: variable latency, each on its own counter.
    assert_eq!(show(0x80), "S1 wb0 rd-");
    assert_eq!(show(0xa0), "S8 wb1 rd-");
    assert_eq!(show(0xb0), "S1 wb2 rd-");
    // Each IMAD.WIDE waits for the LDC.64 of its base register.
    assert_eq!(show(0xc0), "S6 Y wb- rd- wait[0]");
    assert_eq!(show(0xe0), "S6 Y wb- rd- wait[1]");
    assert_eq!(show(0x100), "S4 Y wb- rd- wait[2]");
    // Both LDGs count on SB3; the FADD reading their results waits on SB3.
    assert_eq!(show(0xd0), "S1 wb3 rd-");
    assert_eq!(show(0xf0), "S1 wb3 rd-");
    assert_eq!(show(0x110), "S5 Y wb- rd- wait[3]");
    // The store issues back to back; EXIT yields.
    assert_eq!(show(0x120), "S1 wb- rd-");
    assert_eq!(show(0x130), "S5 wb- rd-");
    assert_eq!(show(0x140), "S0 Y wb- rd-");
    // Nothing else of the instruction changed.
    let i = &f.insts[f.index[&0x110]];
    assert_eq!(
        (i.op.as_str(), i.dst.as_slice(), i.src.as_slice()),
        ("FADD", &[9u16][..], &[4u16, 3][..])
    );
}

#[test]
fn reuse_flags_follow_the_register_sources() {
    // sm_90: R0 is ISETP's first register source; the encoding's own reuse field (bit 58)
    // agrees.
    let isetp = concat!(
        "\tcode for sm_90\n\t\tFunction : k\n",
        "        /*8080*/                   ISETP.NE.AND P0, PT, R0.reuse, RZ, PT ;               /* 0x000000ff0000720c */\n",
        "                                                                                         /* 0x040fe20003f05270 */\n",
    );
    let c = ctrl_at(isetp, "k", 0x8080);
    assert_eq!((c.reuse(), c.stall(), c.yield_()), (0b001, 1, false));
    // sm_80 fixture, vecadd: IMAD.WIDE R2, R6.reuse, R7.reuse, c[..]: sources 0 and 1.
    let sm80 = include_str!("fixtures/kernels-sm80.sass");
    let f = parse(sm80, "kernels-sm80.sass").unwrap();
    assert_eq!(ctrl_at(sm80, "vecadd", 0x90).reuse(), 0b011);
    assert_eq!(ctrl_at(sm80, "vecadd", 0x80).reuse(), 0);
    // Every instruction of both fixture functions has control bits; reuse flags only where
    // the text says `.reuse`.
    for (name, func) in &f {
        assert!(func.insts.iter().all(|i| i.ctrl.present()), "{name}");
    }
    let flagged: usize = f
        .values()
        .flat_map(|func| &func.insts)
        .filter(|i| i.ctrl.reuse() != 0)
        .count();
    assert_eq!(
        flagged, 2,
        "IMAD.WIDE R2, R6.reuse, R7.reuse and IMAD.WIDE R10, R0.reuse"
    );
    // A register past the third source position carries no flag; a repeated register takes
    // the flag of its first position.
    let wide = concat!(
        "\t\tFunction : k\n",
        "        /*0000*/  IADD3 R0, R1, R2, R3, R4.reuse ;  /* 0x0000000000000000 */\n",
        "                                                    /* 0x000fe20000000000 */\n",
        "        /*0010*/  FFMA R0, R5, R2, R2.reuse ;       /* 0x0000000000000000 */\n",
        "                                                    /* 0x000fe20000000000 */\n",
    );
    assert_eq!(ctrl_at(wide, "k", 0).reuse(), 0);
    assert_eq!(ctrl_at(wide, "k", 0x10).reuse(), 0b010);
}

#[test]
fn listings_without_volta_encodings_have_no_control_bits() {
    // No encodings at all.
    let plain =
        "\t\tFunction : k\n        /*0000*/  MOV R1, c[0x0][0x28] ;\n        /*0010*/  EXIT ;\n";
    let f = parse(plain, "t.sass").unwrap();
    assert!(!f["k"].has_ctrl());
    assert_eq!(f["k"].insts[0].ctrl, Ctrl::NONE);
    // Pascal: 64-bit words, a scheduling word before every three instructions.
    let pascal = concat!(
        "\tcode for sm_61\n\t\tFunction : k\n",
        "        /* 0x001fc400fe2007f6 */\n",
        "        /*0008*/                   MOV R1, c[0x0][0x20] ;          /* 0x4c98078000870001 */\n",
        "        /*0010*/                   S2R R0, SR_TID.X ;              /* 0xf0c8000002170000 */\n",
        "        /*0018*/                   S2R R2, SR_CTAID.X ;            /* 0xf0c8000002570002 */\n",
        "        /* 0x001fd800fe2007f1 */\n",
        "        /*0028*/                   EXIT ;                          /* 0xe30000000007000f */\n",
    );
    let f = parse(pascal, "t.sass").unwrap();
    assert!(f["k"].insts.iter().all(|i| i.ctrl == Ctrl::NONE));
    // The same without its `code for` line is recognised by the words that are missing.
    let f = parse(&pascal.replace("\tcode for sm_61\n", ""), "t.sass").unwrap();
    assert!(f["k"].insts.iter().all(|i| i.ctrl == Ctrl::NONE));
}

#[test]
fn a_volta_function_missing_a_high_word_is_an_error() {
    // The FADD's high word cut out.
    let cut: String = VECADD_90
        .lines()
        .filter(|l| !l.contains("0x008fca0000000000"))
        .map(|l| format!("{l}\n"))
        .collect();
    let e = parse(&cut, "cut.sass").unwrap_err().to_string();
    assert!(
        e.starts_with("cut.sass:") && e.contains("vecadd") && e.contains("0x110"),
        "{e}"
    );
}

/// The importer puts each SASS instruction's control bits on the trace instructions it
/// builds, and names the kernel's source; a listing without encodings gives none.
#[test]
fn imported_kernels_carry_the_listing_s_control_bits() {
    use super::{import, ImportOptions};
    use crate::trace::model::CtrlSource;
    use std::io::Read;
    let sass = include_str!("fixtures/h100-kernels-sm90.sass");
    let mut records = Vec::new();
    ruzstd::decoding::StreamingDecoder::new(&include_bytes!("fixtures/h100-vecadd.wwsan.zst")[..])
        .unwrap()
        .read_to_end(&mut records)
        .unwrap();
    let funcs = parse(sass, "h100.sass").unwrap();
    let f = &funcs["vecadd"];
    let im = import(&records, "r", sass, "h100.sass", ImportOptions::default()).unwrap();
    let k = &im.trace.kernels[0];
    assert_eq!(k.info.ctrl_source, CtrlSource::Sass);
    for i in k.ctas.iter().flat_map(|c| &c.warps).flat_map(|w| &w.insts) {
        assert_eq!(i.ctrl, f.insts[f.index[&i.pc]].ctrl, "pc 0x{:x}", i.pc);
        assert!(i.ctrl.present());
    }
    // The same listing with its encodings cut away.
    let bare: String = sass
        .lines()
        .map(|l| l.split("/* 0x").next().unwrap_or(l))
        .map(|l| format!("{l}\n"))
        .collect();
    let im = import(&records, "r", &bare, "bare.sass", ImportOptions::default()).unwrap();
    let k = &im.trace.kernels[0];
    assert_eq!(k.info.ctrl_source, CtrlSource::None);
    assert!(k.ctas[0].warps[0]
        .insts
        .iter()
        .all(|i| i.ctrl == Ctrl::NONE));
}
