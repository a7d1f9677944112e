//! Decode: instructions whose fetch completed enter the warp's instruction buffer. One fetch
//! group (at most `min(fetch_width, decode_width)` instructions) is decoded per cycle per
//! sub-core; it is issuable the cycle after. The work is done by [`FetchUnit::decode`]; this
//! module fixes the group size.
//!
//! [`FetchUnit::decode`]: super::fetch::FetchUnit::decode

use crate::config::FrontendConfig;

/// Most instructions one fetch brings, bounded by the decoder's width.
pub fn group_limit(f: &FrontendConfig) -> u32 {
    f.fetch_width.max(1).min(f.decode_width.max(1))
}
