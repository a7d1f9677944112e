//! Opening what a browser visitor hands us: a compact trace, Accel-Sim text traces (plain, .gz,
//! .zst, .xz; one kernel file, several, or a folder with `kernelslist.g`), or a built-in workload.
//! The format is detected from magic bytes, never trusted from the file name.
//!
//! ```text
//!  files ──one file, "\x89WWTRC\r\n"──────────────> CompactReader      (compact)
//!        ──kernelslist.g / kernel-*.traceg[.gz|.zst|.xz]─> AccelSimTrace (text)
//!        ──a lone file of another name, text inside─> renamed kernel-1.traceg, AccelSimTrace
//!        ──anything else──> Error naming the file and what was expected
//! ```

use std::io::Cursor;
use std::sync::Arc;

use serde::Serialize;

use crate::trace::accelsim::{AccelSimTrace, OpenOptions};
use crate::trace::compact::{is_compact, CompactReader};
use crate::trace::io::{strip_compression_suffix, Compression};
use crate::trace::opcodes::Arch;
use crate::trace::TraceSource;
use crate::workload::{self, Params};
use crate::{Error, Result};

/// A trace source the session owns.
pub type Source = Box<dyn TraceSource + Send>;

/// What the bytes of one file are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// warpweave's compact binary trace.
    Compact,
    /// Accel-Sim text (after decompression), with its compression.
    Text(#[serde(skip)] Compression),
    /// A compressed stream whose inner format is only known after decoding.
    Unknown,
}

/// Detects a file's format from its first bytes.
pub fn detect(bytes: &[u8]) -> FileKind {
    if is_compact(bytes) {
        return FileKind::Compact;
    }
    match Compression::detect(&bytes[..bytes.len().min(6)]) {
        Compression::None => {
            if looks_like_text(bytes) {
                FileKind::Text(Compression::None)
            } else {
                FileKind::Unknown
            }
        }
        c => FileKind::Text(c),
    }
}

/// A short name of the detected format, for the page (`compact`, `text`, `text+gzip`, ...).
pub fn kind_name(bytes: &[u8]) -> &'static str {
    match detect(bytes) {
        FileKind::Compact => "compact",
        FileKind::Text(Compression::None) => "text",
        FileKind::Text(Compression::Gzip) => "text+gzip",
        FileKind::Text(Compression::Zstd) => "text+zstd",
        FileKind::Text(Compression::Xz) => "text+xz",
        FileKind::Unknown => "unknown",
    }
}

/// Plain text: the first bytes are printable ASCII or whitespace (trace files are ASCII).
fn looks_like_text(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(512)];
    !head.is_empty()
        && head
            .iter()
            .all(|&b| b == b'\n' || b == b'\r' || b == b'\t' || (0x20..0x7f).contains(&b))
}

