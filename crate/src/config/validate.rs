//! `GpuConfig::validate`: every key against its allowed range from the key table
//! ([`super::keys::specs`]), then the checks that span several keys.
//!
//! ```text
//!  GpuConfig ──serde──> toml::Value ──for each KeyDoc──> type + range ──> cross-field checks
//! ```
//! Validation runs once, after loading and overrides; the models may then rely on it.

use super::keys::{specs, KeyDoc, KeyKind};
use super::schema::{CacheConfig, GpuConfig, ICacheConfig, IndexFn};
use crate::{Error, Result};

/// The value at a dotted path in a serialised config.
pub(crate) fn lookup<'a>(root: &'a toml::Value, key: &str) -> Option<&'a toml::Value> {
    key.split('.')
        .try_fold(root, |v, part| v.as_table()?.get(part))
}

pub(crate) fn to_value(cfg: &GpuConfig) -> Result<toml::Value> {
    toml::Value::try_from(cfg)
        .map_err(|e| Error::other(format!("config cannot be serialised: {e}")))
}

fn show(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn out_of_range(k: &KeyDoc, v: &toml::Value) -> Error {
    Error::config(
        &k.key,
        format!("{} is out of range {}", show(v), k.range_text()),
    )
}

/// Check one value against its row of the key table.
pub(crate) fn check_value(k: &KeyDoc, v: &toml::Value) -> Result<()> {
    let in_range = |x: f64| k.min.is_none_or(|lo| x >= lo) && k.max.is_none_or(|hi| x <= hi);
    match (k.kind, v) {
        (KeyKind::Int, toml::Value::Integer(i)) => {
            if !in_range(*i as f64) {
                return Err(out_of_range(k, v));
            }
        }
        (KeyKind::Float, toml::Value::Float(f)) => {
            if !f.is_finite() || !in_range(*f) {
                return Err(out_of_range(k, v));
            }
        }
        (KeyKind::Float, toml::Value::Integer(i)) => {
            if !in_range(*i as f64) {
                return Err(out_of_range(k, v));
            }
        }
        (KeyKind::Bool, toml::Value::Boolean(_)) => {}
        (KeyKind::Choice { choices }, toml::Value::String(s)) => {
            if !choices.contains(&s.as_str()) {
                return Err(Error::config(
                    &k.key,
                    format!("`{s}` is not allowed ({})", k.range_text()),
                ));
            }
        }
        (KeyKind::Text, toml::Value::String(s)) => {
            if k.key == "gpu.id"
                && (s.is_empty()
                    || !s.bytes().all(|b| {
                        b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-'
                    }))
            {
                return Err(Error::config(
                    &k.key,
                    format!("`{s}` must be non-empty lower-case [a-z0-9_-]"),
                ));
            }
        }
        (KeyKind::IntList, toml::Value::Array(a)) => {
            for e in a {
                match e {
                    toml::Value::Integer(i) if in_range(*i as f64) => {}
                    toml::Value::Integer(_) => return Err(out_of_range(k, e)),
                    _ => return Err(Error::config(&k.key, format!("{e} is not an integer"))),
                }
            }
        }
        _ => {
            return Err(Error::config(
                &k.key,
                format!("{} has the wrong type (expected {:?})", show(v), k.kind),
            ))
        }
    }
    Ok(())
}

impl GpuConfig {
    /// Check every key against its allowed range and the cross-field rules. The error names
    /// the dotted key and what was expected, e.g. `l1d.cache.assoc: 0 is out of range 1..=1024`.
    pub fn validate(&self) -> Result<()> {
        let root = to_value(self)?;
        for k in specs() {
            match lookup(&root, &k.key) {
                Some(v) => check_value(&k, v)?,
                None => return Err(Error::config(&k.key, "missing")),
            }
        }
        self.cross_checks()
    }

    fn cross_checks(&self) -> Result<()> {
        let sm = &self.sm;
        if sm.launch_ncu_only > sm.kernel_launch_latency {
            return Err(Error::config(
                "sm.launch_ncu_only",
                format!(
                    "{} is more than sm.kernel_launch_latency = {}",
                    sm.launch_ncu_only, sm.kernel_launch_latency
                ),
            ));
        }
        if !sm.max_warps.is_multiple_of(sm.subcores) {
            return Err(Error::config(
                "sm.subcores",
                format!(
                    "{} does not divide sm.max_warps = {}",
                    sm.subcores, sm.max_warps
                ),
            ));
        }
        if !sm.max_threads.is_multiple_of(32) || sm.max_threads > sm.max_warps * 32 {
            return Err(Error::config(
                "sm.max_threads",
                format!(
                    "{} must be a multiple of 32 and at most sm.max_warps * 32 = {}",
                    sm.max_threads,
                    sm.max_warps * 32
                ),
            ));
        }
        if !sm.registers.is_multiple_of(sm.reg_alloc_granularity) {
            return Err(Error::config(
                "sm.registers",
                format!(
                    "{} is not a multiple of sm.reg_alloc_granularity = {}",
                    sm.registers, sm.reg_alloc_granularity
                ),
            ));
        }
        if self.scheduler.two_level_active > sm.max_warps / sm.subcores {
            return Err(Error::config(
                "scheduler.two_level_active",
                format!(
                    "{} exceeds the warps per sub-core (sm.max_warps / sm.subcores = {})",
                    self.scheduler.two_level_active,
                    sm.max_warps / sm.subcores
                ),
            ));
        }
        check_icache("frontend.l0i", &self.frontend.l0i)?;
        check_icache("frontend.l1i", &self.frontend.l1i)?;
        for (name, u) in [
            ("units.int", &self.units.int),
            ("units.sp", &self.units.sp),
            ("units.dp", &self.units.dp),
            ("units.sfu", &self.units.sfu),
            ("units.tensor", &self.units.tensor),
            ("units.branch", &self.units.branch),
            ("units.uniform", &self.units.uniform),
            ("units.mem", &self.units.mem),
        ] {
            if 32 % u.width != 0 {
                return Err(Error::config(
                    format!("{name}.width"),
                    format!("{} does not divide the warp size 32", u.width),
                ));
            }
        }
        if self.units.int.count == 0 {
            return Err(Error::config(
                "units.int.count",
                "0 is out of range 1..=16 (ops of missing units run on int)",
            ));
        }
        if self.units.mem.count == 0 {
            return Err(Error::config(
                "units.mem.count",
                "0 is out of range 1..=16 (memory instructions need a port)",
            ));
        }
        check_cache("l1d.cache", &self.l1d.cache)?;
        check_cache("const_cache", &self.const_cache)?;
        check_cache("l2.cache", &self.l2.cache)?;
        self.check_carveout()?;
        let l2 = &self.l2;
        if !l2.interleave_bytes.is_power_of_two() || l2.interleave_bytes < l2.cache.line_bytes {
            return Err(Error::config(
                "l2.interleave_bytes",
                format!(
                    "{} must be a power of two >= l2.cache.line_bytes = {}",
                    l2.interleave_bytes, l2.cache.line_bytes
                ),
            ));
        }
        if l2.sides == 2 && !l2.partitions.is_multiple_of(2) {
            return Err(Error::config(
                "l2.sides",
                format!(
                    "two halves need an even l2.partitions, not {}",
                    l2.partitions
                ),
            ));
        }
        let d = &self.dram;
        if !d.banks.is_multiple_of(d.bank_groups) {
            return Err(Error::config(
                "dram.bank_groups",
                format!("{} does not divide dram.banks = {}", d.bank_groups, d.banks),
            ));
        }
        if !d.row_bytes.is_power_of_two() {
            return Err(Error::config(
                "dram.row_bytes",
                format!("{} is not a power of two", d.row_bytes),
            ));
        }
        if d.write_queue > 0 {
            if d.write_high == 0 || d.write_high > d.write_queue {
                return Err(Error::config(
                    "dram.write_high",
                    format!(
                        "{} is out of range 1..=dram.write_queue = {}",
                        d.write_high, d.write_queue
                    ),
                ));
            }
            if d.write_low == 0 || d.write_low > d.write_high {
                return Err(Error::config(
                    "dram.write_low",
                    format!(
                        "{} is out of range 1..=dram.write_high = {}",
                        d.write_low, d.write_high
                    ),
                ));
            }
        }
        if d.timing.t_rc < d.timing.t_ras {
            return Err(Error::config(
                "dram.timing.t_rc",
                format!(
                    "{} is below dram.timing.t_ras = {}",
                    d.timing.t_rc, d.timing.t_ras
                ),
            ));
        }
        Ok(())
    }

    fn check_carveout(&self) -> Result<()> {
        let l1 = &self.l1d;
        let opts = &l1.shmem_options_kb;
        if opts.is_empty() {
            return Err(Error::config(
                "l1d.shmem_options_kb",
                "needs at least one carve-out option",
            ));
        }
        if opts.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::config(
                "l1d.shmem_options_kb",
                format!("{opts:?} must be strictly ascending"),
            ));
        }
        let largest = *opts.last().unwrap_or(&0);
        if largest > l1.unified_kb {
            return Err(Error::config(
                "l1d.shmem_options_kb",
                format!(
                    "option {largest} KiB does not fit in l1d.unified_kb = {}",
                    l1.unified_kb
                ),
            ));
        }
        if l1.cache.size_kb > l1.unified_kb {
            return Err(Error::config(
                "l1d.cache.size_kb",
                format!(
                    "{} exceeds l1d.unified_kb = {}",
                    l1.cache.size_kb, l1.unified_kb
                ),
            ));
        }
        if !l1.adaptive_carveout && l1.cache.size_kb + self.shmem.max_per_sm_kb > l1.unified_kb {
            return Err(Error::config(
                "l1d.cache.size_kb",
                format!(
                    "{} + shmem.max_per_sm_kb {} exceeds l1d.unified_kb = {} (fixed carve-out)",
                    l1.cache.size_kb, self.shmem.max_per_sm_kb, l1.unified_kb
                ),
            ));
        }
        if self.shmem.max_per_sm_kb > largest {
            return Err(Error::config(
                "shmem.max_per_sm_kb",
                format!(
                    "{} exceeds the largest carve-out option {largest} KiB",
                    self.shmem.max_per_sm_kb
                ),
            ));
        }
        if self.shmem.max_per_cta_kb > self.shmem.max_per_sm_kb {
            return Err(Error::config(
                "shmem.max_per_cta_kb",
                format!(
                    "{} exceeds shmem.max_per_sm_kb = {}",
                    self.shmem.max_per_cta_kb, self.shmem.max_per_sm_kb
                ),
            ));
        }
        Ok(())
    }
}

