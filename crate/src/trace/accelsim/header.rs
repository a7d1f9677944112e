//! The kernel header of a `.traceg` / `.trace` file, and the line reader every Accel-Sim reader
//! shares.
//!
//! ```text
//!  -kernel name = _Z6vecAddIfEvPT_S1_S1_i        -grid dim = (1,1,1)     -block dim = (1024,1,1)
//!  -kernel id = 1   -shmem = 0   -nregs = 8   -binary version = 61   -cuda stream id = 0
//!  -shmem base_addr = 0x00007f2b5a000000   -local mem base_addr = 0x00007f2b58000000
//!  -nvbit version = 1.5.5   -accelsim tracer version = 4   -enable lineinfo = 0
//!  #traces format = ...      <- the first `#` line ends the header (as in Accel-Sim)
//! ```
//! Keys are the ones Accel-Sim's `trace_parser.cc` knows; any other `-key = value` is kept in
//! `KernelInfo::extra` and otherwise ignored.

use std::io::{BufRead, Read};

use crate::trace::check;
use crate::trace::io::Input;
use crate::trace::model::{Dim3, KernelInfo};
use crate::{Error, Result};

use super::lex::{dec_max, hex, show, trim, Ctx};

pub use crate::trace::check::MAX_BLOCK_THREADS;

/// The longest line of a trace file, line end excluded: real ones are under 1 KiB (a full
/// warp's 32 addresses of mode 0 take about 600 bytes).
pub const MAX_LINE: usize = 64 << 10;

/// The most lines in a row that carry nothing (empty, blank, or a `#` comment other than the
/// block markers): real traces have one or two between blocks. Past it the input is refused, so
/// a stream of newlines (a few MB compressed, gigabytes decompressed) ends in milliseconds.
pub const MAX_IDLE_LINES: u32 = 4096;

/// Reads a decompressed input line by line into one reused buffer.
pub struct Lines {
    input: Input,
    /// The current line without its line end.
    pub buf: Vec<u8>,
    /// 1-based number of the current line.
    pub line: u64,
    pub file: String,
    /// Lines in a row, up to this one, that carry nothing.
    idle: u32,
}

/// Whether a line carries nothing a reader uses: blank, or a comment that is no block marker.
fn idle(l: &[u8]) -> bool {
    match l.iter().position(|c| !c.is_ascii_whitespace()) {
        None => true,
        Some(i) => {
            let t = &l[i..];
            t[0] == b'#' && !t.starts_with(b"#BEGIN_TB") && !t.starts_with(b"#END_TB")
        }
    }
}

impl Lines {
    pub fn new(input: Input, file: impl Into<String>) -> Self {
        Lines {
            input,
            buf: Vec::with_capacity(256),
            line: 0,
            file: file.into(),
            idle: 0,
        }
    }

    /// Advances to the next line; `false` at end of input. A line longer than [`MAX_LINE`]
    /// is an error naming it, read no further; so is the line that makes more than
    /// [`MAX_IDLE_LINES`] in a row that carry nothing.
    #[inline]
    pub fn next_line(&mut self) -> Result<bool> {
        self.buf.clear();
        let n = (&mut self.input)
            .take(MAX_LINE as u64 + 2)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| {
                Error::parse(
                    &self.file,
                    self.line + 1,
                    "input",
                    format!("read failed: {e}"),
                )
            })?;
        if n == 0 {
            return Ok(false);
        }
        let cut = n == MAX_LINE + 2 && self.buf.last() != Some(&b'\n');
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        if cut || self.buf.len() > MAX_LINE {
            self.buf.clear();
            return Err(Error::parse(
                &self.file,
                self.line + 1,
                "line",
                format!(
                    "longer than {MAX_LINE} bytes: no trace line is that long (a corrupt \
                     file, or not a trace)"
                ),
            ));
        }
        self.line += 1;
        if idle(&self.buf) {
            self.idle += 1;
            if self.idle > MAX_IDLE_LINES {
                return Err(Error::parse(
                    &self.file,
                    self.line,
                    "line",
                    format!(
                        "{} empty or comment lines in a row: no trace has that many (a corrupt \
                         file, or not a trace)",
                        self.idle
                    ),
                ));
            }
        } else {
            self.idle = 0;
        }
        Ok(true)
    }

    pub fn ctx(&self) -> Ctx<'_> {
        Ctx {
            file: &self.file,
            line: self.line,
        }
    }
}

/// How the header ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderEnd {
    /// A `#...` line (usually `#traces format`) was consumed.
    Comment,
    /// The `#BEGIN_TB` of the first thread block was consumed.
    BeginTb,
    /// The input ended.
    Eof,
}

fn text(v: &[u8], ctx: &Ctx, field: &str) -> Result<String> {
    std::str::from_utf8(v)
        .map(str::to_string)
        .map_err(|_| ctx.err(field, "not valid UTF-8"))
}

