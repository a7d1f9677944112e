//! The `warpweave` command-line tool.

use clap::{Parser, Subcommand};

mod cmd_gen;

#[derive(Parser, Debug)]
#[command(
    name = "warpweave",
    version,
    about = "A trace-driven GPU architecture simulator"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Generate a built-in workload's trace (Accel-Sim text or compact).
    Gen(cmd_gen::GenArgs),
}

fn main() {
    let cli = Cli::parse();
    let r = match &cli.cmd {
        Cmd::Gen(a) => cmd_gen::run(a),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
