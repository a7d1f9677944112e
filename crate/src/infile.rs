//! Reading input files: regular files only (a device such as `/dev/zero`, a FIFO or a socket
//! could block or never end), and files read whole only under a bound that no real one comes
//! near (a GPU TOML, a kernels list), checked before reading. The counterpart of `outfile`.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::{Error, Result};

/// The largest GPU TOML (or Accel-Sim config) read: the presets are under 20 KiB.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// What a file that is not regular is, for the message.
fn kind_of(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "character device";
        }
        if t.is_block_device() {
            return "block device";
        }
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    if t.is_dir() {
        "folder"
    } else {
        "special file"
    }
}

fn regular(shown: &str, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    Err(Error::parse(
        shown,
        0,
        "file",
        format!(
            "a {}, not a regular file (inputs are read from regular files only)",
            kind_of(meta.file_type())
        ),
    ))
}

/// Opens `path` for reading when it is a regular file (links followed); anything else is
/// refused before it is opened (opening a FIFO would wait for a writer).
pub fn open_regular(path: &Path) -> Result<File> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| Error::io(&shown, e))?;
    regular(&shown, &meta)?;
    let f = File::open(path).map_err(|e| Error::io(&shown, e))?;
    // Checked again on what was opened: the path may have changed in between.
    regular(&shown, &f.metadata().map_err(|e| Error::io(&shown, e))?)?;
    Ok(f)
}

/// The bytes of a regular file of at most `max` bytes; `what` names such files in the error
/// ("GPU TOML"). A larger file is refused before any of it is read.
pub fn read_bounded(path: &Path, max: u64, what: &str) -> Result<Vec<u8>> {
    let shown = path.display().to_string();
    let f = open_regular(path)?;
    let too_big = |n: u64| {
        Error::parse(
            &shown,
            0,
            "file",
            format!("{n} bytes: larger than any {what} (at most {max}); refused"),
        )
    };
    let len = f.metadata().map_err(|e| Error::io(&shown, e))?.len();
    if len > max {
        return Err(too_big(len));
    }
    let mut v = Vec::with_capacity(len as usize);
    f.take(max + 1)
        .read_to_end(&mut v)
        .map_err(|e| Error::io(&shown, e))?;
    if v.len() as u64 > max {
        // (It grew while we read.)
        return Err(too_big(v.len() as u64));
    }
    Ok(v)
}

/// [`read_bounded`] as UTF-8 text.
pub fn read_text_bounded(path: &Path, max: u64, what: &str) -> Result<String> {
    let bytes = read_bounded(path, max, what)?;
    String::from_utf8(bytes).map_err(|e| {
        Error::parse(
            path.display().to_string(),
            0,
            "file",
            format!(
                "not UTF-8 text (a {what} is text; byte {} is not)",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("ww-infile-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn devices_and_folders_are_refused_and_large_files_unread() {
        let d = tmp("kinds");
        #[cfg(unix)]
        {
            let e = open_regular(Path::new("/dev/zero"))
                .unwrap_err()
                .to_string();
            assert_eq!(
                e,
                "/dev/zero: file: a character device, not a regular file (inputs are read from regular files only)"
            );
            let e = read_bounded(Path::new("/dev/zero"), 10, "x").unwrap_err();
            assert!(e.to_string().contains("character device"), "{e}");
        }
        let e = open_regular(&d).unwrap_err().to_string();
        assert!(e.contains("a folder, not a regular file"), "{e}");
        let f = d.join("big.toml");
        std::fs::write(&f, vec![b'#'; 2000]).unwrap();
        let e = read_bounded(&f, 1000, "GPU TOML").unwrap_err().to_string();
        assert!(
            e.ends_with("file: 2000 bytes: larger than any GPU TOML (at most 1000); refused"),
            "{e}"
        );
        assert_eq!(read_bounded(&f, 2000, "x").unwrap().len(), 2000);
        std::fs::write(&f, [0xff, 0xfe]).unwrap();
        let e = read_text_bounded(&f, 10, "GPU TOML")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not UTF-8"), "{e}");
    }
}
