//! [`AccelSimTrace`]: an Accel-Sim trace as a [`TraceSource`]: a folder with `kernelslist.g`
//! (or the raw tracer's `kernelslist`), a kernels-list path, a single kernel file, or a set of
//! in-memory files (the browser's upload).
//!
//! ```text
//!  kernelslist.g:  MemcpyHtoD,0x00007f2b2d500000,400   -> Command::MemcpyHtoD
//!                  kernel-1.traceg                       -> Command::Kernel { index: 0 }
//!                  kernel-593-ctx_0x55c28dad19e0.traceg  (newer name form; .xz/.gz/.zst too)
//!                  blank, `#...`, MemcpyDtoH,...         -> skipped (as Accel-Sim does)
//!                  kernel-d/../x, /abs, anything else    -> an error naming the line
//!                  (a copy no GPU could take, a `kernel...` line that is no kernel file too)
//! ```
//! Opening reads every kernel's header (not its body); `open_kernel` re-opens the file and
//! streams it CTA by CTA. The hash covers the bytes of every file, computed on first request.

use std::io::Read;
use std::sync::{Arc, OnceLock};

use crate::trace::check::{self, Policy};
use crate::trace::io::{self, strip_compression_suffix};
use crate::trace::model::{Command, Fnv64, KernelInfo, KernelStream, TraceSource};
use crate::trace::opcodes::Arch;
use crate::{Error, Result};

use super::header::{read_header, Lines};
use super::lex::{dec, hex, show, trim, Ctx};
use super::raw::RawStream;
use super::stream::TracegStream;

/// Where the files of a trace come from.
pub trait FileStore: Send + Sync {
    /// Opens `name` (relative to the trace's folder) as raw, possibly compressed, bytes.
    fn open(&self, name: &str) -> Result<Box<dyn Read + Send>>;
    /// How to call `name` in messages (a path).
    fn display(&self, name: &str) -> String;
    /// Whether `name` exists in the store.
    fn exists(&self, name: &str) -> bool;
    /// The size of `name` in bytes, when the store knows it without reading.
    fn len(&self, _name: &str) -> Option<u64> {
        None
    }
    /// Refuses a kernel file `name` that resolves outside the trace (a link out of its folder).
    fn confined(&self, _name: &str) -> Result<()> {
        Ok(())
    }
}

/// The suffixes of the compressed forms a kernels list's file name may stand for.
const COMPRESSED_SUFFIXES: [&str; 3] = [".gz", ".zst", ".xz"];

/// The file a kernels list's `name` refers to: `name` itself when the store has it, else its
/// compressed form (`name.gz`, `.zst` or `.xz`, the first found), as when a trace folder was
/// compressed file by file after tracing; `name` unchanged when neither exists (the open that
/// follows reports it).
fn resolve_kernel_file(store: &dyn FileStore, name: String) -> String {
    if store.exists(&name) {
        return name;
    }
    COMPRESSED_SUFFIXES
        .iter()
        .map(|s| format!("{name}{s}"))
        .find(|n| store.exists(n))
        .unwrap_or(name)
}

/// Files in memory (uploads, tests, fuzzing).
#[derive(Clone, Default)]
pub struct MemStore {
    pub files: Vec<(String, Arc<[u8]>)>,
}

impl FileStore for MemStore {
    fn open(&self, name: &str) -> Result<Box<dyn Read + Send>> {
        let (_, b) =
            self.files.iter().find(|(n, _)| n == name).ok_or_else(|| {
                Error::other(format!("{name}: no such file in the uploaded trace"))
            })?;
        Ok(Box::new(std::io::Cursor::new(ArcRead(b.clone()))))
    }
    fn display(&self, name: &str) -> String {
        name.to_string()
    }
    fn exists(&self, name: &str) -> bool {
        self.files.iter().any(|(n, _)| n == name)
    }
}

