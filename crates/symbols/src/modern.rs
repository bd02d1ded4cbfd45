//! Modern syntax the bundled grammars do not know, made parseable by an
//! offset-preserving pre-pass: the bytes of a construct the grammar lacks
//! are blanked with spaces, so every other byte, line and column stays
//! where it was (symbol extents, hunk lines and byte offsets all agree
//! with the file), and what was blanked is kept as [`Blanked`] marks that
//! the hashes take in (a change of a blanked modifier is a change of the
//! program, never formatting).
//!
//! Only TypeScript's variance annotations so far (TypeScript 4.7:
//! `<in T>`, `<out O = unknown>`, `<in out T>`), which
//! `tree-sitter-typescript` 0.23.2 (the newest published) does not parse:
//! measured on the TypeScript of colinhacks/zod, honojs/hono, trpc/trpc
//! and TanStack/query (`docs/performance.md`, "Partial outlines"), the
//! only construct of recent TypeScript the grammar rejected. The pre-pass
//! runs only on a file whose parse has errors, and its result is kept only
//! when the blanked file parses with fewer errors.

/// A modifier blanked out of the file: its word and where it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Blanked {
    /// Byte offset of the modifier in the file.
    pub at: usize,
    /// The modifier (`in`, `out`).
    pub word: &'static str,
}

/// `bytes` (TypeScript) with what the grammar lacks made parseable, same
/// length and lines, and the words blanked; `None` when nothing applies.
/// Three constructs, each only where `root` (the file's own parse) shows
/// code, not text:
/// - variance modifiers ([`variance`]), blanked and hashed;
/// - `export type * from` (TypeScript 5.0): `type` blanked and hashed;
/// - a call or construct signature on its own line after another member
///   with no `;` (`<K extends keyof V>(key: K): V[K]` twice in an
///   interface, which the grammar reads as one type's arguments): the
///   blank before its `<` becomes the `;` TypeScript's parser implies,
///   only where `root` has an error, and not in TSX (where a line may
///   start a JSX element);
/// - in TSX, a bare `&` in a JSX attribute's string
///   (`href="?a=1&b=2"`, which the grammar takes for the start of an
///   entity), where `root` has an error: blanked and hashed.
pub(super) fn prepass(
    bytes: &[u8],
    root: tree_sitter::Node,
    jsx: bool,
) -> Option<(Vec<u8>, Vec<Blanked>)> {
    let mut marks = variance(bytes, root);
    marks.extend(export_type_star(bytes, root));
    if marks.len() > MAX_MARKS {
        return None;
    }
    let separators = if jsx {
        marks.extend(attribute_ampersands(bytes, root));
        Vec::new()
    } else {
        signature_separators(bytes, root)
    };
    if marks.is_empty() && separators.is_empty() || marks.len() + separators.len() > MAX_MARKS {
        return None;
    }
    let mut out = bytes.to_vec();
    for m in &marks {
        out[m.at..m.at + m.word.len()].fill(b' ');
    }
    for at in separators {
        out[at] = b';';
    }
    marks.sort_by_key(|m| m.at);
    Some((out, marks))
}

/// The variance modifiers of type parameter lists in `bytes`: each `in`
/// or `out` that follows `<` or `,` (blanks and comments between) and
/// precedes another modifier or a type parameter's name. A candidate whose
/// node in `root` is a string, comment, template or regular expression is
/// text, not syntax, and is left alone.
fn variance(bytes: &[u8], root: tree_sitter::Node) -> Vec<Blanked> {
    let mut marks = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if matches!(bytes[i], b'<' | b',') {
            let mut at = skip_blank(bytes, i + 1);
            let mut found = Vec::new();
            while let Some(word) = modifier_at(bytes, at) {
                let after = skip_blank(bytes, at + word.len());
                if after == at + word.len() {
                    break; // `int`, `outer`: no blank after the word
                }
                found.push(Blanked { at, word });
                at = after;
            }
            if !found.is_empty() && starts_name(bytes, at) && !is_text(root, found[0].at) {
                marks.extend(found);
                if marks.len() > MAX_MARKS {
                    break;
                }
            }
        }
        i += 1;
    }
    marks
}

