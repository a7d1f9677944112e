//! The `warpweave` command-line tool.

use clap::{Parser, Subcommand};

mod cmd_convert;

#[derive(Parser, Debug)]
#[command(name = "warpweave", version, about = "A trace-driven GPU architecture simulator")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Convert traces between Accel-Sim text and the compact binary format.
    Convert(cmd_convert::ConvertArgs),
}

fn main() {
    let cli = Cli::parse();
    let r = match &cli.cmd {
        Cmd::Convert(a) => cmd_convert::run(a),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
