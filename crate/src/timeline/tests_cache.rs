//! Cache state in the recorder: a crafted one-warp trace whose L1 line accesses, and the ways
//! they leave behind, are derived by hand from the cache rules (`mem::cache`): LRU sets start
//! with every way invalid and allocate from the tail (way `assoc - 1` first), the tag array is
//! updated at access time, write-through with write-allocate keeps written sectors valid and
//! clean.

use super::cache::{state_at, CacheAccess, CacheFrame, CacheGeom, CacheOutcome, WaySnap};
use super::*;
use crate::config::GpuConfig;
use crate::engine::{ModelChoice, ModuleModel, Simulator};
use crate::trace::*;

const A: u64 = 0x1000; // line 32: set 0 of 32
const B: u64 = 0x2000; // line 64: set 0
const D: u64 = 0x3080; // line 97: set 1

fn op(t: &mut OpTable, name: &str, unit: Unit, kind: OpKind, space: MemSpace) -> OpId {
    let lat = if unit == Unit::Mem {
        LatClass::Mem
    } else {
        LatClass::Fp32
    };
    t.push(OpInfo {
        name: name.into(),
        unit,
        lat,
        kind,
        space,
        unknown: false,
    })
}

/// LDG A (whole line); FADD on its result; LDG A again; LDG B (same set); STG one lane to D.
fn kernel() -> KernelTrace {
    let mut t = OpTable::new();
    let ldg = op(&mut t, "LDG.E", Unit::Mem, OpKind::Load, MemSpace::Global);
    let stg = op(&mut t, "STG.E", Unit::Mem, OpKind::Store, MemSpace::Global);
    let fadd = op(&mut t, "FADD", Unit::Sp, OpKind::Alu, MemSpace::None);
    let mut w = WarpTrace::default();
    let mut push = |op, dst: Option<Reg>, src: Reg, lanes: &[u64], mask: u32| {
        let mut i = TraceInst {
            op,
            pc: 16 * w.insts.len() as u32,
            mask,
            ndst: dst.is_some() as u8,
            nsrc: 1,
            mem_width: if lanes.is_empty() { 0 } else { 4 },
            ..TraceInst::default()
        };
        i.dst[0] = dst.unwrap_or(0);
        i.src[0] = src;
        if !lanes.is_empty() {
            i.addr_start = w.addrs.len() as u32;
            w.addrs.extend_from_slice(lanes);
        }
        w.insts.push(i);
    };
    let line = |base: u64| (0..32).map(|l| base + 4 * l).collect::<Vec<_>>();
    push(ldg, Some(1), 2, &line(A), u32::MAX);
    push(fadd, Some(3), 1, &[], u32::MAX);
    push(ldg, Some(4), 3, &line(A), u32::MAX);
    push(ldg, Some(5), 2, &line(B), u32::MAX);
    push(stg, None, 6, &[D], 1);
    KernelTrace {
        info: KernelInfo {
            name: "cache_walk".into(),
            id: 1,
            grid: Dim3::new(1, 1, 1),
            block: Dim3::new(32, 1, 1),
            nregs: 16,
            ..KernelInfo::default()
        },
        ops: t,
        ctas: vec![CtaTrace {
            id: Dim3::new(0, 0, 0),
            warps: vec![w],
        }],
    }
}

fn config() -> GpuConfig {
    let mut c = crate::session::config::preset("teaching").unwrap();
    c.frontend.l0i.size_kb = 0;
    c.frontend.l1i.size_kb = 0;
    c
}

fn sim() -> Simulator<'static> {
    let model = ModelChoice {
        memory: ModuleModel::Cycle,
        ..ModelChoice::default()
    };
    let src = MemTrace::from_kernels("cache_walk", vec![kernel()]);
    Simulator::new(config(), model, Box::new(src)).unwrap()
}

fn record(from: u64, to: u64) -> (Timeline, u64) {
    let mut s = sim();
    attach(
        &mut s.gpu,
        &RecordConfig {
            from,
            to,
            ..Default::default()
        },
    )
    .unwrap();
    let r = s.run_to_end().unwrap();
    (collect(&mut s.gpu), r.cycles)
}

fn way(set: u32, way: u32, line: u64, valid: u8) -> WaySnap {
    WaySnap {
        set,
        way,
        line: Some(line),
        valid,
        dirty: 0,
    }
}

fn acc(set: u32, w: u32, line: u64, sectors: u8, write: bool, o: CacheOutcome) -> CacheAccess {
    CacheAccess {
        set,
        way: Some(w),
        line,
        sectors,
        write,
        outcome: o,
    }
}

