//! `warpweave convert`: Accel-Sim text <-> compact binary, with a progress bar, an optional
//! verification pass, and a decode-speed benchmark for compact files.
//!
//! ```text
//! text (folder | kernelslist.g | kernel-N.traceg[.gz|.zst|.xz]) ──> trace.wwt   (--to compact)
//! trace.wwt ──> folder with kernelslist.g + kernel-<id>.traceg                  (--to text)
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};

use warpweave::outfile::{refuse_overwrite, trace_inputs, AtomicFile, Output};
use warpweave::trace::accelsim::write_dir;
use warpweave::trace::compact::{
    decode_all_count, decode_chunk, write_compact, CompactReader, WriteOptions,
};
use warpweave::trace::model::{CtaTrace, Ctrl, CtrlSource, KernelInfo, TraceSource};
use warpweave::trace::opcodes::Arch;
use warpweave::{Error, Result};

/// Trace format on either side of a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// warpweave's compact binary format (.wwt).
    Compact,
    /// An Accel-Sim text trace folder (kernelslist.g + kernel-N.traceg).
    Text,
}

#[derive(Args, Debug, Clone)]
pub struct ConvertArgs {
    /// Input trace: an Accel-Sim folder, kernelslist.g, a kernel-N.traceg (optionally .gz/.zst/.xz),
    /// or a compact file (detected by its magic bytes).
    pub input: PathBuf,
    /// Output path: a compact file, or a folder for text. Default: `<input>.wwt` for compact,
    /// `<input stem>-text/` for text.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format. Default: the other format than the input's.
    #[arg(long, value_enum)]
    pub to: Option<Format>,
    /// zstd level of the compact output (1..=22).
    #[arg(long, default_value_t = 19, value_parser = clap::value_parser!(i32).range(1..=22))]
    pub level: i32,
    /// A compact chunk closes once it holds this many warp instructions (smaller: faster random
    /// access to one CTA; larger: smaller file).
    #[arg(long, default_value_t = 1 << 15, value_parser = clap::value_parser!(u64).range(1..))]
    pub chunk_insts: u64,
    /// Architecture used to classify opcodes of text kernels whose `binary version` is 0.
    #[arg(long, value_enum, default_value = "turing")]
    pub arch: ArchArg,
    /// After writing, read the output back and compare it with the input CTA by CTA.
    #[arg(long)]
    pub verify: bool,
    /// Benchmark decoding of the compact input (or output) for about this many seconds and
    /// print warp instructions per second; with no output path given, nothing is converted.
    #[arg(long, value_name = "SECONDS")]
    pub bench_decode: Option<f64>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `--arch` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ArchArg {
    Pascal,
    Volta,
    Turing,
    Ampere,
    Ada,
    Hopper,
}

impl From<ArchArg> for Arch {
    fn from(a: ArchArg) -> Arch {
        match a {
            ArchArg::Pascal => Arch::Pascal,
            ArchArg::Volta => Arch::Volta,
            ArchArg::Turing => Arch::Turing,
            ArchArg::Ampere => Arch::Ampere,
            ArchArg::Ada => Arch::Ada,
            ArchArg::Hopper => Arch::Hopper,
        }
    }
}

fn path_is_compact(path: &Path) -> bool {
    warpweave::trace::open::is_compact_file(path)
}

/// A trace to convert, read leniently: unknown opcodes and kernels with CTAs missing pass
/// through as they are (the converted trace is checked when it is simulated).
fn open_source(path: &Path, arch: Arch) -> Result<Box<dyn TraceSource + Send>> {
    use warpweave::trace::check::Policy;
    let policy = Policy::LENIENT.with_max_cta_insts(crate::cmd_run::max_cta_insts(None)?);
    warpweave::trace::open::open_spec_with(&path.to_string_lossy(), arch, policy)
}

fn default_output(input: &Path, to: Format) -> PathBuf {
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "trace".into());
    let stem = name.strip_suffix(".wwt").unwrap_or(&name).to_string();
    let parent = input.parent().unwrap_or(Path::new(""));
    match to {
        Format::Compact => parent.join(format!("{stem}.wwt")),
        Format::Text => parent.join(format!("{stem}-text")),
    }
}

