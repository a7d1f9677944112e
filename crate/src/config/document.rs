//! TOML in and out.
//!
//! - [`parse_toml`]: text to a validated [`GpuConfig`]; a bad or unknown key becomes an
//!   [`Error::Parse`] naming the file, line and dotted key (toml gives byte spans).
//! - [`to_toml_documented`]: every key with its doc line, unit and allowed range, in table
//!   order, so `warpweave config show` prints units; [`to_toml_with_sources`] adds a source
//!   per key and is how the preset files in `configs/` are written.
//!
//! ```text
//!  # Capacity (for L2: per slice)
//!  size_kb = 32          # KiB, 1..=4096 | seed 000 Table II
//! ```

use serde::Deserialize;

use super::keys::specs;
use super::schema::GpuConfig;
use super::validate::{lookup, to_value};
use crate::{Error, Result};

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> u64 {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

/// The dotted key at a span: the enclosing `[section]` plus the key text at the span.
fn key_at(text: &str, span: std::ops::Range<usize>) -> String {
    let start = span.start.min(text.len());
    let end = span.end.min(text.len()).max(start);
    let raw = text.get(start..end).unwrap_or("").trim();
    // A span on a value (an array `[1, 2]` too): the key is what precedes `=` on that line.
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..start];
    let (raw, on_value) = match before.split_once('=') {
        Some((k, _)) => (k.trim(), true),
        None => (raw, false),
    };
    let leaf: String = raw
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.' || *c == '-')
        .collect();
    let section = text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && !l.starts_with("[["))
        .map(|l| {
            l.trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
                // (A span inside the header line itself, `[gpu.x]` at `x`: the part before.)
                .trim_end_matches('.')
                .to_string()
        });
    // A span on a whole table (`[l1d]`) already holds the path.
    if !on_value && raw.starts_with('[') {
        return raw
            .trim_start_matches('[')
            .split(']')
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
    }
    match section {
        Some(s) if !s.is_empty() && !leaf.is_empty() => format!("{s}.{leaf}"),
        Some(s) if leaf.is_empty() => s,
        _ => leaf,
    }
}

fn de_error(file: &str, text: &str, e: &toml::de::Error) -> Error {
    let msg = e.message().trim().to_string();
    match e.span() {
        Some(span) => {
            let line = line_of(text, span.start);
            let mut field = key_at(text, span);
            // For `unknown field` the span may cover the whole table; name the field itself.
            if let Some(name) = msg
                .strip_prefix("unknown field `")
                .and_then(|r| r.split('`').next())
            {
                if !field.ends_with(name) {
                    field = if field.is_empty() {
                        name.to_string()
                    } else {
                        format!("{field}.{name}")
                    };
                }
                let hint = super::overrides::key_hint(&field);
                if hint.starts_with("did you mean") {
                    return Error::parse(file, line, field, format!("{msg}; {hint}"));
                }
            }
            Error::parse(
                file,
                line,
                if field.is_empty() {
                    "toml".into()
                } else {
                    field
                },
                msg,
            )
        }
        None => Error::parse(file, 0, "toml", msg),
    }
}

/// Parse a GPU TOML (keys left out take the defaults) and validate it.
pub fn parse_toml(file: &str, text: &str) -> Result<GpuConfig> {
    let cfg = parse_toml_unvalidated(file, text)?;
    validated(file, text, cfg)
}

/// `cfg` validated, an error pointing at the line of `text` that sets the key.
fn validated(file: &str, text: &str, cfg: GpuConfig) -> Result<GpuConfig> {
    cfg.validate().map_err(|e| match e {
        Error::Config { key, msg } => {
            // Point at the line that sets the key, when the file sets it.
            let line = find_key_line(text, &key);
            Error::parse(file, line, key, msg)
        }
        other => other,
    })?;
    Ok(cfg)
}

