//! The NotarAI section of `CLAUDE.md`, found by CommonMark rules and by
//! notarai's own begin/end markers; every other byte of the file is kept.
//!
//! notarai writes its section between `<!-- notarai:begin ... -->` and
//! `<!-- notarai:end -->` lines, the begin line carrying the hash of the text
//! between them. A file from before the markers has a bare `## NotarAI`
//! section: it runs to the next heading of level 1 or 2, ATX (`#`, `##`) or
//! setext (a paragraph underlined with `=` or `-`), outside fenced and
//! indented code.

use super::fsio::{line_ending, with_line_ending};
use super::generated::{self, Origin};

/// The heading that opens notarai's section.
const HEADING: &str = "## NotarAI";

/// What the begin marker line starts with.
const BEGIN: &str = "<!-- notarai:begin";
/// The end marker line.
const END: &str = "<!-- notarai:end -->";

/// `section` (a Markdown text starting with its heading) between
/// notarai's markers, in line ending `eol`.
pub fn marked(section: &str, eol: &str) -> String {
    let body = with_line_ending(section, eol);
    format!(
        "{BEGIN} {} -->{eol}{body}{END}{eol}",
        generated::marker_words(&generated::text_hash(&body))
    )
}

/// A block-level event of the scan that matters for finding the section.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Event {
    /// A heading of `level`; `at` is where it starts (for a setext heading,
    /// the first line of its paragraph); `text` its content.
    Heading {
        at: usize,
        level: usize,
        text: String,
    },
    /// A begin marker line from `at` to `end` (line ending included).
    Begin { at: usize, end: usize },
    /// An end marker line from `at` to `end`.
    End { at: usize, end: usize },
}

/// Columns of leading whitespace (a tab advances to the next multiple of 4)
/// and the byte offset where the content starts.
fn indent(line: &str) -> (usize, usize) {
    let mut cols = 0;
    for (i, c) in line.char_indices() {
        match c {
            ' ' => cols += 1,
            '\t' => cols += 4 - cols % 4,
            _ => return (cols, i),
        }
    }
    (cols, line.len())
}

/// An opening code fence: its character and length.
fn fence_open(content: &str) -> Option<(char, usize)> {
    let c = content.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = content.chars().take_while(|x| *x == c).count();
    if len < 3 {
        return None;
    }
    let info = &content[len..];
    (c == '~' || !info.contains('`')).then_some((c, len))
}

/// Whether `content` closes a fence of `c` repeated `len` times.
fn fence_closes(content: &str, c: char, len: usize) -> bool {
    let run = content.chars().take_while(|x| *x == c).count();
    run >= len && content[run..].trim().is_empty()
}

/// An ATX heading: its level and text.
fn atx(content: &str) -> Option<(usize, String)> {
    let level = content.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &content[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n'])) {
        return None;
    }
    let text = rest.trim();
    let text = text.trim_end_matches('#');
    Some((level, text.trim().to_string()))
}

/// A setext underline: level 1 for `=`, 2 for `-`.
fn setext(content: &str) -> Option<usize> {
    let t = content.trim_end();
    let c = t.chars().next()?;
    let level = match c {
        '=' => 1,
        '-' => 2,
        _ => return None,
    };
    t.chars().all(|x| x == c).then_some(level)
}

/// Scan `text` block by block, by CommonMark's rules for fences, indented
/// code, ATX and setext headings (containers such as lists and quotes are
/// read as paragraphs, which can only end a section earlier).
fn scan(text: &str) -> Vec<Event> {
    let mut events = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut paragraph: Option<(usize, String)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let (cols, offset) = indent(line);
        let content = &line[offset..];
        if let Some((c, len)) = fence {
            if cols <= 3 && fence_closes(content, c, len) {
                fence = None;
            }
            continue;
        }
        if content.trim().is_empty() {
            paragraph = None;
            continue;
        }
        if cols >= 4 {
            // Indented code, unless it continues a paragraph.
            if let Some((_, p)) = &mut paragraph {
                p.push_str(content.trim());
            }
            continue;
        }
        if let Some(open) = fence_open(content) {
            fence = Some(open);
            paragraph = None;
            continue;
        }
        if let Some((level, heading)) = atx(content) {
            events.push(Event::Heading {
                at: start,
                level,
                text: heading,
            });
            paragraph = None;
            continue;
        }
        if let (Some(level), Some((p_at, p_text))) = (setext(content), &paragraph) {
            events.push(Event::Heading {
                at: *p_at,
                level,
                text: p_text.clone(),
            });
            paragraph = None;
            continue;
        }
        let trimmed = content.trim_end();
        if trimmed.starts_with(BEGIN) {
            events.push(Event::Begin { at: start, end: at });
            paragraph = None;
            continue;
        }
        if trimmed == END {
            events.push(Event::End { at: start, end: at });
            paragraph = None;
            continue;
        }
        match &mut paragraph {
            Some((_, p)) => {
                p.push(' ');
                p.push_str(content.trim());
            }
            None => paragraph = Some((start, content.trim().to_string())),
        }
    }
    events
}