struct ArcRead(Arc<[u8]>);
impl AsRef<[u8]> for ArcRead {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Files in a folder on disk.
#[cfg(not(target_arch = "wasm32"))]
pub struct DirStore {
    pub dir: std::path::PathBuf,
}

#[cfg(not(target_arch = "wasm32"))]
impl FileStore for DirStore {
    fn open(&self, name: &str) -> Result<Box<dyn Read + Send>> {
        // Never a device or a FIFO, even linked from inside the folder.
        Ok(Box::new(crate::infile::open_regular(&self.dir.join(name))?))
    }
    fn display(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }
    fn exists(&self, name: &str) -> bool {
        self.dir.join(name).is_file()
    }
    fn len(&self, name: &str) -> Option<u64> {
        std::fs::metadata(self.dir.join(name)).ok().map(|m| m.len())
    }
    fn confined(&self, name: &str) -> Result<()> {
        let path = self.dir.join(name);
        let (Ok(real), Ok(root)) = (path.canonicalize(), self.dir.canonicalize()) else {
            // (A missing file is reported by the open that follows.)
            return Ok(());
        };
        // (A device or a FIFO is refused by the open as what it is.)
        if real.starts_with(&root) || !real.is_file() {
            return Ok(());
        }
        Err(Error::parse(
            self.display(name),
            0,
            "kernel file",
            format!(
                "resolves to {}, outside the trace folder {}; refused",
                real.display(),
                root.display()
            ),
        ))
    }
}

/// Options for opening a trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenOptions {
    /// Classifies opcodes of kernels whose `-binary version` is 0 or unknown.
    pub default_arch: Arch,
    /// Unknown opcodes and missing blocks: errors unless relaxed.
    pub policy: Policy,
}

/// One kernel file of the trace.
#[derive(Clone, Debug)]
pub struct KernelEntry {
    /// File name relative to the trace folder.
    pub file: String,
    pub info: KernelInfo,
    /// Raw tracer output (`.trace`) rather than post-processed (`.traceg`).
    pub raw: bool,
}

/// An Accel-Sim trace.
pub struct AccelSimTrace {
    name: String,
    store: Box<dyn FileStore>,
    list_file: Option<String>,
    commands: Vec<Command>,
    kernels: Vec<KernelEntry>,
    opts: OpenOptions,
    hash: OnceLock<String>,
}

/// True for names of kernel files we can read.
pub fn is_kernel_file(name: &str) -> bool {
    let base = strip_compression_suffix(name);
    base.ends_with(".traceg") || base.ends_with(".trace")
}

fn is_raw(name: &str) -> bool {
    strip_compression_suffix(name).ends_with(".trace")
}

/// Parses a kernels list: commands, and the kernel file names in order.
pub fn parse_kernelslist(text: &[u8], file: &str) -> Result<(Vec<Command>, Vec<String>)> {
    let mut cmds = Vec::new();
    let mut names = Vec::new();
    for (i, raw) in text.split(|&c| c == b'\n').enumerate() {
        let l = trim(raw);
        let ctx = Ctx {
            file,
            line: i as u64 + 1,
        };
        if l.starts_with(b"MemcpyHtoD") {
            let parts: Vec<&[u8]> = l.split(|&c| c == b',').collect();
            if parts.len() != 3 {
                return Err(ctx.err(
                    "MemcpyHtoD",
                    format!("expected MemcpyHtoD,<address>,<bytes>, found {}", show(l)),
                ));
            }
            let addr = hex(trim(parts[1]), &ctx, "MemcpyHtoD address")?;
            let bytes = dec(trim(parts[2]), &ctx, "MemcpyHtoD bytes")?;
            check::memcpy(addr, bytes).map_err(|m| ctx.err("MemcpyHtoD bytes", m))?;
            cmds.push(Command::MemcpyHtoD { addr, bytes });
        } else if l.starts_with(b"kernel") {
            // A path outside the folder is named as such before anything else.
            let name = kernel_file_name(l, &ctx)?;
            if !is_kernel_file(name) {
                return Err(not_a_command(l, &ctx));
            }
            cmds.push(Command::Kernel { index: names.len() });
            names.push(name.to_string());
        } else if !(l.is_empty() || is_other_copy(l) || l.starts_with(b"#")) {
            // Blank lines, comments and other copies (MemcpyDtoH,...) are skipped, as Accel-Sim
            // does; anything else is a mistake worth naming.
            return Err(not_a_command(l, &ctx));
        }
    }
    Ok((cmds, names))
}

/// The error of a kernels-list line that is neither a launch nor a copy.
fn not_a_command(l: &[u8], ctx: &Ctx) -> Error {
    ctx.err(
        "kernelslist line",
        format!(
            "expected a kernel file (kernel-<n>.traceg) or MemcpyHtoD,<address>,<bytes>, found {}",
            show(l)
        ),
    )
}

/// `Memcpy<Kind>,...` other than `MemcpyHtoD` (`MemcpyDtoH,0x...,64`): a copy the timing model
/// does not use.
fn is_other_copy(l: &[u8]) -> bool {
    let Some(rest) = l.strip_prefix(b"Memcpy") else {
        return false;
    };
    let kind = rest.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    kind > 0 && rest.get(kind) == Some(&b',')
}

