use super::*;

fn t(arch: Arch, op: &str) -> (Unit, LatClass, OpKind, MemSpace, bool) {
    let i = classify(arch, op);
    (i.unit, i.lat, i.kind, i.space, i.unknown)
}

#[test]
fn binary_versions_map_to_architectures() {
    assert_eq!(Arch::from_binary_version(60), Some(Arch::Pascal));
    assert_eq!(Arch::from_binary_version(61), Some(Arch::Pascal));
    assert_eq!(Arch::from_binary_version(70), Some(Arch::Volta));
    assert_eq!(Arch::from_binary_version(75), Some(Arch::Turing));
    assert_eq!(Arch::from_binary_version(80), Some(Arch::Ampere));
    assert_eq!(Arch::from_binary_version(86), Some(Arch::Ampere));
    assert_eq!(Arch::from_binary_version(89), Some(Arch::Ada));
    assert_eq!(Arch::from_binary_version(90), Some(Arch::Hopper));
    assert_eq!(Arch::from_binary_version(0), None);
    assert_eq!(Arch::from_binary_version(35), None);
    // Binary version 0 (accelsim-my_app) falls back to the caller's default.
    assert_eq!(Arch::resolve(0, Arch::Ampere), Arch::Ampere);
    assert_eq!(Arch::resolve(61, Arch::Ampere), Arch::Pascal);
    assert_eq!(Arch::from_name("Hopper"), Some(Arch::Hopper));
    assert_eq!(Arch::from_name("kepler"), None);
    for a in Arch::ALL {
        assert_eq!(Arch::from_binary_version(a.binary_version()), Some(a));
    }
}

#[test]
fn memory_ops_get_their_space_and_kind() {
    use MemSpace::*;
    use OpKind::*;
    let m = |op| {
        let (u, l, k, s, unk) = t(Arch::Ampere, op);
        assert_eq!((u, l, unk), (Unit::Mem, LatClass::Mem, false), "{op}");
        (k, s)
    };
    assert_eq!(m("LDG.E.128.SYS"), (Load, Global));
    assert_eq!(m("STG.E"), (Store, Global));
    assert_eq!(m("LDL.LU"), (Load, Local));
    assert_eq!(m("STL.64"), (Store, Local));
    assert_eq!(m("LDS.U.32"), (Load, Shared));
    assert_eq!(m("STS.128"), (Store, Shared));
    assert_eq!(m("LDSM.16.M88.4"), (Load, Shared));
    assert_eq!(m("LD.E.64"), (Load, Generic));
    assert_eq!(m("ST.E"), (Store, Generic));
    assert_eq!(m("ATOM.E.ADD.STRONG.GPU"), (Atomic, Global));
    assert_eq!(m("ATOMG.E.EXCH.STRONG.GPU"), (Atomic, Global));
    assert_eq!(m("ATOMS.ADD"), (Atomic, Shared));
    assert_eq!(m("RED.E.ADD.F32.FTZ.RN.STRONG.GPU"), (Reduction, Global));
    assert_eq!(m("LDC.64"), (Load, Constant));
    assert_eq!(m("TEX.SCR.LL"), (Load, Texture));
    assert_eq!(m("MEMBAR.SC.GPU"), (MemBarrier, None));
    assert_eq!(m("LDGSTS.E.BYPASS.LTC128B.128"), (Load, Global));
    // Hopper spells a global reduction REDG (atomicAdd whose result is unused, sm_90).
    let (u, _, k, s, unk) = t(Arch::Hopper, "REDG.E.ADD.STRONG.GPU");
    assert_eq!((u, k, s, unk), (Unit::Mem, Reduction, Global, false));
}

