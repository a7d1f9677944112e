//! GPGPU-Sim's cache configuration string (gpu-cache.h, `cache_config::init`):
//!
//! ```text
//!  S:4:128:64 , L:T:m:L:L , A:256:32 , 16:0 , 32
//!  │ │  │   │    │ │ │ │ │   │  │   │    │  │   └ data port width, bytes (optional; 0 = line)
//!  │ │  │   │    │ │ │ │ │   │  │   │    │  └ result FIFO entries (optional)
//!  │ │  │   │    │ │ │ │ │   │  │   │    └ miss queue entries (optional)
//!  │ │  │   │    │ │ │ │ │   │  │   └ max requests merged per MSHR entry
//!  │ │  │   │    │ │ │ │ │   │  └ MSHR entries
//!  │ │  │   │    │ │ │ │ │   └ MSHR type: A assoc, S sector assoc, F tex FIFO, T sector tex FIFO
//!  │ │  │   │    │ │ │ │ └ set index: L linear, P ipoly, H Fermi hash, X bitwise xor, C custom
//!  │ │  │   │    │ │ │ └ write allocate: N no, W write-allocate, F fetch-on-write, L lazy fetch-on-read
//!  │ │  │   │    │ │ └ allocate: m on miss, f on fill, s streaming
//!  │ │  │   │    │ └ write: R read-only, B back, T through, E evict, L local-back/global-through
//!  │ │  │   │    └ replacement: L LRU, F FIFO
//!  │ │  │   └ associativity
//!  │ │  └ line bytes
//!  │ └ sets
//!  └ N normal, S sectored (32 B sectors, four per line)
//! ```
//! The first twelve fields are required (as GPGPU-Sim's sscanf demands); `none` disables a cache.

use super::super::schema::{CacheConfig, IndexFn, Replacement, WritePolicy};

/// A parsed cache string, with GPGPU-Sim's letters kept so mapping notes can quote them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccelCache {
    pub sectored: bool,
    pub sets: u32,
    pub line_bytes: u32,
    pub assoc: u32,
    /// `L` or `F`.
    pub replacement: char,
    /// `R`, `B`, `T`, `E` or `L`.
    pub write: char,
    /// `m`, `f` or `s`.
    pub alloc: char,
    /// `N`, `W`, `F` or `L`.
    pub write_alloc: char,
    /// `L`, `P`, `H`, `X` or `C`.
    pub index: char,
    /// `A`, `S`, `F` or `T`.
    pub mshr_type: char,
    pub mshr_entries: u32,
    pub mshr_merge: u32,
    pub miss_queue: Option<u32>,
    pub result_fifo: Option<u32>,
    pub data_port_width: Option<u32>,
}

