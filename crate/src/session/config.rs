//! Configuration as the page handles it: a preset id plus `key = value` overrides (the same
//! dotted keys as the CLI's `--set`), the effective config as TOML for download, and the config
//! flattened to `key -> value` for the form and the shareable URL.
//!
//! STAND-IN until h/config lands: presets are `default` (the schema's defaults) only, and
//! overrides are applied here through the serde data model (a key must exist, a value must parse
//! as the key's type). When `config::preset(id)` / `config::apply_override` are merged, the
//! functions below call them instead and keep their signatures.

use serde_json::Value;

use crate::config::GpuConfig;
use crate::{Error, Result};

/// Ids of the GPU presets, in display order.
pub fn preset_ids() -> Vec<String> {
    vec!["default".to_string()]
}

/// The preset `id`.
pub fn preset(id: &str) -> Result<GpuConfig> {
    match id {
        "default" | "" => Ok(GpuConfig::default()),
        _ => Err(Error::config("preset", format!("unknown preset `{id}` (known: {})", preset_ids().join(", ")))),
    }
}

/// Applies one `key = value` override, e.g. `l1d.cache.size_kb = 64`.
pub fn apply_override(cfg: &mut GpuConfig, key: &str, value: &str) -> Result<()> {
    let mut root = serde_json::to_value(&*cfg).map_err(|e| Error::other(e.to_string()))?;
    {
        let mut slot = &mut root;
        for part in key.split('.') {
            slot = slot
                .as_object_mut()
                .and_then(|m| m.get_mut(part))
                .ok_or_else(|| Error::config(key, "no such configuration key"))?;
        }
        *slot = parse_like(slot, key, value.trim())?;
    }
    *cfg = serde_json::from_value(root).map_err(|e| Error::config(key, e.to_string()))?;
    Ok(())
}

/// Parses `v` as a value of the same JSON type as `old`.
fn parse_like(old: &Value, key: &str, v: &str) -> Result<Value> {
    let bad = |what: &str| Error::config(key, format!("`{v}` is not {what}"));
    Ok(match old {
        Value::Bool(_) => match v {
            "true" | "1" | "on" | "yes" => Value::Bool(true),
            "false" | "0" | "off" | "no" => Value::Bool(false),
            _ => return Err(bad("true or false")),
        },
        Value::Number(n) if n.is_f64() => {
            let x: f64 = v.parse().map_err(|_| bad("a number"))?;
            serde_json::Number::from_f64(x).map(Value::Number).ok_or_else(|| bad("a finite number"))?
        }
        Value::Number(_) => Value::Number(v.parse::<u64>().map_err(|_| bad("a whole number ≥ 0"))?.into()),
        Value::String(_) => Value::String(v.trim_matches('"').to_string()),
        Value::Array(_) => {
            let inner = v.trim_start_matches('[').trim_end_matches(']');
            let mut out = Vec::new();
            for item in inner.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                out.push(Value::Number(item.parse::<u64>().map_err(|_| bad("a list of whole numbers"))?.into()));
            }
            Value::Array(out)
        }
        Value::Object(_) => return Err(Error::config(key, "is a section, not a key: name one of its keys")),
        Value::Null => return Err(Error::config(key, "cannot be set")),
    })
}

/// The preset with every override applied, in order.
pub fn effective(preset_id: &str, overrides: &[(String, String)]) -> Result<GpuConfig> {
    let mut cfg = preset(preset_id)?;
    for (k, v) in overrides {
        apply_override(&mut cfg, k, v)?;
    }
    Ok(cfg)
}

/// The config as TOML (what "download config" saves; the CLI loads it back).
pub fn to_toml(cfg: &GpuConfig) -> Result<String> {
    toml::to_string(cfg).map_err(|e| Error::other(format!("cannot write the config as TOML: {e}")))
}

/// Parses a TOML config (a whole preset file or a partial one over the defaults).
pub fn from_toml(text: &str) -> Result<GpuConfig> {
    toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start.min(text.len())].lines().count() as u64).unwrap_or(0);
        Error::parse("config.toml", line, "toml", e.message().to_string())
    })
}

/// Every leaf key of the config with its value as the text an override takes, in schema order.
pub fn flatten(cfg: &GpuConfig) -> Vec<(String, String)> {
    fn walk(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                    walk(&key, x, out);
                }
            }
            Value::Array(a) => {
                let items: Vec<String> = a.iter().map(|x| x.to_string()).collect();
                out.push((prefix.to_string(), items.join(",")));
            }
            Value::String(s) => out.push((prefix.to_string(), s.clone())),
            other => out.push((prefix.to_string(), other.to_string())),
        }
    }
    let mut out = Vec::new();
    if let Ok(v) = serde_json::to_value(cfg) {
        walk("", &v, &mut out);
    }
    out
}

/// The keys whose values differ between `base` and `cfg` (what a shared URL carries).
pub fn diff(base: &GpuConfig, cfg: &GpuConfig) -> Vec<(String, String)> {
    let a = flatten(base);
    flatten(cfg).into_iter().zip(a).filter(|(x, y)| x.1 != y.1).map(|(x, _)| x).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_sets_a_nested_key_and_diff_finds_only_it() {
        let base = preset("default").unwrap();
        let cfg = effective("default", &[("l1d.cache.size_kb".into(), "64".into()), ("features.war_check".into(), "false".into())])
            .unwrap();
        assert_eq!(cfg.l1d.cache.size_kb, 64);
        assert!(!cfg.features.war_check);
        let d = diff(&base, &cfg);
        assert_eq!(d, vec![("features.war_check".to_string(), "false".to_string()), ("l1d.cache.size_kb".to_string(), "64".to_string())]);
    }

    #[test]
    fn bad_overrides_name_the_key() {
        let mut c = GpuConfig::default();
        assert_eq!(apply_override(&mut c, "l1d.cache.nope", "1").unwrap_err().to_string(), "config key `l1d.cache.nope`: no such configuration key");
        assert_eq!(
            apply_override(&mut c, "sm.max_warps", "-3").unwrap_err().to_string(),
            "config key `sm.max_warps`: `-3` is not a whole number ≥ 0"
        );
        assert!(apply_override(&mut c, "scheduler.policy", "fastest").unwrap_err().to_string().starts_with("config key `scheduler.policy`:"));
        apply_override(&mut c, "scheduler.policy", "lrr").unwrap();
        assert_eq!(c.scheduler.policy, crate::config::SchedPolicy::Lrr);
    }

    #[test]
    fn toml_round_trip_keeps_every_key() {
        let cfg = effective("default", &[("clocks.core_mhz".into(), "1500.5".into()), ("l1d.shmem_options_kb".into(), "0,8,16".into())]).unwrap();
        let back = from_toml(&to_toml(&cfg).unwrap()).unwrap();
        assert_eq!(back, cfg);
        assert_eq!(back.l1d.shmem_options_kb, vec![0, 8, 16]);
    }
}
