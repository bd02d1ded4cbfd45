//! The spellings folded to one: strings in either quote, numbers, an
//! object key written as a string, JSX text as it compiles, the comments
//! that are code.

use super::*;

/// A JavaScript string in one quote style when its body holds no quote.
pub(super) fn js_string(raw: &[u8]) -> Vec<u8> {
    if raw.len() >= 2 {
        let body = &raw[1..raw.len() - 1];
        if !body.iter().any(|&b| b == b'"' || b == b'\'') {
            let mut out = Vec::with_capacity(raw.len());
            out.push(b'"');
            out.extend_from_slice(body);
            out.push(b'"');
            return out;
        }
    }
    raw.to_vec()
}

/// The identifier an object literal's string key spells, when it is the
/// key of a `pair` and a plain identifier.
pub(super) fn object_key<'s>(
    n: tree_sitter::Node,
    parent: Option<tree_sitter::Node>,
    canon: &'s [u8],
) -> Option<&'s [u8]> {
    let parent = parent?;
    if parent.kind() != "pair" || parent.child_by_field_name("key")?.id() != n.id() {
        return None;
    }
    let body = canon.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    let (&first, rest) = body.split_first()?;
    let ident = (first.is_ascii_alphabetic() || matches!(first, b'_' | b'$'))
        && rest
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'));
    ident.then_some(body)
}

/// A Python string: its prefix in lower case without the default `u`, in
/// one quote style when its body holds no quote.
pub(super) fn python_string(raw: &[u8]) -> Vec<u8> {
    let prefix_len = raw
        .iter()
        .position(|&b| b == b'"' || b == b'\'')
        .unwrap_or(raw.len());
    let (prefix, rest) = raw.split_at(prefix_len);
    let mut out: Vec<u8> = prefix
        .iter()
        .map(u8::to_ascii_lowercase)
        .filter(|&b| b != b'u')
        .collect();
    let quote = if rest.starts_with(b"\"\"\"") || rest.starts_with(b"'''") {
        3
    } else {
        1
    };
    if rest.len() >= 2 * quote && !rest.is_empty() {
        let body = &rest[quote..rest.len() - quote];
        let ends_match = rest[rest.len() - quote..] == rest[..quote];
        if ends_match && !body.iter().any(|&b| b == b'"' || b == b'\'') {
            let q: &[u8] = if quote == 3 { b"\"\"\"" } else { b"\"" };
            out.extend_from_slice(q);
            out.extend_from_slice(body);
            out.extend_from_slice(q);
            return out;
        }
    }
    out.extend_from_slice(rest);
    out
}

/// A JavaScript number: a plain decimal as its value, else in lower case.
pub(super) fn js_number(raw: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(raw).unwrap_or_default();
    let legacy_octal =
        text.len() > 1 && text.starts_with('0') && text.as_bytes()[1].is_ascii_digit();
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if plain
        && !legacy_octal
        && let Ok(value) = text.parse::<f64>()
    {
        let mut out = b"=".to_vec();
        out.extend_from_slice(&value.to_bits().to_le_bytes());
        return out;
    }
    raw.to_ascii_lowercase()
}

/// JSX text as it compiles: each line's tabs made spaces, spaces trimmed
/// at line joins, empty lines dropped, lines joined by one space.
/// A comment kept as code, as its reader sees it: the lines after the
/// first moved left together (a reformat that indents the code around it
/// moves them alike), their indentation relative to each other kept (in a
/// Rust `/** */` doc comment four spaces make a doctest), trailing spaces
/// dropped.
pub(super) fn kept_comment(raw: &[u8]) -> Vec<u8> {
    let lines: Vec<&[u8]> = raw.split(|&b| b == b'\n').collect();
    let indent = |l: &[u8]| l.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    let common = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim_ascii().is_empty())
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    let mut out = Vec::with_capacity(raw.len());
    for (i, line) in lines.iter().enumerate() {
        let line = match i {
            0 => line.trim_ascii_start(),
            _ if line.trim_ascii().is_empty() => &[][..],
            _ => &line[common..],
        };
        out.extend_from_slice(line.trim_ascii_end());
        out.push(b'\n');
    }
    out
}

/// Why the layout of `bytes` (a `lang` file) is code a syntax tree does not
/// show, so that the file is compared by its bytes: Go's build constraints,
/// directives and cgo preambles (a blank line or a column decides whether
/// they count), JavaScript's HTML-like comments (`<!--`, `-->` at a line's
/// start: tree-sitter reads them as operators), Rust's macros that see
/// source text (`stringify!`, `line!`, `column!`).
pub(crate) fn layout_is_code(lang: Lang, bytes: &[u8]) -> Option<&'static str> {
    let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    let line_starts_with = |needle: &[u8]| {
        bytes
            .split(|&b| b == b'\n')
            .any(|l| l.trim_ascii_start().starts_with(needle))
    };
    match lang {
        Lang::Go => (line_starts_with(b"//go:")
            || line_starts_with(b"// +build")
            || line_starts_with(b"//line ")
            || line_starts_with(b"/*line ")
            || line_starts_with(b"//export ")
            || line_starts_with(b"import \"C\"")
            || line_starts_with(b"\"C\""))
        .then_some("Go directives, build constraints or a cgo preamble, whose blank lines and columns count"),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            (has(b"<!--") || line_starts_with(b"-->"))
                .then_some("HTML-like comments (`<!--`, `-->`), which tree-sitter reads as operators")
        }
        Lang::Rust => (has(b"stringify!") || has(b"line!") || has(b"column!"))
            .then_some("macros that see the source's text (`stringify!`, `line!`, `column!`)"),
        Lang::Python => None,
    }
}

pub(super) fn jsx_text(raw: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(raw);
    let lines: Vec<&str> = text.split(['\n', '\r']).collect();
    let last_non_empty = lines
        .iter()
        .rposition(|l| l.chars().any(|c| c != ' ' && c != '\t'));
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        // A tab inside a line is kept: TypeScript emits it, Babel a space;
        // the compilers disagree, so a tab changed to a space is shown.
        let mut t = line.to_string();
        if i != 0 {
            t = t.trim_start_matches([' ', '\t']).to_string();
        }
        if i != lines.len() - 1 {
            t = t.trim_end_matches([' ', '\t']).to_string();
        }
        if !t.is_empty() {
            out.push_str(&t);
            if Some(i) != last_non_empty {
                out.push(' ');
            }
        }
    }
    out.into_bytes()
}