fn letter(field: &str, what: &str, allowed: &str) -> Result<char, String> {
    let mut cs = field.trim().chars();
    match (cs.next(), cs.next()) {
        (Some(c), None) if allowed.contains(c) => Ok(c),
        _ => Err(format!(
            "{what} `{field}` is not one of {}",
            allowed
                .chars()
                .map(String::from)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn number(field: &str, what: &str) -> Result<u32, String> {
    field
        .trim()
        .parse::<u32>()
        .map_err(|_| format!("{what} `{field}` is not a whole number"))
}

/// Parse a cache string such as `S:4:128:64,L:T:m:L:L,A:512:8,16:0,32`.
pub fn parse_cache_string(s: &str) -> Result<AccelCache, String> {
    let s = s.trim().trim_matches('"');
    let groups: Vec<&str> = s.split(',').collect();
    if groups.len() < 3 {
        return Err(format!("`{s}`: expected at least <type>:<sets>:<line>:<assoc>,<rp>:<wp>:<alloc>:<wr_alloc>:<index>,<mshr>:<entries>:<merge>"));
    }
    let g0: Vec<&str> = groups[0].split(':').collect();
    let g1: Vec<&str> = groups[1].split(':').collect();
    let g2: Vec<&str> = groups[2].split(':').collect();
    if g0.len() != 4 || g1.len() != 5 || g2.len() != 3 {
        return Err(format!(
            "`{s}`: expected 4, 5 and 3 fields in the first three groups, found {}, {} and {}",
            g0.len(),
            g1.len(),
            g2.len()
        ));
    }
    let tail: Vec<&str> = groups[3..]
        .iter()
        .flat_map(|g| g.split(':'))
        .filter(|t| !t.trim().is_empty())
        .collect();
    if tail.len() > 3 {
        return Err(format!("`{s}`: too many fields after the MSHR group"));
    }
    let opt = |i: usize, what: &str| tail.get(i).map(|t| number(t, what)).transpose();
    let c = AccelCache {
        sectored: letter(g0[0], "cache type", "NS")? == 'S',
        sets: number(g0[1], "sets")?,
        line_bytes: number(g0[2], "line size")?,
        assoc: number(g0[3], "associativity")?,
        replacement: letter(g1[0], "replacement", "LF")?,
        write: letter(g1[1], "write policy", "RBTEL")?,
        alloc: letter(g1[2], "allocation policy", "mfs")?,
        write_alloc: letter(g1[3], "write-allocate policy", "NWFL")?,
        index: letter(g1[4], "set index function", "LPHXC")?,
        mshr_type: letter(g2[0], "MSHR type", "ASFT")?,
        mshr_entries: number(g2[1], "MSHR entries")?,
        mshr_merge: number(g2[2], "MSHR merge")?,
        miss_queue: opt(0, "miss queue")?,
        result_fifo: opt(1, "result FIFO")?,
        data_port_width: opt(2, "data port width")?,
    };
    if c.sets == 0 || c.line_bytes == 0 || c.assoc == 0 {
        return Err(format!(
            "`{s}`: sets, line size and associativity must be positive"
        ));
    }
    if c.sectored && c.line_bytes != 128 {
        return Err(format!(
            "`{s}`: a sectored cache has four 32 B sectors, so a 128 B line (found {})",
            c.line_bytes
        ));
    }
    Ok(c)
}

impl AccelCache {
    /// Capacity in bytes.
    pub fn bytes(&self) -> u64 {
        u64::from(self.sets)
            .saturating_mul(u64::from(self.line_bytes))
            .saturating_mul(u64::from(self.assoc))
    }

    /// Map onto our cache section, starting from `base` (latency, seed kept). Returns notes on
    /// what GPGPU-Sim models differently, for the import warnings.
    pub fn to_cache_config(
        &self,
        base: &CacheConfig,
    ) -> Result<(CacheConfig, Vec<String>), String> {
        let bytes = self.bytes();
        if !bytes.is_multiple_of(1024) || bytes / 1024 > u64::from(u32::MAX) {
            return Err(format!("capacity {bytes} B is not a whole number of KiB"));
        }
        let mut notes = Vec::new();
        let mut c = base.clone();
        c.size_kb = (bytes / 1024) as u32;
        c.line_bytes = self.line_bytes;
        c.sector_bytes = if self.sectored { 32 } else { self.line_bytes };
        c.assoc = self.assoc;
        c.replacement = if self.replacement == 'F' {
            Replacement::Fifo
        } else {
            Replacement::Lru
        };
        c.write_policy = match self.write {
            'B' => WritePolicy::WriteBack,
            'E' => WritePolicy::WriteEvict,
            'T' => WritePolicy::WriteThrough,
            'R' => {
                notes.push("read-only cache (R) modelled as write-through".to_string());
                WritePolicy::WriteThrough
            }
            _ => {
                notes.push(
                    "local write-back / global write-through (L) modelled as write-through"
                        .to_string(),
                );
                WritePolicy::WriteThrough
            }
        };
        c.write_allocate = self.write_alloc != 'N';
        c.lazy_fetch_on_read = self.write_alloc == 'L';
        // A write-through, write-allocate store allocates its line without a fetch (whole
        // sectors become valid, the rest are read by a later load): lazy fetch-on-read too.
        if self.write_alloc == 'L' && c.write_policy == WritePolicy::WriteEvict {
            notes.push(
                "lazy fetch-on-read (L) on a write-evict cache: a store invalidates the line and \
                 goes to the next level"
                    .into(),
            );
        }
        c.index = match self.index {
            'L' => IndexFn::Linear,
            'P' => IndexFn::Ipoly,
            other => {
                notes.push(format!(
                    "set index `{other}` modelled as the multiplicative hash"
                ));
                IndexFn::Hash
            }
        };
        if self.alloc == 'f' {
            notes.push("allocate-on-fill (f) modelled as allocate-on-miss".into());
        }
        if matches!(self.mshr_type, 'F' | 'T') {
            notes.push(format!(
                "texture FIFO MSHR (`{}`) modelled as an associative MSHR",
                self.mshr_type
            ));
        }
        c.mshr_entries = self.mshr_entries.max(1);
        c.mshr_merge = self.mshr_merge.max(1);
        if self.miss_queue.is_some() || self.result_fifo.is_some() {
            notes.push(
                "miss queue and result FIFO not modelled: a miss waits for a free MSHR entry \
                 (mshr_entries)"
                    .into(),
            );
        }
        Ok((c, notes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_common_strings() {
        // RTX 2060 L1D (Accel-Sim SM75_RTX2060): 4 sets x 128 B x 64 ways = 32 KiB
        let c = parse_cache_string("S:4:128:64,L:T:m:L:L,A:256:32,16:0,32").unwrap();
        assert!(c.sectored);
        assert_eq!(
            (c.sets, c.line_bytes, c.assoc, c.bytes()),
            (4, 128, 64, 32 * 1024)
        );
        assert_eq!(
            (c.replacement, c.write, c.alloc, c.write_alloc, c.index),
            ('L', 'T', 'm', 'L', 'L')
        );
        assert_eq!((c.mshr_type, c.mshr_entries, c.mshr_merge), ('A', 256, 32));
        assert_eq!(
            (c.miss_queue, c.result_fifo, c.data_port_width),
            (Some(16), Some(0), Some(32))
        );

        // the issue's example: 4 x 128 x 64, 512 MSHRs merging 8
        let c = parse_cache_string("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32").unwrap();
        assert_eq!((c.mshr_entries, c.mshr_merge), (512, 8));

        // L2 slice with ipoly: 64 x 128 x 16 = 128 KiB
        let c = parse_cache_string("S:64:128:16,L:B:m:L:P,A:192:4,32:0,32").unwrap();
        let (cfg, notes) = c.to_cache_config(&CacheConfig::default()).unwrap();
        assert_eq!((cfg.size_kb, cfg.sector_bytes, cfg.assoc), (128, 32, 16));
        assert_eq!(
            (
                cfg.write_policy,
                cfg.write_allocate,
                cfg.lazy_fetch_on_read,
                cfg.index
            ),
            (WritePolicy::WriteBack, true, true, IndexFn::Ipoly)
        );
        assert_eq!((cfg.mshr_entries, cfg.mshr_merge), (192, 4));
        assert_eq!(
            notes,
            vec!["miss queue and result FIFO not modelled: a miss waits for a free MSHR entry (mshr_entries)"]
        );

        // instruction cache: normal, only 13 fields (no result FIFO, no port width)
        let c = parse_cache_string("N:64:128:16,L:R:f:N:L,S:2:48,4").unwrap();
        assert!(!c.sectored);
        assert_eq!(
            (c.bytes(), c.miss_queue, c.result_fifo),
            (128 * 1024, Some(4), None)
        );
        let (cfg, _) = c.to_cache_config(&CacheConfig::default()).unwrap();
        assert_eq!((cfg.sector_bytes, cfg.write_allocate), (128, false));

        // TITAN V streaming L1 (1 set, 256 ways), FIFO replacement variant, xor index
        let c = parse_cache_string("S:1:128:256,F:L:s:N:X,A:256:8,16:0,32").unwrap();
        let (cfg, notes) = c.to_cache_config(&CacheConfig::default()).unwrap();
        assert_eq!(
            (cfg.size_kb, cfg.replacement, cfg.index),
            (32, Replacement::Fifo, IndexFn::Hash)
        );
        assert_eq!(
            notes[0],
            "local write-back / global write-through (L) modelled as write-through"
        );
        // texture cache with FIFO MSHR
        let c = parse_cache_string("N:4:128:256,L:R:m:N:L,T:512:8,128:2").unwrap();
        assert_eq!(
            (c.mshr_type, c.miss_queue, c.result_fifo),
            ('T', Some(128), Some(2))
        );
    }

    #[test]
    fn rejects_malformed_strings() {
        for (s, want) in [
            ("", "expected at least"),
            ("S:4:128,L:T:m:L:L,A:256:32", "expected 4, 5 and 3 fields"),
            ("Q:4:128:64,L:T:m:L:L,A:256:32", "cache type `Q`"),
            ("S:4:128:64,L:T:m:L:Z,A:256:32", "set index function `Z`"),
            ("S:four:128:64,L:T:m:L:L,A:256:32", "sets `four`"),
            (
                "S:4:64:64,L:T:m:L:L,A:256:32",
                "a sectored cache has four 32 B sectors",
            ),
            ("S:0:128:64,L:T:m:L:L,A:256:32", "must be positive"),
            ("N:4:128:4,L:T:m:L:L,A:256:32,1:2:3:4", "too many fields"),
        ] {
            let e = parse_cache_string(s).unwrap_err();
            assert!(e.contains(want), "{s}: {e}");
        }
    }
}
