//! Standard output that a closed pipe does not break: `warpweave run ... | head -1` ends the
//! reader early, and Rust's `println!` would panic on the broken pipe before the run's files
//! are written. Here a broken pipe only stops further printing; the command goes on, writes
//! its files and exits as it would have.
//!
//! ```text
//!  outln!(..) / out!(..) ─> Stdout::write ─ EPIPE ─> CLOSED = true, later output dropped
//! ```

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// A `Write` to standard output that swallows a broken pipe (and everything after it).
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if CLOSED.load(Ordering::Relaxed) {
            return Ok(buf.len());
        }
        match std::io::stdout().lock().write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                CLOSED.store(true, Ordering::Relaxed);
                Ok(buf.len())
            }
            r => r,
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if CLOSED.load(Ordering::Relaxed) {
            return Ok(());
        }
        match std::io::stdout().lock().flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                CLOSED.store(true, Ordering::Relaxed);
                Ok(())
            }
            r => r,
        }
    }
}

/// Prints formatted text; another output error (a full disk) is reported once on stderr and
/// stops further printing, without stopping the command.
pub fn print(args: std::fmt::Arguments) {
    let mut s = Stdout;
    if let Err(e) = s.write_fmt(args) {
        if !CLOSED.swap(true, Ordering::Relaxed) {
            eprintln!("warning: standard output: {e}");
        }
    }
}

/// `println!` through [`Stdout`].
#[macro_export]
macro_rules! outln {
    () => {
        $crate::stdout::print(format_args!("\n"))
    };
    ($($t:tt)*) => {
        $crate::stdout::print(format_args!("{}\n", format_args!($($t)*)))
    };
}

/// `print!` through [`Stdout`].
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => {
        $crate::stdout::print(format_args!($($t)*))
    };
}
