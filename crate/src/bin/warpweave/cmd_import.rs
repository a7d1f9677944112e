//! `warpweave import-sanitizer`: the Compute Sanitizer tracer's records (tests/hardware/tracer)
//! plus the kernels' SASS -> an Accel-Sim trace folder any warpweave command reads.
//!
//! ```text
//! warpweave import-sanitizer --records t/records.wwsan --sass t/kernels.sass -o t/trace
//!   -> t/trace/kernelslist.g, kernel-1.traceg, ...   and per kernel on stderr: warps,
//!      instructions, recorded ones, ambiguous branch choices, exits not recorded
//! ```

use std::io::Read;
use std::path::PathBuf;

use clap::Args;

use warpweave::trace::accelsim::write_dir;
use warpweave::trace::sanitizer::{import, ImportOptions};
use warpweave::{Error, Result};

#[derive(Args, Debug, Clone)]
pub struct ImportSanitizerArgs {
    /// Records file written by libwwtrace.so (its WWTRACE_OUT).
    #[arg(long)]
    pub records: PathBuf,
    /// `cuobjdump -sass` output of the traced binary (one GPU target).
    #[arg(long)]
    pub sass: PathBuf,
    /// Output folder (kernelslist.g + kernel-<id>.traceg).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Import kernels whose tracer buffer overflowed (their records are incomplete).
    #[arg(long)]
    pub allow_dropped: bool,
}

pub fn run(a: &ImportSanitizerArgs) -> Result<()> {
    warpweave::outfile::refuse_overwrite(
        &[warpweave::outfile::Output {
            what: "-o",
            path: &a.output,
            folder: false,
        }],
        &[&a.records, &a.sass],
    )?;
    let rname = a.records.display().to_string();
    let sname = a.sass.display().to_string();
    // Regular files only (a device or a FIFO would never end).
    let mut records = Vec::new();
    warpweave::infile::open_regular(&a.records)?
        .read_to_end(&mut records)
        .map_err(|e| Error::io(&rname, e))?;
    let mut sass = String::new();
    warpweave::infile::open_regular(&a.sass)?
        .read_to_string(&mut sass)
        .map_err(|e| Error::io(&sname, e))?;
    let opts = ImportOptions {
        allow_dropped: a.allow_dropped,
    };
    let mut im = import(&records, &rname, &sass, &sname, opts)?;
    let files = write_dir(&a.output, &mut im.trace)?;
    for (s, f) in im.stats.iter().zip(&files) {
        eprintln!(
            "{f}: {} ({} CTAs, {} warps): {} warp instructions, {} recorded, {} ambiguous branch choices, {} exits not recorded, {} records",
            s.name, s.ctas, s.warps, s.insts, s.recorded, s.ambiguous, s.synthesized_exits, s.records
        );
    }
    eprintln!("wrote {}", a.output.display());
    Ok(())
}
