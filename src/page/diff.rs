//! Cutting a unified diff into parts that each fit a page: whole files,
//! else whole hunks under the file header, else parts of a hunk at line
//! boundaries with recomputed hunk headers.

use super::*;

/// A file's diff could not be cut to fit a page: one of its lines (with the
/// file and hunk headers) is longer than a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineTooLong;

/// A hunk header's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct HunkRange {
    pub(super) old_start: u64,
    pub(super) old_count: u64,
    pub(super) new_start: u64,
    pub(super) new_count: u64,
}

/// Parse `@@ -a[,b] +c[,d] @@rest`; returns the range and `rest` (with its newline).
fn parse_hunk_header(line: &str) -> Option<(HunkRange, &str)> {
    let body = line.strip_prefix("@@ -")?;
    let end = body.find(" @@")?;
    let (ranges, rest) = (&body[..end], &body[end + 3..]);
    let (old, new) = ranges.split_once(" +")?;
    let pair = |s: &str| -> Option<(u64, u64)> {
        match s.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = pair(old)?;
    let (new_start, new_count) = pair(new)?;
    Some((
        HunkRange {
            old_start,
            old_count,
            new_start,
            new_count,
        },
        rest,
    ))
}

fn hunk_header(r: &HunkRange, rest: &str) -> String {
    format!(
        "@@ -{},{} +{},{} @@{rest}",
        r.old_start, r.old_count, r.new_start, r.new_count
    )
}

/// A file's patch cut into its header and hunks.
pub(super) struct ParsedPatch<'a> {
    pub(super) header: &'a str,
    pub(super) hunks: Vec<Hunk<'a>>,
}

pub(super) struct Hunk<'a> {
    /// The whole hunk text, header line included.
    pub(super) text: &'a str,
    pub(super) range: HunkRange,
    /// What follows `@@` on the header line, newline included.
    pub(super) rest: &'a str,
    /// Body lines, each with its `\ No newline at end of file` marker attached.
    pub(super) units: Vec<&'a str>,
}

pub(super) fn parse_patch(patch: &str) -> ParsedPatch<'_> {
    let mut offsets = Vec::new();
    let mut pos = 0;
    for line in patch.split_inclusive('\n') {
        if line.starts_with("@@ -") && parse_hunk_header(line).is_some() {
            offsets.push(pos);
        }
        pos += line.len();
    }
    let header_end = offsets.first().copied().unwrap_or(patch.len());
    let mut hunks = Vec::new();
    for (i, &start) in offsets.iter().enumerate() {
        let end = offsets.get(i + 1).copied().unwrap_or(patch.len());
        let text = &patch[start..end];
        let first_len = text.find('\n').map_or(text.len(), |i| i + 1);
        let (range, rest) = parse_hunk_header(&text[..first_len]).expect("checked above");
        let body = &text[first_len..];
        let mut units: Vec<&str> = Vec::new();
        let mut at = 0;
        for line in body.split_inclusive('\n') {
            if line.starts_with('\\') && !units.is_empty() {
                let last = units.pop().expect("not empty");
                let start = at - last.len();
                units.push(&body[start..at + line.len()]);
            } else {
                units.push(line);
            }
            at += line.len();
        }
        hunks.push(Hunk {
            text,
            range,
            rest,
            units,
        });
    }
    ParsedPatch {
        header: &patch[..header_end],
        hunks,
    }
}

/// Lines added and removed by a file's patch.
pub fn line_counts(patch: &str) -> (u64, u64) {
    let parsed = parse_patch(patch);
    let (mut added, mut removed) = (0, 0);
    for unit in parsed.hunks.iter().flat_map(|h| &h.units) {
        match unit.as_bytes().first() {
            Some(b'+') => added += 1,
            Some(b'-') => removed += 1,
            _ => {}
        }
    }
    (added, removed)
}

/// Cut one file's patch into pieces laid out on `layout`, each a valid
/// unified diff: the whole file when it fits, else whole hunks under a
/// repeated file header, else parts of a hunk at line boundaries with
/// recomputed hunk headers. Returns `(page, text)` pieces in order.
pub fn split_patch(patch: &str, layout: &mut Layout) -> Result<Vec<(usize, String)>, LineTooLong> {
    let cost = escaped_len(patch);
    if cost <= layout.room() || cost <= layout.cap() {
        let page = layout.place(cost);
        return Ok(vec![(page, patch.to_string())]);
    }
    let parsed = parse_patch(patch);
    let header_cost = escaped_len(parsed.header);
    let mut out = Splitter {
        layout,
        header: parsed.header,
        header_cost,
        pieces: Vec::new(),
        open: false,
    };
    if parsed.hunks.is_empty() {
        return Err(LineTooLong);
    }
    for hunk in &parsed.hunks {
        out.hunk(hunk)?;
    }
    Ok(out.pieces)
}

