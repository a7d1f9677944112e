//! Configuration as the page handles it: a preset id plus `key = value` overrides (the same
//! dotted keys as the CLI's `--set`), the effective config as documented TOML for download, the
//! config flattened to `key -> value` for the form and the shareable URL, and the key table
//! (`config::schema_doc`) with units and ranges. Everything goes through `crate::config`, so
//! the page validates exactly as the CLI does.

use serde_json::Value;

use crate::config::{self as cfgmod, GpuConfig};
use crate::Result;

/// Ids of the GPU presets, in display order.
pub fn preset_ids() -> Vec<String> {
    cfgmod::preset_ids()
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The preset `id`.
pub fn preset(id: &str) -> Result<GpuConfig> {
    cfgmod::preset(id)
}

/// The preset with every override applied in order, validated once.
pub fn effective(preset_id: &str, overrides: &[(String, String)]) -> Result<GpuConfig> {
    let mut cfg = preset(preset_id)?;
    for (k, v) in overrides {
        cfgmod::apply_override(&mut cfg, k, v)?;
    }
    cfg.validate()?;
    Ok(cfg)
}

/// The config as documented TOML (what "download config" saves; the CLI loads it back).
pub fn to_toml(cfg: &GpuConfig) -> String {
    cfgmod::to_toml_documented(cfg)
}

/// Parses and validates a TOML config (a whole preset file or a partial one over the defaults).
pub fn from_toml(text: &str) -> Result<GpuConfig> {
    if text.trim().is_empty() {
        return Ok(GpuConfig::default());
    }
    cfgmod::parse_toml("config.toml", text)
}

/// Imports an Accel-Sim `gpgpusim.config` (and optionally `trace.config`); returns the config
/// and the importer's warnings as `file:line: option: message` lines.
pub fn import_accel_sim(name: &str, text: &str) -> Result<(GpuConfig, Vec<String>)> {
    let r = cfgmod::import_accel_sim((name, text), ("trace.config", ""))?;
    let w = r
        .warnings
        .iter()
        .map(|w| format!("{}:{}: {}: {}", w.file, w.line, w.option, w.reason))
        .collect();
    Ok((r.config, w))
}

/// Every leaf key of the config with its value as the text an override takes, in schema order.
pub fn flatten(cfg: &GpuConfig) -> Vec<(String, String)> {
    fn walk(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
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
    let mut flat = Vec::new();
    if let Ok(v) = serde_json::to_value(cfg) {
        walk("", &v, &mut flat);
    }
    // Schema order (the key table's order), keys the table lacks last.
    let order: Vec<String> = cfgmod::schema_doc().into_iter().map(|k| k.key).collect();
    flat.sort_by_key(|(k, _)| order.iter().position(|o| o == k).unwrap_or(usize::MAX));
    flat
}

/// The keys whose values differ between `base` and `cfg` (what a shared URL carries).
pub fn diff(base: &GpuConfig, cfg: &GpuConfig) -> Vec<(String, String)> {
    let a: std::collections::HashMap<String, String> = flatten(base).into_iter().collect();
    flatten(cfg)
        .into_iter()
        .filter(|(k, v)| a.get(k) != Some(v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_loads_and_flattens_to_the_schema_keys() {
        let ids = preset_ids();
        assert!(ids.len() >= 2, "{ids:?}");
        let keys: Vec<String> = cfgmod::schema_doc().into_iter().map(|k| k.key).collect();
        for id in &ids {
            let f = flatten(&preset(id).unwrap());
            let fk: Vec<&String> = f.iter().map(|(k, _)| k).collect();
            assert_eq!(fk, keys.iter().collect::<Vec<_>>(), "preset {id}");
        }
    }

    #[test]
    fn override_sets_a_nested_key_and_diff_finds_only_it() {
        let id = &preset_ids()[0];
        let base = preset(id).unwrap();
        let want = if base.l1d.cache.assoc == 8 { "16" } else { "8" };
        let cfg = effective(id, &[("l1d.cache.assoc".into(), want.into())]).unwrap();
        assert_eq!(cfg.l1d.cache.assoc.to_string(), want);
        assert_eq!(
            diff(&base, &cfg),
            vec![("l1d.cache.assoc".to_string(), want.to_string())]
        );
        // The diff applied to the preset gives the config back (what a shared URL relies on).
        assert_eq!(effective(id, &diff(&base, &cfg)).unwrap(), cfg);
    }

    #[test]
    fn bad_overrides_name_the_key() {
        let id = &preset_ids()[0];
        let e = effective(id, &[("l1d.cache.nope".into(), "1".into())])
            .unwrap_err()
            .to_string();
        assert!(e.contains("l1d.cache.nope"), "{e}");
        let e = effective(id, &[("sm.max_warps".into(), "0".into())])
            .unwrap_err()
            .to_string();
        assert!(e.contains("sm.max_warps"), "{e}");
    }

    #[test]
    fn documented_toml_round_trips() {
        let id = &preset_ids()[0];
        let cfg = effective(id, &[("clocks.core_mhz".into(), "1500.5".into())]).unwrap();
        assert_eq!(from_toml(&to_toml(&cfg)).unwrap(), cfg);
    }
}
