//! One warp's architectural state and its SIMT thread groups.
//!
//! Registers are kept lane-major per register (`regs[r][lane]`), predicates as lane masks
//! (`p[i]` bit `lane`), uniform registers and predicates once per warp.
//!
//! Divergence as sm_70 and later run it (independent thread scheduling with convergence
//! barriers): the warp is a list of thread groups, each with a PC and a lane mask. A branch
//! whose guard splits the group's lanes leaves the not-taken lanes in the group (they go on)
//! and adds a group for the taken lanes. `BSSY Bx` records the group's lanes in barrier `x`;
//! a group reaching `BSYNC Bx` waits until every lane of `x` that has not exited waits there
//! too, then the waiting groups merge and go on after the BSYNC. `WARPSYNC mask` waits the
//! same way for the mask's live lanes; `BREAK Bx` takes lanes out of `x`; `EXIT` retires
//! lanes. Groups never merge anywhere else, as on the hardware, so each group's pass over
//! shared code issues (and counts) its own instructions.

use super::operand::{HalfSel, Kind, Operand};
use crate::trace::model::WarpTrace;

/// What a thread group waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Runnable.
    Run,
    /// At `BSYNC Bx`.
    Bsync(u8),
    /// At the `WARPSYNC` at this instruction index.
    Warpsync(u32),
    /// At `BAR.SYNC`: released by the CTA.
    Bar,
}

/// Lanes of a warp at one PC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// Index of the next instruction.
    pub pc: u32,
    pub mask: u32,
    pub wait: Wait,
}

/// How an operand's literal and modifiers are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ctx {
    /// Integer: literals as integers, `-` negates, `~` complements, `|x|` absolute value.
    Int,
    /// Raw bits, no modifier applied (the caller applies them).
    Raw,
    /// FP32: literals as f32, `-` and `|x|` act on the sign bit.
    F32,
    /// Packed halves: a literal is one half in both positions unless paired.
    F16,
}

/// One warp.
pub struct Warp {
    /// Register rows; `zero` reads as RZ, `sink` takes writes to RZ.
    pub regs: Vec<[u32; 32]>,
    pub zero: usize,
    pub sink: usize,
    /// P0-P6 and PT as lane masks.
    pub p: [u32; 8],
    pub ur: [u32; 64],
    /// UP0-UP6, UPT: all ones or zero.
    pub up: [u32; 8],
    pub groups: Vec<Group>,
    pub exited: u32,
    /// Lanes that exist (the block may end inside the warp).
    pub exist: u32,
    /// Convergence barriers B0-B15.
    pub bars: [u32; 16],
    /// Local memory, a word of every lane per row, row `d` at `LOCAL_TOP - 4 (d + 1)`.
    pub local: Vec<[u32; 32]>,
    pub trace: WarpTrace,
    /// Warp instructions executed.
    pub count: u64,
    /// Index of the warp in its CTA.
    pub index: u32,
}

impl Warp {
    pub fn new(rows: usize, index: u32, exist: u32) -> Warp {
        Warp {
            regs: vec![[0u32; 32]; rows + 2],
            zero: rows,
            sink: rows + 1,
            p: [0, 0, 0, 0, 0, 0, 0, u32::MAX],
            ur: [0; 64],
            up: [0, 0, 0, 0, 0, 0, 0, u32::MAX],
            groups: vec![Group {
                pc: 0,
                mask: exist,
                wait: Wait::Run,
            }],
            exited: !exist,
            exist,
            bars: [0; 16],
            local: Vec::new(),
            trace: WarpTrace {
                warp_id: index,
                ..Default::default()
            },
            count: 0,
            index,
        }
    }

    #[inline]
    pub fn row(&self, n: u8) -> usize {
        if n == 255 {
            self.zero
        } else {
            n as usize
        }
    }

    #[inline]
    pub fn wrow(&self, n: u8) -> usize {
        if n == 255 {
            self.sink
        } else {
            n as usize
        }
    }

    /// Register pair `n`, `n + 1` of one lane as a 64-bit value (RZ: 0).
    #[inline]
    pub fn pair(&self, n: u8, lane: usize) -> u64 {
        if n == 255 {
            return 0;
        }
        let lo = self.regs[n as usize][lane] as u64;
        let hi = self.regs[self.row(n.saturating_add(1))][lane] as u64;
        lo | hi << 32
    }

    /// Uniform register pair.
    #[inline]
    pub fn upair(&self, n: u8) -> u64 {
        if n >= 63 {
            return 0;
        }
        self.ur[n as usize] as u64 | (self.ur[(n as usize + 1).min(63)] as u64) << 32
    }

