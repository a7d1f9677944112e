//! Archives of a trace folder, unpacked in memory: a `.zip` (stored or deflated entries), a
//! `.tar`, or a compressed tar (`.tar.gz`, `.tgz`, `.tar.zst`, `.tar.xz`). Each entry keeps its
//! path inside the archive; directories, links and hidden files (`.name`, `__MACOSX/`) are
//! left out.
//!
//! ```text
//!  "PK\x03\x04" ───────────────> zip: central directory -> entries (method 0 or 8)
//!  "ustar" at byte 257 ────────> tar: 512-byte headers (ustar prefix, GNU long names)
//!  gzip / zstd / xz whose first 512 decoded bytes are a tar header ──> decoded, then tar
//! ```

use std::io::Read;

use crate::trace::io::{decompress, Compression};
use crate::{Error, Result};

/// One file of an archive: its path inside the archive and its bytes.
pub type Entry = (String, Vec<u8>);

/// True when `bytes` start a zip archive.
pub fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// True when `bytes` start a tar archive (a ustar or GNU header).
pub fn is_tar(bytes: &[u8]) -> bool {
    bytes.len() >= 512 && &bytes[257..262] == b"ustar"
}

/// The entries of `bytes` when they are an archive (named `name` in errors), else `None`.
pub fn unpack(name: &str, bytes: &[u8]) -> Result<Option<Vec<Entry>>> {
    if is_zip(bytes) {
        return unzip(name, bytes).map(Some);
    }
    if is_tar(bytes) {
        return untar(name, bytes).map(Some);
    }
    if Compression::detect(&bytes[..bytes.len().min(6)]) == Compression::None {
        return Ok(None);
    }
    // A compressed file: a tar inside, or (most often) one compressed kernel file.
    // The first 512 decoded bytes come from the first few KiB: no copy of a large file unless
    // it is a tar. A stream that fails this early is left to the trace reader to report.
    let open = |b: &[u8]| decompress(Box::new(std::io::Cursor::new(b.to_vec())), name);
    let mut head = Vec::with_capacity(512);
    let prefix = &bytes[..bytes.len().min(64 << 10)];
    if open(prefix)
        .and_then(|r| {
            r.take(512)
                .read_to_end(&mut head)
                .map_err(|e| Error::io(name, e))
        })
        .is_err()
        || !is_tar(&head)
    {
        return Ok(None);
    }
    let mut all = Vec::new();
    open(bytes)?
        .read_to_end(&mut all)
        .map_err(|e| Error::io(name, e))?;
    untar(name, &all).map(Some)
}

/// The archive's name without its archive suffixes (`vecadd-100.tar.gz` -> `vecadd-100`).
pub fn stem(name: &str) -> &str {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    for s in [
        ".tar.gz", ".tar.zst", ".tar.xz", ".tgz", ".tar", ".zip", ".gz", ".zst", ".xz",
    ] {
        if let Some(b) = base.strip_suffix(s) {
            if !b.is_empty() {
                return b;
            }
        }
    }
    base
}

fn wanted(path: &str) -> bool {
    !path.is_empty()
        && !path.ends_with('/')
        && !path
            .split('/')
            .any(|p| p.starts_with('.') || p == "__MACOSX")
}

fn bad(name: &str, what: impl Into<String>) -> Error {
    Error::parse(name, 0, "archive", what)
}

fn le16(b: &[u8], at: usize) -> usize {
    u16::from_le_bytes([b[at], b[at + 1]]) as usize
}

fn le32(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize
}

/// A zip archive's files, read through its central directory.
fn unzip(name: &str, b: &[u8]) -> Result<Vec<Entry>> {
    // The end-of-central-directory record: 22 bytes plus a comment of at most 64 KiB.
    let lo = b.len().saturating_sub(22 + 65535);
    let eocd = (lo..b.len().saturating_sub(21))
        .rev()
        .find(|&i| b[i..].starts_with(b"PK\x05\x06"))
        .ok_or_else(|| bad(name, "a zip without its central directory (cut short?)"))?;
    let count = le16(b, eocd + 10);
    let mut at = le32(b, eocd + 16);
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        if at + 46 > b.len() || !b[at..].starts_with(b"PK\x01\x02") {
            return Err(bad(name, "a damaged zip central directory"));
        }
        let method = le16(b, at + 10);
        let csize = le32(b, at + 20);
        let usize_ = le32(b, at + 24);
        let (nlen, elen, clen) = (le16(b, at + 28), le16(b, at + 30), le16(b, at + 32));
        let local = le32(b, at + 42);
        let path = String::from_utf8_lossy(&b[at + 46..(at + 46 + nlen).min(b.len())]).to_string();
        at += 46 + nlen + elen + clen;
        if !wanted(&path) {
            continue;
        }
        if csize == 0xffff_ffff || usize_ == 0xffff_ffff || local == 0xffff_ffff {
            return Err(bad(
                name,
                format!("{path}: a zip64 entry (over 4 GiB); unpack it and upload the folder"),
            ));
        }
        if local + 30 > b.len() || !b[local..].starts_with(b"PK\x03\x04") {
            return Err(bad(name, format!("{path}: a damaged zip entry")));
        }
        let start = local + 30 + le16(b, local + 26) + le16(b, local + 28);
        let data = b
            .get(start..start + csize)
            .ok_or_else(|| bad(name, format!("{path}: the zip is cut short")))?;
        let bytes = match method {
            0 => data.to_vec(),
            8 => {
                let mut v = Vec::with_capacity(usize_);
                flate2::read::DeflateDecoder::new(data)
                    .read_to_end(&mut v)
                    .map_err(|e| bad(name, format!("{path}: {e}")))?;
                v
            }
            m => {
                return Err(bad(
                    name,
                    format!(
                        "{path}: zip compression method {m} (only stored and deflate are read)"
                    ),
                ))
            }
        };
        out.push((path, bytes));
    }
    Ok(out)
}