#[test]
fn alu_ops_get_unit_and_latency_class() {
    use LatClass as L;
    let u = |a, op| {
        let (u, l, k, s, unk) = t(a, op);
        assert!(!unk, "{op} on {a:?}");
        assert_eq!(s, MemSpace::None, "{op}");
        (u, l, k)
    };
    assert_eq!(u(Arch::Volta, "FFMA"), (Unit::Sp, L::Fp32, OpKind::Alu));
    assert_eq!(
        u(Arch::Volta, "HFMA2.MMA"),
        (Unit::Sp, L::Fp16, OpKind::Alu)
    );
    assert_eq!(u(Arch::Volta, "DFMA"), (Unit::Dp, L::Dp, OpKind::Alu));
    assert_eq!(u(Arch::Volta, "MUFU.RCP"), (Unit::Sfu, L::Sfu, OpKind::Alu));
    assert_eq!(
        u(Arch::Volta, "HMMA.884.F32.F32.STEP0"),
        (Unit::Tensor, L::Tensor, OpKind::Alu)
    );
    assert_eq!(
        u(Arch::Ampere, "IMAD.WIDE.U32"),
        (Unit::Int, L::IntMul, OpKind::Alu)
    );
    assert_eq!(u(Arch::Ampere, "IADD3.X"), (Unit::Int, L::Int, OpKind::Alu));
    assert_eq!(
        u(Arch::Turing, "UIADD3"),
        (Unit::Uniform, L::Uniform, OpKind::Alu)
    );
    assert_eq!(
        u(Arch::Turing, "BRA"),
        (Unit::Branch, L::Branch, OpKind::Branch)
    );
    assert_eq!(
        u(Arch::Turing, "EXIT"),
        (Unit::Branch, L::Branch, OpKind::Exit)
    );
    assert_eq!(
        u(Arch::Turing, "BAR.SYNC"),
        (Unit::Int, L::Int, OpKind::Barrier)
    );
    assert_eq!(u(Arch::Turing, "NOP"), (Unit::Int, L::Int, OpKind::Nop));
    assert_eq!(
        u(Arch::Pascal, "XMAD.PSL.CBCC"),
        (Unit::Int, L::IntMul, OpKind::Alu)
    );
    assert_eq!(
        u(Arch::Pascal, "SSY"),
        (Unit::Branch, L::Branch, OpKind::Branch)
    );
    // IMMA: integer pipe on Volta (Accel-Sim's table), tensor core from Turing on.
    assert_eq!(u(Arch::Volta, "IMMA.8816.S8.S8").0, Unit::Int);
    assert_eq!(u(Arch::Turing, "IMMA.8816.S8.S8").0, Unit::Tensor);
}

#[test]
fn opcodes_outside_an_architecture_are_unknown_not_fatal() {
    // Pascal has no uniform datapath, Volta no SHL, Turing no LDGSTS.
    for (a, op) in [
        (Arch::Pascal, "UMOV"),
        (Arch::Volta, "SHL"),
        (Arch::Turing, "LDGSTS.E"),
        (Arch::Ampere, "FOO.BAR"),
        // Not an opcode at all: a NUL or a non-ASCII byte after a known base name.
        (Arch::Ampere, "IADD3.\0X"),
        (Arch::Ampere, "IADD3.\u{e9}"),
    ] {
        let i = classify(a, op);
        assert!(i.unknown, "{op} on {a:?}");
        assert_eq!(
            (i.unit, i.lat, i.kind, i.space),
            (Unit::Int, LatClass::Int, OpKind::Alu, MemSpace::None)
        );
        assert_eq!(i.name, op);
    }
    // ... and the same opcodes are known where they exist.
    assert!(!classify(Arch::Turing, "UMOV").unknown);
    assert!(!classify(Arch::Pascal, "SHL").unknown);
    assert!(!classify(Arch::Ampere, "LDGSTS.E").unknown);
    assert!(!classify(Arch::Hopper, "UTMALDG.2D").unknown);
}

#[test]
fn every_table_name_is_known_on_some_architecture() {
    for n in tables::all_names() {
        assert!(Arch::ALL.iter().any(|a| !classify(*a, n).unknown), "{n}");
        assert_eq!(base_name(n), n, "table names are base names");
    }
}

#[test]
fn generic_addresses_resolve_by_window() {
    // Header values of microgpusim-vectoradd: local below shared, 32 MiB apart.
    let w = GenericWindows::new(0x7f2b_5a00_0000, 0x7f2b_5800_0000);
    assert_eq!(w.resolve(0x7f2b_5a00_0000), MemSpace::Shared);
    assert_eq!(
        w.resolve(0x7f2b_5a00_0000 + (1 << 24) - 1),
        MemSpace::Shared
    );
    assert_eq!(w.resolve(0x7f2b_5a00_0000 + (1 << 24)), MemSpace::Global);
    assert_eq!(w.resolve(0x7f2b_5800_0010), MemSpace::Local);
    assert_eq!(w.resolve(0x7f2b_57ff_ffff), MemSpace::Global);
    assert_eq!(w.resolve(0x7f2b_2d50_0000), MemSpace::Global);
    // Windows closer than 16 MiB are clamped so they never overlap.
    let w = GenericWindows::new(0x1000_0000, 0x1010_0000);
    assert_eq!(w.resolve(0x100f_ffff), MemSpace::Shared);
    assert_eq!(w.resolve(0x1010_0000), MemSpace::Local);
    // No windows known: everything is global.
    let w = GenericWindows::new(0, 0);
    assert_eq!(w.resolve(0), MemSpace::Global);
    assert_eq!(w.resolve(0x7f2b_5a00_0000), MemSpace::Global);
    // space_of leaves non-generic ops alone.
    let w = GenericWindows::new(0x7f2b_5a00_0000, 0x7f2b_5800_0000);
    let ld = classify(Arch::Volta, "LD.E");
    let ldg = classify(Arch::Volta, "LDG.E");
    assert_eq!(space_of(&ld, &w, 0x7f2b_5a00_0040), MemSpace::Shared);
    assert_eq!(space_of(&ldg, &w, 0x7f2b_5a00_0040), MemSpace::Global);
}
