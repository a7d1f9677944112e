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

#[cfg(test)]
mod tests {
    use super::*;

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