/// `type` of each `export type *` (a re-export of types only).
fn export_type_star(bytes: &[u8], root: tree_sitter::Node) -> Vec<Blanked> {
    let mut marks = Vec::new();
    let mut from = 0;
    while let Some(n) = find(&bytes[from..], b"export") {
        let at = from + n;
        from = at + 6;
        let before_ok = at == 0 || !is_word_byte(bytes[at - 1]);
        let ty = skip_blank(bytes, at + 6);
        if !before_ok || ty == at + 6 || !bytes[ty..].starts_with(b"type") {
            continue;
        }
        let star = skip_blank(bytes, ty + 4);
        if star > ty + 4 && bytes.get(star) == Some(&b'*') && !is_text(root, at) {
            marks.push(Blanked {
                at: ty,
                word: "type",
            });
        }
    }
    marks
}

/// The blanks that become `;` before call signatures the grammar joined to
/// the member above: a line whose first byte that is not a blank is `<`,
/// indented, after a line that does not end in `;`, `,`, `{` or an
/// operator, where `root` has an error.
fn signature_separators(bytes: &[u8], root: tree_sitter::Node) -> Vec<usize> {
    let mut out = Vec::new();
    let mut line_start = 0;
    while line_start < bytes.len() {
        let end = bytes[line_start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |n| line_start + n);
        let first = line_start
            + bytes[line_start..end]
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count();
        if first > line_start
            && bytes.get(first) == Some(&b'<')
            && starts_name(bytes, skip_blank(bytes, first + 1))
            && ends_member(bytes, line_start)
            && in_error(root, first)
        {
            out.push(first - 1);
        }
        line_start = end + 1;
    }
    out
}

/// Whether the code before `line_start` ends a type member that has no
/// `;`: its last byte that is not a blank (comments skipped line by line
/// only when whole) is a name, `]`, `)`, `>` or a quote.
fn ends_member(bytes: &[u8], line_start: usize) -> bool {
    let mut at = line_start;
    loop {
        let before = &bytes[..at];
        let Some(last) = before.iter().rposition(|b| !b.is_ascii_whitespace()) else {
            return false;
        };
        let start = before[..=last]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |n| n + 1);
        let line = before[start..=last].trim_ascii_start();
        if line.starts_with(b"//") || line.starts_with(b"*") || line.starts_with(b"/*") {
            at = start;
            continue;
        }
        let b = bytes[last];
        return is_word_byte(b) || matches!(b, b']' | b')' | b'>' | b'\'' | b'"');
    }
}

/// Each `&` of a JSX attribute's string (after `="` or `='` on its line,
/// the quote not closed before it) that starts no entity (`&amp;`,
/// `&#38;`), where `root` has an error.
fn attribute_ampersands(bytes: &[u8], root: tree_sitter::Node) -> Vec<Blanked> {
    let mut marks = Vec::new();
    for (at, _) in bytes.iter().enumerate().filter(|(_, b)| **b == b'&') {
        // The line's start within a bounded window (a long line costs
        // its window per `&`, not its length).
        let floor = at.saturating_sub(ATTRIBUTE_WINDOW);
        let line_start = bytes[floor..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(floor, |n| floor + n + 1);
        let line = &bytes[line_start..at];
        let open = line
            .windows(2)
            .rposition(|w| w[0] == b'=' && matches!(w[1], b'"' | b'\''));
        let Some(open) = open else {
            continue;
        };
        let quote = line[open + 1];
        if line[open + 2..].contains(&quote) {
            continue;
        }
        let entity = bytes[at + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'#')
            .count();
        if entity > 0 && bytes.get(at + 1 + entity) == Some(&b';') {
            continue;
        }
        if in_error(root, at) {
            marks.push(Blanked { at, word: "&" });
            if marks.len() > MAX_MARKS {
                break;
            }
        }
    }
    marks
}

/// Whether the node of `root` at byte `at`, or one of its ancestors, is an
/// error.
fn in_error(root: tree_sitter::Node, at: usize) -> bool {
    let mut node = root.descendant_for_byte_range(at, at + 1);
    while let Some(n) = node {
        if n.is_error() || n.is_missing() {
            return true;
        }
        node = n.parent();
    }
    false
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A byte of a name.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$') || b >= 0x80
}

/// The modifier word starting at `at`, when one starts there.
fn modifier_at(bytes: &[u8], at: usize) -> Option<&'static str> {
    ["out", "in"].into_iter().find(|w| {
        bytes[at.min(bytes.len())..].starts_with(w.as_bytes())
            && !bytes
                .get(at + w.len())
                .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'))
    })
}