/// Parse a GPU file a user wrote (`--gpu my.toml`, TOML text) and validate it. It names the
/// preset it starts from, before its first `[section]`, and changes keys of it:
///
/// ```text
///  base = "rtx2080ti"
///  [gpu]
///  num_sms = 34
/// ```
///
/// or, without `base`, sets every key (as `config show` and `config import` write them). A file
/// that does neither (an empty one too) is an error listing the keys it lacks: no key of a GPU
/// file silently takes a default. `preset_text` gives the TOML of a preset id.
pub fn parse_gpu_file(
    file: &str,
    text: &str,
    preset_text: impl Fn(&str) -> Result<&'static str>,
    validate: bool,
) -> Result<GpuConfig> {
    let table: toml::Table = toml::from_str(text).map_err(|e| de_error(file, text, &e))?;
    let Some(base) = table.get("base") else {
        let cfg = parse_toml_unvalidated(file, text)?;
        let root = toml::Value::Table(table);
        let all = specs();
        let missing: Vec<&str> = all
            .iter()
            .filter(|k| lookup(&root, &k.key).is_none())
            .map(|k| k.key.as_str())
            .collect();
        if !missing.is_empty() {
            let shown = missing
                .iter()
                .take(4)
                .copied()
                .collect::<Vec<_>>()
                .join(", ");
            let more = match missing.len() {
                n if n > 4 => format!(" and {} more", n - 4),
                _ => String::new(),
            };
            return Err(Error::parse(
                file,
                0,
                "base",
                format!(
                    "a GPU file names the preset it starts from or sets every key; this one \
                     does neither ({} of {} keys missing: {shown}{more}): add \
                     `base = \"<preset>\"` before its first [section] (presets: {})",
                    missing.len(),
                    all.len(),
                    super::presets::preset_ids().join(", ")
                ),
            ));
        }
        return if validate {
            validated(file, text, cfg)
        } else {
            Ok(cfg)
        };
    };
    let line = base_line(text);
    let Some(id) = base.as_str() else {
        return Err(Error::parse(
            file,
            line,
            "base",
            "expected a preset id in quotes, e.g. `base = \"rtx2080ti\"`",
        ));
    };
    let base_text = preset_text(id).map_err(|e| {
        let msg = match e {
            Error::Config { msg, .. } => msg,
            other => other.to_string(),
        };
        Error::parse(file, line, "base", msg)
    })?;
    if line == 0 {
        return Err(Error::parse(
            file,
            0,
            "base",
            "write it as `base = \"<preset>\"` on a line of its own before the first [section]",
        ));
    }
    // The file's own keys checked where they stand (its `base` line blanked: same offsets).
    let own: String = text
        .split_inclusive('\n')
        .enumerate()
        .map(|(i, l)| {
            if i as u64 + 1 == line {
                l.chars().map(|c| if c == '\n' { c } else { ' ' }).collect()
            } else {
                l.to_string()
            }
        })
        .collect();
    parse_toml_unvalidated(file, &own)?;
    // Then laid over the preset, key by key.
    let mut merged: toml::Table =
        toml::from_str(base_text).map_err(|e| Error::other(format!("preset {id}: {e}")))?;
    let mut table = table;
    table.remove("base");
    merge(&mut merged, table);
    let cfg = GpuConfig::deserialize(toml::Value::Table(merged))
        .map_err(|e| Error::parse(file, 0, "toml", e.message().to_string()))?;
    if validate {
        validated(file, text, cfg)
    } else {
        Ok(cfg)
    }
}

/// The line of a top-level `base = ...` (before the first section), 0 when there is none.
fn base_line(text: &str) -> u64 {
    for (i, l) in text.lines().enumerate() {
        let t = l.trim_start();
        if t.starts_with('[') {
            break;
        }
        if let Some(rest) = t.strip_prefix("base") {
            if rest.trim_start().starts_with('=') {
                return i as u64 + 1;
            }
        }
    }
    0
}

/// `over` laid onto `into`: tables merged key by key, any other value replaced.
fn merge(into: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (into.get_mut(&k), v) {
            (Some(toml::Value::Table(a)), toml::Value::Table(b)) => merge(a, b),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// Parse without validating (for import and tools that fix the config up afterwards).
pub fn parse_toml_unvalidated(file: &str, text: &str) -> Result<GpuConfig> {
    toml::from_str::<GpuConfig>(text).map_err(|e| de_error(file, text, &e))
}

/// Line that assigns `key` (dotted) in a TOML text, 0 when the file does not set it.
fn find_key_line(text: &str, key: &str) -> u64 {
    let (section, leaf) = key.rsplit_once('.').unwrap_or(("", key));
    let mut cur = String::new();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if t.starts_with('[') {
            cur = t
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
        } else if cur == section {
            if let Some((k, _)) = t.split_once('=') {
                if k.trim() == leaf {
                    return i as u64 + 1;
                }
            }
        }
    }
    0
}

/// Every key with its doc, unit and allowed range (what `config show` prints).
pub fn to_toml_documented(cfg: &GpuConfig) -> String {
    to_toml_with_sources(cfg, "", |_| None)
}

/// Like [`to_toml_documented`], with a header comment and a source per key (preset files).
pub fn to_toml_with_sources<'a>(
    cfg: &GpuConfig,
    header: &str,
    source: impl Fn(&str) -> Option<&'a str>,
) -> String {
    let root = match to_value(cfg) {
        Ok(v) => v,
        Err(e) => return format!("# {e}\n"),
    };
    let mut out = String::new();
    for l in header.lines() {
        out.push_str(if l.is_empty() { "#" } else { "# " });
        out.push_str(l);
        out.push('\n');
    }
    let mut section = String::from("\u{0}");
    for k in specs() {
        let (sec, leaf) = k.key.rsplit_once('.').unwrap_or(("", &k.key));
        if sec != section {
            section = sec.to_string();
            out.push_str(&format!("\n[{sec}]\n"));
        }
        let Some(v) = lookup(&root, &k.key) else {
            continue;
        };
        let assign = format!("{leaf} = {v}");
        let mut note = format!("{}; {}", k.unit, k.range_text());
        if let Some(s) = source(&k.key) {
            note.push_str(" | ");
            note.push_str(s);
        }
        out.push_str(&format!("# {}\n{assign:<28} # {note}\n", k.doc));
    }
    out
}

