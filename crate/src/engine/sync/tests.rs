//! Each primitive on two threads and more; small under Miri (scripts/test.sh runs them there).

use super::{Crew, Shares, Sides, TwoEnds};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Rounds of the repeated tests: fewer under Miri, where a round costs far more.
fn rounds(n: u64) -> u64 {
    if cfg!(miri) {
        n.min(40)
    } else {
        n
    }
}

#[test]
fn both_sides_run_and_see_each_others_writes_after_the_join() {
    let mut p = Crew::new(2).unwrap();
    let mut v = [0u64; 4];
    let n = rounds(10_000);
    for round in 1..=n {
        let r = {
            let (x, y) = v.split_at_mut(2);
            let mut b = || {
                y[0] += round;
                y[1] = y[0] * 2;
            };
            p.join(
                || {
                    x[0] += round;
                    x[0]
                },
                &mut b,
            )
        };
        assert_eq!(r, v[0]);
        assert_eq!(v[0], v[2]);
        assert_eq!(v[3], 2 * v[2]);
    }
    assert_eq!(v[0], n * (n + 1) / 2);
    assert_eq!(p.joins, n);
}

#[test]
fn a_panic_in_a_join_reaches_the_caller_and_the_crew_lives_on() {
    let mut p = Crew::new(2).unwrap();
    let r = catch_unwind(AssertUnwindSafe(|| p.join(|| 1, &mut || panic!("boom"))));
    assert!(r.is_err());
    let mut hit = false;
    p.join(|| (), &mut || hit = true);
    assert!(hit);
    // A panic on this side waits for the other side before it goes on.
    let mut late = false;
    let r = catch_unwind(AssertUnwindSafe(|| {
        p.join(|| panic!("here"), &mut || late = true)
    }));
    assert!(r.is_err() && late);
}

#[test]
fn join_once_runs_both_halves() {
    let mut p = Crew::new(2).unwrap();
    let (mut a, mut b) = (0, 0);
    p.join_once(|| a = 1, || b = 2);
    assert_eq!((a, b), (1, 2));
}

#[test]
fn two_ends_hand_out_every_index_once() {
    for n in [0usize, 1, 2, 5, 80, 81] {
        let e = TwoEnds::new(n);
        let mut seen = vec![0u8; n];
        let mut low = true;
        loop {
            let r = if low { e.take_low() } else { e.take_high() };
            let Some(r) = r else { break };
            for i in r {
                seen[i] += 1;
            }
            low = !low;
        }
        assert!(seen.iter().all(|&c| c == 1), "n = {n}: {seen:?}");
        assert!(e.take_low().is_none() && e.take_high().is_none());
    }
    let e = TwoEnds::new(7);
    assert_eq!(e.take_low_len(3), Some(0..3));
    assert_eq!(e.take_high_len(2), Some(5..7));
    assert_eq!(e.take_low_len(0), None);
    assert_eq!(e.take_high_len(9), Some(3..5));
    assert_eq!(e.take_low_len(1), None);
}

/// Both threads step the items of a `Shares` from the two ends: every SM's elements of every
/// column are reached once, by one thread.
#[test]
fn shares_reach_every_element_once_from_both_threads() {
    let mut p = Crew::new(2).unwrap();
    let n = if cfg!(miri) { 9 } else { 80 };
    for _ in 0..rounds(1000) {
        let mut a = vec![0u32; n];
        let mut b = vec![0u64; n + 3];
        let mut c = vec![0u8; n];
        let sh = Shares::all((&mut a[..], (&mut b[..], Some(&mut c[..]))), n);
        let step = |low: bool| {
            let mut got = 0;
            loop {
                let run = if low { sh.take_low() } else { sh.take_high() };
                let Some(run) = run else { break got };
                for (s, (x, (y, z))) in run {
                    *x += 1;
                    *y += s as u64;
                    *z.unwrap() += 1;
                    got += 1;
                }
            }
        };
        let mut hi = 0;
        let lo = p.join(|| step(true), &mut || hi = step(false));
        assert_eq!(lo + hi, n);
        assert!(a.iter().all(|&x| x == 1) && c.iter().all(|&x| x == 1));
        assert!(b[..n].iter().enumerate().all(|(s, &y)| y == s as u64));
    }
}

/// A list's SMs only, each with its own elements.
#[test]
fn listed_shares_reach_the_listed_elements_only() {
    let mut p = Crew::new(2).unwrap();
    let list = [1u32, 2, 4, 7, 8];
    let mut v = [0u32; 10];
    let mut none: Option<&mut [u8]> = None;
    let sh = Shares::listed((&mut v[..], none.take()), &list);
    let step = || {
        while let Some(run) = sh.take_low() {
            for (s, (x, z)) in run {
                assert!(z.is_none());
                *x += s as u32;
            }
        }
    };
    let mut hi = || {
        while let Some(run) = sh.take_high() {
            for (s, (x, _)) in run {
                *x += s as u32;
            }
        }
    };
    p.join(step, &mut hi);
    assert_eq!(v, [0, 1, 2, 0, 4, 0, 0, 7, 8, 0]);
}

