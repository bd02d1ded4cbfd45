//! The editor: each edit splices new text into the original at a node's
//! span, indented like its neighbours, in the text's own line ending.

use super::*;

/// An editor over one JSON text.
pub struct Editor {
    text: String,
    root: Node,
    /// Comments and trailing commas allowed (JSONC).
    jsonc: bool,
}

/// The new text of `value` pretty-printed with `unit`, its lines after the
/// first indented by `base`, in line ending `eol`.
pub(super) fn render(value: &Value, unit: &str, base: &str, eol: &str) -> String {
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
            super::super::fsio::line_ending(&self.text),
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