struct Splitter<'l, 'p> {
    layout: &'l mut Layout,
    header: &'p str,
    header_cost: usize,
    pieces: Vec<(usize, String)>,
    /// The last piece is on the current page and carries the file header.
    open: bool,
}

impl Splitter<'_, '_> {
    fn fresh_page(&mut self) {
        if !self.layout.is_fresh() {
            self.layout.new_page();
        }
        self.open = false;
    }

    fn write(&mut self, text: &str, cost: usize) {
        if !self.open {
            self.layout.consume(self.header_cost);
            self.pieces
                .push((self.layout.current(), self.header.to_string()));
            self.open = true;
        }
        self.layout.consume(cost);
        self.pieces.last_mut().expect("opened").1.push_str(text);
    }

    fn header_if_closed(&self) -> usize {
        if self.open { 0 } else { self.header_cost }
    }

    fn hunk(&mut self, hunk: &Hunk<'_>) -> Result<(), LineTooLong> {
        let cost = escaped_len(hunk.text);
        if self.header_if_closed() + cost <= self.layout.room() {
            self.write(hunk.text, cost);
            return Ok(());
        }
        if self.header_cost + cost <= self.layout.cap() {
            self.fresh_page();
            self.write(hunk.text, cost);
            return Ok(());
        }
        // Parts of the hunk, each under its own recomputed header.
        let r = hunk.range;
        let widest = r.old_start.max(r.new_start) + r.old_count.max(r.new_count) + 1;
        let bound = HunkRange {
            old_start: widest,
            old_count: widest,
            new_start: widest,
            new_count: widest,
        };
        let header_bound = escaped_len(&hunk_header(&bound, hunk.rest));
        let mut old_pos = if r.old_count == 0 {
            r.old_start + 1
        } else {
            r.old_start
        };
        let mut new_pos = if r.new_count == 0 {
            r.new_start + 1
        } else {
            r.new_start
        };
        let mut units = hunk.units.iter().peekable();
        while units.peek().is_some() {
            let first = escaped_len(units.peek().expect("peeked"));
            if self.header_if_closed() + header_bound + first > self.layout.room() {
                self.fresh_page();
                if self.header_cost + header_bound + first > self.layout.cap() {
                    return Err(LineTooLong);
                }
            }
            let reserve = self.header_if_closed() + header_bound;
            let mut room = self.layout.room() - reserve;
            let (mut body, mut body_cost) = (String::new(), 0);
            let (mut olds, mut news) = (0, 0);
            while let Some(unit) = units.peek() {
                let c = escaped_len(unit);
                if c > room {
                    break;
                }
                room -= c;
                body_cost += c;
                body.push_str(unit);
                match unit.as_bytes().first() {
                    Some(b'-') => olds += 1,
                    Some(b'+') => news += 1,
                    _ => {
                        olds += 1;
                        news += 1;
                    }
                }
                units.next();
            }
            let range = HunkRange {
                old_start: if olds == 0 { old_pos - 1 } else { old_pos },
                old_count: olds,
                new_start: if news == 0 { new_pos - 1 } else { new_pos },
                new_count: news,
            };
            old_pos += olds;
            new_pos += news;
            let mut text = hunk_header(&range, hunk.rest);
            text.push_str(&body);
            // Take the bound, not the exact header, so the page stays within it.
            self.write(&text, header_bound + body_cost);
            let used_exact = escaped_len(&text);
            debug_assert!(used_exact <= header_bound + body_cost);
        }
        Ok(())
    }
}

/// Cut `text` into consecutive parts of at most `cap` escaped bytes at char
/// boundaries (at line ends where possible); the parts joined are `text`.
pub fn split_text(text: &str, first_room: usize, cap: usize) -> Vec<String> {
    let mut parts = Vec::new();
    let mut room = first_room.max(1);
    let (mut current, mut used) = (String::new(), 0);
    for line in text.split_inclusive('\n') {
        let c = escaped_len(line);
        if used + c <= room {
            current.push_str(line);
            used += c;
            continue;
        }
        for ch in line.chars() {
            let mut buf = [0u8; 4];
            let s: &str = ch.encode_utf8(&mut buf);
            let c = escaped_len(s);
            if used + c > room && !current.is_empty() {
                parts.push(std::mem::take(&mut current));
                used = 0;
                room = cap.max(1);
            }
            current.push(ch);
            used += c;
        }
    }
    if !current.is_empty() || parts.is_empty() {
        parts.push(current);
    }
    parts
}
