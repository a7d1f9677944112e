//! One error type for every boundary: trace readers, config loading, the CLI and the wasm API.
//! Every variant names where the problem is (file, line, field or config key) and what was
//! expected, so a user can fix their input without reading our code.

use std::fmt;

#[derive(Debug)]
pub enum Error {
    /// Malformed input text or bytes: `file:line: field: message`.
    Parse {
        file: String,
        line: u64,
        field: String,
        msg: String,
    },
    /// A configuration key with a bad value: `key: message (allowed: range)`.
    Config { key: String, msg: String },
    /// An I/O failure on a named path.
    Io {
        path: String,
        source: std::io::Error,
    },
    /// Anything else, said plainly.
    Other(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn parse(
        file: impl Into<String>,
        line: u64,
        field: impl Into<String>,
        msg: impl Into<String>,
    ) -> Self {
        Error::Parse {
            file: file.into(),
            line,
            field: field.into(),
            msg: msg.into(),
        }
    }
    pub fn config(key: impl Into<String>, msg: impl Into<String>) -> Self {
        Error::Config {
            key: key.into(),
            msg: msg.into(),
        }
    }
    pub fn io(path: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
    pub fn other(msg: impl Into<String>) -> Self {
        Error::Other(msg.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse {
                file,
                line,
                field,
                msg,
            } => {
                if *line > 0 {
                    write!(f, "{file}:{line}: {field}: {msg}")
                } else {
                    write!(f, "{file}: {field}: {msg}")
                }
            }
            // A command-line option (`--mode`) is named as an option, anything else is a key
            // of the GPU config.
            Error::Config { key, msg } if key.starts_with("--") => {
                write!(f, "option `{key}`: {msg}")
            }
            Error::Config { key, msg } => write!(f, "config key `{key}`: {msg}"),
            Error::Io { path, source } => write!(f, "{path}: {source}"),
            Error::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The most characters of a name (kernel, opcode, file) quoted in a message.
pub const NAME_IN_MESSAGES: usize = 200;

/// `name` as a message quotes it: control characters escaped (a NUL shows as `\0`) and cut to
/// [`NAME_IN_MESSAGES`] characters with `...`, so a hostile 10 MB name stays a short line.
pub fn shown(name: &str) -> String {
    let mut out = String::new();
    for (n, c) in name.chars().enumerate() {
        if n == NAME_IN_MESSAGES {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// Edit distance between `a` and `b`: insertions, deletions, substitutions and swaps of two
/// neighbouring characters each count one (optimal string alignment).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for (i, row) in d.chunks_mut(w).enumerate() {
        row[0] = i;
    }
    for (j, x) in d.iter_mut().enumerate().take(w) {
        *x = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

/// The candidates nearest to a misspelt `name` (at most three, in the candidates' order), when
/// any is close enough to be what was meant: at most one edit per three characters, and at
/// least one.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    let scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|&(d, c)| d <= limit && c != name)
        .collect();
    let Some(best) = scored.iter().map(|x| x.0).min() else {
        return Vec::new();
    };
    let mut out: Vec<&str> = Vec::new();
    for (d, c) in scored {
        if d == best && !out.contains(&c) && out.len() < 3 {
            out.push(c);
        }
    }
    out
}

/// `did you mean `x`? ` (or `x` or `y`) for a misspelt `name`, empty when no candidate is close:
/// the start of a message that then lists every valid choice.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let near = nearest(name, candidates);
    if near.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = near.iter().map(|c| format!("`{c}`")).collect();
    format!("did you mean {}? ", quoted.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspelt_names_find_the_nearest_choices() {
        assert_eq!(edit_distance("fats", "fast"), 1);
        assert_eq!(edit_distance("cylce", "cycle"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(nearest("a10", ["a100", "h100", "titanv"]), ["a100"]);
        assert_eq!(
            nearest(
                "l1d.cache.sizekb",
                ["l1d.cache.size_kb", "l2.cache.size_kb"]
            ),
            ["l1d.cache.size_kb"]
        );
        assert!(nearest("zzzzzz", ["cycle", "fast"]).is_empty());
        assert_eq!(
            did_you_mean("hybird", ["cycle", "hybrid", "fast"]),
            "did you mean `hybrid`? "
        );
        assert_eq!(did_you_mean("qqq", ["cycle"]), "");
    }

    #[test]
    fn options_are_named_as_options_and_keys_as_keys() {
        assert_eq!(
            Error::config("--mode", "bad").to_string(),
            "option `--mode`: bad"
        );
        assert_eq!(
            Error::config("l1d.cache.size_kb", "bad").to_string(),
            "config key `l1d.cache.size_kb`: bad"
        );
    }

    #[test]
    fn long_names_are_cut_and_control_characters_escaped() {
        assert_eq!(shown("vecadd"), "vecadd");
        assert_eq!(shown("FOO\0BAR"), "FOO\\0BAR");
        let long = "k".repeat(10_000_000);
        let s = shown(&long);
        assert_eq!(s.len(), NAME_IN_MESSAGES + 3);
        assert!(s.ends_with("..."));
        assert_eq!(
            shown(&"k".repeat(NAME_IN_MESSAGES)),
            "k".repeat(NAME_IN_MESSAGES)
        );
    }
}
