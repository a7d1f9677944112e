//! The launch spec: what to run a kernel on. TOML, read once and validated with errors that
//! name the key (`buffer[1].len`, `launch[0].args[2]`).
//!
//! ```toml
//! kernel = "vecadd"            # optional: the command line's --kernel names it otherwise
//! grid = 512                   # x, [x, y] or [x, y, z]
//! block = [128, 1, 1]
//! shared = 0                   # dynamic shared memory per CTA in bytes (default 0)
//! args = ["a", "b", "c", 65536]
//!
//! [[buffer]]                   # global buffers, laid out in this order
//! name = "a"
//! type = "f32"                 # u8 i8 u16 i16 u32 i32 u64 i64 f32 f64
//! len = 65536                  # elements
//! init = "iota"                # "zeros" (default) | "iota" | { fill = 1.5 }
//!                              # | { random = 7, min = 0, max = 1 } | { file = "a.bin" }
//! output = false               # written by --out-buffers, compared by --check
//! ```
//!
//! Arguments, in the kernel's parameter order: a string names a buffer (its device address is
//! passed), a bare integer is an `i32`, a bare real an `f32`, and a one-key table gives the
//! type: `{ u32 = 7 }`, `{ i64 = -1 }`, `{ u64 = 1 }`, `{ f32 = 2.0 }`, `{ f64 = 0.5 }`. Each
//! takes its natural alignment in the parameter block, as the CUDA ABI lays it out.
//!
//! `[[constant]]` tables (`bank`, `offset`, `type` with `values`, or `file`) give the bytes of
//! a user constant bank (`__constant__` data: `launch_values.rs`, LAUNCH.md).
//!
//! Several launches sharing the buffers, run in order: `[[launch]]` tables with the keys
//! `kernel`, `grid`, `block`, `shared`, `args` (a launch's missing key takes the top-level
//! one). `random` draws from [min, max) (defaults: [0, 1) for reals, [0, 1000) for
//! integers) with a fixed generator, so a seed gives the same data everywhere. `file` is raw
//! little-endian elements, relative to the spec's folder; without `len` the file's size gives
//! it. Buffers not all zero are copied to the device before the first launch (a host-to-device
//! copy in the trace, which warms the L2 as the hardware runs do).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::launch_values::{arg, constant, dim, init_table, FileConstant};
pub use super::launch_values::{initial_bytes, splitmix64, MAX_CONST_BANK};

use crate::trace::model::Dim3;
use crate::{Error, Result};

/// Element type of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

impl Elem {
    pub const NAMES: [(&'static str, Elem); 10] = [
        ("u8", Elem::U8),
        ("i8", Elem::I8),
        ("u16", Elem::U16),
        ("i16", Elem::I16),
        ("u32", Elem::U32),
        ("i32", Elem::I32),
        ("u64", Elem::U64),
        ("i64", Elem::I64),
        ("f32", Elem::F32),
        ("f64", Elem::F64),
    ];
    pub fn bytes(self) -> usize {
        match self {
            Elem::U8 | Elem::I8 => 1,
            Elem::U16 | Elem::I16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::I64 | Elem::F64 => 8,
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F64)
    }
    pub fn name(self) -> &'static str {
        Elem::NAMES
            .iter()
            .find(|(_, e)| *e == self)
            .map_or("?", |(n, _)| n)
    }
    /// Little-endian bytes of `v` (integers from their `i128` value, reals rounded).
    pub fn encode(self, v: f64, int: i128, out: &mut Vec<u8>) {
        match self {
            Elem::U8 | Elem::I8 => out.push(int as u8),
            Elem::U16 | Elem::I16 => out.extend_from_slice(&(int as u16).to_le_bytes()),
            Elem::U32 | Elem::I32 => out.extend_from_slice(&(int as u32).to_le_bytes()),
            Elem::U64 | Elem::I64 => out.extend_from_slice(&(int as u64).to_le_bytes()),
            Elem::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
            Elem::F64 => out.extend_from_slice(&v.to_le_bytes()),
        }
    }
}

