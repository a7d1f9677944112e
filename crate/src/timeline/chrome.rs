//! Chrome-trace / Perfetto JSON of a recorded window: one process per SM, one thread per track
//! (a warp slot's states, a collector unit, an execution unit's lane, a memory-pipeline stage),
//! "X" complete events for each instruction-in-stage span (1 cycle = 1 µs), and an "issued"
//! counter (instructions issued per cycle). Spans on one track never overlap: instructions that
//! overlap in a pipelined unit are spread over lanes (`SP #0`, `SP #1`, ...).
//!
//! ```text
//!  pid SM 0 ─ tid "sc0 w0"      [issued][comp_data.....][issued][draining...]
//!            tid "sc0 CU0"     [w0 FFMA][w1 IADD3]        [w0 FFMA]
//!            tid "sc0 SP #0"           [w0 FFMA @0x0..........]
//! ```

use super::{Occ, SlotState, Timeline, UNIT_NAMES};
use crate::Cycle;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A span: [start, end) in cycles, its name and warp.
type Span = (Cycle, Cycle, String, Option<u16>);

#[derive(Default)]
struct Tracks {
    /// Track order of first appearance, and spans per track.
    order: Vec<String>,
    spans: BTreeMap<String, Vec<Span>>,
    /// Open run-length spans: track -> (label, warp, start).
    open: BTreeMap<String, (String, Option<u16>, Cycle)>,
}

impl Tracks {
    fn track(&mut self, t: &str) -> &mut Vec<Span> {
        if !self.spans.contains_key(t) {
            self.order.push(t.to_string());
        }
        self.spans.entry(t.to_string()).or_default()
    }

    fn span(&mut self, t: &str, s: Span) {
        self.track(t).push(s);
    }

    /// Track `t` holds `who` in cycle `c` (consecutive equal cycles merge into one span).
    fn hold(&mut self, t: &str, c: Cycle, who: Option<(String, Option<u16>)>) {
        let same =
            matches!((self.open.get(t), &who), (Some(o), Some(w)) if o.0 == w.0 && o.1 == w.1);
        if same {
            return;
        }
        self.close(t, c);
        self.track(t);
        if let Some((l, w)) = who {
            self.open.insert(t.to_string(), (l, w, c));
        }
    }

    fn close(&mut self, t: &str, c: Cycle) {
        if let Some((l, w, s)) = self.open.remove(t) {
            self.track(t).push((s, c, l, w));
        }
    }

    fn close_all(&mut self, c: Cycle) {
        let keys: Vec<String> = self.open.keys().cloned().collect();
        for k in keys {
            self.close(&k, c);
        }
    }
}

fn label(tl: &Timeline, o: &Occ) -> String {
    format!("w{} {} @0x{:04x}", o.warp, tl.op_name(o), o.pc)
}

/// The Chrome-trace JSON document of `tl`.
/// (sub-core, unit, start cycle, warp, pc) of an instruction seen in an execution unit.
type UnitKey = (usize, u8, Cycle, u16, u32);
/// (last cycle seen, label, opcode) of that instruction.
type UnitSpan = (Cycle, String, u16);
/// (sub-core, warp, pc) of an instruction waiting on memory.
type WaitKey = (usize, u16, u32);
/// (first cycle, last cycle, label, opcode) of that wait.
type WaitSpan = (Cycle, Cycle, String, u16);

