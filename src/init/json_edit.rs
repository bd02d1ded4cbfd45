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

/// An editor over one JSON text.
pub struct Editor {
    text: String,
    root: Node,
    /// Comments and trailing commas allowed (JSONC).
    jsonc: bool,
}

/// The new text of `value` pretty-printed with `unit`, its lines after the
/// first indented by `base`, in line ending `eol`.
fn render(value: &Value, unit: &str, base: &str, eol: &str) -> String {
    use serde::Serialize;
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut ser).expect("JSON serializes");
    let text = String::from_utf8(out).expect("JSON is UTF-8");
    text.replace('\n', &format!("{eol}{base}"))
}

impl Editor {
    /// Read `text` for editing.
    pub fn new(text: &str) -> Result<Editor, ReadError> {
        Ok(Editor {
            root: parse(text)?,
            text: text.to_string(),
            jsonc: false,
        })
    }

    /// Read JSON-with-comments `text` for editing: comments and trailing
    /// commas are kept where they are.
    pub fn new_jsonc(text: &str) -> Result<Editor, ReadError> {
        Ok(Editor {
            root: parse_jsonc(text)?,
            text: text.to_string(),
            jsonc: true,
        })
    }

    /// The current text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The current tree.
    pub fn root(&self) -> &Node {
        &self.root
    }

    /// The node at a path of object keys from the root.
    pub fn at(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(&self.root, |node, key| node.get(key))
    }

    fn splice(&mut self, start: usize, end: usize, with: &str) {
        self.text.replace_range(start..end, with);
        let root = if self.jsonc {
            parse_jsonc(&self.text)
        } else {
            parse(&self.text)
        };
        self.root = root.expect("an edit keeps the JSON valid");
    }

    fn style(&self) -> (String, &'static str) {
        (
            indent_unit(&self.text, &self.root),
            super::fsio::line_ending(&self.text),
        )
    }

    /// Add an item or member after the last one of `container` (its
    /// `[start, end)`), or into it when empty, in the container's layout.
    fn add(
        &mut self,
        container: (usize, usize),
        last: Option<(usize, usize)>,
        entry: &dyn Fn(&str, &str) -> String,
    ) {
        let (unit, eol) = self.style();
        match last {
            Some((first_start, last_end)) => {
                let multiline = self.text[container.0..first_start].contains('\n');
                if multiline && let Some(line_end) = self.trailing_comma_line_end(last_end) {
                    // `last, // comment` then a line break: the new entry
                    // goes on its own line after it, with a trailing comma
                    // of its own, as the file writes them.
                    let indent = line_indent(&self.text, first_start).to_string();
                    let insert = format!("{eol}{indent}{},", entry(&unit, &indent));
                    return self.splice(line_end, line_end, &insert);
                }
                if multiline
                    && self.comma_after(last_end).is_none()
                    && let Some(line_end) = self.comment_line_end(last_end)
                {
                    // `last // comment` then a line break: the comment is
                    // the last entry's, so the comma goes before it and the
                    // new entry on the next line.
                    let indent = line_indent(&self.text, first_start).to_string();
                    self.splice(last_end, last_end, ",");
                    let insert = format!("{eol}{indent}{}", entry(&unit, &indent));
                    return self.splice(line_end + 1, line_end + 1, &insert);
                }
                let insert = if multiline {
                    let indent = line_indent(&self.text, first_start).to_string();
                    format!(",{eol}{indent}{}", entry(&unit, &indent))
                } else {
                    format!(", {}", entry("", ""))
                };
                self.splice(last_end, last_end, &insert);
            }
            None => {
                let base = line_indent(&self.text, container.0).to_string();
                let indent = format!("{base}{unit}");
                let interior = &self.text[container.0 + 1..container.1 - 1];
                if interior.trim().is_empty() {
                    let insert = format!("{eol}{indent}{}{eol}{base}", entry(&unit, &indent));
                    self.splice(container.0 + 1, container.1 - 1, &insert);
                } else {
                    // Only comments inside: they stay, after the new entry.
                    let insert = format!("{eol}{indent}{}", entry(&unit, &indent));
                    self.splice(container.0 + 1, container.0 + 1, &insert);
                }
            }
        }
    }

