//! `warpweave cuda sass FILE.cu [--gpu PRESET] -o LISTING`: a CUDA file compiled for the
//! preset's compute capability and its `cuobjdump -sass` listing written, ready for
//! `run --sass LISTING --launch SPEC.toml` on machines without nvcc.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use warpweave::Result;

#[derive(Debug, Args)]
pub struct CudaArgs {
    #[command(subcommand)]
    cmd: CudaCmd,
}

#[derive(Debug, Subcommand)]
enum CudaCmd {
    /// Compile FILE.cu with `nvcc -O3 -cubin -arch=sm_XX` for the preset and write its
    /// `cuobjdump -sass` listing (nvcc from $WW_NVCC or PATH, cuobjdump beside it or from
    /// $WW_CUOBJDUMP).
    Sass {
        /// The CUDA source.
        #[arg(value_name = "FILE.cu")]
        file: PathBuf,
        /// GPU preset id or TOML file: its compute capability picks sm_XX.
        #[arg(long, default_value = "h100")]
        gpu: String,
        /// The listing to write.
        #[arg(short, long, value_name = "LISTING")]
        out: PathBuf,
    },
}

pub fn run(a: &CudaArgs) -> Result<()> {
    match &a.cmd {
        CudaCmd::Sass { file, gpu, out } => {
            let cfg = crate::cmd_run::load_config(gpu, &[])?;
            crate::cmd_run::refuse_outputs_over_inputs(
                &[],
                &[file.display().to_string()],
                &[("-o", Some(&out.display().to_string()))],
            )?;
            let listing = crate::cmd_run_exec::compile(file, &cfg)?;
            warpweave::outfile::write_file(out, listing)?;
            crate::outln!(
                "wrote {} (sm_{} SASS of {})",
                out.display(),
                cfg.gpu.compute_capability,
                file.display()
            );
            Ok(())
        }
    }
}
