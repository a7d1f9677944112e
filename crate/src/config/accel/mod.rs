//! Import of an Accel-Sim configuration: `gpgpusim.config` plus `trace.config`.
//!
//! ```text
//!  gpgpusim.config ─┐  lex (-name value, # comments,  ┌─ mapped option ──> GpuConfig key(s)
//!  trace.config ────┴─ quoted multi-line values) ─────┼─ known, not modelled ──> warning
//!                     (trace.config read last: wins)  └─ unknown ──> warning
//! ```
//! Every option is either mapped or listed in the warnings with its file and line; nothing is
//! dropped silently. Formats follow Accel-Sim's tested-cfgs (SM75_RTX2060, SM7_TITANV,
//! SM86_RTX3070, A100) and GPGPU-Sim's `cache_config::init` ([`cache_string`]).
//!
//! Mapping notes (per-SM counts become per-sub-core counts when `-gpgpu_sub_core_model 1`):
//!
//! | Accel-Sim option | warpweave key |
//! |---|---|
//! | `gpgpu_n_clusters` x `gpgpu_n_cores_per_cluster` | `gpu.num_sms` |
//! | `gpgpu_clock_domains` core:icnt:l2:dram | `clocks.*_mhz` |
//! | `gpgpu_shader_core_pipeline` threads:warp | `sm.max_threads`, `sm.max_warps` |
//! | `gpgpu_num_{sp,int,dp,sfu,tensor_core}_units` | `units.*.count` (/ sub-cores) |
//! | `gpgpu_cache:dl1`, `:dl2`, `:il1`, `gpgpu_const_cache:l1` | `l1d.cache`, `l2.cache` (per slice), `frontend.l1i`, `const_cache`; the L1's data port width `l1d.data_port_bytes` |
//! | `gpgpu_l2_rop_latency`, `dram_latency` (core cycles) | `l2.cache.latency`, `l2.dram_latency` (in L2 cycles), `analytic.l2_latency` = rop, `analytic.dram_latency` = rop + dram |
//! | `gpgpu_dram_partition_queues` i2$:$2d:d2$:$2i | `l2.input_queue` = i2$ |
//! | `gpgpu_mem_addr_mapping` dramid@N;mask | `l2.interleave_bytes` = 2^N, `dram.row_bytes` = 2^(C + S bits) ([`addr_map`]) |
//! | `gpgpu_memory_partition_indexing` 0 / 2, 6 / other | `l2.partition_index` linear / ipoly / hash |
//! | `gpgpu_dram_timing_opt` nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR:nbkgrp:CCDL | `dram.banks`, `dram.timing.*` (WL = t_cwl, CDLR = t_wtr) |
//! | `trace_opcode_latency_initiation_{int,sp,dp,sfu,tensor}` | `latency.{int+int_mul, fp32+fp16, dp, sfu, tensor}` |
//! | `specialized_unit_N` BRA / TENSOR / UDP + `..._spec_op_N` | `units`/`latency` `branch`, `tensor`, `uniform` |
//!
//! Options without a key of their own are judged in [`instead`]: a value that matches what
//! warpweave always does is imported silently, any other gives a warning that says what the
//! model does instead.

mod addr_map;
mod cache_string;
mod dram;
mod instead;
mod options;

use std::collections::HashSet;
use std::fmt;

pub use addr_map::{parse_addr_mapping, AddrMapping};
pub use cache_string::{parse_cache_string, AccelCache};
pub use options::{lex, AccelOption};

use super::schema::{GpuConfig, IndexFn, OpTiming, SchedPolicy};
use crate::{Error, Result};

/// An option we read but do not model (or model only approximately).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportWarning {
    pub file: String,
    pub line: u64,
    /// Option name without the leading `-`.
    pub option: String,
    pub value: String,
    pub reason: String,
}

impl fmt::Display for ImportWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: -{} {}: {}",
            self.file, self.line, self.option, self.value, self.reason
        )
    }
}

