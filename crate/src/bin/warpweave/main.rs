//! The `warpweave` command-line tool.
use clap::{Parser, Subcommand};

mod cmd_info;

#[derive(Parser)]
#[command(
    name = "warpweave",
    version,
    about = "A trace-driven GPU architecture simulator"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// What is in a trace: kernels, shapes, instruction mix, footprint.
    Info(cmd_info::InfoArgs),
}

fn main() {
    let cli = Cli::parse();
    let r = match &cli.cmd {
        Cmd::Info(a) => cmd_info::run(a),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