fn check_icache(p: &str, c: &ICacheConfig) -> Result<()> {
    if !c.line_bytes.is_power_of_two() {
        return Err(Error::config(
            format!("{p}.line_bytes"),
            format!("{} is not a power of two", c.line_bytes),
        ));
    }
    if c.size_kb > 0 && !(c.size_kb * 1024).is_multiple_of(c.line_bytes * c.assoc) {
        return Err(Error::config(
            format!("{p}.size_kb"),
            format!(
                "{} KiB is not a whole number of sets of {} ways x {} B",
                c.size_kb, c.assoc, c.line_bytes
            ),
        ));
    }
    Ok(())
}

/// Sets of a cache, if its geometry is consistent.
pub fn cache_sets(c: &CacheConfig) -> Option<u32> {
    let bytes = u64::from(c.size_kb) * 1024;
    let way = u64::from(c.line_bytes) * u64::from(c.assoc);
    (way > 0 && bytes.is_multiple_of(way) && bytes >= way).then(|| (bytes / way) as u32)
}

fn check_cache(p: &str, c: &CacheConfig) -> Result<()> {
    if !c.line_bytes.is_power_of_two() {
        return Err(Error::config(
            format!("{p}.line_bytes"),
            format!("{} is not a power of two", c.line_bytes),
        ));
    }
    if !c.sector_bytes.is_power_of_two() || !c.line_bytes.is_multiple_of(c.sector_bytes) {
        return Err(Error::config(
            format!("{p}.sector_bytes"),
            format!(
                "{} must be a power of two dividing {p}.line_bytes = {}",
                c.sector_bytes, c.line_bytes
            ),
        ));
    }
    if c.line_bytes / c.sector_bytes > 32 {
        return Err(Error::config(
            format!("{p}.sector_bytes"),
            format!(
                "{} gives more than 32 sectors per {} B line",
                c.sector_bytes, c.line_bytes
            ),
        ));
    }
    if c.fetch_bytes != 0
        && (!c.fetch_bytes.is_power_of_two()
            || !c.fetch_bytes.is_multiple_of(c.sector_bytes)
            || c.fetch_bytes > c.line_bytes)
    {
        return Err(Error::config(
            format!("{p}.fetch_bytes"),
            format!(
                "{} must be 0 or a power of two from {p}.sector_bytes = {} to {p}.line_bytes = {}",
                c.fetch_bytes, c.sector_bytes, c.line_bytes
            ),
        ));
    }
    let Some(sets) = cache_sets(c) else {
        return Err(Error::config(
            format!("{p}.size_kb"),
            format!(
                "{} KiB is not a positive whole number of sets of {} ways x {} B lines",
                c.size_kb, c.assoc, c.line_bytes
            ),
        ));
    };
    if c.index == IndexFn::Ipoly && !sets.is_power_of_two() {
        return Err(Error::config(
            format!("{p}.index"),
            format!("ipoly needs a power-of-two number of sets, this cache has {sets}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(cfg: &GpuConfig) -> String {
        cfg.validate().unwrap_err().to_string()
    }

    #[test]
    fn default_is_valid() {
        GpuConfig::default().validate().unwrap();
    }

    #[test]
    fn out_of_range_names_key_and_range() {
        let mut c = GpuConfig::default();
        c.l1d.cache.assoc = 0;
        assert_eq!(
            err(&c),
            "config key `l1d.cache.assoc`: 0 is out of range 1..=1024"
        );
        let mut c = GpuConfig::default();
        c.gpu.num_sms = 5000;
        assert_eq!(
            err(&c),
            "config key `gpu.num_sms`: 5000 is out of range 1..=1024"
        );
        let mut c = GpuConfig::default();
        c.clocks.core_mhz = 0.5;
        assert_eq!(
            err(&c),
            "config key `clocks.core_mhz`: 0.5 is out of range 1..=10000"
        );
        let mut c = GpuConfig::default();
        c.dram.kind = "sdram".into();
        assert!(
            err(&c).starts_with("config key `dram.kind`: `sdram` is not allowed (one of gddr5,")
        );
        let mut c = GpuConfig::default();
        c.gpu.id = "RTX".into();
        assert!(err(&c).contains("`gpu.id`"));
        let mut c = GpuConfig::default();
        c.l1d.shmem_options_kb = vec![0, 9000];
        assert_eq!(
            err(&c),
            "config key `l1d.shmem_options_kb`: 9000 is out of range 0..=4096"
        );
    }

    #[test]
    fn cross_field_rules() {
        let mut c = GpuConfig::default();
        c.sm.subcores = 3;
        assert_eq!(
            err(&c),
            "config key `sm.subcores`: 3 does not divide sm.max_warps = 32"
        );

        let mut c = GpuConfig::default();
        c.l2.cache.sector_bytes = 48;
        assert!(
            err(&c).starts_with("config key `l2.cache.sector_bytes`: 48 must be a power of two")
        );

        let mut c = GpuConfig::default();
        c.l1d.cache.size_kb = 33; // 33 KiB / (256 ways * 128 B) is not whole
        assert!(err(&c).starts_with(
            "config key `l1d.cache.size_kb`: 33 KiB is not a positive whole number of sets"
        ));

        let mut c = GpuConfig::default();
        c.l1d.shmem_options_kb = vec![32, 128];
        assert_eq!(
            err(&c),
            "config key `l1d.shmem_options_kb`: option 128 KiB does not fit in l1d.unified_kb = 96"
        );

        let mut c = GpuConfig::default();
        c.l1d.shmem_options_kb = vec![64, 32];
        assert!(err(&c).contains("strictly ascending"));

        let mut c = GpuConfig::default();
        c.l2.cache.assoc = 24; // 256 KiB / (24 * 128 B) is not whole
        assert!(err(&c).starts_with("config key `l2.cache.size_kb`"));

        let mut c = GpuConfig::default();
        c.units.sp.width = 12;
        assert_eq!(
            err(&c),
            "config key `units.sp.width`: 12 does not divide the warp size 32"
        );

        let mut c = GpuConfig::default();
        (c.dram.write_queue, c.dram.write_high, c.dram.write_low) = (64, 80, 8);
        assert_eq!(
            err(&c),
            "config key `dram.write_high`: 80 is out of range 1..=dram.write_queue = 64"
        );
        c.dram.write_high = 48;
        c.dram.write_low = 0;
        assert_eq!(
            err(&c),
            "config key `dram.write_low`: 0 is out of range 1..=dram.write_high = 48"
        );
        c.dram.write_low = 8;
        assert!(c.validate().is_ok());

        let mut c = GpuConfig::default();
        c.dram.bank_groups = 3;
        assert_eq!(
            err(&c),
            "config key `dram.bank_groups`: 3 does not divide dram.banks = 16"
        );
    }

    /// Single source of truth: for every numeric key of the table, one past either end of its
    /// range is rejected by `validate` with exactly the table's range text.
    #[test]
    fn every_range_of_the_table_is_enforced() {
        use crate::config::apply_override;
        let mut checked = 0;
        for k in specs() {
            if !matches!(k.kind, KeyKind::Int | KeyKind::Float) {
                continue;
            }
            let (lo, hi) = (k.min.unwrap(), k.max.unwrap());
            let step = if k.kind == KeyKind::Int { 1.0 } else { 0.5 };
            for bad in [lo - step, hi + step] {
                if bad < 0.0 || bad > f64::from(u32::MAX) {
                    continue; // not representable in the field's type: serde rejects it
                }
                let text = if k.kind == KeyKind::Int {
                    format!("{}", bad as i64)
                } else {
                    format!("{bad}")
                };
                let mut c = GpuConfig::default();
                apply_override(&mut c, &k.key, &text).unwrap();
                let e = c.validate().unwrap_err().to_string();
                assert_eq!(
                    e,
                    format!(
                        "config key `{}`: {text} is out of range {}",
                        k.key,
                        k.range_text()
                    )
                );
                checked += 1;
            }
        }
        assert!(checked > 150, "{checked}");
    }

    #[test]
    fn sets_are_computed() {
        let c = CacheConfig {
            size_kb: 128,
            line_bytes: 128,
            assoc: 16,
            ..CacheConfig::default()
        };
        assert_eq!(cache_sets(&c), Some(64));
        let c = CacheConfig {
            size_kb: 96,
            line_bytes: 128,
            assoc: 32,
            ..CacheConfig::default()
        };
        assert_eq!(cache_sets(&c), Some(24));
        let c = CacheConfig {
            size_kb: 1,
            line_bytes: 128,
            assoc: 16,
            ..CacheConfig::default()
        };
        assert_eq!(cache_sets(&c), None);
    }
}