/// The imported configuration (validated) and what did not map.
#[derive(Clone, Debug)]
pub struct ImportResult {
    pub config: GpuConfig,
    pub warnings: Vec<ImportWarning>,
}

/// Options that only steer GPGPU-Sim's functional simulation, statistics or power model.
const NO_TIMING_EFFECT: &[&str] = &[
    "gpgpu_ptx_instruction_classification",
    "gpgpu_ptx_sim_mode",
    "gpgpu_ptx_force_max_capability",
    "gpgpu_ptx_convert_to_ptxplus",
    "gpgpu_ptx_save_converted_ptxplus",
    "gpgpu_stack_size_limit",
    "gpgpu_heap_size_limit",
    "gpgpu_runtime_sync_depth_limit",
    "gpgpu_runtime_pending_launch_count_limit",
    "gpgpu_memlatency_stat",
    "gpgpu_runtime_stat",
    "enable_ptx_file_line_stats",
    "visualizer_enabled",
    "power_simulation_enabled",
    "gpgpu_clock_gated_lanes",
    "gpgpu_clock_gated_reg_file",
    "gpgpu_occupancy_sm_number",
    "gpgpu_simd_model",
    "trace_enabled",
    "trace_components",
    "trace_sampling_core",
];

struct Importer<'a> {
    opts: &'a [AccelOption],
    used: HashSet<usize>,
    warnings: Vec<ImportWarning>,
}

impl<'a> Importer<'a> {
    /// The last occurrence of an option (later files override earlier ones).
    fn get(&mut self, name: &str) -> Option<&'a AccelOption> {
        let idx = self.opts.iter().rposition(|o| o.name == name)?;
        for (i, o) in self.opts.iter().enumerate() {
            if o.name == name {
                self.used.insert(i);
            }
        }
        Some(&self.opts[idx])
    }

    fn warn(&mut self, o: &AccelOption, reason: impl Into<String>) {
        self.warnings.push(ImportWarning {
            file: o.file.clone(),
            line: o.line,
            option: o.name.clone(),
            value: o.value.clone(),
            reason: reason.into(),
        });
    }

    fn err(o: &AccelOption, msg: impl Into<String>) -> Error {
        Error::parse(&o.file, o.line, format!("-{}", o.name), msg)
    }

    /// A value of colon-separated whole numbers (`A:B:...`, the fields named in `form`).
    fn uint_list(o: &AccelOption, form: &str) -> Result<Vec<u32>> {
        o.value
            .trim()
            .split(':')
            .map(|x| x.trim().parse::<u32>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| Self::err(o, format!("expected {form} whole numbers")))
    }

    fn uint(&mut self, name: &str) -> Result<Option<(u32, &'a AccelOption)>> {
        let Some(o) = self.get(name) else {
            return Ok(None);
        };
        let v = o.value.trim();
        let n = v
            .parse::<u32>()
            .map_err(|_| Self::err(o, format!("expected a whole number, got `{v}`")))?;
        Ok(Some((n, o)))
    }

    fn list(&mut self, name: &str) -> Result<Option<(Vec<f64>, &'a AccelOption)>> {
        let Some(o) = self.get(name) else {
            return Ok(None);
        };
        let v: std::result::Result<Vec<f64>, _> = o
            .value
            .split([',', ':'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::parse::<f64>)
            .collect();
        let v = v.map_err(|_| {
            Self::err(
                o,
                format!("expected numbers separated by , or :, got `{}`", o.value),
            )
        })?;
        if v.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return Err(Self::err(
                o,
                format!("expected non-negative numbers, got `{}`", o.value),
            ));
        }
        Ok(Some((v, o)))
    }

    fn timing(&mut self, name: &str) -> Result<Option<OpTiming>> {
        let Some((v, o)) = self.list(name)? else {
            return Ok(None);
        };
        if v.len() < 2 {
            return Err(Self::err(
                o,
                format!(
                    "expected <latency>,<initiation interval>, got `{}`",
                    o.value
                ),
            ));
        }
        Ok(Some(self.op_timing(v[0], v[1], o)))
    }

    fn op_timing(&mut self, lat: f64, ii: f64, o: &AccelOption) -> OpTiming {
        let (lat, ii) = (lat as u32, ii as u32);
        if ii == 0 || lat == 0 {
            self.warn(o, "a latency or initiation interval of 0 is raised to 1");
        }
        OpTiming {
            latency: lat.max(1),
            interval: ii.max(1),
        }
    }

    fn cache(
        &mut self,
        name: &str,
        base: &super::schema::CacheConfig,
    ) -> Result<Option<super::schema::CacheConfig>> {
        let Some(o) = self.get(name) else {
            return Ok(None);
        };
        if o.value.trim() == "none" {
            self.warn(
                o,
                "disabled cache (none) is not modelled; the cache is kept",
            );
            return Ok(None);
        }
        let c = parse_cache_string(&o.value).map_err(|m| Self::err(o, m))?;
        let (cfg, notes) = c.to_cache_config(base).map_err(|m| Self::err(o, m))?;
        for n in notes {
            self.warn(o, n);
        }
        if c.data_port_width.is_some() && name != "gpgpu_cache:dl1" {
            self.warn(
                o,
                "data port width not modelled for this cache (only the L1's: l1d.data_port_bytes)",
            );
        }
        Ok(Some(cfg))
    }
}

