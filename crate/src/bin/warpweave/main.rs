//! The `warpweave` command-line tool.

use clap::{Parser, Subcommand};

mod cmd_run;

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
    /// Simulate a trace on a GPU configuration.
    Run(cmd_run::RunArgs),
}

fn main() {
    let cli = Cli::parse();
    let r = match &cli.cmd {
        Cmd::Run(a) => cmd_run::run(a),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
