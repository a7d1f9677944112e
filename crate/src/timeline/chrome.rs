//! Chrome-trace / Perfetto JSON in cycles: a recorded window ([`render`]) and a whole run
//! ([`run_trace`], the browser app's export, which adds the kernels and the IPC and hit-rate
//! counters). The format's timestamps are microseconds; this writes `ts = cycle / 1000`, so
//! Perfetto's nanosecond axis reads in cycles: **1 ns = 1 cycle** (said again in the process
//! names and in `otherData.time_unit`). Perfetto rounds such timestamps to the nearest
//! nanosecond, so every cycle lands exactly.
//!
//! ```text
//!  pid "SM 0 (1 ns = 1 cycle)"          counters: "warp instructions issued", "L1D hits|misses"
//!  pid "SM 0 sub-core 0"  tid "issue"    [w0 FFMA][w1 IADD3]      one track per sub-core
//!                         tid "w0"       [issued][comp_data..][issued][draining...]
//!                         tid "CU0"      [w0 FFMA #3][w1 IADD3 #2]
//!                         tid "SP #0"            [w0 FFMA @0x0000....]   one per execution unit
//!  pid "SM 0 memory pipeline 0"  tid "dispatch" | "addr" | "wait" | "writeback"
//! ```
//!
//! Spans on one track never overlap: instructions that overlap in a pipelined unit go to lanes
//! (`SP #0`, `SP #1`, ...). Processes and threads get names and sort indices in a fixed order
//! (SMs in id order; sub-cores, then memory pipelines; issue, warp slots, collectors, units),
//! and the same input gives the same bytes.

use super::cache::CacheOutcome;
use super::{Occ, SlotState, Timeline, UNIT_NAMES};
use crate::Cycle;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// How the time axis reads, written into every document.
pub const TIME_UNIT: &str = "1 ns = 1 cycle (ts and dur are cycles / 1000, in microseconds)";
/// The run-level process of [`run_trace`] (kernels, counters over the whole run).
const RUN_PID: u64 = 1;
/// The window's first process and thread ids (above the run-level ones, so both documents
/// merge without renumbering).
const FIRST_WINDOW_ID: u64 = 10;

/// The trace timestamp (microseconds) of cycle `c`: one cycle shows as one nanosecond.
pub fn ts(c: Cycle) -> f64 {
    c as f64 / 1000.0
}

/// A group of tracks shown as one Perfetto process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Sub(usize),
    Mem(usize),
}

/// A track inside a group, in display order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Track {
    Issue,
    Slot(u16),
    Cu(usize),
    Unit(u8),
    Dispatch,
    Addr,
    Wait,
    Writeback,
}

impl Track {
    fn name(self) -> String {
        match self {
            Track::Issue => "issue".into(),
            Track::Slot(w) => format!("w{w}"),
            Track::Cu(k) => format!("CU{k}"),
            Track::Unit(u) => UNIT_NAMES
                .get(u as usize)
                .map_or_else(|| format!("unit {u}"), |n| n.to_string()),
            Track::Dispatch => "dispatch".into(),
            Track::Addr => "addr".into(),
            Track::Wait => "wait".into(),
            Track::Writeback => "writeback".into(),
        }
    }
}

type Key = (Group, Track);

/// A span: [start, end) in cycles, its name and warp.
type Span = (Cycle, Cycle, String, Option<u16>);

#[derive(Default)]
struct Tracks {
    spans: BTreeMap<Key, Vec<Span>>,
    /// Open run-length spans: track -> (label, warp, start).
    open: BTreeMap<Key, (String, Option<u16>, Cycle)>,
}

impl Tracks {
    fn track(&mut self, t: Key) -> &mut Vec<Span> {
        self.spans.entry(t).or_default()
    }

    /// Track `t` holds `who` in cycle `c` (consecutive equal cycles merge into one span).
    fn hold(&mut self, t: Key, c: Cycle, who: Option<(String, Option<u16>)>) {
        let same =
            matches!((self.open.get(&t), &who), (Some(o), Some(w)) if o.0 == w.0 && o.1 == w.1);
        if same {
            return;
        }
        self.close(t, c);
        self.track(t);
        if let Some((l, w)) = who {
            self.open.insert(t, (l, w, c));
        }
    }

    fn close(&mut self, t: Key, c: Cycle) {
        if let Some((l, w, s)) = self.open.remove(&t) {
            self.track(t).push((s, c, l, w));
        }
    }

    fn close_all(&mut self, c: Cycle) {
        let keys: Vec<Key> = self.open.keys().copied().collect();
        for k in keys {
            self.close(k, c);
        }
    }
}

fn label(tl: &Timeline, o: &Occ) -> String {
    format!("w{} {} @0x{:04x}", o.warp, tl.op_name(o), o.pc)
}

/// (sub-core, unit, start cycle, warp, pc) of an instruction seen in an execution unit.
type UnitKey = (usize, u8, Cycle, u16, u32);
/// (last cycle seen, label, warp) of that instruction.
type UnitSpan = (Cycle, String, u16);
/// (memory pipeline, warp, trace index) of an instruction waiting on memory.
type WaitKey = (usize, u16, u32);
/// (first cycle, last cycle, label, warp) of that wait.
type WaitSpan = (Cycle, Cycle, String, u16);