fn num32(v: &[u8], ctx: &Ctx, field: &str) -> Result<u32> {
    Ok(dec_max(v, ctx, field, u32::MAX as u64)? as u32)
}

/// `(x,y,z)`.
fn dim3(v: &[u8], ctx: &Ctx, field: &str) -> Result<Dim3> {
    let bad = || ctx.err(field, format!("expected (x,y,z), found {}", show(v)));
    let inner = v
        .strip_prefix(b"(")
        .and_then(|s| s.strip_suffix(b")"))
        .ok_or_else(bad)?;
    let mut parts = inner.split(|&c| c == b',');
    let mut next = || -> Result<u32> {
        let p = parts.next().ok_or_else(bad)?;
        num32(trim(p), ctx, field)
    };
    let d = Dim3::new(next()?, next()?, next()?);
    if parts.next().is_some() {
        return Err(bad());
    }
    Ok(d)
}

/// Parses one `-key = value` line into `k`.
pub fn parse_header_line(line: &[u8], ctx: &Ctx, k: &mut KernelInfo) -> Result<()> {
    let body = &line[1..];
    let eq = body.iter().position(|&c| c == b'=').ok_or_else(|| {
        ctx.err(
            "header",
            format!("expected `-key = value`, found {}", show(line)),
        )
    })?;
    let key = trim(&body[..eq]);
    let val = trim(&body[eq + 1..]);
    match key {
        b"kernel name" => k.name = text(val, ctx, "kernel name")?,
        b"kernel id" => k.id = num32(val, ctx, "kernel id")?,
        b"grid dim" => k.grid = dim3(val, ctx, "grid dim")?,
        b"block dim" => k.block = dim3(val, ctx, "block dim")?,
        b"shmem" => k.shmem_bytes = num32(val, ctx, "shmem")?,
        b"nregs" => k.nregs = num32(val, ctx, "nregs")?,
        b"binary version" => k.binary_version = num32(val, ctx, "binary version")?,
        b"cuda stream id" => k.stream_id = dec_max(val, ctx, "cuda stream id", u64::MAX)?,
        b"shmem base_addr" => k.shmem_base = hex(val, ctx, "shmem base_addr")?,
        b"local mem base_addr" => k.local_base = hex(val, ctx, "local mem base_addr")?,
        b"nvbit version" => k.nvbit_version = text(val, ctx, "nvbit version")?,
        b"accelsim tracer version" => {
            k.tracer_version = num32(val, ctx, "accelsim tracer version")?;
            check::tracer_version(k.tracer_version)
                .map_err(|m| ctx.err("accelsim tracer version", m))?;
        }
        b"enable lineinfo" => k.lineinfo = num32(val, ctx, "enable lineinfo")? != 0,
        _ => k.extra.push((
            text(key, ctx, "header key")?,
            text(val, ctx, "header value")?,
        )),
    }
    Ok(())
}

/// The most bytes of `-key = value` lines a kernel header may hold: real headers are under
/// 1 KiB (a long C++ kernel name a few KiB). A larger one is refused at the line that passes it.
pub const MAX_HEADER_BYTES: usize = 1 << 20;

/// Reads the header up to and including the first `#` line.
pub fn read_header(lines: &mut Lines) -> Result<(KernelInfo, HeaderEnd)> {
    let mut k = KernelInfo::default();
    let mut grid_line = 0;
    let mut block_line = 0;
    let mut bytes = 0usize;
    let end = loop {
        if !lines.next_line()? {
            break HeaderEnd::Eof;
        }
        let l = trim(&lines.buf);
        let ctx = Ctx {
            file: &lines.file,
            line: lines.line,
        };
        bytes += l.len();
        if bytes > MAX_HEADER_BYTES {
            return Err(ctx.err(
                "header",
                format!(
                    "more than {MAX_HEADER_BYTES} bytes of header: no kernel header is that \
                     long (a corrupt file, or not a trace)"
                ),
            ));
        }
        match l.first() {
            None => continue,
            Some(b'#') => {
                break if l.starts_with(b"#BEGIN_TB") {
                    HeaderEnd::BeginTb
                } else {
                    HeaderEnd::Comment
                };
            }
            Some(b'-') => {
                if l.starts_with(b"-grid dim") {
                    grid_line = lines.line;
                } else if l.starts_with(b"-block dim") {
                    block_line = lines.line;
                }
                parse_header_line(l, &ctx, &mut k)?;
            }
            Some(_) => {
                return Err(ctx.err(
                    "header",
                    format!(
                        "expected `-key = value` or `#traces format`, found {}",
                        show(l)
                    ),
                ))
            }
        }
    };
    let file = &lines.file;
    check::grid(k.grid).map_err(|m| {
        let m = if grid_line == 0 {
            format!("missing: {m}")
        } else {
            m
        };
        Error::parse(file, grid_line, "grid dim", m)
    })?;
    check::block(k.block).map_err(|m| Error::parse(file, block_line, "block dim", m))?;
    Ok((k, end))
}
