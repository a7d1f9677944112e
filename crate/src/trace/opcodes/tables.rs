//! The opcode tables, transcribed from Accel-Sim's `ISA_Def/{pascal,volta,turing,ampere,
//! hopper}_opcode.h` (facts only: which base opcodes each architecture has and their category),
//! mapped onto warpweave's classes. One row per base opcode with the set of architectures that
//! know it; a few opcodes have a different class per architecture and appear twice.

use crate::trace::model::{LatClass, MemSpace, OpKind, Unit};

/// A class: everything [`super::classify`] fills in besides the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Class {
    pub unit: Unit,
    pub lat: LatClass,
    pub kind: OpKind,
    pub space: MemSpace,
}

const fn c(unit: Unit, lat: LatClass, kind: OpKind, space: MemSpace) -> Class {
    Class {
        unit,
        lat,
        kind,
        space,
    }
}
const fn mem(kind: OpKind, space: MemSpace) -> Class {
    c(Unit::Mem, LatClass::Mem, kind, space)
}

use LatClass as L;
use MemSpace as S;
use OpKind as K;

pub const INT: Class = c(Unit::Int, L::Int, K::Alu, S::None);
const IMUL: Class = c(Unit::Int, L::IntMul, K::Alu, S::None);
const SP: Class = c(Unit::Sp, L::Fp32, K::Alu, S::None);
const HP: Class = c(Unit::Sp, L::Fp16, K::Alu, S::None);
const DP: Class = c(Unit::Dp, L::Dp, K::Alu, S::None);
const SFU: Class = c(Unit::Sfu, L::Sfu, K::Alu, S::None);
const TENSOR: Class = c(Unit::Tensor, L::Tensor, K::Alu, S::None);
const UNI: Class = c(Unit::Uniform, L::Uniform, K::Alu, S::None);
const BRA: Class = c(Unit::Branch, L::Branch, K::Branch, S::None);
const EXIT: Class = c(Unit::Branch, L::Branch, K::Exit, S::None);
const BAR: Class = c(Unit::Int, L::Int, K::Barrier, S::None);
const NOP: Class = c(Unit::Int, L::Int, K::Nop, S::None);
const MEMBAR: Class = mem(K::MemBarrier, S::None);
const LDG: Class = mem(K::Load, S::Global);
const STG: Class = mem(K::Store, S::Global);
const LDL: Class = mem(K::Load, S::Local);
const STL: Class = mem(K::Store, S::Local);
const LDS: Class = mem(K::Load, S::Shared);
const STS: Class = mem(K::Store, S::Shared);
const LD: Class = mem(K::Load, S::Generic);
const ST: Class = mem(K::Store, S::Generic);
const ATOMG: Class = mem(K::Atomic, S::Global);
const ATOMS: Class = mem(K::Atomic, S::Shared);
const RED: Class = mem(K::Reduction, S::Global);
const LDC: Class = mem(K::Load, S::Constant);
const TEX: Class = mem(K::Load, S::Texture);
const SURF_LD: Class = mem(K::Load, S::Global);
const SURF_ST: Class = mem(K::Store, S::Global);
const SYNCS: Class = mem(K::MemBarrier, S::Shared);

// Architecture sets (bit = Arch as u8).
const P: u8 = 1;
const V: u8 = 2;
const T: u8 = 4;
const A: u8 = 8;
const D: u8 = 16;
const H: u8 = 32;
const ALL: u8 = P | V | T | A | D | H;
const VP: u8 = V | T | A | D | H; // Volta and later
const TP: u8 = T | A | D | H; // Turing and later
const AP: u8 = A | D | H; // Ampere and later