pub fn run(args: &ConvertArgs) -> Result<()> {
    let arch: Arch = args.arch.into();
    let input_compact = path_is_compact(&args.input);
    if args.bench_decode.is_some() && args.output.is_none() && args.to.is_none() {
        if !input_compact {
            return Err(Error::other(format!(
                "{}: --bench-decode needs a compact file",
                args.input.display()
            )));
        }
        return bench_decode(&args.input, args.bench_decode.unwrap_or(1.0));
    }
    let to = args.to.unwrap_or(if input_compact {
        Format::Text
    } else {
        Format::Compact
    });
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| default_output(&args.input, to));
    let inputs = trace_inputs(&args.input.to_string_lossy());
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    refuse_overwrite(
        &[Output {
            what: "output",
            path: &out,
            folder: to == Format::Text,
        }],
        &inputs,
    )?;
    let mut src = open_source(&args.input, arch)?;
    let t0 = Instant::now();
    let mut counted = crate::counted::Counted::new(&mut *src, "converting", args.quiet);
    match to {
        Format::Compact => {
            let shown = out.display().to_string();
            // Written beside and renamed once complete: a conversion that fails or is stopped
            // midway leaves the previous output as it was.
            let mut f = AtomicFile::create(&out)?;
            let opts = WriteOptions {
                level: args.level,
                chunk_insts: args.chunk_insts,
            };
            let s = write_compact(&mut counted, &mut f, &opts, &mut |_| {})
                .map_err(|e| rename_output(e, &shown))?;
            f.commit()?;
            counted.bar().finish();
            eprintln!(
                "wrote {shown}: {} bytes, {} kernels, {} CTAs, {} warp instructions in {} chunks ({:.2} s), hash {:016x}",
                s.bytes,
                s.kernels,
                s.ctas,
                s.warp_insts,
                s.chunks,
                t0.elapsed().as_secs_f64(),
                s.trace_hash
            );
        }
        Format::Text => {
            let with_ctrl = (0..counted.kernel_count())
                .filter(|&k| counted.kernel_info(k).ctrl_source != CtrlSource::None)
                .count();
            let names = write_dir(&out, &mut counted)?;
            counted.bar().finish();
            eprintln!(
                "wrote {}: kernelslist.g and {} kernel files ({:.2} s)",
                out.display(),
                names.len(),
                t0.elapsed().as_secs_f64()
            );
            if with_ctrl > 0 {
                eprintln!(
                    "note: Accel-Sim text has no place for compiler control bits: those of {with_ctrl} kernels were left out (warpweave annotate joins them again from the SASS)"
                );
            }
        }
    }
    if args.verify {
        let mut a = open_source(&args.input, arch)?;
        let mut b = open_source(&out, arch)?;
        verify(&mut *a, &mut *b, to == Format::Text)?;
        eprintln!(
            "verified: {} and {} hold the same kernels, CTAs and instructions",
            args.input.display(),
            out.display()
        );
    }
    if let Some(secs) = args.bench_decode {
        let target = if to == Format::Compact {
            &out
        } else {
            &args.input
        };
        bench_decode(target, secs)?;
    }
    Ok(())
}

fn rename_output(e: Error, shown: &str) -> Error {
    match e {
        Error::Io { path, source } if path == "compact output" => Error::io(shown, source),
        other => other,
    }
}

