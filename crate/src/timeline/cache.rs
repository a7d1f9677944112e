//! Cache state in the timeline (issue #8: "what each cache did each cycle"): the recorded SM's
//! L1 data cache as sets x ways, and its line accesses per cycle (seed 004's sectored cache).
//!
//! ```text
//!  SmMemory::handle ── L1 access ──> l1_log (Some only while recording: one test per access)
//!  capture(now) ── drain log ──> L1Shadow (a copy of every way, updated from touched slots)
//!                                  └─> CacheFrame { snapshot?, accesses, changed }
//!  page / tests: state(cycle) = last snapshot + every `changed` up to that cycle
//! ```
//! A frame carries a full snapshot (geometry and every valid way at the end of the cycle) when
//! it is the window's first and after a kernel began (the L1 is resized and emptied); other
//! frames carry only the ways whose line, valid or dirty sectors changed, as they are at the end
//! of the cycle.

use serde::Serialize;

use crate::mem::cache::{SectorCache, WayState, NO_SLOT};
use crate::mem::{L1Event, SmMemory};
use crate::Cycle;

/// Cache geometry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheGeom {
    pub sets: u32,
    pub assoc: u32,
    pub line_bytes: u32,
    pub sector_bytes: u32,
}

/// How a line access went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheOutcome {
    /// Every requested sector was valid.
    Hit,
    /// The line was present but some requested sectors were not.
    SectorMiss,
    /// The line was not present.
    Miss,
}

/// One line access in a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CacheAccess {
    pub set: u32,
    /// The way used; `None` when the access allocated nothing (write miss without allocate).
    pub way: Option<u32>,
    pub line: u64,
    /// Requested sectors (bit i: sector i of the line).
    pub sectors: u8,
    pub write: bool,
    pub outcome: CacheOutcome,
}

/// One way's content at the end of a cycle (`line: None`: invalid).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WaySnap {
    pub set: u32,
    pub way: u32,
    pub line: Option<u64>,
    pub valid: u8,
    pub dirty: u8,
}

/// The whole cache: geometry and every valid way.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheSnapshot {
    pub geometry: CacheGeom,
    pub ways: Vec<WaySnap>,
}

/// One cache in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheFrame {
    /// Every valid way at the end of this cycle (in the window's first frame, and after a
    /// kernel began); `changed` is then already included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<CacheSnapshot>,
    pub accesses: Vec<CacheAccess>,
    /// Ways that changed this cycle, as they are at its end.
    pub changed: Vec<WaySnap>,
}

/// The recorder's copy of the L1 (every way), kept equal to the cache at each captured cycle.
#[derive(Clone, Debug, Default)]
pub struct L1Shadow {
    geom: CacheGeom,
    ways: Vec<WayState>,
    /// The next in-window frame must carry a snapshot.
    need_snapshot: bool,
    /// Accesses of the current cycle (reused buffer).
    accesses: Vec<CacheAccess>,
}

fn geom_of(c: &SectorCache) -> CacheGeom {
    let g = c.geometry();
    CacheGeom {
        sets: g.sets,
        assoc: g.assoc,
        line_bytes: g.line_bytes,
        sector_bytes: g.sector_bytes,
    }
}

fn snap(geom: &CacheGeom, slot: u32, w: WayState) -> WaySnap {
    let a = geom.assoc.max(1);
    WaySnap {
        set: slot / a,
        way: slot % a,
        line: w.line,
        valid: w.valid,
        dirty: w.dirty,
    }
}

impl L1Shadow {
    /// Starts recording `m`'s L1: switches its access log on and copies every way.
    pub fn attach(m: &mut SmMemory) -> L1Shadow {
        m.l1_log = Some(Vec::new());
        let mut s = L1Shadow::default();
        s.reload(m.l1());
        s
    }

    /// Stops recording (the log is dropped).
    pub fn detach(m: &mut SmMemory) {
        m.l1_log = None;
    }

    fn reload(&mut self, c: &SectorCache) {
        self.geom = geom_of(c);
        let n = self.geom.sets * self.geom.assoc;
        self.ways.clear();
        self.ways.extend((0..n).map(|i| c.way_state(i)));
        self.need_snapshot = true;
    }

    /// The snapshot for the next in-window frame, if one is due.
    pub fn take_snapshot(&mut self) -> Option<CacheSnapshot> {
        if !self.need_snapshot {
            return None;
        }
        self.need_snapshot = false;
        Some(CacheSnapshot {
            geometry: self.geom,
            ways: self
                .ways
                .iter()
                .enumerate()
                .filter(|(_, w)| w.line.is_some())
                .map(|(i, w)| snap(&self.geom, i as u32, *w))
                .collect(),
        })
    }

    /// Drains `m`'s log for cycle `now`: brings the copy up to date and returns the cycle's
    /// frame (without its snapshot).
    pub fn step(&mut self, m: &mut SmMemory, now: Cycle) -> CacheFrame {
        let mut log = m.l1_log.take().unwrap_or_default();
        let mut f = CacheFrame::default();
        self.accesses.clear();
        let mut touched: Vec<u32> = Vec::new();
        for e in &log {
            match *e {
                L1Event::Reset => {
                    self.reload(m.l1());
                    self.accesses.clear();
                    touched.clear();
                }
                L1Event::Access {
                    cycle,
                    line,
                    slot,
                    set,
                    sectors,
                    write,
                    hit,
                    tag_present,
                } => {
                    debug_assert!(cycle <= now);
                    let outcome = if hit {
                        CacheOutcome::Hit
                    } else if tag_present {
                        CacheOutcome::SectorMiss
                    } else {
                        CacheOutcome::Miss
                    };
                    let a = self.geom.assoc.max(1);
                    self.accesses.push(CacheAccess {
                        set,
                        way: (slot != NO_SLOT).then_some(slot % a),
                        line,
                        sectors,
                        write,
                        outcome,
                    });
                    if slot != NO_SLOT && !touched.contains(&slot) {
                        touched.push(slot);
                    }
                }
            }
        }
        log.clear();
        m.l1_log = Some(log);
        touched.sort_unstable();
        for slot in touched {
            let Some(old) = self.ways.get_mut(slot as usize) else {
                continue;
            };
            let new = m.l1().way_state(slot);
            if *old != new {
                *old = new;
                f.changed.push(snap(&self.geom, slot, new));
            }
        }
        f.accesses.extend_from_slice(&self.accesses);
        f
    }
}

/// The cache's ways at the end of frame `fi` of `frames` (replaying snapshots and changes):
/// `(geometry, ways in slot order)`. For tests and views.
pub fn state_at(frames: &[&CacheFrame], fi: usize) -> (CacheGeom, Vec<WaySnap>) {
    let mut geom = CacheGeom::default();
    let mut ways: Vec<WaySnap> = Vec::new();
    for f in frames.iter().take(fi + 1) {
        if let Some(s) = &f.snapshot {
            geom = s.geometry;
            ways = (0..geom.sets * geom.assoc)
                .map(|i| snap(&geom, i, WayState::default()))
                .collect();
            for w in &s.ways {
                ways[(w.set * geom.assoc + w.way) as usize] = *w;
            }
        }
        for w in &f.changed {
            if let Some(x) = ways.get_mut((w.set * geom.assoc + w.way) as usize) {
                *x = *w;
            }
        }
    }
    (geom, ways)
}