/// How a buffer starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Zeros,
    Iota,
    Fill(f64),
    Random {
        seed: u64,
        min: f64,
        max: f64,
    },
    File(PathBuf),
    /// Given bytes (the library's callers: tests, the browser).
    Bytes(Vec<u8>),
}

/// One global buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferDef {
    pub name: String,
    pub elem: Elem,
    pub len: u64,
    pub init: Init,
    pub output: bool,
}

/// One kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// The device address of buffer `i`.
    Buffer(usize),
    /// A scalar's little-endian bytes (its size is its alignment).
    Scalar(Vec<u8>),
}

/// One kernel launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub kernel: String,
    pub grid: Dim3,
    pub block: Dim3,
    pub shared: u32,
    pub args: Vec<Arg>,
    /// Launched again and again until a flag buffer reads zero.
    pub repeat: Option<Repeat>,
}

/// A launch repeated until its flag buffer is all zeros after a launch (`until_zero`).
#[derive(Clone, Debug, PartialEq)]
pub struct Repeat {
    /// The flag buffer.
    pub until_zero: usize,
    /// Most launches; reaching it with the flag still set is an error.
    pub max_iterations: u32,
    /// Pairs of buffers that trade contents before the next launch.
    pub swap: Vec<(usize, usize)>,
    /// Buffers cleared before the next launch (after the swaps).
    pub zero: Vec<usize>,
    /// The spec file, for errors.
    pub file: String,
    /// `launch[i]`, for errors.
    pub key: String,
}

/// Bytes of a user constant bank (`__constant__` data) the spec gives.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstDef {
    /// The bank (3: where nvcc places `__constant__` variables).
    pub bank: u8,
    /// Where in the bank the bytes start.
    pub offset: u32,
    pub bytes: Vec<u8>,
}

