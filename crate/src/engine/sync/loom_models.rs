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

/// A gate for a model: leaked, so that a side of its round can move to a loom thread (which
/// takes only `'static` values).
fn gate() -> &'static mut Gate {
    Box::leak(Box::default())
}

/// A round of the gate between two threads: the part, written before the open, runs once on
/// the other thread, and `open_with` returns after it.
#[test]
fn gate_round_runs_the_part() {
    loom::model(|| {
        let (c, p) = gate().round();
        let t = thread::spawn(move || p.pass());
        let mut ran = 0;
        let mut part = || ran += 1;
        let mine = c.open_with(&mut part, || 7);
        assert_eq!((mine, ran), (7, 1));
        t.join().unwrap();
    });
}

/// The ways out of a round: a closer dropped unopened lets `pass` return; a passer dropped
/// without passing leaves `open_with` waiting for nothing (its part then does not run).
#[test]
fn gate_round_ends_on_every_way_out() {
    loom::model(|| {
        let (c, p) = gate().round();
        let t = thread::spawn(move || p.pass());
        drop(c);
        t.join().unwrap();
    });
    loom::model(|| {
        let (c, p) = gate().round();
        let t = thread::spawn(move || drop(p));
        let mut ran = 0;
        let mut part = || ran += 1;
        c.open_with(&mut part, || ());
        assert_eq!(ran, 0);
        t.join().unwrap();
    });
}

/// Two rounds on one gate inside two joins of the partner, as the pipelined cycles use it:
/// each round's part runs once, on the partner, and the second round's part is never
/// confused with the first's.
#[test]
fn gate_two_rounds_in_joins() {
    loom::model(|| {
        let mut p = Partner::new().unwrap();
        let mut g = Gate::default();
        let mut ran = [0; 2];
        for k in 0..2 {
            let (c, pass) = g.round();
            let mut pass = Some(pass);
            p.join(
                || {
                    let mut part = || ran[k] += 1;
                    c.open_with(&mut part, || ());
                },
                &mut || pass.take().unwrap().pass(),
            );
        }
        assert_eq!(ran, [1, 1]);
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
