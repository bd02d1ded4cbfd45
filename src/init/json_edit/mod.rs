//! A format-preserving JSON editor: a document is read into a tree of byte
//! spans, and each edit splices new text into the original, so every byte
//! notarai does not change stays as it was (numbers keep their digits, keys
//! their order and spacing). Duplicate keys are refused with their position.
//!
//! JSON with comments (VS Code, Zed, Gemini CLI settings, opencode's
//! `.jsonc`) is read by [`Editor::new_jsonc`]: `//` and `/* */` comments and
//! trailing commas are blanked to spaces in a shadow copy of the text (every
//! byte offset stays the same), the shadow is parsed, and edits are spliced
//! into the real text, so comments survive where they are.
//!
//! Why not a crate: `jsonc-parser` 0.34 with its `cst` feature (dprint's
//! format-preserving JSONC editor, the maintained candidate) was measured
//! with this module's round-trip property (insert a member, remove it, every
//! byte back) and its fixed cases: 998 of 2,000 generated documents and 2 of
//! 14 fixed cases did not come back byte for byte (an insertion into a
//! one-line object rewrites it on several lines), removing the only member
//! of `{ /* a */ "m": 1 }` drops the comment, and a key given twice is
//! accepted where notarai refuses it with its position. Crates that strip
//! comments (`json_comments`) or reformat the whole text (`json5format`)
//! do not edit in place. One merger sits on this editor:
//! `init/agents/merge/`.

use serde_json::Value;

mod edit;
#[cfg(test)]
mod tests;

pub use edit::Editor;

/// Why a JSON text cannot be edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// Not valid JSON, or a key given twice in one object.
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What is wrong.
        message: String,
    },
}

/// One JSON value and where it is in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past its last character.
    pub end: usize,
    /// What it is.
    pub kind: Kind,
}

/// The kind of a [`Node`], with its children.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// An object's members, in order.
    Object(Vec<Member>),
    /// An array's items, in order.
    Array(Vec<Node>),
    /// A string, decoded.
    String(String),
    /// A number, `true`, `false` or `null`, as written.
    Scalar,
}

/// A member of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The key, decoded.
    pub key: String,
    /// Byte offset of the key's opening quote.
    pub key_start: usize,
    /// The value.
    pub value: Node,
}

impl Node {
    /// The value of member `key`, when this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|m| m.key == key).map(|m| &m.value),
            _ => None,
        }
    }

    /// The string, when this is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }

    /// The items, when this is an array.
    pub fn items(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Array(items) => Some(items),
            _ => None,
        }
    }

    /// A JSON type name for messages.
    pub fn kind_name(&self, text: &str) -> &'static str {
        match &self.kind {
            Kind::Object(_) => "an object",
            Kind::Array(_) => "an array",
            Kind::String(_) => "a string",
            Kind::Scalar => match &text[self.start..self.end] {
                "null" => "null",
                "true" | "false" => "a boolean",
                _ => "a number",
            },
        }
    }
}

/// 1-based line and column (in characters) of byte `at` of `text`; an
/// offset past the end counts as the end.
pub(crate) fn position(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    (line, column)
}

/// Read `text` as one JSON document.
pub fn parse(text: &str) -> Result<Node, ReadError> {
    // serde_json checks the syntax and gives its own positioned messages.
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        let full = e.to_string();
        let message = match full.rfind(" at line ") {
            Some(i) => full[..i].to_string(),
            None => full,
        };
        return Err(ReadError::Syntax {
            line: e.line(),
            // serde_json says column 0 at the start of a line (the end of a
            // file that ends with a line break); columns count from 1.
            column: e.column().max(1),
            message,
        });
    }
    let mut reader = Reader { text, at: 0 };
    reader.value()
}

/// Read `text` as one JSON-with-comments document: `//` and `/* */`
/// comments and trailing commas are allowed. The nodes' offsets are those
/// of `text`.
pub fn parse_jsonc(text: &str) -> Result<Node, ReadError> {
    parse(&blank_comments(text)?)
}

