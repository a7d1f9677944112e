//! In-kernel clock probes: the simulator against the SM clock a kernel reads itself.
//!
//! The probe kernels of `tests/hardware/kernels.cu` read `clock64()` before and after what
//! they time (`CS2R Rn, SR_CLOCKLO`); `results/h100-probes.csv` holds each warp's delta as
//! the card measured it, run plainly (no profiler), the median of three runs. Unlike Nsight
//! Compute's elapsed cycles these carry no launch overhead, so they test one mechanism each:
//! loads that touch 1-32 L1 lines, warps merging on one missed line, local spills, cold code.
//!
//! ```text
//!  probes.csv row (workload, params, warp, cycles)
//!    trace recorded on the card  traced/h100-holdout/WORKLOAD-PARAMS.wwt (control bits joined)
//!    clock-read PCs              kernels.sm_90.sass.xz: the kernel's `SR_CLOCKLO` reads
//!    simulate twice in a row (cycle mode, issue logs; CTA 0's warps sit in slots 0.. of the
//!    SM that issued first in the second launch)
//!    sim delta of warp w = in the second launch, issue cycle of its last clock read - first
//! ```
//! The card ran each probe three times after copying its inputs, so the median run found them
//! in the L2 (and, as every launch, an empty L1): the second simulated launch does too.
//! The recorded traces of `l1_lines` and `loop_probe` are not faithful (the tracer lost most
//! of `l1_lines`' loads and cannot count `loop_probe`'s trips; see tests/hardware/README.md):
//! those probes are executed from the listing instead (`crate::exec`), with the buffers,
//! arguments and launch shape `tests/hardware/bench.cu` gives them, and the executed stream
//! simulated the same way. Probes with neither are listed as skipped.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::Path;

use serde::Serialize;

use crate::engine::{ModelChoice, Simulator};
use crate::trace::model::{Command, KernelInfo, KernelStream};
use crate::trace::opcodes::Arch;
use crate::trace::open::open_path;
use crate::trace::TraceSource;
use crate::{config, Error, Result};

/// The listing the probes' clock reads are found in, relative to `tests/hardware`.
pub const LISTING: &str = "traced/h100-holdout/kernels.sm_90.sass.xz";
/// Probes whose recorded trace does not hold the kernel's loop: executed from the listing
/// (see the module docs).
pub const UNFAITHFUL: [&str; 2] = ["l1_lines", "loop_probe"];

/// One warp of one probe.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeRow {
    pub workload: String,
    pub params: String,
    pub warp: u32,
    pub hw: f64,
    pub sim: f64,
}

impl ProbeRow {
    pub fn error_pct(&self) -> f64 {
        100.0 * (self.sim - self.hw) / self.hw
    }
}

/// Every probe of a results folder: rows compared, and probes skipped with the reason.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ProbeReport {
    pub rows: Vec<ProbeRow>,
    pub skipped: Vec<String>,
}

impl ProbeReport {
    /// Mean absolute error (%) of one probe's warps (workload and params).
    pub fn probe_error_pct(&self, workload: &str, params: &str) -> Option<f64> {
        let e: Vec<f64> = self
            .rows
            .iter()
            .filter(|r| r.workload == workload && r.params == params)
            .map(|r| r.error_pct().abs())
            .collect();
        (!e.is_empty()).then(|| e.iter().sum::<f64>() / e.len() as f64)
    }

    /// The probes compared, in file order, each once.
    pub fn probes(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for r in &self.rows {
            if !out.iter().any(|(w, p)| *w == r.workload && *p == r.params) {
                out.push((r.workload.clone(), r.params.clone()));
            }
        }
        out
    }