/// A validated launch spec.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchSpec {
    pub buffers: Vec<BufferDef>,
    pub launches: Vec<Launch>,
    /// Constant bank contents, written over what the program brings, in order.
    pub constants: Vec<ConstDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    kernel: Option<String>,
    grid: Option<toml::Value>,
    block: Option<toml::Value>,
    shared: Option<u32>,
    args: Option<Vec<toml::Value>>,
    #[serde(default)]
    buffer: Vec<FileBuffer>,
    #[serde(default)]
    launch: Vec<FileLaunch>,
    #[serde(default)]
    constant: Vec<FileConstant>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileBuffer {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    len: Option<u64>,
    init: Option<toml::Value>,
    #[serde(default)]
    output: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileLaunch {
    kernel: Option<String>,
    grid: Option<toml::Value>,
    block: Option<toml::Value>,
    shared: Option<u32>,
    args: Option<Vec<toml::Value>>,
    until_zero: Option<String>,
    max_iterations: Option<u32>,
    #[serde(default)]
    swap: Vec<String>,
    #[serde(default)]
    zero: Vec<String>,
}

/// Most bytes one buffer may hold (4 GiB).
pub const MAX_BUFFER_BYTES: u64 = 1 << 32;

impl LaunchSpec {
    /// Reads a spec file; `file` inits are relative to its folder.
    pub fn load(path: &Path, kernel: Option<&str>) -> Result<LaunchSpec> {
        let text =
            std::fs::read_to_string(path).map_err(|e| Error::io(path.display().to_string(), e))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        LaunchSpec::parse(&text, &path.display().to_string(), dir, kernel)
    }

    /// Parses spec text named `file` in errors; `kernel` is the launch's kernel when the spec
    /// names none.
    pub fn parse(text: &str, file: &str, dir: &Path, kernel: Option<&str>) -> Result<LaunchSpec> {
        let f: FileSpec = toml::from_str(text).map_err(|e| {
            Error::parse(
                file,
                0,
                "launch spec",
                e.to_string().trim_end().replace('\n', " "),
            )
        })?;
        let mut buffers = Vec::new();
        for (i, b) in f.buffer.iter().enumerate() {
            buffers.push(
                buffer(b, dir).map_err(|(k, m)| key_error(file, &format!("buffer[{i}].{k}"), m))?,
            );
            if buffers[..i].iter().any(|x: &BufferDef| x.name == b.name) {
                return Err(key_error(
                    file,
                    &format!("buffer[{i}].name"),
                    format!("\"{}\" is named twice", b.name),
                ));
            }
        }
        let top = FileLaunch {
            kernel: f.kernel.clone(),
            grid: f.grid.clone(),
            block: f.block.clone(),
            shared: f.shared,
            args: f.args.clone(),
            until_zero: None,
            max_iterations: None,
            swap: Vec::new(),
            zero: Vec::new(),
        };
        let mut launches = Vec::new();
        if f.launch.is_empty() {
            launches.push(
                launch(&top, &top, kernel, &buffers).map_err(|(k, m)| key_error(file, &k, m))?,
            );
        } else {
            for (i, l) in f.launch.iter().enumerate() {
                let at = |(k, m): KeyErr| key_error(file, &format!("launch[{i}].{k}"), m);
                let mut la = launch(l, &top, kernel, &buffers).map_err(at)?;
                la.repeat = repeat(l, &buffers, file, &format!("launch[{i}]")).map_err(at)?;
                launches.push(la);
            }
        }
        let mut constants = Vec::new();
        for (i, c) in f.constant.iter().enumerate() {
            constants.push(
                constant(c, dir)
                    .map_err(|(k, m)| key_error(file, &format!("constant[{i}].{k}"), m))?,
            );
        }
        Ok(LaunchSpec {
            buffers,
            launches,
            constants,
        })
    }
}

pub(super) type KeyErr = (String, String);

/// An error in a launch spec's key: `FILE: key `KEY`: message`, the file first and the key as
/// the spec spells it (`buffer[1].len`, `launch[0].args[2]`).
pub fn key_error(file: &str, key: &str, msg: impl Into<String>) -> Error {
    Error::parse(file, 0, format!("key `{key}`"), msg)
}

fn buffer(b: &FileBuffer, dir: &Path) -> std::result::Result<BufferDef, KeyErr> {
    let err = |k: &str, m: String| (k.to_string(), m);
    let elem = Elem::NAMES
        .iter()
        .find(|(n, _)| *n == b.ty)
        .map(|(_, e)| *e)
        .ok_or_else(|| {
            let names: Vec<&str> = Elem::NAMES.iter().map(|(n, _)| *n).collect();
            err(
                "type",
                format!("\"{}\": expected one of {}", b.ty, names.join(", ")),
            )
        })?;
    if b.name.is_empty()
        || !b
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(err(
            "name",
            format!("\"{}\": expected letters, digits, _ or -", b.name),
        ));
    }
    let init = match &b.init {
        None => Init::Zeros,
        Some(toml::Value::String(s)) => match s.as_str() {
            "zeros" => Init::Zeros,
            "iota" => Init::Iota,
            _ => return Err(err("init", format!("\"{s}\": expected \"zeros\", \"iota\" or a table {{ fill | random | file = ... }}"))),
        },
        Some(toml::Value::Table(t)) => init_table(t, elem, dir).map_err(|m| err("init", m))?,
        Some(v) => return Err(err("init", format!("{v}: expected a string or a table"))),
    };
    let file_size = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.len())
            .map_err(|e| err("init", format!("{}: {e}", p.display())))
    };
    let len = match (b.len, &init) {
        (Some(n), Init::File(p)) => {
            let size = file_size(p)?;
            if size != n.saturating_mul(elem.bytes() as u64) {
                return Err(err(
                    "init",
                    format!(
                        "{}: {size} bytes, expected {} ({n} {} elements)",
                        p.display(),
                        n.saturating_mul(elem.bytes() as u64),
                        elem.name()
                    ),
                ));
            }
            n
        }
        (Some(n), _) => n,
        (None, Init::File(p)) => file_size(p)? / elem.bytes() as u64,
        (None, _) => return Err(err("len", "missing: the number of elements".to_string())),
    };
    if len == 0 || len.saturating_mul(elem.bytes() as u64) > MAX_BUFFER_BYTES {
        return Err(err(
            "len",
            format!(
                "{len}: expected 1 to {} elements",
                MAX_BUFFER_BYTES / elem.bytes() as u64
            ),
        ));
    }
    Ok(BufferDef {
        name: b.name.clone(),
        elem,
        len,
        init,
        output: b.output,
    })
}

