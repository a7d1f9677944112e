//! The recorder: one per recorded SM, filled by [`capture`] at the end of each `Sm::step`, and
//! merged in SM order by [`collect`].

use super::cache::L1Shadow;
use super::{Frame, KernelOps, MemFrame, Occ, RecordConfig, SlotState, SmTimeline, SubFrame};
use super::{Timeline, UNIT_NAMES};
use crate::core::{Sm, SmMem, SmShared, StepCtx};
use crate::engine::Gpu;
use crate::error::{Error, Result};
use crate::Cycle;

/// The frames one SM recorded.
#[derive(Clone, Debug)]
pub struct SmRecorder {
    from: Cycle,
    to: Cycle,
    max_frames: usize,
    /// The recorder switched the SM's issue log on (and drains it every cycle).
    owns_log: bool,
    /// The last captured cycle's frame (kept before the window so skipped cycles that cross
    /// into it can be repeated).
    last: Option<Frame>,
    /// The recorder's copy of the L1 data cache (cycle memory system only).
    l1: Option<L1Shadow>,
    out: SmTimeline,
}

impl SmRecorder {
    /// Skipped idle cycles: each repeats the last captured frame (nothing issued).
    pub fn repeat(&mut self, k: u64) {
        let Some(last) = &mut self.last else { return };
        let base = last.cycle;
        for s in &mut last.subcores {
            s.issued.clear();
        }
        if let Some(c) = &mut last.l1 {
            *c = Default::default();
        }
        for i in 1..=k {
            let c = base + i;
            if c >= self.to {
                break;
            }
            last.cycle = c;
            if c >= self.from {
                if self.out.frames.len() < self.max_frames {
                    let mut f = last.clone();
                    if let (Some(cf), Some(sh)) = (&mut f.l1, &mut self.l1) {
                        cf.snapshot = sh.take_snapshot();
                    }
                    self.out.frames.push(f);
                } else {
                    self.out.truncated = true;
                }
            }
        }
        last.cycle = base + k;
    }
}

/// Attaches recorders to the SMs `rc` names (an SM id out of range is a config error).
pub fn attach(gpu: &mut Gpu, rc: &RecordConfig) -> Result<()> {
    if rc.to <= rc.from {
        return Err(Error::config(
            "timeline.cycles",
            format!(
                "empty window {}..{}: expected A..B with A < B",
                rc.from, rc.to
            ),
        ));
    }
    let n = gpu.sms.len();
    for &s in &rc.sms {
        let Some(sm) = gpu.sms.get_mut(s as usize) else {
            return Err(Error::config(
                "timeline.sms",
                format!("SM {s} does not exist (the GPU has {n})"),
            ));
        };
        let owns_log = sm.sh.issue_log.is_none();
        if owns_log {
            sm.sh.issue_log = Some(Vec::new());
        }
        let l1 = match &mut sm.sh.mem {
            SmMem::Cycle(m) => Some(L1Shadow::attach(m)),
            SmMem::Analytic(_) => None,
        };
        sm.recorder = Some(Box::new(SmRecorder {
            from: rc.from,
            to: rc.to,
            max_frames: rc.max_frames.max(1),
            owns_log,
            last: None,
            l1,
            out: SmTimeline {
                sm: s,
                subcores: sm.subcores.len(),
                frames: Vec::new(),
                truncated: false,
            },
        }));
    }
    Ok(())
}

/// Takes the recorders off the SMs and merges their frames, SMs in id order.
pub fn collect(gpu: &mut Gpu) -> Timeline {
    let mut tl = Timeline {
        units: UNIT_NAMES.iter().map(|s| s.to_string()).collect(),
        kernels: gpu
            .kernels
            .iter()
            .map(|k| KernelOps {
                name: k.info.name.clone(),
                ops: k.op_names.clone(),
            })
            .collect(),
        ..Default::default()
    };
    for sm in &mut gpu.sms {
        if let Some(r) = sm.recorder.take() {
            if r.owns_log {
                sm.sh.issue_log = None;
            }
            if let SmMem::Cycle(m) = &mut sm.sh.mem {
                L1Shadow::detach(m);
            }
            tl.from = r.from;
            tl.to = r.to;
            tl.sms.push(r.out);
        }
    }
    tl
}

/// Instruction `idx` of warp slot `warp` (opcode 0 / PC 0 if its CTA has just finished and
/// dropped its trace).
fn occ(sh: &SmShared, warp: u16, idx: u32) -> Occ {
    let w = &sh.warps[warp as usize];
    let i = sh
        .ctas
        .get(w.cta as usize)
        .and_then(|c| c.trace.get(w.widx as usize))
        .and_then(|t| t.get(idx as usize));
    Occ {
        warp,
        kernel: w.kernel,
        op: i.map_or(0, |i| i.op.0),
        pc: i.map_or(0, |i| i.pc),
        idx,
    }
}

