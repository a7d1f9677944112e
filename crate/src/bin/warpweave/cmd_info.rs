//! `warpweave info TRACE`: what is in a trace, without simulating it: kernels, launch shapes,
//! warp and thread instructions, instruction mix, memory footprint, unknown opcodes.

use clap::Args;
use warpweave::trace::check::{Policy, UnknownOpcodes};
use warpweave::trace::opcodes::Arch;
use warpweave::trace::summary::{render_table, summarize};
use warpweave::Error;

#[derive(Args, Debug, Clone)]
pub struct InfoArgs {
    /// A compact trace (.wwt), an Accel-Sim trace (a folder with kernelslist.g, a
    /// kernelslist.g, or one kernel-N.traceg / kernel-N.trace file; plain, .gz, .zst or .xz),
    /// or a built-in workload `builtin:NAME:k=v,...`.
    pub trace: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Opcode table for kernels whose binary version is 0 or unknown
    /// (pascal, volta, turing, ampere, ada, hopper).
    #[arg(long, default_value = "turing")]
    pub arch: String,
    /// Describe kernels whose trace lacks some CTAs (cut short), with a warning saying how
    /// many are missing (without it, an error). Unknown opcodes are always listed.
    #[arg(long)]
    pub allow_partial: bool,
    /// Most warp instructions one CTA may hold (as for `run`; default WARPWEAVE_MAX_CTA_INSTS,
    /// else 1048576).
    #[arg(long, value_name = "N")]
    pub max_cta_insts: Option<u64>,
}

pub fn run(args: &InfoArgs) -> warpweave::Result<()> {
    let default_arch = Arch::from_name(&args.arch).ok_or_else(|| {
        Error::other(format!(
            "--arch {}: expected pascal, volta, turing, ampere, ada or hopper",
            args.arch
        ))
    })?;
    let policy = Policy {
        unknown_opcodes: UnknownOpcodes::Warn,
        allow_partial: args.allow_partial,
        max_cta_insts: crate::cmd_run::max_cta_insts(args.max_cta_insts)?,
    };
    let mut src = warpweave::trace::open::open_spec_with(&args.trace, default_arch, policy)?;
    let s = summarize(&mut *src)?;
    if args.json {
        let j = serde_json::to_string_pretty(&s).map_err(|e| Error::other(e.to_string()))?;
        crate::outln!("{j}");
    } else {
        crate::out!("{}", render_table(&s));
    }
    Ok(())
}
