//! `warpweave config`: list the presets, show the effective configuration (with units), and
//! import an Accel-Sim gpgpusim.config + trace.config into a warpweave TOML.
//!
//! ```text
//!  warpweave config list
//!  warpweave config show rtx2080ti --set l1d.cache.size_kb=64 [--json]
//!  warpweave config show my-gpu.toml
//!  warpweave config schema                      (the key table as JSON, for the browser form)
//!  warpweave config import gpgpusim.config trace.config -o gpu.toml
//! ```
//! Wiring (in main.rs): add `Config(cmd_config::ConfigArgs)` to the top-level subcommands and
//! call `cmd_config::run(args, &mut std::io::stdout(), &mut std::io::stderr())`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use warpweave::config::{self, GpuConfig};
use warpweave::{Error, Result};

#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub cmd: ConfigCmd,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCmd {
    /// List the built-in GPU presets.
    List,
    /// Print the effective configuration: preset id or TOML path, then overrides.
    Show {
        /// Preset id (rtx2080ti, a100, teaching, ...) or a path to a GPU TOML file.
        name: String,
        /// Override one key, e.g. `--set l1d.cache.size_kb=64` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Print JSON instead of documented TOML.
        #[arg(long)]
        json: bool,
    },
    /// Print every configuration key with unit, range and doc as JSON.
    Schema,
    /// Convert an Accel-Sim gpgpusim.config + trace.config into a warpweave GPU TOML.
    Import {
        /// The gpgpusim.config file.
        gpgpusim: PathBuf,
        /// The trace.config file.
        trace: PathBuf,
        /// Where to write the TOML.
        #[arg(short = 'o', long = "out", value_name = "OUT.toml")]
        out: PathBuf,
    },
}

/// Resolve what `--gpu` and `config show` accept: a preset id or a TOML path, then overrides.
pub fn resolve_gpu(spec: &str, sets: &[String]) -> Result<GpuConfig> {
    config::load_with_overrides(spec, sets)
}

fn io(e: std::io::Error) -> Error {
    Error::io("<output>", e)
}

