//! A crafted two-warp trace on one sub-core: the recorder's per-cycle stage occupancy, derived
//! by hand from the pipeline timing (engine tests' rules: issue at 2, operands read and dispatch
//! at issue+1, completion at issue+L, FP32 L=4 interval 2, INT L=4), and the golden picture.

use super::*;
use crate::config::GpuConfig;
use crate::engine::{ModelChoice, Simulator};
use crate::trace::*;

fn op(t: &mut OpTable, name: &str, unit: Unit, lat: LatClass) -> OpId {
    t.push(OpInfo {
        name: name.into(),
        unit,
        lat,
        kind: OpKind::Alu,
        space: MemSpace::None,
        unknown: false,
    })
}

fn ins(op: OpId, pc: u32, dst: Reg, src: Reg) -> TraceInst {
    let mut i = TraceInst {
        op,
        pc,
        mask: u32::MAX,
        ndst: 1,
        nsrc: 1,
        ..Default::default()
    };
    i.dst[0] = dst;
    i.src[0] = src;
    i
}

/// Warp 0: FFMA R0 <- R1; FFMA R2 <- R0 (dependent). Warp 1: IADD3 R4 <- R5.
pub(crate) fn two_warp_trace() -> KernelTrace {
    let mut t = OpTable::new();
    let ffma = op(&mut t, "FFMA", Unit::Sp, LatClass::Fp32);
    let iadd = op(&mut t, "IADD3", Unit::Int, LatClass::Int);
    let w0 = WarpTrace {
        warp_id: 0,
        insts: vec![ins(ffma, 0, 0, 1), ins(ffma, 16, 2, 0)],
        ..Default::default()
    };
    let w1 = WarpTrace {
        warp_id: 1,
        insts: vec![ins(iadd, 0, 4, 5)],
        ..Default::default()
    };
    KernelTrace {
        info: KernelInfo {
            name: "two_warps".into(),
            id: 1,
            grid: Dim3::new(1, 1, 1),
            block: Dim3::new(64, 1, 1),
            nregs: 32,
            ..Default::default()
        },
        ops: t,
        ctas: vec![CtaTrace {
            id: Dim3::new(0, 0, 0),
            warps: vec![w0, w1],
        }],
    }
}

pub(crate) fn record(from: u64, to: u64) -> Timeline {
    let mut c = GpuConfig::default();
    c.gpu.num_sms = 1;
    c.sm.subcores = 1;
    c.frontend.l0i.size_kb = 0;
    c.frontend.l1i.size_kb = 0;
    let src = MemTrace::from_kernels("two", vec![two_warp_trace()]);
    let mut s = Simulator::new(c, ModelChoice::default(), Box::new(src)).unwrap();
    let rc = RecordConfig {
        from,
        to,
        ..Default::default()
    };
    attach(&mut s.gpu, &rc).unwrap();
    s.run_to_end().unwrap();
    collect(&mut s.gpu)
}

/// Per cycle: (slot states, collector contents as (warp, op name), unit occupancy as
/// (unit, warp, op name, stage)).
type Occupancy = (
    Vec<SlotState>,
    Vec<(u16, String)>,
    Vec<(String, u16, String, u64)>,
);

fn occupancy(tl: &Timeline) -> Vec<(u64, Occupancy)> {
    tl.sms[0]
        .frames
        .iter()
        .map(|f| {
            let s = &f.subcores[0];
            let cus = s
                .collectors
                .iter()
                .flatten()
                .map(|o| (o.warp, tl.op_name(o).to_string()))
                .collect();
            let units = s
                .units
                .iter()
                .map(|u| {
                    (
                        UNIT_NAMES[u.unit as usize].to_string(),
                        u.inst.warp,
                        tl.op_name(&u.inst).to_string(),
                        f.cycle - u.start,
                    )
                })
                .collect();
            (f.cycle, (s.slots[..2].to_vec(), cus, units))
        })
        .collect()
}

