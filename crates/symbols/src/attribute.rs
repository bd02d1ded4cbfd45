//! A hunk's symbol: the innermost named symbol whose extent contains all
//! its changed lines, `<top-level>` or `<multiple>` (symbols.md, "A hunk's
//! symbol"), and the unified diff with each hunk header naming it.

use std::fmt;

use serde::Serialize;

use super::outline::Outline;

/// The symbol a hunk (or a line range) is attributed to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Attribution {
    /// Inside one named symbol.
    Symbol {
        /// Its qualified name.
        name: String,
    },
    /// Outside every symbol; the whole symbols it adds or removes.
    TopLevel {
        /// Whole symbols added.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        added: Vec<String>,
        /// Whole symbols removed.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        removed: Vec<String>,
    },
    /// Parts of two or more sibling symbols.
    Multiple {
        /// The symbols partly changed.
        touched: Vec<String>,
        /// Whole symbols added.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        added: Vec<String>,
        /// Whole symbols removed.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        removed: Vec<String>,
    },
    /// The file has no outline, or the lines lie where it does not parse:
    /// the whole file is the unit.
    WholeFile {
        /// Why.
        reason: String,
    },
}

impl fmt::Display for Attribution {
    /// `Session::refresh`, `<top-level> adds: a, b`, `<multiple> a, b; adds: c`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |names: &[String]| {
            let mut text = names[..names.len().min(LISTED)].join(", ");
            if names.len() > LISTED {
                text.push_str(&format!(" and {} more", names.len() - LISTED));
            }
            text
        };
        let lists = |f: &mut fmt::Formatter<'_>, added: &[String], removed: &[String]| {
            if !added.is_empty() {
                write!(f, "; adds: {}", list(added))?;
            }
            if !removed.is_empty() {
                write!(f, "; removes: {}", list(removed))?;
            }
            Ok(())
        };
        match self {
            Attribution::Symbol { name } => f.write_str(name),
            Attribution::TopLevel { added, removed } => {
                f.write_str("<top-level>")?;
                lists(f, added, removed)
            }
            Attribution::Multiple {
                touched,
                added,
                removed,
            } => {
                write!(f, "<multiple> {}", list(touched))?;
                lists(f, added, removed)
            }
            Attribution::WholeFile { reason } => write!(f, "<whole-file> ({reason})"),
        }
    }
}

/// A changed line: its number on its side (1-based) and whether it is blank.
pub type Line = (u32, bool);

/// One hunk of a unified diff, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HunkLines {
    /// Byte range of the `@@` header line (without its newline) in the patch.
    pub header: (usize, usize),
    /// Byte offset where the hunk's body ends (the next hunk or the end).
    pub end: usize,
    /// The header's `-a,b +c,d @@` part, as written.
    pub ranges: String,
    /// Lines added, by their new-side number.
    pub added: Vec<Line>,
    /// Lines removed, by their old-side number.
    pub removed: Vec<Line>,
}

