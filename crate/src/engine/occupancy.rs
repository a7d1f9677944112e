//! Occupancy: how many CTAs of a kernel one SM can hold (seed 004 Equations 3-6, with the
//! allocation granularities of the CUDA occupancy calculator).
//!
//! ```text
//!  MaxActBlk = min(limit_ctas, limit_warps, limit_regs, limit_shmem)           (3)
//!  limit_warps = floor(max_warps / warps_per_cta)   (and max_threads / threads) (4)
//!  regs_per_warp = ceil(nregs * 32, reg_alloc_granularity)
//!  limit_regs = floor(floor(registers / regs_per_warp) to warp_alloc_granularity) / warps_per_cta (5)
//!  shmem_per_cta = ceil(shmem + reserved, shmem_alloc_granularity)
//!  limit_shmem = floor(shmem_per_sm / shmem_per_cta)                              (6)
//! ```

use serde::Serialize;

use crate::config::GpuConfig;
use crate::trace::KernelInfo;
use crate::{Error, Result};

/// What bounds a kernel's CTAs per SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    Ctas,
    Warps,
    Registers,
    SharedMemory,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Occupancy {
    pub ctas_per_sm: u32,
    pub limiter: Limiter,
    pub warps_per_cta: u32,
    /// Registers per warp after rounding to the allocation unit.
    pub regs_per_warp: u32,
    /// Shared memory per CTA after rounding, bytes.
    pub shmem_per_cta: u32,
    pub limit_ctas: u32,
    pub limit_warps: u32,
    pub limit_regs: u32,
    pub limit_shmem: u32,
}

impl Occupancy {
    /// Active warps / maximum warps.
    pub fn fraction(&self, max_warps: u32) -> f64 {
        (self.ctas_per_sm * self.warps_per_cta) as f64 / max_warps.max(1) as f64
    }
}

fn round_up(x: u32, g: u32) -> u32 {
    if g <= 1 {
        x
    } else {
        x.div_ceil(g) * g
    }
}

