//! The `warpweave` command-line tool.

use clap::{Parser, Subcommand};

mod cmd_sweep;

#[derive(Parser)]
#[command(name = "warpweave", version, about = "A trace-driven GPU architecture simulator")]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Design-space sweeps: run a plan locally, emit it for SLURM, run one chunk, collect parts.
    Sweep(cmd_sweep::SweepArgs),
}

fn main() {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Command::Sweep(a) => cmd_sweep::run(a),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