/// Every hunk of a unified diff (git's format).
pub fn hunk_lines(patch: &str) -> Vec<HunkLines> {
    let mut hunks: Vec<HunkLines> = Vec::new();
    let mut offset = 0;
    let (mut old, mut new, mut old_left, mut new_left) = (0u32, 0u32, 0u32, 0u32);
    for line in patch.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let body = line.strip_suffix('\n').unwrap_or(line);
        if old_left == 0 && new_left == 0 {
            if let Some(h) = hunks.last_mut() {
                h.end = h.end.max(at);
            }
            if let Some(rest) = body.strip_prefix("@@ -")
                && let Some((ranges, _)) = rest.split_once(" @@")
                && let Some((o, n)) = ranges.split_once(" +")
            {
                let parse = |s: &str| {
                    let (start, len) = s.split_once(',').unwrap_or((s, "1"));
                    (start.parse().unwrap_or(0), len.parse().unwrap_or(0))
                };
                let (os, ol) = parse(o);
                let (ns, nl) = parse(n);
                (old, new, old_left, new_left) = (os.max(1), ns.max(1), ol, nl);
                if ol == 0 {
                    old = os + 1;
                }
                if nl == 0 {
                    new = ns + 1;
                }
                hunks.push(HunkLines {
                    header: (at, at + body.len()),
                    end: offset,
                    ranges: format!("-{ranges} @@"),
                    ..HunkLines::default()
                });
            }
            continue;
        }
        let Some(h) = hunks.last_mut() else { continue };
        h.end = offset;
        let blank = body.get(1..).is_none_or(|t| t.trim().is_empty());
        match body.as_bytes().first() {
            Some(b'+') => {
                h.added.push((new, blank));
                new += 1;
                new_left = new_left.saturating_sub(1);
            }
            Some(b'-') => {
                h.removed.push((old, blank));
                old += 1;
                old_left = old_left.saturating_sub(1);
            }
            Some(b'\\') => {}
            _ => {
                old += 1;
                new += 1;
                old_left = old_left.saturating_sub(1);
                new_left = new_left.saturating_sub(1);
            }
        }
    }
    hunks
}

/// The attribution of `lines` (changed lines of one side) in `outline`.
/// Blank lines count only when every line is blank. A symbol the lines
/// cover whole counts as added.
pub fn attribute(outline: &Outline, lines: &[Line]) -> Attribution {
    attribute_with(outline, lines, &|_| false)
}

/// [`attribute`] of lines changed since `before` (the same file earlier): a
/// symbol the lines cover whole counts as added only when `before` has no
/// symbol of that name (a rewritten function is still that function).
pub fn attribute_since(outline: &Outline, lines: &[Line], before: &Outline) -> Attribution {
    attribute_with(outline, lines, &|name| {
        before.fallback.is_none() && before.named(name).next().is_some()
    })
}

/// [`attribute`], where a symbol covered whole by `lines` counts as added
/// only when `existed` says its name was not there before (a function whose
/// every line was rewritten is still that function).
fn attribute_with(
    outline: &Outline,
    lines: &[Line],
    existed: &dyn Fn(&str) -> bool,
) -> Attribution {
    if let Some(reason) = &outline.fallback {
        return Attribution::WholeFile {
            reason: reason.clone(),
        };
    }
    // A partial outline: lines where (or in a symbol where) the parser
    // stopped understanding the file are the whole file's.
    if let Some(reason) = outline.damaged_at(lines.iter().map(|l| l.0)) {
        return Attribution::WholeFile { reason };
    }
    let (added, touched, within) = attribute_parts(outline, lines, existed);
    let name = |i: &usize| outline.symbols[*i].name.clone();
    if touched.len() >= 2 || (touched.len() == 1 && (!added.is_empty() || within.is_none())) {
        // Each sibling touched, named by its innermost symbol holding the
        // lines that fall in it (`Session::refresh`, not `Session`).
        let solid: Vec<u32> = lines.iter().filter(|l| !l.1).map(|l| l.0).collect();
        let innermost = |t: &usize| {
            let inside: Vec<u32> = solid
                .iter()
                .copied()
                .filter(|l| outline.symbols[*t].contains(*l))
                .collect();
            let best = (0..outline.symbols.len())
                .filter(|&i| {
                    let mut at = Some(i);
                    while let Some(j) = at {
                        if j == *t {
                            return inside.iter().all(|l| outline.symbols[i].contains(*l));
                        }
                        at = outline.symbols[j].parent;
                    }
                    false
                })
                .max_by_key(|&i| outline.depth(i))
                .unwrap_or(*t);
            outline.symbols[best].name.clone()
        };
        return Attribution::Multiple {
            touched: touched.iter().map(innermost).collect(),
            added: added.iter().map(name).collect(),
            removed: Vec::new(),
        };
    }
    match within {
        Some(s) => Attribution::Symbol {
            name: outline.symbols[s].name.clone(),
        },
        None => Attribution::TopLevel {
            added: added.iter().map(name).collect(),
            removed: Vec::new(),
        },
    }
}

