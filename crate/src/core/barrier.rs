//! CTA barriers (BAR.SYNC): a warp that issues a barrier waits until every live warp of its CTA
//! has arrived; warps that exited no longer count (as in Accel-Sim). Memory barriers (MEMBAR)
//! are handled at issue: the warp waits until its own memory instructions have completed.

use super::warp::{CtaSlot, Warp};

/// Warp `w` arrives at its CTA's barrier. Returns true when this released the barrier.
pub fn arrive(cta: &mut CtaSlot, warps: &mut [Warp], w: usize) -> bool {
    warps[w].at_barrier = true;
    cta.bar_arrived += 1;
    try_release(cta, warps)
}

/// Releases the barrier if every live warp is waiting at it (called on arrival and on exit).
pub fn try_release(cta: &mut CtaSlot, warps: &mut [Warp]) -> bool {
    if cta.bar_arrived == 0 || cta.bar_arrived < cta.live {
        return false;
    }
    for &s in &cta.warp_slots {
        warps[s as usize].at_barrier = false;
    }
    cta.bar_arrived = 0;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_on_last_arrival_or_exit() {
        let mut warps = vec![Warp::default(); 3];
        let mut cta = CtaSlot {
            warp_slots: vec![0, 1, 2],
            live: 3,
            ..Default::default()
        };
        assert!(!arrive(&mut cta, &mut warps, 0));
        assert!(!arrive(&mut cta, &mut warps, 1));
        assert!(warps[0].at_barrier && warps[1].at_barrier);
        // Warp 2 exits instead of arriving: the two waiting warps are released.
        cta.live = 2;
        assert!(try_release(&mut cta, &mut warps));
        assert!(!warps[0].at_barrier && !warps[1].at_barrier);
        assert_eq!(cta.bar_arrived, 0);
    }
}
