//! `warpweave annotate`: a trace's compiler control bits from the `cuobjdump -sass` listing of
//! the binary it was traced from, joined by kernel name and PC (`trace::annotate`), written as
//! a compact trace.
//!
//! ```text
//! warpweave annotate TRACE --sass kernels.sass -o annotated.wwt
//!   TRACE (any trace the CLI reads) ─ Annotated (every kernel's function by name, every
//!   instruction's Ctrl by pc) ─> compact 1.2, each kernel's control-bit source `sass`
//! ```
//! The output is written beside its destination and renamed into place once complete, and may
//! not be one of the inputs (annotate to a new name, then rename it over the old one).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use warpweave::outfile::{refuse_overwrite, trace_inputs, AtomicFile, Output};
use warpweave::trace::annotate::{Annotated, SassCtrl};
use warpweave::trace::compact::{write_compact, WriteOptions};
use warpweave::{Error, Result};

use crate::cmd_convert::ArchArg;

#[derive(Args, Debug, Clone)]
pub struct AnnotateArgs {
    /// The trace: a compact file, an Accel-Sim folder, kernelslist.g or kernel-N.traceg
    /// (plain, .gz, .zst, .xz), or builtin:NAME[:k=v,...].
    pub trace: String,
    /// `cuobjdump -sass` listing of the binary the trace was recorded from, one GPU target
    /// (cuobjdump -sass -arch sm_XX), sm_70 or later: each instruction's two encoding words.
    /// Plain, or compressed with gzip, zstd or xz.
    #[arg(long)]
    pub sass: PathBuf,
    /// Output compact trace (.wwt); may not be an input.
    #[arg(short, long)]
    pub output: PathBuf,
    /// zstd level of the output (1..=22).
    #[arg(long, default_value_t = 19, value_parser = clap::value_parser!(i32).range(1..=22))]
    pub level: i32,
    /// A chunk closes once it holds this many warp instructions.
    #[arg(long, default_value_t = 1 << 15, value_parser = clap::value_parser!(u64).range(1..))]
    pub chunk_insts: u64,
    /// Architecture used to classify opcodes of text kernels whose `binary version` is 0.
    #[arg(long, value_enum, default_value = "turing")]
    pub arch: ArchArg,
}

/// Reads a listing for the join (`annotate --sass`, `run --sass`): plain, or gzip, zstd or xz
/// compressed.
pub fn read_sass(path: &Path) -> Result<SassCtrl> {
    let shown = path.display().to_string();
    let mut text = String::new();
    warpweave::trace::io::open_file(path)?
        .read_to_string(&mut text)
        .map_err(|e| Error::io(&shown, e))?;
    SassCtrl::parse(&text, &shown)
}

pub fn run(a: &AnnotateArgs) -> Result<()> {
    let mut inputs = trace_inputs(&a.trace);
    inputs.push(a.sass.clone());
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    refuse_overwrite(
        &[Output {
            what: "-o",
            path: &a.output,
            folder: false,
        }],
        &inputs,
    )?;
    let t0 = Instant::now();
    let sass = read_sass(&a.sass)?;
    // Leniently, as `convert` does: the annotated trace is checked when it is simulated.
    let policy = warpweave::trace::check::Policy::LENIENT
        .with_max_cta_insts(crate::cmd_run::max_cta_insts(None)?);
    let src = warpweave::trace::open::open_spec_with(&a.trace, a.arch.into(), policy)?;
    let mut joined = Annotated::new(src, &sass)?;
    let shown = a.output.display().to_string();
    let mut f = AtomicFile::create(&a.output)?;
    let opts = WriteOptions {
        level: a.level,
        chunk_insts: a.chunk_insts,
    };
    let s = write_compact(&mut joined, &mut f, &opts, &mut |_| {}).map_err(|e| match e {
        Error::Io { path, source } if path == "compact output" => Error::io(&shown, source),
        other => other,
    })?;
    f.commit()?;
    eprintln!(
        "wrote {shown}: {} kernels with control bits from {}, {} CTAs, {} warp instructions, {} bytes ({:.2} s), hash {:016x}",
        s.kernels,
        sass.file(),
        s.ctas,
        s.warp_insts,
        s.bytes,
        t0.elapsed().as_secs_f64(),
        s.trace_hash
    );
    Ok(())
}