fn launch(
    l: &FileLaunch,
    top: &FileLaunch,
    kernel: Option<&str>,
    buffers: &[BufferDef],
) -> std::result::Result<Launch, KeyErr> {
    let err = |k: &str, m: String| (k.to_string(), m);
    let kernel = l
        .kernel
        .clone()
        .or_else(|| top.kernel.clone())
        .or_else(|| kernel.map(str::to_string))
        .ok_or_else(|| {
            err(
                "kernel",
                "missing: name the kernel here or with --kernel".into(),
            )
        })?;
    let grid = l
        .grid
        .as_ref()
        .or(top.grid.as_ref())
        .ok_or_else(|| err("grid", "missing".into()))?;
    let grid = dim(grid).map_err(|m| err("grid", m))?;
    let block = l
        .block
        .as_ref()
        .or(top.block.as_ref())
        .ok_or_else(|| err("block", "missing".into()))?;
    let block = dim(block).map_err(|m| err("block", m))?;
    if block.count() > 1024 {
        return Err(err(
            "block",
            format!("{} threads: at most 1024 per block", block.count()),
        ));
    }
    if grid.count() > 1 << 31 {
        return Err(err("grid", format!("{} blocks: too many", grid.count())));
    }
    let shared = l.shared.or(top.shared).unwrap_or(0);
    if shared > 227 * 1024 {
        return Err(err("shared", format!("{shared} bytes: at most 232448")));
    }
    let empty = Vec::new();
    let args = l.args.as_ref().or(top.args.as_ref()).unwrap_or(&empty);
    let mut out = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        out.push(arg(a, buffers).map_err(|m| err(&format!("args[{i}]"), m))?);
    }
    Ok(Launch {
        kernel,
        grid,
        block,
        shared,
        args: out,
        repeat: None,
    })
}