/// Whether a type parameter's name starts at `at` (a letter, `_`, `$`, or
/// a byte of a non-ASCII letter), and it is not a keyword that would make
/// the modifier an operator (`in` of `for (x in y)` never follows `<`/`,`
/// and a name; `extends`, `keyof` never name a parameter).
fn starts_name(bytes: &[u8], at: usize) -> bool {
    let Some(&b) = bytes.get(at) else {
        return false;
    };
    if !(b.is_ascii_alphabetic() || matches!(b, b'_' | b'$') || b >= 0x80) {
        return false;
    }
    let end = bytes[at..]
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$') || *b >= 0x80))
        .map_or(bytes.len(), |n| at + n);
    !matches!(
        &bytes[at..end],
        b"extends" | b"keyof" | b"typeof" | b"infer"
    )
}

/// The first byte from `at` that is neither whitespace nor inside a
/// comment (`//` to the end of the line, `/* ... */`).
fn skip_blank(bytes: &[u8], mut at: usize) -> usize {
    // Looked at within a bounded window: a blank run longer than it ends
    // the search there (each caller's work stays linear in the file).
    let bytes = &bytes[..(at + LOOKAHEAD).min(bytes.len())];
    loop {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        if bytes[at.min(bytes.len())..].starts_with(b"//") {
            at = bytes[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |n| at + n);
        } else if bytes[at.min(bytes.len())..].starts_with(b"/*") {
            at = bytes[at + 2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(bytes.len(), |n| at + 2 + n + 2);
        } else {
            return at;
        }
    }
}

/// How far [`skip_blank`] looks for the next code byte.
const LOOKAHEAD: usize = 1024;

/// How far back a `&` looks for the `="` that opens its attribute.
const ATTRIBUTE_WINDOW: usize = 256;

/// The most words a pre-pass blanks in one file; past it the file is left
/// as it is (outlined around its errors).
const MAX_MARKS: usize = 4096;

/// Whether the smallest node of `root` at byte `at` is text: a string, a
/// comment, a template or a regular expression (or inside one).
fn is_text(root: tree_sitter::Node, at: usize) -> bool {
    let mut node = root.descendant_for_byte_range(at, at + 1);
    while let Some(n) = node {
        if matches!(
            n.kind(),
            "string"
                | "string_fragment"
                | "comment"
                | "template_string"
                | "regex"
                | "regex_pattern"
        ) {
            return true;
        }
        node = n.parent();
    }
    false
}

/// Feed the marks between bytes `from` and `to` to `hasher`: each word
/// with the name that follows it (where it is, not by offset, so moving
/// code keeps the hash).
pub(super) fn hash_marks(
    marks: &[Blanked],
    bytes: &[u8],
    from: usize,
    to: usize,
    hasher: &mut blake3::Hasher,
) {
    let first = marks.partition_point(|m| m.at < from);
    for m in marks[first..].iter().take_while(|m| m.at < to) {
        let at = skip_blank(bytes, m.at + m.word.len());
        let end = bytes[at..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$') || *b >= 0x80))
            .map_or(bytes.len(), |n| at + n);
        hasher.update(b"\0variance\0");
        hasher.update(m.word.as_bytes());
        // A modifier needs its parameter on the same line (`<in` newline
        // `T>` is refused): a line break after it is code.
        let broken = bytes[m.at + m.word.len()..at].contains(&b'\n');
        hasher.update(if broken { b"\n" } else { b" " });
        hasher.update(&bytes[at..end]);
    }
}
