//! `warpweave run --launch SPEC.toml (--sass LISTING | --cuda FILE.cu) [--kernel NAME]`: a
//! kernel executed functionally from its SASS (`warpweave::exec`), its executed instruction
//! stream simulated as a trace.
//!
//! ```text
//!  --cuda FILE.cu ─nvcc -O3 -cubin -arch=sm_<preset>─> cubin ─cuobjdump -sass─> listing ┐
//!  --sass LISTING (plain, .gz, .zst, .xz) ──────────────────────────────────────────────┤
//!  --launch SPEC.toml ─> LaunchSpec ─────────────────────────────── exec::ExecSource ─┴─>
//!      the run's simulator, pulling CTAs as they execute (--emit-trace FILE.wwt: the
//!      stream collected and written first); after the run, the final buffers ─>
//!      --out-buffers DIR (NAME.bin), --check DIR (compared with DIR/NAME.bin)
//! ```

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Args;
use std::sync::{Arc, Mutex};
use warpweave::config::GpuConfig;
use warpweave::exec::{self, ExecHandle, ExecSource, LaunchSpec, Program};
use warpweave::trace::model::{MemTrace, TraceSource};
use warpweave::{Error, Result};

#[derive(Args, Debug, Clone, Default)]
pub struct ExecArgs {
    /// Execute a kernel from its SASS with this launch spec (TOML: grid, block, shared,
    /// buffers, args; see crate/src/exec/LAUNCH.md) instead of reading a trace: the program is --sass
    /// LISTING or --cuda FILE.cu.
    #[arg(long, value_name = "SPEC.toml")]
    pub launch: Option<PathBuf>,
    /// The kernel to launch (when the launch spec names none).
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Compile this CUDA file with nvcc for the preset's architecture and execute its SASS
    /// (nvcc from $WW_NVCC or PATH, cuobjdump beside it or from $WW_CUOBJDUMP).
    #[arg(long, value_name = "FILE.cu", requires = "launch")]
    pub cuda: Option<PathBuf>,
    /// Write the executed instruction stream as a compact trace.
    #[arg(long, value_name = "FILE.wwt", requires = "launch")]
    pub emit_trace: Option<String>,
    /// Write each output buffer as DIR/NAME.bin (raw little-endian elements).
    #[arg(long, value_name = "DIR", requires = "launch")]
    pub out_buffers: Option<PathBuf>,
    /// Compare each output buffer with DIR/NAME.bin: integers exactly, reals within a
    /// relative 1e-5 plus an absolute 1e-6.
    #[arg(long, value_name = "DIR", requires = "launch")]
    pub check: Option<PathBuf>,
}

/// A program and launch spec ready to execute: each [`Prepared::open`] is a fresh
/// [`ExecSource`] that executes CTA by CTA as the simulation pulls them.
pub struct Prepared {
    prog: Arc<Program>,
    spec: Arc<LaunchSpec>,
    name: String,
    /// The executor of the source opened last (the one simulated).
    last: Mutex<Option<ExecHandle>>,
}

impl Prepared {
    pub fn open(&self) -> Result<Box<dyn TraceSource + Send>> {
        Ok(Box::new(self.source()?))
    }

    fn source(&self) -> Result<ExecSource> {
        let s = ExecSource::new(self.prog.clone(), self.spec.clone(), &self.name)?;
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(s.handle());
        Ok(s)
    }

