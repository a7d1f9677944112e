//! The counters every mode reports under Nsight Compute's metric names, counted alike (32-byte
//! sectors, the SMs' traffic), so a user can put `ncu --csv` output beside ours:
//!
//! ```text
//!  sm__cycles_elapsed.max                   cycles (timing modes only)
//!  smsp__inst_executed.sum                  warp instructions (timing modes only)
//!  l1tex__t_sector_hit_rate.pct             L1 sectors hit / sectors accessed
//!  lts__t_sector_hit_rate.pct               L2 sectors hit / sectors accessed
//!  lts__t_sectors_srcunit_tex_op_read.sum   sectors the L1s read from the L2
//!  lts__t_sectors_srcunit_tex_op_write.sum  sectors the L1s wrote to the L2
//!  dram__sectors_read.sum                   sectors read from DRAM
//!  dram__sectors_write.sum                  sectors written to DRAM
//! ```
//! `cycle` mode counts them in its cycle memory system, `memory` mode in its functional caches
//! (same cache statistics, [`crate::mem::cache::CacheStats`]).

use std::fmt::Write as _;

use serde::Serialize;

use crate::mem::cache::CacheStats;

/// See the module docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct NcuCounters {
    #[serde(
        rename = "sm__cycles_elapsed.max",
        skip_serializing_if = "Option::is_none"
    )]
    pub cycles: Option<u64>,
    #[serde(
        rename = "smsp__inst_executed.sum",
        skip_serializing_if = "Option::is_none"
    )]
    pub warp_insts: Option<u64>,
    #[serde(rename = "l1tex__t_sector_hit_rate.pct")]
    pub l1_hit_pct: f64,
    #[serde(rename = "lts__t_sector_hit_rate.pct")]
    pub l2_hit_pct: f64,
    #[serde(rename = "lts__t_sectors_srcunit_tex_op_read.sum")]
    pub l2_read_sectors: u64,
    #[serde(rename = "lts__t_sectors_srcunit_tex_op_write.sum")]
    pub l2_write_sectors: u64,
    #[serde(rename = "dram__sectors_read.sum")]
    pub dram_read_sectors: u64,
    #[serde(rename = "dram__sectors_write.sum")]
    pub dram_write_sectors: u64,
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

impl NcuCounters {
    /// From the L1s' and L2's statistics and the DRAM sector counts.
    pub fn from_caches(
        cycles: Option<u64>,
        warp_insts: Option<u64>,
        l1: &CacheStats,
        l2: &CacheStats,
        (dram_read_sectors, dram_write_sectors): (u64, u64),
    ) -> Self {
        NcuCounters {
            cycles,
            warp_insts,
            l1_hit_pct: pct(l1.sector_hits, l1.sectors),
            l2_hit_pct: pct(l2.sector_hits, l2.sectors),
            l2_read_sectors: l1.fetch_sectors,
            l2_write_sectors: l1.write_sectors + l1.writeback_sectors,
            dram_read_sectors,
            dram_write_sectors,
        }
    }

    /// (metric name, value as printed) in the module docs' order.
    pub fn rows(&self) -> Vec<(&'static str, String)> {
        let mut v = Vec::new();
        if let Some(c) = self.cycles {
            v.push(("sm__cycles_elapsed.max", c.to_string()));
        }
        if let Some(w) = self.warp_insts {
            v.push(("smsp__inst_executed.sum", w.to_string()));
        }
        v.extend([
            (
                "l1tex__t_sector_hit_rate.pct",
                format!("{:.2}", self.l1_hit_pct),
            ),
            (
                "lts__t_sector_hit_rate.pct",
                format!("{:.2}", self.l2_hit_pct),
            ),
            (
                "lts__t_sectors_srcunit_tex_op_read.sum",
                self.l2_read_sectors.to_string(),
            ),
            (
                "lts__t_sectors_srcunit_tex_op_write.sum",
                self.l2_write_sectors.to_string(),
            ),
            ("dram__sectors_read.sum", self.dram_read_sectors.to_string()),
            (
                "dram__sectors_write.sum",
                self.dram_write_sectors.to_string(),
            ),
        ]);
        v
    }

    /// Two columns, for the terminal.
    pub fn text(&self) -> String {
        let mut s = String::from("counters (Nsight Compute metric names):\n");
        for (k, v) in self.rows() {
            let _ = writeln!(s, "  {k:<40} {v:>14}");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{ModelChoice, Simulator};
    use crate::workload::{generate, Params};

    /// The same trace gives the same sector counts in `cycle` and `memory` mode.
    #[test]
    fn cycle_and_memory_modes_count_alike() {
        let mut cfg = crate::config::preset("rtx2080ti").unwrap();
        cfg.l2.warm_from_memcpy = false;
        let t = || generate("vecadd", &Params::parse(&["n=65536"]).unwrap()).unwrap();
        let mut sim = Simulator::new(
            cfg.clone(),
            ModelChoice::named("cycle").unwrap(),
            Box::new(t()),
        )
        .unwrap();
        let c = sim.run_to_end().unwrap().counters;
        let f = crate::mem::functional::run(&cfg, &mut t()).unwrap().kernels[0].counters;
        assert_eq!(
            c.dram_read_sectors, 16384,
            "two 256 KiB inputs in 32-byte sectors"
        );
        assert_eq!(
            (
                c.dram_read_sectors,
                c.dram_write_sectors,
                c.l2_read_sectors,
                c.l2_write_sectors
            ),
            (
                f.dram_read_sectors,
                f.dram_write_sectors,
                f.l2_read_sectors,
                f.l2_write_sectors
            )
        );
        assert_eq!((c.l1_hit_pct, c.l2_hit_pct), (f.l1_hit_pct, f.l2_hit_pct));
        assert_eq!((c.warp_insts, f.warp_insts), (Some(32768), None));
        let json = serde_json::to_string(&c).unwrap();
        assert!(json.contains("\"dram__sectors_read.sum\":16384"), "{json}");
    }
}