fn field(b: &[u8]) -> &[u8] {
    let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    &b[..n]
}

/// A tar archive's regular files.
fn untar(name: &str, b: &[u8]) -> Result<Vec<Entry>> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut long_name: Option<String> = None;
    while at + 512 <= b.len() {
        let h = &b[at..at + 512];
        if h.iter().all(|&c| c == 0) {
            break;
        }
        let size_txt = String::from_utf8_lossy(field(&h[124..136]))
            .trim()
            .to_string();
        let size = usize::from_str_radix(if size_txt.is_empty() { "0" } else { &size_txt }, 8)
            .map_err(|_| bad(name, format!("a tar header with size `{size_txt}`")))?;
        let data = b
            .get(at + 512..at + 512 + size)
            .ok_or_else(|| bad(name, "the tar is cut short"))?;
        let kind = h[156];
        let mut path = String::from_utf8_lossy(field(&h[0..100])).to_string();
        let prefix = String::from_utf8_lossy(field(&h[345..500])).to_string();
        if &h[257..262] == b"ustar" && !prefix.is_empty() {
            path = format!("{prefix}/{path}");
        }
        if let Some(l) = long_name.take() {
            path = l;
        }
        match kind {
            b'L' => long_name = Some(String::from_utf8_lossy(field(data)).to_string()),
            b'0' | 0 | b'7' => {
                let path = path.trim_start_matches("./").to_string();
                if wanted(&path) {
                    out.push((path, data.to_vec()));
                }
            }
            _ => {}
        }
        at += 512 + size.div_ceil(512) * 512;
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A ustar archive of `files` (for tests).
    pub(crate) fn tar(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (n, d) in files {
            let mut h = [0u8; 512];
            h[..n.len()].copy_from_slice(n.as_bytes());
            h[100..107].copy_from_slice(b"0000644");
            h[124..135].copy_from_slice(format!("{:011o}", d.len()).as_bytes());
            h[156] = b'0';
            h[257..263].copy_from_slice(b"ustar\0");
            h[263..265].copy_from_slice(b"00");
            h[148..156].copy_from_slice(b"        ");
            let sum: u32 = h.iter().map(|&c| c as u32).sum();
            h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
            out.extend_from_slice(&h);
            out.extend_from_slice(d);
            out.resize(out.len().div_ceil(512) * 512, 0);
        }
        out.resize(out.len() + 1024, 0);
        out
    }

    /// A zip archive of `files`, deflated (for tests).
    pub(crate) fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
        use std::io::Write;
        let mut out = Vec::new();
        let mut cd = Vec::new();
        for (n, d) in files {
            let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(d).unwrap();
            let c = e.finish().unwrap();
            let off = out.len() as u32;
            let common = |v: &mut Vec<u8>| {
                v.extend_from_slice(&20u16.to_le_bytes()); // version needed
                v.extend_from_slice(&0u16.to_le_bytes()); // flags
                v.extend_from_slice(&8u16.to_le_bytes()); // deflate
                v.extend_from_slice(&[0; 4]); // time, date
                v.extend_from_slice(&0u32.to_le_bytes()); // crc (not checked)
                v.extend_from_slice(&(c.len() as u32).to_le_bytes());
                v.extend_from_slice(&(d.len() as u32).to_le_bytes());
                v.extend_from_slice(&(n.len() as u16).to_le_bytes());
                v.extend_from_slice(&0u16.to_le_bytes()); // extra
            };
            out.extend_from_slice(b"PK\x03\x04");
            common(&mut out);
            out.extend_from_slice(n.as_bytes());
            out.extend_from_slice(&c);
            cd.extend_from_slice(b"PK\x01\x02");
            cd.extend_from_slice(&20u16.to_le_bytes()); // version made by
            common(&mut cd);
            cd.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
            cd.extend_from_slice(&0u32.to_le_bytes()); // external attributes
            cd.extend_from_slice(&off.to_le_bytes());
            cd.extend_from_slice(n.as_bytes());
        }
        let cd_off = out.len() as u32;
        out.extend_from_slice(&cd);
        out.extend_from_slice(b"PK\x05\x06");
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(files.len() as u16).to_le_bytes());
        out.extend_from_slice(&(files.len() as u16).to_le_bytes());
        out.extend_from_slice(&(cd.len() as u32).to_le_bytes());
        out.extend_from_slice(&cd_off.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out
    }

    pub(crate) fn gzip(d: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(d).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn tar_zip_and_tar_gz_unpack_to_the_same_files() {
        let files: [(&str, &[u8]); 3] = [
            ("t/kernelslist.g", b"kernel-1.traceg\n"),
            ("t/kernel-1.traceg", b"-kernel name = k\n"),
            ("t/.hidden", b"x"),
        ];
        let want: Vec<Entry> = files[..2]
            .iter()
            .map(|(n, d)| (n.to_string(), d.to_vec()))
            .collect();
        assert_eq!(unpack("a.tar", &tar(&files)).unwrap().unwrap(), want);
        assert_eq!(unpack("a.zip", &zip(&files)).unwrap().unwrap(), want);
        let gz = gzip(&tar(&files));
        assert_eq!(unpack("a.tar.gz", &gz).unwrap().unwrap(), want);
        // A gzipped kernel file is not an archive.
        let k = gzip(b"-kernel name = k\n");
        assert!(unpack("kernel-1.traceg.gz", &k).unwrap().is_none());
        assert_eq!(stem("dir/vecadd-100.tar.gz"), "vecadd-100");
        assert_eq!(stem("x.zip"), "x");
    }
}