/// Occupancy of kernel `k` on the configured SM. A kernel that cannot fit even one CTA is an
/// error naming the resource (it would otherwise never run).
pub fn occupancy(k: &KernelInfo, cfg: &GpuConfig) -> Result<Occupancy> {
    let sm = &cfg.sm;
    let threads = k.block.count() as u32;
    if threads == 0 {
        return Err(Error::config(
            "trace",
            format!(
                "kernel `{}`: block size {} has no threads",
                crate::error::shown(&k.name),
                k.block
            ),
        ));
    }
    let wpc = k.warps_per_cta();
    let limit_ctas = sm.max_ctas;
    let limit_warps = (sm.max_warps / wpc).min(sm.max_threads / (wpc * 32));
    let (regs_per_warp, limit_regs) = if k.nregs == 0 {
        (0, u32::MAX)
    } else {
        if k.nregs > sm.max_regs_per_thread {
            return Err(Error::config(
                "sm.max_regs_per_thread",
                format!(
                    "kernel `{}` uses {} registers per thread, the SM allows {}",
                    crate::error::shown(&k.name),
                    k.nregs,
                    sm.max_regs_per_thread
                ),
            ));
        }
        let rpw = round_up(k.nregs * 32, sm.reg_alloc_granularity);
        let warps = sm.registers / rpw;
        let g = sm.warp_alloc_granularity.max(1);
        (rpw, (warps / g * g) / wpc)
    };
    let shmem_per_cta = if k.shmem_bytes == 0 {
        0
    } else {
        round_up(
            k.shmem_bytes + sm.shmem_reserved_per_cta,
            sm.shmem_alloc_granularity,
        )
    };
    if shmem_per_cta > cfg.shmem.max_per_cta_kb * 1024 {
        return Err(Error::config(
            "shmem.max_per_cta_kb",
            format!(
                "kernel `{}` needs {} B of shared memory per CTA, at most {} KiB allowed",
                crate::error::shown(&k.name),
                shmem_per_cta,
                cfg.shmem.max_per_cta_kb
            ),
        ));
    }
    let limit_shmem = (cfg.shmem.max_per_sm_kb * 1024)
        .checked_div(shmem_per_cta)
        .unwrap_or(u32::MAX);
    let pairs = [
        (limit_ctas, Limiter::Ctas),
        (limit_warps, Limiter::Warps),
        (limit_regs, Limiter::Registers),
        (limit_shmem, Limiter::SharedMemory),
    ];
    let (ctas, limiter) = pairs
        .iter()
        .copied()
        .min_by_key(|p| p.0)
        .unwrap_or((0, Limiter::Ctas));
    if ctas == 0 {
        let key = match limiter {
            Limiter::Ctas => "sm.max_ctas",
            Limiter::Warps => "sm.max_warps",
            Limiter::Registers => "sm.registers",
            Limiter::SharedMemory => "shmem.max_per_sm_kb",
        };
        return Err(Error::config(
            key,
            format!(
                "kernel `{}` (block {}, {} regs/thread, {} B shared) cannot fit one CTA on an SM",
                crate::error::shown(&k.name),
                k.block,
                k.nregs,
                k.shmem_bytes
            ),
        ));
    }
    Ok(Occupancy {
        ctas_per_sm: ctas,
        limiter,
        warps_per_cta: wpc,
        regs_per_warp,
        shmem_per_cta,
        limit_ctas,
        limit_warps,
        limit_regs,
        limit_shmem,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Dim3;

    fn k(threads: u32, regs: u32, shmem: u32) -> KernelInfo {
        KernelInfo {
            name: "k".into(),
            block: Dim3::new(threads, 1, 1),
            nregs: regs,
            shmem_bytes: shmem,
            ..Default::default()
        }
    }

    /// Compute capability 7.5 (Turing) as the CUDA occupancy calculator has it: 32 warps,
    /// 1024 threads, 16 CTAs, 64 K registers (unit 256, warp granularity 4), 64 KiB shared
    /// memory (unit 256). Each row: (threads, regs, shmem) -> CTAs per SM, limiter.
    #[test]
    fn matches_the_cuda_occupancy_calculator_cc75() {
        let cfg = GpuConfig::default();
        let table = [
            // 8 warps/CTA: warps 32/8 = 4; regs 32*32 = 1024/warp -> 64 warps -> 8 CTAs.
            (256, 32, 0, 4, Limiter::Warps),
            // 4 warps: warps 8; regs 64*32 = 2048 -> 32 warps -> 8 CTAs (tie, warps first).
            (128, 64, 0, 8, Limiter::Warps),
            // regs 72*32 = 2304 (a multiple of 256) -> 65536/2304 = 28.4 -> 28 warps -> 3 CTAs.
            (256, 72, 0, 3, Limiter::Registers),
            // 3 warps: warps 32/3 = 10; regs 40*32 = 1280 -> 51 -> 48 (granularity 4) -> 16.
            (96, 40, 0, 10, Limiter::Warps),
            // regs 255*32 = 8160 -> 8192 -> 8 warps -> 8/2 = 4 CTAs.
            (64, 255, 0, 4, Limiter::Registers),
            // shmem 20000 -> 20224 -> 65536/20224 = 3.2 -> 3; warps 8, regs 16.
            (128, 32, 20000, 3, Limiter::SharedMemory),
            // 1024 threads, 64 regs: 2048/warp -> 32 warps -> 1 CTA; warps 1 (tie).
            (1024, 64, 0, 1, Limiter::Warps),
            // 32 threads, 16 regs: 1 warp; CTA limit 16 binds before warps (32).
            (32, 16, 0, 16, Limiter::Ctas),
            // shmem 48 KiB: 65536/49152 = 1.
            (256, 16, 48 * 1024, 1, Limiter::SharedMemory),
        ];
        for (t, r, s, want, lim) in table {
            let o = occupancy(&k(t, r, s), &cfg).unwrap();
            assert_eq!(
                (o.ctas_per_sm, o.limiter),
                (want, lim),
                "block {t}, regs {r}, shmem {s}"
            );
        }
        // 1024 threads with 65 registers: 2080 -> 2304 per warp -> 28 warps < 32: no CTA fits.
        let e = occupancy(&k(1024, 65, 0), &cfg).unwrap_err().to_string();
        assert!(e.contains("sm.registers"), "{e}");
        let e = occupancy(&k(128, 0, 80 * 1024), &cfg)
            .unwrap_err()
            .to_string();
        assert!(e.contains("shmem.max_per_cta_kb"), "{e}");
    }
}