/// Import `(file name, text)` of a gpgpusim.config and a trace.config (the trace.config may be
/// empty; a gpgpusim.config without a single option is refused). Errors name the Accel-Sim file,
/// line and option, also when a mapped value is out of range for warpweave.
pub fn import_accel_sim(gpgpusim: (&str, &str), trace: (&str, &str)) -> Result<ImportResult> {
    let mut opts =
        lex(gpgpusim.0, gpgpusim.1).map_err(|(l, m)| Error::parse(gpgpusim.0, l, "option", m))?;
    let own = opts.len();
    opts.extend(lex(trace.0, trace.1).map_err(|(l, m)| Error::parse(trace.0, l, "option", m))?);
    let (c, mut warnings, used) = map_all(&opts, gpgpusim.0)?;
    if own == 0 {
        return Err(Error::parse(
            gpgpusim.0,
            0,
            "file",
            "sets no option: an Accel-Sim gpgpusim.config holds `-option value` lines",
        ));
    }
    warnings.sort_by(|a, b| {
        (a.file != gpgpusim.0, a.line, &a.option).cmp(&(b.file != gpgpusim.0, b.line, &b.option))
    });
    if let Err(e) = c.validate() {
        return Err(blame(e, &c, &opts, &used, gpgpusim.0));
    }
    Ok(ImportResult {
        config: c,
        warnings,
    })
}

/// Every option mapped onto the defaults: the config (not validated), the warnings, and the
/// indices of the options read.
fn map_all(
    opts: &[AccelOption],
    name: &str,
) -> Result<(GpuConfig, Vec<ImportWarning>, Vec<usize>)> {
    let mut im = Importer {
        opts,
        used: HashSet::new(),
        warnings: Vec::new(),
    };
    let mut c = GpuConfig::default();
    c.gpu.id = "imported".into();
    c.gpu.name = format!("Imported from Accel-Sim {name}");
    map_core(&mut im, &mut c)?;
    map_memory(&mut im, &mut c)?;
    map_trace(&mut im, &mut c)?;
    let last = |name: &str| {
        opts.iter()
            .rev()
            .find(|o| o.name == name)
            .map(|o| o.value.clone())
    };
    for (i, o) in opts.iter().enumerate() {
        if im.used.contains(&i) {
            continue;
        }
        let reason = if NO_TIMING_EFFECT.contains(&o.name.as_str()) {
            "no timing effect (functional, statistics or power option); ignored".to_string()
        } else {
            match instead::verdict(&o.name, &o.value, &last) {
                Some(instead::Verdict::Agrees) => continue,
                Some(instead::Verdict::Instead(why)) => why,
                None => "unknown to warpweave's importer; ignored".to_string(),
            }
        };
        im.warn(o, reason);
    }
    let mut used: Vec<usize> = im.used.into_iter().collect();
    used.sort_unstable();
    Ok((c, im.warnings, used))
}

