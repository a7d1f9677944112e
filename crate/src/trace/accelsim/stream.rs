//! Decoding a post-processed `.traceg` kernel one thread block at a time.
//!
//! ```text
//!  #BEGIN_TB
//!  thread block = 0,0,0          (cluster id / cluster cta / cluster rank lines are skipped)
//!  warp = 0
//!  insts = 23
//!  <23 instruction lines>
//!  warp = 1 ...
//!  #END_TB
//! ```
//! Every warp of the block is present in the decoded CTA (warps the file does not list are
//! empty); `insts = N` must match the number of lines that follow. Blocks and warps are checked
//! as every reader checks them (`trace::check`): inside the grid and the block, each once, and
//! at the end of the file every block of the grid there (or, with `allow_partial`, reported by
//! whoever simulates the kernel).

use crate::trace::check::{self, KernelCheck, Policy};
use crate::trace::io::Input;
use crate::trace::model::{CtaTrace, Dim3, KernelInfo, KernelStream, OpTable, WarpTrace};
use crate::trace::opcodes::Arch;
use crate::Result;

use super::header::{read_header, HeaderEnd, Lines};
use super::inst::{parse_inst, LineFormat, OpCache};
use super::lex::{dec_max, show, trim, Ctx, Toks};

/// A `.traceg` kernel being read.
pub struct TracegStream {
    lines: Lines,
    info: KernelInfo,
    fmt: LineFormat,
    ops: OpTable,
    cache: OpCache,
    check: KernelCheck,
    policy: Policy,
    /// `#BEGIN_TB` already consumed by the header reader.
    pending_begin: bool,
    done: bool,
}

impl TracegStream {
    /// Reads the header of `input` and prepares to decode its thread blocks. `default_arch`
    /// classifies opcodes when the header's binary version is 0 or unknown.
    pub fn open(input: Input, file: &str, default_arch: Arch) -> Result<Self> {
        Self::open_with(input, file, default_arch, Policy::STRICT)
    }

    /// [`TracegStream::open`] with `policy` for unknown opcodes and missing blocks.
    pub fn open_with(input: Input, file: &str, default_arch: Arch, policy: Policy) -> Result<Self> {
        let mut lines = Lines::new(input, file);
        let (info, end) = read_header(&mut lines)?;
        let arch = Arch::resolve(info.binary_version, default_arch);
        Ok(TracegStream {
            fmt: LineFormat::for_version(info.tracer_version, info.lineinfo),
            check: KernelCheck::new(&info),
            policy,
            info,
            ops: OpTable::new(),
            cache: OpCache::with_policy(arch, policy),
            pending_begin: end == HeaderEnd::BeginTb,
            // (A file that ends after its header reads its end again: no block, checked then.)
            done: false,
            lines,
        })
    }

    fn read_cta(&mut self) -> Result<CtaTrace> {
        let warps = self.info.warps_per_cta();
        let mut cta = CtaTrace {
            id: Dim3::default(),
            warps: (0..warps)
                .map(|w| WarpTrace {
                    warp_id: w,
                    ..Default::default()
                })
                .collect(),
        };
        let mut seen_id = false;
        let mut seen_warp = vec![false; warps as usize];
        // (warp index, expected instructions, line of `insts =`)
        let mut cur: Option<(usize, u64, u64)> = None;
        let mut have_insts = false;
        // Instructions the block's `insts =` lines declare, and the lines and addresses read:
        // both inside the policy's bound (`check::cta_insts`).
        let (mut declared, mut lines, mut addrs) = (0u64, 0u64, 0u64);
        loop {
            if !self.lines.next_line()? {
                return Err(self.lines.ctx().err(
                    "#END_TB",
                    "the file ends inside a thread block (truncated?)",
                ));
            }
            let Lines {
                buf, file, line, ..
            } = &self.lines;
            let ctx = Ctx { file, line: *line };
            let l = trim(buf);
            if l.is_empty() {
                continue;
            }
            if l.starts_with(b"#END_TB") {
                finish_warp(&cta, cur, &ctx)?;
                if !seen_id {
                    return Err(ctx.err(
                        "thread block",
                        "missing `thread block = x,y,z` in this block",
                    ));
                }
                super::local::lay_out(&mut cta, self.info.grid, &self.ops);
                return Ok(cta);
            } else if l.starts_with(b"#BEGIN_TB") {
                return Err(ctx.err(
                    "#BEGIN_TB",
                    "a thread block starts before the previous one ends",
                ));
            } else if let Some(v) = key_value(l, b"thread block") {
                if seen_id {
                    return Err(ctx.err("thread block", "a second `thread block =` in this block"));
                }
                cta.id = parse_cta_id(v, &ctx, self.info.grid)?;
                self.check
                    .cta_id(cta.id)
                    .map_err(|m| ctx.err("thread block", m))?;
                seen_id = true;
            } else if l.starts_with(b"cluster ") {
                // Hopper post-processing: cluster id / cluster cta / cluster rank. Not modelled.
            } else if let Some(v) = key_value(l, b"warp") {
                finish_warp(&cta, cur, &ctx)?;
                let w = dec_max(v, &ctx, "warp", u32::MAX as u64)? as u32;
                check::warp_id(cta.id, w, warps).map_err(|m| ctx.err("warp", m))?;
                if seen_warp[w as usize] {
                    return Err(ctx.err("warp", check::warp_twice(cta.id, w)));
                }
                seen_warp[w as usize] = true;
                cur = Some((w as usize, 0, 0));
                have_insts = false;
            } else if let Some(v) = key_value(l, b"insts") {
                let Some((w, _, _)) = cur else {
                    return Err(ctx.err("insts", "`insts =` before any `warp =`"));
                };
                let n = dec_max(v, &ctx, "insts", u32::MAX as u64)?;
                declared = declared.saturating_add(n);
                check::cta_insts(cta.id, declared, self.policy).map_err(|m| ctx.err("insts", m))?;
                // Grown as lines come (a file that lies about its count is refused when its
                // warp ends): the bound then caps what a refused file made the reader take.
                cta.warps[w].insts.reserve(n.min(1 << 12) as usize);
                cur = Some((w, n, *line));
                have_insts = true;
            } else {
                let Some((w, n, _)) = cur else {
                    return Err(ctx.err(
                        "warp",
                        format!("instruction line before any `warp =`: {}", show(l)),
                    ));
                };
                if !have_insts {
                    return Err(ctx.err("insts", "instruction line before `insts =`"));
                }
                let warp = &mut cta.warps[w];
                if warp.insts.len() as u64 >= n {
                    return Err(ctx.err(
                        "insts",
                        format!("more instruction lines than `insts = {n}` for warp {w}"),
                    ));
                }
                let mut toks = Toks::new(l);
                let before = warp.addrs.len();
                parse_inst(
                    &mut toks,
                    &self.fmt,
                    &ctx,
                    &mut self.ops,
                    &mut self.cache,
                    warp,
                )?;
                lines += 1;
                addrs += (warp.addrs.len() - before) as u64;
                check::cta_insts(cta.id, check::cta_held(lines, addrs), self.policy)
                    .map_err(|m| ctx.err("insts", m))?;
            }
        }
    }
}

