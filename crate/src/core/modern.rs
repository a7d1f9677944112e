//! The modern core's own state (`core.model = "modern"`, modern-gpu-cores.md sections 1, 2
//! and 4, after Huerta et al., MICRO 2025): per warp, the control-bit dependence state; per
//! sub-core, the register read window and the register-file cache. The sub-core's issue
//! stage (`subcore.rs`) drives them:
//!
//! ```text
//!  issue at t   control bits: S = 0, Y not fired, every SB of the wait mask 0 (an increment
//!               lands in Control, issue + 1, and is seen from issue + 2); no control bits:
//!               the scoreboard (RAW/WAW, WAR)
//!               fixed latency: the unit's input latch free at t + 1 (interval)
//!               memory: the pipeline's dispatch latch free (no operand collectors)
//!  Control t+1  SB increments (write-back SB, read SB)
//!  Allocate     fixed latency: every register read in one 3-cycle window from t + 2, one read
//!               per bank port per cycle, register-file cache hits need none; a window that
//!               must start d cycles late holds the sub-core's issue d cycles
//!  write-back   write-back SB - 1 (fixed latency: at completion; memory: when the data is
//!               written); read SB - 1 when the sources are read (memory: when the address
//!               latch is done with the instruction)
//! ```
//! Banks are register parity (`reg % banks`); memory instructions' register reads are not
//! charged to the bank ports (the sheet's variable-latency read queue yields to fixed-latency
//! reads).

use crate::trace::control::{NUM_SB, REUSE_SLOTS};
use crate::trace::{is_zero_reg, Ctrl, MemSpace, OpKind, Reg, TraceInst, UR_BASE};
use crate::Cycle;

/// Cycles of the read window a fixed-latency instruction gets all its reads in.
pub const READ_WINDOW: u64 = 3;
/// Issue-to-window start: Control at issue + 1, Allocate at issue + 2.
const WINDOW_OFFSET: u64 = 2;
/// Cycles ahead the read calendar holds (a ring).
const CAL: usize = 64;
/// `S = 0` with yield: the warp stalls this long (ERRBAR, the self-branch after EXIT).
const ZERO_STALL_YIELD: u64 = 45;

/// A warp's control-bit state: six dependence counters and the stall counter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CtrlState {
    pub sb: [u8; NUM_SB],
    /// The SBs the last issued instruction incremented (write-back, read; 7 = none): not
    /// seen by readiness checks before `late_until`.
    late: [u8; 2],
    late_until: Cycle,
    /// The earliest cycle the warp's next instruction may issue (stall counter, yield).
    pub next_issue: Cycle,
}

/// What a wait mask allows now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Every selected counter is 0.
    Clear,
    /// Only increments that are not yet visible hold it: it may issue before this cycle.
    Before(Cycle),
    Blocked,
}

impl CtrlState {
    /// A warp starts with every counter 0.
    pub fn reset(&mut self) {
        *self = CtrlState {
            late: [7; 2],
            ..Default::default()
        };
    }

    /// The warp issued an instruction with control bits `c` at `now`.
    pub fn issue(&mut self, now: Cycle, c: Ctrl) {
        let stall = if c.present() {
            match (c.stall(), c.yield_()) {
                (0, true) => ZERO_STALL_YIELD,
                (0, false) => 1,
                (s, true) => (s as u64).max(2),
                (s, false) if s > 11 => 1,
                (s, false) => s as u64,
            }
        } else {
            1
        };
        self.next_issue = now + stall;
        self.late = [7; 2];
        for (k, sb) in [c.wb_sb(), c.rd_sb()].into_iter().enumerate() {
            if let Some(s) = sb {
                self.sb[s as usize] = self.sb[s as usize].saturating_add(1);
                self.late[k] = s;
            }
        }
        self.late_until = now + WINDOW_OFFSET;
    }

    /// Counter `s` released once (a write-back or a read done).
    pub fn release(&mut self, s: u8) {
        if let Some(v) = self.sb.get_mut(s as usize) {
            *v = v.saturating_sub(1);
        }
    }

