//! Opening a trace by name, the one way every native front end does it (`run`, `compare`,
//! `info`, `convert`, sweeps):
//!
//! ```text
//!  "builtin:NAME:k=v,..."  -> the built-in workload generator (any platform)
//!  a file with the compact magic bytes -> CompactReader (streamed chunk by chunk)
//!  anything else on disk   -> AccelSimTrace: a folder, kernelslist.g or one .traceg/.trace
//!                              (plain, .gz, .zst, .xz)
//! ```
//! The browser opens uploaded bytes instead (`session::input`). Every reader checks what it
//! decodes (`trace::check`); a [`Policy`] relaxes that for unknown opcodes and missing CTAs.

use super::check::Policy;
use super::opcodes::Arch;
use super::TraceSource;
use crate::config::GpuConfig;
use crate::{Error, Result};

/// The opcode table for traces whose binary version is 0 or unknown: the GPU's compute
/// capability, else its architecture name, else the default.
pub fn default_arch(cfg: &GpuConfig) -> Arch {
    Arch::from_binary_version(cfg.gpu.compute_capability)
        .or_else(|| Arch::from_name(&cfg.gpu.arch))
        .unwrap_or_default()
}

/// `builtin:NAME[:k=v,...]` as a generated in-memory trace; `None` for any other spec.
pub fn open_builtin(spec: &str) -> Option<Result<Box<dyn TraceSource + Send>>> {
    let rest = spec.strip_prefix("builtin:")?;
    let mut it = rest.splitn(2, ':');
    let name = it.next().unwrap_or_default();
    let items: Vec<&str> = it
        .next()
        .map(|p| p.split(',').filter(|s| !s.is_empty()).collect())
        .unwrap_or_default();
    Some(
        crate::workload::Params::parse(&items)
            .and_then(|params| crate::workload::generate(name, &params))
            .map(|t| Box::new(t) as Box<dyn TraceSource + Send>),
    )
}

/// True when `path` is a regular file that starts with the compact format's magic bytes.
#[cfg(not(target_arch = "wasm32"))]
pub fn is_compact_file(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8];
    path.is_file()
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
        && super::compact::is_compact(&head)
}

/// A trace on disk: compact (by magic bytes) or Accel-Sim text, read strictly.
#[cfg(not(target_arch = "wasm32"))]
pub fn open_path(
    path: &std::path::Path,
    default_arch: Arch,
) -> Result<Box<dyn TraceSource + Send>> {
    open_path_with(path, default_arch, Policy::STRICT)
}

/// [`open_path`] with `policy` for unknown opcodes and missing CTAs. A file must be a regular
/// one; an empty one, or one named `.wwt` without the compact magic, is said to be so.
#[cfg(not(target_arch = "wasm32"))]
pub fn open_path_with(
    path: &std::path::Path,
    default_arch: Arch,
    policy: Policy,
) -> Result<Box<dyn TraceSource + Send>> {
    let shown = path.display().to_string();
    let Ok(meta) = std::fs::metadata(path) else {
        return Err(Error::other(format!(
            "{shown}: no such trace (a folder, kernelslist.g, .traceg, compact file or builtin:NAME)"
        )));
    };
    if !meta.is_dir() {
        drop(crate::infile::open_regular(path)?);
        let wwt = path.extension().is_some_and(|e| e == "wwt");
        if meta.len() == 0 {
            let what = if wwt {
                "an empty compact file"
            } else {
                "an empty file"
            };
            return Err(Error::parse(
                &shown,
                0,
                "file",
                format!("{what} (0 bytes): not a trace"),
            ));
        }
        if wwt && !is_compact_file(path) {
            return Err(Error::parse(
                &shown,
                0,
                "magic at byte 0",
                "not a warpweave compact trace (magic bytes differ)",
            ));
        }
    }
    if is_compact_file(path) {
        return Ok(Box::new(super::compact::CompactReader::open_with(
            path, policy,
        )?));
    }
    Ok(Box::new(super::accelsim::AccelSimTrace::open(
        path,
        super::accelsim::OpenOptions {
            default_arch,
            policy,
        },
    )?))
}

/// A trace named on a command line or in a sweep plan: `builtin:...` or a path, read strictly.
#[cfg(not(target_arch = "wasm32"))]
pub fn open_spec(spec: &str, default_arch: Arch) -> Result<Box<dyn TraceSource + Send>> {
    open_spec_with(spec, default_arch, Policy::STRICT)
}

/// [`open_spec`] with `policy` for unknown opcodes and missing CTAs (built-in workloads have
/// neither).
#[cfg(not(target_arch = "wasm32"))]
pub fn open_spec_with(
    spec: &str,
    default_arch: Arch,
    policy: Policy,
) -> Result<Box<dyn TraceSource + Send>> {
    match open_builtin(spec) {
        Some(r) => r,
        None => open_path_with(std::path::Path::new(spec), default_arch, policy),
    }
}

/// In the browser only built-in workloads can be named; files arrive as bytes.
#[cfg(target_arch = "wasm32")]
pub fn open_spec_with(
    spec: &str,
    default_arch: Arch,
    _policy: Policy,
) -> Result<Box<dyn TraceSource + Send>> {
    open_spec(spec, default_arch)
}

/// In the browser only built-in workloads can be named; files arrive as bytes.
#[cfg(target_arch = "wasm32")]
pub fn open_spec(spec: &str, _default_arch: Arch) -> Result<Box<dyn TraceSource + Send>> {
    match open_builtin(spec) {
        Some(r) => r,
        None => Err(Error::other(format!(
            "{spec}: trace files cannot be opened by path in the browser"
        ))),
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn specs_open_builtins_compact_files_and_refuse_missing_paths() {
        let b = open_spec("builtin:vecadd:n=64", Arch::default()).unwrap();
        assert_eq!(b.kernel_count(), 1);
        let e = open_spec("builtin:nosuch", Arch::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("nosuch"), "{e}");
        let e = open_spec("/no/such/trace", Arch::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("/no/such/trace: no such trace"), "{e}");
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let wwt = root.join("sample-traces/vecadd-64k.wwt");
        assert!(is_compact_file(&wwt));
        assert!(!is_compact_file(&root.join("README.md")));
        assert!(open_path(&wwt, Arch::default()).is_ok());
    }
}