    /// After the simulation: executes what it did not pull, prints the execution rate,
    /// writes `--out-buffers` and runs `--check`.
    pub fn finish(&self, a: &ExecArgs, quiet: bool) -> Result<()> {
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let handle = match last {
            Some(h) => h,
            None => self.source()?.handle(),
        };
        handle.finish(|ex| -> Result<()> {
            if !quiet {
                eprintln!(
                    "executed {} warp instructions of {} launch(es) in {:.3} s ({:.1} M warp instructions per second)",
                    ex.warp_insts,
                    ex.plan.len(),
                    ex.secs,
                    ex.warp_insts as f64 / ex.secs.max(1e-9) / 1e6
                );
            }
            if let Some(dir) = &a.out_buffers {
                for p in exec::write_outputs(&self.spec, &ex.device, dir)? {
                    crate::outln!("wrote {}", p.display());
                }
            }
            if let Some(dir) = &a.check {
                for line in exec::check_outputs(&self.spec, &ex.device, dir)? {
                    crate::outln!("check: {line}");
                }
            }
            Ok(())
        })?
    }
}

/// Executes the launch spec when one is given; the program ready to execute.
pub fn prepare(a: &ExecArgs, sass: Option<&Path>, cfg: &GpuConfig) -> Result<Option<Prepared>> {
    let Some(spec_path) = &a.launch else {
        return Ok(None);
    };
    let arch = warpweave::trace::open::default_arch(cfg);
    let mut banks = BTreeMap::new();
    let (text, name) = match (&a.cuda, sass) {
        (Some(_), Some(_)) => {
            return Err(Error::other(
                "--cuda and --sass both name the program: give one",
            ))
        }
        (Some(cu), None) => {
            let (text, b) = compile_with_banks(cu, cfg)?;
            banks = b;
            (text, cu.display().to_string())
        }
        (None, Some(s)) => {
            let shown = s.display().to_string();
            let mut text = String::new();
            warpweave::trace::io::open_file(s)?
                .read_to_string(&mut text)
                .map_err(|e| Error::io(&shown, e))?;
            (text, shown)
        }
        (None, None) => {
            return Err(Error::other(
                "--launch needs the program: --sass LISTING or --cuda FILE.cu",
            ))
        }
    };
    let spec = LaunchSpec::load(spec_path, a.kernel.as_deref())?;
    let mut prog = Program::from_listing(&text, &name, arch)?;
    prog.banks = banks;
    let p = Prepared {
        prog: Arc::new(prog),
        spec: Arc::new(spec),
        name,
        last: Mutex::new(None),
    };
    if let Some(out) = &a.emit_trace {
        let mut trace = MemTrace::collect(&mut *p.open()?)?;
        let opts = warpweave::trace::compact::WriteOptions::default();
        let bytes = warpweave::trace::compact::to_compact_bytes(&mut trace, &opts)?;
        warpweave::outfile::write_file(Path::new(out), bytes)?;
        crate::outln!("wrote {out}");
    }
    Ok(Some(p))
}

