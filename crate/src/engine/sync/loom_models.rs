//! Models of the hand-off protocols under loom (`--cfg loom`, scripts/test.sh): every
//! interleaving of the two threads up to `LOOM_MAX_PREEMPTIONS` preemptions, with loom's
//! checks of the job slots (`Slot`: a read and a write never overlap) and of the atomics'
//! orderings (a value written before a Release is seen after the matching Acquire).

use super::{Arc, Gate, Partner, TwoEnds};
use loom::thread;

/// Two joins in a row: each side's writes are visible after the join, and the partner's
/// spinning and parking (two spin rounds under loom) both meet the posts; then the drop
/// stops it.
#[test]
fn partner_joins() {
    loom::model(|| {
        let mut p = Partner::new().unwrap();
        let mut v = [0u32; 2];
        for k in 1..=2 {
            let (x, y) = v.split_at_mut(1);
            let r = p.join(
                || {
                    x[0] += k;
                    x[0]
                },
                &mut || y[0] += 10 * k,
            );
            assert_eq!(r, v[0]);
            assert_eq!(v[1], 10 * v[0]);
        }
        assert_eq!(v, [3, 30]);
    });
}

/// A round of the gate between two threads: the part, written before the open, runs once on
/// the other thread, and `open_with` returns after it.
#[test]
fn gate_round_runs_the_part() {
    loom::model(|| {
        let gate = Arc::new(Gate::default());
        let r = gate.round();
        let g = gate.clone();
        let t = thread::spawn(move || g.passer(r).pass());
        let mut ran = 0;
        let mut part = || ran += 1;
        let mine = gate.closer(r).open_with(&mut part, || 7);
        assert_eq!((mine, ran), (7, 1));
        t.join().unwrap();
    });
}

/// The ways out of a round: a closer dropped unopened lets `pass` return; a passer dropped
/// without passing leaves `open_with` waiting for nothing (its part then may or may not have
/// run, never twice).
#[test]
fn gate_round_ends_on_every_way_out() {
    loom::model(|| {
        let gate = Arc::new(Gate::default());
        let r = gate.round();
        let g = gate.clone();
        let t = thread::spawn(move || g.passer(r).pass());
        drop(gate.closer(r));
        t.join().unwrap();
    });
    loom::model(|| {
        let gate = Arc::new(Gate::default());
        let r = gate.round();
        let g = gate.clone();
        let t = thread::spawn(move || drop(g.passer(r)));
        let mut ran = 0;
        let mut part = || ran += 1;
        gate.closer(r).open_with(&mut part, || ());
        assert_eq!(ran, 0);
        t.join().unwrap();
    });
}

/// Two rounds on one gate: the second round's part is never confused with the first's.
#[test]
fn gate_two_rounds() {
    loom::model(|| {
        let gate = Arc::new(Gate::default());
        let (r1, r2) = (gate.round(), gate.round());
        let g = gate.clone();
        let t = thread::spawn(move || {
            g.passer(r1).pass();
            g.passer(r2).pass();
        });
        let mut ran = [0; 2];
        for (k, r) in [r1, r2].into_iter().enumerate() {
            let mut part = || ran[k] += 1;
            gate.closer(r).open_with(&mut part, || ());
        }
        assert_eq!(ran, [1, 1]);
        t.join().unwrap();
    });
}

/// Both ends claimed from two threads: every index once.
#[test]
fn two_ends_from_two_threads() {
    loom::model(|| {
        let e = Arc::new(TwoEnds::new(3));
        let e2 = e.clone();
        let t = thread::spawn(move || {
            let mut got = Vec::new();
            while let Some(r) = e2.take_high() {
                got.extend(r);
            }
            got
        });
        let mut got = Vec::new();
        while let Some(r) = e.take_low_len(1) {
            got.extend(r);
        }
        got.extend(t.join().unwrap());
        got.sort_unstable();
        assert_eq!(got, [0, 1, 2]);
    });
}
