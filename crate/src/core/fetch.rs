//! Instruction fetch (seed 001 section 2.1, Figure 3).
//!
//! Per sub-core: a fetch unit picks, round robin, a warp of its sub-core with free instruction
//! buffer entries and fetches up to `fetch_width` instructions from its private L0 I-cache. The
//! instructions of one fetch are consecutive in the code and in one cache line (the fix seed 001
//! describes: Accel-Sim packed arbitrary trace neighbours and gave every kernel the same code
//! addresses). An L0 miss goes to the SM's shared L1 I-cache through a round-robin arbiter (one
//! access per cycle); an L1 miss costs the L2 latency of the analytical memory config.
//!
//! ```text
//!  sub-core 0: warp RR ──> L0I ──miss──┐
//!  sub-core 1: warp RR ──> L0I ──miss──┼──> RR arbiter ──> L1I (shared) ──miss──> L2 latency
//!  ...                                 ┘
//! ```
//! `features.subcore_frontend = false` gives Accel-Sim's front end: no L0, every sub-core's
//! fetch goes straight to the L1I (which then serves several accesses per cycle, a hit
//! delivering with the L0 hit latency as GPGPU-Sim's fetch completes at once), fetch groups
//! are the next trace entries whatever their lines, and all kernels share code address 0.

use super::icache::{ICache, Probe};
use super::prefetch::StreamBuffer;
use super::warp::{SlotBits, Warp};
use crate::trace::packed::PackedWarp;
use crate::Cycle;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FetchState {
    #[default]
    Idle,
    /// Data arrives at `ready`; decode then fills the instruction buffer.
    Wait { ready: Cycle },
    /// L0 missed; waiting for the L1I arbiter.
    Arb,
}

#[derive(Clone, Debug)]
pub struct FetchUnit {
    pub state: FetchState,
    pub warp: u16,
    pub n: u8,
    /// Instruction address of the fetch (code base + PC).
    pub addr: u64,
    /// Round-robin position in the sub-core's warp list.
    pub rr: usize,
    pub l0: ICache,
    /// The L0's instruction prefetcher and the lines it requested (taken by the statistics).
    pub pf: StreamBuffer,
    pub prefetched: u32,
    /// The sub-core's last issuing warp (greedy fetch, [`FetchParams::greedy`]).
    pub last_issued: Option<u16>,
    /// The earliest `Warp::fetch_at` of the warps the last fetch attempt passed over for it
    /// (0: none): when the idle unit has something to do again.
    pub wake: Cycle,
}

/// Front-end parameters.
#[derive(Clone, Copy, Debug)]
pub struct FetchParams {
    pub width: u32,
    pub inst_bytes: u32,
    /// Per-sub-core L0 + arbiter + correct line mapping (seed 001); off: Accel-Sim's.
    pub subcore: bool,
    /// L1I miss penalty (cycles to get a line from L2).
    pub miss_penalty: u32,
    /// Fetch for the warp that issued last until its buffer is full, then the youngest
    /// warp with room (modern-gpu-cores.md section 3); off: round robin.
    pub greedy: bool,
    /// `frontend.taken_branch_delay`: 0, a jump target is fetched ahead like the next line;
    /// else its fetch may start this many cycles after the branch before it issues.
    pub taken_branch_delay: u32,
}

/// Whether trace entry `f` is a jump target: the instruction before it (a taken branch, or
/// a warp's reconvergence jump) is not at the previous code address.
#[inline]
pub fn is_jump_target(insts: &PackedWarp, f: usize, inst_bytes: u32) -> bool {
    f > 0 && insts.pc(f) != insts.pc(f - 1).wrapping_add(inst_bytes)
}

