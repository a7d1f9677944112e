//! Raw tracer output (`kernel-N.trace`, as `tracer_tool.cu` writes it before post-processing):
//! the header, then one line per warp instruction in the order the GPU ran them, every line
//! prefixed with its thread block and warp:
//!
//! ```text
//!  cta_x cta_y cta_z warp [sm_id warp_in_sm] [cluster fields] <instruction as in .traceg>
//!  0 0 0 3 0098 ffffffff 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500000 4
//! ```
//! The prefix length is found from the first instruction line (4 normally, 6 with
//! `TOOL_TRACE_CORE`, 11 or 13 with the cluster fields of the Hopper tracer). Lines are grouped
//! into thread blocks (ordered by linear block id, as `post-traces-processing.cpp` does) and
//! warps. Of the two lines an `LDGSTS` produces, the first (the shared-memory side) is dropped,
//! also as the post-processor does. Grouping needs the whole kernel in memory: raw traces are
//! an intermediate form; convert them for large runs.

use std::collections::{HashMap, VecDeque};

use crate::trace::check::{self, Policy};
use crate::trace::io::Input;
use crate::trace::model::{CtaTrace, KernelInfo, KernelStream, OpTable, WarpTrace};
use crate::trace::opcodes::Arch;
use crate::Result;

use super::header::{read_header, Lines};
use super::inst::{parse_inst, LineFormat, OpCache};
use super::lex::{dec, dec_max, hex, show, trim, Ctx, Toks};

/// A raw kernel, grouped in memory and handed out block by block.
pub struct RawStream {
    info: KernelInfo,
    ops: OpTable,
    ctas: VecDeque<CtaTrace>,
}

/// A block being grouped: its linear id, the block, which warps drop their next LDGSTS line,
/// and the (instructions, addresses) it holds.
type Grouped = (u64, CtaTrace, Vec<bool>, (u64, u64));

/// The prefix lengths we try, in order.
const PREFIXES: [usize; 4] = [4, 6, 11, 13];

/// Finds the prefix length from the first instruction line: the PC and the 8-digit mask must
/// follow it.
fn detect_prefix(l: &[u8], lineinfo: bool) -> Option<usize> {
    let toks: Vec<&[u8]> = l
        .split(|c| *c == b' ' || *c == b'\t')
        .filter(|t| !t.is_empty())
        .take(20)
        .collect();
    let c = Ctx { file: "", line: 0 };
    PREFIXES.into_iter().find(|&k| {
        let pc_at = k + lineinfo as usize;
        toks.len() > pc_at + 2
            && toks[..k].iter().all(|t| dec(t, &c, "").is_ok())
            && hex(toks[pc_at], &c, "").is_ok()
            && toks[pc_at + 1].len() == 8
            && hex(toks[pc_at + 1], &c, "").is_ok()
            && dec(toks[pc_at + 2], &c, "").is_ok()
    })
}

impl RawStream {
    pub fn open(input: Input, file: &str, default_arch: Arch) -> Result<Self> {
        Self::open_with(input, file, default_arch, Policy::STRICT)
    }

