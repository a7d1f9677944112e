//! What the memory windows hold apart from the `Gpu`: the memory side, and how the two
//! threads divide a window's SMs.

use super::super::epoch::{Inboxes, Staged};
use super::super::{clocks, Gpu, MemPartitions};
use crate::mem::NocPacket;

/// The memory side, moved out of the `Gpu` while memory windows run.
pub(super) struct MemSide {
    pub partitions: MemPartitions,
    pub clocks: clocks::ClockDomains,
    pub outbox: Vec<NocPacket>,
    pub staged: Staged,
    pub replies: Vec<NocPacket>,
    pub inbox_next: Inboxes,
}

impl MemSide {
    pub fn take(g: &mut Gpu) -> MemSide {
        MemSide {
            partitions: std::mem::take(&mut g.partitions),
            clocks: g.clocks.clone(),
            outbox: std::mem::take(&mut g.outbox),
            staged: std::mem::take(&mut g.staged),
            replies: std::mem::take(&mut g.replies),
            inbox_next: std::mem::take(&mut g.inbox_next),
        }
    }

    pub fn put_back(self, g: &mut Gpu) {
        g.partitions = self.partitions;
        g.clocks = self.clocks;
        g.outbox = self.outbox;
        g.staged = self.staged;
        g.replies = self.replies;
        g.inbox_next = self.inbox_next;
    }
}

/// Which SMs each thread steps in a window: this thread claims those below `k` at once, the
/// partner takes the others from the top after its memory side, and this thread, done with its
/// own, takes the partner's lowest ones one at a time (the memory side's work varies from
/// window to window). `k` stays where it is from window to window and moves by one SM
/// when one thread has been finishing later than the other by more than half an SM on average.
/// Why not divide each cycle's SMs anew (`TwoEnds` from both ends, the threads meeting
/// wherever their work makes them meet): an SM stepped on the other core than in the last
/// cycle first fetches its state from that core's cache, and on vecadd-1m at titanv (`cycle`)
/// the four such moves per cycle cost about 10% more CPU in all than one thread, where a fixed
/// split cost none. Only scheduling: results never depend on it.
#[derive(Clone, Debug)]
pub(super) struct Boundary {
    k: usize,
    /// Nanoseconds by which this thread finished after the partner, averaged over the last
    /// windows (negative: before it).
    late: f64,
    /// Nanoseconds one SM step takes here, averaged likewise.
    per_sm: f64,
}

impl Boundary {
    pub fn new(sms: usize) -> Boundary {
        // The partner also runs the memory side: it starts with fewer SMs.
        Boundary {
            k: sms * 3 / 5,
            late: 0.0,
            per_sm: 0.0,
        }
    }

    /// Which SMs this thread claims: those below this.
    pub fn k(&self) -> usize {
        self.k
    }

    /// After a window: when this thread's SMs began and ended and how many it had, when the
    /// partner began its SMs (None: it found none left) and ended. When this thread ends later
    /// by more than half an SM on average it gives the partner an SM, and the other way round.
    pub(super) fn feedback(
        &mut self,
        a_start: std::time::Instant,
        a_end: std::time::Instant,
        a_items: usize,
        b_start: Option<std::time::Instant>,
        b_end: std::time::Instant,
        sms: usize,
    ) {
        const AVG: f64 = 1.0 / 16.0;
        if a_items > 0 {
            let per = (a_end - a_start).as_nanos() as f64 / a_items as f64;
            self.per_sm += (per - self.per_sm) * AVG;
        }
        let late = if b_start.is_none() || b_end < a_end {
            (a_end - b_end.min(a_end)).as_nanos() as f64
        } else {
            -((b_end - a_end).as_nanos() as f64)
        };
        self.late += (late - self.late) * AVG;
        let half = self.per_sm / 2.0;
        if self.late > half && self.k > 0 {
            self.k -= 1;
            self.late = 0.0;
        } else if self.late < -half && self.k < sms {
            self.k += 1;
            self.late = 0.0;
        }
    }
}
