//! Renders a generated trace as files, in memory (no file system: the CLI writes them, the
//! browser keeps them, the sample-trace test compares them byte for byte).
//!
//! ```text
//!  MemTrace ──text──────> [kernel-1.traceg, kernel-2.traceg, ..., kernelslist.g]  (a folder)
//!           └─compact───> one .wwt file (zstd level 19 with `native-zstd`, else pure Rust)
//! ```

use crate::trace::accelsim::{kernel_file_name, write_kernel_trace, write_kernelslist};
use crate::trace::compact::{to_compact_bytes, WriteOptions};
use crate::trace::model::MemTrace;
use crate::{Error, Result};

/// Output formats of `warpweave gen`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutFormat {
    /// An Accel-Sim folder: `kernelslist.g` and `kernel-<id>.traceg` per kernel.
    Text,
    /// warpweave's compact binary format (`.wwt`).
    Compact,
}

impl OutFormat {
    pub fn parse(s: &str) -> Result<OutFormat> {
        match s {
            "text" => Ok(OutFormat::Text),
            "compact" => Ok(OutFormat::Compact),
            _ => Err(Error::config(
                "format",
                format!("`{s}` is not a trace format (allowed: text, compact)"),
            )),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            OutFormat::Text => "text",
            OutFormat::Compact => "compact",
        }
    }
}

/// The Accel-Sim files of `t`, kernels first, `kernelslist.g` last. Kernel files are named
/// `kernel-<id>.traceg` (`kernel-<id>-<index>.traceg` if an id repeats), as `write_dir` does.
pub fn text_files(t: &MemTrace) -> Result<Vec<(String, Vec<u8>)>> {
    let mut names: Vec<String> = Vec::new();
    let mut files = Vec::new();
    for (i, k) in t.kernels.iter().enumerate() {
        let mut n = kernel_file_name(&k.info);
        if names.contains(&n) {
            n = format!("kernel-{}-{i}.traceg", k.info.id);
        }
        let mut bytes = Vec::new();
        write_kernel_trace(&mut bytes, k)?;
        names.push(n.clone());
        files.push((n, bytes));
    }
    let mut list = Vec::new();
    write_kernelslist(&mut list, &t.commands, &names)?;
    files.push(("kernelslist.g".to_string(), list));
    Ok(files)
}

/// The compact encoding of `t` with the default options.
pub fn compact_bytes(t: &mut MemTrace) -> Result<Vec<u8>> {
    to_compact_bytes(t, &WriteOptions::default())
}
