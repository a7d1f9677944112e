//! The memory-partition options: the L2 slice's queues, the DRAM address mapping and the DRAM
//! timing string.

use super::{parse_addr_mapping, AccelOption, Importer};
use crate::config::schema::GpuConfig;
use crate::Result;

/// `-gpgpu_dram_partition_queues` (the L2 slice's input queue) and `-gpgpu_mem_addr_mapping`
/// (partition interleave and DRAM row size).
pub(super) fn map_queues_and_mapping(im: &mut Importer, c: &mut GpuConfig) -> Result<()> {
    if let Some(o) = im.get("gpgpu_dram_partition_queues") {
        // i2$:$2d:d2$:$2i, packets
        let v = Importer::uint_list(o, "i2$:$2d:d2$:$2i")?;
        if v.len() != 4 {
            return Err(Importer::err(o, "expected i2$:$2d:d2$:$2i"));
        }
        c.l2.input_queue = v[0].max(1);
        im.warn(o, "i2$ gives l2.input_queue; $2d, d2$ and $2i are not modelled: misses wait in the DRAM queue (dram.queue), replies in the reply crossbar");
    }
    if let Some(o) = im.get("gpgpu_mem_addr_mapping") {
        let m = parse_addr_mapping(&o.value).map_err(|e| Importer::err(o, e))?;
        if let Some(b) = m.interleave_bytes {
            c.l2.interleave_bytes = u32::try_from(b).unwrap_or(u32::MAX);
        }
        if let Some(b) = m.row_bytes {
            c.dram.row_bytes = u32::try_from(b).unwrap_or(u32::MAX);
        }
        if !m.banks_row_by_row {
            im.warn(o, "bank bits (B) not right above the row's column bits: warpweave puts consecutive dram.row_bytes blocks of a channel in consecutive banks");
        }
    }
    Ok(())
}

pub(super) fn map_dram_timing(im: &mut Importer, c: &mut GpuConfig, o: &AccelOption) -> Result<()> {
    let compact: String = o
        .value
        .chars()
        .filter(|ch| !ch.is_whitespace() && *ch != '"')
        .collect();
    let t = &mut c.dram.timing;
    let mut unknown = Vec::new();
    for kv in compact.split(':').filter(|s| !s.is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| Importer::err(o, format!("`{kv}` is not name=value")))?;
        let v: u32 = v
            .parse()
            .map_err(|_| Importer::err(o, format!("{k}: `{v}` is not a whole number")))?;
        match k {
            "nbk" => c.dram.banks = v,
            "nbkgrp" => c.dram.bank_groups = v.max(1),
            "CCD" => t.t_ccd = v,
            "CCDL" => t.t_ccdl = v,
            "RRD" => t.t_rrd = v,
            "RCD" => t.t_rcd = v,
            "RAS" => t.t_ras = v,
            "RP" => t.t_rp = v,
            "RC" => t.t_rc = v,
            "CL" => t.t_cl = v,
            "WL" => t.t_cwl = v,
            "CDLR" => t.t_wtr = v,
            "WR" => t.t_wr = v,
            other => unknown.push(format!("{other}={v}")),
        }
    }
    if !unknown.is_empty() {
        im.warn(
            o,
            format!(
                "timing {} not modelled: a precharge waits for t_ras and t_wr only",
                unknown.join(", ")
            ),
        );
    }
    Ok(())
}
