//! Occupancy (seed 004 Equations 3-6) and the adaptive L1 / shared-memory carve-out
//! (Equation 7): the driver picks the smallest shared-memory carve-out that keeps the most
//! active CTAs the largest carve-out allows; the L1 gets the rest of the unified storage.
//!
//! ```text
//!  MaxActBlk(x) = min(ctas, threads/blk, regs/blk, x/shmem per blk)          (3)-(6)
//!  AdaptiveShmem = min { x in options | MaxActBlk(x) = MaxActBlk(max option) }   (7)
//!  L1 = unified - AdaptiveShmem
//! ```

use serde::Serialize;

use crate::config::GpuConfig;
use crate::trace::{KernelInfo, WARP_SIZE};

/// The carve-out chosen for one kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Carveout {
    pub shmem_kb: u32,
    pub l1_kb: u32,
    /// CTAs per SM with that carve-out (Equation 3).
    pub max_active_ctas: u32,
}

/// The architecture's unified L1 + shared storage (KiB) and carve-out options (KiB), from the
/// CUDA tuning guides: Volta 128 / 0..96, Turing 96 / 32, 64, Ampere A100 192 / 0..164,
/// GA10x and Ada 128 / 0..100, Hopper 256 / 0..228.
pub fn arch_carveouts(arch: &str, compute_capability: u32) -> (u32, Vec<u32>) {
    match (arch, compute_capability) {
        ("volta", _) | (_, 70) | (_, 72) => (128, vec![0, 8, 16, 32, 64, 96]),
        ("turing", _) | (_, 75) => (96, vec![32, 64]),
        (_, 80) => (192, vec![0, 8, 16, 32, 64, 100, 132, 164]),
        ("hopper", _) | (_, 90) => (256, vec![0, 8, 16, 32, 64, 100, 132, 164, 196, 228]),
        ("ampere", _) | ("ada", _) | (_, 86) | (_, 87) | (_, 89) => {
            (128, vec![0, 8, 16, 32, 64, 100])
        }
        _ => (0, Vec::new()),
    }
}

/// Equation 3 with `shmem_bytes` of shared memory per SM.
pub fn max_active_ctas(cfg: &GpuConfig, k: &KernelInfo, shmem_bytes: u64) -> u32 {
    let sm = &cfg.sm;
    let threads = (k.block.count() as u32).max(1);
    let warps = threads.div_ceil(WARP_SIZE);
    let by_threads = sm.max_threads / threads;
    let by_warps = sm.max_warps / warps.max(1);
    let regs_per_warp = (k.nregs * WARP_SIZE).div_ceil(sm.reg_alloc_granularity.max(1))
        * sm.reg_alloc_granularity.max(1);
    let by_regs = sm
        .registers
        .checked_div(regs_per_warp)
        .map_or(u32::MAX, |w| w / warps.max(1));
    let per_cta = if k.shmem_bytes == 0 {
        0
    } else {
        let g = sm.shmem_alloc_granularity.max(1) as u64;
        (k.shmem_bytes as u64 + sm.shmem_reserved_per_cta as u64).div_ceil(g) * g
    };
    let by_shmem = shmem_bytes
        .checked_div(per_cta)
        .map_or(u32::MAX, |n| n.min(u32::MAX as u64) as u32);
    sm.max_ctas
        .min(by_threads)
        .min(by_warps)
        .min(by_regs)
        .min(by_shmem)
}

