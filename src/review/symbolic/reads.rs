//! Data an anchored symbol reads, declared outside it: a changed line of a
//! top-level constant, static or variable whose name the anchored symbol
//! mentions changes what the anchor does without touching a line of it
//! (`var defaultTypes = []string{...}` read by an anchored
//! `NewCompressor`), so a hunk holding one is never quiet.
//!
//! Followed: a data symbol of the outline (`const`, `static`: Go and Rust
//! constants and statics, Python and JavaScript/TypeScript module
//! constants) and a declaration outside every symbol (Go's `var`, a
//! module-level assignment), named by the words its line binds before
//! `=` or a type. Not followed: a function, method or type another symbol
//! defines (code the anchor calls has its own symbol and its own anchors,
//! as a decorator's body does).

use std::collections::HashSet;

use super::rebound::words;
use super::{Outline, symbols};

/// The symbol kinds that hold data an anchor may read.
const DATA_KINDS: &[&str] = &["const", "static"];

/// How far up a declaration's first line is looked for from a changed
/// line outside every symbol.
const HEAD_LINES: usize = 400;

/// The words the anchored symbols' extents spell, on both sides.
pub(super) struct Reads {
    names: HashSet<String>,
}

impl Reads {
    /// The words of every line of the governed symbols (`governed`, per
    /// symbol of each side's outline) on both sides.
    pub(super) fn of(sides: [(&Outline, &[bool], &[&str]); 2]) -> Reads {
        let mut names: HashSet<String> = HashSet::new();
        for (outline, governed, text) in sides {
            for (i, s) in outline.symbols.iter().enumerate() {
                if governed.get(i) != Some(&true) {
                    continue;
                }
                let from = s.start_line.saturating_sub(1) as usize;
                let to = (s.end_line as usize).min(text.len());
                for line in text.get(from..to).unwrap_or_default() {
                    names.extend(words(line).map(str::to_string));
                }
            }
        }
        Reads { names }
    }

    /// Whether one side's changed `lines` (of `text`, outlined as
    /// `outline`; `touched`, the symbols the hunk touches there; none of
    /// them governed) change data an anchored symbol reads.
    pub(super) fn reached(
        &self,
        outline: &Outline,
        text: &[&str],
        lines: &[symbols::Line],
        touched: &[usize],
    ) -> bool {
        if self.names.is_empty() {
            return false;
        }
        let data = touched.iter().any(|&i| {
            outline.symbols.get(i).is_some_and(|s| {
                DATA_KINDS.contains(&s.kind) && self.names.contains(symbols::last_segment(&s.name))
            })
        });
        data || lines.iter().any(|&(n, blank)| {
            !blank
                && !outline.symbols.iter().any(|s| s.contains(n))
                && declared_names(text, n as usize)
                    .iter()
                    .any(|name| self.names.contains(*name))
        })
    }
}

/// The names bound by the declaration line `n` (1-based) of `text` belongs
/// to: its first line, the nearest line above at column 0 that is not a
/// closer or a comment, and in a grouped Go declaration (`var (`) the
/// nearest spec line above at one indentation.
fn declared_names<'t>(text: &[&'t str], n: usize) -> Vec<&'t str> {
    let mut names = Vec::new();
    let mut spec: Option<&str> = None;
    let from = n.saturating_sub(HEAD_LINES);
    for i in (from..n.min(text.len())).rev() {
        let line = text[i];
        let body = line.trim_start();
        if body.is_empty() || opaque(body) {
            continue;
        }
        let indent = line.len() - body.len();
        if indent == 0 {
            names.extend(bound(body, false));
            if body.ends_with('(')
                && let Some(spec) = spec
            {
                names.extend(bound(spec.trim_start(), true));
            }
            return names;
        }
        if spec.is_none() && (line.starts_with('\t') && !line.starts_with("\t\t")) {
            spec = Some(line);
        }
    }
    names
}

/// Whether a line's body is a comment or only closes brackets.
fn opaque(body: &str) -> bool {
    body.starts_with("//")
        || body.starts_with('#')
        || body.starts_with("/*")
        || body.starts_with('*')
        || body
            .chars()
            .all(|c| matches!(c, ')' | ']' | '}' | ',' | ';'))
}

