//! Per-SM state stepped by the workers of a crew, who meet wherever their work makes them
//! meet: the items of a cycle (every SM, or a list of SMs) are handed out in runs from the two
//! ends of the list ([`TwoEnds`]; the job's poster takes from the low end, the other workers
//! from the high end), and each item comes with `&mut` access to its SM's elements of every
//! column (slices such as the SMs, their marks, their wakes). Each item is handed out once
//! and a list names each SM once, so no two workers reach the same element: what
//! `split_at_mut` does for one boundary, with the boundaries decided as the workers meet.

use super::{AtomicU64, Line, Ordering};
use std::marker::PhantomData;
use std::ops::Range;

/// Indices `0..n` handed out in runs from both ends, for workers that meet wherever their
/// work makes them meet: the low end takes runs upward, the high end downward, each run
/// `1 / (2 w)` of what is left for `w` workers (at least one; a quarter for two), so a cycle's
/// few dozen SMs cost a dozen or so atomic claims per worker and the workers finish within
/// about one SM of each other. Any number of threads may take from either end.
/// (On a cache line of its own: every worker writes it, and nothing else should move with it.)
pub struct TwoEnds(Line<AtomicU64>, u64);

impl std::fmt::Debug for TwoEnds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TwoEnds")
    }
}

impl TwoEnds {
    pub fn new(n: usize) -> TwoEnds {
        assert!(n <= u32::MAX as usize);
        TwoEnds(Line(AtomicU64::new(n as u64)), 4)
    }

    /// Runs sized for `workers` workers (two unless told).
    pub fn for_workers(mut self, workers: usize) -> TwoEnds {
        self.1 = 2 * workers.max(1) as u64;
        self
    }

    /// The next run from the low end, or None when nothing is left.
    pub fn take_low(&self) -> Option<Range<usize>> {
        self.take_with(true, None)
    }

    /// The next run from the high end, or None when nothing is left.
    pub fn take_high(&self) -> Option<Range<usize>> {
        self.take_with(false, None)
    }

    /// The next `len` indices from the low end (fewer if fewer are left), or None when
    /// nothing is left (or `len` is 0): a run of a fixed length instead of a quarter.
    #[cfg(all(test, feature = "parallel"))]
    pub fn take_low_len(&self, len: usize) -> Option<Range<usize>> {
        self.take_with(true, Some(len))
    }

    /// [`TwoEnds::take_low_len`] from the high end.
    #[cfg(all(test, feature = "parallel"))]
    pub fn take_high_len(&self, len: usize) -> Option<Range<usize>> {
        self.take_with(false, Some(len))
    }

    /// The next run: the state is `lo << 32 | hi` (what is left is `lo..hi`), and one
    /// compare-exchange moves one end, so the runs handed out never overlap.
    fn take_with(&self, low: bool, len: Option<usize>) -> Option<Range<usize>> {
        let mut cur = self.0.load(Ordering::Acquire);
        loop {
            let (lo, hi) = (cur >> 32, cur & 0xffff_ffff);
            if lo >= hi || len == Some(0) {
                return None;
            }
            let run = match len {
                Some(l) => (l as u64).min(hi - lo),
                None => ((hi - lo) / self.1).max(1),
            };
            let (nlo, nhi, r) = if low {
                (lo + run, hi, lo..lo + run)
            } else {
                (lo, hi - run, hi - run..hi)
            };
            match self.0.compare_exchange_weak(
                cur,
                (nlo << 32) | nhi,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Some(r.start as usize..r.end as usize),
                Err(now) => cur = now,
            }
        }
    }
}

/// A column of per-SM state: a slice (`&mut [T]`, an item gets `&mut T`), an optional one
/// (`Option<&mut [T]>`, an item gets `Option<&mut T>`), or a tuple of columns (an item gets a
/// tuple), nested as deep as needed. Implemented here only.
pub trait Column: private::Sealed {
    #[doc(hidden)]
    type Raw: Copy;
    /// What an item gets of this column.
    type Item<'s>
    where
        Self: 's;
    #[doc(hidden)]
    fn into_raw(self) -> Self::Raw;
    /// Whether every slice has at least `n` elements.
    #[doc(hidden)]
    fn covers(raw: &Self::Raw, n: usize) -> bool;
    /// Element `i` of every slice.
    ///
    /// # Safety
    /// `i` is below the length of every slice (`covers`), the slices outlive `'s`, and no
    /// other reference to element `i` of any of them is live during `'s`.
    #[doc(hidden)]
    unsafe fn item<'s>(raw: &Self::Raw, i: usize) -> Self::Item<'s>
    where
        Self: 's;
}

mod private {
    pub trait Sealed {}
}

/// A slice's start and length (the column's borrow is held by [`Shares`]).
pub struct Raw<T>(*mut T, usize);

impl<T> Clone for Raw<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Raw<T> {}

impl<T> private::Sealed for &mut [T] {}
impl<'a, T: 'a> Column for &'a mut [T] {
    type Raw = Raw<T>;
    type Item<'s>
        = &'s mut T
    where
        Self: 's;
    fn into_raw(self) -> Raw<T> {
        Raw(self.as_mut_ptr(), self.len())
    }
    fn covers(raw: &Raw<T>, n: usize) -> bool {
        n <= raw.1
    }
    unsafe fn item<'s>(raw: &Raw<T>, i: usize) -> &'s mut T
    where
        Self: 's,
    {
        debug_assert!(i < raw.1);
        // SAFETY: in bounds, alive for `'s` and not otherwise referenced (the contract).
        unsafe { &mut *raw.0.add(i) }
    }
}