/// The last path component (uploads of a folder carry `dir/kernel-1.traceg`).
fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// Opens uploaded files as one trace source. `default_arch` classifies opcodes of kernels whose
/// binary version is 0 (the GPU preset's architecture).
pub fn open_files(files: Vec<(String, Vec<u8>)>, default_arch: Arch) -> Result<Source> {
    if files.is_empty() {
        return Err(Error::other("no file was given: choose a compact trace, or Accel-Sim .traceg files with kernelslist.g"));
    }
    if let Some((name, _)) = files.iter().find(|(_, b)| b.is_empty()) {
        return Err(Error::parse(
            base_name(name),
            0,
            "file",
            "the file is empty",
        ));
    }
    let compact: Vec<&(String, Vec<u8>)> = files.iter().filter(|(_, b)| is_compact(b)).collect();
    if let Some((name, bytes)) = compact.first() {
        if files.len() > 1 {
            return Err(Error::parse(
                base_name(name),
                0,
                "upload",
                "a compact trace must be uploaded on its own (it already holds every kernel)",
            ));
        }
        let rd = CompactReader::new(Cursor::new(bytes.clone()), base_name(name))?;
        return Ok(Box::new(rd));
    }
    // Accel-Sim text: keep the kernels list and the kernel files, by base name.
    let mut text: Vec<(String, Arc<[u8]>)> = Vec::new();
    for (name, bytes) in &files {
        let base = base_name(name).to_string();
        if detect(bytes) == FileKind::Unknown {
            return Err(Error::parse(
                &base,
                0,
                "format",
                "not a warpweave compact trace (magic \\x89WWTRC) nor Accel-Sim text (plain, gzip, zstd or xz)",
            ));
        }
        text.push((base, Arc::from(bytes.as_slice())));
    }
    let is_list = |n: &str| n == "kernelslist.g" || n == "kernelslist";
    let is_kernel = |n: &str| {
        let b = strip_compression_suffix(n);
        b.ends_with(".traceg") || b.ends_with(".trace")
    };
    if text.len() == 1 && !is_list(&text[0].0) && !is_kernel(&text[0].0) {
        // A lone text file with another name (e.g. "trace.txt"): read it as one kernel file.
        let suffix = match detect(&text[0].1) {
            FileKind::Text(Compression::Gzip) => ".gz",
            FileKind::Text(Compression::Zstd) => ".zst",
            FileKind::Text(Compression::Xz) => ".xz",
            _ => "",
        };
        text[0].0 = format!("kernel-1.traceg{suffix}");
    }
    let name = if text.len() == 1 {
        text[0].0.clone()
    } else {
        "upload".to_string()
    };
    let t = AccelSimTrace::from_files(
        name,
        text,
        OpenOptions {
            default_arch,
            ..Default::default()
        },
    )?;
    Ok(Box::new(t))
}

/// Generates a built-in workload from `key=value` parameters.
pub fn open_workload(name: &str, params: &[(String, String)]) -> Result<Source> {
    let p = Params {
        pairs: params.to_vec(),
    };
    Ok(Box::new(workload::generate(name, &p)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_formats_from_magic_bytes() {
        assert_eq!(kind_name(b"\x89WWTRC\r\n\x00\x01rest"), "compact");
        assert_eq!(kind_name(b"-kernel name = _Z3addPfS_\n"), "text");
        assert_eq!(kind_name(&[0x1f, 0x8b, 8, 0]), "text+gzip");
        assert_eq!(kind_name(&[0x28, 0xb5, 0x2f, 0xfd, 0]), "text+zstd");
        assert_eq!(kind_name(&[0xfd, b'7', b'z', b'X', b'Z', 0]), "text+xz");
        assert_eq!(kind_name(&[0u8, 1, 2, 3, 200]), "unknown");
    }

    #[test]
    fn binary_garbage_is_refused_with_the_file_name() {
        let e = open_files(
            vec![("dir/junk.bin".into(), vec![0, 159, 146, 150, 7])],
            Arch::Turing,
        )
        .err()
        .unwrap();
        let s = e.to_string();
        assert!(
            s.starts_with("junk.bin: format: not a warpweave compact trace"),
            "{s}"
        );
    }

    #[test]
    fn empty_upload_and_empty_file_are_errors() {
        assert!(open_files(Vec::new(), Arch::Turing).is_err());
        let e = open_files(vec![("k.traceg".into(), Vec::new())], Arch::Turing)
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "k.traceg: file: the file is empty");
    }

    #[test]
    fn a_workload_written_as_text_reads_back_with_the_same_instructions() {
        let src = open_workload("vecadd", &[("n".into(), "256".into())]).unwrap();
        let mut src = src;
        let mut k0 = src.open_kernel(0).unwrap();
        let kt = crate::trace::KernelTrace::collect(&mut *k0).unwrap();
        drop(k0);
        let text = crate::trace::accelsim::kernel_to_text(&kt).unwrap();
        let mut up = open_files(vec![("my trace.txt".into(), text)], Arch::Turing).unwrap();
        assert_eq!(up.kernel_count(), 1);
        let mut s = up.open_kernel(0).unwrap();
        let back = crate::trace::KernelTrace::collect(&mut *s).unwrap();
        assert_eq!(back.warp_insts(), kt.warp_insts());
        assert_eq!(back.ctas.len(), kt.ctas.len());
    }
}