/// Run one `config` subcommand, writing results to `out` and warnings to `err`.
pub fn run(args: ConfigArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    match args.cmd {
        ConfigCmd::List => {
            for id in config::preset_ids() {
                let c = config::preset(id)?;
                let l2_kb = c.l2.partitions * c.l2.subpartitions * c.l2.cache.size_kb;
                writeln!(
                    out,
                    "{id:<10} {:<46} {:>3} SMs  {:>6.0} MHz  L2 {:>5} KiB",
                    c.gpu.name, c.gpu.num_sms, c.clocks.core_mhz, l2_kb
                )
                .map_err(io)?;
            }
        }
        ConfigCmd::Show { name, set, json } => {
            let cfg = resolve_gpu(&name, &set)?;
            if json {
                let text =
                    serde_json::to_string_pretty(&cfg).map_err(|e| Error::other(e.to_string()))?;
                writeln!(out, "{text}").map_err(io)?;
            } else {
                let mut header = format!("effective configuration of `{name}`");
                for s in &set {
                    header.push_str(&format!("\n  --set {s}"));
                }
                // Measured on the preset itself: overrides make it another GPU model.
                if let Some(h) = warpweave::validate::held_out::summary(&name) {
                    let note = if set.is_empty() {
                        ""
                    } else {
                        " (the preset without the --set overrides)"
                    };
                    header.push_str(&format!("\n{h}{note} (warpweave validate --hardware)"));
                }
                out.write_all(config::to_toml_with_sources(&cfg, &header, |_| None).as_bytes())
                    .map_err(io)?;
            }
        }
        ConfigCmd::Schema => {
            let text = serde_json::to_string_pretty(&config::schema_doc())
                .map_err(|e| Error::other(e.to_string()))?;
            writeln!(out, "{text}").map_err(io)?;
        }
        ConfigCmd::Import {
            gpgpusim,
            trace,
            out: path,
        } => {
            warpweave::outfile::refuse_overwrite(
                &[warpweave::outfile::Output {
                    what: "-o",
                    path: &path,
                    folder: false,
                }],
                &[&gpgpusim, &trace],
            )?;
            let read = |p: &PathBuf| {
                use warpweave::infile::{read_text_bounded, MAX_CONFIG_BYTES};
                read_text_bounded(p, MAX_CONFIG_BYTES, "Accel-Sim config")
            };
            let (g_text, t_text) = (read(&gpgpusim)?, read(&trace)?);
            let (g_name, t_name) = (gpgpusim.display().to_string(), trace.display().to_string());
            let r = config::import_accel_sim((&g_name, &g_text), (&t_name, &t_text))?;
            let mut header = format!(
                "Imported from Accel-Sim {g_name} + {t_name} by `warpweave config import`.\n\
                 {} options were not modelled or only approximated:",
                r.warnings.len()
            );
            for w in &r.warnings {
                header.push_str(&format!("\n  {w}"));
                writeln!(err, "warning: {w}").map_err(io)?;
            }
            let text = config::to_toml_with_sources(&r.config, &header, |_| None);
            warpweave::outfile::write_file(&path, text)?;
            writeln!(
                out,
                "wrote {} ({} warnings)",
                path.display(),
                r.warnings.len()
            )
            .map_err(io)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(subcommand)]
        cmd: ConfigCmd,
    }

    fn run_args(argv: &[&str]) -> (Result<()>, String, String) {
        let cli =
            Cli::try_parse_from(std::iter::once("config").chain(argv.iter().copied())).unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let r = run(ConfigArgs { cmd: cli.cmd }, &mut out, &mut err);
        (
            r,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn list_shows_every_preset() {
        let (r, out, _) = run_args(&["list"]);
        r.unwrap();
        assert_eq!(out.lines().count(), config::preset_ids().len());
        assert!(out
            .lines()
            .next()
            .unwrap()
            .starts_with("rtx2080ti  NVIDIA GeForce RTX 2080 Ti"));
        assert!(out.contains(" 68 SMs    1350 MHz  L2  5632 KiB"), "{out}");
    }

    #[test]
    fn show_applies_overrides_and_round_trips() {
        let (r, out, _) = run_args(&[
            "show",
            "rtx2080ti",
            "--set",
            "l1d.cache.size_kb=64",
            "--set",
            "gpu.num_sms=34",
        ]);
        r.unwrap();
        assert!(out.contains("#   --set l1d.cache.size_kb=64\n"));
        assert!(out.contains("num_sms = 34 "));
        let back = config::parse_toml("show", &out).unwrap();
        assert_eq!((back.gpu.num_sms, back.l1d.cache.size_kb), (34, 64));
        let (r, out, _) = run_args(&["show", "teaching", "--json"]);
        r.unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["gpu"]["num_sms"], 1);
        let (r, _, _) = run_args(&["show", "rtx2080ti", "--set", "l1d.cache.assoc=0"]);
        assert_eq!(
            r.unwrap_err().to_string(),
            "config key `l1d.cache.assoc`: 0 is out of range 1..=1024"
        );
    }

    #[test]
    fn import_writes_a_loadable_toml_and_warns() {
        let fx =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/accelsim_sm75");
        let out_path =
            std::env::temp_dir().join(format!("warpweave-import-{}.toml", std::process::id()));
        let (r, out, err) = run_args(&[
            "import",
            fx.join("gpgpusim.config").to_str().unwrap(),
            fx.join("trace.config").to_str().unwrap(),
            "-o",
            out_path.to_str().unwrap(),
        ]);
        r.unwrap();
        assert!(out.starts_with("wrote "), "{out}");
        assert!(err.contains("-gpgpu_tex_cache:l1"), "{err}");
        let c = config::load(out_path.to_str().unwrap()).unwrap();
        assert_eq!(
            (c.gpu.num_sms, c.l1d.cache.size_kb, c.l2.cache.size_kb),
            (46, 32, 128)
        );
        std::fs::remove_file(&out_path).ok();
    }
}