    /// Whether wait mask `mask` lets the warp issue.
    pub fn wait(&self, mask: u8) -> Wait {
        let mut late_only = false;
        for s in 0..NUM_SB {
            if mask & (1 << s) == 0 || self.sb[s] == 0 {
                continue;
            }
            let unseen = self.late.iter().filter(|&&l| l as usize == s).count() as u8;
            if self.sb[s] > unseen {
                return Wait::Blocked;
            }
            late_only = true;
        }
        if late_only {
            Wait::Before(self.late_until)
        } else {
            Wait::Clear
        }
    }
}

/// The write-back and read dependence counters an in-flight instruction releases, and
/// whether it holds scoreboard entries instead (no control bits). Packed in a byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SbIds(u8);

impl SbIds {
    /// The counters of control word `c`.
    pub fn of(c: Ctrl) -> SbIds {
        let f = |s: Option<u8>| s.map_or(0, |v| v + 1);
        SbIds(f(c.wb_sb()) | f(c.rd_sb()) << 3)
    }
    /// These counters without the read one.
    pub fn without_rd(self) -> SbIds {
        SbIds(self.0 & 7)
    }
    /// Only the read counter of these.
    pub fn rd_only(self) -> SbIds {
        SbIds(self.0 & (7 << 3))
    }
    #[inline]
    pub fn wb(self) -> Option<u8> {
        (self.0 & 7).checked_sub(1)
    }
    #[inline]
    pub fn rd(self) -> Option<u8> {
        ((self.0 >> 3) & 7).checked_sub(1)
    }
}

/// Memory instructions a sub-core's memory unit holds: a 4-entry queue and a latch
/// (modern-gpu-cores.md section 5, Tab. 1: five issue back to back).
pub const MEM_UNIT_SLOTS: usize = 5;
/// Cycles between two address computations of one sub-core (8 address lanes: 32 / 8).
const ADDR_INTERVAL: u64 = 4;
/// Cycles between two instructions the SM's shared memory stage accepts, all sub-cores
/// together.
const SM_ACCEPT_INTERVAL: u64 = 2;
/// Cycles from the shared stage's accept to the unit's entry freeing (Tab. 1: the sixth
/// instruction of a lone sub-core issues 11 cycles after the first).
const UNIT_CYCLES: u64 = 11;

/// A sub-core's memory unit (Tab. 1): instructions enter at issue while a slot is free,
/// compute their addresses one per [`ADDR_INTERVAL`] cycles, pass the SM's shared stage one
/// per [`SM_ACCEPT_INTERVAL`] cycles and free their slot [`UNIT_CYCLES`] later. A lone
/// instruction reaches the memory pipeline at once (no added latency); bursts are paced.
#[derive(Clone, Debug, Default)]
pub struct MemUnit {
    free_at: [Cycle; MEM_UNIT_SLOTS],
    next_addr: Cycle,
}

impl MemUnit {
    /// `Ok` when an instruction may enter at `now`, else the cycle a slot frees.
    pub fn room(&self, now: Cycle) -> std::result::Result<(), Cycle> {
        let busy = self.free_at.iter().filter(|&&f| f > now);
        match busy.clone().count() {
            n if n < MEM_UNIT_SLOTS => Ok(()),
            _ => Err(busy.copied().min().unwrap_or(now + 1)),
        }
    }

    /// An instruction enters at `now` (after [`MemUnit::room`]); `shared` is the cycle the
    /// SM's shared stage accepts next (updated). Returns the cycle the instruction passes it.
    /// Shared-memory instructions are not paced by that stage: its 1 per 2 cycles would halve
    /// the 32-bank shared memory's throughput the CUDA guide gives (one wavefront a cycle,
    /// which `validate`'s bank-conflict row checks); Tab. 1 measured global accesses.
    pub fn enter(&mut self, now: Cycle, shared: &mut Cycle, shared_mem: bool) -> Cycle {
        let a = now.max(self.next_addr);
        self.next_addr = a + ADDR_INTERVAL;
        let s = if shared_mem { a } else { a.max(*shared) };
        if !shared_mem {
            *shared = s + SM_ACCEPT_INTERVAL;
        }
        if let Some(slot) = self.free_at.iter_mut().find(|f| **f <= now) {
            *slot = s + UNIT_CYCLES;
        }
        s
    }
}