/// A validation error of the imported config `c`, pinned on the Accel-Sim option that set the
/// key: the first read option without which the key's value changes (the import is small, so
/// it is simply redone once per option read). Else the gpgpusim.config `name` is named.
fn blame(e: Error, c: &GpuConfig, opts: &[AccelOption], used: &[usize], name: &str) -> Error {
    let Error::Config { key, msg } = e else {
        return e;
    };
    let value = |c: &GpuConfig| {
        let v = super::validate::to_value(c).ok()?;
        super::validate::lookup(&v, &key).cloned()
    };
    let have = value(c);
    for &i in used {
        let without: Vec<AccelOption> = opts
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, o)| o.clone())
            .collect();
        let changed = match map_all(&without, name) {
            Ok((d, _, _)) => value(&d) != have,
            Err(_) => false,
        };
        if changed {
            let o = &opts[i];
            return Error::parse(
                &o.file,
                o.line,
                format!("-{}", o.name),
                format!("gives {key}: {msg}"),
            );
        }
    }
    Error::parse(name, 0, key, msg)
}

fn map_core(im: &mut Importer, c: &mut GpuConfig) -> Result<()> {
    let clusters = im.uint("gpgpu_n_clusters")?.map(|x| x.0);
    let per = im.uint("gpgpu_n_cores_per_cluster")?.map(|x| x.0);
    if clusters.is_some() || per.is_some() {
        c.gpu.num_sms = clusters.unwrap_or(1).saturating_mul(per.unwrap_or(1));
    }
    if let Some((v, o)) = im.list("gpgpu_clock_domains")? {
        if v.len() != 4 {
            return Err(Importer::err(o, "expected <core>:<icnt>:<l2>:<dram> MHz"));
        }
        (
            c.clocks.core_mhz,
            c.clocks.icnt_mhz,
            c.clocks.l2_mhz,
            c.clocks.dram_mhz,
        ) = (v[0], v[1], v[2], v[3]);
    }
    let major = im.uint("gpgpu_compute_capability_major")?.map(|x| x.0);
    let minor = im.uint("gpgpu_compute_capability_minor")?.map(|x| x.0);
    if let Some(ma) = major {
        let cc = ma.saturating_mul(10).saturating_add(minor.unwrap_or(0));
        c.gpu.compute_capability = cc;
        c.gpu.arch = match cc {
            0..=69 => "pascal",
            70..=74 => "volta",
            75..=79 => "turing",
            80..=88 => "ampere",
            89 => "ada",
            _ => "hopper",
        }
        .into();
        c.frontend.inst_bytes = if cc >= 70 { 16 } else { 8 };
    }
    if let Some((n, _)) = im.uint("gpgpu_num_sched_per_core")? {
        c.sm.subcores = n.max(1);
    }
    let sub_core = match im.uint("gpgpu_sub_core_model")? {
        Some((0, o)) => {
            im.warn(o, "warpweave always splits the SM into sub-cores; per-SM unit counts are divided by gpgpu_num_sched_per_core");
            true
        }
        _ => true,
    };
    let per_sub = |n: u32, subcores: u32| {
        if sub_core {
            (n / subcores).max(u32::from(n > 0))
        } else {
            n
        }
    };
    if let Some((n, _)) = im.uint("gpgpu_shader_registers")? {
        c.sm.registers = n;
    }
    if let Some(o) = im.get("gpgpu_shader_core_pipeline") {
        let (t, w) = o
            .value
            .split_once(':')
            .ok_or_else(|| Importer::err(o, "expected <threads>:<warp size>"))?;
        let t: u32 = t
            .trim()
            .parse()
            .map_err(|_| Importer::err(o, "threads is not a whole number"))?;
        let w: u32 = w
            .trim()
            .parse()
            .map_err(|_| Importer::err(o, "warp size is not a whole number"))?;
        if w != 32 {
            return Err(Importer::err(
                o,
                format!("warp size {w} is not supported (32 expected)"),
            ));
        }
        c.sm.max_threads = t;
        c.sm.max_warps = t / 32;
    }
    if let Some((n, _)) = im.uint("gpgpu_shader_cta")? {
        c.sm.max_ctas = n;
    }
    if let Some((n, _)) = im.uint("gpgpu_kernel_launch_latency")? {
        c.sm.kernel_launch_latency = n;
    }
    if let Some((n, _)) = im.uint("gpgpu_TB_launch_latency")? {
        c.sm.cta_launch_latency = n;
    }
    if let Some((n, _)) = im.uint("gpgpu_max_concurrent_kernel")? {
        c.sm.concurrent_kernels = n > 1;
    }
    if let Some(o) = im.get("gpgpu_scheduler") {
        c.scheduler.policy = match o.value.trim() {
            "gto" => SchedPolicy::Gto,
            "lrr" => SchedPolicy::Lrr,
            v if v.starts_with("two_level_active") => {
                if let Some(n) = v.split(':').nth(1).and_then(|s| s.parse().ok()) {
                    c.scheduler.two_level_active = n;
                }
                SchedPolicy::TwoLevel
            }
            v => {
                im.warn(o, format!("scheduler `{v}` not modelled; gto used"));
                SchedPolicy::Gto
            }
        };
    }
    if let Some((n, _)) = im.uint("gpgpu_max_insn_issue_per_warp")? {
        c.scheduler.issue_width = n.max(1);
    }
    let s = c.sm.subcores;
    for (name, unit) in [
        ("gpgpu_num_sp_units", &mut c.units.sp),
        ("gpgpu_num_int_units", &mut c.units.int),
        ("gpgpu_num_dp_units", &mut c.units.dp),
        ("gpgpu_num_sfu_units", &mut c.units.sfu),
        ("gpgpu_num_tensor_core_units", &mut c.units.tensor),
    ] {
        if let Some((n, _)) = im.uint(name)? {
            unit.count = per_sub(n, s);
        }
    }
    if let Some((0, _)) = im.uint("gpgpu_tensor_core_avail")? {
        c.units.tensor.count = 0;
    }
    if let Some((n, _)) = im.uint("gpgpu_num_reg_banks")? {
        c.regfile.banks = per_sub(n, s);
    }
    if let Some((n, _)) = im.uint("gpgpu_reg_file_port_throughput")? {
        c.regfile.ports_per_bank = n.max(1);
    }
    if let Some((n, _)) = im.uint("gpgpu_operand_collector_num_units_gen")? {
        c.regfile.collector_units = per_sub(n, s);
    }
    // PTX-mode latencies: a fallback that trace.config's trace_opcode_* values override.
    let ptx = |im: &mut Importer, lat: &str, ii: &str, idx: usize| -> Result<Option<OpTiming>> {
        let (Some((l, lo)), Some((i, _))) = (im.list(lat)?, im.list(ii)?) else {
            return Ok(None);
        };
        match (l.get(idx), i.get(idx)) {
            (Some(&a), Some(&b)) => Ok(Some(im.op_timing(a, b, lo))),
            _ => Ok(None),
        }
    };
    if let Some(t) = ptx(im, "ptx_opcode_latency_int", "ptx_opcode_initiation_int", 0)? {
        c.latency.int = t;
    }
    if let Some(t) = ptx(im, "ptx_opcode_latency_int", "ptx_opcode_initiation_int", 2)? {
        c.latency.int_mul = t;
    }
    if let Some(t) = ptx(im, "ptx_opcode_latency_fp", "ptx_opcode_initiation_fp", 0)? {
        (c.latency.fp32, c.latency.fp16) = (t, t);
    }
    if let Some(t) = ptx(im, "ptx_opcode_latency_dp", "ptx_opcode_initiation_dp", 0)? {
        c.latency.dp = t;
    }
    if let Some(t) = ptx(im, "ptx_opcode_latency_sfu", "ptx_opcode_initiation_sfu", 0)? {
        c.latency.sfu = t;
    }
    if let Some(t) = ptx(
        im,
        "ptx_opcode_latency_tesnor",
        "ptx_opcode_initiation_tensor",
        0,
    )? {
        c.latency.tensor = t;
    }
    if let Some(c2) = im.cache(
        "gpgpu_cache:il1",
        &crate::config::schema::CacheConfig::default(),
    )? {
        c.frontend.l1i.size_kb = c2.size_kb;
        c.frontend.l1i.line_bytes = c2.line_bytes;
        c.frontend.l1i.assoc = c2.assoc;
        c.frontend.l1i.mshr = c2.mshr_entries;
    }
    if let Some((n, _)) = im.uint("gpgpu_inst_fetch_throughput")? {
        c.frontend.fetch_width = n.clamp(1, 16);
    }
    if let Some((1, o)) = im.uint("gpgpu_perfect_inst_const_cache")? {
        c.frontend.l1i.size_kb = 0;
        c.frontend.l0i.size_kb = 0;
        im.warn(o, "perfect instruction cache: frontend.l1i and l0i set to 0 (perfect); the constant cache stays finite");
    }
    Ok(())
}

