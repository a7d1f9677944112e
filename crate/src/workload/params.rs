//! Workload parameters: `key=value` strings, parsed and range-checked against a workload's
//! [`ParamDesc`] table. Errors name the workload and the parameter.

use crate::{Error, Result};

/// One parameter a workload accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamDesc {
    pub name: &'static str,
    /// Value used when the user gives none.
    pub default: &'static str,
    pub doc: &'static str,
    /// Smallest allowed value (numeric parameters).
    pub min: u64,
    /// Largest allowed value (numeric parameters).
    pub max: u64,
    /// When not empty the parameter is a word, one of these; `min`/`max` are unused.
    pub choices: &'static [&'static str],
}

impl ParamDesc {
    /// A numeric parameter.
    pub const fn num(
        name: &'static str,
        default: &'static str,
        min: u64,
        max: u64,
        doc: &'static str,
    ) -> Self {
        ParamDesc {
            name,
            default,
            doc,
            min,
            max,
            choices: &[],
        }
    }
    /// A word parameter with a fixed set of values.
    pub const fn word(
        name: &'static str,
        default: &'static str,
        choices: &'static [&'static str],
        doc: &'static str,
    ) -> Self {
        ParamDesc {
            name,
            default,
            doc,
            min: 0,
            max: 0,
            choices,
        }
    }
}

/// Parameters as the user gave them: `key=value` pairs, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Params {
    pub pairs: Vec<(String, String)>,
}

impl Params {
    pub fn new() -> Self {
        Self::default()
    }
    /// Parses `key=value` strings (as `--param` gives them; several may be comma-separated).
    pub fn parse<S: AsRef<str>>(items: &[S]) -> Result<Params> {
        let mut p = Params::new();
        for item in items {
            for kv in item.as_ref().split(',').filter(|s| !s.trim().is_empty()) {
                let (k, v) = kv.split_once('=').ok_or_else(|| {
                    Error::parse(
                        "--param",
                        0,
                        kv.trim(),
                        "expected key=value (for example n=1024)",
                    )
                })?;
                p.pairs.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        Ok(p)
    }
    /// Adds one pair (builder style).
    pub fn set(mut self, k: &str, v: impl ToString) -> Self {
        self.pairs.push((k.to_string(), v.to_string()));
        self
    }
}

/// Parameters resolved against a workload's table: every parameter has a checked value.
#[derive(Clone, Debug)]
pub struct Args {
    workload: &'static str,
    values: Vec<(&'static ParamDesc, String)>,
}

fn err(workload: &str, key: &str, msg: impl Into<String>) -> Error {
    Error::parse(
        format!("workload `{workload}`"),
        0,
        format!("parameter `{key}`"),
        msg,
    )
}

impl Args {
    /// Checks `given` against `descs`: unknown keys, bad numbers, out-of-range values and
    /// unknown words are errors that name the parameter. Later pairs override earlier ones.
    pub fn resolve(
        workload: &'static str,
        descs: &'static [ParamDesc],
        given: &Params,
    ) -> Result<Args> {
        let mut values: Vec<(&'static ParamDesc, String)> =
            descs.iter().map(|d| (d, d.default.to_string())).collect();
        for (k, v) in &given.pairs {
            let Some(slot) = values.iter_mut().find(|(d, _)| d.name == k) else {
                let known: Vec<&str> = descs.iter().map(|d| d.name).collect();
                return Err(err(
                    workload,
                    k,
                    format!(
                        "unknown parameter; {}known: {}",
                        crate::error::did_you_mean(k, known.iter().copied()),
                        known.join(", ")
                    ),
                ));
            };
            slot.1 = v.clone();
        }
        for (d, v) in &values {
            if d.choices.is_empty() {
                let n = parse_num(v)
                    .ok_or_else(|| err(workload, d.name, format!("`{v}` is not a whole number")))?;
                if n < d.min || n > d.max {
                    return Err(err(
                        workload,
                        d.name,
                        format!("{n} is out of range (allowed: {}..={})", d.min, d.max),
                    ));
                }
            } else if !d.choices.contains(&v.as_str()) {
                return Err(err(
                    workload,
                    d.name,
                    format!("`{v}` is not allowed (allowed: {})", d.choices.join(", ")),
                ));
            }
        }
        Ok(Args { workload, values })
    }
    /// The numeric value of parameter `name` (must be in the table).
    pub fn num(&self, name: &str) -> u64 {
        self.values
            .iter()
            .find(|(d, _)| d.name == name)
            .and_then(|(_, v)| parse_num(v))
            .unwrap_or(0)
    }
    /// The numeric value as u32 (parameters' ranges keep them small).
    pub fn u32(&self, name: &str) -> u32 {
        self.num(name).min(u32::MAX as u64) as u32
    }
    /// The word value of parameter `name`.
    pub fn word(&self, name: &str) -> &str {
        self.values
            .iter()
            .find(|(d, _)| d.name == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }
    /// An error about parameter `name` (for checks across parameters).
    pub fn error(&self, name: &str, msg: impl Into<String>) -> Error {
        err(self.workload, name, msg)
    }
    /// `name=value` pairs in table order: the canonical spelling of these parameters.
    pub fn canonical(&self) -> String {
        self.values
            .iter()
            .map(|(d, v)| format!("{}={}", d.name, v))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Decimal, `0x` hex, or with a `k`/`m` suffix (x1024 / x1048576).
fn parse_num(s: &str) -> Option<u64> {
    let s = s.trim().replace('_', "");
    if let Some(h) = s.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).ok();
    }
    let (digits, mul) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 1u64 << 10),
        b'm' | b'M' => (&s[..s.len() - 1], 1u64 << 20),
        _ => (&s[..], 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(mul)
}

#[cfg(test)]
mod tests {
    use super::*;

    static DESCS: [ParamDesc; 2] = [
        ParamDesc::num("n", "100", 1, 1 << 20, "elements"),
        ParamDesc::word("mode", "a", &["a", "b"], "mode"),
    ];

    #[test]
    fn numbers_words_and_suffixes() {
        let a = Args::resolve("t", &DESCS, &Params::parse(&["n=4k", "mode=b"]).unwrap()).unwrap();
        assert_eq!(a.num("n"), 4096);
        assert_eq!(a.word("mode"), "b");
        let a = Args::resolve("t", &DESCS, &Params::parse(&["n=0x10,n=12"]).unwrap()).unwrap();
        assert_eq!(a.num("n"), 12);
        assert_eq!(a.canonical(), "n=12,mode=a");
    }

    #[test]
    fn errors_name_the_parameter() {
        let e = Args::resolve("t", &DESCS, &Params::new().set("n", 0))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("parameter `n`") && e.contains("allowed: 1..=1048576"),
            "{e}"
        );
        let e = Args::resolve("t", &DESCS, &Params::new().set("n", "ten"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("parameter `n`") && e.contains("not a whole number"),
            "{e}"
        );
        let e = Args::resolve("t", &DESCS, &Params::new().set("mode", "c"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("parameter `mode`") && e.contains("a, b"), "{e}");
        let e = Args::resolve("t", &DESCS, &Params::new().set("size", 1))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("parameter `size`") && e.contains("known: n, mode"),
            "{e}"
        );
        let e = Params::parse(&["n"]).unwrap_err().to_string();
        assert!(e.contains("key=value"), "{e}");
    }
}