    pub fn text(&self) -> String {
        let mut s = String::from(
            "in-kernel clock probes (h100): each warp's clock64() delta, card vs simulated\n",
        );
        for (w, p) in self.probes() {
            let rows: Vec<&ProbeRow> = self
                .rows
                .iter()
                .filter(|r| r.workload == w && r.params == p)
                .collect();
            let hw: f64 = rows.iter().map(|r| r.hw).sum::<f64>() / rows.len() as f64;
            let sim: f64 = rows.iter().map(|r| r.sim).sum::<f64>() / rows.len() as f64;
            let _ = writeln!(
                s,
                "  {w} {p}: {} warps, mean hw {hw:.0} sim {sim:.0} cycles, mean |error| {:.1}%",
                rows.len(),
                self.probe_error_pct(&w, &p).unwrap_or(0.0)
            );
        }
        for k in &self.skipped {
            let _ = writeln!(s, "  skipped: {k}");
        }
        s
    }
}

/// The trace file a probe was recorded to (`btree_find-depth-4_ctas-8_block-128.wwt`).
pub fn trace_name(workload: &str, params: &str) -> String {
    let p: Vec<String> = params
        .split_whitespace()
        .map(|x| x.replace('=', "-"))
        .collect();
    format!("{workload}-{}.wwt", p.join("_"))
}

/// PCs of the instructions reading the SM clock, per function of a `cuobjdump -sass` listing.
pub fn clock_pcs(listing: &str) -> BTreeMap<String, Vec<u32>> {
    let mut out: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut cur: Option<String> = None;
    for l in listing.lines() {
        if let Some(name) = l.trim().strip_prefix("Function : ") {
            cur = Some(name.trim().to_string());
            continue;
        }
        let (Some(f), Some(code)) = (&cur, l.trim().strip_prefix("/*")) else {
            continue;
        };
        let Some((pc, rest)) = code.split_once("*/") else {
            continue;
        };
        let ins = rest.split(';').next().unwrap_or("");
        if ins.contains("SR_CLOCKLO") || ins.contains("SR_CLOCKHI") {
            if let Ok(pc) = u32::from_str_radix(pc.trim(), 16) {
                out.entry(f.clone()).or_default().push(pc);
            }
        }
    }
    out
}

/// A one-kernel source launched twice (the second launch finds the L2 the first left).
struct Twice {
    inner: Box<dyn TraceSource + Send>,
    commands: [Command; 2],
}

impl TraceSource for Twice {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn commands(&self) -> &[Command] {
        &self.commands
    }
    fn kernel_count(&self) -> usize {
        2
    }
    fn kernel_info(&self, _k: usize) -> &KernelInfo {
        self.inner.kernel_info(0)
    }
    fn open_kernel(&mut self, _k: usize) -> Result<Box<dyn KernelStream + Send + '_>> {
        self.inner.open_kernel(0)
    }
    fn open_kernel_owned(&mut self, _k: usize) -> Result<Box<dyn KernelStream + Send>> {
        self.inner.open_kernel_owned(0)
    }
    fn trace_hash(&self) -> String {
        self.inner.trace_hash()
    }
}

/// The probe's warp a `clk` slot belongs to: `issue_order` times warps 0, 4, 8 and 12.
fn warp_of_slot(workload: &str, slot: u32) -> u32 {
    if workload == "issue_order" {
        slot * 4
    } else {
        slot
    }
}

/// One probe file's rows: (workload, params) -> [(warp, cycles)].
type Measured = Vec<((String, String), Vec<(u32, f64)>)>;