fn map_memory(im: &mut Importer, c: &mut GpuConfig) -> Result<()> {
    if let Some((v, _)) = im.uint("gpgpu_adaptive_cache_config")? {
        c.l1d.adaptive_carveout = v != 0;
    }
    if let Some((v, o)) = im.list("gpgpu_shmem_option")? {
        c.l1d.shmem_options_kb = v.iter().map(|x| *x as u32).collect();
        if c.l1d.shmem_options_kb.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Importer::err(
                o,
                "carve-out options must be strictly ascending",
            ));
        }
    }
    let unified_given = match im.uint("gpgpu_unified_l1d_size")? {
        Some((v, _)) => {
            c.l1d.unified_kb = v;
            true
        }
        None => false,
    };
    if let Some((v, _)) = im.uint("gpgpu_l1_banks")? {
        c.l1d.banks = v.max(1);
    }
    let l1_base = c.l1d.cache.clone();
    if let Some(o) = im.get("gpgpu_cache:dl1") {
        let parsed = parse_cache_string(&o.value).map_err(|m| Importer::err(o, m))?;
        c.l1d.streaming = parsed.alloc == 's';
        // Bytes per cycle the L1 moves on a hit (GPGPU-Sim: 0 = a line).
        if let Some(w) = parsed.data_port_width {
            c.l1d.data_port_bytes = if w == 0 { parsed.line_bytes } else { w };
        }
    }
    if let Some(l1) = im.cache("gpgpu_cache:dl1", &l1_base)? {
        c.l1d.cache = l1;
    }
    if let Some((v, _)) = im.uint("gpgpu_l1_latency")? {
        c.l1d.cache.latency = v;
        c.analytic.l1_latency = v;
    }
    if let Some((v, _)) = im.uint("gpgpu_gmem_skip_L1D")? {
        c.l1d.cache_global = v == 0;
    }
    if let Some((v, _)) = im.uint("gpgpu_shmem_size")? {
        c.shmem.max_per_sm_kb = v / 1024;
    }
    if let Some((v, _)) = im.uint("gpgpu_shmem_per_block")? {
        c.shmem.max_per_cta_kb = v / 1024;
    }
    if let Some((v, _)) = im.uint("gpgpu_smem_latency")? {
        c.shmem.latency = v;
        c.analytic.shmem_latency = v;
    }
    if let Some((v, _)) = im.uint("gpgpu_shmem_num_banks")? {
        c.shmem.banks = v.max(1);
    }
    // Older configs (TITAN V) give no carve-out options: derive one that fits.
    let need = c.shmem.max_per_sm_kb;
    if c.l1d.shmem_options_kb.last().is_none_or(|&l| l < need) {
        c.l1d.shmem_options_kb.retain(|&x| x < need);
        c.l1d.shmem_options_kb.push(need);
    }
    // Without an explicit unified size, the storage is the L1 string's size plus the shared memory.
    let least = if unified_given {
        need.max(c.l1d.cache.size_kb)
    } else {
        need.saturating_add(c.l1d.cache.size_kb)
    };
    c.l1d.unified_kb = c.l1d.unified_kb.max(least);
    c.shmem.max_per_cta_kb = c.shmem.max_per_cta_kb.min(c.shmem.max_per_sm_kb);

    if let Some((n, _)) = im.uint("gpgpu_n_mem")? {
        c.l2.partitions = n.max(1);
    }
    if let Some((n, _)) = im.uint("gpgpu_n_sub_partition_per_mchannel")? {
        c.l2.subpartitions = n.max(1);
    }
    let l2_base = c.l2.cache.clone();
    if let Some(l2) = im.cache("gpgpu_cache:dl2", &l2_base)? {
        c.l2.cache = l2;
    }
    if let Some((v, o)) = im.uint("gpgpu_memory_partition_indexing")? {
        c.l2.partition_index = match v {
            0 => IndexFn::Linear,
            // 6: IPOLY taken modulo a partition count that is no power of two, as ipoly does
            2 | 6 => IndexFn::Ipoly,
            _ => {
                im.warn(
                    o,
                    format!("partition indexing {v} modelled as the multiplicative hash (l2.partition_index = hash)"),
                );
                IndexFn::Hash
            }
        };
    }
    if let Some((v, _)) = im.uint("gpgpu_perf_sim_memcpy")? {
        c.l2.warm_from_memcpy = v != 0;
    }
    let const_base = c.const_cache.clone();
    if let Some(k) = im.cache("gpgpu_const_cache:l1", &const_base)? {
        c.const_cache = k;
    }
    if let Some((v, _)) = im.uint("icnt_flit_size")? {
        c.noc.flit_bytes = v.max(1);
    }
    if let Some((v, _)) = im.uint("icnt_in_buffer_limit")? {
        c.noc.buffer_flits = v.max(1);
    }
    // GPGPU-Sim counts the ROP and DRAM delay queues in core cycles; the L2 keys are in L2 cycles.
    let l2_per_core = c.clocks.l2_mhz / c.clocks.core_mhz;
    let to_l2 = move |v: u32| (f64::from(v) * l2_per_core).round() as u32;
    let rop = im.uint("gpgpu_l2_rop_latency")?.map(|x| x.0);
    let dram = im.uint("dram_latency")?.map(|x| x.0);
    if let Some(r) = rop {
        c.l2.cache.latency = to_l2(r);
        c.analytic.l2_latency = r;
        c.frontend.l1i_miss_latency = r;
    }
    if let Some(d) = dram {
        c.l2.dram_latency = to_l2(d);
        c.analytic.dram_latency = rop.unwrap_or(c.analytic.l2_latency).saturating_add(d);
    }
    dram::map_queues_and_mapping(im, c)?;
    if let Some((v, o)) = im.uint("gpgpu_dram_scheduler")? {
        c.dram.scheduler = if v == 0 { "fifo" } else { "frfcfs" }.into();
        if v > 1 {
            im.warn(o, "DRAM scheduler modelled as frfcfs");
        }
    }
    if let Some((v, _)) = im.uint("gpgpu_frfcfs_dram_sched_queue_size")? {
        c.dram.queue = v.max(1);
    }
    let sep = im.uint("dram_seperate_write_queue_enable")?;
    if let Some(o) = im.get("dram_write_queue_size") {
        // SIZE:HIGH:LOW (Accel-Sim's default 32:28:16), used when the queue is enabled.
        let v = Importer::uint_list(o, "SIZE:HIGH:LOW")?;
        let [size, high, low] = v[..] else {
            return Err(Importer::err(o, "expected SIZE:HIGH:LOW"));
        };
        if sep.is_some_and(|(e, _)| e != 0) {
            (c.dram.write_queue, c.dram.write_high, c.dram.write_low) = (size, high, low);
        }
    } else if sep.is_some_and(|(e, _)| e != 0) {
        (c.dram.write_queue, c.dram.write_high, c.dram.write_low) = (32, 28, 16);
    }
    if let Some((v, _)) = im.uint("gpgpu_dram_buswidth")? {
        c.dram.bus_width_bytes = v;
    }
    if let Some((v, _)) = im.uint("gpgpu_dram_burst_length")? {
        c.dram.burst_length = v;
    }
    if let Some((v, _)) = im.uint("dram_data_command_freq_ratio")? {
        c.dram.data_rate = v;
    }
    c.dram.kind = match (c.dram.data_rate, c.dram.bus_width_bytes) {
        (2, w) if w >= 8 => "hbm2",
        (4, _) => "gddr6",
        _ => "gddr5",
    }
    .into();
    if let Some(o) = im.get("gpgpu_dram_timing_opt") {
        let o = o.clone();
        dram::map_dram_timing(im, c, &o)?;
    }
    Ok(())
}

