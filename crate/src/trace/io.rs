//! Opening trace inputs: plain, gzip, zstd or xz, detected by their magic bytes (never by the
//! file name) and decoded as a stream, so a large trace is never held in memory whole.
//!
//! ```text
//!  bytes ──peek 6──> 1f 8b        gzip  (flate2, multi-member)
//!                    28 b5 2f fd  zstd  (ruzstd streaming decoder)
//!                    fd 37 7a 58 5a 00  xz (lzma-rust2, streaming; natively on a helper
//!                                          thread a few buffers ahead)
//!                    otherwise    plain
//! ```
//! Memory is bounded whatever the input claims: a zstd window above [`MAX_ZSTD_WINDOW`] and an
//! xz dictionary above 64 MiB are refused before decoding, so a small file that expands to
//! gigabytes (a decompression bomb) costs only what the readers above read of it.
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
    let magic = peek(&mut br, 18).map_err(|e| Error::io(name, e))?;
    Ok(match Compression::detect(&magic) {
        Compression::None => Box::new(br),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            BUF,
            flate2::bufread::MultiGzDecoder::new(br),
        )),
        Compression::Zstd => {
            if let Some(w) = zstd_window(&magic).filter(|&w| w > MAX_ZSTD_WINDOW) {
                return Err(Error::parse(
                    name,
                    0,
                    "zstd frame",
                    format!(
                        "a window of {w} bytes: more than the {MAX_ZSTD_WINDOW} this reader \
                         holds (recompress without --ultra or --long, e.g. `zstd -19`)"
                    ),
                ));
            }
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

/// Returns the first `n` bytes (fewer at end of input) without consuming them (`n` at most the
/// buffer's size).
fn peek<R: Read>(br: &mut BufReader<R>, n: usize) -> io::Result<Vec<u8>> {
    // fill_buf returns what one read gave; short reads at the start are rare but possible, so
    // only peek what is there (a 1-byte first read of an xz file would be misdetected as plain;
    // the readers we wrap, files and slices, always fill the buffer).
    let b = br.fill_buf()?;
    Ok(b[..b.len().min(n)].to_vec())
}

/// The largest xz dictionary accepted: `xz -9` uses 64 MiB; a header asking for more is
/// refused before anything is decoded.
const MAX_XZ_MEMORY_KIB: u32 = 96 << 10;

/// An xz stream (several concatenated ones too), decoded as it is read: memory is the
/// dictionary the stream declares, never a whole block. Natively the decoder runs on a helper
/// thread, a few buffers ahead of the reader (a bounded channel), so decoding and parsing
/// overlap; in the browser it runs inline.
fn xz_reader(br: BufReader<Box<dyn Read + Send>>, name: &str) -> Result<Input> {
    let dec = XzRead(lzma_rust2::XzReader::new_mem_limit(
        br,
        true,
        MAX_XZ_MEMORY_KIB,
    ));
    #[cfg(not(target_arch = "wasm32"))]
    {
        ahead(dec, name)
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = name;
        Ok(Box::new(BufReader::with_capacity(BUF, dec)))
    }
}

/// `r` read on a helper thread into buffers of [`BUF`] bytes, at most four ahead of the reader;
/// the thread stops at the end of `r`, at its first error (passed on), or when the reader is
/// dropped.
#[cfg(not(target_arch = "wasm32"))]
fn ahead(mut r: impl Read + Send + 'static, name: &str) -> Result<Input> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<u8>>>(4);
    std::thread::Builder::new()
        .name("xz-decode".into())
        .spawn(move || loop {
            let mut buf = vec![0u8; BUF];
            let mut n = 0;
            // Fill the buffer (short reads are common in a decoder) or reach the end.
            let r = loop {
                match r.read(&mut buf[n..]) {
                    Ok(0) => break Ok(true),
                    Ok(k) => {
                        n += k;
                        if n == BUF {
                            break Ok(false);
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => break Err(e),
                }
            };
            buf.truncate(n);
            let end = match r {
                Ok(end) => end,
                Err(e) => {
                    if n > 0 {
                        let _ = tx.send(Ok(buf));
                    }
                    let _ = tx.send(Err(e));
                    return;
                }
            };
            if (n > 0 && tx.send(Ok(buf)).is_err()) || end {
                return;
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

/// The reading end of [`ahead`].
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
                Err(_) => return Ok(0), // the decoder finished: end of stream
            }
        }
        let n = out.len().min(self.cur.len() - self.pos);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The xz decoder with its errors said in words.
struct XzRead<R: Read>(lzma_rust2::XzReader<R>);

impl<R: Read> Read for XzRead<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.0.read(out).map_err(|e| {
            let msg = if e.to_string().contains("mem_limit") {
                format!(
                    "xz: the stream's dictionary needs more than the {} MiB this reader holds \
                     (`xz -9` needs 64 MiB)",
                    MAX_XZ_MEMORY_KIB >> 10
                )
            } else {
                format!("xz: {e}")
            };
            io::Error::new(io::ErrorKind::InvalidData, msg)
        })
    }
}

/// The largest zstd window accepted (what a decoder holds of the output already read): the
/// compressor's levels 1-19 use at most 8 MiB; `--ultra` and `--long` above 32 MiB are
/// refused before anything is decoded, as `zstd -d` refuses windows above 128 MiB.
pub const MAX_ZSTD_WINDOW: u64 = 32 << 20;

/// The window a zstd frame header declares (RFC 8878 3.1.1.1), or None when `h` (the first
/// bytes of the frame, magic included) is too short to tell.
fn zstd_window(h: &[u8]) -> Option<u64> {
    let fhd = *h.get(4)?;
    let single = fhd & 0x20 != 0;
    if !single {
        let wd = *h.get(5)?;
        let base = 1u64 << (10 + (wd >> 3));
        return Some(base + (base / 8) * (wd & 7) as u64);
    }
    // Single segment: the window is the frame content size, after the dictionary id.
    let did = [0, 1, 2, 4][(fhd & 3) as usize];
    let fcs = [1, 2, 4, 8][(fhd >> 6) as usize];
    let at = 5 + did;
    let b = h.get(at..at + fcs)?;
    let mut v = 0u64;
    for (i, &x) in b.iter().enumerate() {
        v |= (x as u64) << (8 * i);
    }
    Some(if fcs == 2 { v + 256 } else { v })
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
        // More than a few channel buffers, so ordering and end-of-stream are exercised.
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

    /// CRC-32 (IEEE), as xz headers carry it.
    fn crc32(b: &[u8]) -> u32 {
        let mut c = !0u32;
        for &x in b {
            c ^= x as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0xedb8_8320
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    #[test]
    fn windows_and_dictionaries_larger_than_any_trace_needs_are_refused_before_decoding() {
        // zstd: a window of 64 MiB (Window_Descriptor exponent 16), then a normal frame.
        let mut zst = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 16 << 3];
        zst.extend_from_slice(&[0; 16]);
        let e = open_bytes(zst.into(), "big.zst").err().unwrap().to_string();
        assert_eq!(
            e,
            "big.zst: zstd frame: a window of 67108864 bytes: more than the 33554432 this reader \
             holds (recompress without --ultra or --long, e.g. `zstd -19`)"
        );
        let small =
            ruzstd::encoding::compress_to_vec(TEXT, ruzstd::encoding::CompressionLevel::Fastest);
        assert!(zstd_window(&small).unwrap() <= MAX_ZSTD_WINDOW);
        // xz: the LZMA2 dictionary byte of the block header set to 4 GiB, its CRC redone.
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &TEXT[..], &mut xz).unwrap();
        let size = (xz[12] as usize + 1) * 4;
        let f = (13..12 + size)
            .find(|&i| xz[i] == 0x21 && xz[i + 1] == 1)
            .unwrap();
        xz[f + 2] = 40;
        let crc = crc32(&xz[12..12 + size - 4]);
        xz[12 + size - 4..12 + size].copy_from_slice(&crc.to_le_bytes());
        let mut v = Vec::new();
        let e = open_bytes(xz.into(), "big.xz")
            .unwrap()
            .read_to_end(&mut v)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "xz: the stream's dictionary needs more than the 96 MiB this reader holds (`xz -9` needs 64 MiB)"
        );
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