    /// Lane mask of a predicate operand (with `!`).
    #[inline]
    pub fn pred(&self, o: &Operand) -> u32 {
        let v = match o.kind {
            Kind::Pred(n) => self.p[n as usize],
            Kind::UPred(n) => self.up[n as usize],
            _ => 0,
        };
        if o.not {
            !v
        } else {
            v
        }
    }

    /// Writes a predicate's lanes in `mask`.
    #[inline]
    pub fn set_pred(&mut self, o: &Operand, mask: u32, bits: u32) {
        match o.kind {
            Kind::Pred(n) if n < 7 => {
                let p = &mut self.p[n as usize];
                *p = (*p & !mask) | (bits & mask);
            }
            Kind::UPred(n) if n < 7 => {
                self.up[n as usize] = if bits & mask & 1 != 0 { u32::MAX } else { 0 };
            }
            _ => {}
        }
    }

    /// Writes `v` to the destination register operand in lanes `mask` (a uniform register
    /// takes lane 0).
    #[inline]
    pub fn write(&mut self, o: &Operand, mask: u32, v: &[u32; 32]) {
        match o.kind {
            Kind::Reg(n) => self.write_row(n, mask, v),
            Kind::UReg(n) if n < 63 && mask != 0 => {
                self.ur[n as usize] = v[mask.trailing_zeros() as usize];
            }
            _ => {}
        }
    }

    #[inline]
    pub fn write_row(&mut self, n: u8, mask: u32, v: &[u32; 32]) {
        let r = self.wrow(n);
        let row = &mut self.regs[r];
        if mask == u32::MAX {
            *row = *v;
        } else {
            for (l, x) in row.iter_mut().enumerate() {
                if mask & (1 << l) != 0 {
                    *x = v[l];
                }
            }
        }
    }

    /// Writes 64-bit values to the pair at the destination operand.
    pub fn write64(&mut self, o: &Operand, mask: u32, v: &[u64; 32]) {
        let mut lo = [0u32; 32];
        let mut hi = [0u32; 32];
        for l in 0..32 {
            lo[l] = v[l] as u32;
            hi[l] = (v[l] >> 32) as u32;
        }
        match o.kind {
            Kind::Reg(255) | Kind::UReg(63) => {}
            Kind::Reg(n) => {
                self.write_row(n, mask, &lo);
                self.write_row(n.saturating_add(1), mask, &hi);
            }
            Kind::UReg(n) if mask != 0 => {
                let l = mask.trailing_zeros() as usize;
                self.ur[n as usize] = lo[l];
                if n < 62 {
                    self.ur[n as usize + 1] = hi[l];
                }
            }
            _ => {}
        }
    }

    /// Index of the group to run next: the first runnable one.
    #[inline]
    pub fn runnable(&self) -> Option<usize> {
        self.groups.iter().position(|g| g.wait == Wait::Run)
    }

    /// True when every lane has exited.
    pub fn done(&self) -> bool {
        self.groups.is_empty()
    }

    /// True when the warp cannot go on until the CTA's barrier releases it.
    pub fn at_bar(&self) -> bool {
        self.runnable().is_none() && self.groups.iter().any(|g| g.wait == Wait::Bar)
    }

    /// Releases the groups waiting for `wait` when every live lane they wait for (`want`)
    /// is among them: they merge into one group at `next`. Returns whether it released.
    pub fn try_release(&mut self, wait: Wait, want: u32, next: u32) -> bool {
        let want = want & !self.exited;
        let arrived = self
            .groups
            .iter()
            .filter(|g| g.wait == wait)
            .fold(0u32, |m, g| m | g.mask);
        if arrived == 0 || want & !arrived != 0 {
            return false;
        }
        let first = self
            .groups
            .iter()
            .position(|g| g.wait == wait)
            .expect("arrived");
        self.groups[first] = Group {
            pc: next,
            mask: arrived,
            wait: Wait::Run,
        };
        let mut i = first + 1;
        while i < self.groups.len() {
            if self.groups[i].wait == wait {
                self.groups.remove(i);
            } else {
                i += 1;
            }
        }
        true
    }
}

/// Reads halves of a register value as selected.
#[inline]
pub fn halves(v: u32, sel: HalfSel) -> (u16, u16) {
    match sel {
        HalfSel::H1H0 => (v as u16, (v >> 16) as u16),
        HalfSel::H0H0 => (v as u16, v as u16),
        HalfSel::H1H1 => ((v >> 16) as u16, (v >> 16) as u16),
        HalfSel::F32 => {
            let h = super::alu::f2h(f32::from_bits(v));
            (h, h)
        }
    }
}