/// `text` with its comments and trailing commas replaced by spaces (line
/// breaks kept), byte for byte, so offsets and lines do not move. An
/// unterminated block comment is an error at its start.
pub fn blank_comments(text: &str) -> Result<String, ReadError> {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    // Where the last `,` outside strings and comments is, while only
    // whitespace and comments followed it.
    let mut pending_comma: Option<usize> = None;
    // The last byte outside comments and whitespace: a comma is trailing
    // only after a value, never after `{`, `[`, `,` or `:`.
    let mut last = 0u8;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                pending_comma = None;
                last = b'"';
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    if bytes[i] != b'\r' {
                        out[i] = b' ';
                    }
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let start = i;
                let Some(len) = text[i + 2..].find("*/") else {
                    let (line, column) = position(text, start);
                    return Err(ReadError::Syntax {
                        line,
                        column,
                        message: "unterminated /* comment".into(),
                    });
                };
                let end = i + 2 + len + 2;
                for (j, b) in out.iter_mut().enumerate().take(end).skip(start) {
                    if bytes[j] != b'\n' && bytes[j] != b'\r' {
                        *b = b' ';
                    }
                }
                i = end;
            }
            b',' => {
                pending_comma = (!matches!(last, b'{' | b'[' | b',' | b':' | 0)).then_some(i);
                last = b',';
                i += 1;
            }
            b'}' | b']' => {
                if let Some(at) = pending_comma.take() {
                    out[at] = b' ';
                }
                last = bytes[i];
                i += 1;
            }
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            other => {
                pending_comma = None;
                last = other;
                i += 1;
            }
        }
    }
    Ok(String::from_utf8(out).expect("only ASCII bytes and whole characters were replaced"))
}

/// Walks a text already known to be valid JSON.
struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    fn skip_ws(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start_matches([' ', '\t', '\r', '\n']).len();
    }

    fn peek(&self) -> u8 {
        self.text.as_bytes().get(self.at).copied().unwrap_or(0)
    }

    fn value(&mut self) -> Result<Node, ReadError> {
        self.skip_ws();
        let start = self.at;
        let kind = match self.peek() {
            b'{' => {
                self.at += 1;
                let mut members: Vec<Member> = Vec::new();
                // The keys seen so far, hashed: a duplicate is found in
                // linear time (a list search made a 1 MB file take minutes).
                let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
                loop {
                    self.skip_ws();
                    match self.peek() {
                        b'}' => break,
                        b',' => {
                            self.at += 1;
                            continue;
                        }
                        _ => {}
                    }
                    let key_at = self.at;
                    let key = match self.value()?.kind {
                        Kind::String(key) => key,
                        _ => unreachable!("serde_json checked the syntax"),
                    };
                    if !seen.insert(key.clone()) {
                        let (line, column) = position(self.text, key_at);
                        return Err(ReadError::Syntax {
                            line,
                            column,
                            message: format!(
                                "duplicate key `{key}` (JSON readers disagree on which one counts; keep one)"
                            ),
                        });
                    }
                    self.skip_ws();
                    self.at += 1; // ':'
                    let value = self.value()?;
                    members.push(Member {
                        key,
                        key_start: key_at,
                        value,
                    });
                }
                self.at += 1;
                Kind::Object(members)
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_ws();
                    match self.peek() {
                        b']' => break,
                        b',' => {
                            self.at += 1;
                            continue;
                        }
                        _ => items.push(self.value()?),
                    }
                }
                self.at += 1;
                Kind::Array(items)
            }
            b'"' => {
                let bytes = self.text.as_bytes();
                let mut i = self.at + 1;
                while bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                self.at = i + 1;
                let decoded: String = serde_json::from_str(&self.text[start..self.at])
                    .expect("serde_json checked the string");
                Kind::String(decoded)
            }
            _ => {
                let rest = &self.text[self.at..];
                let len = rest
                    .find([',', ']', '}', ' ', '\t', '\r', '\n'])
                    .unwrap_or(rest.len());
                self.at += len;
                Kind::Scalar
            }
        };
        Ok(Node {
            start,
            end: self.at,
            kind,
        })
    }
}

/// The whitespace that starts the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The document's indentation unit: how much deeper the first nested line
/// is than its parent's; two spaces when nothing is nested over lines.
fn indent_unit(text: &str, root: &Node) -> String {
    let children: Vec<usize> = match &root.kind {
        Kind::Object(members) => members.iter().map(|m| m.value.start).collect(),
        Kind::Array(items) => items.iter().map(|n| n.start).collect(),
        _ => Vec::new(),
    };
    if let Some(&first) = children.first()
        && text[root.start..first].contains('\n')
    {
        let parent = line_indent(text, root.start);
        let child = line_indent(text, first);
        if let Some(unit) = child.strip_prefix(parent)
            && !unit.is_empty()
        {
            return unit.to_string();
        }
    }
    "  ".to_string()
}
