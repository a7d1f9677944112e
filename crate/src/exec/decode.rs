//! Opcode text (`ISETP.GE.U32.AND.EX`, `LDG.E.128.SYS`) -> what the executor does ([`Opc`]).
//! Every modifier is either understood or listed as one that changes nothing functionally
//! (cache hints, memory-order scopes, scheduling hints); anything else makes the instruction
//! [`Opc::Unsupported`] with a message naming the modifier.

pub use super::opc::*;

/// Modifiers that change nothing the executor computes: cache and eviction hints, memory
/// ordering and scope, scheduling hints, the 64-bit-address `.E` of Volta+ global accesses
/// (handled where it matters), and the `.MMA` pipe choice of HFMA2.
const HINTS: [&str; 32] = [
    "E",
    "SYS",
    "GPU",
    "CTA",
    "SM",
    "STRONG",
    "WEAK",
    "CONSTANT",
    "EF",
    "EL",
    "LU",
    "EU",
    "NA",
    "LTC64B",
    "LTC128B",
    "LTC256B",
    "PRIVATE",
    "MMA",
    "DEFER_BLOCKING",
    "NOINC",
    "NODEC",
    "REL",
    "ABS",
    "NTZ",
    "VOL",
    "MMIO",
    "ZD",
    "BYPASS",
    "U",
    "SC",
    "ALL",
    "INVALID",
];

struct Mods<'a> {
    list: Vec<&'a str>,
}

impl<'a> Mods<'a> {
    fn take(&mut self, m: &str) -> bool {
        match self.list.iter().position(|x| *x == m) {
            Some(i) => {
                self.list.remove(i);
                true
            }
            None => false,
        }
    }
    fn take_any<T: Copy>(&mut self, table: &[(&str, T)]) -> Option<T> {
        table.iter().find_map(|&(n, v)| self.take(n).then_some(v))
    }
    /// The first modifier not understood and not a hint.
    fn leftover(&self) -> Option<&'a str> {
        self.list.iter().copied().find(|m| !HINTS.contains(m))
    }
}

const CMPS: [(&str, Cmp); 16] = [
    ("F", Cmp::F),
    ("LT", Cmp::Lt),
    ("EQ", Cmp::Eq),
    ("LE", Cmp::Le),
    ("GT", Cmp::Gt),
    ("NE", Cmp::Ne),
    ("GE", Cmp::Ge),
    ("T", Cmp::T),
    ("NUM", Cmp::Num),
    ("NAN", Cmp::Nan),
    ("LTU", Cmp::Ltu),
    ("EQU", Cmp::Equ),
    ("LEU", Cmp::Leu),
    ("GTU", Cmp::Gtu),
    ("NEU", Cmp::Neu),
    ("GEU", Cmp::Geu),
];
const BOPS: [(&str, Bop); 3] = [("AND", Bop::And), ("OR", Bop::Or), ("XOR", Bop::Xor)];
const ROUNDS: [(&str, Round); 8] = [
    ("RN", Round::Rn),
    ("RZ", Round::Rz),
    ("RM", Round::Rm),
    ("RP", Round::Rp),
    ("TRUNC", Round::Rz),
    ("FLOOR", Round::Rm),
    ("CEIL", Round::Rp),
    ("RNI", Round::Rn),
];
const INTS: [(&str, IntTy); 8] = [
    ("U8", IntTy::U8),
    ("S8", IntTy::S8),
    ("U16", IntTy::U16),
    ("S16", IntTy::S16),
    ("U32", IntTy::U32),
    ("S32", IntTy::S32),
    ("U64", IntTy::U64),
    ("S64", IntTy::S64),
];
const FLOATS: [(&str, FloatTy); 3] = [
    ("F16", FloatTy::F16),
    ("F32", FloatTy::F32),
    ("F64", FloatTy::F64),
];

/// Decodes an opcode with its modifiers; the flag says whether it runs on the uniform
/// datapath.
pub fn decode_op(name: &str) -> (Opc, bool) {
    let mut parts = name.split('.');
    let base = parts.next().unwrap_or("");
    let mut m = Mods {
        list: parts.collect(),
    };
    // Uniform-datapath twins of vector opcodes.
    let (base, uniform) = match base {
        "UMOV" | "UIADD3" | "UIMAD" | "ULEA" | "USHF" | "ULOP3" | "UISETP" | "USEL" | "UPLOP3"
        | "ULDC" | "UFLO" | "UPOPC" | "UBREV" | "UPRMT" | "UBMSK" | "USGXT" | "ULOP" => {
            (&base[1..], true)
        }
        "S2UR" | "R2UR" | "VOTEU" => (base, true),
        _ => (base, false),
    };
    let opc = decode_base(base, &mut m);
    let opc = match (opc, m.leftover()) {
        (Opc::Unsupported(s), _) => Opc::Unsupported(s),
        (_, Some(x)) => Opc::Unsupported(format!("the modifier .{x} of {name} is not supported")),
        (o, None) => o,
    };
    (opc, uniform)
}

