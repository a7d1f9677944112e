//! Progress on stderr for every command that can run longer than a second (`run`, `compare`,
//! `validate`, `convert`, `gen`, `sweep`). Progress is only ever shown: it never changes a
//! result or a byte of standard output.
//!
//! ```text
//!  -q / --quiet ─────────────> nothing
//!  stderr is a terminal ─────> an indicatif bar: percent, what is done, elapsed, ETA
//!  stderr is a file or pipe ─> one plain line at most every WARPWEAVE_PROGRESS_SECS seconds
//!                              (default 5), each starting with the seconds since the start:
//!                              `[12.04 s] run: 45% (1234/2743 warp instructions), ..., ETA 15 s`
//! ```

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The environment variable that sets the seconds between two plain progress lines.
pub const INTERVAL_VAR: &str = "WARPWEAVE_PROGRESS_SECS";

/// Seconds between two plain lines when [`INTERVAL_VAR`] is not set.
const DEFAULT_INTERVAL_S: f64 = 5.0;

/// One command's progress: a bar, plain lines or nothing. Clones share it (a sweep's worker
/// threads each hold one).
#[derive(Clone)]
pub struct Progress {
    shown: Shown,
}

#[derive(Clone)]
enum Shown {
    Off,
    Bar(ProgressBar),
    Plain(Arc<Mutex<Plain>>),
}

struct Plain {
    what: String,
    unit: String,
    total: u64,
    pos: u64,
    msg: String,
    started: Instant,
    last: Instant,
    interval: Duration,
}

/// The interval of plain lines: [`INTERVAL_VAR`] when it holds a number of seconds.
fn interval() -> Duration {
    let s = std::env::var(INTERVAL_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .unwrap_or(DEFAULT_INTERVAL_S);
    Duration::from_secs_f64(s)
}

/// `12 s`, `3 min 05 s`, `1 h 02 min`.
pub fn duration_text(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s < 60 {
        format!("{s} s")
    } else if s < 3600 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{} h {:02} min", s / 3600, (s % 3600) / 60)
    }
}

/// `950`, `12.3 K`, `4.56 M`, `1.2 G`: a rate or count at a glance.
pub fn si(v: f64) -> String {
    let (d, u) = if v >= 1e9 {
        (1e9, " G")
    } else if v >= 1e6 {
        (1e6, " M")
    } else if v >= 1e3 {
        (1e3, " K")
    } else {
        return format!("{v:.0}");
    };
    let x = v / d;
    if x >= 100.0 {
        format!("{x:.0}{u}")
    } else if x >= 10.0 {
        format!("{x:.1}{u}")
    } else {
        format!("{x:.2}{u}")
    }
}

impl Progress {
    /// Progress of `what` (`run`, `compare`, ...) over `total` `unit`s (`runs`, `CTAs`).
    pub fn new(what: &str, total: u64, unit: &str, quiet: bool) -> Progress {
        let shown = if quiet {
            Shown::Off
        } else if std::io::stderr().is_terminal() {
            let bar =
                ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(8));
            if let Ok(s) = ProgressStyle::with_template(&format!(
                "{what} {{bar:30}} {{percent:>3}}% ({{pos}}/{{len}} {unit}) {{msg}} [{{elapsed}}, ETA {{eta}}]"
            )) {
                bar.set_style(s);
            }
            Shown::Bar(bar)
        } else {
            let now = Instant::now();
            Shown::Plain(Arc::new(Mutex::new(Plain {
                what: what.to_string(),
                unit: unit.to_string(),
                total,
                pos: 0,
                msg: String::new(),
                started: now,
                last: now,
                interval: interval(),
            })))
        };
        Progress { shown }
    }

    /// Whether anything is shown (so callers can skip work that only feeds the display).
    pub fn shown(&self) -> bool {
        !matches!(self.shown, Shown::Off)
    }

    /// `pos` units done, with a short note (`cycle 12000, 3.2 M warp inst/s`).
    pub fn set(&self, pos: u64, msg: &str) {
        match &self.shown {
            Shown::Off => {}
            Shown::Bar(b) => {
                b.set_position(pos);
                b.set_message(msg.to_string());
            }
            Shown::Plain(p) => {
                if let Ok(mut p) = p.lock() {
                    p.pos = pos;
                    p.msg = msg.to_string();
                    p.maybe_print();
                }
            }
        }
    }

    /// One more unit done, with a note.
    pub fn inc(&self, msg: &str) {
        match &self.shown {
            Shown::Off => {}
            Shown::Bar(b) => {
                b.inc(1);
                b.set_message(msg.to_string());
            }
            Shown::Plain(p) => {
                if let Ok(mut p) = p.lock() {
                    p.pos += 1;
                    p.msg = msg.to_string();
                    p.maybe_print();
                }
            }
        }
    }

    /// Removes the bar (plain lines stay as printed).
    pub fn finish(&self) {
        if let Shown::Bar(b) = &self.shown {
            b.finish_and_clear();
        }
    }

    /// Prints `line` on stderr without tearing the bar.
    pub fn println(&self, line: &str) {
        match &self.shown {
            Shown::Bar(b) => b.suspend(|| eprintln!("{line}")),
            _ => eprintln!("{line}"),
        }
    }
}

impl Plain {
    fn maybe_print(&mut self) {
        let now = Instant::now();
        if now.duration_since(self.last) < self.interval {
            return;
        }
        self.last = now;
        let el = now.duration_since(self.started).as_secs_f64();
        let mut line = format!("[{el:.2} s] {}: ", self.what);
        if self.total > 0 {
            let f = (self.pos as f64 / self.total as f64).min(1.0);
            line += &format!(
                "{:.0}% ({}/{} {})",
                100.0 * f,
                self.pos,
                self.total,
                self.unit
            );
        } else {
            line += &format!("{} {}", self.pos, self.unit);
        }
        if !self.msg.is_empty() {
            line += &format!(", {}", self.msg);
        }
        if self.total > 0 && self.pos > 0 && self.pos < self.total {
            line += &format!(
                ", ETA {}",
                duration_text(el * (self.total - self.pos) as f64 / self.pos as f64)
            );
        }
        eprintln!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_rates_read_at_a_glance() {
        assert_eq!(duration_text(4.4), "4 s");
        assert_eq!(duration_text(125.0), "2 min 05 s");
        assert_eq!(duration_text(7322.0), "2 h 02 min");
        assert_eq!(si(950.0), "950");
        assert_eq!(si(12_345.0), "12.3 K");
        assert_eq!(si(6_794_683.0), "6.79 M");
    }
}
