//! What is in a trace, without simulating it (`warpweave info`): per kernel and in total, the
//! launch shapes, warp and thread instructions, the instruction mix by unit and by kind, the
//! memory footprint (distinct 128-byte lines of device memory), the bytes accessed per warp
//! instruction, and the opcodes the architecture's table does not know.
//!
//! ```text
//!  TraceSource ─> for each kernel: next_cta() ─> count per instruction ─> KernelSummary
//!                                                 (lines: a set of addr >> 7)  └─> TraceSummary
//! ```

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use serde::Serialize;

use crate::error::shown;
use crate::trace::check;
use crate::trace::model::{Command, CtrlSource, Dim3, MemSpace, OpKind, TraceSource, Unit};
use crate::trace::opcodes::{space_of, GenericWindows};
use crate::Result;

/// Bytes per cache line used for the footprint.
pub const LINE_BYTES: u64 = 128;

/// Counters shared by kernels and the total.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Counts {
    pub warp_insts: u64,
    pub thread_insts: u64,
    /// Warp instructions per unit (`int`, `sp`, `mem`, ...).
    pub by_unit: BTreeMap<String, u64>,
    /// Warp instructions per kind (`alu`, `load`, `store`, ...).
    pub by_kind: BTreeMap<String, u64>,
    /// Warp instructions with addresses.
    pub mem_insts: u64,
    /// Bytes accessed: width times active lanes, summed over memory instructions.
    pub bytes_accessed: u64,
    /// Distinct 128-byte lines of global and local memory touched.
    pub footprint_lines: u64,
    /// `bytes_accessed / warp_insts`.
    pub bytes_per_inst: f64,
    /// Warp instructions whose opcode is unknown to the architecture's table.
    pub unknown_insts: u64,
    /// Unknown opcode names and their warp-instruction counts.
    pub unknown_opcodes: BTreeMap<String, u64>,
    /// Warp instructions that carry compiler control bits.
    pub ctrl_insts: u64,
}