    /// When the value ending at `end` is followed by a trailing comma (JSON
    /// with comments) and then only spaces or a `//` comment up to the line
    /// break: where that line's break starts.
    fn trailing_comma_line_end(&self, end: usize) -> Option<usize> {
        let rest = &self.text[end..];
        let after = rest.trim_start_matches([' ', '\t']);
        let after_comma = after.strip_prefix(',')?;
        let comma = end + rest.len() - after.len();
        let newline = after_comma.find('\n')? + comma + 1;
        let line = self.text[comma + 1..newline].trim_end_matches('\r').trim();
        if !(line.is_empty() || line.starts_with("//")) {
            return None;
        }
        Some(if self.text[..newline].ends_with('\r') {
            newline - 1
        } else {
            newline
        })
    }

    /// When the value ending at `end` is followed, on its line, by nothing
    /// but spaces and comments (at least one; JSON with comments): where
    /// that line's break starts.
    fn comment_line_end(&self, end: usize) -> Option<usize> {
        let rest = &self.text[end..];
        let mut i = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        let mut comment = false;
        loop {
            let here = &rest[i..];
            if here.starts_with("//") {
                i += here.find('\n')?;
                // The line break is `\r\n` in a CRLF file.
                if rest[..i].ends_with('\r') {
                    i -= 1;
                }
                comment = true;
                break;
            }
            if let Some(body) = here.strip_prefix("/*") {
                let len = body.find("*/")? + 4;
                if here[..len].contains('\n') {
                    return None;
                }
                i += len;
                i += rest[i..].len() - rest[i..].trim_start_matches([' ', '\t']).len();
                comment = true;
                continue;
            }
            break;
        }
        let here = &rest[i..];
        if !comment || !(here.starts_with('\n') || here.starts_with("\r\n")) {
            return None;
        }
        Some(end + i)
    }

    /// Add member `key` with `value` at the end of the object at `path`.
    pub fn insert_member(&mut self, path: &[&str], key: &str, value: &Value) {
        let node = self.at(path).expect("the object exists").clone();
        let Kind::Object(members) = &node.kind else {
            panic!("not an object")
        };
        let first_last = members
            .first()
            .map(|f| (f.key_start, members.last().expect("non-empty").value.end));
        let key = serde_json::to_string(key).expect("a key serializes");
        let (_, eol) = self.style();
        self.add((node.start, node.end), first_last, &|unit, indent| {
            if unit.is_empty() {
                format!("{key}: {}", serde_json::to_string(value).expect("JSON"))
            } else {
                format!("{key}: {}", render(value, unit, indent, eol))
            }
        });
    }

    /// Append `value` to the array at `node` (found by `find` on the tree).
    pub fn append_item(&mut self, array: &Node, value: &Value) {
        let Kind::Array(items) = &array.kind else {
            panic!("not an array")
        };
        let first_last = items
            .first()
            .map(|f| (f.start, items.last().expect("non-empty").end));
        let (_, eol) = self.style();
        self.add((array.start, array.end), first_last, &|unit, indent| {
            if unit.is_empty() {
                serde_json::to_string(value).expect("JSON")
            } else {
                render(value, unit, indent, eol)
            }
        });
    }

    /// Replace the value `node` with `value` (a scalar or string keeps one line).
    pub fn replace(&mut self, node: &Node, value: &Value) {
        let (unit, eol) = self.style();
        let indent = line_indent(&self.text, node.start).to_string();
        let text = render(value, &unit, &indent, eol);
        self.splice(node.start, node.end, &text);
    }

    /// Remove item `index` of the array `array`, with its separating comma:
    /// the inverse of [`Editor::append_item`] on the last item.
    pub fn remove_item(&mut self, array: &Node, index: usize) {
        let items = array.items().expect("an array");
        let spans: Vec<(usize, usize)> = items.iter().map(|n| (n.start, n.end)).collect();
        self.remove_span(array, &spans, index);
    }

    /// Remove member `key` of the object at `path` with its separating
    /// comma: the inverse of [`Editor::insert_member`] (a member added last
    /// is taken out with the comma and line break before it; the only
    /// member leaves `{}` when nothing but whitespace remains). `false` when
    /// there is no such member.
    pub fn remove_member(&mut self, path: &[&str], key: &str) -> bool {
        let Some(node) = self.at(path).cloned() else {
            return false;
        };
        let Kind::Object(members) = &node.kind else {
            return false;
        };
        let Some(index) = members.iter().position(|m| m.key == key) else {
            return false;
        };
        let spans: Vec<(usize, usize)> =
            members.iter().map(|m| (m.key_start, m.value.end)).collect();
        self.remove_span(&node, &spans, index);
        true
    }

