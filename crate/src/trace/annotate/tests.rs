//! The join of a listing's control bits onto traces: real H100 records imported against the
//! listing with its encodings cut away, then annotated; hand-made instructions for reuse
//! flags; every error names the listing, the kernel and the PC.

use std::io::Read;

use super::*;
use crate::trace::model::{CtaTrace, Dim3, KernelTrace, MemTrace, Packer, TraceInst, WarpTrace};
use crate::trace::opcodes::{classify, Arch};
use crate::trace::sanitizer::{import, ImportOptions};

const SM90: &str = include_str!("../sanitizer/fixtures/h100-kernels-sm90.sass");
const SM80: &str = include_str!("../sanitizer/fixtures/kernels-sm80.sass");

/// The listing without its `/* 0x... */` encodings.
fn bare(text: &str) -> String {
    text.lines()
        .map(|l| format!("{}\n", l.split("/* 0x").next().unwrap_or(l)))
        .collect()
}

/// H100 vecadd records imported twice: against the listing without encodings (a trace
/// without control bits) and with them (what the join must reproduce).
fn vecadd_h100() -> (MemTrace, MemTrace) {
    let mut records = Vec::new();
    let zst = include_bytes!("../sanitizer/fixtures/h100-vecadd.wwsan.zst");
    ruzstd::decoding::StreamingDecoder::new(&zst[..])
        .unwrap()
        .read_to_end(&mut records)
        .unwrap();
    let opts = ImportOptions::default();
    let plain = import(&records, "r", &bare(SM90), "bare.sass", opts).unwrap();
    let full = import(&records, "r", SM90, "h100.sass", opts).unwrap();
    (plain.trace, full.trace)
}

fn annotated(t: MemTrace, listing: &str) -> Result<Annotated> {
    Annotated::new(Box::new(t), &SassCtrl::parse(listing, "k.sass")?)
}

#[test]
fn the_join_gives_what_the_listing_s_import_gives() {
    let (plain, full) = vecadd_h100();
    assert_eq!(plain.kernels[0].info.ctrl_source, CtrlSource::None);
    let hash = plain.trace_hash();
    let mut a = annotated(plain, SM90).unwrap();
    assert_eq!(a.kernel_info(0).ctrl_source, CtrlSource::Sass);
    assert_eq!(a.trace_hash(), hash);
    let got = MemTrace::collect(&mut a).unwrap();
    assert_eq!(got.kernels[0].info, full.kernels[0].info);
    assert_eq!(got.kernels[0].ctas, full.kernels[0].ctas);
    assert!(got.kernels[0].ctas[0].warps[0]
        .insts
        .iter()
        .all(|i| i.ctrl.present()));
    // Owned streams, pulled packed as the engine pulls them, give the same words.
    let (plain, _) = vecadd_h100();
    let mut a = annotated(plain, SM90).unwrap();
    let mut s = a.open_kernel_owned(0).unwrap();
    s.will_pack(0);
    let mut pk = Packer::default();
    let c = s.next_packed(&mut pk, 0).unwrap().unwrap();
    let want = &full.kernels[0].ctas[0].warps[1].insts;
    let w = c.warp(1);
    assert_eq!(w.len(), want.len());
    for (k, i) in want.iter().enumerate() {
        assert_eq!(w.inst(k).ctrl, i.ctrl);
    }
}

/// One warp of sm_80 vecadd instructions at `pcs`, with `srcs` per instruction.
fn hand_made(name: &str, insts: &[(u32, &str, &[Reg])]) -> MemTrace {
    let mut ops = OpTable::new();
    let mut w = WarpTrace::default();
    for &(pc, op, srcs) in insts {
        let mut t = TraceInst {
            pc,
            mask: u32::MAX,
            op: ops.intern_with(op, |n| classify(Arch::Ampere, n)),
            nsrc: srcs.len() as u8,
            ..Default::default()
        };
        t.src[..srcs.len()].copy_from_slice(srcs);
        w.insts.push(t);
    }
    let info = KernelInfo {
        name: name.into(),
        id: 1,
        grid: Dim3::new(1, 1, 1),
        block: Dim3::new(32, 1, 1),
        binary_version: 80,
        ..Default::default()
    };
    let ctas = vec![CtaTrace {
        id: Dim3::default(),
        warps: vec![w],
    }];
    MemTrace::from_kernels("hand", vec![KernelTrace { info, ops, ctas }])
}

