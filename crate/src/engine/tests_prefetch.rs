//! Instruction prefetch (`frontend.prefetch_depth`, core/prefetch.rs) on straight-line code of
//! 1, 16, 64 and 256 cache lines and on a loop that fits, with cycle counts derived by hand.
//!
//! Set-up: one SM, one warp of independent IADDs (8 per 128-byte line, 16-byte
//! instructions), an L0I of 16 KiB (1-cycle hits), an L1I of 128 KiB with a 20-cycle latency,
//! and a 100-cycle L1I miss penalty: a line the L0 and L1I both miss arrives 120 cycles after
//! its request.

use super::tests::{ins, kernel, ops, run};
use crate::config::{GpuConfig, ICacheConfig};
use crate::trace::model::WarpTrace;

fn cfg(depth: u32) -> GpuConfig {
    let mut c = super::tests::cfg();
    c.frontend.l0i = ICacheConfig {
        size_kb: 16,
        line_bytes: 128,
        assoc: 4,
        latency: 1,
        mshr: 1,
    };
    c.frontend.l1i = ICacheConfig {
        size_kb: 128,
        line_bytes: 128,
        assoc: 16,
        latency: 20,
        mshr: 8,
    };
    c.frontend.l1i_miss_latency = 100;
    c.frontend.prefetch_depth = depth;
    c
}

/// `lines` lines of straight-line code, run `trips` times.
fn code(lines: u32, trips: u32) -> WarpTrace {
    let o = ops();
    let mut w = WarpTrace::default();
    for _ in 0..trips {
        for k in 0..lines * 8 {
            let mut i = ins(o.iadd, &[(10 + k % 16) as u16], &[]);
            i.pc = 16 * k;
            w.insts.push(i);
        }
    }
    w
}

/// [`code`] as one dependence chain: every IADD reads the register the one before wrote.
fn chain(lines: u32, trips: u32) -> WarpTrace {
    let mut w = code(lines, trips);
    for i in &mut w.insts {
        *i = {
            let mut d = ins(ops().iadd, &[10], &[10]);
            d.pc = i.pc;
            d
        };
    }
    w
}

fn cycles(depth: u32, lines: u32, trips: u32) -> u64 {
    let o = ops();
    run(
        &cfg(depth),
        vec![kernel("code", &o, vec![vec![code(lines, trips)]])],
    )
    .cycles
}

/// The first line: 140 cycles with or without prefetch (the demand miss of line 0, then its
/// 8 IADDs). Without prefetch every further line is a demand miss: 130 cycles each (the
/// 121-cycle miss path: arbiter grant, L1I latency 20, penalty 100; then decode and the
/// line's first issue before the next line's probe). With 8 or more lines ahead the stream
/// keeps up and the code runs at the INT unit's rate: 8 IADDs x interval 2 = 16 cycles per
/// line. With 2 lines ahead each 131-cycle round trip brings three lines (the demand and the
/// two after it): 131 / 3 cycles per line.
#[test]
fn straight_line_code_of_1_16_64_256_lines() {
    // (depth, cycles of `lines` lines)
    type Cycles = fn(u64) -> u64;
    let want: [(u32, Cycles); 4] = [
        (0, |l| 140 + 130 * (l - 1)),
        (8, |l| 140 + 16 * (l - 1)),
        (16, |l| 140 + 16 * (l - 1)),
        (2, |l| 140 + 131 * (l - 1) / 3),
    ];
    for lines in [1u64, 16, 64, 256] {
        for (depth, f) in want {
            assert_eq!(
                cycles(depth, lines as u32, 1),
                f(lines),
                "depth {depth}, {lines} lines"
            );
        }
    }
}

/// A 4-line loop run 16 times fits the L0: without prefetch its first trip misses 4 times
/// (140 + 3 x 130) and the other 60 lines run at 16 cycles; with prefetch all 64 lines run at
/// 16 cycles after the first.
#[test]
fn a_loop_that_fits() {
    assert_eq!(cycles(0, 4, 16), 140 + 3 * 130 + 60 * 16);
    assert_eq!(cycles(8, 4, 16), 140 + 63 * 16);
}

/// No branch prediction (`frontend.taken_branch_delay` = R) on a 4-line loop run 16 times
/// whose IADDs form one dependence chain (one issue every 4 cycles, the IADD's latency; the
/// fetches keep up). The jump back from the last IADD (issued at t) to the first is fetched
/// in the same cycle (the fetch stage follows issue); its L0 hit is there at t + R + 1,
/// decoded then and issued at t + R + 2 instead of t + 4: max(0, R - 2) cycles per jump, 15
/// jumps in 16 trips. The same in `cycle` and in `hybrid`'s event front end.
#[test]
fn a_taken_branch_costs_its_delay_on_every_trip() {
    use crate::engine::{ModelChoice, Simulator};
    use crate::trace::MemTrace;
    let o = ops();
    let k = || kernel("code", &o, vec![vec![chain(4, 16)]]);
    let run_both = |r: u32| {
        let mut c = cfg(8);
        c.frontend.taken_branch_delay = r;
        let cyc = run(&c, vec![k()]).cycles;
        let mut hy = Simulator::new(
            c,
            ModelChoice::named("hybrid").unwrap(),
            Box::new(MemTrace::from_kernels("test", vec![k()])),
        )
        .unwrap();
        (cyc, hy.run_to_end().unwrap().cycles)
    };
    let (base, base_hy) = run_both(0);
    assert_eq!(base, base_hy);
    for r in [1u32, 2, 3, 10] {
        let want = base + 15 * r.saturating_sub(2) as u64;
        assert_eq!(run_both(r), (want, want), "R = {r}");
    }
}

/// `hybrid` steps the front end by events (its fetch differs from `cycle`'s by a few
/// percent on code that misses); its stream buffer sends the same requests, and gains alike.
#[test]
fn event_front_end_prefetches_alike() {
    use crate::engine::{ModelChoice, Simulator};
    use crate::trace::MemTrace;
    let o = ops();
    for depth in [0, 2, 8] {
        let k = kernel("code", &o, vec![vec![code(64, 1)]]);
        let mut hy = Simulator::new(
            cfg(depth),
            ModelChoice::named("hybrid").unwrap(),
            Box::new(MemTrace::from_kernels("test", vec![k.clone()])),
        )
        .unwrap();
        let r = hy.run_to_end().unwrap();
        let c = cycles(depth, 64, 1);
        let off = (r.cycles as f64 - c as f64).abs() / c as f64;
        assert!(
            off < 0.03,
            "hybrid {} against cycle {c}, depth {depth}",
            r.cycles
        );
    }
}
