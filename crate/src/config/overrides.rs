//! `--set key=value` overrides on any leaf key, through serde:
//!
//! ```text
//!  GpuConfig ──serialise──> toml::Value ──set leaf (typed by the old value)──> deserialise ──> GpuConfig
//! ```
//! Apply all overrides, then validate once ([`apply_overrides`] does both).
//! `l1d.size_kb` is accepted as shorthand for `l1d.cache.size_kb` (likewise for `l2` and
//! `const_cache`) because the issue text writes overrides that way.

use serde::Deserialize;

use super::schema::GpuConfig;
use super::validate::{lookup, to_value};
use crate::{Error, Result};

/// Resolve a user key to the dotted path of a leaf, accepting the `X.cache.` shorthand.
pub fn resolve_key(root: &toml::Value, key: &str) -> Option<String> {
    let is_leaf = |k: &str| lookup(root, k).is_some_and(|v| !v.is_table());
    if is_leaf(key) {
        return Some(key.to_string());
    }
    let (head, rest) = key.split_once('.')?;
    let long = format!("{head}.cache.{rest}");
    is_leaf(&long).then_some(long)
}

fn kind_name(v: &toml::Value) -> &'static str {
    match v {
        toml::Value::String(_) => "text",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a number",
        toml::Value::Boolean(_) => "true or false",
        toml::Value::Array(_) => "a list of integers like 32,64",
        _ => "a value",
    }
}

/// Parse `text` as a value of the same type as `old`.
fn parse_like(old: &toml::Value, text: &str) -> Option<toml::Value> {
    let t = text.trim();
    Some(match old {
        toml::Value::String(_) => toml::Value::String(t.trim_matches('"').to_string()),
        toml::Value::Integer(_) => toml::Value::Integer(parse_int(t)?),
        toml::Value::Float(_) => {
            toml::Value::Float(t.parse::<f64>().ok().filter(|f| f.is_finite())?)
        }
        toml::Value::Boolean(_) => toml::Value::Boolean(match t {
            "true" | "1" | "on" | "yes" => true,
            "false" | "0" | "off" | "no" => false,
            _ => return None,
        }),
        toml::Value::Array(_) => {
            let inner = t.trim_start_matches('[').trim_end_matches(']').trim();
            if inner.is_empty() {
                toml::Value::Array(Vec::new())
            } else {
                let items: Option<Vec<_>> = inner
                    .split(',')
                    .map(|s| parse_int(s.trim()).map(toml::Value::Integer))
                    .collect();
                toml::Value::Array(items?)
            }
        }
        _ => return None,
    })
}

fn parse_int(t: &str) -> Option<i64> {
    let t = t.replace('_', "");
    if let Some(h) = t.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else {
        t.parse().ok()
    }
}

fn set_leaf(root: &mut toml::Value, key: &str, new: toml::Value) {
    let mut cur = root;
    let mut parts = key.split('.').peekable();
    while let Some(p) = parts.next() {
        let Some(t) = cur.as_table_mut() else { return };
        if parts.peek().is_none() {
            t.insert(p.to_string(), new);
            return;
        }
        match t.get_mut(p) {
            Some(next) => cur = next,
            None => return,
        }
    }
}

/// Set one leaf key (`"l1d.cache.size_kb"`, `"64"`). Does not validate: call
/// [`GpuConfig::validate`] once after all overrides (or use [`apply_overrides`]).
pub fn apply_override(cfg: &mut GpuConfig, key: &str, value: &str) -> Result<()> {
    let mut root = to_value(cfg)?;
    let Some(path) = resolve_key(&root, key) else {
        return Err(Error::config(
            key,
            format!("unknown key; {}", key_hint(key)),
        ));
    };
    let old = lookup(&root, &path)
        .cloned()
        .unwrap_or(toml::Value::Integer(0));
    let new = parse_like(&old, value).ok_or_else(|| {
        Error::config(
            &path,
            format!("expected {}, got `{value}`", kind_name(&old)),
        )
    })?;
    set_leaf(&mut root, &path, new);
    *cfg = GpuConfig::deserialize(root)
        .map_err(|e| Error::config(&path, format!("`{value}`: {}", e.message().trim())))?;
    Ok(())
}

