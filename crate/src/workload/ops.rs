//! Opcode classification for the generated kernels: the shared per-architecture tables
//! (`crate::trace::opcodes`), so a generated trace and the same trace read back from text or
//! compact carry the same `OpInfo`.

use crate::trace::model::{OpId, OpTable};
use crate::trace::opcodes::{classify, Arch};

/// Interns `name` into `ops`, classifying it for the kernel's binary version the first time.
pub fn intern(ops: &mut OpTable, name: &str, binary_version: u32) -> OpId {
    let arch = Arch::resolve(binary_version, Arch::Ampere);
    ops.intern_with(name, |n| classify(arch, n))
}
