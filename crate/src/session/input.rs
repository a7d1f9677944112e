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
    let (files, title) = expand_archives(files)?;
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
    let name = match title {
        Some(t) => t,
        None if text.len() == 1 => text[0].0.clone(),
        None => text
            .iter()
            .find(|(n, _)| is_kernel(n))
            .map_or_else(|| "upload".to_string(), |(n, _)| n.clone()),
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

/// An uploaded file: its (relative) name and bytes.
type Upload = (String, Vec<u8>);

/// Unpacks every archive among `files` (zip, tar, compressed tar) into its entries, keeping,
/// when a kernels list is there, only the list and the kernel files. Also the upload's name:
/// the archive's name without its suffixes, else the folder that holds every file (uploads of
/// a folder carry `folder/kernelslist.g`), else `None`.
fn expand_archives(files: Vec<Upload>) -> Result<(Vec<Upload>, Option<String>)> {
    let mut out = Vec::with_capacity(files.len());
    let mut title = None;
    for (name, bytes) in files {
        match super::archive::unpack(base_name(&name), &bytes)? {
            Some(entries) => {
                if entries.is_empty() {
                    return Err(Error::parse(
                        base_name(&name),
                        0,
                        "archive",
                        "the archive holds no file",
                    ));
                }
                title.get_or_insert_with(|| super::archive::stem(&name).to_string());
                out.extend(entries);
            }
            None => out.push((name, bytes)),
        }
    }
    let list = |n: &str| matches!(base_name(n), "kernelslist.g" | "kernelslist");
    if out.len() > 1 && out.iter().any(|(n, _)| list(n)) {
        out.retain(|(n, _)| {
            let b = strip_compression_suffix(base_name(n));
            list(n) || b.ends_with(".traceg") || b.ends_with(".trace")
        });
    }
    if title.is_none() {
        let folder = |n: &str| n.split_once(['/', '\\']).map(|(d, _)| d.to_string());
        let first = out.first().and_then(|(n, _)| folder(n));
        if first.is_some() && out.iter().all(|(n, _)| folder(n) == first) {
            title = first;
        }
    }
    Ok((out, title))
}

/// Executes a SASS listing (`cuobjdump -sass` text named `listing_name`) with a launch spec
/// (TOML text named `spec_name`; a `file` initialiser is read relative to the working folder,
/// which a browser does not have) and returns the executed instruction stream as a trace source, named after the listing.
pub fn open_sass(
    listing: &str,
    listing_name: &str,
    spec: &str,
    spec_name: &str,
    default_arch: Arch,
) -> Result<Source> {
    use crate::exec::{self, LaunchSpec, Program};
    let spec = LaunchSpec::parse(spec, spec_name, std::path::Path::new("."), None)?;
    let prog = Program::from_listing(listing, listing_name, default_arch)?;
    let ex = exec::execute(&prog, &spec, listing_name)?;
    Ok(Box::new(ex.trace))
}

/// A SASS listing with a launch spec, built into the page's gallery.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SassSample {
    pub name: &'static str,
    pub summary: &'static str,
    /// The listing's file name.
    pub listing_name: &'static str,
    pub listing: &'static str,
    pub spec: &'static str,
}

const TEACHING_SM90: &str = include_str!("../../../tests/exec/teaching.sm_90.sass");

/// The teaching kernels (vector multiply, matrix multiply, matrix transpose) as `nvcc -O3
/// -arch=sm_90` compiled them (`tests/exec/teaching.cu`), each with its launch spec.
pub fn sass_samples() -> Vec<SassSample> {
    let s = |name, summary, spec| SassSample {
        name,
        summary,
        listing_name: "teaching.sm_90.sass",
        listing: TEACHING_SM90,
        spec,
    };
    vec![
        s(
            "vecmul",
            "Vector multiply, buf1[i] *= buf2[i] on 8,192 floats: one load pair and one store per thread.",
            include_str!("../../../tests/exec/vecmul.toml"),
        ),
        s(
            "matmul",
            "64x64 matrix multiply, one thread per output element: a loop of loads along a row and down a column.",
            include_str!("../../../tests/exec/matmul.toml"),
        ),
        s(
            "mattranspose",
            "64x64 matrix transpose, one thread per element: coalesced reads, strided writes.",
            include_str!("../../../tests/exec/mattranspose.toml"),
        ),
    ]
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

    fn sample(n: &str) -> Vec<u8> {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../sample-traces/text/vecadd-100");
        std::fs::read(dir.join(n)).unwrap()
    }

    fn insts(mut src: Source) -> u64 {
        let mut k = src.open_kernel(0).unwrap();
        crate::trace::KernelTrace::collect(&mut *k)
            .unwrap()
            .warp_insts()
    }

    #[test]
    fn archives_of_a_trace_folder_open_like_the_folder_and_are_named_after_it() {
        use super::super::archive::tests::{gzip, tar, zip};
        let (list, kernel) = (sample("kernelslist.g"), sample("kernel-1.traceg"));
        let files: [(&str, &[u8]); 3] = [
            ("vecadd-100/kernelslist.g", &list),
            ("vecadd-100/kernel-1.traceg", &kernel),
            ("vecadd-100/log.txt", b"not a trace"),
        ];
        let folder: Vec<(String, Vec<u8>)> = files
            .iter()
            .map(|(n, d)| (n.to_string(), d.to_vec()))
            .collect();
        let want = insts(open_files(folder.clone(), Arch::Turing).unwrap());
        for (name, bytes) in [
            ("vecadd-100.zip", zip(&files)),
            ("vecadd-100.tar", tar(&files)),
            ("vecadd-100.tar.gz", gzip(&tar(&files))),
        ] {
            let src = open_files(vec![(name.into(), bytes)], Arch::Turing).unwrap();
            assert_eq!(src.name(), "vecadd-100", "{name}");
            assert_eq!(insts(src), want, "{name}");
        }
        let src = open_files(folder, Arch::Turing).unwrap();
        assert_eq!(src.name(), "vecadd-100");
    }

    #[test]
    fn a_kernels_list_with_a_gzipped_kernel_file_beside_it() {
        use super::super::archive::tests::gzip;
        let files = vec![
            ("kernelslist.g".to_string(), sample("kernelslist.g")),
            (
                "kernel-1.traceg.gz".to_string(),
                gzip(&sample("kernel-1.traceg")),
            ),
        ];
        let src = open_files(files, Arch::Turing).unwrap();
        assert_eq!(src.name(), "kernel-1.traceg.gz");
        let plain = open_files(
            vec![("kernel-1.traceg".into(), sample("kernel-1.traceg"))],
            Arch::Turing,
        )
        .unwrap();
        assert_eq!(insts(src), insts(plain));
    }

    #[test]
    fn every_sass_sample_executes() {
        for s in sass_samples() {
            let src = open_sass(s.listing, s.listing_name, s.spec, "spec.toml", Arch::Hopper)
                .unwrap_or_else(|e| panic!("{}: {e}", s.name));
            assert!(insts(src) > 0, "{}", s.name);
        }
    }
}