/// The longest kernels list read (real ones are a few bytes per launch: 100 K launches are
/// about 3 MB).
pub const MAX_KERNELSLIST_BYTES: u64 = 64 << 20;

/// The longest kernel file name accepted (real ones are tens of bytes).
const MAX_KERNEL_NAME: usize = 1024;

/// A kernels-list line naming a kernel file: a relative path that stays inside the trace's
/// folder (no `..`, not absolute), so a list can never make the tool read other files.
fn kernel_file_name<'a>(l: &'a [u8], ctx: &Ctx) -> Result<&'a str> {
    if l.len() > MAX_KERNEL_NAME {
        return Err(ctx.err(
            "kernel file",
            format!(
                "a name of {} bytes (at most {MAX_KERNEL_NAME}): {}",
                l.len(),
                show(l)
            ),
        ));
    }
    let name = std::str::from_utf8(l).map_err(|_| ctx.err("kernel file", "not valid UTF-8"))?;
    let outside = name.starts_with('/')
        || name.starts_with('\\')
        || name.contains('\0')
        || name.split(['/', '\\']).any(|c| c == "..");
    if outside {
        return Err(ctx.err(
            "kernel file",
            format!(
                "{} is not inside the trace folder (absolute or with `..`); refused",
                show(l)
            ),
        ));
    }
    Ok(name)
}

/// At most `max` bytes of `r`, read a buffer at a time (never reserving what a size hint
/// claims: a sparse file of gigabytes costs one buffer).
fn read_at_most(r: impl Read, max: u64) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut r = r.take(max);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The kernel number in a file name like `kernel-12.traceg` or `kernel-593-ctx_0x55.traceg`.
fn kernel_number(name: &str) -> u64 {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.strip_prefix("kernel-")
        .map(|r| {
            r.chars()
                .take_while(|c| c.is_ascii_digit())
                .collect::<String>()
        })
        .and_then(|d| d.parse().ok())
        .unwrap_or(u64::MAX)
}

impl AccelSimTrace {
    /// Builds a trace from a store: `list` is the kernels-list file, or `None` with `kernels`
    /// naming the kernel files directly.
    pub fn from_store(
        name: impl Into<String>,
        store: Box<dyn FileStore>,
        list: Option<String>,
        kernels: Vec<String>,
        opts: OpenOptions,
    ) -> Result<Self> {
        let (commands, names) = match &list {
            Some(l) => {
                // A list larger than the bound is refused unread when its size is known.
                let known = store.len(l).filter(|&n| n > MAX_KERNELSLIST_BYTES);
                let bytes = match known {
                    Some(_) => Vec::new(),
                    None => read_at_most(store.open(l)?, MAX_KERNELSLIST_BYTES + 1)
                        .map_err(|e| Error::io(store.display(l), e))?,
                };
                if known.is_some() || bytes.len() as u64 > MAX_KERNELSLIST_BYTES {
                    return Err(Error::parse(
                        store.display(l),
                        0,
                        "file",
                        format!(
                            "larger than any kernels list (at most {MAX_KERNELSLIST_BYTES} bytes); refused"
                        ),
                    ));
                }
                parse_kernelslist(&bytes, &store.display(l))?
            }
            None => (
                (0..kernels.len())
                    .map(|index| Command::Kernel { index })
                    .collect(),
                kernels,
            ),
        };
        if names.is_empty() {
            let shown = list
                .as_deref()
                .map(|l| store.display(l))
                .unwrap_or_default();
            return Err(Error::parse(
                shown,
                0,
                "kernels",
                "no kernel launch found (expected lines naming kernel files such as kernel-1.traceg, \
                 or a compact .wwt trace)",
            ));
        }
        let mut entries: Vec<KernelEntry> = Vec::with_capacity(names.len());
        // A file listed again (one kernel launched many times) is opened once: its entry is
        // the first one's.
        let mut first: std::collections::HashMap<String, usize> = Default::default();
        for n in names {
            if let Some(&i) = first.get(&n) {
                entries.push(entries[i].clone());
                continue;
            }
            let listed = n.clone();
            let n = resolve_kernel_file(&*store, n);
            store.confined(&n)?;
            let shown = store.display(&n);
            let input = io::decompress(store.open(&n)?, &shown)?;
            let mut lines = Lines::new(input, shown);
            let (info, _) = read_header(&mut lines)?;
            first.insert(listed, entries.len());
            entries.push(KernelEntry {
                raw: is_raw(&n),
                file: n,
                info,
            });
        }
        Ok(AccelSimTrace {
            name: name.into(),
            store,
            list_file: list,
            commands,
            kernels: entries,
            opts,
            hash: OnceLock::new(),
        })
    }