/// Number of instructions starting at trace index `f` that one fetch may bring.
pub fn fetch_group(
    insts: &PackedWarp,
    f: usize,
    max: u32,
    line_bytes: u64,
    p: &FetchParams,
    base: u64,
) -> u32 {
    let mut n = 1u32;
    let lb = line_bytes.max(1);
    // Line sizes are powers of two in every preset: a shift instead of a division.
    let line_of = |a: u64| {
        if lb.is_power_of_two() {
            a >> lb.trailing_zeros()
        } else {
            a / lb
        }
    };
    let line = line_of(base + insts.pc(f) as u64);
    while n < max && f + (n as usize) < insts.len() {
        let at = f + n as usize;
        if p.subcore
            && (is_jump_target(insts, at, p.inst_bytes)
                || line_of(base + insts.pc(at) as u64) != line)
        {
            break;
        }
        n += 1;
    }
    n
}

impl FetchUnit {
    pub fn new(l0: ICache, pf: StreamBuffer) -> Self {
        FetchUnit {
            state: FetchState::Idle,
            warp: 0,
            n: 0,
            addr: 0,
            rr: 0,
            l0,
            pf,
            prefetched: 0,
            last_issued: None,
            wake: 0,
        }
    }

    /// Decode stage: a fetch whose data has arrived fills the warp's instruction buffer.
    pub fn decode(&mut self, now: Cycle, warps: &mut [Warp]) -> bool {
        if let FetchState::Wait { ready } = self.state {
            if ready <= now {
                let w = &mut warps[self.warp as usize];
                w.ib.fill(self.n as u32);
                w.fetching = false;
                self.state = FetchState::Idle;
                return true;
            }
        }
        false
    }

    /// Starts a fetch for the next warp (round robin over `order`) if idle. `code` gives a
    /// warp's instructions and code base. Returns (started, l0 hit?, l1 hit?) for statistics.
    #[allow(clippy::too_many_arguments)]
    pub fn fetch<'a>(
        &mut self,
        now: Cycle,
        (order, members): (&[u16], &SlotBits),
        warps: &mut [Warp],
        (dirty, want): (&mut SlotBits, &mut SlotBits),
        code: impl Fn(&Warp) -> (PackedWarp<'a>, u64),
        max_per_fetch: u32,
        p: &FetchParams,
        l1i: &mut ICache,
    ) -> FetchOutcome {
        if self.state != FetchState::Idle || order.is_empty() {
            return FetchOutcome::None;
        }
        if !members.meets(dirty, Some(want)) {
            return FetchOutcome::None; // no warp wants a fetch, none changed
        }
        let n = order.len();
        // `want` caches `wants_fetch` per slot; `dirty` marks the slots that changed.
        let mut wants = |wi: usize, warps: &[Warp]| {
            if dirty.take(wi) {
                let v = warps[wi].wants_fetch();
                want.put(wi, v);
                v
            } else {
                debug_assert_eq!(want.get(wi), warps[wi].wants_fetch(), "warp {wi}");
                want.get(wi)
            }
        };
        // A warp redirected by a taken branch may fetch from its `fetch_at`: the earliest
        // such cycle of the warps passed over wakes the unit (`next_event`).
        let mut gate = Cycle::MAX;
        let mut wants = |wi: usize, warps: &[Warp]| {
            if !wants(wi, warps) {
                return false;
            }
            let at = warps[wi].fetch_at;
            if at > now {
                gate = gate.min(at);
                return false;
            }
            true
        };
        let chosen = if p.greedy {
            // The modern core's fetch: the warp that issued last while it has room, else the
            // youngest warp with a free buffer entry.
            let last = self.last_issued.filter(|&l| members.get(l as usize));
            match last {
                Some(l) if wants(l as usize, warps) => order.iter().position(|&w| w == l),
                _ => (0..n).rev().find(|&at| wants(order[at] as usize, warps)),
            }
        } else {
            let start = self.rr % n;
            (0..n)
                .map(|k| {
                    if start + k >= n {
                        start + k - n
                    } else {
                        start + k
                    }
                })
                .find(|&at| wants(order[at] as usize, warps))
        };
        self.wake = if gate == Cycle::MAX { 0 } else { gate };
        if let Some(at) = chosen {
            let wi = order[at] as usize;
            let (insts, base) = code(&warps[wi]);
            let w = &mut warps[wi];
            let f = w.ib.next_fetch() as usize;
            let line_bytes = if p.subcore {
                self.l0.line_bytes()
            } else {
                l1i.line_bytes()
            };
            let cnt = fetch_group(
                &insts,
                f,
                max_per_fetch.min(w.ib.free()),
                line_bytes,
                p,
                base,
            );
            // No branch prediction: the fetch of a jump target waits for the branch before
            // it to issue (`SubCore::do_issue` then sets the warp's `fetch_at`).
            if p.taken_branch_delay > 0 {
                let end = f + cnt as usize;
                if end < insts.len() && is_jump_target(&insts, end, p.inst_bytes) {
                    w.fetch_hold = end as u32;
                }
            }
            w.ib.reserve(cnt);
            w.fetching = true;
            want.put(wi, false);
            self.rr = at + 1;
            self.warp = wi as u16;
            self.n = cnt as u8;
            self.addr = base + insts.pc(f) as u64;
            if p.subcore {
                let probe = self.l0.probe(self.addr, now);
                self.prefetched +=
                    self.pf
                        .access(self.addr, now, &mut self.l0, l1i, p.miss_penalty);
                return match probe {
                    Probe::Hit(t) => {
                        self.state = FetchState::Wait {
                            ready: t + self.l0.latency as u64,
                        };
                        FetchOutcome::L0Hit
                    }
                    Probe::Miss => {
                        self.state = FetchState::Arb;
                        FetchOutcome::L0Miss
                    }
                };
            }
            // Accel-Sim's single-level I-cache: a hit delivers like an L0 hit would.
            let hit_lat = self.l0.latency;
            let (ready, hit) = l1_access(l1i, self.addr, now, hit_lat, p.miss_penalty);
            self.state = FetchState::Wait { ready };
            return if hit {
                FetchOutcome::L1Hit
            } else {
                FetchOutcome::L1Miss
            };
        }
        FetchOutcome::None
    }