/// Cycles from a memory instruction's issue until an overwrite of one of its sources may
/// issue (its read dependence counter released), modern-gpu-cores.md Tab. 2 (Ampere): loads
/// 11 (9 with a uniform address), shared loads 9, global stores 14/16/20 by width (10/12/16
/// uniform), shared stores 12/14/18 (10/12/16), constant loads 10.
pub fn war_distance(kind: OpKind, space: MemSpace, width: u16, inst: &TraceInst) -> u64 {
    let uniform = inst
        .srcs()
        .first()
        .is_some_and(|&r| r >= UR_BASE && !is_zero_reg(r));
    let w = match width {
        0..=4 => 0,
        5..=8 => 1,
        _ => 2,
    };
    let store = matches!(kind, OpKind::Store | OpKind::Atomic | OpKind::Reduction);
    match (space, store) {
        (MemSpace::Constant, _) => 10,
        (MemSpace::Shared, false) => 9,
        (MemSpace::Shared, true) if uniform => [10, 12, 16][w],
        (MemSpace::Shared, true) => [12, 14, 18][w],
        (_, true) if uniform => [10, 12, 16][w],
        (_, true) => [14, 16, 20][w],
        (_, false) if uniform => 9,
        (_, false) => 11,
    }
}

/// An entry of the register-file cache: (warp slot, register) or empty.
type RfcSlot = Option<(u16, Reg)>;

/// Per sub-core: the register read calendar, the register-file cache and the issue hold.
#[derive(Clone, Debug)]
pub struct ReadStage {
    banks: usize,
    ports: u8,
    /// Reads booked per (bank, cycle % CAL), valid when `cal_at` holds that cycle.
    cal: Vec<u8>,
    cal_at: Vec<Cycle>,
    /// The next window may not start before this cycle (windows start in issue order).
    next_window: Cycle,
    /// No instruction of the sub-core issues before this cycle (a late read window).
    pub hold_until: Cycle,
    /// One entry per (bank, operand position).
    rfc: Vec<RfcSlot>,
}

/// What one allocation did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Allocated {
    /// Cycles the window started late (the sub-core's issue is held as long).
    pub delay: u64,
    pub rfc_hits: u32,
    /// Reads that went to a bank.
    pub reads: u32,
}

impl ReadStage {
    pub fn new(banks: u32, ports: u32) -> Self {
        let banks = banks.max(1) as usize;
        ReadStage {
            banks,
            ports: ports.clamp(1, 255) as u8,
            cal: vec![0; banks * CAL],
            cal_at: vec![Cycle::MAX; banks * CAL],
            next_window: 0,
            hold_until: 0,
            rfc: vec![None; banks * REUSE_SLOTS],
        }
    }

    fn bank(&self, r: Reg) -> Option<usize> {
        (!is_zero_reg(r) && r < UR_BASE).then(|| r as usize % self.banks)
    }

    fn booked(&self, b: usize, c: Cycle) -> u8 {
        let i = b * CAL + (c as usize % CAL);
        if self.cal_at[i] == c {
            self.cal[i]
        } else {
            0
        }
    }

    fn book(&mut self, b: usize, c: Cycle) {
        let i = b * CAL + (c as usize % CAL);
        if self.cal_at[i] != c {
            self.cal_at[i] = c;
            self.cal[i] = 0;
        }
        self.cal[i] += 1;
    }

    /// Free read slots of bank `b` in `[w, w + len)`.
    fn free(&self, b: usize, w: Cycle, len: u64) -> u64 {
        (w..w + len)
            .map(|c| (self.ports - self.booked(b, c).min(self.ports)) as u64)
            .sum()
    }