fn decode_base(base: &str, m: &mut Mods) -> Opc {
    let rnd = |m: &mut Mods| m.take_any(&ROUNDS).unwrap_or(Round::Rn);
    match base {
        "NOP" | "MEMBAR" | "FENCE" | "ERRBAR" | "CCTL" | "DEPBAR" | "YIELD" | "NANOSLEEP"
        | "CGAERRBAR" => {
            m.list.clear();
            Opc::Nop
        }
        "MOV" | "MOV32I" => Opc::Mov,
        "IMAD" => {
            let hi = m.take("HI");
            let wide = m.take("WIDE");
            let x = m.take("X");
            let signed = !m.take("U32");
            m.take("S32");
            // .MOV, .IADD, .SHL are names of special cases of the same operation.
            m.take("MOV");
            m.take("IADD");
            m.take("SHL");
            Opc::Imad {
                hi,
                wide,
                signed,
                x,
            }
        }
        "IADD3" => Opc::Iadd3 { x: m.take("X") },
        "VIADD" => Opc::Viadd,
        "LEA" => Opc::Lea {
            hi: m.take("HI"),
            x: m.take("X"),
            sx32: m.take("SX32"),
        },
        "SHF" => {
            let left = if m.take("L") {
                true
            } else if m.take("R") {
                false
            } else {
                return Opc::Unsupported("SHF without .L or .R".into());
            };
            let hi = m.take("HI");
            let wrap = m.take("W");
            let ty = m.take_any(&INTS).unwrap_or(IntTy::U32);
            Opc::Shf { left, hi, ty, wrap }
        }
        "SHL" => Opc::Shl,
        "SHR" => {
            let signed = !m.take("U32");
            m.take("S32");
            Opc::Shr { signed }
        }
        "LOP3" => {
            m.take("LUT");
            Opc::Lop3
        }
        "ISETP" => {
            let Some(cmp) = m.take_any(&CMPS) else {
                return Opc::Unsupported("ISETP without a comparison".into());
            };
            let signed = !m.take("U32");
            m.take("S32");
            let bop = m.take_any(&BOPS).unwrap_or(Bop::And);
            Opc::Isetp {
                cmp,
                signed,
                bop,
                ex: m.take("EX"),
            }
        }
        "PLOP3" => {
            m.take("LUT");
            Opc::Plop3
        }
        "SEL" => Opc::Sel,
        "IABS" => Opc::Iabs,
        "IMNMX" | "VIMNMX" => {
            let signed = !m.take("U32");
            m.take("S32");
            Opc::Imnmx { signed }
        }
        "POPC" => Opc::Popc,
        "FLO" => {
            let signed = !m.take("U32");
            m.take("S32");
            Opc::Flo {
                signed,
                sh: m.take("SH"),
            }
        }
        "BREV" => Opc::Brev,
        "PRMT" => Opc::Prmt,
        "BMSK" => Opc::Bmsk { wrap: m.take("W") },
        "SGXT" => {
            let signed = !m.take("U32");
            m.take("W");
            Opc::Sgxt { signed }
        }
        "P2R" => Opc::P2r,
        "R2P" => Opc::R2p,
        "FADD" | "FADD32I" => Opc::Fadd {
            ftz: m.take("FTZ"),
            sat: m.take("SAT"),
            rnd: rnd(m),
        },
        "FMUL" | "FMUL32I" => Opc::Fmul {
            ftz: m.take("FTZ"),
            sat: m.take("SAT"),
            rnd: rnd(m),
        },
        "FFMA" | "FFMA32I" => Opc::Ffma {
            ftz: m.take("FTZ"),
            sat: m.take("SAT"),
            rnd: rnd(m),
        },
        "FMNMX" => Opc::Fmnmx { ftz: m.take("FTZ") },
        "FSETP" => {
            let Some(cmp) = m.take_any(&CMPS) else {
                return Opc::Unsupported("FSETP without a comparison".into());
            };
            Opc::Fsetp {
                cmp,
                bop: m.take_any(&BOPS).unwrap_or(Bop::And),
                ftz: m.take("FTZ"),
            }
        }
        "FSEL" => Opc::Fsel,
        "FCHK" => {
            m.take("DIVIDE");
            Opc::Fchk
        }
        "FRND" => {
            m.take("FTZ");
            let f64 = m.take("F64");
            m.take("F32");
            Opc::Frnd { rnd: rnd(m), f64 }
        }
        "MUFU" => {
            let f = m.take_any(&[
                ("RCP64H", MufuFn::Rcp64h),
                ("RSQ64H", MufuFn::Rsq64h),
                ("RCP", MufuFn::Rcp),
                ("RSQ", MufuFn::Rsq),
                ("SQRT", MufuFn::Sqrt),
                ("EX2", MufuFn::Ex2),
                ("LG2", MufuFn::Lg2),
                ("SIN", MufuFn::Sin),
                ("COS", MufuFn::Cos),
                ("TANH", MufuFn::Tanh),
            ]);
            m.take("FTZ");
            match f {
                Some(f) => Opc::Mufu(f),
                None => Opc::Unsupported("MUFU function".into()),
            }
        }
        "DADD" => Opc::Dadd { rnd: rnd(m) },
        "DMUL" => Opc::Dmul { rnd: rnd(m) },
        "DFMA" => Opc::Dfma { rnd: rnd(m) },
        "DSETP" => {
            let Some(cmp) = m.take_any(&CMPS) else {
                return Opc::Unsupported("DSETP without a comparison".into());
            };
            Opc::Dsetp {
                cmp,
                bop: m.take_any(&BOPS).unwrap_or(Bop::And),
            }
        }
        "HADD2" | "HMUL2" | "HFMA2" => {
            let f32 = m.take("F32");
            m.take("FTZ");
            match base {
                "HADD2" => Opc::Hadd2 { f32 },
                "HMUL2" => Opc::Hmul2 { f32 },
                _ => Opc::Hfma2 { f32 },
            }
        }
        "F2I" => {
            let ftz = m.take("FTZ");
            let dst = m.take_any(&INTS).unwrap_or(IntTy::S32);
            let src = m.take_any(&FLOATS).unwrap_or(FloatTy::F32);
            Opc::F2i {
                src,
                dst,
                c: Conv { rnd: rnd(m), ftz },
            }
        }
        "I2F" | "I2FP" => {
            let ftz = m.take("FTZ");
            let dst = m.take_any(&FLOATS).unwrap_or(FloatTy::F32);
            let src = m.take_any(&INTS).unwrap_or(IntTy::S32);
            Opc::I2f {
                src,
                dst,
                c: Conv { rnd: rnd(m), ftz },
            }
        }
        "F2F" => {
            let ftz = m.take("FTZ");
            let dst = m.take_any(&FLOATS);
            let src = m.take_any(&FLOATS);
            match (dst, src) {
                (Some(dst), Some(src)) => Opc::F2f {
                    src,
                    dst,
                    c: Conv { rnd: rnd(m), ftz },
                },
                _ => Opc::Unsupported("F2F needs a destination and a source type".into()),
            }
        }
        "F2FP" => {
            m.take("F16");
            m.take("F32");
            if m.take("PACK_AB") {
                Opc::F2fpPack
            } else {
                Opc::Unsupported("F2FP without .PACK_AB".into())
            }
        }
        "LDG" | "LDS" | "LDL" | "LD" => {
            let space = space_of(base);
            let (bytes, signed) = size(m);
            Opc::Ld {
                space,
                bytes,
                signed,
                wide_addr: m.list.contains(&"E"),
            }
        }
        "STG" | "STS" | "STL" | "ST" => {
            let space = space_of(base);
            let (bytes, _) = size(m);
            Opc::St {
                space,
                bytes,
                wide_addr: m.list.contains(&"E"),
            }
        }
        "LDC" => {
            let (bytes, _) = size(m);
            Opc::Ldc { bytes }
        }
        "ATOM" | "ATOMG" | "ATOMS" | "RED" | "REDG" => {
            let space = match base {
                "ATOMS" => MemSpace::Shared,
                "ATOM" => MemSpace::Generic,
                _ => MemSpace::Global,
            };
            let op = m.take_any(&[
                ("ADD", AtomOp::Add),
                ("MIN", AtomOp::Min),
                ("MAX", AtomOp::Max),
                ("INC", AtomOp::Inc),
                ("DEC", AtomOp::Dec),
                ("AND", AtomOp::And),
                ("OR", AtomOp::Or),
                ("XOR", AtomOp::Xor),
                ("EXCH", AtomOp::Exch),
                ("CAS", AtomOp::Cas),
            ]);
            let ty = m
                .take_any(&[
                    ("F32", AtomTy::F32),
                    ("F64", AtomTy::F64),
                    ("U32", AtomTy::U32),
                    ("S32", AtomTy::S32),
                    ("64", AtomTy::U64),
                    ("U64", AtomTy::U64),
                    ("S64", AtomTy::S64),
                ])
                .unwrap_or(AtomTy::U32);
            m.take("FTZ");
            m.take("RN");
            let Some(op) = op else {
                return Opc::Unsupported("atomic without an operation".into());
            };
            Opc::Atom {
                space,
                op,
                ty,
                ret: !base.starts_with("RED"),
                wide_addr: m.list.contains(&"E"),
            }
        }
        "SHFL" => match m.take_any(&[
            ("IDX", Shfl::Idx),
            ("UP", Shfl::Up),
            ("DOWN", Shfl::Down),
            ("BFLY", Shfl::Bfly),
        ]) {
            Some(s) => Opc::Shfl(s),
            None => Opc::Unsupported("SHFL mode".into()),
        },
        "VOTE" | "VOTEU" => {
            match m.take_any(&[("ALL", VOTE_ALL), ("ANY", VOTE_ANY), ("EQ", VOTE_EQ)]) {
                Some(mode) => Opc::Vote { mode },
                None => Opc::Unsupported("VOTE mode".into()),
            }
        }
        "REDUX" => {
            let op = m.take_any(&[
                ("AND", ReduxOp::And),
                ("OR", ReduxOp::Or),
                ("XOR", ReduxOp::Xor),
                ("SUM", ReduxOp::Sum),
                ("MIN", ReduxOp::Min),
                ("MAX", ReduxOp::Max),
            ]);
            let signed = m.take("S32");
            m.take("U32");
            match op {
                Some(op) => Opc::Redux { op, signed },
                None => Opc::Unsupported("REDUX without an operation".into()),
            }
        }
        "S2R" | "S2UR" => Opc::S2r,
        "CS2R" => {
            m.take("32");
            Opc::Cs2r
        }
        "R2UR" => Opc::R2ur,
        "BAR" => {
            if m.take("SYNC") {
                Opc::Bar
            } else {
                Opc::Unsupported("BAR other than BAR.SYNC".into())
            }
        }
        "BRA" => {
            let div = m.take("DIV");
            let conv = m.take("CONV");
            m.take("U");
            if div || conv {
                Opc::BraWarp { div }
            } else {
                Opc::Bra
            }
        }
        "EXIT" | "KILL" => Opc::Exit,
        "BSSY" => Opc::Bssy,
        "BSYNC" => Opc::Bsync,
        "BREAK" => Opc::Break,
        "BMOV" => {
            m.take("32");
            Opc::Bmov {
                clear: m.take("CLEAR"),
            }
        }
        "WARPSYNC" => {
            m.take("EXCLUSIVE");
            Opc::Warpsync
        }
        "CALL" => Opc::Call,
        "RET" => Opc::Ret,
        other => Opc::Unsupported(format!("the opcode {other} is not supported")),
    }
}