/// Checks that the warp being read got as many lines as its `insts =` promised.
fn finish_warp(cta: &CtaTrace, cur: Option<(usize, u64, u64)>, ctx: &Ctx) -> Result<()> {
    if let Some((w, n, at)) = cur {
        let got = cta.warps[w].insts.len() as u64;
        if got != n {
            return Err(crate::Error::parse(
                ctx.file,
                at,
                "insts",
                format!("warp {w} promises {n} instructions but {got} lines follow (block ends at line {})", ctx.line),
            ));
        }
    }
    Ok(())
}

/// `key = value` -> value, when the line starts with `key` followed by spaces and `=`.
pub fn key_value<'a>(l: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let rest = l.strip_prefix(key)?;
    let rest = trim(rest);
    let v = rest.strip_prefix(b"=")?;
    Some(trim(v))
}

/// `x,y,z` inside the grid.
pub fn parse_cta_id(v: &[u8], ctx: &Ctx, grid: Dim3) -> Result<Dim3> {
    let bad = || ctx.err("thread block", format!("expected x,y,z, found {}", show(v)));
    let mut it = v.split(|&c| c == b',');
    let mut next = || -> Result<u32> {
        Ok(dec_max(
            trim(it.next().ok_or_else(bad)?),
            ctx,
            "thread block",
            u32::MAX as u64,
        )? as u32)
    };
    let id = Dim3::new(next()?, next()?, next()?);
    if it.next().is_some() {
        return Err(bad());
    }
    check::inside_grid(id, grid).map_err(|m| ctx.err("thread block", m))?;
    Ok(id)
}

impl KernelStream for TracegStream {
    fn info(&self) -> &KernelInfo {
        &self.info
    }
    fn ops(&self) -> &OpTable {
        &self.ops
    }
    fn next_cta(&mut self) -> Result<Option<CtaTrace>> {
        if self.done {
            return Ok(None);
        }
        if self.pending_begin {
            self.pending_begin = false;
            return self.read_cta().map(Some);
        }
        loop {
            if !self.lines.next_line()? {
                self.done = true;
                // Every block of the grid read (or, allowed, reported by the simulator).
                self.check
                    .end(self.policy)
                    .map_err(|m| self.lines.ctx().err("thread blocks", m))?;
                return Ok(None);
            }
            let l = trim(&self.lines.buf);
            if l.is_empty()
                || (l.starts_with(b"#")
                    && !l.starts_with(b"#BEGIN_TB")
                    && !l.starts_with(b"#END_TB"))
            {
                continue;
            }
            if l.starts_with(b"#BEGIN_TB") {
                return self.read_cta().map(Some).inspect_err(|_| self.done = true);
            }
            self.done = true;
            return Err(self.lines.ctx().err(
                "#BEGIN_TB",
                format!("expected `#BEGIN_TB`, found {}", show(l)),
            ));
        }
    }
}
