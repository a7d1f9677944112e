//! Memory windows: the replies read ahead from the reply crossbar, in two buffers (the SMs
//! take theirs from one as they step while the partner reads the next ones into the other),
//! and the memory side's ticks whose replies were read ahead before.

use super::*;

/// Replies read ahead for the SMs (`MemWindows::ahead_in`).
#[derive(Debug)]
pub(super) struct Ahead {
    pub(super) inb: Inboxes,
    /// Per SM, the earliest stamp among its replies here (`Cycle::MAX`: none).
    pub(super) first: Vec<Cycle>,
}

impl Ahead {
    pub(super) fn new(sms: usize) -> Ahead {
        Ahead {
            inb: Inboxes {
                per_sm: vec![Vec::new(); sms],
                filled: Vec::new(),
            },
            first: vec![Cycle::MAX; sms],
        }
    }
}

/// SM `s`'s replies read ahead (`new`, earliest stamp `first`) go to its inbox, after the
/// ones there (earlier stamps).
#[inline]
pub(super) fn take_ahead(m: &mut EpochMarks, new: &mut Vec<(Cycle, NocPacket)>, first: &mut Cycle) {
    if !new.is_empty() {
        if m.inbox.is_empty() {
            std::mem::swap(&mut m.inbox, new);
        } else {
            m.inbox.append(new);
        }
        *first = Cycle::MAX;
    }
}

impl Gpu {
    /// The replies read ahead into `ahead_in[pull]` that their SMs have not taken yet go to
    /// their inboxes.
    pub(super) fn post_ahead(&mut self, w: &mut MemWindows) {
        let Gpu { marks, wakes, .. } = self;
        let b = &mut w.ahead_in[w.pull];
        for &s in &b.inb.filled {
            let s = s as usize;
            let new = &mut b.inb.per_sm[s];
            if new.is_empty() {
                continue;
            }
            if wakes.on {
                wakes.wake[s] = wakes.wake[s].min(new[0].0 + 1);
            }
            take_ahead(&mut marks[s], new, &mut b.first[s]);
        }
        b.inb.filled.clear();
    }
}

/// The replies in flight that the memory side hands over in its ticks of `after + 1 ..= upto`,
/// into `into` per SM.
pub(super) fn read_ahead(
    parts: &MemPartitions,
    into: &mut Ahead,
    log: &mut [std::collections::VecDeque<(Cycle, NocPacket)>],
    after: Cycle,
    upto: Cycle,
) {
    parts.replies_arriving(after, upto, |c, p| {
        let s = p.src_sm as usize;
        let b = &mut into.inb.per_sm[s];
        if b.is_empty() {
            into.inb.filled.push(s as u32);
            into.first[s] = c;
        }
        b.push((c, *p));
        if cfg!(debug_assertions) {
            log[s].push_back((c, *p));
        }
    });
}

impl MemSide {
    /// The memory side's staged ticks (their replies, all handed over ahead, into `spent`),
    /// then the replies of the next ones read ahead (`after + 1 ..= upto`) into `next_in`.
    /// Returns whether any replies were handed over.
    pub(super) fn ticks(
        &mut self,
        spent: &mut Inboxes,
        fill: &mut Ahead,
        log: &mut [std::collections::VecDeque<(Cycle, NocPacket)>],
        ahead: (Cycle, Cycle),
    ) -> bool {
        let any = mem_epoch(
            &mut self.partitions,
            &mut self.clocks,
            &mut self.outbox,
            &mut self.replies,
            &mut self.staged,
            spent,
        );
        if ahead.1 > ahead.0 {
            read_ahead(&self.partitions, fill, log, ahead.0, ahead.1);
        }
        any
    }
}

impl MemWindows {
    /// The memory side's replies of the ticks just run: handed over ahead already, dropped
    /// (debug builds check they are the same).
    pub(super) fn drop_spent(&mut self) {
        for &s in &self.spent.filled {
            let s = s as usize;
            #[cfg(debug_assertions)]
            for r in &self.spent.per_sm[s] {
                debug_assert_eq!(self.ahead[s].pop_front().as_ref(), Some(r));
            }
            self.spent.per_sm[s].clear();
        }
        self.spent.filled.clear();
    }
}