impl Counts {
    fn finish(&mut self) {
        self.bytes_per_inst = if self.warp_insts == 0 {
            0.0
        } else {
            self.bytes_accessed as f64 / self.warp_insts as f64
        };
    }
    fn add(&mut self, o: &Counts) {
        self.warp_insts += o.warp_insts;
        self.thread_insts += o.thread_insts;
        for (k, v) in &o.by_unit {
            *self.by_unit.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.by_kind {
            *self.by_kind.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.unknown_opcodes {
            *self.unknown_opcodes.entry(k.clone()).or_default() += v;
        }
        self.mem_insts += o.mem_insts;
        self.bytes_accessed += o.bytes_accessed;
        self.unknown_insts += o.unknown_insts;
        self.ctrl_insts += o.ctrl_insts;
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KernelSummary {
    pub index: usize,
    pub name: String,
    pub id: u32,
    pub grid: Dim3,
    pub block: Dim3,
    pub ctas: u64,
    pub warps_per_cta: u32,
    pub shmem_bytes: u32,
    pub nregs: u32,
    pub binary_version: u32,
    pub tracer_version: u32,
    /// Where the kernel's control bits came from (`none`, `sass`, `workload`).
    pub ctrl_source: CtrlSource,
    #[serde(flatten)]
    pub counts: Counts,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TraceSummary {
    pub name: String,
    pub trace_hash: String,
    pub kernels: Vec<KernelSummary>,
    pub memcpy_count: u64,
    pub memcpy_bytes: u64,
    pub total: Counts,
    /// Kernels described with CTAs missing (`--allow-partial`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

pub fn kind_name(k: OpKind) -> &'static str {
    match k {
        OpKind::Alu => "alu",
        OpKind::Load => "load",
        OpKind::Store => "store",
        OpKind::Atomic => "atomic",
        OpKind::Reduction => "reduction",
        OpKind::Barrier => "barrier",
        OpKind::MemBarrier => "membar",
        OpKind::Exit => "exit",
        OpKind::Branch => "branch",
        OpKind::Nop => "nop",
    }
}

/// Reads every kernel of `src` once and counts.
pub fn summarize(src: &mut dyn TraceSource) -> Result<TraceSummary> {
    let mut out = TraceSummary {
        name: src.name().to_string(),
        trace_hash: src.trace_hash(),
        ..Default::default()
    };
    for c in src.commands() {
        if let Command::MemcpyHtoD { bytes, .. } = c {
            out.memcpy_count += 1;
            out.memcpy_bytes += bytes;
        }
    }
    let mut all_lines: HashSet<u64> = HashSet::new();
    for k in 0..src.kernel_count() {
        let mut s = src.open_kernel(k)?;
        let info = s.info().clone();
        let windows = GenericWindows::from_info(&info);
        let mut c = Counts::default();
        let mut lines: HashSet<u64> = HashSet::new();
        let mut unit_n = [0u64; Unit::ALL.len()];
        let mut kind_n: BTreeMap<&'static str, u64> = BTreeMap::new();
        let mut ctas = 0u64;
        while let Some(cta) = s.next_cta()? {
            ctas += 1;
            let ops = s.ops();
            for w in &cta.warps {
                for i in &w.insts {
                    let op = ops.get(i.op);
                    c.warp_insts += 1;
                    c.thread_insts += i.active_lanes() as u64;
                    c.ctrl_insts += i.ctrl.present() as u64;
                    unit_n[Unit::ALL.iter().position(|u| *u == op.unit).unwrap_or(0)] += 1;
                    *kind_n.entry(kind_name(op.kind)).or_default() += 1;
                    if op.unknown {
                        c.unknown_insts += 1;
                        *c.unknown_opcodes.entry(op.name.clone()).or_default() += 1;
                    }
                    if i.mem_width > 0 {
                        c.mem_insts += 1;
                        c.bytes_accessed += i.mem_width as u64 * i.active_lanes() as u64;
                        for (_, a) in w.lane_addrs(i) {
                            if matches!(
                                space_of(op, &windows, a),
                                MemSpace::Global | MemSpace::Local
                            ) {
                                let first = a / LINE_BYTES;
                                let last =
                                    a.saturating_add((i.mem_width as u64).max(1) - 1) / LINE_BYTES;
                                for l in first..=last {
                                    lines.insert(l);
                                }
                            }
                        }
                    }
                }
            }
        }
        for (u, n) in Unit::ALL.iter().zip(unit_n) {
            if n > 0 {
                c.by_unit.insert(u.name().to_string(), n);
            }
        }
        c.by_kind = kind_n
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        c.footprint_lines = lines.len() as u64;
        c.finish();
        all_lines.extend(lines);
        out.total.add(&c);
        if ctas < info.grid.count() {
            let w = check::partial_warning(&info.name, ctas, info.grid.count());
            out.warnings.push(w);
        }
        out.kernels.push(KernelSummary {
            index: k,
            name: info.name.clone(),
            id: info.id,
            grid: info.grid,
            block: info.block,
            ctas,
            warps_per_cta: info.warps_per_cta(),
            shmem_bytes: info.shmem_bytes,
            nregs: info.nregs,
            binary_version: info.binary_version,
            tracer_version: info.tracer_version,
            ctrl_source: info.ctrl_source,
            counts: c,
        });
    }
    out.total.footprint_lines = all_lines.len() as u64;
    out.total.finish();
    Ok(out)
}

fn mix(m: &BTreeMap<String, u64>, total: u64) -> String {
    let mut v: Vec<(&String, &u64)> = m.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    v.iter()
        .map(|(k, n)| format!("{k} {:.1}%", 100.0 * **n as f64 / total.max(1) as f64))
        .collect::<Vec<_>>()
        .join(", ")
}

fn short(name: &str, n: usize) -> String {
    if name.chars().count() <= n {
        name.to_string()
    } else {
        format!("{}...", name.chars().take(n - 3).collect::<String>())
    }
}

/// `none`, or how many warp instructions carry control bits and where each kernel's came
/// from: `66892 of 66892 warp instructions (kernels from sass: 1)`.
fn ctrl_line(s: &TraceSummary) -> String {
    let t = &s.total;
    if t.ctrl_insts == 0 && s.kernels.iter().all(|k| k.ctrl_source == CtrlSource::None) {
        return "none".into();
    }
    let mut by: BTreeMap<&str, usize> = BTreeMap::new();
    for k in &s.kernels {
        *by.entry(k.ctrl_source.name()).or_default() += 1;
    }
    let by: Vec<String> = by.iter().map(|(n, c)| format!("{n}: {c}")).collect();
    format!(
        "{} of {} warp instructions (kernels from {})",
        t.ctrl_insts,
        t.warp_insts,
        by.join(", ")
    )
}

/// A readable table of the summary.
pub fn render_table(s: &TraceSummary) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "trace {}  (hash {})", s.name, s.trace_hash);
    let _ = writeln!(
        o,
        "{} kernel(s), {} host-to-device copies ({} bytes)\n",
        s.kernels.len(),
        s.memcpy_count,
        s.memcpy_bytes
    );
    let _ = writeln!(
        o,
        "{:>3}  {:<40} {:>12} {:>12} {:>5} {:>8} {:>12} {:>14} {:>10} {:>12} {:>8}",
        "#",
        "kernel",
        "grid",
        "block",
        "bin",
        "ctrl",
        "warp insts",
        "thread insts",
        "mem insts",
        "footprint B",
        "B/inst"
    );
    for k in &s.kernels {
        let _ = writeln!(
            o,
            "{:>3}  {:<40} {:>12} {:>12} {:>5} {:>8} {:>12} {:>14} {:>10} {:>12} {:>8.2}",
            k.index,
            short(&k.name, 40),
            k.grid.to_string(),
            k.block.to_string(),
            k.binary_version,
            k.ctrl_source.name(),
            k.counts.warp_insts,
            k.counts.thread_insts,
            k.counts.mem_insts,
            k.counts.footprint_lines * LINE_BYTES,
            k.counts.bytes_per_inst
        );
    }
    let t = &s.total;
    let _ = writeln!(
        o,
        "{:>3}  {:<40} {:>12} {:>12} {:>5} {:>8} {:>12} {:>14} {:>10} {:>12} {:>8.2}\n",
        "",
        "total",
        "",
        "",
        "",
        "",
        t.warp_insts,
        t.thread_insts,
        t.mem_insts,
        t.footprint_lines * LINE_BYTES,
        t.bytes_per_inst
    );
    let _ = writeln!(o, "mix by unit: {}", mix(&t.by_unit, t.warp_insts));
    let _ = writeln!(o, "mix by kind: {}", mix(&t.by_kind, t.warp_insts));
    let _ = writeln!(
        o,
        "bytes accessed: {}  distinct 128 B lines: {}",
        t.bytes_accessed, t.footprint_lines
    );
    let _ = writeln!(o, "control bits: {}", ctrl_line(s));
    if t.unknown_insts == 0 {
        let _ = writeln!(o, "unknown opcodes: none");
    } else {
        let names: Vec<String> = t
            .unknown_opcodes
            .iter()
            .map(|(k, v)| format!("{} x{v}", shown(k)))
            .collect();
        let _ = writeln!(
            o,
            "unknown opcodes: {} warp instructions ({})",
            t.unknown_insts,
            names.join(", ")
        );
    }
    for w in &s.warnings {
        let _ = writeln!(o, "warning: {w}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::accelsim::{AccelSimTrace, OpenOptions};
    use crate::trace::opcodes::Arch;

    fn real(dir: &str) -> std::path::PathBuf {
        crate::testing::real_trace(dir)
    }

    fn sum(dir: &str) -> TraceSummary {
        sum_at(real(dir))
    }

    fn sum_at(dir: std::path::PathBuf) -> TraceSummary {
        let mut t = AccelSimTrace::open(
            dir,
            OpenOptions {
                default_arch: Arch::Volta,
                ..Default::default()
            },
        )
        .unwrap();
        summarize(&mut t).unwrap()
    }

    fn map(v: &[(&str, u64)]) -> BTreeMap<String, u64> {
        v.iter().map(|(k, n)| (k.to_string(), *n)).collect()
    }

    #[test]
    #[ignore = "needs ../shared/real-traces"]
    fn real_vectoradd_summary_matches_hand_counts() {
        // Counted from the file: 4 warps x 23 + 28 x 9 lines; opcodes XMAD 96, S2R 64, NOP 36,
        // EXIT 36, MOV 32, ISETP 32, IADD 24, LDG 8, SHL 4, SHR 4, FADD 4, STG 4.
        let s = sum("microgpusim-vectoradd-100-32");
        assert_eq!((s.memcpy_count, s.memcpy_bytes), (3, 1200));
        let k = &s.kernels[0];
        assert_eq!((k.ctas, k.warps_per_cta, k.binary_version), (1, 32, 61));
        let c = &k.counts;
        assert_eq!(
            (c.warp_insts, c.thread_insts, c.mem_insts),
            (344, 10516, 12)
        );
        // 100 floats read twice and written once: 1200 bytes, 3 arrays x 400 B = 12 lines.
        assert_eq!((c.bytes_accessed, c.footprint_lines), (1200, 12));
        assert_eq!(c.bytes_per_inst, 1200.0 / 344.0);
        assert_eq!(
            c.by_unit,
            map(&[("int", 292), ("branch", 36), ("mem", 12), ("sp", 4)])
        );
        assert_eq!(
            c.by_kind,
            map(&[
                ("alu", 260),
                ("nop", 36),
                ("exit", 36),
                ("load", 8),
                ("store", 4)
            ])
        );
        assert_eq!(c.unknown_insts, 0);
        assert_eq!(s.total, *c);
        let table = render_table(&s);
        assert!(table.contains("unknown opcodes: none"), "{table}");
        assert!(
            table.contains("mix by unit: int 84.9%, branch 10.5%, mem 3.5%, sp 1.2%"),
            "{table}"
        );
    }

    #[test]
    #[ignore = "needs ../shared/real-traces"]
    fn real_matrixmul_and_my_app_summaries() {
        let s = sum("microgpusim-matrixmul-32-32");
        let c = &s.kernels[0].counts;
        // Shared-memory accesses (LDS/STS, 1344 of the 1440) do not count towards the footprint.
        assert_eq!(
            (
                c.warp_insts,
                c.thread_insts,
                c.mem_insts,
                c.bytes_accessed,
                c.footprint_lines
            ),
            (4416, 139264, 1440, 282624, 96)
        );
        let s = sum("accelsim-my_app");
        let c = &s.kernels[0].counts;
        assert_eq!(
            (
                c.warp_insts,
                c.thread_insts,
                c.mem_insts,
                c.bytes_accessed,
                c.footprint_lines
            ),
            (7260, 225280, 880, 450560, 3520)
        );
        let j = serde_json::to_value(&s).unwrap();
        assert_eq!(j["kernels"][0]["warp_insts"], 7260);
        assert_eq!(j["total"]["footprint_lines"], 3520);
    }

    #[test]
    fn sample_vecadd_summary_matches_hand_counts() {
        // sample-traces/text/vecadd-100: c[i] = a[i] + b[i] for 100 floats, one CTA of 128
        // threads: 4 warps x 16 lines. Warps 0-2 run every lane; warp 3 runs lanes 0-3 after the
        // bounds check (mask 0xf), and the early EXIT has mask 0 in every warp.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../sample-traces/text/vecadd-100");
        let s = sum_at(dir);
        assert_eq!((s.memcpy_count, s.memcpy_bytes), (2, 800));
        let k = &s.kernels[0];
        assert_eq!((k.ctas, k.warps_per_cta, k.binary_version), (1, 4, 80));
        let c = &k.counts;
        // 2 loads + 1 store per warp.
        assert_eq!((c.warp_insts, c.mem_insts), (64, 12));
        // 100 floats read twice and written once: 1200 bytes; each 400-byte array starts on a
        // 512-byte boundary and spans 4 lines of 128 B: 12 lines.
        assert_eq!((c.bytes_accessed, c.footprint_lines), (1200, 12));
        assert_eq!(c.unknown_insts, 0);
        assert_eq!(s.total, *c);
        assert!(render_table(&s).contains("unknown opcodes: none"));
    }

    #[test]
    fn unknown_opcodes_are_counted() {
        let text = "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-binary version = 70\n-accelsim tracer version = 4\n\n#traces format\n\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n0000 ffffffff 0 FROB.X 0 0\n0010 0000ffff 0 FROB.X 0 0\n0020 ffffffff 0 EXIT 0 0\n#END_TB\n";
        let files = vec![(
            "kernel-1.traceg".to_string(),
            std::sync::Arc::from(text.as_bytes()),
        )];
        // As `info` reads: unknown opcodes are described, not refused.
        let opts = OpenOptions {
            policy: check::Policy {
                unknown_opcodes: check::UnknownOpcodes::Warn,
                allow_partial: false,
                ..check::Policy::STRICT
            },
            ..Default::default()
        };
        let mut t = AccelSimTrace::from_files("t", files.clone(), opts).unwrap();
        let s = summarize(&mut t).unwrap();
        assert_eq!(s.total.unknown_insts, 2);
        assert_eq!(s.total.unknown_opcodes, map(&[("FROB.X", 2)]));
        assert_eq!(s.total.thread_insts, 32 + 16 + 32);
        assert!(render_table(&s).contains("unknown opcodes: 2 warp instructions (FROB.X x2)"));
        assert!(s.warnings.is_empty());
        // Strictly, the first unknown opcode is an error.
        let mut t = AccelSimTrace::from_files("t", files, OpenOptions::default()).unwrap();
        let e = summarize(&mut t).unwrap_err().to_string();
        assert!(
            e.starts_with("kernel-1.traceg:13: opcode: unknown opcode `FROB.X`"),
            "{e}"
        );
    }

    #[test]
    fn a_kernel_with_ctas_missing_is_described_with_a_warning_when_allowed() {
        let text = "-kernel name = k\n-grid dim = (3,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n\n#traces format\n\n#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 1\n0020 ffffffff 0 EXIT 0 0\n#END_TB\n";
        let files = vec![(
            "kernel-1.traceg".to_string(),
            std::sync::Arc::from(text.as_bytes()),
        )];
        let opts = OpenOptions {
            policy: check::Policy::LENIENT,
            ..Default::default()
        };
        let mut t = AccelSimTrace::from_files("t", files.clone(), opts).unwrap();
        let s = summarize(&mut t).unwrap();
        assert_eq!(s.kernels[0].ctas, 1);
        assert_eq!(
            s.warnings,
            ["kernel `k`: 2 of 3 CTAs missing from the trace (--allow-partial: the 1 present are used)"]
        );
        assert!(render_table(&s).contains("\nwarning: kernel `k`: 2 of 3 CTAs missing"));
        let mut t = AccelSimTrace::from_files("t", files, OpenOptions::default()).unwrap();
        let e = summarize(&mut t).unwrap_err().to_string();
        assert!(e.contains("2 of 3 CTAs are missing"), "{e}");
    }
}