/// Equation 7 for kernel `k`. Without adaptive carve-out (or without options) the L1 keeps
/// `l1d.cache.size_kb` and shared memory `shmem.max_per_sm_kb`.
pub fn choose(cfg: &GpuConfig, k: &KernelInfo) -> Carveout {
    let (arch_unified, arch_opts) = arch_carveouts(&cfg.gpu.arch, cfg.gpu.compute_capability);
    let (unified, opts) = if cfg.l1d.shmem_options_kb.is_empty() {
        (arch_unified, arch_opts)
    } else {
        let u = if cfg.l1d.unified_kb > 0 {
            cfg.l1d.unified_kb
        } else {
            arch_unified
        };
        (u, cfg.l1d.shmem_options_kb.clone())
    };
    let mut opts: Vec<u32> = opts.into_iter().filter(|&x| x <= unified).collect();
    opts.sort_unstable();
    let Some(&largest) = opts.last() else {
        let shmem = cfg.shmem.max_per_sm_kb;
        return Carveout {
            shmem_kb: shmem,
            l1_kb: cfg.l1d.cache.size_kb,
            max_active_ctas: max_active_ctas(cfg, k, shmem as u64 * 1024),
        };
    };
    if !cfg.l1d.adaptive_carveout {
        let shmem = cfg.shmem.max_per_sm_kb.min(largest);
        return Carveout {
            shmem_kb: shmem,
            l1_kb: cfg.l1d.cache.size_kb,
            max_active_ctas: max_active_ctas(cfg, k, shmem as u64 * 1024),
        };
    }
    let best = max_active_ctas(cfg, k, largest as u64 * 1024);
    // Every option is considered, the largest included, smallest first.
    let shmem = opts
        .iter()
        .copied()
        .find(|&x| max_active_ctas(cfg, k, x as u64 * 1024) == best)
        .unwrap_or(largest);
    Carveout {
        shmem_kb: shmem,
        l1_kb: unified - shmem,
        max_active_ctas: best,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Dim3;

    fn volta() -> GpuConfig {
        let mut c = GpuConfig::default();
        c.gpu.arch = "volta".into();
        c.gpu.compute_capability = 70;
        c.sm.max_threads = 2048;
        c.sm.max_warps = 64;
        c.sm.max_ctas = 32;
        c.l1d.shmem_options_kb = vec![];
        c
    }

    fn kernel(threads: u32, nregs: u32, shmem: u32) -> KernelInfo {
        KernelInfo {
            block: Dim3::new(threads, 1, 1),
            nregs,
            shmem_bytes: shmem,
            ..KernelInfo::default()
        }
    }

    #[test]
    fn volta_no_shared_memory_gives_l1_everything() {
        // Seed 004 4.2: a kernel without shared memory gets all 128 KB as L1.
        let c = choose(&volta(), &kernel(256, 32, 0));
        assert_eq!(
            c,
            Carveout {
                shmem_kb: 0,
                l1_kb: 128,
                max_active_ctas: 8
            }
        );
    }

    #[test]
    fn volta_picks_smallest_option_keeping_occupancy() {
        // 4 KiB/CTA, 8 CTAs by threads and registers: 32 KiB suffices -> L1 96 KiB.
        assert_eq!(
            choose(&volta(), &kernel(256, 32, 4096)),
            Carveout {
                shmem_kb: 32,
                l1_kb: 96,
                max_active_ctas: 8
            }
        );
        // 10 KiB/CTA: 64 KiB holds 6, only 96 KiB (the largest option) holds 8.
        assert_eq!(
            choose(&volta(), &kernel(256, 32, 10240)),
            Carveout {
                shmem_kb: 96,
                l1_kb: 32,
                max_active_ctas: 8
            }
        );
        // 48 KiB/CTA: 2 CTAs need the largest option.
        assert_eq!(
            choose(&volta(), &kernel(256, 32, 48 * 1024)),
            Carveout {
                shmem_kb: 96,
                l1_kb: 32,
                max_active_ctas: 2
            }
        );
    }

    #[test]
    fn turing_ampere_hopper_options() {
        let mut t = GpuConfig::default();
        t.l1d.shmem_options_kb = vec![];
        // Turing: the smallest option is 32 KiB.
        assert_eq!(
            choose(&t, &kernel(128, 32, 0)),
            Carveout {
                shmem_kb: 32,
                l1_kb: 64,
                max_active_ctas: 8
            }
        );
        let mut a = volta();
        a.gpu.arch = "ampere".into();
        a.gpu.compute_capability = 80;
        a.sm.shmem_reserved_per_cta = 1024;
        // 40 KiB + 1 KiB reserved per CTA: 164 KiB holds 4, 132 holds 3 -> 164, L1 28.
        assert_eq!(
            choose(&a, &kernel(128, 32, 40 * 1024)),
            Carveout {
                shmem_kb: 164,
                l1_kb: 28,
                max_active_ctas: 4
            }
        );
        let mut h = a.clone();
        h.gpu.arch = "hopper".into();
        h.gpu.compute_capability = 90;
        assert_eq!(
            choose(&h, &kernel(128, 32, 40 * 1024)),
            Carveout {
                shmem_kb: 228,
                l1_kb: 28,
                max_active_ctas: 5
            }
        );
    }
}
