//! The `warpweave` command-line tool.
mod cmd_config;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "warpweave", version, about = "A trace-driven GPU simulator")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// GPU configurations: list, show, schema, import from Accel-Sim.
    Config(cmd_config::ConfigArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Config(args) => cmd_config::run(args, &mut std::io::stdout(), &mut std::io::stderr()),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
