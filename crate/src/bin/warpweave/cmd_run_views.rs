//! `warpweave run` views of the timeline recorder (seed 003): `--show-pipeline` prints the
//! cycle-by-cycle pipeline picture, `--animate out.gif|out.png` draws it as an animated GIF or
//! one PNG per cycle, `--timeline out.json` writes Chrome-trace / Perfetto JSON in cycles (1 ns = 1 cycle); all for the
//! cycles `--cycles A..B` of the SMs `--timeline-sms`.

use clap::Args;
use std::io::IsTerminal;
use warpweave::engine::Simulator;
use warpweave::timeline::{self, RecordConfig};
use warpweave::{Error, Result};

#[derive(Args, Debug, Clone, Default)]
pub struct ViewArgs {
    /// Print the pipeline picture of every cycle of --cycles (seed 003 Figure 3).
    #[arg(long)]
    pub show_pipeline: bool,
    /// The recorded cycle window A..B (B exclusive).
    #[arg(long, default_value = "0..64", value_name = "A..B")]
    pub cycles: String,
    /// SMs to record, comma separated.
    #[arg(long, default_value = "0", value_name = "LIST")]
    pub timeline_sms: String,
    /// Draw the picture: an animated .gif, or .png (one file per cycle: NAME-CYCLE.png).
    #[arg(long, value_name = "FILE")]
    pub animate: Option<String>,
    /// Write the recorded window as Chrome-trace / Perfetto JSON (1 ns in Perfetto = 1 cycle;
    /// a track per sub-core, execution unit and memory-pipeline stage).
    #[arg(long, value_name = "FILE")]
    pub timeline: Option<String>,
    /// Colour in the terminal picture: auto, always, never.
    #[arg(long, default_value = "auto")]
    pub color: String,
}

impl ViewArgs {
    fn wanted(&self) -> bool {
        self.show_pipeline || self.animate.is_some() || self.timeline.is_some()
    }
}

fn parse_window(s: &str) -> Result<(u64, u64)> {
    let bad = || Error::config("--cycles", format!("`{s}`: expected A..B with A < B"));
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let a: u64 = a.trim().parse().map_err(|_| bad())?;
    let b: u64 = b.trim().parse().map_err(|_| bad())?;
    if a >= b {
        return Err(bad());
    }
    Ok((a, b))
}

/// Attaches the recorders when a view is asked for.
pub fn attach(v: &ViewArgs, sim: &mut Simulator) -> Result<()> {
    if !v.wanted() {
        return Ok(());
    }
    let (from, to) = parse_window(&v.cycles)?;
    let sms = v
        .timeline_sms
        .split(',')
        .map(|x| {
            x.trim().parse::<u32>().map_err(|_| {
                Error::config("--timeline-sms", format!("`{x}`: expected an SM number"))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    timeline::attach(
        &mut sim.gpu,
        &RecordConfig {
            from,
            to,
            sms,
            ..Default::default()
        },
    )
}

/// Writes the asked-for views once the run is over.
pub fn finish(v: &ViewArgs, sim: &mut Simulator) -> Result<()> {
    if !v.wanted() {
        return Ok(());
    }
    let tl = timeline::collect(&mut sim.gpu);
    if v.show_pipeline {
        let colour = match v.color.as_str() {
            "always" => true,
            "never" => false,
            "auto" => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            o => {
                return Err(Error::config(
                    "--color",
                    format!("`{o}`: expected auto, always or never"),
                ))
            }
        };
        crate::out!("{}", timeline::ascii::render(&tl, colour));
    }
    if let Some(path) = &v.timeline {
        let j = timeline::chrome::render(&tl);
        let text = serde_json::to_string(&j).map_err(|e| Error::other(format!("JSON: {e}")))?;
        warpweave::outfile::write_file(std::path::Path::new(path), text)?;
        eprintln!("timeline: wrote {path}");
    }
    if let Some(path) = &v.animate {
        let mut n = 0;
        for si in 0..tl.sms.len() {
            let frames = timeline::image::frames(&tl, si);
            let sm = tl.sms[si].sm;
            let stem = path.trim_end_matches(".gif").trim_end_matches(".png");
            let multi = tl.sms.len() > 1;
            if path.ends_with(".png") {
                for (f, b) in tl.sms[si].frames.iter().zip(&frames) {
                    let p = if multi {
                        format!("{stem}-sm{sm}-{:06}.png", f.cycle)
                    } else {
                        format!("{stem}-{:06}.png", f.cycle)
                    };
                    warpweave::outfile::write_file(
                        std::path::Path::new(&p),
                        timeline::image::png(b),
                    )?;
                    n += 1;
                }
            } else if path.ends_with(".gif") {
                let p = if multi {
                    format!("{stem}-sm{sm}.gif")
                } else {
                    path.clone()
                };
                warpweave::outfile::write_file(
                    std::path::Path::new(&p),
                    timeline::image::gif(&frames, 50),
                )?;
                n += 1;
            } else {
                return Err(Error::config(
                    "--animate",
                    format!("`{path}`: expected a .gif or .png file name"),
                ));
            }
        }
        eprintln!("animate: wrote {n} file(s) for {path}");
    }
    Ok(())
}