fn space_of(base: &str) -> MemSpace {
    match base {
        "LDG" | "STG" => MemSpace::Global,
        "LDS" | "STS" => MemSpace::Shared,
        "LDL" | "STL" => MemSpace::Local,
        _ => MemSpace::Generic,
    }
}

/// Access size in bytes and sign extension from `.U8 .S8 .U16 .S16 .32 .64 .128`.
fn size(m: &mut Mods) -> (u8, bool) {
    let t = m.take_any(&[
        ("U8", (1, false)),
        ("S8", (1, true)),
        ("U16", (2, false)),
        ("S16", (2, true)),
        ("32", (4, false)),
        ("64", (8, false)),
        ("128", (16, false)),
    ]);
    t.unwrap_or((4, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_decode_with_their_modifiers_and_refuse_unknown_ones() {
        assert_eq!(
            decode_op("ISETP.GE.U32.AND.EX").0,
            Opc::Isetp {
                cmp: Cmp::Ge,
                signed: false,
                bop: Bop::And,
                ex: true
            }
        );
        assert_eq!(
            decode_op("LDG.E.128.SYS").0,
            Opc::Ld {
                space: MemSpace::Global,
                bytes: 16,
                signed: false,
                wide_addr: true
            }
        );
        assert_eq!(decode_op("UIADD3.X"), (Opc::Iadd3 { x: true }, true));
        assert!(matches!(
            decode_op("REDG.E.ADD.STRONG.GPU").0,
            Opc::Atom { ret: false, .. }
        ));
        match decode_op("FADD.BOGUS").0 {
            Opc::Unsupported(m) => assert!(m.contains(".BOGUS"), "{m}"),
            o => panic!("{o:?}"),
        }
        match decode_op("HMMA.16816.F32").0 {
            Opc::Unsupported(m) => assert!(m.contains("HMMA"), "{m}"),
            o => panic!("{o:?}"),
        }
    }
}