#[test]
fn l1_accesses_and_ways_are_the_ones_derived_by_hand() {
    use CacheOutcome::*;
    let (tl, cycles) = record(0, 100_000);
    let frames = &tl.sms[0].frames;
    let l1: Vec<&CacheFrame> = frames.iter().map(|f| f.l1.as_ref().unwrap()).collect();
    // The run's last cycle is `cycles - 1`: one frame per cycle.
    assert_eq!(frames.len() as u64, cycles);
    // The kernel begins in cycle 0, before the first capture: its carve-out (no shared
    // memory: the whole 16 KiB unified storage, not the configured 8 KiB) gives 32 sets of 4
    // ways, and the first frame is a snapshot of that empty cache. No other snapshot follows.
    let g16 = CacheGeom {
        sets: 32,
        assoc: 4,
        line_bytes: 128,
        sector_bytes: 32,
    };
    let snaps: Vec<(u64, CacheGeom, usize)> = frames
        .iter()
        .zip(&l1)
        .filter_map(|(f, c)| {
            c.snapshot
                .as_ref()
                .map(|s| (f.cycle, s.geometry, s.ways.len()))
        })
        .collect();
    assert_eq!(snaps, vec![(0, g16, 0)]);
    // Every access, in order, with the cycle it happened in.
    let got: Vec<(u64, CacheAccess)> = frames
        .iter()
        .zip(&l1)
        .flat_map(|(f, c)| c.accesses.iter().map(move |a| (f.cycle, *a)))
        .collect();
    let evs: Vec<CacheAccess> = got.iter().map(|x| x.1).collect();
    assert_eq!(
        evs,
        vec![
            // Cold miss: the empty set allocates its tail way, 3.
            acc(0, 3, A, 0xf, false, Miss),
            // After the FADD waited for the fill: the line is there.
            acc(0, 3, A, 0xf, false, Hit),
            // Same set, new line: the next way from the tail, 2.
            acc(0, 2, B, 0xf, false, Miss),
            // A one-lane store: sector 0 of D, write-allocate in set 1's tail way.
            acc(1, 3, D, 0x1, true, Miss),
        ]
    );
    let at: Vec<u64> = got.iter().map(|x| x.0).collect();
    // The hit waits for the first load's data (L1 miss to DRAM) plus the FADD; the two later
    // accesses follow on consecutive cycles (one coalesced request per cycle).
    assert!(at[1] > at[0] + 100, "{at:?}");
    assert_eq!(at[3], at[2] + 1, "{at:?}");
    // Golden cycles (issue at 2, then the memory pipeline's stages to the L1 at 7).
    assert_eq!(at, vec![7, 191, 192, 193]);
    // The ways each access changed, at the end of its cycle; a hit changes nothing.
    let changed: Vec<Vec<WaySnap>> = l1
        .iter()
        .filter(|c| !c.accesses.is_empty())
        .map(|c| c.changed.clone())
        .collect();
    assert_eq!(
        changed,
        vec![
            vec![way(0, 3, A, 0xf)],
            vec![],
            vec![way(0, 2, B, 0xf)],
            // The store writes 4 of sector 0's 32 bytes: the way is allocated, but the sector
            // is not readable (write-validate, `SectorCache::store`).
            vec![way(1, 3, D, 0x0)],
        ]
    );
    // Replaying the frames gives the cache at any cycle.
    let fi = |c: u64| frames.iter().position(|f| f.cycle == c).unwrap();
    let (g, ways) = state_at(&l1, fi(at[2]) - 1);
    assert_eq!(g, g16);
    let valid: Vec<WaySnap> = ways.into_iter().filter(|w| w.line.is_some()).collect();
    assert_eq!(valid, vec![way(0, 3, A, 0xf)]);
    let (_, ways) = state_at(&l1, frames.len() - 1);
    let valid: Vec<WaySnap> = ways.into_iter().filter(|w| w.line.is_some()).collect();
    assert_eq!(
        valid,
        vec![way(0, 2, B, 0xf), way(0, 3, A, 0xf), way(1, 3, D, 0x0)]
    );
}

#[test]
fn a_window_starts_with_a_snapshot_and_recording_changes_nothing() {
    let (full, cycles) = record(0, 100_000);
    let plain = sim().run_to_end().unwrap();
    assert_eq!(plain.cycles, cycles);
    // A window that opens after the first miss: its first frame is the cache as it is then.
    let first = full.sms[0]
        .frames
        .iter()
        .find(|f| !f.l1.as_ref().unwrap().accesses.is_empty())
        .unwrap()
        .cycle;
    let (tl, _) = record(first + 1, first + 40);
    let f0 = tl.sms[0].frames[0].l1.as_ref().unwrap();
    let s = f0
        .snapshot
        .as_ref()
        .expect("first frame carries a snapshot");
    assert_eq!(s.ways, vec![way(0, 3, A, 0xf)]);
    assert!(tl.sms[0].frames[1..]
        .iter()
        .all(|f| f.l1.as_ref().unwrap().snapshot.is_none()));
    // The frames equal the full recording's for the same cycles (cache changes included).
    let same: Vec<_> = full.sms[0]
        .frames
        .iter()
        .filter(|f| f.cycle > first && f.cycle < first + 40)
        .map(|f| (f.cycle, f.l1.as_ref().unwrap().changed.clone()))
        .collect();
    let got: Vec<_> = tl.sms[0]
        .frames
        .iter()
        .map(|f| (f.cycle, f.l1.as_ref().unwrap().changed.clone()))
        .collect();
    assert_eq!(got, same);
}
