//! Multi-issue: the extra instruction of a cycle from the same warp (dual issue within a warp)
//! or from another warp (seed 003 sec. III-E), always to a unit no other instruction of the
//! cycle uses.

use super::*;
use crate::config::MultiIssue;

/// One sub-core, wide INT and FP32 units with interval 1, enough collector units and bank
/// ports that issue is the only limit. Warp 0 runs 4 independent IADD3s, warp 1 4 independent
/// FFMAs; warp 0 is decoded by cycle 2, warp 1 by cycle 3.
fn setup() -> (GpuConfig, Ops) {
    let mut c = one_wide_int_subcore();
    c.latency.fp32.interval = 1;
    c.units.sp.width = 32;
    c.regfile.collector_units = 8;
    c.regfile.banks = 8;
    c.scheduler.policy = SchedPolicy::Lrr;
    (c, ops())
}

fn issues(c: &GpuConfig, o: &Ops, op1: OpId) -> Vec<(u64, u16)> {
    let w = |op: OpId, base: u16| {
        warp(
            (0..4)
                .map(|k| ins(op, &[(base + 2 * k) as Reg], &[]))
                .collect(),
            &[],
        )
    };
    let k = kernel("mi", o, vec![vec![w(o.iadd, 10), w(op1, 40)]]);
    run_log(c, vec![k])
        .1
        .iter()
        .map(|e| (e.cycle, e.warp))
        .collect()
}

#[test]
fn other_warps_fill_the_second_slot_with_another_warps_instruction() {
    let (mut c, o) = setup();
    c.scheduler.issue_width = 2;
    c.scheduler.multi_issue = MultiIssue::OtherWarps;
    // Cycle 2: only warp 0 is ready. From cycle 3 LRR starts after the last issuer (warp 0),
    // so warp 1's FFMA goes first and warp 0's IADD3 takes the second slot (another unit).
    assert_eq!(
        issues(&c, &o, o.ffma),
        [
            (2, 0),
            (3, 1),
            (3, 0),
            (4, 1),
            (4, 0),
            (5, 1),
            (5, 0),
            (6, 1)
        ]
    );
    // Both warps on the INT unit: never two in one cycle, as with single issue.
    let one_unit = issues(&c, &o, o.iadd);
    assert_eq!(one_unit.len(), 8);
    assert!(one_unit.windows(2).all(|p| p[0].0 < p[1].0), "{one_unit:?}");
}

#[test]
fn same_warp_dual_issue_never_mixes_warps() {
    let (mut c, o) = setup();
    c.scheduler.issue_width = 2;
    c.scheduler.multi_issue = MultiIssue::SameWarp;
    // Each warp's 4 instructions go to one unit, so same-warp dual issue finds no partner:
    // the order is plain LRR single issue.
    let single = {
        let mut c1 = c.clone();
        c1.scheduler.issue_width = 1;
        issues(&c1, &o, o.ffma)
    };
    assert_eq!(issues(&c, &o, o.ffma), single);
    assert_eq!(
        single,
        [
            (2, 0),
            (3, 1),
            (4, 0),
            (5, 1),
            (6, 0),
            (7, 1),
            (8, 0),
            (9, 1)
        ]
    );
}
