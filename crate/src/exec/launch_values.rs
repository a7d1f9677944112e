//! The values of a launch spec: `[[constant]]` tables, buffer inits, grid and block shapes,
//! kernel arguments, and the initial bytes of a buffer (the format: `launch.rs`, LAUNCH.md).

use std::path::Path;

use serde::Deserialize;

use super::launch::{Arg, BufferDef, ConstDef, Elem, Init, KeyErr};
use crate::trace::model::Dim3;
use crate::{Error, Result};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileConstant {
    pub(super) bank: Option<u32>,
    #[serde(default)]
    pub(super) offset: u32,
    #[serde(rename = "type")]
    pub(super) ty: Option<String>,
    pub(super) values: Option<Vec<toml::Value>>,
    pub(super) file: Option<String>,
}

/// Most bytes of one constant bank (64 KiB).
pub const MAX_CONST_BANK: u32 = 1 << 16;

pub(super) fn constant(c: &FileConstant, dir: &Path) -> std::result::Result<ConstDef, KeyErr> {
    let err = |k: &str, m: String| (k.to_string(), m);
    let bank = c.bank.unwrap_or(3);
    if !(1..=17).contains(&bank) {
        return Err(err(
            "bank",
            format!("{bank}: expected 1 to 17 (bank 0 holds the launch's parameters)"),
        ));
    }
    let bytes = match (&c.values, &c.file, &c.ty) {
        (Some(vals), None, Some(ty)) => {
            let elem = Elem::NAMES
                .iter()
                .find(|(n, _)| n == ty)
                .map(|(_, e)| *e)
                .ok_or_else(|| {
                    let names: Vec<&str> = Elem::NAMES.iter().map(|(n, _)| *n).collect();
                    err(
                        "type",
                        format!("\"{ty}\": expected one of {}", names.join(", ")),
                    )
                })?;
            let mut out = Vec::new();
            for (i, v) in vals.iter().enumerate() {
                let x = num(v).ok_or_else(|| {
                    err(&format!("values[{i}]"), format!("{v}: expected a number"))
                })?;
                if !elem.is_float() && (v.as_integer().is_none() || x.fract() != 0.0) {
                    return Err(err(
                        &format!("values[{i}]"),
                        format!("{v}: expected an integer for type {ty}"),
                    ));
                }
                elem.encode(x, v.as_integer().map_or(x as i128, i128::from), &mut out);
            }
            out
        }
        (None, Some(f), None) => {
            let p = dir.join(f);
            std::fs::read(&p).map_err(|e| err("file", format!("{}: {e}", p.display())))?
        }
        (Some(_), None, None) => {
            return Err(err("type", "missing: the element type of values".into()))
        }
        (None, Some(_), Some(_)) => {
            return Err(err("type", "only with values (a file is raw bytes)".into()))
        }
        (Some(_), Some(_), _) => return Err(err("file", "give values or a file, not both".into())),
        (None, None, _) => {
            return Err(err(
                "values",
                "missing: values = [...] with a type, or file = \"bytes.bin\"".into(),
            ))
        }
    };
    let end = c.offset as u64 + bytes.len() as u64;
    if end > MAX_CONST_BANK as u64 {
        return Err(err(
            "offset",
            format!(
                "{} bytes from {}: past the {MAX_CONST_BANK} bytes of a constant bank",
                bytes.len(),
                c.offset
            ),
        ));
    }
    Ok(ConstDef {
        bank: bank as u8,
        offset: c.offset,
        bytes,
    })
}

pub(super) fn num(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    }
}

pub(super) fn init_table(
    t: &toml::Table,
    elem: Elem,
    dir: &Path,
) -> std::result::Result<Init, String> {
    if let Some(v) = t.get("fill") {
        if t.len() > 1 {
            return Err("{ fill = x } takes no other key".into());
        }
        return num(v)
            .map(Init::Fill)
            .ok_or_else(|| format!("fill = {v}: expected a number"));
    }
    if let Some(v) = t.get("file") {
        if t.len() > 1 {
            return Err("{ file = \"...\" } takes no other key".into());
        }
        let s = v
            .as_str()
            .ok_or_else(|| format!("file = {v}: expected a path"))?;
        return Ok(Init::File(dir.join(s)));
    }
    if let Some(v) = t.get("random") {
        let seed = v
            .as_integer()
            .filter(|s| *s >= 0)
            .ok_or_else(|| format!("random = {v}: expected a seed (a non-negative integer)"))?;
        let (dmin, dmax) = if elem.is_float() {
            (0.0, 1.0)
        } else {
            (0.0, 1000.0)
        };
        let bound = |k: &str, d: f64| -> std::result::Result<f64, String> {
            t.get(k).map_or(Ok(d), |v| {
                num(v).ok_or_else(|| format!("{k} = {v}: expected a number"))
            })
        };
        let (min, max) = (bound("min", dmin)?, bound("max", dmax)?);
        if let Some(k) = t
            .keys()
            .find(|k| !["random", "min", "max"].contains(&k.as_str()))
        {
            return Err(format!("unknown key {k} (random takes min and max)"));
        }
        if max <= min {
            return Err(format!("random: max {max} must be above min {min}"));
        }
        return Ok(Init::Random {
            seed: seed as u64,
            min,
            max,
        });
    }
    Err("expected { fill = x }, { random = seed } or { file = \"path\" }".into())
}