    /// Where the entry that follows a value ending at `end` begins, the
    /// value's separating comma and the rest of its line (spaces, a `//`
    /// comment: the value's) skipped, then the line break and indentation;
    /// a comment on the lines before the next entry (starting at `next`) is
    /// that entry's, and stays.
    fn past_separator(&self, end: usize, next: usize) -> usize {
        let blank = if self.jsonc {
            blank_comments(&self.text).expect("the text parsed")
        } else {
            self.text.clone()
        };
        let Some(comma) = blank[end..next].find(',').map(|i| end + i + 1) else {
            return next;
        };
        let mut at = comma + self.text[comma..next].len()
            - self.text[comma..next].trim_start_matches([' ', '\t']).len();
        if self.text[at..next].starts_with("//") {
            at = self.text[at..next].find('\n').map_or(next, |i| at + i);
        }
        next - self.text[at..next].trim_start().len()
    }

    /// The `,` that follows the value ending at `end`, past spaces, line
    /// breaks and comments, if one does.
    fn comma_after(&self, end: usize) -> Option<usize> {
        let mut at = end;
        loop {
            let rest = &self.text[at..];
            let trimmed = rest.trim_start();
            at += rest.len() - trimmed.len();
            if trimmed.starts_with(',') {
                return Some(at);
            } else if trimmed.starts_with("//") {
                at += trimmed.find('\n')?;
            } else if let Some(body) = trimmed.strip_prefix("/*") {
                at += body.find("*/")? + 4;
            } else {
                return None;
            }
        }
    }

