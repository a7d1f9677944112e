//! Opening trace inputs: plain, gzip, zstd or xz, detected by their magic bytes (never by the
//! file name) and decoded as a stream, so a large trace is never held in memory whole.
//!
//! ```text
//!  bytes ──peek 6──> 1f 8b        gzip  (flate2, multi-member)
//!                    28 b5 2f fd  zstd  (ruzstd streaming decoder)
//!                    fd 37 7a 58 5a 00  xz (lzma-rs; natively on a helper thread feeding a
//!                                          bounded channel; in wasm decoded up front)
//!                    otherwise    plain
//! ```
//! Everything here is pure Rust, so it also works in the browser. The only file-system helpers
//! are behind `cfg(not(target_arch = "wasm32"))`.

use std::io::{self, BufRead, BufReader, Read};

use crate::{Error, Result};

/// Compression formats we recognise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
    Xz,
}

impl Compression {
    /// Detects the format from the first bytes of the input (up to 6 are looked at).
    pub fn detect(magic: &[u8]) -> Compression {
        if magic.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if magic.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else {
            Compression::None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "plain",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
        }
    }
}

/// A boxed line-readable input.
pub type Input = Box<dyn BufRead + Send>;

/// Buffer size of every reader we create.
const BUF: usize = 1 << 16;

/// Wraps `raw` so that it yields the decompressed bytes, whatever the compression.
/// `name` is used in error messages only.
pub fn decompress(raw: Box<dyn Read + Send>, name: &str) -> Result<Input> {
    let mut br = BufReader::with_capacity(BUF, raw);
    let magic = peek(&mut br, 6).map_err(|e| Error::io(name, e))?;
    Ok(match Compression::detect(&magic) {
        Compression::None => Box::new(br),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            BUF,
            flate2::bufread::MultiGzDecoder::new(br),
        )),
        Compression::Zstd => {
            let d = ruzstd::decoding::StreamingDecoder::new(br).map_err(|e| {
                Error::parse(
                    name,
                    0,
                    "zstd frame",
                    format!("not a valid zstd stream: {e}"),
                )
            })?;
            Box::new(BufReader::with_capacity(BUF, d))
        }
        Compression::Xz => xz_reader(br, name)?,
    })
}

/// Returns the first `n` bytes (fewer at end of input) without consuming them.
fn peek<R: Read>(br: &mut BufReader<R>, n: usize) -> io::Result<Vec<u8>> {
    // fill_buf returns what one read gave; short reads at the start are rare but possible, so
    // only peek what is there (a 1-byte first read of an xz file would be misdetected as plain;
    // the readers we wrap, files and slices, always fill the buffer).
    let b = br.fill_buf()?;
    Ok(b[..b.len().min(n)].to_vec())
}

#[cfg(not(target_arch = "wasm32"))]
fn xz_reader(br: BufReader<Box<dyn Read + Send>>, name: &str) -> Result<Input> {
    use std::sync::mpsc::sync_channel;
    let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(4);
    let name_owned = name.to_string();
    std::thread::Builder::new()
        .name("xz-decode".into())
        .spawn(move || {
            let mut br = br;
            let mut w = ChunkSender {
                tx: tx.clone(),
                buf: Vec::with_capacity(BUF),
            };
            let r = lzma_rs::xz_decompress(&mut br, &mut w);
            let r = match r {
                Ok(()) => io::Write::flush(&mut w),
                Err(e) => Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{name_owned}: xz: {e}"),
                )),
            };
            if let Err(e) = r {
                let _ = tx.send(Err(e));
            }
        })
        .map_err(|e| Error::io(name, e))?;
    Ok(Box::new(BufReader::with_capacity(
        BUF,
        ChunkReader {
            rx,
            cur: Vec::new(),
            pos: 0,
        },
    )))
}

#[cfg(target_arch = "wasm32")]
fn xz_reader(mut br: BufReader<Box<dyn Read + Send>>, name: &str) -> Result<Input> {
    // No threads in the browser: decode up front (documented in DEVIATIONS).
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut br, &mut out)
        .map_err(|e| Error::parse(name, 0, "xz stream", format!("not a valid xz stream: {e}")))?;
    Ok(Box::new(io::Cursor::new(out)))
}

#[cfg(not(target_arch = "wasm32"))]
struct ChunkSender {
    tx: std::sync::mpsc::SyncSender<io::Result<Vec<u8>>>,
    buf: Vec<u8>,
}

