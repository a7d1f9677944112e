//! `warpweave gen`: write a built-in workload's trace as Accel-Sim text or compact.
//!
//! ```text
//! warpweave gen --list                                  the workloads and their parameters
//! warpweave gen vecadd --param n=100 -o out/            Accel-Sim folder (--format text)
//! warpweave gen matmul_tiled -p m=64,n=64 -o mm.wwt     compact file (default format)
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use warpweave::trace::compact::{write_compact, WriteOptions};
use warpweave::workload::{self, output, OutFormat, Params};

use crate::progress::Progress;
use warpweave::{Error, Result};

/// Output format of a generated trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GenFormat {
    /// An Accel-Sim folder: kernelslist.g + kernel-<id>.traceg.
    Text,
    /// warpweave's compact binary format (.wwt).
    Compact,
}

#[derive(Args, Debug, Clone)]
pub struct GenArgs {
    /// Workload name (see --list).
    pub name: Option<String>,
    /// A parameter as key=value; repeat the flag or separate with commas.
    #[arg(short, long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Output: a folder for text; a file for compact (a folder gets `<name>.wwt` inside).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "compact")]
    pub format: GenFormat,
    /// List the workloads and their parameters, then exit.
    #[arg(long)]
    pub list: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(a: &GenArgs) -> Result<()> {
    if a.list {
        crate::out!("{}", listing());
        return Ok(());
    }
    let name = a
        .name
        .as_deref()
        .ok_or_else(|| Error::other("gen: give a workload name (see `warpweave gen --list`)"))?;
    let mut t = workload::generate(name, &Params::parse(&a.params)?)?;
    let format = match a.format {
        GenFormat::Text => OutFormat::Text,
        GenFormat::Compact => OutFormat::Compact,
    };
    let insts: u64 = t.kernels.iter().map(|k| k.warp_insts()).sum();
    let written = match format {
        OutFormat::Text => {
            let dir = a
                .output
                .clone()
                .unwrap_or_else(|| PathBuf::from(format!("{name}-trace")));
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
            let mut staged = warpweave::outfile::Staged::new();
            let files = output::text_files(&t)?;
            let bar = Progress::new("gen", files.len() as u64, "files", a.quiet);
            for (f, bytes) in files {
                let p = dir.join(&f);
                let w = staged.create(&p)?;
                w.write_all(&bytes)
                    .map_err(|e| Error::io(p.display().to_string(), e))?;
                bar.inc(&f);
            }
            bar.finish();
            staged.commit()?;
            dir
        }
        OutFormat::Compact => {
            let mut path = a
                .output
                .clone()
                .unwrap_or_else(|| PathBuf::from(format!("{name}.wwt")));
            if path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/') {
                path = path.join(format!("{name}.wwt"));
            }
            let bar = Progress::new("gen", insts, "warp instructions", a.quiet);
            let mut bytes = Vec::new();
            write_compact(&mut t, &mut bytes, &WriteOptions::default(), &mut |p| {
                bar.set(p.warp_insts_done, "encoding")
            })?;
            bar.finish();
            write(&path, &bytes)?;
            path
        }
    };
    eprintln!(
        "{}: {} kernel(s), {insts} warp instructions -> {} ({})",
        t.name,
        t.kernels.len(),
        written.display(),
        format.name()
    );
    Ok(())
}

fn write(p: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    }
    warpweave::outfile::write_file(p, bytes)
}

/// The `--list` text: every workload, its summary and its parameters with defaults and ranges.
pub fn listing() -> String {
    let mut s = String::new();
    for d in workload::list() {
        s.push_str(&format!("{:<16} {}\n", d.name, d.summary));
        for p in d.params {
            let range = if p.choices.is_empty() {
                format!("{}..={}", p.min, p.max)
            } else {
                p.choices.join("|")
            };
            s.push_str(&format!(
                "    {:<15} = {:<8} [{range}] {}\n",
                p.name, p.default, p.doc
            ));
        }
    }
    s
}