    /// Allocate for a fixed-latency instruction of warp `warp` issued at `now`: the
    /// register-file cache first (when `rfc` may serve the instruction's unit, with `reuse`
    /// flags per source position), then a read window. Returns what it did; the caller holds
    /// issue for `delay` cycles and starts the instruction as late.
    pub fn allocate(
        &mut self,
        now: Cycle,
        warp: u16,
        inst: &TraceInst,
        reuse: u8,
        rfc: bool,
    ) -> Allocated {
        // Reads per bank, each register once.
        let mut need = [0u8; 8];
        let mut seen: [Reg; 8] = [Reg::MAX; 8];
        let mut out = Allocated::default();
        for (pos, &r) in inst.srcs().iter().enumerate() {
            let Some(b) = self.bank(r) else { continue };
            if rfc && pos < REUSE_SLOTS {
                let slot = &mut self.rfc[b * REUSE_SLOTS + pos];
                let hit = *slot == Some((warp, r));
                *slot = (reuse & (1 << pos) != 0).then_some((warp, r));
                if hit {
                    out.rfc_hits += 1;
                    continue;
                }
            }
            if seen[..pos.min(8)].contains(&r) || b >= need.len() {
                continue;
            }
            seen[pos.min(7)] = r;
            need[b] += 1;
            out.reads += 1;
        }
        let first = (now + WINDOW_OFFSET).max(self.next_window);
        let most = need.iter().copied().max().unwrap_or(0) as u64;
        let len = READ_WINDOW.max(most.div_ceil(self.ports as u64));
        let nb = self.banks.min(need.len());
        let mut w = first;
        while w < first + CAL as u64 / 2
            && (0..nb).any(|b| need[b] > 0 && self.free(b, w, len) < need[b] as u64)
        {
            w += 1;
        }
        for (b, &n) in need.iter().enumerate().take(nb) {
            let mut left = n;
            let mut c = w;
            while left > 0 && c < w + len {
                if self.booked(b, c) < self.ports {
                    self.book(b, c);
                    left -= 1;
                } else {
                    c += 1;
                }
            }
        }
        self.next_window = w + 1;
        out.delay = w - (now + WINDOW_OFFSET).min(w);
        if out.delay > 0 {
            self.hold_until = self.hold_until.max(now + 1 + out.delay);
        }
        out
    }

    /// Warp slot `w` left: its cached operands are gone.
    pub fn forget_warp(&mut self, w: u16) {
        for s in &mut self.rfc {
            if matches!(s, Some((x, _)) if *x == w) {
                *s = None;
            }
        }
    }
}