    /// [`RawStream::open`] with `policy` for unknown opcodes and missing blocks (the lines of
    /// one block are grouped, so a block cannot appear twice; one that has no line is missing).
    pub fn open_with(input: Input, file: &str, default_arch: Arch, policy: Policy) -> Result<Self> {
        let mut lines = Lines::new(input, file);
        let (info, _) = read_header(&mut lines)?;
        let arch = Arch::resolve(info.binary_version, default_arch);
        // The raw layout never has the pre-version-3 prefix inside the instruction: the block
        // and warp prefix is handled here.
        let fmt = LineFormat {
            skip: 0,
            ..LineFormat::for_version(info.tracer_version.max(3), info.lineinfo)
        };
        let mut ops = OpTable::new();
        let mut cache = OpCache::with_policy(arch, policy);
        let warps = info.warps_per_cta();
        let mut index: HashMap<u64, usize> = HashMap::new();
        let mut ctas: Vec<Grouped> = Vec::new();
        let mut prefix: Option<usize> = None;
        while lines.next_line()? {
            let Lines {
                buf, file, line, ..
            } = &lines;
            let ctx = Ctx { file, line: *line };
            let l = trim(buf);
            if l.is_empty() || l[0] == b'#' {
                continue;
            }
            if l[0] == b'-' {
                return Err(ctx.err("header", "header line after the instructions began"));
            }
            let k = match prefix {
                Some(k) => k,
                None => {
                    let k = detect_prefix(l, info.lineinfo).ok_or_else(|| {
                        ctx.err(
                            "thread block / warp prefix",
                            format!(
                                "cannot find `cta_x cta_y cta_z warp PC mask` in {}",
                                show(l)
                            ),
                        )
                    })?;
                    prefix = Some(k);
                    k
                }
            };
            let mut toks = Toks::new(l);
            let mut field = |name: &str, max: u64| -> Result<u64> {
                dec_max(toks.req(&ctx, name)?, &ctx, name, max)
            };
            let x = field("cta_x", info.grid.x as u64 - 1)? as u32;
            let y = field("cta_y", info.grid.y as u64 - 1)? as u32;
            let z = field("cta_z", info.grid.z as u64 - 1)? as u32;
            let w = field("warpid_tb", warps as u64 - 1)? as usize;
            for _ in 4..k {
                field("prefix", u64::MAX)?;
            }
            let id = crate::trace::model::Dim3::new(x, y, z);
            let lin = info.grid.linear(id);
            let slot = *index.entry(lin).or_insert_with(|| {
                let warps_v = (0..warps)
                    .map(|i| WarpTrace {
                        warp_id: i,
                        ..Default::default()
                    })
                    .collect();
                ctas.push((
                    lin,
                    CtaTrace { id, warps: warps_v },
                    vec![true; warps as usize],
                    (0, 0),
                ));
                ctas.len() - 1
            });
            let (_, cta, ldgsts_drop, held) = &mut ctas[slot];
            let warp = &mut cta.warps[w];
            let before = warp.insts.len();
            let addrs_before = warp.addrs.len();
            parse_inst(&mut toks, &fmt, &ctx, &mut ops, &mut cache, warp)?;
            let op = warp.insts[before].op;
            if ops.get(op).name.contains("LDGSTS") {
                // Drop the first line of each pair (post-traces-processing.cpp).
                if ldgsts_drop[w] {
                    warp.insts.truncate(before);
                    warp.addrs.truncate(addrs_before);
                }
                ldgsts_drop[w] = !ldgsts_drop[w];
            }
            // The bound on a block's instructions, as the post-processed reader applies it.
            let added = (warp.insts.len() - before, warp.addrs.len() - addrs_before);
            *held = (held.0 + added.0 as u64, held.1 + added.1 as u64);
            check::cta_insts(id, check::cta_held(held.0, held.1), policy)
                .map_err(|m| ctx.err("instruction", m))?;
        }
        check::missing(&info.name, ctas.len() as u64, info.grid.count(), policy)
            .map_err(|m| lines.ctx().err("thread blocks", m))?;
        ctas.sort_by_key(|(lin, ..)| *lin);
        for (_, c, ..) in &mut ctas {
            super::local::lay_out(c, info.grid, &ops);
        }
        Ok(RawStream {
            info,
            ops,
            ctas: ctas.into_iter().map(|(_, c, ..)| c).collect(),
        })
    }
}

impl KernelStream for RawStream {
    fn info(&self) -> &KernelInfo {
        &self.info
    }
    fn ops(&self) -> &OpTable {
        &self.ops
    }
    fn next_cta(&mut self) -> Result<Option<CtaTrace>> {
        Ok(self.ctas.pop_front())
    }
}