/// Records cycle `now` of `sm` (called by `Sm::step` when a recorder is attached).
pub fn capture(sm: &mut Sm, now: Cycle, ctx: &StepCtx) {
    let Some(mut r) = sm.recorder.take() else {
        return;
    };
    if now < r.to {
        let mut f = frame(sm, now, ctx);
        if let (Some(sh), SmMem::Cycle(m)) = (&mut r.l1, &mut sm.sh.mem) {
            let mut cf = sh.step(m, now);
            if now >= r.from {
                cf.snapshot = sh.take_snapshot();
            }
            f.l1 = Some(cf);
        }
        if now >= r.from {
            if r.out.frames.len() < r.max_frames {
                r.out.frames.push(f.clone());
            } else {
                r.out.truncated = true;
            }
        }
        r.last = Some(f);
    } else {
        if r.owns_log {
            if let Some(log) = &mut sm.sh.issue_log {
                log.clear();
            }
        }
        if let SmMem::Cycle(m) = &mut sm.sh.mem {
            L1Shadow::detach(m);
        }
    }
    sm.recorder = Some(r);
}

fn frame(sm: &mut Sm, now: Cycle, ctx: &StepCtx) -> Frame {
    let owns_log = sm.recorder.as_ref().is_some_and(|r| r.owns_log);
    let sh = &sm.sh;
    let n = sm.subcores.len();
    let log: &[crate::core::IssueEvent] = sh.issue_log.as_deref().unwrap_or(&[]);
    let issued_now = |wi: usize| {
        log.iter()
            .rev()
            .any(|e| e.cycle == now && e.warp as usize == wi)
    };
    let mut f = Frame {
        cycle: now,
        subcores: Vec::with_capacity(n),
        mem: Vec::new(),
        mem_outstanding: sh.mem.outstanding() as u64,
        l1: None,
    };
    for (s, sc) in sm.subcores.iter().enumerate() {
        let mut sf = SubFrame::default();
        let mut wi = s;
        while wi < sh.warps.len() {
            let w = &sh.warps[wi];
            let st = if !w.active {
                SlotState::Empty
            } else if issued_now(wi) {
                SlotState::Issued
            } else if let Some(k) = sc.why_stalled(sh, ctx, wi) {
                SlotState::Stalled(k)
            } else if w.ib.is_empty() && w.ib.head >= w.n_insts {
                SlotState::Draining
            } else {
                SlotState::Ready
            };
            sf.slots.push(st);
            wi += n;
        }
        let mine = |e: &&crate::core::IssueEvent| e.cycle == now && e.subcore as usize == s;
        for (j, e) in log.iter().filter(mine).enumerate() {
            let w = &sh.warps[e.warp as usize];
            // The issued instructions are the last ones before the instruction-buffer head.
            let m = log.iter().filter(mine).filter(|x| x.warp == e.warp).count() as u32;
            let before = log
                .iter()
                .filter(mine)
                .take(j)
                .filter(|x| x.warp == e.warp)
                .count() as u32;
            let idx = (w.ib.head + before).saturating_sub(m);
            let mut o = occ(sh, e.warp, idx);
            o.pc = e.pc;
            sf.issued.push(o);
        }
        sf.collectors = sc
            .cus
            .cus
            .iter()
            .map(|c| c.busy.then(|| occ(sh, c.warp, c.idx)))
            .collect();
        sf.units = sc
            .exec
            .inflight
            .iter()
            .map(|x| super::UnitOcc {
                unit: x.unit,
                start: x.start,
                end: x.complete,
                inst: Occ {
                    warp: x.warp,
                    kernel: sh.warps[x.warp as usize].kernel,
                    op: x.op,
                    pc: x.pc,
                    idx: 0,
                },
            })
            .collect();
        sf.units
            .sort_by_key(|u| (u.unit, u.start, u.inst.warp, u.inst.pc));
        f.subcores.push(sf);
    }
    for p in &sh.pipes {
        let at = |e: u8| {
            let m = &p.table[e as usize];
            let mut o = occ(sh, m.warp, m.idx);
            o.pc = m.pc;
            o
        };
        let d = p.dispatch.map(|(e, _)| e);
        let wb = p.wb.front().copied();
        let mut mf = MemFrame {
            dispatch: d.map(at),
            addr: p.addr.map(at),
            buffered: p.buf.len() as u16,
            waiting: Vec::new(),
            writeback: wb.map(at),
        };
        for (e, m) in p.table.iter().enumerate() {
            let e8 = e as u8;
            if m.used && d != Some(e8) && p.addr != Some(e8) && !p.wb.contains(&e8) {
                mf.waiting.push(at(e8));
            }
        }
        mf.waiting.sort_by_key(|o| (o.warp, o.idx));
        f.mem.push(mf);
    }
    if owns_log {
        if let Some(log) = &mut sm.sh.issue_log {
            log.clear();
        }
    }
    f
}