/// `(base opcode, architectures, class)`.
static TABLE: &[(&str, u8, Class)] = &[
    // FP32
    ("FADD", ALL, SP),
    ("FADD32I", ALL, SP),
    ("FCHK", ALL, SP),
    ("FFMA32I", ALL, SP),
    ("FFMA", ALL, SP),
    ("FMNMX", ALL, SP),
    ("FMUL", ALL, SP),
    ("FMUL32I", ALL, SP),
    ("FSEL", ALL, SP),
    ("FSET", ALL, SP),
    ("FSETP", ALL, SP),
    ("FSWZADD", ALL, SP),
    ("RRO", P, SP),
    ("FCMP", P, SP),
    ("VIMNMX", H, SP),
    ("VIMNMX3", H, SP),
    // SFU
    ("MUFU", ALL, SFU),
    // FP16
    ("HADD2", ALL, HP),
    ("HADD2_32I", VP, HP),
    ("HFMA2", ALL, HP),
    ("HFMA2_32I", VP, HP),
    ("HMUL2", ALL, HP),
    ("HMUL2_32I", VP, HP),
    ("HSET2", ALL, HP),
    ("HSETP2", ALL, HP),
    ("HMNMX2", AP, HP),
    // Tensor
    ("HMMA", VP, TENSOR),
    ("BMMA", TP, TENSOR),
    ("IMMA", TP, TENSOR),
    ("IMMA", P | V, IMUL),
    ("DMMA", AP, TENSOR),
    ("HGMMA", H, TENSOR),
    ("QGMMA", H, TENSOR),
    ("IGMMA", H, TENSOR),
    // FP64
    ("DADD", ALL, DP),
    ("DFMA", ALL, DP),
    ("DMUL", ALL, DP),
    ("DSETP", ALL, DP),
    ("DMNMX", P, DP),
    ("DSET", P, DP),
    // Integer
    ("BMSK", ALL, INT),
    ("BREV", ALL, INT),
    ("FLO", ALL, INT),
    ("IABS", ALL, INT),
    ("IADD", ALL, INT),
    ("IADD3", ALL, INT),
    ("IADD32I", ALL, INT),
    ("IDP", ALL, IMUL),
    ("IDP4A", ALL, IMUL),
    ("IMAD", ALL, IMUL),
    ("IMNMX", ALL, INT),
    ("IMUL", ALL, IMUL),
    ("IMUL32I", ALL, IMUL),
    ("ISCADD", ALL, INT),
    ("ISCADD32I", ALL, INT),
    ("ISETP", ALL, INT),
    ("LEA", ALL, INT),
    ("LOP", ALL, INT),
    ("LOP3", ALL, INT),
    ("LOP32I", ALL, INT),
    ("POPC", ALL, INT),
    ("SHF", ALL, INT),
    ("SHL", P | TP, INT),
    ("SHR", ALL, INT),
    ("VABSDIFF", ALL, INT),
    ("VABSDIFF4", ALL, INT),
    ("VADD", P, INT),
    ("ISET", P, INT),
    ("BFE", P, INT),
    ("BFI", P, INT),
    ("ICMP", P, INT),
    ("IMADSP", P, IMUL),
    ("XMAD", P, IMUL),
    ("VMNMX", P, INT),
    ("VIADD", H, INT),
    ("VIADDMNMX", H, INT),
    // Conversions
    ("F2F", ALL, INT),
    ("F2FP", AP, INT),
    ("F2I", ALL, INT),
    ("I2F", ALL, INT),
    ("I2I", ALL, INT),
    ("I2IP", ALL, INT),
    ("I2FP", AP, INT),
    ("F2IP", AP, INT),
    ("FRND", ALL, INT),
    // Movement
    ("MOV", ALL, INT),
    ("MOV32I", ALL, INT),
    ("MOVM", TP, INT),
    ("PRMT", ALL, INT),
    ("SEL", ALL, INT),
    ("SGXT", ALL, INT),
    ("SHFL", ALL, INT),
    // Predicates
    ("PLOP3", ALL, INT),
    ("PSETP", ALL, INT),
    ("P2R", ALL, INT),
    ("R2P", ALL, INT),
    ("CSET", P, INT),
    ("CSETP", P, INT),
    ("PSET", P, INT),
    // Load / store
    ("LD", ALL, LD),
    ("LDC", ALL, LDC),
    ("LDG", ALL, LDG),
    ("LDL", ALL, LDL),
    ("LDS", ALL, LDS),
    ("LDSM", TP, LDS),
    ("ST", ALL, ST),
    ("STG", ALL, STG),
    ("STL", ALL, STL),
    ("STS", ALL, STS),
    ("MATCH", ALL, INT),
    ("QSPC", ALL, INT),
    ("ATOM", ALL, ATOMG),
    ("ATOMS", ALL, ATOMS),
    ("ATOMG", ALL, ATOMG),
    ("RED", ALL, RED),
    ("REDG", H, RED), // sm_90 spelling of a global RED (atomicAdd whose result is unused)
    ("CCTL", ALL, INT),
    ("CCTLL", ALL, INT),
    ("ERRBAR", ALL, INT),
    ("CGAERRBAR", H, INT),
    ("MEMBAR", ALL, MEMBAR),
    ("CCTLT", ALL, INT),
    ("LDGDEPBAR", AP, INT),
    ("LDGSTS", AP, LDG),
    // Hopper TMA and synchronisation
    ("UBLKCP", H, LDG),
    ("UBLKPF", H, NOP),
    ("UBLKRED", H, RED),
    ("UTMALDG", H, LDG),
    ("UTMAPF", H, NOP),
    ("UTMAREDG", H, RED),
    ("UTMASTG", H, STG),
    ("UTMACCTL", H, NOP),
    ("UTMACMDFLUSH", H, NOP),
    ("FENCE", H, MEMBAR),
    ("SYNCS", H, SYNCS),
    ("ARRIVES", H, INT),
    ("UCGABAR_ARV", H, NOP),
    ("UCGABAR_WAIT", H, NOP),
    ("WARPGROUP", H, NOP),
    ("ELECT", H, BRA),
    ("USETMAXREG", H, NOP),
    // Uniform datapath
    ("R2UR", TP, UNI),
    ("REDUX", AP, UNI),
    ("S2UR", TP, UNI),
    ("UBMSK", TP, UNI),
    ("UBREV", TP, UNI),
    ("UCLEA", TP, UNI),
    ("UF2FP", AP, UNI),
    ("UFLO", TP, UNI),
    ("UIADD3", TP, UNI),
    ("UIMAD", TP, UNI),
    ("UISETP", TP, UNI),
    ("ULDC", TP, UNI),
    ("ULEA", TP, UNI),
    ("ULOP", TP, UNI),
    ("ULOP3", TP, UNI),
    ("ULOP32I", TP, UNI),
    ("UMOV", TP, UNI),
    ("UP2UR", TP, UNI),
    ("UPLOP3", TP, UNI),
    ("UPOPC", TP, UNI),
    ("UPRMT", TP, UNI),
    ("UPSETP", TP, UNI),
    ("UR2UP", TP, UNI),
    ("USEL", TP, UNI),
    ("USGXT", TP, UNI),
    ("USHF", TP, UNI),
    ("USHL", TP, UNI),
    ("USHR", TP, UNI),
    ("VOTEU", TP, UNI),
    // Texture
    ("TEX", ALL, TEX),
    ("TLD", ALL, TEX),
    ("TLD4", ALL, TEX),
    ("TMML", ALL, TEX),
    ("TXD", ALL, TEX),
    ("TXQ", ALL, TEX),
    ("TEXS", P, TEX),
    ("TLD4S", P, TEX),
    ("TLDS", P, TEX),
    // Surface
    ("SUATOM", TP, SURF_ST),
    ("SULD", TP, SURF_LD),
    ("SUQUERY", AP, INT),
    ("SURED", TP, SURF_ST),
    ("SUST", TP, SURF_ST),
    // Control
    ("BMOV", ALL, BRA),
    ("BPT", ALL, BRA),
    ("BRA", ALL, BRA),
    ("BREAK", ALL, BRA),
    ("BRX", ALL, BRA),
    ("BRXU", TP, BRA),
    ("BSSY", ALL, BRA),
    ("BSYNC", ALL, BRA),
    ("CALL", ALL, BRA),
    ("EXIT", ALL, EXIT),
    ("JMP", ALL, BRA),
    ("JMX", ALL, BRA),
    ("JMXU", TP, BRA),
    ("KILL", ALL, EXIT),
    ("NANOSLEEP", ALL, BRA),
    ("RET", ALL, BRA),
    ("RPCMOV", ALL, BRA),
    ("RTT", ALL, BRA),
    ("WARPSYNC", ALL, BRA),
    ("YIELD", ALL, BRA),
    ("SSY", P, BRA),
    ("SYNC", P, BRA),
    ("CAL", P, BRA),
    ("JCAL", P, BRA),
    ("PRET", P, BRA),
    ("BRK", P, BRA),
    ("PBK", P, BRA),
    ("CONT", P, BRA),
    ("PCNT", P, BRA),
    ("PEXIT", P, BRA),
    // Miscellaneous
    ("B2R", ALL, INT),
    ("BAR", ALL, BAR),
    ("CS2R", ALL, INT),
    ("CSMTEST", ALL, INT),
    ("DEPBAR", ALL, INT),
    ("GETLMEMBASE", ALL, INT),
    ("LEPC", ALL, INT),
    ("NOP", ALL, NOP),
    ("PMTRIG", ALL, INT),
    ("R2B", ALL, INT),
    ("S2R", ALL, INT),
    ("SETCTAID", ALL, INT),
    ("SETLMEMBASE", ALL, INT),
    ("VOTE", ALL, INT),
    ("VOTE_VTG", ALL, INT),
];

/// The class of `base` on the architecture with bit `arch_bit`, if that architecture knows it.
pub fn lookup(arch_bit: u8, base: &str) -> Option<Class> {
    TABLE
        .iter()
        .find(|(name, archs, _)| archs & arch_bit != 0 && *name == base)
        .map(|(_, _, c)| *c)
}

/// Every base opcode known on some architecture (for tests).
#[cfg(test)]
pub fn all_names() -> impl Iterator<Item = &'static str> {
    TABLE.iter().map(|(n, _, _)| *n)
}