/// Finds a CUDA tool: `$env`, else beside nvcc, else on PATH.
fn tool(env: &str, name: &str, beside: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    if let Some(dir) = beside.and_then(Path::parent) {
        let p = dir.join(name);
        if p.is_file() {
            return Some(p);
        }
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

/// `nvcc -O3 -cubin -arch=sm_XX FILE.cu`, then `cuobjdump -sass` of the cubin.
pub fn compile(cu: &Path, cfg: &GpuConfig) -> Result<String> {
    compile_with_banks(cu, cfg).map(|(text, _)| text)
}

/// The initial contents of the user constant banks of a cubin: each `.nv.constant<N>`
/// section that is not per kernel (`.nv.constant0.KERNEL` holds a kernel's parameters), by
/// bank; nvcc places `__constant__` variables in `.nv.constant3`. A section without file
/// data (only zero-initialised variables) is zeros of its size.
pub fn constant_banks(cubin: &[u8], name: &str) -> Result<BTreeMap<u8, Vec<u8>>> {
    use object::elf::FileHeader64;
    use object::read::elf::{FileHeader, SectionHeader};
    use object::LittleEndian;
    // The section headers alone (object's `unaligned` feature: nvcc places them 4-byte
    // aligned).
    let bad = |m: String| Error::parse(name, 0, "cubin", m);
    let header = FileHeader64::<LittleEndian>::parse(cubin)
        .map_err(|e| bad(format!("not a 64-bit ELF file: {e}")))?;
    let endian = header
        .endian()
        .map_err(|e| bad(format!("ELF header: {e}")))?;
    let sections = header
        .sections(endian, cubin)
        .map_err(|e| bad(format!("ELF sections: {e}")))?;
    let mut banks = BTreeMap::new();
    for sec in sections.iter() {
        let Ok(sname) = sections.section_name(endian, sec) else {
            continue;
        };
        let sname = String::from_utf8_lossy(sname);
        let Some(bank) = sname
            .strip_prefix(".nv.constant")
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|&b| b != 0)
        else {
            continue;
        };
        let size = sec.sh_size(endian);
        if size > exec::MAX_CONST_BANK as u64 {
            return Err(bad(format!(
                "{sname}: {size} bytes, past the {} bytes of a constant bank",
                exec::MAX_CONST_BANK
            )));
        }
        let mut bytes = sec
            .data(endian, cubin)
            .map_err(|_| bad(format!("{sname}: its bytes lie outside the file")))?
            .to_vec();
        bytes.resize(size as usize, 0);
        banks.insert(bank, bytes);
    }
    Ok(banks)
}

/// [`compile`], with the constant banks of the cubin ([`constant_banks`]).
pub fn compile_with_banks(cu: &Path, cfg: &GpuConfig) -> Result<(String, BTreeMap<u8, Vec<u8>>)> {
    let sm = cfg.gpu.compute_capability;
    if sm < 70 {
        return Err(Error::other(format!(
            "--cuda: the preset {} has compute capability {sm}; execution from SASS needs sm_70 or later",
            cfg.gpu.id
        )));
    }
    let missing = |what: &str, env: &str| {
        Error::other(format!(
            "--cuda: no {what} found (set ${env} or put it on PATH; tests/hardware/setup-cuda.sh installs a GPU-free CUDA toolchain and prints the variables)"
        ))
    };
    let nvcc = tool("WW_NVCC", "nvcc", None).ok_or_else(|| missing("nvcc", "WW_NVCC"))?;
    let cuobjdump = tool("WW_CUOBJDUMP", "cuobjdump", Some(&nvcc))
        .ok_or_else(|| missing("cuobjdump", "WW_CUOBJDUMP"))?;
    if !cu.is_file() {
        return Err(Error::other(format!("{}: no such file", cu.display())));
    }
    let dir = std::env::temp_dir().join(format!("warpweave-cuda-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    let cubin = dir.join("kernel.cubin");
    let arch = format!("-arch=sm_{sm}");
    let out = std::process::Command::new(&nvcc)
        .args(["-O3", "-cubin", &arch, "-o"])
        .arg(&cubin)
        .arg(cu)
        .output()
        .map_err(|e| Error::io(nvcc.display().to_string(), e))?;
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(Error::other(format!(
            "{}: nvcc {arch} failed:\n{}",
            cu.display(),
            String::from_utf8_lossy(&out.stderr).trim_end()
        )));
    }
    let dump = std::process::Command::new(&cuobjdump)
        .arg("-sass")
        .arg(&cubin)
        .output();
    let banks = std::fs::read(&cubin)
        .map_err(|e| Error::io(cubin.display().to_string(), e))
        .and_then(|b| constant_banks(&b, &cu.display().to_string()));
    let _ = std::fs::remove_dir_all(&dir);
    let banks = banks?;
    let dump = dump.map_err(|e| Error::io(cuobjdump.display().to_string(), e))?;
    if !dump.status.success() {
        return Err(Error::other(format!(
            "cuobjdump -sass failed: {}",
            String::from_utf8_lossy(&dump.stderr).trim_end()
        )));
    }
    let text = String::from_utf8(dump.stdout)
        .map_err(|_| Error::other("cuobjdump -sass printed something that is not UTF-8"))?;
    Ok((text, banks))
}
