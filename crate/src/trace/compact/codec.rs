//! zstd for the compact format: encoding with the C library at a high level when the
//! `native-zstd` feature is on (the CLI), else with ruzstd's pure-Rust encoder (its fastest
//! level); decoding always with ruzstd, so the browser build reads every file.

use std::io::Read;

use crate::{Error, Result};

/// Largest uncompressed chunk or directory the reader accepts (and the writer produces).
pub const MAX_UNCOMPRESSED: u64 = 1 << 30;

/// Compresses `data` as one zstd frame at `level` (1..=22; ignored by the pure-Rust encoder).
pub fn compress(data: &[u8], level: i32) -> Result<Vec<u8>> {
    #[cfg(feature = "native-zstd")]
    {
        zstd::bulk::compress(data, level.clamp(1, 22))
            .map_err(|e| Error::other(format!("zstd compression failed: {e}")))
    }
    #[cfg(not(feature = "native-zstd"))]
    {
        let _ = level;
        Ok(ruzstd::encoding::compress_to_vec(
            data,
            ruzstd::encoding::CompressionLevel::Fastest,
        ))
    }
}

/// Decompresses one zstd frame that must expand to exactly `ulen` bytes. `field` names the
/// frame (with its file offset) in errors. Never reads or allocates more than `ulen + 1` bytes
/// of output, whatever the frame claims. `fd` is reused between calls to keep its buffers.
pub fn decompress(
    fd: &mut ruzstd::decoding::FrameDecoder,
    comp: &[u8],
    ulen: u64,
    file: &str,
    field: &str,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    decompress_into(fd, comp, ulen, file, field, &mut out)?;
    Ok(out)
}

/// [`decompress`] into `out` (cleared first), reusing its capacity: a reader that keeps one
/// buffer for every chunk allocates only while chunks grow.
pub fn decompress_into(
    fd: &mut ruzstd::decoding::FrameDecoder,
    comp: &[u8],
    ulen: u64,
    file: &str,
    field: &str,
    out: &mut Vec<u8>,
) -> Result<()> {
    out.clear();
    if ulen > MAX_UNCOMPRESSED {
        return Err(Error::parse(
            file,
            0,
            field,
            format!("uncompressed length {ulen} exceeds {MAX_UNCOMPRESSED}"),
        ));
    }
    let dec = ruzstd::decoding::StreamingDecoder::new_with_decoder(comp, fd)
        .map_err(|e| Error::parse(file, 0, field, format!("bad zstd frame header: {e}")))?;
    // Start small: a corrupt length must not reserve memory the data cannot fill.
    let cap = (ulen as usize)
        .min(comp.len().saturating_mul(32))
        .min(64 << 20);
    out.reserve(cap);
    dec.take(ulen + 1)
        .read_to_end(out)
        .map_err(|e| Error::parse(file, 0, field, format!("corrupt zstd data: {e}")))?;
    if out.len() as u64 != ulen {
        let got = if out.len() as u64 > ulen {
            format!("more than {ulen}")
        } else {
            out.len().to_string()
        };
        return Err(Error::parse(
            file,
            0,
            field,
            format!("expands to {got} bytes, the index says {ulen}"),
        ));
    }
    Ok(())
}
