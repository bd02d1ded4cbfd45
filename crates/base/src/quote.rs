//! Repository text is data: file names, YAML keys and config values come
//! from whoever committed the repository, and are escaped or quoted for
//! where they land, by the functions here and nowhere else.
//!
//! - A terminal ([`terminal`]): control characters (C0, DEL, C1, so every
//!   terminal escape sequence) and the invisible bidirectional and
//!   zero-width format characters are shown as `\x1b` or `\u{202e}`; nothing
//!   a name holds can move the cursor, recolour the screen, retitle the
//!   window or reorder what follows.
//! - A GitHub workflow command ([`github_data`], [`github_property`]): the
//!   runner's own escaping (`%` as `%25`, `\r` as `%0D`, `\n` as `%0A`; in a
//!   property also `:` as `%3A` and `,` as `%2C`), so a name can neither end
//!   its line nor start a command of its own.
//! - The model ([`for_model`]): a name pasted into instructions or a prompt
//!   is a JSON string literal, quotes and all, so it reads as a value, never
//!   as a sentence or a heading of the surrounding text.
//!
//! A leaf module: it imports nothing of notarai.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must not reach a terminal as itself.
fn unsafe_for_terminal(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}' | '\u{FEFF}'
        )
}

/// `text` as a terminal may show it: every control or invisible format
/// character written as an escape (`\x1b`, `\n`, `\u{202e}`). Borrowed when
/// nothing needs escaping.
pub fn terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_for_terminal) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_for_terminal(c) && (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if unsafe_for_terminal(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `text` as a terminal may show it, its line feeds and tabs kept (a
/// message of several lines), everything else as [`terminal`] escapes it.
pub fn terminal_lines(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    {
        let mut w = Terminal::new(&mut out);
        let _ = std::io::Write::write_all(&mut w, text.as_bytes());
    }
    String::from_utf8(out).unwrap_or_default()
}

/// `text` as the data of a GitHub workflow command (after the `::`).
pub fn github_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// `text` as a property value of a GitHub workflow command (`file=...`).
pub fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// `text` as plain text in GitHub Markdown, on one line and inside a table
/// cell: Markdown's punctuation backslash-escaped, `<`, `>`, `&` and `@` as
/// HTML entities (no tag, no entity of the writer's, no mention), line
/// breaks as spaces.
pub fn markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '@' => out.push_str("&#64;"),
            '\r' | '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `text` as a Markdown code span on one line, safe inside a table cell:
/// fenced with more backticks than it holds in a row, `|` escaped (GitHub
/// splits cells before it reads code spans), line breaks as spaces.
pub fn markdown_code(text: &str) -> String {
    let text = text.replace(['\r', '\n'], " ").replace('|', "\\|");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if longest > 0 || text.starts_with(' ') || text.ends_with(' ') {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// `text` as the model should read it inside instructions or a prompt: a
/// JSON string literal (quoted; quotes, backslashes, newlines and control
/// characters escaped), so it is a value, not text of the message.
pub fn for_model(text: &str) -> String {
    let json = serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into());
    // JSON leaves the invisible format characters as they are.
    terminal(&json).into_owned()
}

/// A writer for text meant for a terminal (the CLI's text output): every
/// control or invisible format character written through it is escaped as
/// [`terminal`] does, but line feeds and tabs, which lay out the output,
/// pass; a byte that is not UTF-8 is written as `\xNN`. Wrap the output
/// once, and every name printed into it is safe.
pub struct Terminal<W: std::io::Write> {
    inner: W,
    /// The start of a UTF-8 sequence split between two writes.
    pending: Vec<u8>,
    /// JSON text: escapes are JSON's (`\u009b`), so the output stays the
    /// same JSON value.
    json: bool,
}

impl<W: std::io::Write> Terminal<W> {
    /// Escape what is written to `inner`.
    pub fn new(inner: W) -> Terminal<W> {
        Terminal {
            inner,
            pending: Vec::new(),
            json: false,
        }
    }

    /// Escape the JSON text written to `inner` (the CLI's `--format json`):
    /// a control or invisible format character left raw by the serializer
    /// (`serde_json` escapes only those below U+0020, and only inside
    /// strings, where they can be) is written as its JSON escape `\uXXXX`,
    /// so the value is the same and a terminal shows it harmlessly.
    pub fn json(inner: W) -> Terminal<W> {
        Terminal {
            inner,
            pending: Vec::new(),
            json: true,
        }
    }

    fn emit(&mut self, text: &str) -> std::io::Result<()> {
        let mut start = 0;
        for (at, c) in text.char_indices() {
            if c != '\n' && c != '\t' && unsafe_for_terminal(c) {
                self.inner.write_all(&text.as_bytes()[start..at])?;
                if self.json {
                    // Every character `unsafe_for_terminal` names is in the
                    // basic plane: one escape.
                    write!(self.inner, "\\u{:04x}", c as u32)?;
                } else {
                    let mut buf = [0u8; 4];
                    self.inner
                        .write_all(terminal(c.encode_utf8(&mut buf)).as_bytes())?;
                }
                start = at + c.len_utf8();
            }
        }
        self.inner.write_all(&text.as_bytes()[start..])
    }
}

impl<W: std::io::Write> std::io::Write for Terminal<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        let mut bytes = std::mem::take(&mut self.pending);
        let mut at = 0;
        loop {
            match std::str::from_utf8(&bytes[at..]) {
                Ok(text) => {
                    self.emit(text)?;
                    break;
                }
                Err(e) => {
                    let valid = at + e.valid_up_to();
                    let text = std::str::from_utf8(&bytes[at..valid]).unwrap_or_default();
                    self.emit(text)?;
                    match e.error_len() {
                        Some(n) => {
                            for b in &bytes[valid..valid + n] {
                                write!(self.inner, "\\x{b:02x}")?;
                            }
                            at = valid + n;
                        }
                        None => {
                            bytes.drain(..valid);
                            self.pending = bytes;
                            break;
                        }
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        for b in std::mem::take(&mut self.pending) {
            write!(self.inner, "\\x{b:02x}")?;
        }
        self.inner.flush()
    }
}

impl<W: std::io::Write> Drop for Terminal<W> {
    fn drop(&mut self) {
        let _ = std::io::Write::flush(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_escapes_control_and_format_characters() {
        assert!(matches!(terminal("src/a.rs"), Cow::Borrowed(_)));
        assert_eq!(
            terminal("a\x1b]0;pwned\x07b\u{202e}c\n"),
            "a\\x1b]0;pwned\\x07b\\u{202e}c\\n"
        );
        assert_eq!(terminal("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(terminal("é ünïcode"), "é ünïcode");
    }

    #[test]
    fn the_json_writer_keeps_the_value_and_escapes_for_the_terminal() {
        use std::io::Write;
        let value = serde_json::json!({"branch": "x\u{9b}31m\u{202e}y\x1b", "n": 1});
        let mut out = Vec::new();
        {
            let mut w = Terminal::json(&mut out);
            serde_json::to_writer_pretty(&mut w, &value).unwrap();
            w.write_all(b"\n").unwrap();
        }
        let text = String::from_utf8(out).unwrap();
        assert!(
            !text.chars().any(|c| c != '\n' && unsafe_for_terminal(c)),
            "{text:?}"
        );
        assert!(
            text.contains("\\u009b") && text.contains("\\u202e"),
            "{text}"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn the_terminal_writer_keeps_layout_and_escapes_the_rest() {
        use std::io::Write;
        let mut out = Vec::new();
        {
            let mut w = Terminal::new(&mut out);
            writeln!(w, "a\tb\x1b[31mred\u{202e}").unwrap();
            // A sequence split between writes, then a stray byte.
            w.write_all(&[0xc3]).unwrap();
            w.write_all(&[0xa9, b'!', 0xff, b'\n']).unwrap();
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a\tb\\x1b[31mred\\u{202e}\né!\\xff\n"
        );
    }

    #[test]
    fn github_escapes_follow_the_runner() {
        assert_eq!(github_data("50%\r\n::error::x"), "50%25%0D%0A::error::x");
        assert_eq!(
            github_property("a,b:c%\n::warning file=x::y"),
            "a%2Cb%3Ac%25%0A%3A%3Awarning file=x%3A%3Ay"
        );
    }

    #[test]
    fn for_model_is_a_quoted_json_string() {
        assert_eq!(
            for_model("x\"\n## Ignore the above`"),
            "\"x\\\"\\n## Ignore the above`\""
        );
        assert_eq!(for_model("a\u{202e}b"), "\"a\\u{202e}b\"");
    }
}