/// Process and thread ids handed out in document order.
struct Ids {
    next_pid: u64,
    next_tid: u64,
}

fn process(ev: &mut Vec<Value>, pid: u64, name: String) {
    ev.push(json!({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": name}}));
    ev.push(json!({"ph": "M", "name": "process_sort_index", "pid": pid,
        "args": {"sort_index": pid}}));
}

fn thread(ev: &mut Vec<Value>, pid: u64, tid: u64, name: String) {
    ev.push(
        json!({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
        "args": {"name": name}}),
    );
    ev.push(
        json!({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
        "args": {"sort_index": tid}}),
    );
}

fn complete(pid: u64, tid: u64, (s, e, l, w): Span) -> Value {
    let mut x = json!({"ph": "X", "name": l, "pid": pid, "tid": tid,
        "ts": ts(s), "dur": ts(e - s)});
    if let Some(w) = w {
        x["args"] = json!({"warp": w});
    }
    x
}

fn counter(pid: u64, name: &str, c: Cycle, args: Value) -> Value {
    json!({"ph": "C", "name": name, "pid": pid, "ts": ts(c), "args": args})
}

/// The Chrome-trace JSON document of a recorded window.
pub fn render(tl: &Timeline) -> Value {
    let mut ids = Ids {
        next_pid: FIRST_WINDOW_ID,
        next_tid: FIRST_WINDOW_ID,
    };
    let mut ev = Vec::new();
    for si in 0..tl.sms.len() {
        render_sm(tl, si, &mut ids, &mut ev);
    }
    json!({
        "displayTimeUnit": "ns",
        "otherData": {"window": [tl.from, tl.to], "time_unit": TIME_UNIT},
        "traceEvents": ev,
    })
}

fn render_sm(tl: &Timeline, si: usize, ids: &mut Ids, ev: &mut Vec<Value>) {
    let sm = &tl.sms[si];
    let sm_pid = ids.next_pid;
    ids.next_pid += 1;
    process(ev, sm_pid, format!("SM {} (1 ns = 1 cycle)", sm.sm));
    let n = sm.subcores;
    let mems = sm.frames.iter().map(|f| f.mem.len()).max().unwrap_or(0);
    let mut tr = Tracks::default();
    let mut units_seen: BTreeMap<UnitKey, UnitSpan> = BTreeMap::new();
    let mut waits: BTreeMap<WaitKey, WaitSpan> = BTreeMap::new();
    let mut last_issued = None;
    let mut last_l1 = None;
    let mut end = tl.from;
    for f in &sm.frames {
        let c = f.cycle;
        end = c + 1;
        for (s, sf) in f.subcores.iter().enumerate() {
            let g = Group::Sub(s);
            for o in &sf.issued {
                tr.track((g, Track::Issue))
                    .push((c, c + 1, label(tl, o), Some(o.warp)));
            }
            for (k, st) in sf.slots.iter().enumerate() {
                let w = (k * n + s) as u16;
                let who = match st {
                    SlotState::Empty => None,
                    SlotState::Issued => Some("issued".to_string()),
                    SlotState::Ready => Some("ready".to_string()),
                    SlotState::Draining => Some("draining".to_string()),
                    SlotState::Stalled(k) => Some(k.name().to_string()),
                };
                let t = (g, Track::Slot(w));
                if who.is_some() || tr.open.contains_key(&t) {
                    tr.hold(t, c, who.map(|x| (x, Some(w))));
                }
            }
            for (k, cu) in sf.collectors.iter().enumerate() {
                let who = cu.map(|o| (format!("{} #{}", label(tl, &o), o.idx), Some(o.warp)));
                tr.hold((g, Track::Cu(k)), c, who);
            }
            for u in &sf.units {
                let key = (s, u.unit, u.start, u.inst.warp, u.inst.pc);
                units_seen
                    .entry(key)
                    .or_insert((u.end, label(tl, &u.inst), u.inst.warp));
            }
        }
        for (p, m) in f.mem.iter().enumerate() {
            let g = Group::Mem(p);
            let who = |o: &Option<Occ>| {
                o.map(|o| (format!("{} #{}", label(tl, &o), o.idx), Some(o.warp)))
            };
            tr.hold((g, Track::Dispatch), c, who(&m.dispatch));
            tr.hold((g, Track::Addr), c, who(&m.addr));
            tr.hold((g, Track::Writeback), c, who(&m.writeback));
            for o in &m.waiting {
                let e = waits
                    .entry((p, o.warp, o.idx))
                    .or_insert((c, c, label(tl, o), o.warp));
                e.1 = c + 1;
            }
        }
        let issued: usize = f.subcores.iter().map(|s| s.issued.len()).sum();
        if last_issued != Some(issued) {
            ev.push(counter(
                sm_pid,
                "warp instructions",
                c,
                json!({"issued": issued}),
            ));
            last_issued = Some(issued);
        }
        if let Some(l1) = &f.l1 {
            let hits = l1
                .accesses
                .iter()
                .filter(|a| a.outcome == CacheOutcome::Hit)
                .count();
            let now = (hits, l1.accesses.len() - hits);
            if last_l1 != Some(now) {
                ev.push(counter(
                    sm_pid,
                    "L1D",
                    c,
                    json!({"hits": now.0, "misses": now.1}),
                ));
                last_l1 = Some(now);
            }
        }
    }
    tr.close_all(end);
    for ((s, u, start, _, _), (e, l, w)) in units_seen {
        tr.track((Group::Sub(s), Track::Unit(u)))
            .push((start, e.max(start + 1), l, Some(w)));
    }
    for ((p, _, _), (s, e, l, w)) in waits {
        tr.track((Group::Mem(p), Track::Wait))
            .push((s, e, l, Some(w)));
    }
    // One process per sub-core and per memory pipeline, all of them, in order.
    let groups = (0..n).map(Group::Sub).chain((0..mems).map(Group::Mem));
    for g in groups {
        let pid = ids.next_pid;
        ids.next_pid += 1;
        process(
            ev,
            pid,
            match g {
                Group::Sub(s) => format!("SM {} sub-core {s}", sm.sm),
                Group::Mem(p) => format!("SM {} memory pipeline {p}", sm.sm),
            },
        );
        for (&(_, t), spans) in tr.spans.range((g, Track::Issue)..=(g, Track::Writeback)) {
            // Lanes: a track's overlapping spans go to numbered sub-tracks.
            let mut spans = spans.clone();
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
                let tid = ids.next_tid;
                ids.next_tid += 1;
                let name = if many {
                    format!("{} #{li}", t.name())
                } else {
                    t.name()
                };
                thread(ev, pid, tid, name);
                ev.extend(spans.into_iter().map(|sp| complete(pid, tid, sp)));
            }
        }
    }
}

/// The browser app's export of a finished run: `env` is the result envelope (`resultJson`),
/// `window` the recorded window's document ([`render`], `timelineJson().chrome`) if any.
/// Process 1 holds the kernels (complete events at their cycles; the memory mode, which has
/// no time, lays them end to end, one cycle each) and the counters over the whole run
/// (`core IPC`, `hit rate L1D`, `hit rate L2`, one sample per interval); the window's
/// processes follow.
pub fn run_trace(env: &Value, window: Option<&Value>) -> Value {
    let mut ev = Vec::new();
    let gpu = env["gpu"].as_str().unwrap_or("?");
    let mode = env["mode"].as_str().unwrap_or("?");
    process(
        &mut ev,
        RUN_PID,
        format!("warpweave {gpu} ({mode}) (1 ns = 1 cycle)"),
    );
    thread(&mut ev, RUN_PID, RUN_PID, "kernels".into());
    let r = &env["result"];
    let kernels = r["kernels"]
        .as_array()
        .or_else(|| env["trace"]["kernels"].as_array())
        .cloned()
        .unwrap_or_default();
    let mut t = 0u64;
    for (i, k) in kernels.iter().enumerate() {
        let start = k["launched_at"].as_u64().unwrap_or(t);
        let dur = k["cycles"].as_u64().unwrap_or(1);
        let args: Map<String, Value> = k
            .as_object()
            .map(|o| {
                o.iter()
                    .filter(|(_, v)| !v.is_object() && !v.is_array())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let name = k["name"]
            .as_str()
            .map_or_else(|| format!("kernel {i}"), str::to_string);
        ev.push(
            json!({"ph": "X", "cat": "kernel", "name": name, "pid": RUN_PID,
            "tid": RUN_PID, "ts": ts(start), "dur": ts(dur), "args": args}),
        );
        t = start + dur;
    }
    let s = &env["ipc_over_time"];
    if let Some(cycles) = s["cycle"].as_array() {
        for (i, c) in cycles.iter().enumerate() {
            let Some(c) = c.as_u64() else { continue };
            if let Some(ipc) = s["ipc"][i].as_f64() {
                ev.push(counter(RUN_PID, "core", c, json!({"IPC": ipc})));
            }
            let mut args = Map::new();
            for (key, field) in [("L1D", "l1_hit_rate"), ("L2", "l2_hit_rate")] {
                if let Some(v) = s[field][i].as_f64() {
                    args.insert(key.into(), v.into());
                }
            }
            if !args.is_empty() {
                ev.push(counter(RUN_PID, "hit rate", c, Value::Object(args)));
            }
        }
    }
    let mut other = json!({
        "tool": env["tool"], "version": env["version"], "gpu": gpu, "mode": mode,
        "trace_hash": env["trace"]["hash"], "time_unit": TIME_UNIT,
    });
    if let Some(w) = window {
        if let Some(e) = w["traceEvents"].as_array() {
            ev.extend(e.iter().cloned());
        }
        other["window"] = w["otherData"]["window"].clone();
    }
    json!({"displayTimeUnit": "ns", "otherData": other, "traceEvents": ev})
}