#[cfg(not(target_arch = "wasm32"))]
impl io::Write for ChunkSender {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= BUF {
            self.flush()?;
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.buf, Vec::with_capacity(BUF));
        // The reader went away: stop decoding.
        self.tx
            .send(Ok(chunk))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "reader closed"))
    }
}

#[cfg(not(target_arch = "wasm32"))]
struct ChunkReader {
    rx: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    cur: Vec<u8>,
    pos: usize,
}

#[cfg(not(target_arch = "wasm32"))]
impl Read for ChunkReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.cur.len() {
            match self.rx.recv() {
                Ok(Ok(chunk)) => {
                    self.cur = chunk;
                    self.pos = 0;
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => return Ok(0), // sender finished: end of stream
            }
        }
        let n = out.len().min(self.cur.len() - self.pos);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Opens a byte slice (shared, so many kernels can be opened from one upload).
pub fn open_bytes(bytes: std::sync::Arc<[u8]>, name: &str) -> Result<Input> {
    decompress(Box::new(io::Cursor::new(ArcBytes(bytes))), name)
}

/// `AsRef<[u8]>` for an `Arc<[u8]>` so it can sit in a `Cursor`.
#[derive(Clone)]
struct ArcBytes(std::sync::Arc<[u8]>);

impl AsRef<[u8]> for ArcBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Opens a regular file (never a device or a FIFO), decompressing it if needed.
#[cfg(not(target_arch = "wasm32"))]
pub fn open_file(path: &std::path::Path) -> Result<Input> {
    let name = path.display().to_string();
    let f = crate::infile::open_regular(path)?;
    decompress(Box::new(f), &name)
}

/// The file name with a compression suffix (`.gz`, `.zst`, `.xz`) removed.
pub fn strip_compression_suffix(name: &str) -> &str {
    for s in [".gz", ".zst", ".zstd", ".xz"] {
        if let Some(stem) = name.strip_suffix(s) {
            return stem;
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const TEXT: &[u8] = b"-kernel name = k\nline two\n";

    fn read_all(mut i: Input) -> Vec<u8> {
        let mut v = Vec::new();
        i.read_to_end(&mut v).unwrap();
        v
    }

    pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        io::Write::write_all(&mut e, data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn detects_and_decodes_every_format() {
        let plain: Arc<[u8]> = TEXT.into();
        assert_eq!(read_all(open_bytes(plain, "p").unwrap()), TEXT);

        let gz = gzip(TEXT);
        assert_eq!(Compression::detect(&gz), Compression::Gzip);
        assert_eq!(read_all(open_bytes(gz.into(), "g").unwrap()), TEXT);

        let zst =
            ruzstd::encoding::compress_to_vec(TEXT, ruzstd::encoding::CompressionLevel::Fastest);
        assert_eq!(Compression::detect(&zst), Compression::Zstd);
        assert_eq!(read_all(open_bytes(zst.into(), "z").unwrap()), TEXT);

        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &TEXT[..], &mut xz).unwrap();
        assert_eq!(Compression::detect(&xz), Compression::Xz);
        assert_eq!(read_all(open_bytes(xz.into(), "x").unwrap()), TEXT);
    }

    #[test]
    fn large_xz_streams_through_the_channel_in_order() {
        // More than a few channel chunks, so ordering and end-of-stream are exercised.
        let data: Vec<u8> = (0..400_000u32)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &data[..], &mut xz).unwrap();
        assert_eq!(read_all(open_bytes(xz.into(), "x").unwrap()), data);
    }

    #[test]
    fn corrupt_compressed_input_is_an_error_not_a_panic() {
        let mut gz = gzip(TEXT);
        let n = gz.len();
        gz.truncate(n - 12);
        let mut i = open_bytes(gz.into(), "g").unwrap();
        let mut v = Vec::new();
        assert!(i.read_to_end(&mut v).is_err());

        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &TEXT[..], &mut xz).unwrap();
        xz[20] ^= 0xff;
        let mut i = open_bytes(xz.into(), "x").unwrap();
        let mut v = Vec::new();
        assert!(i.read_to_end(&mut v).is_err());

        let bad_zstd: Vec<u8> = vec![0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff, 0xff];
        assert!(open_bytes(bad_zstd.into(), "z").is_err());
    }

    #[test]
    fn suffixes_are_stripped() {
        assert_eq!(
            strip_compression_suffix("kernel-1.traceg.xz"),
            "kernel-1.traceg"
        );
        assert_eq!(
            strip_compression_suffix("kernel-1.trace.zst"),
            "kernel-1.trace"
        );
        assert_eq!(
            strip_compression_suffix("kernel-1.traceg"),
            "kernel-1.traceg"
        );
    }
}