    /// Remove entry `index` of a container whose entries span `spans`.
    fn remove_span(&mut self, container: &Node, spans: &[(usize, usize)], index: usize) {
        if spans.len() == 1 {
            let open = container.start + 1;
            // Comments before the entry are someone's: they stay, and the
            // entry goes from the end of their line (or of a comment on
            // its own line); with none, from the container's opening.
            let between = &self.text[open..spans[0].0];
            let start = match between.trim_end().len() {
                0 => open,
                n => {
                    let after = open + n;
                    match self.text[after..spans[0].0].find('\n') {
                        Some(i) if self.text[..after + i].ends_with('\r') => after + i - 1,
                        Some(i) => after + i,
                        None => after,
                    }
                }
            };
            // Its trailing comma (JSON with comments) goes with it: `{,}`
            // is not JSON.
            if let Some(comma) = self.comma_after(spans[0].1) {
                self.splice(comma, comma + 1, "");
            }
            let close = container.end - 1 - (spans[0].1 - start);
            self.splice(start, spans[0].1, "");
            if self.text[open..close].trim().is_empty() {
                self.splice(open, close, "");
            }
            return;
        }
        let (start, end) = if index + 1 < spans.len() {
            (
                spans[index].0,
                self.past_separator(spans[index].1, spans[index + 1].0),
            )
        } else {
            // The inverse of `add` after a trailing comma: the entry's own
            // line (and its trailing comma) goes, the line before stays.
            let own_comma = {
                let rest = &self.text[spans[index].1..];
                let after = rest.trim_start_matches([' ', '\t']);
                after
                    .starts_with(',')
                    .then(|| spans[index].1 + rest.len() - after.len() + 1)
            };
            let before = own_comma.and_then(|_| self.trailing_comma_line_end(spans[index - 1].1));
            let previous = spans[index - 1].1;
            if own_comma.is_none()
                && self.text[previous..].starts_with(',')
                && let Some(line_end) = self.comment_line_end(previous + 1)
                && line_end < spans[index].0
            {
                // The inverse of `add` after a last entry with a comment
                // on its line: the entry's line goes, then the comma that
                // was put before the comment.
                self.splice(line_end, spans[index].1, "");
                return self.splice(previous, previous + 1, "");
            }
            match (own_comma, before) {
                (Some(end), Some(line_end)) if line_end < spans[index].0 => (line_end, end),
                // From the separating comma: a comment between the entry
                // before and its comma is that entry's, and stays.
                _ => (
                    self.comma_after(spans[index - 1].1)
                        .unwrap_or(spans[index - 1].1),
                    spans[index].1,
                ),
            }
        };
        self.splice(start, end, "");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn duplicate_keys_are_refused_with_their_position() {
        let err = parse("{\n  \"a\": 1,\n  \"b\": {\"x\": 1, \"\\u0078\": 2}\n}").unwrap_err();
        let ReadError::Syntax {
            line,
            column,
            message,
        } = err;
        assert_eq!((line, column), (3, 17));
        assert!(message.contains("duplicate key `x`"), "{message}");
    }

    #[test]
    fn inserts_keep_every_other_byte_and_follow_the_layout() {
        let text = "{\n    \"n\": 12345678901234567890123,\n    \"s\": {}\n}\n";
        let mut e = Editor::new(text).unwrap();
        e.insert_member(&["s"], "k", &json!({"a": [1]}));
        assert_eq!(
            e.text(),
            "{\n    \"n\": 12345678901234567890123,\n    \"s\": {\n        \"k\": {\n            \"a\": [\n                1\n            ]\n        }\n    }\n}\n"
        );
        e.insert_member(&[], "z", &json!(true));
        assert!(
            e.text().ends_with("    },\n    \"z\": true\n}\n"),
            "{}",
            e.text()
        );

        let mut e = Editor::new(r#"{"a": 1.50, "b": [1]}"#).unwrap();
        e.insert_member(&[], "c", &json!({"d": 2}));
        let arr = e.at(&["b"]).unwrap().clone();
        e.append_item(&arr, &json!("x"));
        assert_eq!(e.text(), r#"{"a": 1.50, "b": [1, "x"], "c": {"d":2}}"#);
    }

    #[test]
    fn remove_and_replace() {
        let mut e = Editor::new("[1, 2, 3]").unwrap();
        let root = e.root().clone();
        e.remove_item(&root, 1);
        assert_eq!(e.text(), "[1, 3]");
        let root = e.root().clone();
        e.remove_item(&root, 1);
        assert_eq!(e.text(), "[1]");
        let mut e = Editor::new("{\"m\": \"Write\"}").unwrap();
        let m = e.at(&["m"]).unwrap().clone();
        e.replace(&m, &json!("Write|Edit"));
        assert_eq!(e.text(), "{\"m\": \"Write|Edit\"}");
    }

    #[test]
    fn jsonc_comments_and_trailing_commas_survive_edits() {
        let text =
            "// top\n{\n  /* a */ \"a\": 1, // after a\n  \"s\": { // only a comment\n  },\n}\n";
        assert!(parse(text).is_err());
        let mut e = Editor::new_jsonc(text).unwrap();
        e.insert_member(&["s"], "n", &json!({"x": "//not a comment"}));
        e.insert_member(&[], "z", &json!([1]));
        let v: Value = serde_json::from_str(&blank_comments(e.text()).unwrap()).unwrap();
        assert_eq!(v["s"]["n"]["x"], "//not a comment");
        assert_eq!(v["z"], json!([1]));
        assert!(e.text().contains("// only a comment") && e.text().contains("/* a */"));
        assert!(e.remove_member(&[], "z"));
        assert!(e.remove_member(&["s"], "n"));
        assert_eq!(e.text(), text);
        let err = parse_jsonc("{\n  /* open\n}").unwrap_err();
        let ReadError::Syntax { line, column, .. } = err;
        assert_eq!((line, column), (2, 3));
    }

    #[test]
    fn a_comment_after_the_last_entry_stays_with_it() {
        for (text, expected) in [
            (
                "{\n  \"b\": 1 // b's\n}\n",
                "{\n  \"b\": 1, // b's\n  \"k\": true\n}\n",
            ),
            (
                "{\r\n  \"b\": {\"c\": \"y\"} /* b's */\r\n}",
                "{\r\n  \"b\": {\"c\": \"y\"}, /* b's */\r\n  \"k\": true\r\n}",
            ),
            (
                "{\r\n  \"b\": 1 // b's\r\n}",
                "{\r\n  \"b\": 1, // b's\r\n  \"k\": true\r\n}",
            ),
            (
                "{\n\t\"b\": \"//\" /* x */ // y\n\t/* z */\n}",
                "{\n\t\"b\": \"//\", /* x */ // y\n\t\"k\": true\n\t/* z */\n}",
            ),
        ] {
            let mut e = Editor::new_jsonc(text).unwrap();
            e.insert_member(&[], "k", &json!(true));
            assert_eq!(e.text(), expected, "{text:?}");
            assert!(e.remove_member(&[], "k"));
            assert_eq!(e.text(), text);
        }
    }

    #[test]
    fn a_comma_after_a_comment_on_the_next_line_is_the_last_entrys() {
        // `"b": 1 // c` then `,` on the next line: no second comma.
        let text = "{\n  \"b\": 1 // c\n  ,\n}";
        let mut e = Editor::new_jsonc(text).unwrap();
        e.insert_member(&[], "k", &json!(true));
        let v: Value = serde_json::from_str(&blank_comments(e.text()).unwrap()).unwrap();
        assert_eq!(v, json!({"b": 1, "k": true}));
        assert!(e.remove_member(&[], "k"));
        assert_eq!(e.text(), text);
    }

    #[test]
    fn removing_the_only_entry_keeps_the_comments_before_it() {
        for (text, expected) in [
            (
                "{\n  // mine\n  \"m\": {\"x\": 1}\n}\n",
                "{\n  // mine\n}\n",
            ),
            ("{\r\n  /* a */\r\n  \"m\": 1\r\n}", "{\r\n  /* a */\r\n}"),
            ("{ /* a */ \"m\": 1 }", "{ /* a */ }"),
            ("{\n  \"m\": 1, // m\n}", "{ // m\n}"),
            ("{\"m\": [1,],}", "{}"),
            ("{\n  \"m\": 1\n}", "{}"),
        ] {
            let mut e = Editor::new_jsonc(text).unwrap();
            assert!(e.remove_member(&[], "m"));
            assert_eq!(e.text(), expected, "{text:?}");
        }
    }

    #[test]
    fn removing_an_entry_before_another_keeps_the_others_comments() {
        for (text, key, expected) in [
            (
                "{\n\t\"s\": {},\n\t/* theme */\n\t\"theme\": \"x\"\n}",
                "s",
                "{\n\t/* theme */\n\t\"theme\": \"x\"\n}",
            ),
            (
                "{\r\n  \"n\": 1, // n's\r\n  // mine\r\n  \"m\": 2\r\n}",
                "n",
                "{\r\n  // mine\r\n  \"m\": 2\r\n}",
            ),
            (
                "{\"n\": 1 /* n */, /* m */ \"m\": 2}",
                "n",
                "{/* m */ \"m\": 2}",
            ),
            ("{\"n\": \",\", \"m\": 2}", "n", "{\"m\": 2}"),
            (
                "{\"n\": {} /* n */ , \"m\": 2}",
                "m",
                "{\"n\": {} /* n */ }",
            ),
        ] {
            let mut e = Editor::new_jsonc(text).unwrap();
            assert!(e.remove_member(&[], key));
            assert_eq!(e.text(), expected, "{text:?}");
        }
        let mut e = Editor::new("{\n  \"n\": 1,\n  \"m\": 2\n}").unwrap();
        assert!(e.remove_member(&[], "n"));
        assert_eq!(e.text(), "{\n  \"m\": 2\n}");
    }

    #[test]
    fn an_entry_after_a_trailing_comma_and_comment_gets_its_own_line() {
        for text in [
            "{\n  \"a\": 1, // mine\n}\n",
            "{\r\n  \"a\": 1,\r\n}",
            "{\"a\": 1,}",
            "[\n  1, /* c */ 2, // two\n]",
        ] {
            let mut e = Editor::new_jsonc(text).unwrap();
            let root = e.root().clone();
            match root.kind {
                Kind::Object(_) => e.insert_member(&[], "k", &json!(true)),
                _ => e.append_item(&root, &json!(3)),
            }
            if text.contains("mine") {
                assert_eq!(e.text(), "{\n  \"a\": 1, // mine\n  \"k\": true,\n}\n");
            }
            let root = e.root().clone();
            match root.kind {
                Kind::Object(_) => assert!(e.remove_member(&[], "k")),
                _ => e.remove_item(&root, 2),
            }
            assert_eq!(e.text(), text);
        }
    }

    #[test]
    fn remove_is_the_inverse_of_insert() {
        for text in [
            "{}",
            "{}\n",
            "{\"a\": 1}",
            "{\n    \"a\": 1\n}\n",
            "{\r\n\t\"a\": {\"b\": []}\r\n}",
        ] {
            let mut e = Editor::new(text).unwrap();
            e.insert_member(
                &[],
                "notarai",
                &json!({"command": "notarai", "args": ["mcp"]}),
            );
            assert!(e.remove_member(&[], "notarai"));
            assert_eq!(e.text(), text);
        }
        let mut e = Editor::new("[1]").unwrap();
        let root = e.root().clone();
        e.append_item(&root, &json!({"a": 1}));
        let root = e.root().clone();
        e.remove_item(&root, 1);
        assert_eq!(e.text(), "[1]");
        let mut e = Editor::new("[]").unwrap();
        let root = e.root().clone();
        e.append_item(&root, &json!(2));
        let root = e.root().clone();
        e.remove_item(&root, 0);
        assert_eq!(e.text(), "[]");
    }

    #[test]
    fn crlf_and_tabs_are_followed() {
        let mut e = Editor::new("{\r\n\t\"a\": 1\r\n}").unwrap();
        e.insert_member(&[], "b", &json!([2]));
        assert_eq!(
            e.text(),
            "{\r\n\t\"a\": 1,\r\n\t\"b\": [\r\n\t\t2\r\n\t]\r\n}"
        );
    }

    /// Small JSON values: nested objects and arrays of scalars.
    fn value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(json!(null)),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "[a-z\"\\\\é]{0,6}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                proptest::collection::btree_map("[a-z]{1,3}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// `text` and `new` differ by one inserted run of bytes.
    fn one_insertion(text: &str, new: &str) -> bool {
        let prefix = text
            .bytes()
            .zip(new.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let suffix = text
            .bytes()
            .rev()
            .zip(new.bytes().rev())
            .take_while(|(a, b)| a == b)
            .count();
        prefix + suffix >= text.len()
    }

    proptest::proptest! {
        /// Inserting a member into any object or appending to any array, in
        /// any layout, gives the expected value and touches no other byte.
        #[test]
        fn edits_are_one_insertion_with_the_expected_value(
            doc in proptest::collection::btree_map("[a-z]{1,3}", value(), 0..4),
            layout in 0..4usize,
            added in value(),
        ) {
            let doc = Value::Object(doc.into_iter().collect());
            let text = match layout {
                0 => serde_json::to_string(&doc).unwrap(),
                1 => serde_json::to_string_pretty(&doc).unwrap(),
                2 => render(&doc, "    ", "", "\n"),
                _ => render(&doc, "\t", "", "\r\n"),
            };
            let mut editor = Editor::new(&text).unwrap();
            editor.insert_member(&[], "zz_new", &added);
            proptest::prop_assert!(one_insertion(&text, editor.text()), "{}", editor.text());
            let mut expected = doc.clone();
            expected.as_object_mut().unwrap().insert("zz_new".into(), added.clone());
            let got: Value = serde_json::from_str(editor.text()).unwrap();
            proptest::prop_assert_eq!(got, expected);

            if let Some((key, array)) = doc.as_object().unwrap().iter().find(|(_, v)| v.is_array()) {
                let mut editor = Editor::new(&text).unwrap();
                let node = editor.at(&[key]).unwrap().clone();
                editor.append_item(&node, &added);
                proptest::prop_assert!(one_insertion(&text, editor.text()));
                let got: Value = serde_json::from_str(editor.text()).unwrap();
                let mut items = array.as_array().unwrap().clone();
                items.push(added.clone());
                proptest::prop_assert_eq!(&got[key], &Value::Array(items));
            }
        }

        /// JSON with comments and trailing commas, in any layout: inserting a
        /// member into any object and removing it again gives back every
        /// byte, and the comments survive in between.
        #[test]
        fn jsonc_insert_then_remove_is_byte_identical(
            doc in proptest::collection::btree_map("[a-z]{1,3}", value(), 1..4),
            layout in 0..3usize,
            trailing in proptest::bool::ANY,
            comment in proptest::bool::ANY,
            added in value(),
        ) {
            let doc = Value::Object(doc.into_iter().collect());
            let mut text = match layout {
                0 => serde_json::to_string(&doc).unwrap(),
                1 => serde_json::to_string_pretty(&doc).unwrap(),
                _ => render(&doc, "\t", "", "\r\n"),
            };
            let eol = if layout == 2 { "\r\n" } else { "\n" };
            if trailing && layout > 0 {
                // A trailing comma (and a comment) after the last member.
                let close = text.rfind('}').unwrap();
                let before = text[..close].trim_end().len();
                let note = if comment { " // last" } else { "" };
                text = format!("{},{note}{eol}}}", &text[..before]);
            }
            if comment {
                text = format!("/* head */ {text}{eol}// tail{eol}");
            }
            let mut editor = Editor::new_jsonc(&text).unwrap();
            editor.insert_member(&[], "zz_new", &added);
            let got: Value =
                serde_json::from_str(&blank_comments(editor.text()).unwrap()).unwrap();
            proptest::prop_assert_eq!(&got["zz_new"], &added);
            proptest::prop_assert_eq!(editor.text().contains("// tail"), comment);
            proptest::prop_assert!(editor.remove_member(&[], "zz_new"));
            proptest::prop_assert_eq!(editor.text(), text.as_str());
        }
    }
}
