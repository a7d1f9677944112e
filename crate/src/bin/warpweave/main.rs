//! The `warpweave` command-line tool.

use clap::{Parser, Subcommand};

mod cmd_config;
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
    /// GPU configurations: list, show, schema, import from Accel-Sim.
    Config(cmd_config::ConfigArgs),
}

fn main() {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Convert(a) => cmd_convert::run(&a),
        Cmd::Config(a) => cmd_config::run(a, &mut std::io::stdout(), &mut std::io::stderr()),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