#[test]
fn two_warps_occupy_the_stages_derived_by_hand() {
    use crate::stats::StallKind::{CompData, IFetch};
    use SlotState::*;
    let tl = record(0, 100);
    assert_eq!(tl.sms.len(), 1);
    // The run ends at cycle 10 (last write-back at 9), so 11 frames.
    assert_eq!(tl.sms[0].frames.len(), 11);
    let s = |x: &str| x.to_string();
    let ff = || (0u16, s("FFMA"));
    let got = occupancy(&tl);
    let want: Vec<(u64, Occupancy)> = vec![
        // 0: CTA launched, fetch; 1: w0 decoded (ready), w1 fetched next.
        (0, (vec![Stalled(IFetch), Stalled(IFetch)], vec![], vec![])),
        (1, (vec![Ready, Stalled(IFetch)], vec![], vec![])),
        // 2: w0 issues FFMA into a collector unit.
        (2, (vec![Issued, Ready], vec![ff()], vec![])),
        // 3: FFMA read its operand and dispatched (SP stage 0); w1 issues IADD3; w0's next
        // FFMA waits on R0 until the completion at 2 + 4 = 6.
        (
            3,
            (
                vec![Stalled(CompData), Issued],
                vec![(1, s("IADD3"))],
                vec![(s("SP"), 0, s("FFMA"), 0)],
            ),
        ),
        (
            4,
            (
                vec![Stalled(CompData), Draining],
                vec![],
                vec![(s("INT"), 1, s("IADD3"), 0), (s("SP"), 0, s("FFMA"), 1)],
            ),
        ),
        (
            5,
            (
                vec![Stalled(CompData), Draining],
                vec![],
                vec![(s("INT"), 1, s("IADD3"), 1), (s("SP"), 0, s("FFMA"), 2)],
            ),
        ),
        // 6: FFMA written back, the dependent FFMA issues the same cycle.
        (
            6,
            (
                vec![Issued, Draining],
                vec![ff()],
                vec![(s("INT"), 1, s("IADD3"), 2)],
            ),
        ),
        // 7: IADD3 written back, warp 1 done.
        (
            7,
            (
                vec![Draining, Empty],
                vec![],
                vec![(s("SP"), 0, s("FFMA"), 0)],
            ),
        ),
        (
            8,
            (
                vec![Draining, Empty],
                vec![],
                vec![(s("SP"), 0, s("FFMA"), 1)],
            ),
        ),
        (
            9,
            (
                vec![Draining, Empty],
                vec![],
                vec![(s("SP"), 0, s("FFMA"), 2)],
            ),
        ),
        (10, (vec![Empty, Empty], vec![], vec![])),
    ];
    assert_eq!(got, want);
}

#[test]
fn window_keeps_only_its_cycles() {
    let all = record(0, 100);
    let part = record(3, 6);
    let cycles: Vec<u64> = part.sms[0].frames.iter().map(|f| f.cycle).collect();
    assert_eq!(cycles, vec![3, 4, 5]);
    assert_eq!(part.sms[0].frames[..], all.sms[0].frames[3..6]);
}

#[test]
fn ascii_picture_matches_golden() {
    let tl = record(0, 100);
    let got = ascii::render(&tl, false);
    let want = include_str!("golden_two_warps.txt");
    if got != want && std::env::var_os("WARPWEAVE_BLESS").is_some() {
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/timeline/golden_two_warps.txt"
        );
        std::fs::write(p, &got).unwrap();
        return;
    }
    if got != want {
        panic!("ASCII picture differs from golden_two_warps.txt; got:\n{got}");
    }
}

