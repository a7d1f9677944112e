//! The `warpweave` command-line tool: one subcommand per job, each in its own `cmd_*.rs`.
//! Every error is printed as one plain line naming the file, line or key, with exit status 1.

use clap::{Parser, Subcommand};

/// mimalloc, not the system allocator: a CTA's trace is decoded on one thread and freed on
/// whichever steps its SM, and glibc's cross-thread frees (locking the other thread's arena)
/// held `fast` at two threads to 1.3x; with mimalloc 1.9x, and one thread 20% faster
/// (vecadd-1m).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cmd_annotate;
mod cmd_compare;
mod cmd_config;
mod cmd_convert;
mod cmd_cuda;
mod cmd_gen;
mod cmd_import;
mod cmd_info;
mod cmd_run;
mod cmd_run_exec;
mod cmd_run_views;
mod cmd_sweep;
mod cmd_validate;
mod counted;
mod host;
mod progress;
mod stdout;

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

/// Parsed once per process: the size of `run`'s many options does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Cmd {
    /// Simulate a trace on a GPU (`--mode cycle|hybrid|fast|memory`, `--model m=x`).
    Run(cmd_run::RunArgs),
    /// Run several modes over traces and GPUs: cycles, hit rates, error and speed-up vs cycle.
    Compare(cmd_compare::CompareArgs),
    /// What is in a trace: kernels, shapes, instruction mix, footprint.
    Info(cmd_info::InfoArgs),
    /// Convert traces between Accel-Sim text and the compact binary format.
    Convert(cmd_convert::ConvertArgs),
    /// Generate a trace from a built-in workload model.
    Gen(cmd_gen::GenArgs),
    /// GPU presets: list, show the effective config, import an Accel-Sim config.
    Config(cmd_config::ConfigArgs),
    /// Design-space sweeps over config keys and workloads, locally or on SLURM.
    Sweep(cmd_sweep::SweepArgs),
    /// Microbenchmarks against published hardware figures (latency, throughput, bandwidth).
    Validate(cmd_validate::ValidateArgs),
    /// Compute Sanitizer tracer records + SASS -> an Accel-Sim trace (tests/hardware/tracer).
    ImportSanitizer(cmd_import::ImportSanitizerArgs),
    /// Join compiler control bits from a `cuobjdump -sass` listing onto a trace (by kernel
    /// name and PC) -> a compact trace.
    Annotate(cmd_annotate::AnnotateArgs),
    /// CUDA helpers: `cuda sass FILE.cu -o LISTING` writes the SASS listing that
    /// `run --sass LISTING --launch SPEC.toml` executes.
    Cuda(cmd_cuda::CudaArgs),
}

fn main() {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Run(a) => cmd_run::run(&a),
        Cmd::Compare(a) => cmd_compare::run(&a),
        Cmd::Info(a) => cmd_info::run(&a),
        Cmd::Convert(a) => cmd_convert::run(&a),
        Cmd::Gen(a) => cmd_gen::run(&a),
        Cmd::Config(a) => cmd_config::run(a, &mut stdout::Stdout, &mut std::io::stderr()),
        Cmd::Sweep(a) => cmd_sweep::run(&a),
        Cmd::Validate(a) => cmd_validate::run(&a),
        Cmd::ImportSanitizer(a) => cmd_import::run(&a),
        Cmd::Annotate(a) => cmd_annotate::run(&a),
        Cmd::Cuda(a) => cmd_cuda::run(&a),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