/// (whole children added, children partly changed, the container) of
/// `lines` in `outline`: the container is the innermost symbol holding all
/// lines that the lines do not cover whole (`None`: the file).
fn attribute_parts(
    outline: &Outline,
    lines: &[Line],
    existed: &dyn Fn(&str) -> bool,
) -> (Vec<usize>, Vec<usize>, Option<usize>) {
    let all: std::collections::HashSet<u32> = lines.iter().map(|l| l.0).collect();
    let solid: Vec<u32> = lines.iter().filter(|l| !l.1).map(|l| l.0).collect();
    let lines: Vec<u32> = if solid.is_empty() {
        lines.iter().map(|l| l.0).collect()
    } else {
        solid
    };
    if lines.is_empty() {
        return (Vec::new(), Vec::new(), None);
    }
    let covered = |i: usize| {
        let s = &outline.symbols[i];
        (s.start_line..=s.end_line).all(|l| all.contains(&l)) && !existed(&s.name)
    };
    let mut lines = lines;
    lines.sort_unstable();
    let (first, last) = (lines[0], lines[lines.len() - 1]);
    // The innermost symbol containing every line.
    let mut within = outline
        .symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| s.contains(first) && s.contains(last))
        .max_by_key(|(i, _)| outline.depth(*i))
        .map(|(i, _)| i);
    while let Some(s) = within {
        if !covered(s) {
            break;
        }
        within = outline.symbols[s].parent;
    }
    let mut added = Vec::new();
    let mut touched = Vec::new();
    for (i, s) in outline.symbols.iter().enumerate() {
        if s.parent != within || !holds_any(&lines, s) {
            continue;
        }
        if covered(i) {
            added.push(i);
        } else {
            touched.push(i);
        }
    }
    (added, touched, within)
}

/// Symbols of `outline` wholly inside `lines` and not inside another
/// such, whose name `remains` does not say is still there.
fn whole(outline: &Outline, lines: &[Line], remains: &dyn Fn(&str) -> bool) -> Vec<String> {
    let all: std::collections::HashSet<u32> = lines.iter().map(|l| l.0).collect();
    let is_whole = |i: usize| {
        let s = &outline.symbols[i];
        (s.start_line..=s.end_line).all(|l| all.contains(&l)) && !remains(&s.name)
    };
    (0..outline.symbols.len())
        .filter(|&i| is_whole(i) && !outline.symbols[i].parent.is_some_and(is_whole))
        .map(|i| outline.symbols[i].name.clone())
        .collect()
}

/// Indices of the symbols of `outline` whose extent holds one of `lines`.
fn touched(outline: &Outline, lines: &[Line]) -> Vec<usize> {
    let mut sorted: Vec<u32> = lines.iter().map(|l| l.0).collect();
    sorted.sort_unstable();
    outline
        .symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| holds_any(&sorted, s))
        .map(|(i, _)| i)
        .collect()
}

/// Whether symbol `s` holds one of `sorted` (ascending line numbers).
fn holds_any(sorted: &[u32], s: &super::Symbol) -> bool {
    let at = sorted.partition_point(|l| *l < s.start_line);
    sorted.get(at).is_some_and(|l| *l <= s.end_line)
}

/// Names in a hunk header's `adds:`/`removes:` lists, at most.
const LISTED: usize = 8;

/// One hunk's attribution and the symbols it touches on each side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkSymbols {
    /// The hunk as read.
    pub lines: HunkLines,
    /// Its symbol.
    pub attribution: Attribution,
    /// Symbols of the old outline holding a removed line.
    pub touched_old: Vec<usize>,
    /// Symbols of the new outline holding an added line.
    pub touched_new: Vec<usize>,
}

/// A file's patch with every hunk attributed.
#[derive(Debug, Clone)]
pub struct PatchSymbols {
    /// Each hunk, in order.
    pub hunks: Vec<HunkSymbols>,
}