#[test]
#[should_panic(expected = "not strictly increasing")]
fn a_list_naming_an_sm_twice_is_refused() {
    let mut v = [0u32; 4];
    let _ = Shares::listed((&mut v[..],), &[0, 2, 2]);
}

#[test]
#[should_panic(expected = "beyond a column")]
fn a_list_beyond_a_column_is_refused() {
    let (mut v, mut w) = ([0u32; 4], [0u32; 3]);
    let _ = Shares::listed((&mut v[..], &mut w[..]), &[0, 3]);
}

#[test]
#[should_panic(expected = "shorter than the items")]
fn a_column_shorter_than_the_items_is_refused() {
    let mut v = [0u32; 4];
    let _ = Shares::all((&mut v[..],), 5);
}

#[test]
fn a_parked_worker_is_woken() {
    let mut p = Crew::new(2).unwrap();
    // Long enough for the worker to exhaust its spin rounds and park.
    std::thread::sleep(std::time::Duration::from_millis(50));
    let mut hit = 0;
    p.join(|| (), &mut || hit += 1);
    std::thread::sleep(std::time::Duration::from_millis(50));
    p.join(|| (), &mut || hit += 1);
    assert_eq!(hit, 2);
}

/// A crew of four steps a `Shares` together, with one-shot sides: every element once, every
/// side once, and the poster's writes and the workers' seen after each job.
#[test]
fn a_crew_shares_items_and_sides_among_its_workers() {
    let mut crew = Crew::new(4).unwrap();
    assert_eq!(crew.workers(), 4);
    let n = if cfg!(miri) { 11 } else { 80 };
    for round in 0..rounds(500) {
        let mut a = vec![0u32; n];
        let list: Vec<u32> = (0..n as u32)
            .filter(|s| !(s + round as u32).is_multiple_of(3))
            .collect();
        let (mut x, mut y) = (0u32, 0u32);
        {
            let sh = Shares::listed((&mut a[..],), &list).for_workers(4);
            let (mut fx, mut fy) = (|| x += 1, || y += 2);
            let sides = Sides::new([Some(&mut fx as &mut (dyn FnMut() + Send)), Some(&mut fy)]);
            let take = |low: bool| {
                sides.run();
                while let Some(r) = if low { sh.take_low() } else { sh.take_high() } {
                    for (s, (v,)) in r {
                        *v += s as u32 + 1;
                    }
                }
            };
            crew.run(|| take(true), &|_| take(false));
        }
        assert_eq!((x, y), (1, 2));
        for (s, &v) in a.iter().enumerate() {
            let listed = list.contains(&(s as u32));
            assert_eq!(v, if listed { s as u32 + 1 } else { 0 }, "SM {s}");
        }
    }
    assert_eq!(crew.joins, rounds(500));
}

/// A job is done by whoever comes: with the poster doing all of it, the workers may come late
/// or never, and `run` still returns with every item done once.
#[test]
fn a_job_needs_no_worker_to_come() {
    let mut crew = Crew::new(3).unwrap();
    for _ in 0..rounds(200) {
        let ends = TwoEnds::new(50).for_workers(3);
        let seen: Vec<std::sync::atomic::AtomicU32> = (0..50)
            .map(|_| std::sync::atomic::AtomicU32::new(0))
            .collect();
        let take = |low: bool| {
            while let Some(r) = if low {
                ends.take_low()
            } else {
                ends.take_high()
            } {
                for i in r {
                    seen[i].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        };
        crew.run(|| take(true), &|_| take(false));
        assert!(seen
            .iter()
            .all(|c| c.load(std::sync::atomic::Ordering::Relaxed) == 1));
    }
}

/// A panic in a worker reaches the poster, and the crew serves the next job.
#[test]
fn a_panic_in_a_crew_worker_reaches_the_poster() {
    let mut crew = Crew::new(3).unwrap();
    let r = catch_unwind(AssertUnwindSafe(|| {
        crew.join(|| (), &mut || panic!("a worker's part failed"))
    }));
    assert!(r.is_err());
    let mut hit = 0;
    crew.join(|| (), &mut || hit += 1);
    assert_eq!(hit, 1);
}

/// A job for fewer workers than the crew has: only those numbered below the limit enter it
/// (the poster is worker 0), and the job is done all the same.
#[test]
fn a_job_for_fewer_workers_leaves_the_others_out() {
    let mut crew = Crew::new(4).unwrap();
    for _ in 0..rounds(300) {
        let ends = TwoEnds::new(40).for_workers(2);
        let done = std::sync::atomic::AtomicU32::new(0);
        let who = std::sync::atomic::AtomicU32::new(0);
        let take = |low: bool| {
            while let Some(r) = if low {
                ends.take_low()
            } else {
                ends.take_high()
            } {
                done.fetch_add(r.len() as u32, std::sync::atomic::Ordering::Relaxed);
            }
        };
        crew.run_upto(2, || take(true), &|w| {
            who.fetch_or(1 << w, std::sync::atomic::Ordering::Relaxed);
            take(false);
        });
        assert_eq!(done.into_inner(), 40);
        assert_eq!(who.into_inner() & !0b10, 0, "only worker 1 may enter");
    }
}
