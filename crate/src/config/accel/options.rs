//! The GPGPU-Sim option file lexer: `-name value` pairs, `#` comments to the end of the line,
//! values in double quotes may span lines (TITAN V's `-gpgpu_dram_timing_opt "nbk=16:...\n ..."`).
//! A token starting with `-` and a letter begins a new option; every token up to the next one
//! is its value (joined with single spaces).

/// One option as written in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccelOption {
    /// Without the leading `-`.
    pub name: String,
    pub value: String,
    pub file: String,
    /// 1-based line of the option name.
    pub line: u64,
}

/// Split a config text into options. Text before the first option is an error.
pub fn lex(file: &str, text: &str) -> Result<Vec<AccelOption>, (u64, String)> {
    let mut out: Vec<AccelOption> = Vec::new();
    // current token: text, line it started on, quoted?
    let mut tok = String::new();
    let mut tok_line = 0u64;
    let mut quoted = false;
    let mut in_quote = false;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i as u64 + 1;
        if in_quote {
            tok.push(' ');
        }
        for c in raw.chars() {
            if in_quote {
                if c == '"' {
                    in_quote = false;
                } else {
                    tok.push(c);
                }
                continue;
            }
            match c {
                '#' => break,
                '"' => {
                    if tok.is_empty() {
                        tok_line = lineno;
                    }
                    in_quote = true;
                    quoted = true;
                }
                c if c.is_whitespace() => flush(file, &mut out, &mut tok, tok_line, &mut quoted)?,
                c => {
                    if tok.is_empty() {
                        tok_line = lineno;
                    }
                    tok.push(c);
                }
            }
        }
        if !in_quote {
            flush(file, &mut out, &mut tok, tok_line, &mut quoted)?;
        }
    }
    if in_quote {
        return Err((tok_line, "unterminated quoted value".into()));
    }
    Ok(out)
}

fn flush(
    file: &str,
    out: &mut Vec<AccelOption>,
    tok: &mut String,
    line: u64,
    quoted: &mut bool,
) -> Result<(), (u64, String)> {
    if tok.is_empty() && !*quoted {
        return Ok(());
    }
    let t = std::mem::take(tok);
    let was_quoted = std::mem::replace(quoted, false);
    let mut cs = t.chars();
    if !was_quoted && cs.next() == Some('-') && cs.next().is_some_and(|c| c.is_ascii_alphabetic()) {
        out.push(AccelOption {
            name: t[1..].to_string(),
            value: String::new(),
            file: file.to_string(),
            line,
        });
        return Ok(());
    }
    let Some(last) = out.last_mut() else {
        return Err((line, format!("`{t}` before the first -option")));
    };
    let v = t.split_whitespace().collect::<Vec<_>>().join(" ");
    if !last.value.is_empty() {
        last.value.push(' ');
    }
    last.value.push_str(&v);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_options_comments_and_quotes() {
        let text = "# comment\n-gpgpu_n_clusters 30  # thirty\n-gpgpu_clock_domains 1365:1365:1365:3500.5\n\
                    -gpgpu_dram_timing_opt \"nbk=16:CCD=1:\n      CL=12:WL=2\"\n-flag\n-a -b 1\n";
        let o = lex("g.config", text).unwrap();
        let got: Vec<(&str, &str, u64)> = o
            .iter()
            .map(|o| (o.name.as_str(), o.value.as_str(), o.line))
            .collect();
        assert_eq!(
            got,
            vec![
                ("gpgpu_n_clusters", "30", 2),
                ("gpgpu_clock_domains", "1365:1365:1365:3500.5", 3),
                ("gpgpu_dram_timing_opt", "nbk=16:CCD=1: CL=12:WL=2", 4),
                ("flag", "", 6),
                ("a", "", 7),
                ("b", "1", 7),
            ]
        );
    }

    #[test]
    fn reports_stray_text_and_open_quotes() {
        assert_eq!(lex("f", "\n30\n").unwrap_err().0, 2);
        assert_eq!(
            lex("f", "-x \"abc\n\n").unwrap_err(),
            (1, "unterminated quoted value".to_string())
        );
        // negative numbers are values, not options
        let o = lex("f", "-gpgpu_max_cycle -1\n").unwrap();
        assert_eq!(o[0].value, "-1");
    }
}