fn parse_probes(path: &Path) -> Result<Measured> {
    let err = |m: String| Error::other(format!("{}: {m}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    let mut out: Measured = Vec::new();
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#'));
    let head = lines.next().map(|(_, l)| l).unwrap_or("");
    if head != "workload,params,warp,cycles" {
        return Err(err(format!(
            "header `{head}` (expected workload,params,warp,cycles)"
        )));
    }
    for (i, l) in lines {
        let c: Vec<&str> = l.split(',').collect();
        let [w, p, warp, cycles] = c[..] else {
            return Err(err(format!("line {}: expected 4 cells", i + 1)));
        };
        let warp = warp
            .parse()
            .map_err(|_| err(format!("line {}: warp `{warp}`", i + 1)))?;
        let cycles = cycles
            .parse()
            .map_err(|_| err(format!("line {}: cycles `{cycles}`", i + 1)))?;
        let key = (w.to_string(), p.to_string());
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push((warp, cycles)),
            None => out.push((key, vec![(warp, cycles)])),
        }
    }
    Ok(out)
}

/// Simulates one probe's trace on `preset`, launched twice, and returns each warp's clock
/// delta in the second launch (warps of CTA 0).
pub fn simulate(
    trace: &Path,
    preset: &str,
    clock: &BTreeMap<String, Vec<u32>>,
) -> Result<Vec<(u32, f64)>> {
    let src = open_path(trace, Arch::Hopper)?;
    simulate_source(src, &trace.display().to_string(), preset, clock)
}

/// [`simulate`] of a source holding one kernel (`shown` names it in errors).
pub fn simulate_source(
    src: Box<dyn TraceSource + Send>,
    shown: &str,
    preset: &str,
    clock: &BTreeMap<String, Vec<u32>>,
) -> Result<Vec<(u32, f64)>> {
    let cfg = config::load_with_overrides::<&str>(preset, &[])?;
    let name = src.kernel_info(0).name.clone();
    let pcs = clock
        .get(&name)
        .ok_or_else(|| Error::other(format!("{name}: no clock read in {LISTING}")))?
        .clone();
    if src.kernel_count() != 1 {
        return Err(Error::other(format!(
            "{shown}: a probe trace holds one kernel, not {}",
            src.kernel_count()
        )));
    }
    let twice = Twice {
        inner: src,
        commands: [Command::Kernel { index: 0 }, Command::Kernel { index: 1 }],
    };
    let mut sim = Simulator::new(cfg, ModelChoice::named("cycle")?, Box::new(twice))?;
    for sm in &mut sim.gpu.sms {
        sm.enable_issue_log();
    }
    let r = sim.run_to_end()?;
    let from = r.kernels.get(1).map_or(0, |k| k.launched_at);
    // CTA 0 of the second launch: on the SM that issued first in it (the lowest of those
    // that issued in the same cycle); its warps sit in slots 0.. in warp order.
    let logs: Vec<Vec<crate::core::IssueEvent>> = sim
        .gpu
        .sms
        .iter_mut()
        .map(|sm| {
            let mut l = sm.sh.issue_log.take().unwrap_or_default();
            l.retain(|e| e.cycle >= from);
            l
        })
        .collect();
    let log = logs
        .iter()
        .filter(|l| !l.is_empty())
        .min_by_key(|l| l[0].cycle)
        .cloned()
        .unwrap_or_default();
    let mut per_warp: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for e in log.iter().filter(|e| pcs.contains(&e.pc)) {
        let t = per_warp.entry(e.warp as u32).or_insert((e.cycle, e.cycle));
        t.0 = t.0.min(e.cycle);
        t.1 = t.1.max(e.cycle);
    }
    Ok(per_warp
        .into_iter()
        .map(|(w, (a, b))| (w, (b - a) as f64))
        .collect())
}

/// Every probe of `dir/h100-probes.csv` (dir: `tests/hardware/results`), simulated on the
/// h100 preset.
pub fn compare(dir: &Path) -> Result<ProbeReport> {
    let hw_dir = dir.join("..");
    let listing_path = hw_dir.join(LISTING);
    let shown = listing_path.display().to_string();
    let mut listing = String::new();
    crate::trace::io::open_file(&listing_path)?
        .read_to_string(&mut listing)
        .map_err(|e| Error::io(&shown, e))?;
    let clock = clock_pcs(&listing);
    let mut rep = ProbeReport::default();
    let mut prog = None;
    for ((w, p), warps) in parse_probes(&dir.join("h100-probes.csv"))? {
        let trace = hw_dir.join("traced/h100-holdout").join(trace_name(&w, &p));
        let sim = if UNFAITHFUL.contains(&w.as_str()) {
            let Some(spec) = probe_spec(&w, &p) else {
                rep.skipped.push(format!(
                    "{w} {p}: its recorded trace does not hold the timed loop and it has no launch"
                ));
                continue;
            };
            if prog.is_none() {
                prog = Some(crate::exec::Program::from_listing(
                    &listing,
                    &shown,
                    Arch::Hopper,
                )?);
            }
            let prog = prog.as_ref().expect("decoded above");
            let ex = crate::exec::execute(prog, &spec, &format!("{w} {p}"))?;
            simulate_source(Box::new(ex.trace), &format!("{w} {p}"), "h100", &clock)?
        } else if trace.exists() {
            simulate(&trace, "h100", &clock)?
        } else {
            rep.skipped
                .push(format!("{w} {p}: no trace {}", trace.display()));
            continue;
        };
        for (warp, hw) in warps {
            let at = warp_of_slot(&w, warp);
            let Some(&(_, s)) = sim.iter().find(|(sw, _)| *sw == at) else {
                rep.skipped
                    .push(format!("{w} {p}: warp {warp} read no clock"));
                continue;
            };
            rep.rows.push(ProbeRow {
                workload: w.clone(),
                params: p.clone(),
                warp,
                hw,
                sim: s,
            });
        }
    }
    Ok(rep)
}

/// The launch `tests/hardware/bench.cu` makes for an executed probe (`params` as in the
/// probes file: `lines=4 reps=256`), or `None` for another workload.
pub fn probe_spec(workload: &str, params: &str) -> Option<crate::exec::LaunchSpec> {
    use crate::exec::{Arg, BufferDef, Elem, Init, Launch, LaunchSpec};
    use crate::trace::model::Dim3;
    let num = |k: &str, def: i32| -> i32 {
        params
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .find(|(n, _)| *n == k)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(def)
    };
    // bench.cu's input(): element i is (i % 97) * 0.25; alloc(): zeros; clk_buf(n): 2n i64.
    let input = |name: &str, floats: usize| BufferDef {
        name: name.into(),
        elem: Elem::F32,
        len: floats as u64,
        init: Init::Bytes(
            (0..floats)
                .flat_map(|i| ((i % 97) as f32 * 0.25).to_le_bytes())
                .collect(),
        ),
        output: false,
    };
    let alloc = |name: &str, elem: Elem, len: u64| BufferDef {
        name: name.into(),
        elem,
        len,
        init: Init::Zeros,
        output: false,
    };
    let int = |v: i32| Arg::Scalar(v.to_le_bytes().to_vec());
    let (buffers, block, args) = match workload {
        "l1_lines" => (
            vec![
                input("buf", 8 * 1024),
                alloc("sink", Elem::F32, 1),
                alloc("clk", Elem::I64, 8),
            ],
            128,
            vec![
                Arg::Buffer(0),
                Arg::Buffer(1),
                Arg::Buffer(2),
                int(num("lines", 1)),
                int(num("reps", 256)),
            ],
        ),
        "loop_probe" => (
            vec![alloc("out", Elem::F32, 32), alloc("clk", Elem::I64, 2)],
            32,
            vec![Arg::Buffer(0), Arg::Buffer(1), int(num("trips", 64))],
        ),
        _ => return None,
    };
    Some(LaunchSpec {
        buffers,
        launches: vec![Launch {
            kernel: workload.into(),
            grid: Dim3::new(1, 1, 1),
            block: Dim3::new(block, 1, 1),
            shared: 0,
            args,
            repeat: None,
        }],
        constants: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_reads_found_per_function_and_trace_names_built() {
        let l = "\t\tFunction : k1\n        /*0360*/                   CS2R R6, SR_CLOCKLO ;   /* 0x0 */\n        /*0370*/   CS2R R4, SRZ ;\n\t\tFunction : k2\n        /*0010*/   S2UR UR4, SR_CLOCKLO ;\n";
        let m = clock_pcs(l);
        assert_eq!(m["k1"], vec![0x360]);
        assert_eq!(m["k2"], vec![0x10]);
        assert_eq!(
            trace_name("local_spill", "n=32 reps=2 ctas=132 block=128"),
            "local_spill-n-32_reps-2_ctas-132_block-128.wwt"
        );
        assert_eq!(trace_name("ffma_chain", ""), "ffma_chain-.wwt");
    }
}
