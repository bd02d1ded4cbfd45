//! Changed lines outside every anchored symbol's extent that still reach
//! an anchored symbol, so a hunk holding one is never quiet:
//!
//! - an **owner's own lines**: a line of a symbol enclosing an anchored one
//!   that lies in none of its members (a class line with its bases, the
//!   owner's attributes and decorators, class-level statements), when the
//!   owner's program changed (a comment there stays formatting);
//! - a **Rust inner attribute** (`#![cfg(...)]` compiles the module out);
//! - a **Python or JavaScript/TypeScript module-level statement** that is
//!   not a definition, an assignment or an import (`raise`, a guard `if`,
//!   `try`, `with`, a call): it may stop the module from loading or change
//!   what the anchor does. At column 0 any line but those (and closers,
//!   comments, strings) counts; an indented line outside every symbol
//!   counts when it starts a statement by a keyword (`raise`, `if`,
//!   `throw`...), so a multi-line constant's lines stay outside.

use super::{Lang, Outline, symbols};

/// Python statements that may stop a module or guard what follows.
const PY_STATEMENTS: &[&str] = &[
    "raise", "assert", "if", "elif", "else", "try", "except", "finally", "with", "for", "while",
    "del",
];

/// Python line starts that define, import or are no statement.
const PY_QUIET: &[&str] = &["def", "class", "import", "from", "async def", "@"];

/// JavaScript/TypeScript statements that may stop a module or guard.
const JS_STATEMENTS: &[&str] = &[
    "throw", "if", "else", "try", "catch", "finally", "for", "while", "do", "switch", "with",
    "await",
];

/// JavaScript/TypeScript line starts that declare, import or export.
const JS_QUIET: &[&str] = &[
    "import",
    "export",
    "function",
    "async function",
    "class",
    "abstract class",
    "const",
    "let",
    "var",
    "type",
    "interface",
    "enum",
    "declare",
    "namespace",
    "@",
    "*",
];

/// Whether one side's changed `lines` (of `text`, outlined as `outline`)
/// reach the governed symbols (`governed`, per symbol of `outline`) from
/// outside their extents, as the module header says. `other` is the
/// other side's outline: an owner whose program is the same on both
/// sides changed in comments only.
pub(super) fn reaches(
    lang: Lang,
    outline: &Outline,
    other: &Outline,
    governed: &[bool],
    text: &[&str],
    lines: &[symbols::Line],
) -> bool {
    let owners = owners(outline, governed);
    lines.iter().any(|&(n, blank)| {
        if blank {
            return false;
        }
        let own_line = owners.iter().any(|&o| {
            outline.symbols[o].contains(n)
                && !outline
                    .symbols
                    .iter()
                    .any(|c| c.parent == Some(o) && c.contains(n))
                && !same_program(outline, other, o)
        });
        let Some(line) = text.get(n.saturating_sub(1) as usize) else {
            return own_line;
        };
        let outside = !outline.symbols.iter().any(|s| s.contains(n));
        own_line
            || (lang == Lang::Rust && line.trim_start().starts_with("#!["))
            || (outside && module_statement(lang, line))
    })
}

/// The symbols enclosing a governed symbol, not governed themselves.
fn owners(outline: &Outline, governed: &[bool]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, s) in outline.symbols.iter().enumerate() {
        if governed.get(i) != Some(&true) {
            continue;
        }
        let mut parent = s.parent;
        while let Some(p) = parent {
            if governed.get(p) != Some(&true) && !out.contains(&p) {
                out.push(p);
            }
            parent = outline.symbols[p].parent;
        }
    }
    out
}

/// Whether symbol `o` of `outline` has a namesake in `other` with the
/// same program.
fn same_program(outline: &Outline, other: &Outline, o: usize) -> bool {
    let s = &outline.symbols[o];
    other
        .symbols
        .iter()
        .any(|t| t.name == s.name && t.hash == s.hash)
}

/// Whether `line`, outside every symbol, is a module-level statement that
/// is not a definition, an assignment or an import.
fn module_statement(lang: Lang, line: &str) -> bool {
    let (statements, quiet): (&[&str], &[&str]) = match lang {
        Lang::Python => (PY_STATEMENTS, PY_QUIET),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => (JS_STATEMENTS, JS_QUIET),
        Lang::Rust | Lang::Go => return false,
    };
    let body = line.trim_start();
    let starts = |w: &&str| {
        body.strip_prefix(*w)
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
            || (*w == "@" || *w == "*") && body.starts_with(*w)
    };
    if statements.iter().any(starts) {
        return true;
    }
    let indented = body.len() != line.len();
    let neutral = body.is_empty()
        || body.starts_with(['#', ')', ']', '}', '"', '\'', '`', ','])
        || body.starts_with("//")
        || body.starts_with("/*")
        || quiet.iter().any(starts)
        || assignment(body);
    !indented && !neutral
}

/// Whether `line` holds an assignment: an `=` outside brackets and strings
/// that is no comparison (`==`, `!=`, `<=`, `>=`) nor an arrow or a walrus,
/// or an update (`++`, `--`).
fn assignment(line: &str) -> bool {
    let bytes = line.as_bytes();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate() {
        if let Some(q) = quote {
            if b == q {
                quote = None;
            }
            continue;
        }
        match b {
            b'"' | b'\'' | b'`' => quote = Some(b),
            b'#' => return false,
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            // An update (`n++`, `--n`) writes its operand like `n += 1`.
            b'+' | b'-' if depth == 0 && bytes.get(i + 1) == Some(&b) => return true,
            b'=' if depth == 0 => {
                let before = i.checked_sub(1).map(|j| bytes[j]);
                let after = bytes.get(i + 1).copied();
                let comparison = matches!(before, Some(b'=' | b'!' | b'<' | b'>' | b':'))
                    || matches!(after, Some(b'=' | b'>'));
                if !comparison {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_statements_are_told_from_definitions_and_assignments() {
        for line in [
            "raise ImportError('x')",
            "if DEBUG:",
            "sys.exit(1)",
            "check()",
            "    raise X",
        ] {
            assert!(module_statement(Lang::Python, line), "{line}");
        }
        for line in [
            "LIMIT = 1",
            "x: int = 2",
            "import os",
            "from a import b",
            "def f():",
            "    'k': 1,",
            "}",
            "# note",
            "__all__ += ['f']",
        ] {
            assert!(!module_statement(Lang::Python, line), "{line}");
        }
        assert!(module_statement(Lang::JavaScript, "throw new Error('x');"));
        assert!(module_statement(Lang::JavaScript, "init();"));
        assert!(!module_statement(Lang::JavaScript, "const LIMIT = 1;"));
        assert!(!module_statement(Lang::JavaScript, "n++;"));
        assert!(!module_statement(
            Lang::JavaScript,
            "module.exports = { f };"
        ));
        assert!(!module_statement(Lang::JavaScript, " * A doc line."));
        assert!(!module_statement(Lang::Go, "panic(1)"));
    }
}
