//! Device memory: global buffers at fixed addresses, constant bank 0 with the launch's
//! parameters, shared memory per CTA.
//!
//! ```text
//!  global  0x7f00_0000_0000 ..  buffers in spec order, each starting at the end of the one
//!                               before rounded up to 512 bytes (2 MiB for 1 MiB or more):
//!                               the built-in workloads' layout (workload::builder::Layout)
//!  c[0x0]  0x00 blockDim.xyz, 0x0c gridDim.xyz, 0x18 the generic shared window, 0x20 the
//!          generic local window, 0x28 the local stack top (R1 at entry),
//!          parameters at 0x160 (sm_70 to sm_89) or 0x210 (sm_90 and later): where nvcc
//!          places them for each architecture (a listing shows the first parameter's
//!          `c[0x0][0x160]` / `c[0x0][0x210]`)
//!  shared  per CTA, from address 0; on sm_90 nvcc addresses it from 0x400 (the CTA's window
//!          after a reserved 1 KiB), which is kept as is
//!  generic a generic address in [SHARED_WINDOW, + 4 GiB) is shared address (a - window), in
//!          [LOCAL_WINDOW, + LOCAL_TOP) the thread's local address (a - window), anything else
//!          global: the windows a listing reads from c[0x0][0x18] and c[0x0][0x20] (sm_75,
//!          sm_80) or builds from SR_SWINHI (sm_90) to turn a shared or local pointer generic
//! ```

use super::decode::MemSpace;
use super::launch::{initial_bytes, Arg, Launch, LaunchSpec};
use crate::trace::model::Command;
use crate::workload::builder::GLOBAL_BASE;
use crate::Result;

/// Offset of the first kernel parameter in constant bank 0 for a binary version.
pub fn param_base(binary_version: u32) -> usize {
    if binary_version >= 90 {
        0x210
    } else {
        0x160
    }
}

/// Top of each thread's local window (the stack pointer R1 at entry).
pub const LOCAL_TOP: u32 = 0x0100_0000;

/// Where generic addresses see shared memory: 4 GiB aligned, as sm_90 builds a generic shared
/// pointer from the window's high word (`SR_SWINHI`) and the 32-bit shared address.
pub const SHARED_WINDOW: u64 = 0x0000_7ffe_0000_0000;
/// Where generic addresses see the thread's local memory (its addresses below [`LOCAL_TOP`]).
pub const LOCAL_WINDOW: u64 = 0x0000_7ffd_0000_0000;

/// The space and the address in it of generic address `a`.
pub fn resolve_generic(a: u64) -> (MemSpace, u64) {
    if (SHARED_WINDOW..SHARED_WINDOW + (1 << 32)).contains(&a) {
        (MemSpace::Shared, a - SHARED_WINDOW)
    } else if (LOCAL_WINDOW..LOCAL_WINDOW + LOCAL_TOP as u64).contains(&a) {
        (MemSpace::Local, a - LOCAL_WINDOW)
    } else {
        (MemSpace::Global, a)
    }
}

/// Most shared memory one CTA may address (227 KiB plus the reserved 1 KiB).
pub const MAX_SHARED: usize = 228 * 1024;

/// One global buffer on the device.
#[derive(Clone, Debug)]
pub struct DevBuf {
    pub base: u64,
    pub data: Vec<u8>,
}

/// The global memory: every buffer of a launch spec.
#[derive(Clone, Debug, Default)]
pub struct Device {
    pub bufs: Vec<DevBuf>,
    last: usize,
}

impl Device {
    /// Lays out and fills the spec's buffers.
    pub fn new(spec: &LaunchSpec) -> Result<Device> {
        let mut next = GLOBAL_BASE;
        let mut bufs = Vec::with_capacity(spec.buffers.len());
        for b in &spec.buffers {
            let bytes = b.len * b.elem.bytes() as u64;
            let align = if bytes >= 1 << 20 { 2 << 20 } else { 512 };
            let base = next.div_ceil(align) * align;
            next = base + bytes.max(1);
            bufs.push(DevBuf {
                base,
                data: initial_bytes(b)?,
            });
        }
        Ok(Device { bufs, last: 0 })
    }

    /// The host-to-device copies of the buffers that start non-zero.
    pub fn copies(&self) -> Vec<Command> {
        self.bufs
            .iter()
            .filter(|b| b.data.iter().any(|&x| x != 0))
            .map(|b| Command::MemcpyHtoD {
                addr: b.base,
                bytes: b.data.len() as u64,
            })
            .collect()
    }

    /// The `n` bytes at `addr`, when they lie inside one buffer.
    #[inline]
    pub fn slice(&mut self, addr: u64, n: usize) -> Option<&mut [u8]> {
        let fits = |b: &DevBuf| addr >= b.base && addr + n as u64 <= b.base + b.data.len() as u64;
        if !self.bufs.get(self.last).is_some_and(fits) {
            let i = self.bufs.partition_point(|b| b.base <= addr);
            let i = i.checked_sub(1)?;
            if !fits(&self.bufs[i]) {
                return None;
            }
            self.last = i;
        }
        let b = &mut self.bufs[self.last];
        let at = (addr - b.base) as usize;
        Some(&mut b.data[at..at + n])
    }

    /// Where `addr` is relative to the buffers, for errors.
    pub fn describe(&self, addr: u64) -> String {
        match self.bufs.iter().rev().find(|b| b.base <= addr) {
            Some(b) => format!(
                "0x{addr:x} is {} bytes past the start of a {}-byte buffer",
                addr - b.base,
                b.data.len()
            ),
            None => format!("0x{addr:x} is below every buffer"),
        }
    }
}

/// Constant bank 0 of one launch: block and grid shape, the stack top, the parameters.
pub fn const_bank(l: &Launch, dev: &Device, binary_version: u32) -> Vec<u8> {
    let base = param_base(binary_version);
    let mut bank = vec![0u8; base];
    for (i, v) in [
        l.block.x, l.block.y, l.block.z, l.grid.x, l.grid.y, l.grid.z,
    ]
    .iter()
    .enumerate()
    {
        bank[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    bank[0x18..0x20].copy_from_slice(&SHARED_WINDOW.to_le_bytes());
    bank[0x20..0x28].copy_from_slice(&LOCAL_WINDOW.to_le_bytes());
    bank[0x28..0x2c].copy_from_slice(&LOCAL_TOP.to_le_bytes());
    for a in &l.args {
        let bytes: Vec<u8> = match a {
            Arg::Buffer(i) => dev.bufs[*i].base.to_le_bytes().to_vec(),
            Arg::Scalar(b) => b.clone(),
        };
        let align = bytes.len().max(1);
        let at = bank.len().div_ceil(align) * align;
        bank.resize(at, 0);
        bank.extend_from_slice(&bytes);
    }
    bank.resize(bank.len().div_ceil(16) * 16 + 16, 0);
    bank
}