/// No fixed-latency texture unit: TEX and TLD are memory instructions.
const TEX_UNIT: &str =
    "no fixed-latency texture unit: TEX and TLD are memory instructions timed through the L1 data cache";

fn map_trace(im: &mut Importer, c: &mut GpuConfig) -> Result<()> {
    if let Some(t) = im.timing("trace_opcode_latency_initiation_int")? {
        (c.latency.int, c.latency.int_mul) = (t, t);
    }
    if let Some(t) = im.timing("trace_opcode_latency_initiation_sp")? {
        (c.latency.fp32, c.latency.fp16) = (t, t);
    }
    if let Some(t) = im.timing("trace_opcode_latency_initiation_dp")? {
        c.latency.dp = t;
    }
    if let Some(t) = im.timing("trace_opcode_latency_initiation_sfu")? {
        c.latency.sfu = t;
    }
    if let Some(t) = im.timing("trace_opcode_latency_initiation_tensor")? {
        c.latency.tensor = t;
    }
    for n in 1..=8 {
        let Some(o) = im.get(&format!("specialized_unit_{n}")) else {
            continue;
        };
        // <enabled>,<num_units>,<max_latency>,<ID_OC_SPEC>,<OC_EX_SPEC>,<NAME>
        let f: Vec<&str> = o.value.split(',').map(str::trim).collect();
        if f.len() != 6 {
            return Err(Importer::err(
                o,
                "expected <enabled>,<num_units>,<max_latency>,<ID_OC>,<OC_EX>,<NAME>",
            ));
        }
        let units: u32 = f[1]
            .parse()
            .map_err(|_| Importer::err(o, format!("num_units `{}` is not a whole number", f[1])))?;
        let spec_op = format!("trace_opcode_latency_initiation_spec_op_{n}");
        let skip = match (f[0], f[5]) {
            ("1", "BRA" | "TENSOR" | "UDP") => None,
            ("1", "TEX") => Some(TEX_UNIT.to_string()),
            ("1", other) => Some(format!(
                "specialised unit {other} not modelled: its opcodes run on the unit of their class (crate/src/trace/opcodes)"
            )),
            _ => Some("disabled specialised unit: its opcodes run on the unit of their class".into()),
        };
        if let Some(why) = skip {
            im.warn(o, why.clone());
            if let Some(t) = im.get(&spec_op) {
                im.warn(t, why);
            }
            continue;
        }
        let which = match f[5] {
            "BRA" => 0,
            "TENSOR" => 1,
            _ => 2,
        };
        let timing = im.timing(&spec_op)?;
        let (unit, lat) = match which {
            0 => (&mut c.units.branch, &mut c.latency.branch),
            1 => (&mut c.units.tensor, &mut c.latency.tensor),
            _ => (&mut c.units.uniform, &mut c.latency.uniform),
        };
        unit.count = (units / c.sm.subcores).clamp(1, 16);
        if let Some(t) = timing {
            *lat = t;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_tested;