/// The names one declaration line binds: after its keywords, the leading
/// identifiers separated by commas (`A, B = ...`, `X T`, `FOO: T = ...`),
/// or inside a leading bracket every word before the `=` (`const { a, b }
/// = ...`, `(a, b) = ...`); `in_group`: a spec line of a grouped Go
/// declaration (`var (`), a declaration by its place. A line that is no declaration (`if x:`, a
/// call, `a.b = c`) binds none: without a declaring keyword, the names
/// must be followed by `=` or a type annotation's `:`.
fn bound(body: &str, in_group: bool) -> Vec<&str> {
    const KEYWORDS: &[&str] = &[
        "pub", "export", "default", "declare", "static", "const", "let", "var", "mut", "final",
        "readonly",
    ];
    let mut rest = body;
    let mut declared = in_group;
    loop {
        let end = ident_end(rest);
        let word = &rest[..end];
        if end == 0 || !KEYWORDS.contains(&word) {
            break;
        }
        declared = true;
        rest = rest[end..].trim_start();
        if word == "pub" && rest.starts_with('(') {
            rest = rest.find(')').map_or("", |i| rest[i + 1..].trim_start());
        }
    }
    if rest.starts_with(['{', '[', '(']) {
        let Some(end) = rest
            .find('=')
            .filter(|&i| !rest[i + 1..].starts_with(['=', '>']))
        else {
            return Vec::new();
        };
        return words(&rest[..end]).collect();
    }
    let mut out = Vec::new();
    loop {
        let end = ident_end(rest);
        if end == 0 {
            break;
        }
        out.push(&rest[..end]);
        rest = rest[end..].trim_start();
        match rest.strip_prefix(',') {
            Some(more) => rest = more.trim_start(),
            None => break,
        }
    }
    // A definition of code (`export function f(`, `pub fn`, `type T =`)
    // or a statement is no data.
    if out.first().is_some_and(|w| NOT_DATA.contains(w)) {
        return Vec::new();
    }
    let assigned = (rest.starts_with('=') && !rest.starts_with("=="))
        || (rest.starts_with(':') && !rest.starts_with(":="))
        || rest.starts_with(":=");
    if declared || assigned {
        out
    } else {
        Vec::new()
    }
}

/// Words that start a definition of code or a statement, not data.
const NOT_DATA: &[&str] = &[
    "function",
    "func",
    "fn",
    "class",
    "def",
    "type",
    "interface",
    "enum",
    "struct",
    "impl",
    "trait",
    "mod",
    "module",
    "namespace",
    "async",
    "await",
    "abstract",
    "import",
    "from",
    "package",
    "use",
    "return",
    "if",
    "else",
    "for",
    "while",
    "match",
    "switch",
    "new",
    "typeof",
    "void",
    "delete",
    "throw",
    "try",
    "yield",
    "unsafe",
    "extern",
    "macro_rules",
    "union",
];

/// Where the identifier `text` starts with ends (0: it starts with none).
fn ident_end(text: &str) -> usize {
    text.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declaration_binds_the_names_before_its_type_or_value() {
        assert_eq!(
            bound("var defaultTypes = []string{", false),
            ["defaultTypes"]
        );
        assert_eq!(bound("pub static LIMITS: &[u32] = &[", false), ["LIMITS"]);
        assert_eq!(bound("pub(crate) const MAX: usize = 3;", false), ["MAX"]);
        assert_eq!(bound("export const table = {", false), ["table"]);
        assert_eq!(bound("LIMIT: int = 3", false), ["LIMIT"]);
        assert_eq!(bound("A, B = 1, 2", false), ["A", "B"]);
        assert_eq!(bound("const { a, b } = load()", false), ["a", "b"]);
        assert!(bound("\"text/html\",", false).is_empty());
        assert!(bound("if DEBUG:", false).is_empty());
        assert!(bound("module.exports = {", false).is_empty());
        assert!(bound("check(LIMIT)", false).is_empty());
        assert_eq!(bound("limit := 3", false), ["limit"]);
        assert!(bound("export function foo(x: number): number {", false).is_empty());
        assert!(bound("pub fn compressible(t: &str) -> bool {", false).is_empty());
        assert!(bound("type Alias = string", false).is_empty());
    }

    #[test]
    fn a_line_inside_a_literal_is_named_by_its_declaration() {
        let text = [
            "package m",
            "",
            "var defaultTypes = []string{",
            "\t\"text/html\",",
            "\t\"text/css\",",
            "}",
        ];
        assert_eq!(declared_names(&text, 5), ["defaultTypes"]);
        let grouped = [
            "var (",
            "\tA = 1",
            "\tB = []string{",
            "\t\t\"x\",",
            "\t}",
            ")",
        ];
        assert_eq!(declared_names(&grouped, 4), ["B"]);
        assert_eq!(declared_names(&grouped, 2), ["A"]);
        let consts = ["const (", "\tA = iota", "\tB", ")"];
        assert_eq!(declared_names(&consts, 3), ["B"]);
    }
}