#[test]
fn bad_window_or_sm_is_a_config_error() {
    let c = GpuConfig::default();
    let src = MemTrace::from_kernels("two", vec![two_warp_trace()]);
    let mut s = Simulator::new(c, ModelChoice::default(), Box::new(src)).unwrap();
    let e = attach(
        &mut s.gpu,
        &RecordConfig {
            from: 5,
            to: 5,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("timeline.cycles"), "{e}");
    let e = attach(
        &mut s.gpu,
        &RecordConfig {
            sms: vec![9999],
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("SM 9999"), "{e}");
}

/// A trace timestamp (microseconds) back in cycles, as Perfetto reads it (nearest ns).
fn cyc(v: &serde_json::Value) -> u64 {
    (v.as_f64().unwrap() * 1000.0).round() as u64
}

#[test]
fn chrome_trace_spans_are_exact_and_never_overlap_on_a_track() {
    let tl = record(0, 100);
    let j = chrome::render(&tl);
    assert_eq!(j["otherData"]["time_unit"], chrome::TIME_UNIT);
    let ev = j["traceEvents"].as_array().unwrap();
    let meta = |what: &str, name: &str| {
        ev.iter()
            .find(|e| e["ph"] == "M" && e["name"] == what && e["args"]["name"] == name)
            .unwrap_or_else(|| panic!("{what} {name}"))
    };
    let sc0 = meta("process_name", "SM 0 sub-core 0")["pid"].clone();
    assert!(ev
        .iter()
        .any(|e| e["name"] == "process_name" && e["args"]["name"] == "SM 0 (1 ns = 1 cycle)"));
    assert!(ev
        .iter()
        .any(|e| e["name"] == "process_name" && e["args"]["name"] == "SM 0 memory pipeline 0"));
    let tid_of = |name: &str| {
        ev.iter()
            .find(|e| {
                e["ph"] == "M"
                    && e["name"] == "thread_name"
                    && e["pid"] == sc0
                    && e["args"]["name"] == name
            })
            .map(|e| e["tid"].as_u64().unwrap())
            .unwrap_or_else(|| panic!("track {name}"))
    };
    let spans = |tid: u64| -> Vec<(u64, u64, String)> {
        ev.iter()
            .filter(|e| e["ph"] == "X" && e["tid"] == tid)
            .map(|e| {
                let ts = cyc(&e["ts"]);
                (
                    ts,
                    ts + cyc(&e["dur"]),
                    e["name"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    // The two FFMAs in the SP unit: dispatched at 3 (done 6) and 7 (done 10).
    assert_eq!(
        spans(tid_of("SP")),
        vec![
            (3, 6, "w0 FFMA @0x0000".into()),
            (7, 10, "w0 FFMA @0x0010".into())
        ]
    );
    // The sub-core's issue track: one cycle per instruction issued.
    let issue = spans(tid_of("issue"));
    assert!(
        issue.contains(&(2, 3, "w0 FFMA @0x0000".into())),
        "{issue:?}"
    );
    assert!(
        issue.contains(&(6, 7, "w0 FFMA @0x0010".into())),
        "{issue:?}"
    );
    assert!(issue.iter().all(|s| s.1 == s.0 + 1));
    // Warp 0's slot: issued 2, comp_data 3..6, issued 6, draining 7..10.
    let w0: Vec<(u64, u64, String)> = spans(tid_of("w0"));
    let names: Vec<_> = w0.iter().map(|s| (s.0, s.1, s.2.as_str())).collect();
    assert_eq!(
        names,
        vec![
            (0, 1, "ifetch"),
            (1, 2, "ready"),
            (2, 3, "issued"),
            (3, 6, "comp_data"),
            (6, 7, "issued"),
            (7, 10, "draining")
        ]
    );
    // Every track: spans sorted and disjoint; every (pid, tid) named once, sort indices set.
    let mut by_tid: std::collections::BTreeMap<(u64, u64), Vec<(u64, u64)>> = Default::default();
    for e in ev.iter().filter(|e| e["ph"] == "X") {
        let ts = cyc(&e["ts"]);
        by_tid
            .entry((e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
            .or_default()
            .push((ts, ts + cyc(&e["dur"])));
    }
    for v in by_tid.values_mut() {
        v.sort();
        assert!(v.windows(2).all(|w| w[0].1 <= w[1].0), "{v:?}");
    }
    let named: Vec<u64> = ev
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .map(|e| e["tid"].as_u64().unwrap())
        .collect();
    let sorted: Vec<u64> = ev
        .iter()
        .filter(|e| e["name"] == "thread_sort_index")
        .map(|e| e["args"]["sort_index"].as_u64().unwrap())
        .collect();
    assert_eq!(named, sorted);
    assert!(named.windows(2).all(|w| w[0] < w[1]));
    // The issued counter sits in the SM's own process.
    let sm_pid = meta("process_name", "SM 0 (1 ns = 1 cycle)")["pid"].clone();
    assert!(ev
        .iter()
        .any(|e| e["ph"] == "C" && e["pid"] == sm_pid && e["args"]["issued"] == 1));
}

#[test]
fn chrome_trace_is_the_same_bytes_for_the_same_window_and_cycles_read_as_ns() {
    let a = serde_json::to_string(&chrome::render(&record(0, 100))).unwrap();
    let b = serde_json::to_string(&chrome::render(&record(0, 100))).unwrap();
    assert_eq!(a, b);
    // 1 cycle = 1 ns: every cycle's timestamp comes back exactly at the nearest nanosecond.
    for c in (0..3_000_000u64).step_by(7) {
        assert_eq!((chrome::ts(c) * 1000.0).round() as u64, c);
    }
}

#[test]
fn run_trace_holds_kernels_counters_and_the_window() {
    let env: serde_json::Value = serde_json::json!({
        "tool": "warpweave", "version": "0", "mode": "cycle", "gpu": "t",
        "trace": {"name": "n", "hash": "h"},
        "result": {"kernels": [
            {"name": "a", "launched_at": 10, "cycles": 100, "grid": {"x": 1}},
            {"name": "b", "cycles": 50}
        ]},
        "ipc_over_time": {"interval": 64, "cycle": [64, 128], "ipc": [0.5, 1.0],
            "l1_hit_rate": [null, 0.25], "l2_hit_rate": [0.5, null]}
    });
    let window = chrome::render(&record(0, 100));
    let t = chrome::run_trace(&env, Some(&window));
    let ev = t["traceEvents"].as_array().unwrap();
    let x: Vec<(String, u64, u64)> = ev
        .iter()
        .filter(|e| e["ph"] == "X" && e["pid"] == 1)
        .map(|e| {
            (
                e["name"].as_str().unwrap().into(),
                cyc(&e["ts"]),
                cyc(&e["dur"]),
            )
        })
        .collect();
    assert_eq!(x, vec![("a".into(), 10, 100), ("b".into(), 110, 50)]);
    assert!(ev[0]["args"]["name"]
        .as_str()
        .unwrap()
        .contains("1 ns = 1 cycle"));
    let c: Vec<(String, u64, serde_json::Value)> = ev
        .iter()
        .filter(|e| e["ph"] == "C" && e["pid"] == 1)
        .map(|e| {
            (
                e["name"].as_str().unwrap().into(),
                cyc(&e["ts"]),
                e["args"].clone(),
            )
        })
        .collect();
    use serde_json::json;
    assert_eq!(
        c,
        vec![
            ("core".into(), 64, json!({"IPC": 0.5})),
            ("hit rate".into(), 64, json!({"L2": 0.5})),
            ("core".into(), 128, json!({"IPC": 1.0})),
            ("hit rate".into(), 128, json!({"L1D": 0.25})),
        ]
    );
    // The window's events follow unchanged, in processes of their own.
    let w = window["traceEvents"].as_array().unwrap();
    assert_eq!(&ev[ev.len() - w.len()..], &w[..]);
    assert!(w.iter().all(|e| e["pid"].as_u64().unwrap() >= 10));
    assert_eq!(t["otherData"]["window"], json!([0, 100]));
    assert_eq!(t["otherData"]["time_unit"], chrome::TIME_UNIT);
}

/// Every frame of a GIF, as palette indices, with its size and delay (the `gif` crate's
/// decoder).
fn gif_frames(g: &[u8]) -> Vec<(u16, u16, u16, Vec<u8>)> {
    let mut o = gif::DecodeOptions::new();
    o.set_color_output(gif::ColorOutput::Indexed);
    let mut d = o.read_info(g).unwrap();
    let mut out = Vec::new();
    while let Some(f) = d.read_next_frame().unwrap() {
        out.push((f.width, f.height, f.delay, f.buffer.to_vec()));
    }
    out
}

#[test]
fn gif_frames_decode_back_to_the_bitmaps() {
    let tl = record(0, 100);
    let frames = image::frames(&tl, 0);
    assert_eq!(frames.len(), 11);
    assert!(frames
        .iter()
        .all(|f| (f.w, f.h) == (frames[0].w, frames[0].h)));
    let g = image::gif(&frames, 50);
    assert_eq!(&g[..6], b"GIF89a");
    let got = gif_frames(&g);
    assert_eq!(got.len(), frames.len());
    for (f, (w, h, delay, px)) in frames.iter().zip(got) {
        assert_eq!((w as usize, h as usize, delay), (f.w, f.h, 50));
        assert_eq!(px, f.px);
    }
    // The same bitmaps give the same bytes.
    assert_eq!(image::gif(&frames, 50), g);
    // Long runs of many codes.
    let px: Vec<u8> = (0..200_000u32)
        .map(|i| ((i * 7 + i / 13) % 9) as u8)
        .collect();
    let b = image::Bitmap {
        w: 400,
        h: 500,
        px: px.clone(),
    };
    let got = gif_frames(&image::gif(std::slice::from_ref(&b), 1));
    assert_eq!(got[0].3, px);
}

#[test]
fn png_holds_the_bitmap() {
    let tl = record(0, 100);
    let frames = image::frames(&tl, 0);
    let b = &frames[3];
    let png = image::png(b);
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let mut d = png::Decoder::new(std::io::Cursor::new(&png[..]));
    d.set_transformations(png::Transformations::IDENTITY);
    let mut r = d.read_info().unwrap();
    let info = r.info();
    assert_eq!((info.width as usize, info.height as usize), (b.w, b.h));
    assert_eq!(info.color_type, png::ColorType::Indexed);
    let palette = info.palette.as_ref().unwrap().to_vec();
    assert_eq!(palette, image::palette().concat());
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    r.next_frame(&mut buf).unwrap();
    assert_eq!(buf, b.px);
    assert_eq!(image::png(b), png);
    // Cycle 3: w0's FFMA is in SP stage 0, so warp 0's colour appears in the picture.
    assert!(b.px.contains(&3));
}
