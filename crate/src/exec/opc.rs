//! What the executor does for an opcode ([`Opc`]) and the types of its modifiers, as
//! [`super::decode`] reads them from the opcode text.

/// Integer comparison / float comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    F,
    Lt,
    Eq,
    Le,
    Gt,
    Ne,
    Ge,
    T,
    Num,
    Nan,
    Ltu,
    Equ,
    Leu,
    Gtu,
    Neu,
    Geu,
}

/// Boolean combination of a comparison with a predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bop {
    And,
    Or,
    Xor,
}

impl Bop {
    #[inline]
    pub fn apply(self, a: u32, b: u32) -> u32 {
        match self {
            Bop::And => a & b,
            Bop::Or => a | b,
            Bop::Xor => a ^ b,
        }
    }
}

/// Integer operand types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntTy {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    U64,
    S64,
}

impl IntTy {
    pub fn signed(self) -> bool {
        matches!(self, IntTy::S8 | IntTy::S16 | IntTy::S32 | IntTy::S64)
    }
    pub fn wide(self) -> bool {
        matches!(self, IntTy::U64 | IntTy::S64)
    }
}

/// Floating-point types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatTy {
    F16,
    F32,
    F64,
}

/// Rounding modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// To nearest even (RN, the default).
    Rn,
    /// Toward zero (RZ, TRUNC).
    Rz,
    /// Toward minus infinity (RM, FLOOR).
    Rm,
    /// Toward plus infinity (RP, CEIL).
    Rp,
}

/// MUFU functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MufuFn {
    Rcp,
    Rsq,
    Sqrt,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
    Rcp64h,
    Rsq64h,
}

/// SHFL modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shfl {
    Idx,
    Up,
    Down,
    Bfly,
}

/// Memory spaces of loads, stores and atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemSpace {
    Global,
    Shared,
    Local,
    /// Generic `LD`/`ST`/`ATOM`: global, or shared or local through their windows
    /// ([`super::memory::resolve_generic`]).
    Generic,
}

/// The reductions of `REDUX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduxOp {
    And,
    Or,
    Xor,
    Sum,
    Min,
    Max,
}

/// Atomic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

/// Conversion of one type to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv {
    pub rnd: Round,
    pub ftz: bool,
}

/// What an instruction does.
#[derive(Clone, Debug, PartialEq)]
pub enum Opc {
    /// `@!PT`: no lane executes it (recorded with an empty mask).
    Never,
    Unsupported(String),
    Nop,
    Mov,
    Imad {
        hi: bool,
        wide: bool,
        signed: bool,
        x: bool,
    },
    Iadd3 {
        x: bool,
    },
    Viadd,
    Lea {
        hi: bool,
        x: bool,
        sx32: bool,
    },
    Shf {
        left: bool,
        hi: bool,
        ty: IntTy,
        wrap: bool,
    },
    Shl,
    Shr {
        signed: bool,
    },
    Lop3,
    Isetp {
        cmp: Cmp,
        signed: bool,
        bop: Bop,
        ex: bool,
    },
    Plop3,
    Sel,
    Iabs,
    Imnmx {
        signed: bool,
    },
    Popc,
    Flo {
        signed: bool,
        sh: bool,
    },
    Brev,
    Prmt,
    Bmsk {
        wrap: bool,
    },
    Sgxt {
        signed: bool,
    },
    P2r,
    R2p,
    Fadd {
        ftz: bool,
        sat: bool,
        rnd: Round,
    },
    Fmul {
        ftz: bool,
        sat: bool,
        rnd: Round,
    },
    Ffma {
        ftz: bool,
        sat: bool,
        rnd: Round,
    },
    Fmnmx {
        ftz: bool,
    },
    Fsetp {
        cmp: Cmp,
        bop: Bop,
        ftz: bool,
    },
    Fsel,
    Fchk,
    Frnd {
        rnd: Round,
        f64: bool,
    },
    Mufu(MufuFn),
    Dadd {
        rnd: Round,
    },
    Dmul {
        rnd: Round,
    },
    Dfma {
        rnd: Round,
    },
    Dsetp {
        cmp: Cmp,
        bop: Bop,
    },
    Hadd2 {
        f32: bool,
    },
    Hmul2 {
        f32: bool,
    },
    Hfma2 {
        f32: bool,
    },
    F2i {
        src: FloatTy,
        dst: IntTy,
        c: Conv,
    },
    I2f {
        src: IntTy,
        dst: FloatTy,
        c: Conv,
    },
    F2f {
        src: FloatTy,
        dst: FloatTy,
        c: Conv,
    },
    /// `F2FP.F16.F32.PACK_AB d, a, b`: two f32 -> two halves (a high, b low).
    F2fpPack,
    Ld {
        space: MemSpace,
        bytes: u8,
        signed: bool,
        wide_addr: bool,
    },
    St {
        space: MemSpace,
        bytes: u8,
        wide_addr: bool,
    },
    Ldc {
        bytes: u8,
    },
    Atom {
        space: MemSpace,
        op: AtomOp,
        ty: AtomTy,
        ret: bool,
        wide_addr: bool,
    },
    Shfl(Shfl),
    Vote {
        mode: u8,
    },
    /// `REDUX.op` of a register over the active lanes into a uniform register.
    Redux {
        op: ReduxOp,
        signed: bool,
    },
    S2r,
    Cs2r,
    R2ur,
    Bar,
    Bra,
    /// `BRA.DIV [mask,] target` (`div`): the group branches when the warp's live lanes of the
    /// mask (all lanes without one) are not all in it; `BRA.CONV`: when they are.
    BraWarp {
        div: bool,
    },
    Exit,
    Bssy,
    Bsync,
    Break,
    Bmov {
        clear: bool,
    },
    Warpsync,
    Call,
    Ret,
}

/// Element types of atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomTy {
    U32,
    S32,
    U64,
    S64,
    F32,
    F64,
}

/// Vote modes.
pub const VOTE_ALL: u8 = 0;
pub const VOTE_ANY: u8 = 1;
pub const VOTE_EQ: u8 = 2;