/// Where notarai's section is in a `CLAUDE.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// Between notarai's markers: the whole range, markers included, and
    /// the body between them.
    Marked {
        /// Byte range of the section, marker lines included.
        range: (usize, usize),
        /// Byte range of the text between the markers.
        body: (usize, usize),
        /// Byte range of the begin marker line.
        begin: (usize, usize),
    },
    /// A bare `## NotarAI` section (no markers): from its heading to the next
    /// heading of level 1 or 2, or the end of the file.
    Bare {
        /// Byte range of the section.
        range: (usize, usize),
    },
    /// No section.
    Absent,
}

/// Find notarai's section: the first begin marker with an end marker after
/// it, else a `## NotarAI` heading.
pub fn find(text: &str) -> Found {
    let events = scan(text);
    for (i, event) in events.iter().enumerate() {
        if let Event::Begin { at, end } = event {
            let close = events[i + 1..].iter().find_map(|e| match e {
                Event::End { at, end } => Some((*at, *end)),
                _ => None,
            });
            if let Some((end_at, end_end)) = close {
                return Found::Marked {
                    range: (*at, end_end),
                    body: (*end, end_at),
                    begin: (*at, *end),
                };
            }
        }
    }
    for (i, event) in events.iter().enumerate() {
        if let Event::Heading {
            at,
            level: 2,
            text: heading,
        } = event
            && heading == HEADING.trim_start_matches("## ")
        {
            let end = events[i + 1..]
                .iter()
                .find_map(|e| match e {
                    Event::Heading { at, level, .. } if *level <= 2 => Some(*at),
                    _ => None,
                })
                .unwrap_or(text.len());
            // A begin marker whose end marker was deleted belongs to it.
            let start = match i.checked_sub(1).map(|j| &events[j]) {
                Some(Event::Begin { at: b, end: e }) if e == at => *b,
                _ => *at,
            };
            return Found::Bare {
                range: (start, end),
            };
        }
    }
    Found::Absent
}

/// What `notarai init` finds in `CLAUDE.md` and what it would write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upsert {
    /// The file with notarai's current section in place.
    pub text: String,
    /// Whose the section being replaced is; `None` when there was none
    /// (the section is appended, nothing is lost).
    pub replaces: Option<Origin>,
}

/// An instruction file's text (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`) with
/// notarai's current `section` in place, in the file's own line ending,
/// every byte outside the section kept; and whose section that replaces.
/// Applying it to its own result gives the same text. A new section is
/// appended after one line break (after a blank line when the
/// file ends with a line break), so [`remove`] can give the bytes back.
pub fn upsert_with(existing: Option<&str>, section: &str) -> Upsert {
    let text = existing.unwrap_or("");
    let eol = line_ending(text);
    let new = marked(section, eol);
    let splice = |start: usize, end: usize, sep: bool| {
        let mut out = String::with_capacity(text.len() + new.len());
        out.push_str(&text[..start]);
        out.push_str(&new);
        if sep && end < text.len() {
            out.push_str(eol);
        }
        out.push_str(&text[end..]);
        out
    };
    match find(text) {
        Found::Marked { range, body, begin } => Upsert {
            text: splice(range.0, range.1, false),
            replaces: Some(generated::section_origin(
                &text[begin.0..begin.1],
                &text[body.0..body.1],
            )),
        },
        Found::Bare { range } => {
            let end = range.1;
            let old = text[range.0..end].replace("\r\n", "\n");
            // Written by notarai before it had markers, word for word.
            let origin = if old.trim_end() == section.trim_end() {
                Origin::Unedited
            } else {
                Origin::Foreign
            };
            Upsert {
                text: splice(range.0, end, true),
                replaces: Some(origin),
            }
        }
        Found::Absent if text.is_empty() => Upsert {
            text: new,
            replaces: None,
        },
        Found::Absent => {
            let mut out = text.to_string();
            out.push_str(eol);
            out.push_str(&new);
            Upsert {
                text: out,
                replaces: None,
            }
        }
    }
}

/// What [`remove`] finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Removal {
    /// No section between notarai's markers.
    Absent,
    /// notarai's section was edited: it is kept.
    Edited,
    /// The text without the section (empty: the file held nothing else).
    Text(String),
}

/// `text` without notarai's marked section, when nobody edited it: the
/// inverse of [`upsert_with`] on a file that had no section.
pub fn remove(text: &str) -> Removal {
    let Found::Marked { range, body, begin } = find(text) else {
        return Removal::Absent;
    };
    if generated::section_origin(&text[begin.0..begin.1], &text[body.0..body.1]) != Origin::Unedited
    {
        return Removal::Edited;
    }
    let mut head = text[..range.0].to_string();
    if range.1 == text.len() {
        let eol = line_ending(text);
        if head.ends_with(eol) {
            head.truncate(head.len() - eol.len());
        } else if head.ends_with('\n') {
            head.pop();
        }
    }
    head.push_str(&text[range.1..]);
    Removal::Text(head)
}

#[cfg(test)]
mod tests;
