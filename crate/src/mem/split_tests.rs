//! The split memory cycle (`MemPartitions::tick_replies`, then the packets injected, then
//! `tick_requests`) gives the same replies, cycle by cycle, and the same statistics as the
//! reference order (`inject` then `tick`), under enough load that the L2 input queues fill
//! and the request crossbar is held back by them.

use crate::config::GpuConfig;
use crate::mem::iface::{AccessKind, MemRequest, NocPacket};
use crate::mem::partitions::{MemPartitions, PartitionStats};
use crate::trace::MemSpace;
use crate::Cycle;

/// Packets of cycle `c`: a fixed pseudo-random mix of loads and stores from a few SMs.
fn packets(c: Cycle, sms: u32, out: &mut Vec<NocPacket>) {
    let mut x = c.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5151;
    let n = if c % 400 < 250 { 12 } else { 1 };
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let store = x.is_multiple_of(5);
        out.push(NocPacket {
            src_sm: ((x >> 8) % sms as u64) as u32,
            req: MemRequest {
                tag: c * 64 + i,
                kind: if store {
                    AccessKind::Store
                } else {
                    AccessKind::Load
                },
                space: MemSpace::Global,
                addr: ((x >> 20) % (1 << 22)) & !127,
                sectors: 1 << (x % 4),
                bytes: if store { 32 } else { 0 },
                last: true,
                ..MemRequest::default()
            },
            ack: true,
            ..NocPacket::default()
        });
    }
}

fn run(split: bool, cfg: &GpuConfig, cycles: Cycle) -> (Vec<(Cycle, NocPacket)>, PartitionStats) {
    let mut m = MemPartitions::new(cfg);
    let (mut pending, mut replies, mut got) = (Vec::new(), Vec::new(), Vec::new());
    for c in 0..cycles {
        if split {
            assert!(m.replies_first_ok(c));
            m.tick_replies(c, &mut replies);
            packets(c, cfg.gpu.num_sms, &mut pending);
            m.inject(c, &mut pending);
            m.tick_requests();
        } else {
            packets(c, cfg.gpu.num_sms, &mut pending);
            m.inject(c, &mut pending);
            m.tick(c, &mut replies);
        }
        got.extend(replies.drain(..).map(|r| (c, r)));
    }
    (got, m.stats())
}

#[test]
fn split_cycle_equals_reference_order_under_back_pressure() {
    let mut cfg = crate::config::load("titanv").unwrap();
    cfg.l2.input_queue = 2;
    let (a, sa) = run(false, &cfg, 3000);
    let (b, sb) = run(true, &cfg, 3000);
    // Enough traffic that full input queues held the request crossbar back.
    assert!(sa.noc_requests.stall_cycles > 1000, "{:?}", sa.noc_requests);
    assert!(a.len() > 10_000, "replies: {}", a.len());
    assert_eq!(a.len(), b.len());
    assert!(
        a == b,
        "first difference at {:?}",
        a.iter().zip(&b).position(|(x, y)| x != y)
    );
    assert_eq!(sa, sb);
}
