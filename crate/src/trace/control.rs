//! Compiler control bits: the per-instruction word NVIDIA's compiler puts beside every SASS
//! instruction since Maxwell (`../shared/reference/modern-gpu-cores.md` section 1, after Huerta
//! et al., MICRO 2025, section 4). The hardware has no register scoreboard; these fields tell the
//! issue stage when a warp may go on:
//!
//! ```text
//!  stall S   4 bits  the warp's next instruction issues >= S cycles after this one (S = 1:
//!                    back to back)
//!  yield Y   1 bit   do not issue this warp in the next cycle
//!  wb SB     3 bits  dependence counter (SB0..SB5, 7 = none) incremented one cycle after
//!                    issue, decremented when the results are written (RAW, WAW)
//!  rd SB     3 bits  the same for the source reads (WAR)
//!  wait      6 bits  issue only when every selected counter is 0
//!  reuse     1 bit per source operand position: keep the operand in the register-file cache
//! ```
//! [`Ctrl`] packs them in 32 bits with a `present` bit: [`Ctrl::NONE`] (all zero) means the
//! trace carries none for this instruction and the core falls back to a scoreboard.

use serde::{Deserialize, Serialize};

/// Dependence counters per warp.
pub const NUM_SB: usize = 6;
/// The "no counter" value of the write-back and read SB fields.
pub const SB_NONE: u8 = 7;
/// Source-operand positions the register-file cache has slots for (A, B, C) and that carry a
/// reuse flag.
pub const REUSE_SLOTS: usize = 3;

/// One instruction's control bits, packed:
/// `[0:4)` stall, `[4]` yield, `[5:8)` wb SB, `[8:11)` rd SB, `[11:17)` wait mask,
/// `[17:20)` reuse flags for source positions 0-2, `[31]` present.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ctrl(pub u32);

impl Ctrl {
    /// No control bits known (the core uses its scoreboard fallback).
    pub const NONE: Ctrl = Ctrl(0);
    const PRESENT: u32 = 1 << 31;

    /// A control word. `stall` is cut to 4 bits, SB ids above 5 mean none, `wait` to 6 bits,
    /// `reuse` to [`REUSE_SLOTS`] bits (bit i = source position i).
    pub fn new(stall: u8, yield_: bool, wb: u8, rd: u8, wait: u8, reuse: u8) -> Ctrl {
        let sb = |s: u8| if (s as usize) < NUM_SB { s } else { SB_NONE } as u32;
        Ctrl(
            Self::PRESENT
                | (stall as u32 & 0xf)
                | (yield_ as u32) << 4
                | sb(wb) << 5
                | sb(rd) << 8
                | (wait as u32 & 0x3f) << 11
                | (reuse as u32 & 0x7) << 17,
        )
    }
    /// Whether the trace carries control bits for this instruction.
    #[inline]
    pub fn present(self) -> bool {
        self.0 & Self::PRESENT != 0
    }
    /// Stall count S (0-15).
    #[inline]
    pub fn stall(self) -> u8 {
        (self.0 & 0xf) as u8
    }
    /// Yield: the warp does not issue in the next cycle.
    #[inline]
    pub fn yield_(self) -> bool {
        self.0 & (1 << 4) != 0
    }
    /// Write-back dependence counter (`None` when the field is 7).
    #[inline]
    pub fn wb_sb(self) -> Option<u8> {
        let s = ((self.0 >> 5) & 7) as u8;
        (s != SB_NONE && self.present()).then_some(s)
    }
    /// Read dependence counter (`None` when the field is 7).
    #[inline]
    pub fn rd_sb(self) -> Option<u8> {
        let s = ((self.0 >> 8) & 7) as u8;
        (s != SB_NONE && self.present()).then_some(s)
    }
    /// Wait mask (bit i = SB i).
    #[inline]
    pub fn wait(self) -> u8 {
        ((self.0 >> 11) & 0x3f) as u8
    }
    /// Reuse flags (bit i = source position i).
    #[inline]
    pub fn reuse(self) -> u8 {
        ((self.0 >> 17) & 0x7) as u8
    }
    /// This word with reuse flags `r` instead of its own.
    pub fn with_reuse(self, r: u8) -> Ctrl {
        Ctrl((self.0 & !(0x7 << 17)) | (r as u32 & 0x7) << 17)
    }
    /// Decodes the control fields of a Volta-and-later 128-bit SASS encoding from its upper
    /// 64-bit word (the second `/* 0x... */` of `cuobjdump -sass`): stall `[41:45)`, yield
    /// `[45]` active low, write-back SB `[46:49)`, read SB `[49:52)`, wait mask `[52:58)`
    /// (modern-gpu-cores.md section 1, after the authors' tracer). `reuse` comes from the
    /// `.reuse` suffixes of the text, not the encoding.
    pub fn from_sass_hi(hi: u64, reuse: u8) -> Ctrl {
        let f = |lo: u32, bits: u32| ((hi >> lo) & ((1 << bits) - 1)) as u8;
        Ctrl::new(f(41, 4), f(45, 1) == 0, f(46, 3), f(49, 3), f(52, 6), reuse)
    }
}