pub(super) fn dim(v: &toml::Value) -> std::result::Result<Dim3, String> {
    let side = |v: &toml::Value| {
        v.as_integer()
            .filter(|&n| (1..=i32::MAX as i64).contains(&n))
            .map(|n| n as u32)
    };
    let bad = || format!("{v}: expected a positive integer or a list of 1 to 3 of them");
    match v {
        toml::Value::Integer(_) => Ok(Dim3::new(side(v).ok_or_else(bad)?, 1, 1)),
        toml::Value::Array(a) if (1..=3).contains(&a.len()) => {
            let mut d = [1u32; 3];
            for (i, x) in a.iter().enumerate() {
                d[i] = side(x).ok_or_else(bad)?;
            }
            Ok(Dim3::new(d[0], d[1], d[2]))
        }
        _ => Err(bad()),
    }
}

pub(super) fn arg(a: &toml::Value, buffers: &[BufferDef]) -> std::result::Result<Arg, String> {
    let scalar_of = |ty: &str, v: &toml::Value| -> std::result::Result<Vec<u8>, String> {
        let bad = || format!("{ty} = {v}: not a {ty}");
        Ok(match ty {
            "i32" => i32::try_from(v.as_integer().ok_or_else(bad)?)
                .map_err(|_| bad())?
                .to_le_bytes()
                .to_vec(),
            "u32" => u32::try_from(v.as_integer().ok_or_else(bad)?)
                .map_err(|_| bad())?
                .to_le_bytes()
                .to_vec(),
            "i64" => v.as_integer().ok_or_else(bad)?.to_le_bytes().to_vec(),
            "u64" => u64::try_from(v.as_integer().ok_or_else(bad)?)
                .map_err(|_| bad())?
                .to_le_bytes()
                .to_vec(),
            "f32" => (num(v).ok_or_else(bad)? as f32).to_le_bytes().to_vec(),
            "f64" => num(v).ok_or_else(bad)?.to_le_bytes().to_vec(),
            _ => {
                return Err(format!(
                    "unknown scalar type {ty}: expected i32, u32, i64, u64, f32 or f64"
                ))
            }
        })
    };
    match a {
        toml::Value::String(name) => buffers
            .iter()
            .position(|b| &b.name == name)
            .map(Arg::Buffer)
            .ok_or_else(|| format!("\"{name}\": no buffer of that name")),
        toml::Value::Integer(_) => scalar_of("i32", a).map(Arg::Scalar),
        toml::Value::Float(_) => scalar_of("f32", a).map(Arg::Scalar),
        toml::Value::Table(t) if t.len() == 1 => {
            let (k, v) = t.iter().next().expect("one key");
            if k == "buffer" {
                return arg(v, buffers);
            }
            scalar_of(k, v).map(Arg::Scalar)
        }
        _ => Err(format!(
            "{a}: expected a buffer name, a number or {{ TYPE = value }}"
        )),
    }
}

/// The initial bytes of a buffer.
pub fn initial_bytes(b: &BufferDef) -> Result<Vec<u8>> {
    let n = b.len as usize;
    let mut out = Vec::with_capacity(n * b.elem.bytes());
    match &b.init {
        Init::Zeros => out.resize(n * b.elem.bytes(), 0),
        Init::Iota => (0..n).for_each(|i| b.elem.encode(i as f64, i as i128, &mut out)),
        Init::Fill(v) => (0..n).for_each(|_| b.elem.encode(*v, *v as i128, &mut out)),
        Init::Random { seed, min, max } => {
            let mut s = *seed;
            for _ in 0..n {
                let r = splitmix64(&mut s);
                if b.elem.is_float() {
                    let u = (r >> 11) as f64 / (1u64 << 53) as f64;
                    b.elem.encode(min + (max - min) * u, 0, &mut out);
                } else {
                    let (lo, hi) = (min.ceil() as i128, max.ceil() as i128);
                    let span = (hi - lo).max(1) as u128;
                    let v = lo + (r as u128 % span) as i128;
                    b.elem.encode(v as f64, v, &mut out);
                }
            }
        }
        Init::File(p) => {
            let data = std::fs::read(p).map_err(|e| Error::io(p.display().to_string(), e))?;
            let want = n * b.elem.bytes();
            if data.len() != want {
                return Err(Error::parse(
                    p.display().to_string(),
                    0,
                    format!("buffer `{}`", b.name),
                    format!(
                        "{} bytes, expected {want} ({n} {} elements)",
                        data.len(),
                        b.elem.name()
                    ),
                ));
            }
            out = data;
        }
        Init::Bytes(d) => {
            out = d.clone();
            out.resize(n * b.elem.bytes(), 0);
        }
    }
    Ok(out)
}

/// SplitMix64: the seeded generator of `random` inits.
pub fn splitmix64(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
