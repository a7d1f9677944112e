//! Dotted-key overrides (`sm.subcores = 2`) applied to a [`GpuConfig`] through its serde form,
//! so every key of the schema works without a hand-written table, and a wrong key or value is an
//! error naming the key. Values are given as text and take the type of the field they replace.
//!
//! This is the sweep's local stand-in until `config::apply_override` lands on main; it gives the
//! same answers for every scalar key.

use crate::config::GpuConfig;
use crate::{Error, Result};

/// Applies `key = value` overrides in order.
pub fn apply_all<'a>(cfg: &mut GpuConfig, kv: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<()> {
    let mut v = toml::Value::try_from(&*cfg).map_err(|e| Error::other(format!("config: {e}")))?;
    let mut any = false;
    for (k, val) in kv {
        set_path(&mut v, k, val)?;
        any = true;
    }
    if any {
        *cfg = v.try_into().map_err(|e: toml::de::Error| Error::config("(overrides)", e.message().trim().to_string()))?;
    }
    Ok(())
}

fn set_path(root: &mut toml::Value, key: &str, val: &str) -> Result<()> {
    let mut cur = root;
    let parts: Vec<&str> = key.split('.').collect();
    for (i, p) in parts.iter().enumerate() {
        let toml::Value::Table(t) = cur else {
            return Err(Error::config(key, format!("`{}` is not a section", parts[..i].join("."))));
        };
        if !t.contains_key(*p) {
            let known: Vec<&String> = t.keys().collect();
            return Err(Error::config(key, format!("no such key `{p}`; expected one of {known:?}")));
        }
        cur = t.get_mut(*p).expect("checked above");
    }
    let new = match cur {
        toml::Value::Integer(_) => val
            .parse::<i64>()
            .map(toml::Value::Integer)
            .map_err(|_| Error::config(key, format!("expected an integer, found `{val}`")))?,
        toml::Value::Float(_) => val
            .parse::<f64>()
            .map(toml::Value::Float)
            .map_err(|_| Error::config(key, format!("expected a number, found `{val}`")))?,
        toml::Value::Boolean(_) => match val {
            "true" | "on" | "1" => toml::Value::Boolean(true),
            "false" | "off" | "0" => toml::Value::Boolean(false),
            _ => return Err(Error::config(key, format!("expected true or false, found `{val}`"))),
        },
        toml::Value::String(_) => toml::Value::String(val.to_string()),
        toml::Value::Array(_) => {
            let items: Result<Vec<toml::Value>> = val
                .split(',')
                .filter(|s| !s.trim().is_empty())
                .map(|s| {
                    s.trim()
                        .parse::<i64>()
                        .map(toml::Value::Integer)
                        .map_err(|_| Error::config(key, format!("expected a comma-separated list of integers, found `{val}`")))
                })
                .collect();
            toml::Value::Array(items?)
        }
        _ => return Err(Error::config(key, "is a section; name one of its keys")),
    };
    *cur = new;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_typed_values_and_names_bad_keys() {
        let mut c = GpuConfig::default();
        apply_all(&mut c, [("sm.subcores", "2"), ("scheduler.issue_width", "2"), ("features.war_check", "off")]).unwrap();
        assert_eq!((c.sm.subcores, c.scheduler.issue_width, c.features.war_check), (2, 2, false));
        apply_all(&mut c, [("scheduler.policy", "lrr"), ("latency.fp32.latency", "3")]).unwrap();
        assert_eq!(c.scheduler.policy, crate::config::SchedPolicy::Lrr);
        assert_eq!(c.latency.fp32.latency, 3);
        let e = apply_all(&mut c, [("sm.subcore", "2")]).unwrap_err().to_string();
        assert!(e.starts_with("config key `sm.subcore`: no such key `subcore`"), "{e}");
        let e = apply_all(&mut c, [("sm.subcores", "two")]).unwrap_err().to_string();
        assert_eq!(e, "config key `sm.subcores`: expected an integer, found `two`");
        let e = apply_all(&mut c, [("scheduler.policy", "fifo")]).unwrap_err().to_string();
        assert!(e.starts_with("config key `(overrides)`"), "{e}");
    }
}