/// Compares two sources CTA by CTA (streaming: one CTA of each in memory at a time);
/// `no_ctrl`: the output cannot hold control bits (text), so they are not compared.
fn verify(a: &mut dyn TraceSource, b: &mut dyn TraceSource, no_ctrl: bool) -> Result<()> {
    let fail = |what: String| Err(Error::other(format!("verify: {what}")));
    if a.commands() != b.commands() {
        return fail("the command lists differ".into());
    }
    if a.kernel_count() != b.kernel_count() {
        return fail(format!(
            "{} kernels against {}",
            a.kernel_count(),
            b.kernel_count()
        ));
    }
    for k in 0..a.kernel_count() {
        let mut sa = a.open_kernel(k)?;
        let mut sb = b.open_kernel(k)?;
        let header = |i: &KernelInfo| {
            let mut i = i.clone();
            if no_ctrl {
                i.ctrl_source = CtrlSource::None;
            }
            i
        };
        if header(sa.info()) != header(sb.info()) {
            return fail(format!("kernel {k}: headers differ"));
        }
        let mut i = 0u64;
        loop {
            let (ca, cb) = (sa.next_cta()?, sb.next_cta()?);
            match (ca, cb) {
                (None, None) => break,
                (Some(x), Some(y)) => {
                    for (wx, wy) in x.warps.iter().zip(&y.warps) {
                        for (ix, iy) in wx.insts.iter().zip(&wy.insts) {
                            if sa.ops().get(ix.op).name != sb.ops().get(iy.op).name {
                                return fail(format!(
                                    "kernel {k} CTA {i}: opcode names differ at pc {:#x}",
                                    ix.pc
                                ));
                            }
                        }
                    }
                    let strip = |c: &CtaTrace| {
                        let mut c = c.clone();
                        c.warps.iter_mut().for_each(|w| {
                            w.insts.iter_mut().for_each(|x| {
                                x.op = Default::default();
                                if no_ctrl {
                                    x.ctrl = Ctrl::NONE;
                                }
                            })
                        });
                        c
                    };
                    if strip(&x) != strip(&y) {
                        return fail(format!("kernel {k} CTA {i} ({}) differs", x.id));
                    }
                }
                _ => return fail(format!("kernel {k}: CTA counts differ at CTA {i}")),
            }
            i += 1;
        }
    }
    Ok(())
}

/// Decodes a compact file in memory repeatedly for about `secs` seconds: serial through the
/// reader, and chunk-parallel when built with the `parallel` feature.
fn bench_decode(path: &Path, secs: f64) -> Result<()> {
    let shown = path.display().to_string();
    let data = std::fs::read(path).map_err(|e| Error::io(&shown, e))?;
    let (n, rounds, dt) = repeat(secs, || decode_all_count(&data))?;
    let serial = (n * rounds) as f64 / dt;
    crate::outln!(
        "decode {shown}: {n} warp instructions, serial {serial:.0} WIPS ({:.1} MB/s of file) over {rounds} rounds",
        (data.len() as u64 * rounds) as f64 / dt / 1e6
    );
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        let mut rd = CompactReader::from_slice(&data, &shown)?;
        let mut raws = Vec::new();
        for k in 0..rd.kernel_count() {
            for c in 0..rd.chunk_count(k) {
                raws.push((k, c, rd.raw_chunk(k, c)?));
            }
        }
        let (n, rounds, dt) = repeat(secs, || {
            raws.par_iter()
                .map(|(k, c, raw)| {
                    decode_chunk(&rd, *k, *c, raw)
                        .map(|v| v.iter().map(|x| x.warp_insts()).sum::<u64>())
                })
                .try_reduce(|| 0, |a, b| Ok(a + b))
        })?;
        crate::outln!(
            "decode {shown}: parallel {:.0} WIPS on {} threads ({} chunks)",
            (n * rounds) as f64 / dt,
            rayon::current_num_threads(),
            raws.len()
        );
    }
    #[cfg(not(feature = "parallel"))]
    let _ = decode_chunk::<std::io::Cursor<&[u8]>>;
    Ok(())
}

fn repeat(secs: f64, mut f: impl FnMut() -> Result<u64>) -> Result<(u64, u64, f64)> {
    let t0 = Instant::now();
    let mut rounds = 0u64;
    let mut n = 0;
    while rounds == 0 || t0.elapsed().as_secs_f64() < secs {
        n = f()?;
        rounds += 1;
    }
    Ok((n, rounds, t0.elapsed().as_secs_f64().max(1e-9)))
}