/// Reuse flags a compiler would set when a trace has none: source position `p` of `inst`
/// is kept when `next` (the warp's next instruction) reads the same register at `p` and
/// `inst` does not overwrite it.
pub fn inferred_reuse(inst: &TraceInst, next: Option<&TraceInst>) -> u8 {
    let Some(n) = next else { return 0 };
    let mut r = 0u8;
    for p in 0..REUSE_SLOTS.min(inst.srcs().len()).min(n.srcs().len()) {
        let reg = inst.src[p];
        if reg == n.src[p] && !is_zero_reg(reg) && reg < UR_BASE && !inst.dsts().contains(&reg) {
            r |= 1 << p;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ffma(srcs: &[Reg]) -> TraceInst {
        let mut i = TraceInst {
            nsrc: srcs.len() as u8,
            ..Default::default()
        };
        i.src[..srcs.len()].copy_from_slice(srcs);
        i
    }

    /// modern-gpu-cores.md Lst. 1: an FFMA reading three even registers, then one reading an
    /// even register and X, Y the cycle after: the second waits (its even reads - 1) cycles.
    #[test]
    fn read_window_lst1() {
        for (x, y, delay) in [(3, 5, 0), (4, 5, 1), (4, 6, 2)] {
            let mut rs = ReadStage::new(2, 1);
            let a = rs.allocate(2, 0, &ffma(&[10, 12, 14]), 0, true);
            assert_eq!(a.delay, 0);
            let b = rs.allocate(3, 0, &ffma(&[x, y, 16]), 0, true);
            assert_eq!(b.delay, delay, "X=R{x} Y=R{y}");
            assert_eq!(rs.hold_until, if delay > 0 { 4 + delay } else { 0 });
        }
    }

    /// A stream of FMULs with both sources in one bank costs 1 bubble each, FFMAs with all
    /// three 2 each (section 4): one read port per bank.
    #[test]
    fn read_bandwidth() {
        for (srcs, gap) in [(&[2u16, 4][..], 2u64), (&[2, 4, 6][..], 3)] {
            let mut rs = ReadStage::new(2, 1);
            let mut t = 0;
            let mut issues = vec![];
            for _ in 0..8 {
                t = t.max(rs.hold_until);
                issues.push(t);
                rs.allocate(t, 0, &ffma(srcs), 0, true);
                t += 1;
            }
            // Steady state: one instruction per `gap` cycles.
            assert_eq!(issues[7] - issues[5], 2 * gap, "{srcs:?}: {issues:?}");
        }
    }

    /// The register-file cache cases a-d (section 4 of the sheet): I1 reads r6 in A with
    /// reuse; r6 and r8 share a bank.
    #[test]
    fn rfc_cases() {
        let hits = |i2: &[Reg], reuse2: u8| {
            let mut rs = ReadStage::new(2, 1);
            vec![
                rs.allocate(0, 1, &ffma(&[6]), 1, true).rfc_hits,
                rs.allocate(10, 1, &ffma(i2), reuse2, true).rfc_hits,
                rs.allocate(20, 1, &ffma(&[6]), 0, true).rfc_hits,
            ]
        };
        assert_eq!(hits(&[6], 0), [0, 1, 0], "a");
        assert_eq!(hits(&[6], 1), [0, 1, 1], "b");
        assert_eq!(hits(&[7, 6], 0), [0, 0, 1], "c");
        assert_eq!(hits(&[8], 0), [0, 0, 0], "d");
        // Another warp never hits.
        let mut rs = ReadStage::new(2, 1);
        rs.allocate(0, 1, &ffma(&[6]), 1, true);
        assert_eq!(rs.allocate(5, 2, &ffma(&[6]), 0, true).rfc_hits, 0);
    }

    /// Tab. 1 (Ampere): one warp per active sub-core issuing independent memory
    /// instructions; the issue cycles of instructions 1-8 for 1-4 active sub-cores.
    #[test]
    fn memory_unit_tab1() {
        let want: [&[[u64; 8]]; 4] = [
            &[[2, 3, 4, 5, 6, 13, 17, 21]],
            &[[2, 3, 4, 5, 6, 13, 17, 21], [2, 3, 4, 5, 6, 15, 19, 23]],
            &[
                [2, 3, 4, 5, 6, 13, 19, 25],
                [2, 3, 4, 5, 6, 15, 21, 27],
                [2, 3, 4, 5, 6, 17, 23, 29],
            ],
            &[
                [2, 3, 4, 5, 6, 13, 21, 29],
                [2, 3, 4, 5, 6, 15, 23, 31],
                [2, 3, 4, 5, 6, 17, 25, 33],
                [2, 3, 4, 5, 6, 19, 27, 35],
            ],
        ];
        for (k, rows) in want.iter().enumerate() {
            let n = k + 1;
            let mut units = vec![MemUnit::default(); n];
            let mut shared = 0;
            let mut next = vec![2u64; n];
            let mut got = vec![vec![]; n];
            // Cycle by cycle, sub-cores in order: each issues its next instruction when its
            // unit has room.
            for now in 2..64u64 {
                for j in 0..n {
                    if got[j].len() < 8 && now >= next[j] && units[j].room(now).is_ok() {
                        units[j].enter(now, &mut shared, false);
                        got[j].push(now);
                        next[j] = now + 1;
                    }
                }
            }
            for j in 0..n {
                assert_eq!(got[j], rows[j].to_vec(), "{n} active, sub-core {j}");
            }
        }
    }

    #[test]
    fn counters_seen_from_issue_plus_two() {
        let mut s = CtrlState::default();
        s.reset();
        s.issue(10, Ctrl::new(1, false, 0, 7, 0, 0));
        assert_eq!(s.next_issue, 11);
        assert_eq!(s.wait(1), Wait::Before(12));
        assert_eq!(s.wait(2), Wait::Clear);
        s.issue(11, Ctrl::new(2, false, 1, 7, 0, 0));
        assert_eq!(s.wait(1), Wait::Blocked);
        s.release(0);
        assert_eq!(s.wait(1), Wait::Clear);
        assert_eq!(s.next_issue, 13);
        s.issue(20, Ctrl::new(1, true, 7, 7, 0, 0));
        assert_eq!(s.next_issue, 22, "yield: not the next cycle");
        s.issue(30, Ctrl::new(0, true, 7, 7, 0, 0));
        assert_eq!(s.next_issue, 75, "S = 0 with yield stalls 45 cycles");
    }

    #[test]
    fn reuse_inferred_from_the_next_instruction() {
        assert_eq!(
            inferred_reuse(&ffma(&[2, 3, 4]), Some(&ffma(&[2, 5, 4]))),
            0b101
        );
        assert_eq!(inferred_reuse(&ffma(&[2]), None), 0);
        let mut w = ffma(&[2, 3]);
        w.ndst = 1;
        w.dst[0] = 2;
        assert_eq!(
            inferred_reuse(&w, Some(&ffma(&[2, 3]))),
            0b10,
            "R2 is rewritten"
        );
    }
}