/// What to say after "unknown key" for a key no config has: the keys nearest by edit distance
/// (`did you mean ...?`), else the keys with the same last part, else where to find every key.
pub fn key_hint(key: &str) -> String {
    let specs = super::keys::specs();
    let all: Vec<&str> = specs.iter().map(|k| k.key.as_str()).collect();
    let near = crate::error::did_you_mean(key, all.iter().copied());
    if !near.is_empty() {
        return format!("{}(`warpweave config show NAME` lists every key)", near);
    }
    let last = key.rsplit('.').next().unwrap_or(key);
    let same: Vec<String> = all
        .iter()
        .filter(|k| k.ends_with(&format!(".{last}")))
        .take(6)
        .map(|k| format!("`{k}`"))
        .collect();
    if same.is_empty() {
        "see `warpweave config show NAME` for every key".to_string()
    } else {
        format!("did you mean {}?", same.join(", "))
    }
}

/// Split `key=value`.
pub fn split_assignment(s: &str) -> Result<(&str, &str)> {
    s.split_once('=')
        .map(|(k, v)| (k.trim(), v.trim()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| {
            Error::other(format!(
                "override `{s}`: expected key=value, e.g. l1d.cache.size_kb=64"
            ))
        })
}

/// Apply `key=value` overrides in order, then validate once.
pub fn apply_overrides<S: AsRef<str>>(cfg: &mut GpuConfig, sets: &[S]) -> Result<()> {
    for s in sets {
        let (k, v) = split_assignment(s.as_ref())?;
        apply_override(cfg, k, v)?;
    }
    cfg.validate()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::schema::{Replacement, SchedPolicy};

    #[test]
    fn sets_every_kind_of_leaf() {
        let mut c = GpuConfig::default();
        apply_override(&mut c, "l1d.cache.size_kb", "64").unwrap();
        apply_override(&mut c, "l1d.size_kb", "64").unwrap(); // shorthand
        apply_override(&mut c, "clocks.core_mhz", "1500").unwrap();
        apply_override(&mut c, "features.war_check", "false").unwrap();
        apply_override(&mut c, "scheduler.policy", "lrr").unwrap();
        apply_override(&mut c, "l2.replacement", "fifo").unwrap();
        apply_override(&mut c, "l1d.shmem_options_kb", "0,16,64").unwrap();
        apply_override(&mut c, "gpu.name", "My GPU").unwrap();
        apply_override(&mut c, "latency.dp.latency", "64").unwrap();
        assert_eq!(c.l1d.cache.size_kb, 64);
        assert_eq!(c.clocks.core_mhz, 1500.0);
        assert!(!c.features.war_check);
        assert_eq!(c.scheduler.policy, SchedPolicy::Lrr);
        assert_eq!(c.l2.cache.replacement, Replacement::Fifo);
        assert_eq!(c.l1d.shmem_options_kb, vec![0, 16, 64]);
        assert_eq!(c.gpu.name, "My GPU");
        assert_eq!(c.latency.dp.latency, 64);
        c.validate().unwrap();
    }

    #[test]
    fn errors_name_the_key_and_expectation() {
        let mut c = GpuConfig::default();
        let e = apply_override(&mut c, "l1d.cache.size_kb", "big")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "config key `l1d.cache.size_kb`: expected an integer, got `big`"
        );
        let e = apply_override(&mut c, "features.war_check", "maybe")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "config key `features.war_check`: expected true or false, got `maybe`"
        );
        let e = apply_override(&mut c, "l1d.cache.sizekb", "1")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "config key `l1d.cache.sizekb`: unknown key; did you mean `l1d.cache.size_kb`?"
            ),
            "{e}"
        );
        let e = apply_override(&mut c, "l2.cache", "1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown key"), "{e}");
        let e = apply_override(&mut c, "scheduler.policy", "random")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("config key `scheduler.policy`: `random`: unknown variant `random`"),
            "{e}"
        );
        let e = apply_override(&mut c, "gpu.num_sms", "-3")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("config key `gpu.num_sms`: `-3`"), "{e}");
        // the failed overrides left the config unchanged
        assert_eq!(c, GpuConfig::default());
    }

    #[test]
    fn apply_then_validate_once() {
        let mut c = GpuConfig::default();
        let e = apply_overrides(&mut c, &["l1d.cache.assoc=0"])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "config key `l1d.cache.assoc`: 0 is out of range 1..=1024"
        );
        // an intermediate inconsistent state is fine as long as the end state validates
        let mut c = GpuConfig::default();
        apply_overrides(
            &mut c,
            &["l1d.unified_kb=128", "l1d.shmem_options_kb=0,32,64,100"],
        )
        .unwrap();
        assert!(apply_overrides(&mut c, &["nonsense"]).is_err());
    }
}