fn first_ctrls(t: MemTrace, listing: &str) -> Result<Vec<Ctrl>> {
    let mut a = annotated(t, listing)?;
    let mut s = a.open_kernel(0)?;
    let c = s.next_cta()?.unwrap_or_default();
    Ok(c.warps[0].insts.iter().map(|i| i.ctrl).collect())
}

#[test]
fn reuse_flags_follow_the_registers_into_the_trace_s_positions() {
    // 0x90: IMAD.WIDE R2, R6.reuse, R7.reuse: the listing's sources 0 and 1.
    let c = first_ctrls(hand_made("vecadd", &[(0x90, "IMAD.WIDE", &[6, 7])]), SM80).unwrap();
    assert_eq!(c[0].reuse(), 0b011);
    assert_eq!(c[0].to_string(), "S2 wb- rd- reuse[AB]");
    // A tracer that names them in another order, or with another register first.
    let c = first_ctrls(hand_made("vecadd", &[(0x90, "IMAD.WIDE", &[7, 6])]), SM80).unwrap();
    assert_eq!(c[0].reuse(), 0b011);
    let c = first_ctrls(hand_made("vecadd", &[(0x90, "IMAD.WIDE", &[9, 6])]), SM80).unwrap();
    assert_eq!(c[0].reuse(), 0b010);
    // Past the third position, or not named at all: no flag; the rest of the word stays.
    let t = hand_made("vecadd", &[(0x90, "IMAD.WIDE", &[1, 2, 3, 6])]);
    let c = first_ctrls(t, SM80).unwrap();
    assert_eq!((c[0].reuse(), c[0].stall()), (0, 2));
    // Modifiers may differ (an NVBit trace spells them its way): the base names join.
    let c = first_ctrls(hand_made("vecadd", &[(0xa0, "LDG.E.SYS", &[4])]), SM80).unwrap();
    assert_eq!(c[0].wb_sb(), Some(2));
}

#[test]
fn what_does_not_join_is_an_error_naming_listing_kernel_and_pc() {
    let err = |t: MemTrace, listing: &str| first_ctrls(t, listing).unwrap_err().to_string();
    // A kernel the listing lacks.
    let e = err(hand_made("_Z3fooPf", &[(0x90, "IMAD.WIDE", &[])]), SM80);
    assert!(
        e.starts_with("k.sass: Function: no function _Z3fooPf (kernel 0 of hand); the listing has: matmul_naive, vecadd"),
        "{e}"
    );
    // A PC its function lacks.
    let e = err(hand_made("vecadd", &[(0x98, "IMAD.WIDE", &[])]), SM80);
    assert!(
        e.starts_with("k.sass: kernel vecadd pc 0x98: not an instruction of function vecadd"),
        "{e}"
    );
    // Another opcode at the PC: the listing's line is named.
    let e = err(hand_made("vecadd", &[(0xa0, "STG.E", &[])]), SM80);
    assert!(
        e.starts_with("k.sass:27: kernel vecadd pc 0xa0: the trace has STG.E, the listing LDG.E"),
        "{e}"
    );
    // A listing without encodings, and one of another target.
    let e = err(
        hand_made("vecadd", &[(0x90, "IMAD.WIDE", &[])]),
        &bare(SM80),
    );
    assert!(e.contains("vecadd: no control bits"), "{e}");
    let e = err(hand_made("vecadd", &[(0x90, "IMAD.WIDE", &[])]), SM90);
    assert!(
        e.starts_with("k.sass: code for: kernel vecadd of hand is code for sm_80, the listing's function is code for sm_90"),
        "{e}"
    );
}
