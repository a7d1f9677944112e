//! Models of the hand-off protocols under loom (`--cfg loom`, scripts/test.sh): every
//! interleaving of the two threads up to `LOOM_MAX_PREEMPTIONS` preemptions, with loom's
//! checks of the job slots (`Slot`: a read and a write never overlap) and of the atomics'
//! orderings (a value written before a Release is seen after the matching Acquire).

use super::{Arc, AtomicU64, Crew, Ordering, TwoEnds};
use loom::thread;

/// Two joins in a row: each side's writes are visible after the join, and the worker's
/// spinning and parking (two spin rounds under loom) both meet the posts; then the drop
/// stops it.
#[test]
fn crew_joins() {
    loom::model(|| {
        let mut p = Crew::new(2).unwrap();
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

/// Takes items one at a time from one end until none is left, marking each in `got` (each
/// exactly once).
fn claim_all(ends: &TwoEnds, low: bool, got: &AtomicU64) {
    while let Some(r) = if low {
        ends.take_low_len(1)
    } else {
        ends.take_high_len(1)
    } {
        for i in r {
            assert_eq!(got.fetch_or(1 << i, Ordering::Relaxed) & (1 << i), 0);
        }
    }
}

/// Open jobs: whoever comes takes items (each claimed once, recorded in a bit mask), the
/// poster closes each job and waits for the workers inside. Two jobs in a row on a crew of
/// two: the job slot is never written while a worker reads it, and a worker that comes late
/// or not at all leaves nothing undone.
#[test]
fn crew_open_jobs() {
    loom::model(|| {
        let mut crew = Crew::new(2).unwrap();
        for _ in 0..2 {
            let ends = TwoEnds::new(2);
            let got = AtomicU64::new(0);
            let take = |low: bool| claim_all(&ends, low, &got);
            crew.run(|| take(true), &|_| take(false));
            assert_eq!(got.load(Ordering::Relaxed), 0b11);
        }
    });
}

/// One open job on a crew of three: two workers may enter it side by side (each read of the
/// job slot is checked against the poster's write), and the drop stops both. (Two preemptions:
/// three threads with three take about four minutes.)
#[test]
fn crew_of_three_one_job() {
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(2);
    model.check(|| {
        let mut crew = Crew::new(3).unwrap();
        let ends = TwoEnds::new(2).for_workers(3);
        let got = AtomicU64::new(0);
        let take = |low: bool| claim_all(&ends, low, &got);
        crew.run(|| take(true), &|_| take(false));
        assert_eq!(got.load(Ordering::Relaxed), 0b11);
    });
}
