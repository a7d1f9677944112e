//! `warpweave info TRACE`: what is in a trace, without simulating it: kernels, launch shapes,
//! warp and thread instructions, instruction mix, memory footprint, unknown opcodes.

use std::io::Read;
use std::path::PathBuf;

use clap::Args;
use warpweave::trace::accelsim::{AccelSimTrace, OpenOptions};
use warpweave::trace::compact::{is_compact, CompactReader};
use warpweave::trace::opcodes::Arch;
use warpweave::trace::summary::{render_table, summarize};
use warpweave::Error;

#[derive(Args, Debug, Clone)]
pub struct InfoArgs {
    /// A compact trace (.wwt), or an Accel-Sim trace: a folder with kernelslist.g, a
    /// kernelslist.g, or one kernel-N.traceg / kernel-N.trace file (plain, .gz, .zst or .xz).
    pub trace: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Opcode table for kernels whose binary version is 0 or unknown
    /// (pascal, volta, turing, ampere, ada, hopper).
    #[arg(long, default_value = "turing")]
    pub arch: String,
}

pub fn run(args: &InfoArgs) -> warpweave::Result<()> {
    let default_arch = Arch::from_name(&args.arch).ok_or_else(|| {
        Error::other(format!(
            "--arch {}: expected pascal, volta, turing, ampere, ada or hopper",
            args.arch
        ))
    })?;
    let mut head = [0u8; 8];
    let compact = args.trace.is_file()
        && std::fs::File::open(&args.trace)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
        && is_compact(&head);
    let s = if compact {
        summarize(&mut CompactReader::open(&args.trace)?)?
    } else {
        summarize(&mut AccelSimTrace::open(
            &args.trace,
            OpenOptions { default_arch },
        )?)?
    };
    if args.json {
        let j = serde_json::to_string_pretty(&s).map_err(|e| Error::other(e.to_string()))?;
        println!("{j}");
    } else {
        print!("{}", render_table(&s));
    }
    Ok(())
}