    pub fn next_event(&self, now: Cycle) -> Option<Cycle> {
        match self.state {
            FetchState::Wait { ready } if ready > now => Some(ready),
            FetchState::Wait { .. } | FetchState::Arb => Some(now + 1),
            FetchState::Idle => (self.wake > now).then_some(self.wake),
        }
    }
}

/// What a fetch attempt did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchOutcome {
    None,
    L0Hit,
    L0Miss,
    L1Hit,
    L1Miss,
}

/// One L1I access: (cycle the data is back, hit?). A hit costs `hit_lat`; a miss costs the
/// L1I latency plus the miss penalty and allocates the line.
pub fn l1_access(
    l1i: &mut ICache,
    addr: u64,
    now: Cycle,
    hit_lat: u32,
    miss_penalty: u32,
) -> (Cycle, bool) {
    match l1i.probe(addr, now) {
        Probe::Hit(t) => (t + hit_lat as u64, true),
        Probe::Miss => {
            let ready = now + l1i.latency as u64 + miss_penalty as u64;
            l1i.fill(addr, ready);
            (ready, false)
        }
    }
}

/// The L1I round-robin arbiter between sub-cores: grants one waiting L0 miss per cycle.
/// Returns `Some((subcore, l1 hit))` when it granted.
pub fn l1i_arbiter(
    now: Cycle,
    units: &mut [FetchUnit],
    rr: &mut usize,
    l1i: &mut ICache,
    miss_penalty: u32,
) -> Option<(usize, bool)> {
    let n = units.len();
    for k in 0..n {
        let s = (*rr + k) % n;
        if units[s].state == FetchState::Arb {
            let (ready, hit) = l1_access(l1i, units[s].addr, now, l1i.latency, miss_penalty);
            let addr = units[s].addr;
            units[s].l0.fill(addr, ready);
            units[s].state = FetchState::Wait { ready };
            *rr = s + 1;
            return Some((s, hit));
        }
    }
    None
}