impl std::fmt::Display for Ctrl {
    /// `S4 Y wb2 rd- wait[0,3] reuse[A]`, or `-` when absent.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.present() {
            return f.write_str("-");
        }
        write!(f, "S{}", self.stall())?;
        if self.yield_() {
            f.write_str(" Y")?;
        }
        let sb = |s: Option<u8>| s.map_or("-".to_string(), |v| v.to_string());
        write!(f, " wb{} rd{}", sb(self.wb_sb()), sb(self.rd_sb()))?;
        if self.wait() != 0 {
            let ids: Vec<String> = (0..NUM_SB)
                .filter(|i| self.wait() & (1 << i) != 0)
                .map(|i| i.to_string())
                .collect();
            write!(f, " wait[{}]", ids.join(","))?;
        }
        if self.reuse() != 0 {
            let pos: String = (0..REUSE_SLOTS)
                .filter(|i| self.reuse() & (1 << i) != 0)
                .map(|i| (b'A' + i as u8) as char)
                .collect();
            write!(f, " reuse[{pos}]")?;
        }
        Ok(())
    }
}

/// Where a kernel's control bits came from; every result names it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CtrlSource {
    /// None in the trace: dependences through the scoreboard fallback, reuse flags inferred.
    #[default]
    None,
    /// Decoded from the kernel's SASS (`cuobjdump -sass` encodings and `.reuse` suffixes).
    Sass,
    /// Emitted by a built-in workload model as nvcc would set them.
    Workload,
}

impl CtrlSource {
    pub fn name(self) -> &'static str {
        match self {
            CtrlSource::None => "none",
            CtrlSource::Sass => "sass",
            CtrlSource::Workload => "workload",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let c = Ctrl::new(4, true, 2, 7, 0b100001, 0b101);
        assert!(c.present());
        assert_eq!(
            (
                c.stall(),
                c.yield_(),
                c.wb_sb(),
                c.rd_sb(),
                c.wait(),
                c.reuse()
            ),
            (4, true, Some(2), None, 0b100001, 0b101)
        );
        assert_eq!(c.to_string(), "S4 Y wb2 rd- wait[0,5] reuse[AC]");
        assert!(!Ctrl::NONE.present());
        assert_eq!(Ctrl::NONE.wb_sb(), None);
        assert_eq!(c.with_reuse(0).reuse(), 0);
    }

    #[test]
    fn sass_upper_word() {
        // stall 5, yield bit 1 (no yield), wb 1, rd 7, wait 0b000100.
        let hi: u64 = 5 << 41 | 1 << 45 | 1 << 46 | 7 << 49 | 0b000100 << 52;
        let c = Ctrl::from_sass_hi(hi, 0);
        assert_eq!(
            (c.stall(), c.yield_(), c.wb_sb(), c.rd_sb(), c.wait()),
            (5, false, Some(1), None, 0b100)
        );
        // Yield is active low.
        assert!(Ctrl::from_sass_hi(0, 0).yield_());
    }
}