    /// A trace from in-memory files (the browser's upload): uses `kernelslist.g` (or
    /// `kernelslist`) when present, else every kernel file ordered by kernel number.
    pub fn from_files(
        name: impl Into<String>,
        files: Vec<(String, Arc<[u8]>)>,
        opts: OpenOptions,
    ) -> Result<Self> {
        let list = ["kernelslist.g", "kernelslist"]
            .into_iter()
            .find(|l| files.iter().any(|(n, _)| n == l))
            .map(str::to_string);
        let mut kernels: Vec<String> = files
            .iter()
            .map(|(n, _)| n.clone())
            .filter(|n| is_kernel_file(n))
            .collect();
        kernels.sort_by_key(|n| (kernel_number(n), n.clone()));
        if list.is_none() && kernels.is_empty() {
            return Err(Error::other(
                "no kernelslist.g and no kernel-*.traceg file in the trace",
            ));
        }
        AccelSimTrace::from_store(name, Box::new(MemStore { files }), list, kernels, opts)
    }

    /// Opens a folder (with `kernelslist.g` or `kernelslist`), a kernels-list file, or a
    /// single kernel file (`.traceg`, `.trace`, optionally compressed).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open(path: impl AsRef<std::path::Path>, opts: OpenOptions) -> Result<Self> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let meta = std::fs::metadata(path).map_err(|e| Error::io(&shown, e))?;
        if meta.is_dir() {
            let list = ["kernelslist.g", "kernelslist"]
                .into_iter()
                .find(|l| path.join(l).is_file())
                .ok_or_else(|| {
                    Error::other(format!(
                        "{shown}: no kernelslist.g (or kernelslist) in this folder"
                    ))
                })?;
            let store = DirStore {
                dir: path.to_path_buf(),
            };
            return AccelSimTrace::from_store(
                shown,
                Box::new(store),
                Some(list.to_string()),
                Vec::new(),
                opts,
            );
        }
        let dir = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let store = Box::new(DirStore { dir });
        if is_kernel_file(&file) {
            AccelSimTrace::from_store(shown, store, None, vec![file], opts)
        } else {
            AccelSimTrace::from_store(shown, store, Some(file), Vec::new(), opts)
        }
    }

    pub fn kernels(&self) -> &[KernelEntry] {
        &self.kernels
    }

    /// The architecture whose opcode table kernel `k` uses.
    pub fn arch_of(&self, k: usize) -> Arch {
        Arch::resolve(self.kernels[k].info.binary_version, self.opts.default_arch)
    }

    pub fn set_default_arch(&mut self, arch: Arch) {
        self.opts.default_arch = arch;
    }

    fn compute_hash(&self) -> Result<String> {
        let mut h = Fnv64::new();
        let mut buf = vec![0u8; 1 << 16];
        let files = self
            .list_file
            .iter()
            .chain(self.kernels.iter().map(|k| &k.file));
        for f in files {
            h.write(f.as_bytes());
            let mut r = self.store.open(f)?;
            loop {
                let n = r
                    .read(&mut buf)
                    .map_err(|e| Error::io(self.store.display(f), e))?;
                if n == 0 {
                    break;
                }
                h.write(&buf[..n]);
            }
        }
        Ok(h.hex())
    }
}

impl TraceSource for AccelSimTrace {
    fn name(&self) -> &str {
        &self.name
    }
    fn commands(&self) -> &[Command] {
        &self.commands
    }
    fn kernel_count(&self) -> usize {
        self.kernels.len()
    }
    fn kernel_info(&self, k: usize) -> &KernelInfo {
        &self.kernels[k].info
    }
    fn open_kernel(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send + '_>> {
        self.open_kernel_owned(k)
    }
    /// The text streams own their (re-opened) file: CTA by CTA, never the whole kernel.
    fn open_kernel_owned(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send>> {
        let e = self
            .kernels
            .get(k)
            .ok_or_else(|| Error::other(format!("kernel {k} out of range")))?;
        let shown = self.store.display(&e.file);
        let input = io::decompress(self.store.open(&e.file)?, &shown)?;
        let (arch, policy) = (self.opts.default_arch, self.opts.policy);
        if e.raw {
            Ok(Box::new(RawStream::open_with(input, &shown, arch, policy)?))
        } else {
            Ok(Box::new(TracegStream::open_with(
                input, &shown, arch, policy,
            )?))
        }
    }
    fn trace_hash(&self) -> String {
        self.hash
            .get_or_init(|| {
                self.compute_hash()
                    .unwrap_or_else(|e| format!("unreadable: {e}"))
            })
            .clone()
    }
}
