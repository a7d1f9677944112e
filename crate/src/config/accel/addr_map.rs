//! GPGPU-Sim's DRAM address mapping (`-gpgpu_mem_addr_mapping`), read for what warpweave's
//! address map has: the partition interleave and the DRAM row (page) size.
//!
//! ```text
//!  dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS
//!  └ channel bits start at bit 8: l2.interleave_bytes = 256
//!            a mask per bit, highest first, of the address within the channel:
//!            R row, B bank, C column, S burst (bytes)  ──> dram.row_bytes = 2^(C + S bits)
//! ```
//! Without `dramid@N`, `D` bits in the mask name the channel bits (the lowest gives the
//! interleave). warpweave puts consecutive `row_bytes` blocks of a channel in consecutive
//! banks; when the mask's bank bits sit elsewhere, the import says so.

/// What a mapping string gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddrMapping {
    /// Bytes per partition before the next (2^channel bit), when the string names it.
    pub interleave_bytes: Option<u64>,
    /// Bytes of one DRAM row: 2^(column + burst bits), when the mask has any.
    pub row_bytes: Option<u64>,
    /// The bank bits lie right above the column and burst bits, which start at bit 0.
    pub banks_row_by_row: bool,
}

/// Parses `dramid@N;MASK` or `MASK` (dots ignored, at most 64 mask characters).
pub fn parse_addr_mapping(s: &str) -> Result<AddrMapping, String> {
    let s = s.trim();
    let (dramid, mask) = match s.split_once(';') {
        Some((head, mask)) => {
            let bit = head
                .trim()
                .strip_prefix("dramid@")
                .and_then(|b| b.trim().parse::<u32>().ok())
                .filter(|&b| b < 40)
                .ok_or_else(|| format!("`{head}`: expected dramid@<bit> (bit below 40)"))?;
            (Some(bit), mask.trim())
        }
        None => (None, s),
    };
    let bits: Vec<char> = mask.chars().filter(|&c| c != '.').collect();
    if bits.is_empty() || bits.len() > 64 {
        return Err(format!(
            "expected a mask of 1 to 64 bits, got {} characters",
            bits.len()
        ));
    }
    let mut low_d = None;
    let (mut cols, mut banks) = (Vec::new(), Vec::new());
    // bit 0 is the last character
    for (pos, c) in bits.iter().rev().enumerate() {
        match c {
            'D' => {
                low_d.get_or_insert(pos);
            }
            'C' | 'S' => cols.push(pos),
            'B' => banks.push(pos),
            'R' | '0' | '1' | 'K' => {}
            other => return Err(format!("`{other}` is not one of D, B, R, C, S, 0")),
        }
    }
    let interleave_bytes = dramid.map(|b| 1u64 << b).or(low_d.map(|b| 1u64 << b));
    let row_bytes = (!cols.is_empty()).then(|| 1u64 << cols.len());
    let contiguous = |v: &[usize], from: usize| v.iter().enumerate().all(|(i, &p)| p == from + i);
    let banks_row_by_row = contiguous(&cols, 0) && contiguous(&banks, cols.len());
    Ok(AddrMapping {
        interleave_bytes,
        row_bytes,
        banks_row_by_row,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_interleave_row_size_and_bank_layout() {
        // the Turing/Ampere/Hopper tested configs
        let m = parse_addr_mapping(
            "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS",
        )
        .unwrap();
        assert_eq!(
            m,
            AddrMapping {
                interleave_bytes: Some(256),
                row_bytes: Some(2048),
                banks_row_by_row: false
            }
        );
        // channel bits in the mask; banks right above the row
        let m = parse_addr_mapping("RRRR.BBBB.DDDC.CCCC.CSSS.SS").unwrap();
        assert_eq!(
            m,
            AddrMapping {
                interleave_bytes: Some(1 << 11),
                row_bytes: Some(1 << 11),
                banks_row_by_row: false
            }
        );
        let m = parse_addr_mapping("RRRRBBBBCCCCCCSSSSS").unwrap();
        assert!(m.banks_row_by_row);
        assert_eq!((m.interleave_bytes, m.row_bytes), (None, Some(2048)));
        assert!(parse_addr_mapping("dramid@x;RRCC")
            .unwrap_err()
            .contains("dramid@"));
        assert!(parse_addr_mapping("RRXC").unwrap_err().contains("`X`"));
    }
}