impl<C: Column> private::Sealed for Option<C> {}
impl<C: Column> Column for Option<C> {
    type Raw = Option<C::Raw>;
    type Item<'s>
        = Option<C::Item<'s>>
    where
        Self: 's;
    fn into_raw(self) -> Self::Raw {
        self.map(C::into_raw)
    }
    fn covers(raw: &Self::Raw, n: usize) -> bool {
        raw.as_ref().is_none_or(|r| C::covers(r, n))
    }
    unsafe fn item<'s>(raw: &Self::Raw, i: usize) -> Self::Item<'s>
    where
        Self: 's,
    {
        // SAFETY: the caller's contract, for the column inside.
        raw.as_ref().map(|r| unsafe { C::item(r, i) })
    }
}

macro_rules! tuple_column {
    ($($c:ident $i:tt),+) => {
        impl<$($c: Column),+> private::Sealed for ($($c,)+) {}
        impl<$($c: Column),+> Column for ($($c,)+) {
            type Raw = ($($c::Raw,)+);
            type Item<'s>
                = ($($c::Item<'s>,)+)
            where
                Self: 's;
            fn into_raw(self) -> Self::Raw {
                ($(self.$i.into_raw(),)+)
            }
            fn covers(raw: &Self::Raw, n: usize) -> bool {
                true $(&& $c::covers(&raw.$i, n))+
            }
            unsafe fn item<'s>(raw: &Self::Raw, i: usize) -> Self::Item<'s>
            where
                Self: 's,
            {
                // SAFETY: the caller's contract, for each column.
                unsafe { ($($c::item(&raw.$i, i),)+) }
            }
        }
    };
}

tuple_column!(A 0);
tuple_column!(A 0, B 1);
tuple_column!(A 0, B 1, C 2);
tuple_column!(A 0, B 1, C 2, D 3);
tuple_column!(A 0, B 1, C 2, D 3, E 4);

/// The columns `C` (borrowed for `'a`) shared by a crew's workers item by item: the items are the
/// SMs `0..n` or those of a list, handed out in runs from the two ends (see [`TwoEnds`]). A
/// run yields each of its SMs with its elements of every column.
pub struct Shares<'a, C: Column + 'a> {
    raw: C::Raw,
    list: Option<&'a [u32]>,
    ends: TwoEnds,
    _cols: PhantomData<C>,
}

// SAFETY: the threads sharing it get `&mut` access to distinct elements only (each item is
// handed out once by `ends`, and a list names each SM once: `Shares::listed` checks it), so
// sharing it is sending those elements, which `C: Send` allows.
unsafe impl<'a, C: Column + Send + 'a> Sync for Shares<'a, C> {}

impl<C: Column> std::fmt::Debug for Shares<'_, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Shares")
    }
}

impl<'a, C: Column + 'a> Shares<'a, C> {
    /// The SMs `0..n`; every column has at least `n` elements.
    pub fn all(cols: C, n: usize) -> Shares<'a, C> {
        let raw = cols.into_raw();
        assert!(C::covers(&raw, n), "a column shorter than the items");
        Shares {
            raw,
            list: None,
            ends: TwoEnds::new(n),
            _cols: PhantomData,
        }
    }

    /// The SMs of `list`, which must be strictly increasing (as the engine's SM lists are,
    /// built in SM order) and below the length of every column.
    pub fn listed(cols: C, list: &'a [u32]) -> Shares<'a, C> {
        let raw = cols.into_raw();
        assert!(
            list.windows(2).all(|w| w[0] < w[1]),
            "an SM list not strictly increasing"
        );
        let n = list.last().map_or(0, |&s| s as usize + 1);
        assert!(C::covers(&raw, n), "an SM beyond a column");
        Shares {
            raw,
            list: Some(list),
            ends: TwoEnds::new(list.len()),
            _cols: PhantomData,
        }
    }

    /// Runs sized for `workers` workers ([`TwoEnds::for_workers`]).
    pub fn for_workers(mut self, workers: usize) -> Self {
        self.ends = self.ends.for_workers(workers);
        self
    }

    /// The next run from the low end (a share of what is left), or None when none is left.
    pub fn take_low(&self) -> Option<Run<'_, 'a, C>> {
        self.ends.take_low().map(|r| self.run(r))
    }

    /// The next run from the high end (a share of what is left).
    pub fn take_high(&self) -> Option<Run<'_, 'a, C>> {
        self.ends.take_high().map(|r| self.run(r))
    }

    fn run(&self, items: Range<usize>) -> Run<'_, 'a, C> {
        Run {
            shares: self,
            items,
        }
    }
}

/// Items handed out to one thread: each yields its SM and the SM's elements of every column.
pub struct Run<'s, 'a, C: Column + 'a> {
    shares: &'s Shares<'a, C>,
    items: Range<usize>,
}

impl<'s, 'a, C: Column + 'a> Iterator for Run<'s, 'a, C> {
    type Item = (usize, C::Item<'s>);

    fn next(&mut self) -> Option<Self::Item> {
        let i = self.items.next()?;
        let sh = self.shares;
        let s = sh.list.map_or(i, |l| l[i] as usize);
        // SAFETY: `s` is below every column's length (checked when `sh` was made); item `i`
        // comes from `sh.ends` once, and distinct items are distinct SMs (a strictly
        // increasing list), so no other reference to element `s` is live; the columns stay
        // borrowed by `sh` for `'a`, which outlives `'s`.
        Some((s, unsafe { C::item(&sh.raw, s) }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

impl<'s, 'a, C: Column + 'a> ExactSizeIterator for Run<'s, 'a, C> {}