/// Deserialize from an already parsed value (used by import and the fuzz target).
pub fn from_value(v: toml::Value) -> Result<GpuConfig> {
    GpuConfig::deserialize(v).map_err(|e| Error::other(e.message().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_file_line_and_key() {
        let text = "[gpu]\nnum_sms = 4\n\n[l1d.cache]\nsize_kb = 32\nsizekb = 4\n";
        let e = parse_toml("my.toml", text).unwrap_err().to_string();
        assert!(
            e.starts_with("my.toml:6: l1d.cache.sizekb: unknown field `sizekb`"),
            "{e}"
        );
        let text = "[gpu]\nnum_smz = 4\n";
        let e = parse_toml("g.toml", text).unwrap_err().to_string();
        assert!(
            e.starts_with("g.toml:2: gpu.num_smz: unknown field `num_smz`"),
            "{e}"
        );
        let text = "[gpux]\nnum_sms = 4\n";
        let e = parse_toml("g.toml", text).unwrap_err().to_string();
        assert!(e.starts_with("g.toml:1: gpux: unknown field `gpux`"), "{e}");
    }

    #[test]
    fn wrong_type_and_range_point_at_the_line() {
        let text = "[gpu]\nname = \"x\"\nnum_sms = \"many\"\n";
        let e = parse_toml("g.toml", text).unwrap_err().to_string();
        assert!(e.starts_with("g.toml:3: gpu.num_sms: invalid type"), "{e}");
        let text = "[gpu]\nnum_sms = 0\n";
        let e = parse_toml("g.toml", text).unwrap_err().to_string();
        assert_eq!(e, "g.toml:2: gpu.num_sms: 0 is out of range 1..=1024");
        // An array where a number belongs names the key, not the array.
        for text in [
            "[gpu]\nnum_sms = [1, 2]\n",
            "[gpu]\nnum_sms = [\n  1,\n  2,\n]\n",
        ] {
            let e = parse_toml("g.toml", text).unwrap_err().to_string();
            assert!(
                e.starts_with("g.toml:2: gpu.num_sms: invalid type: sequence"),
                "{e}"
            );
        }
        // ... and a table header is still a table.
        let e = parse_toml("g.toml", "[gpu.x]\ny = 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("g.toml:1: gpu.x: unknown field `x`"), "{e}");
        let text = "[sm]\nmax_warps = 48\nsubcores = 5\n";
        let e = parse_toml("g.toml", text).unwrap_err().to_string();
        assert_eq!(
            e,
            "g.toml:3: sm.subcores: 5 does not divide sm.max_warps = 48"
        );
    }

    #[test]
    fn documented_toml_round_trips() {
        let mut c = GpuConfig::default();
        c.gpu.name = "Round \"trip\"".into();
        c.l1d.shmem_options_kb = vec![0, 8, 16, 64];
        let text = to_toml_documented(&c);
        assert!(
            text.contains("\n[l1d.cache]\n# Capacity; with l1d.adaptive_carveout the smallest L1"),
            "{text}"
        );
        assert!(text.contains("# KiB; 1..=4096\n"));
        let back = parse_toml("show", &text).unwrap();
        assert_eq!(back, c);
        // a source column when asked
        let with = to_toml_with_sources(&c, "Title\n\nmore", |k| {
            (k == "gpu.num_sms").then_some("seed 000 Table II")
        });
        assert!(with.starts_with("# Title\n#\n# more\n"));
        assert!(with.contains("# SMs; 1..=1024 | seed 000 Table II\n"));
    }
}
