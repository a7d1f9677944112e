//! Workload tests: exact instruction counts, masks and addresses derived by hand.

use super::*;
use crate::trace::model::{KernelTrace, MemTrace, TraceSource};

fn gen(name: &str, kv: &[&str]) -> MemTrace {
    generate(name, &Params::parse(kv).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn opname(k: &KernelTrace, i: &crate::trace::model::TraceInst) -> String {
    k.ops.get(i.op).name.clone()
}

#[test]
fn every_workload_generates_with_defaults_and_is_deterministic() {
    for d in list() {
        let a = generate(d.name, &Params::new()).unwrap();
        let mut b = generate(d.name, &Params::new()).unwrap();
        let mut a2 = a.clone();
        assert_eq!(a2.trace_hash(), b.trace_hash(), "{}", d.name);
        assert!(a.kernels.iter().all(|k| k.warp_insts() > 0), "{}", d.name);
        let _ = (&mut a2, &mut b);
    }
}