pub fn render(tl: &Timeline) -> Value {
    let mut ev = Vec::new();
    for sm in &tl.sms {
        let pid = sm.sm;
        ev.push(json!({"ph": "M", "name": "process_name", "pid": pid,
            "args": {"name": format!("SM {}", sm.sm)}}));
        let mut tr = Tracks::default();
        let mut units_seen: BTreeMap<UnitKey, UnitSpan> = BTreeMap::new();
        let mut waits: BTreeMap<WaitKey, WaitSpan> = BTreeMap::new();
        let n = sm.subcores;
        let mut last_issued = None;
        let mut end = tl.from;
        for f in &sm.frames {
            let c = f.cycle;
            end = c + 1;
            for (s, sf) in f.subcores.iter().enumerate() {
                for (k, st) in sf.slots.iter().enumerate() {
                    let w = (k * n + s) as u16;
                    let who = match st {
                        SlotState::Empty => None,
                        SlotState::Issued => Some("issued".to_string()),
                        SlotState::Ready => Some("ready".to_string()),
                        SlotState::Draining => Some("draining".to_string()),
                        SlotState::Stalled(k) => Some(k.name().to_string()),
                    };
                    let t = format!("sc{s} w{w}");
                    if who.is_some() || tr.open.contains_key(&t) {
                        tr.hold(&t, c, who.map(|x| (x, Some(w))));
                    }
                }
                for (k, cu) in sf.collectors.iter().enumerate() {
                    let who = cu.map(|o| (format!("{} #{}", label(tl, &o), o.idx), Some(o.warp)));
                    tr.hold(&format!("sc{s} CU{k}"), c, who);
                }
                for u in &sf.units {
                    let key = (s, u.unit, u.start, u.inst.warp, u.inst.pc);
                    units_seen
                        .entry(key)
                        .or_insert((u.end, label(tl, &u.inst), u.inst.warp));
                }
            }
            for (p, m) in f.mem.iter().enumerate() {
                let who = |o: &Option<Occ>| {
                    o.map(|o| (format!("{} #{}", label(tl, &o), o.idx), Some(o.warp)))
                };
                tr.hold(&format!("mem{p} dispatch"), c, who(&m.dispatch));
                tr.hold(&format!("mem{p} addr"), c, who(&m.addr));
                tr.hold(&format!("mem{p} writeback"), c, who(&m.writeback));
                for o in &m.waiting {
                    let e = waits
                        .entry((p, o.warp, o.idx))
                        .or_insert((c, c, label(tl, o), o.warp));
                    e.1 = c + 1;
                }
            }
            let issued: usize = f.subcores.iter().map(|s| s.issued.len()).sum();
            if last_issued != Some(issued) {
                ev.push(json!({"ph": "C", "name": "issued", "pid": pid, "ts": c,
                    "args": {"issued": issued}}));
                last_issued = Some(issued);
            }
        }
        tr.close_all(end);
        for ((s, u, start, _, _), (e, l, w)) in units_seen {
            let name = UNIT_NAMES[u as usize];
            tr.span(
                &format!("sc{s} {name}"),
                (start, e.max(start + 1), l, Some(w)),
            );
        }
        for ((p, _, _), (s, e, l, w)) in waits {
            tr.span(&format!("mem{p} wait"), (s, e, l, Some(w)));
        }
        // Lanes: a track's overlapping spans go to numbered sub-tracks.
        let mut tid = 0u32;
        for t in &tr.order {
            let mut spans = tr.spans[t].clone();
            spans.sort_by_key(|a| (a.0, a.1));
            let mut lanes: Vec<(Cycle, Vec<Span>)> = Vec::new();
            for sp in spans {
                match lanes.iter_mut().find(|l| l.0 <= sp.0) {
                    Some(l) => {
                        l.0 = sp.1;
                        l.1.push(sp);
                    }
                    None => lanes.push((sp.1, vec![sp])),
                }
            }
            let many = lanes.len() > 1;
            for (li, (_, spans)) in lanes.into_iter().enumerate() {
                let name = if many {
                    format!("{t} #{li}")
                } else {
                    t.clone()
                };
                ev.push(
                    json!({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                    "args": {"name": name}}),
                );
                ev.push(
                    json!({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                    "args": {"sort_index": tid}}),
                );
                for (s, e, l, w) in spans {
                    let mut x = json!({"ph": "X", "name": l, "pid": pid, "tid": tid,
                        "ts": s, "dur": e - s});
                    if let Some(w) = w {
                        x["args"] = json!({"warp": w});
                    }
                    ev.push(x);
                }
                tid += 1;
            }
        }
    }
    json!({
        "displayTimeUnit": "ns",
        "otherData": {"window": [tl.from, tl.to], "cycle": "1 us = 1 core cycle"},
        "traceEvents": ev,
    })
}