/// The repetition of a `[[launch]]` with `until_zero`.
fn repeat(
    l: &FileLaunch,
    buffers: &[BufferDef],
    file: &str,
    key: &str,
) -> std::result::Result<Option<Repeat>, KeyErr> {
    let err = |k: &str, m: String| (k.to_string(), m);
    let find = |k: &str, name: &str| {
        buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| err(k, format!("\"{name}\" is not a buffer")))
    };
    let Some(flag) = &l.until_zero else {
        for (k, set) in [
            ("max_iterations", l.max_iterations.is_some()),
            ("swap", !l.swap.is_empty()),
            ("zero", !l.zero.is_empty()),
        ] {
            if set {
                return Err(err(k, "only with until_zero (a repeated launch)".into()));
            }
        }
        return Ok(None);
    };
    let until_zero = find("until_zero", flag)?;
    let max_iterations = l.max_iterations.ok_or_else(|| {
        err(
            "max_iterations",
            "missing: the most launches of a repeated launch".into(),
        )
    })?;
    if max_iterations == 0 {
        return Err(err("max_iterations", "0: expected at least 1".into()));
    }
    if !l.swap.len().is_multiple_of(2) {
        return Err(err(
            "swap",
            format!("{} names: expected pairs of buffers", l.swap.len()),
        ));
    }
    let mut swap = Vec::new();
    for (i, p) in l.swap.chunks(2).enumerate() {
        let (a, b) = (
            find(&format!("swap[{}]", 2 * i), &p[0])?,
            find(&format!("swap[{}]", 2 * i + 1), &p[1])?,
        );
        if buffers[a].len * buffers[a].elem.bytes() as u64
            != buffers[b].len * buffers[b].elem.bytes() as u64
        {
            return Err(err(
                &format!("swap[{}]", 2 * i),
                format!("\"{}\" and \"{}\" differ in size", p[0], p[1]),
            ));
        }
        swap.push((a, b));
    }
    let mut zero = Vec::new();
    for (i, n) in l.zero.iter().enumerate() {
        zero.push(find(&format!("zero[{i}]"), n)?);
    }
    Ok(Some(Repeat {
        until_zero,
        max_iterations,
        swap,
        zero,
        file: file.to_string(),
        key: key.to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(t: &str) -> Result<LaunchSpec> {
        LaunchSpec::parse(t, "spec.toml", Path::new("."), Some("k"))
    }

    #[test]
    fn a_spec_reads_and_bad_keys_are_named() {
        let s = parse(
            r#"grid = [4, 2]
block = 128
args = ["a", 7, { f32 = 2.5 }, { u64 = 9 }]
[[buffer]]
name = "a"
type = "f32"
len = 10
init = { random = 3 }
output = true
"#,
        )
        .unwrap();
        let l = &s.launches[0];
        assert_eq!(
            (l.kernel.as_str(), l.grid, l.block.x),
            ("k", Dim3::new(4, 2, 1), 128)
        );
        assert_eq!(l.args[0], Arg::Buffer(0));
        assert_eq!(l.args[1], Arg::Scalar(7i32.to_le_bytes().to_vec()));
        assert_eq!(l.args[3], Arg::Scalar(9u64.to_le_bytes().to_vec()));
        let bytes = initial_bytes(&s.buffers[0]).unwrap();
        assert_eq!(
            bytes,
            initial_bytes(&s.buffers[0]).unwrap(),
            "seeded: the same twice"
        );
        for (text, key) in [
            ("grid = 0\nblock = 1", "grid"),
            ("grid = 1\nblock = 2048", "block"),
            ("grid = 1\nblock = 1\nargs = [\"nope\"]", "args[0]"),
            (
                "grid = 1\nblock = 1\n[[buffer]]\nname = \"a\"\ntype = \"f17\"\nlen = 1",
                "buffer[0].type",
            ),
            (
                "grid = 1\nblock = 1\n[[buffer]]\nname = \"a\"\ntype = \"f32\"",
                "buffer[0].len",
            ),
            (
                "grid = 1\nblock = 1\n[[launch]]\ngrid = [0]",
                "launch[0].grid",
            ),
            (
                "grid = 1\nblock = 1\nargs = [{ i32 = 5000000000 }]",
                "args[0]",
            ),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("spec.toml"), "{text}: {e}");
        }
        assert!(parse("grid = 1\nblock = 1\nbogus = 2")
            .unwrap_err()
            .to_string()
            .contains("bogus"));
    }

    #[test]
    fn errors_name_the_spec_file_then_the_key() {
        let e = LaunchSpec::parse("", "SPEC.toml", Path::new("."), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "SPEC.toml: key `kernel`: missing: name the kernel here or with --kernel"
        );
        for (text, want) in [
            ("", "spec.toml: key `grid`: missing"),
            ("grid = 1", "spec.toml: key `block`: missing"),
            (
                "grid = 1\nblock = 1\n[[buffer]]\nname = \"a\"\ntype = \"f32\"",
                "spec.toml: key `buffer[0].len`: missing: the number of elements",
            ),
            (
                "grid = 1\nblock = 1\n[[launch]]\nargs = [\"x\"]",
                "spec.toml: key `launch[0].args[0]`: \"x\": no buffer of that name",
            ),
            (
                "grid = 1\nblock = 1\n[[launch]]\nmax_iterations = 3",
                "spec.toml: key `launch[0].max_iterations`: only with until_zero (a repeated launch)",
            ),
        ] {
            assert_eq!(parse(text).unwrap_err().to_string(), want, "{text}");
        }
    }
}