/// The attribution of one hunk: its added lines in the new outline (its
/// removed lines in the old one for a pure deletion), with the whole
/// symbols it removes named.
pub fn attribute_hunk(old: &Outline, new: &Outline, hunk: &HunkLines) -> Attribution {
    let in_old = |name: &str| old.fallback.is_none() && old.named(name).next().is_some();
    let in_new = |name: &str| new.fallback.is_none() && new.named(name).next().is_some();
    if hunk.added.is_empty() {
        return match attribute_with(old, &hunk.removed, &in_new) {
            Attribution::TopLevel { added, .. } => Attribution::TopLevel {
                added: Vec::new(),
                removed: added,
            },
            Attribution::Multiple { touched, added, .. } => Attribution::Multiple {
                touched,
                added: Vec::new(),
                removed: added,
            },
            other => other,
        };
    }
    let removed = if old.fallback.is_none() {
        whole(old, &hunk.removed, &in_new)
    } else {
        Vec::new()
    };
    match attribute_with(new, &hunk.added, &in_old) {
        Attribution::TopLevel { added, .. } => Attribution::TopLevel { added, removed },
        Attribution::Multiple { touched, added, .. } => Attribution::Multiple {
            touched,
            added,
            removed,
        },
        other => other,
    }
}

/// Attribute every hunk of `patch` (old side read with `old`, new side
/// with `new`).
pub fn patch_symbols(old: &Outline, new: &Outline, patch: &str) -> PatchSymbols {
    let hunks = hunk_lines(patch)
        .into_iter()
        .map(|lines| HunkSymbols {
            attribution: attribute_hunk(old, new, &lines),
            touched_old: touched(old, &lines.removed),
            touched_new: touched(new, &lines.added),
            lines,
        })
        .collect();
    PatchSymbols { hunks }
}

impl PatchSymbols {
    /// `patch` with each hunk header's trailing context replaced by
    /// `symbol: <attribution>`, keeping only the hunks `keep` says (the
    /// file header lines are kept; no hunk kept gives an empty string).
    pub fn render(&self, patch: &str, keep: impl Fn(usize, &HunkSymbols) -> bool) -> String {
        let Some(first) = self.hunks.first() else {
            return patch.to_string();
        };
        let mut out = String::with_capacity(patch.len() + 64 * self.hunks.len());
        out.push_str(&patch[..first.lines.header.0]);
        let mut any = false;
        for (i, hunk) in self.hunks.iter().enumerate() {
            if !keep(i, hunk) {
                continue;
            }
            any = true;
            let (start, end) = hunk.lines.header;
            let header = &patch[start..end];
            let ranges_end = header
                .get(3..)
                .and_then(|h| h.find(" @@"))
                .map_or(header.len(), |i| i + 6);
            out.push_str(&header[..ranges_end]);
            if !matches!(hunk.attribution, Attribution::WholeFile { .. }) {
                out.push_str(" symbol: ");
                out.push_str(&hunk.attribution.to_string());
            } else {
                out.push_str(&header[ranges_end..]);
            }
            out.push_str(&patch[end..hunk.lines.end]);
        }
        if any { out } else { String::new() }
    }
}

/// `patch` with each hunk header naming its symbol (see [`PatchSymbols::render`]).
pub fn annotate_patch(old: &Outline, new: &Outline, patch: &str) -> String {
    patch_symbols(old, new, patch).render(patch, |_, _| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_are_read_with_their_line_numbers() {
        let patch = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@ fn a\n a\n-b\n+c\n d\n@@ -10,0 +11,2 @@\n+\n+e\n";
        let h = hunk_lines(patch);
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].removed, vec![(2, false)]);
        assert_eq!(h[0].added, vec![(2, false)]);
        assert_eq!(h[1].added, vec![(11, true), (12, false)]);
        assert_eq!(&patch[h[1].header.0..h[1].header.1], "@@ -10,0 +11,2 @@");
    }
}
