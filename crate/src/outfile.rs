//! Files the tool writes, written so that nothing is lost (native only): every output goes to a
//! temporary file beside it and is renamed into place once complete, so a run that fails or is
//! stopped midway leaves the previous output as it was; and an output that is one of the
//! inputs is refused before anything runs.
//!
//! ```text
//!  AtomicFile::create(out) ─> .out.wwtmp-<pid>-<n> ─ write ─> commit() ─rename─> out
//!                                  └─ dropped without commit: removed, `out` untouched
//!  Staged: several AtomicFiles (a text trace folder) renamed together at the end
//!  refuse_overwrite(outputs, inputs): same file after resolving links -> error naming both
//! ```

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{Error, Result};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Where `dest` really is: a link is followed so the file it points to is replaced, not the
/// link; a path that does not exist yet is kept as given.
fn real_dest(dest: &Path) -> PathBuf {
    match std::fs::symlink_metadata(dest) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(dest).unwrap_or_else(|_| dest.to_path_buf())
        }
        _ => dest.to_path_buf(),
    }
}

/// A file being written beside its destination; [`AtomicFile::commit`] renames it into place.
/// Dropped without a commit (an error, a panic), the temporary file is removed.
pub struct AtomicFile {
    dest: PathBuf,
    shown: String,
    tmp: PathBuf,
    w: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `dest` (its folder must exist).
    pub fn create(dest: &Path) -> Result<AtomicFile> {
        let shown = dest.display().to_string();
        let dest = real_dest(dest);
        if dest.is_dir() {
            return Err(Error::other(format!(
                "{shown}: is a folder, expected a file name"
            )));
        }
        let name = dest
            .file_name()
            .ok_or_else(|| Error::other(format!("{shown}: expected a file name")))?
            .to_string_lossy()
            .into_owned();
        let dir = dest.parent().unwrap_or(Path::new(""));
        let mut tries = 0;
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let tmp = dir.join(format!(".{name}.wwtmp-{}-{n}", std::process::id()));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
            {
                Ok(f) => {
                    return Ok(AtomicFile {
                        dest,
                        shown,
                        tmp,
                        w: Some(BufWriter::with_capacity(1 << 16, f)),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 100 => {
                    tries += 1;
                }
                Err(e) => return Err(Error::io(shown, e)),
            }
        }
    }

    /// The destination as the user named it (for messages).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Flushes the data and renames the file into place.
    pub fn commit(mut self) -> Result<()> {
        self.finish()?;
        self.rename()
    }

    /// Flushes and closes the temporary file (still not in place).
    fn finish(&mut self) -> Result<()> {
        if let Some(w) = self.w.take() {
            let f = w
                .into_inner()
                .map_err(|e| Error::io(&self.shown, e.into_error()))?;
            // Keep the mode of the file being replaced (a script stays executable).
            if let Ok(m) = std::fs::metadata(&self.dest) {
                let _ = f.set_permissions(m.permissions());
            }
        }
        Ok(())
    }

    fn rename(&mut self) -> Result<()> {
        std::fs::rename(&self.tmp, &self.dest).map_err(|e| Error::io(&self.shown, e))?;
        self.tmp = PathBuf::new();
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.w {
            Some(w) => w.write(buf),
            None => Err(std::io::Error::other("file already closed")),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match &mut self.w {
            Some(w) => w.write_all(buf),
            None => Err(std::io::Error::other("file already closed")),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.w {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        self.w = None;
        if !self.tmp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes a whole file at once through an [`AtomicFile`] (its folder must exist).
pub fn write_file(dest: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    let mut f = AtomicFile::create(dest)?;
    f.write_all(bytes.as_ref())
        .map_err(|e| Error::io(f.shown().to_string(), e))?;
    f.commit()
}

/// Files written together (the files of a text trace folder): each is complete beside its
/// destination before any is renamed into place, so a failure leaves every old file as it was.
#[derive(Default)]
pub struct Staged {
    files: Vec<AtomicFile>,
}

impl Staged {
    pub fn new() -> Staged {
        Staged::default()
    }

    /// Starts one more file of the set.
    pub fn create(&mut self, dest: &Path) -> Result<&mut AtomicFile> {
        self.files.push(AtomicFile::create(dest)?);
        Ok(self.files.last_mut().expect("just pushed"))
    }

    /// Closes every file, then renames them into place in the order they were created.
    pub fn commit(mut self) -> Result<()> {
        for f in &mut self.files {
            f.finish()?;
        }
        for f in &mut self.files {
            f.rename()?;
        }
        Ok(())
    }
}

/// The identity of a path for comparisons: links and `..` resolved where the path exists,
/// else its folder resolved and the name kept.
pub fn identity(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = std::fs::canonicalize(p) {
        return Some(c);
    }
    let name = p.file_name()?;
    let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = match dir {
        Some(d) => std::fs::canonicalize(d).ok()?,
        None => std::env::current_dir().ok()?,
    };
    Some(dir.join(name))
}

/// An output that names an input.
pub struct Output<'a> {
    /// What the output is, for the message (`-o`, `--json`).
    pub what: &'a str,
    pub path: &'a Path,
    /// A folder output: refused also when it is an input's folder.
    pub folder: bool,
}

/// Refuses any output that is one of the inputs (the same file once links are resolved), and
/// a folder output that is an input folder or holds an input file directly. Run it before any
/// work, so nothing is overwritten.
pub fn refuse_overwrite(outputs: &[Output], inputs: &[&Path]) -> Result<()> {
    for o in outputs {
        let Some(oid) = identity(o.path) else {
            continue;
        };
        for i in inputs {
            let Some(iid) = identity(i) else { continue };
            let same = oid == iid
                || (o.folder && !iid.is_dir() && iid.parent().is_some_and(|parent| parent == oid));
            if same {
                return Err(Error::other(format!(
                    "{} {}: is the input {}; refusing to overwrite it (name another output)",
                    o.what,
                    o.path.display(),
                    i.display()
                )));
            }
        }
    }
    Ok(())
}

/// The files a trace given as `spec` reads: a built-in workload none, a file itself (and for a
/// kernel list its folder's trace files), a folder its trace files (`kernelslist*`, `*.traceg*`,
/// `*.trace*`, `*.wwt`). Other files in a trace folder (earlier results) may be written over.
pub fn trace_inputs(spec: &str) -> Vec<PathBuf> {
    if spec.starts_with("builtin:") {
        return Vec::new();
    }
    let p = Path::new(spec);
    let mut v = vec![p.to_path_buf()];
    let dir = if p.is_dir() {
        Some(p.to_path_buf())
    } else if p
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("kernelslist"))
    {
        p.parent().map(Path::to_path_buf)
    } else {
        None
    };
    if let Some(d) = dir {
        let d = if d.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            d
        };
        if let Ok(rd) = std::fs::read_dir(&d) {
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if n.starts_with("kernelslist")
                    || n.contains(".traceg")
                    || n.contains(".trace")
                    || n.ends_with(".wwt")
                {
                    v.push(e.path());
                }
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ww-outfile-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn an_uncommitted_file_leaves_the_old_one() {
        let d = dir("uncommitted");
        let p = d.join("out.txt");
        std::fs::write(&p, "old").unwrap();
        {
            let mut f = AtomicFile::create(&p).unwrap();
            f.write_all(b"new but unfinished").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(
            std::fs::read_dir(&d).unwrap().count(),
            1,
            "no temp file left"
        );
        write_file(&p, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
    }

    #[test]
    fn same_file_through_a_link_is_refused() {
        let d = dir("link");
        let a = d.join("a.wwt");
        std::fs::write(&a, "x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&a, d.join("b.wwt")).unwrap();
        #[cfg(unix)]
        {
            let b = d.join("b.wwt");
            let e = refuse_overwrite(
                &[Output {
                    what: "-o",
                    path: &b,
                    folder: false,
                }],
                &[&a],
            )
            .unwrap_err()
            .to_string();
            assert!(e.contains("b.wwt") && e.contains("a.wwt"), "{e}");
        }
        let c = d.join("sub/../c.wwt");
        assert!(refuse_overwrite(
            &[Output {
                what: "-o",
                path: &c,
                folder: false
            }],
            &[&a]
        )
        .is_ok());
    }
}
