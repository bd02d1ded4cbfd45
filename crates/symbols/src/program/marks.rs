//! Per language, the marks a token carries beyond its kind and text: the
//! newlines where a statement may end, Python's indentation, what a `;`
//! or a trailing comma means (the rules in `mod.rs`'s header).

use super::*;

/// Every token under `root` in the order of the file: leaves, literals
/// (one token each) and comments.
pub(super) fn tokens<'t>(config: &Config, root: tree_sitter::Node<'t>) -> Vec<Tok<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![(root, None)];
    let mut cursor = root.walk();
    let mut children = Vec::new();
    while let Some((n, parent)) = stack.pop() {
        let comment = config.comments.contains(&n.kind());
        if comment || n.child_count() == 0 || is_literal(n.kind()) {
            out.push(Tok {
                node: n,
                parent,
                comment,
            });
            continue;
        }
        children.clear();
        children.extend(n.children(&mut cursor));
        stack.extend(children.iter().rev().map(|c| (*c, Some(n))));
    }
    out
}

/// The index of the token before `i` and after it that are not comments.
pub(super) fn neighbours(toks: &[Tok]) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
    let mut prev = vec![None; toks.len()];
    let mut next = vec![None; toks.len()];
    let mut last = None;
    for (i, t) in toks.iter().enumerate() {
        prev[i] = last;
        if !t.comment {
            last = Some(i);
        }
    }
    let mut last = None;
    for (i, t) in toks.iter().enumerate().rev() {
        next[i] = last;
        if !t.comment {
            last = Some(i);
        }
    }
    (prev, next)
}

/// The bytes between token `p` (or the start) and token `i`.
pub(super) fn gap<'b>(toks: &[Tok], bytes: &'b [u8], p: Option<usize>, i: usize) -> &'b [u8] {
    let from = p.map_or(0, |p| toks[p].node.end_byte());
    &bytes[from..toks[i].node.start_byte().max(from)]
}

/// Whether `gap` holds a JavaScript line terminator (LF, CR, U+2028, U+2029).
pub(super) fn js_line_break(gap: &[u8]) -> bool {
    gap.iter().any(|&b| b == b'\n' || b == b'\r')
        || gap
            .windows(3)
            .any(|w| w == "\u{2028}".as_bytes() || w == "\u{2029}".as_bytes())
}

/// Whether `text` holds a carriage return not followed by a line feed.
pub(super) fn lone_cr(text: &[u8]) -> bool {
    text.iter()
        .enumerate()
        .any(|(i, &b)| b == b'\r' && text.get(i + 1) != Some(&b'\n'))
}

/// A trailing comma the language folds: before a closer, after an element.
pub(super) fn trailing_comma(
    toks: &[Tok],
    bytes: &[u8],
    p: Option<usize>,
    n: Option<usize>,
) -> bool {
    let Some(n) = n else { return false };
    let closer = matches!(toks[n].text(bytes), b")" | b"]" | b"}" | b">");
    let after_element =
        p.is_some_and(|p| !matches!(toks[p].text(bytes), b"," | b"(" | b"[" | b"{" | b"<" | b"|"));
    closer && after_element
}

pub(super) fn js_marks(toks: &[Tok], bytes: &[u8]) -> HashMap<usize, Mark, IdHash> {
    let (prev, next) = neighbours(toks);
    let mut marks: HashMap<usize, Mark, IdHash> = HashMap::default();
    for (i, t) in toks.iter().enumerate() {
        let text = t.text(bytes);
        let mut mark = Mark::default();
        if t.comment {
            mark.keep = js_code_comment(text);
        } else {
            let parent = t.parent_kind();
            let anonymous = !t.node.is_named();
            if anonymous && text == b";" {
                // A contextual word standing alone as its statement or
                // class member (`static;`, `let;`), not one ending a longer
                // one (`return type;`).
                let after_contextual = prev[i].is_some_and(|p| {
                    let alone = prev[p].is_none_or(|q| {
                        matches!(toks[q].text(bytes), b";" | b"{" | b"}")
                            || js_line_break(gap(toks, bytes, Some(q), p))
                    });
                    alone
                        && JS_CONTEXTUAL
                            .iter()
                            .any(|w| w.as_bytes() == toks[p].text(bytes))
                });
                mark.drop = !after_contextual
                    && (matches!(parent, "interface_body" | "object_type")
                        || next[i].is_none_or(|n| js_may_end_before(toks[n].text(bytes))));
            } else if anonymous && text == b"," {
                mark.drop = matches!(parent, "interface_body" | "object_type")
                    || trailing_comma(toks, bytes, prev[i], next[i]);
            }
            // A restricted word ends its statement when a line break, a
            // `;`, a `}` or the end follows it: the mark is on the word.
            let restricted_word =
                anonymous && JS_RESTRICTED_AFTER.iter().any(|w| w.as_bytes() == text);
            if restricted_word {
                let ends = match next[i] {
                    None => true,
                    Some(n) => {
                        matches!(toks[n].text(bytes), b";" | b"}")
                            || js_line_break(gap(toks, bytes, Some(i), n))
                    }
                };
                mark.newline = Some(ends);
            }
            // `++` and `--` only as postfix operators (after their operand:
            // a prefix one may follow a line break, `x =` newline `++y`).
            let postfix = t.parent.and_then(|p| p.child(0)).map(|c| c.id()) != Some(t.node.id());
            let before_restricted = (anonymous
                && JS_RESTRICTED_BEFORE.iter().any(|w| w.as_bytes() == text)
                && (!matches!(text, b"++" | b"--") || postfix))
                || (text == b"!" && parent == "non_null_expression");
            if before_restricted {
                mark.newline = Some(js_line_break(gap(toks, bytes, prev[i], i)));
            }
        }
        if mark.drop || mark.keep || mark.newline.is_some() {
            marks.insert(t.node.id(), mark);
        }
    }
    marks
}

/// Inner nodes whose parentheses fold wherever they stand: a name, `this`,
/// a JSX element (a primary expression; prettier wraps a multi-line one).
pub(super) const JS_ATOMS: &[&str] = &[
    "identifier",
    "this",
    "jsx_element",
    "jsx_self_closing_element",
    "jsx_fragment",
];

/// Words that are names in some places and keywords in others: a `;` or a
/// line break after one decides which (`static;` is a field, `static`
/// newline `x` a static member; `let;` an expression, `let` newline `x` a
/// declaration), so a `;` after one is never folded.
pub(super) const JS_CONTEXTUAL: &[&str] = &[
    "static",
    "get",
    "set",
    "let",
    "async",
    "accessor",
    "declare",
    "abstract",
    "readonly",
    "public",
    "private",
    "protected",
    "override",
    "yield",
    "await",
    "of",
    "type",
    "module",
    "namespace",
    "global",
    "asserts",
    "is",
    "keyof",
    "infer",
    "unique",
    "satisfies",
    "as",
];

/// Whether a JavaScript statement ends before a line starting with `next`
/// whatever separates them: no expression continues with it.
pub(super) fn js_may_end_before(next: &[u8]) -> bool {
    let Some(&first) = next.first() else {
        return true;
    };
    let word = first.is_ascii_alphabetic() || matches!(first, b'_' | b'$' | b'\\') || first >= 0x80;
    if word {
        return !JS_CONTINUING.iter().any(|w| w.as_bytes() == next);
    }
    first.is_ascii_digit() || matches!(first, b'"' | b'\'' | b'{' | b'}' | b'@' | b'#')
}

/// A JavaScript/TypeScript comment a tool may read as code: a pragma or
/// annotation (`@` or `#` anywhere: `/*#__PURE__*/`, `/*@__KEY__*/`,
/// `@jsx`, `@ts-expect-error`, `// @refresh reset`, `#__NO_SIDE_EFFECTS__`),
/// a bundler's magic comment (webpack, turbopack, vite, rollup, esbuild,
/// parcel), a source map, a triple-slash directive. On the side of
/// showing: a plain comment that mentions one is kept too.
pub(super) fn js_code_comment(text: &[u8]) -> bool {
    let text = String::from_utf8_lossy(text).to_ascii_lowercase();
    text.contains('@')
        || text.contains('#')
        || text.contains("__")
        || [
            "webpack",
            "turbopack",
            "vite",
            "rollup",
            "esbuild",
            "parcel",
            "sourcemappingurl",
            "sourceurl",
            "eslint",
            "istanbul",
            "c8 ",
            "prettier-ignore",
        ]
        .iter()
        .any(|p| text.contains(p))
        || text.starts_with("///")
}

pub(super) fn python_marks(toks: &[Tok], bytes: &[u8]) -> HashMap<usize, Mark, IdHash> {
    let (prev, next) = neighbours(toks);
    let mut marks: HashMap<usize, Mark, IdHash> = HashMap::default();
    let mut depth = 0usize;
    let mut tabs = false;
    let mut first = true;
    for (i, t) in toks.iter().enumerate() {
        let text = t.text(bytes);
        let mut mark = Mark::default();
        if t.comment {
            let row = t.node.start_position().row;
            let body = text.strip_prefix(b"#").unwrap_or(text).trim_ascii_start();
            mark.keep = (row == 0 && text.starts_with(b"#!"))
                || (row <= 1 && python_coding(text))
                || body.starts_with(b"type:");
        } else {
            let anonymous = !t.node.is_named();
            if depth == 0 {
                let g = gap(toks, bytes, prev[i], i);
                let semi = prev[i].is_some_and(|p| toks[p].text(bytes) == b";");
                if !first {
                    mark.newline = Some(semi || python_logical_newline(g));
                }
                if first || semi || python_logical_newline(g) {
                    // The statement's indentation: its line's leading
                    // whitespace (after a `;`, the line it shares).
                    let start = t.node.start_byte();
                    let from = bytes[..start]
                        .iter()
                        .rposition(|&b| b == b'\n')
                        .map_or(0, |k| k + 1);
                    let end = from
                        + bytes[from..start]
                            .iter()
                            .take_while(|&&b| matches!(b, b' ' | b'\t' | 0x0c))
                            .count();
                    tabs |= bytes[from..end].iter().any(|&b| b == b'\t' || b == 0x0c);
                    mark.indent = Some((from, end));
                }
                first = false;
            }
            if anonymous && text == b";" {
                mark.drop = true;
            } else if anonymous
                && matches!(text, b"(" | b")")
                && t.parent_kind() == "import_from_statement"
            {
                // `from a import (b, c)` is `from a import b, c`.
                mark.drop = true;
            } else if anonymous && text == b"," {
                // Only where a trailing comma means nothing: a call's
                // arguments (not a lone generator's, which then stops
                // parsing), parameters, a list, a dict, a set. A tuple's,
                // a subscript's or a type's (`F[a,]`) is the key's shape.
                let container = match t.parent_kind() {
                    "argument_list" => !t.parent.is_some_and(|p| {
                        let mut c = p.walk();
                        p.named_children(&mut c)
                            .any(|a| a.kind() == "generator_expression")
                    }),
                    "parameters"
                    | "lambda_parameters"
                    | "list"
                    | "dictionary"
                    | "set"
                    | "import_from_statement" => true,
                    // A tuple of two or more: `(a, b,)` is `(a, b)`; `(a,)`
                    // is no `(a)`.
                    "tuple" => t.parent.is_some_and(|p| {
                        let mut c = p.walk();
                        p.named_children(&mut c)
                            .filter(|e| e.kind() != "comment")
                            .count()
                            >= 2
                    }),
                    _ => false,
                };
                mark.drop = container && trailing_comma(toks, bytes, prev[i], next[i]);
            }
            match text {
                b"(" | b"[" | b"{" if anonymous => depth += 1,
                b")" | b"]" | b"}" if anonymous => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        marks.insert(t.node.id(), mark);
    }
    // Every logical line's indentation is compared as written: tree-sitter
    // takes a dedent to a level no block opened (CPython's IndentationError)
    // and tabs CPython refuses (TabError), so its blocks alone prove
    // nothing. A reformat that re-indents (two spaces to four) is shown.
    let _ = tabs;
    marks.retain(|_, m| m.drop || m.keep || m.newline.is_some() || m.indent.is_some());
    marks
}

/// Whether a Python comment is an encoding declaration (`coding[:=]`).
pub(super) fn python_coding(text: &[u8]) -> bool {
    text.windows(7)
        .any(|w| w.starts_with(b"coding") && matches!(w[6], b':' | b'='))
}

/// Whether the bytes between two Python tokens outside brackets end a
/// logical line: a newline not escaped by a `\` (comments skipped).
pub(super) fn python_logical_newline(gap: &[u8]) -> bool {
    let mut in_comment = false;
    let mut escaped = false;
    for (i, &b) in gap.iter().enumerate() {
        // A lone `\r` is a newline to CPython.
        let b = if b == b'\r' && gap.get(i + 1) != Some(&b'\n') {
            b'\n'
        } else {
            b
        };
        match b {
            b'\n' if !escaped => return true,
            b'\n' => {
                escaped = false;
                in_comment = false;
            }
            b'#' => in_comment = true,
            b'\\' if !in_comment => escaped = true,
            b'\r' => {}
            _ if !in_comment => escaped = false,
            _ => {}
        }
    }
    false
}

/// Whether a Go comment holds a deprecation notice: a line (its `//`,
/// `/*`, `*` and blanks aside) starting `Deprecated:`, the paragraph
/// `go doc` and the linters read.
fn go_deprecation(text: &[u8]) -> bool {
    text.split(|b| *b == b'\n').any(|line| {
        let at = line
            .iter()
            .position(|b| !matches!(b, b'/' | b'*' | b' ' | b'\t'))
            .unwrap_or(line.len());
        line[at..].starts_with(b"Deprecated:")
    })
}

/// Whether a Go comment is an example's output block: its text (the
/// `//` or `/*` and blanks aside) starts `Output:` or `Unordered output:`,
/// case-insensitive as `go test` reads it.
fn go_example_output(text: &[u8]) -> bool {
    let body = text.get(2..).unwrap_or_default();
    let at = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    let body = body[at..].to_ascii_lowercase();
    body.starts_with(b"output:") || body.starts_with(b"unordered output:")
}

pub(super) fn go_marks(toks: &[Tok], bytes: &[u8]) -> HashMap<usize, Mark, IdHash> {
    let (prev, next) = neighbours(toks);
    let cgo = toks.iter().any(|t| {
        t.node.kind() == "interpreted_string_literal"
            && t.text(bytes) == b"\"C\""
            && t.parent_kind() == "import_spec"
    });
    let mut marks: HashMap<usize, Mark, IdHash> = HashMap::default();
    for (i, t) in toks.iter().enumerate() {
        let text = t.text(bytes);
        let mut mark = Mark::default();
        if t.comment {
            mark.keep = cgo
                || [
                    &b"//go:"[..],
                    b"//line ",
                    b"/*line ",
                    b"// +build",
                    b"//+build",
                    b"//export ",
                    b"//extern ",
                ]
                .iter()
                .any(|p| text.starts_with(p))
                // A deprecation notice is read by tools (`go doc`, gopls,
                // staticcheck's SA1019): a doc comment gaining one is code.
                || go_deprecation(text)
                // An example's `// Output:` is its assertion (`go test`).
                || go_example_output(text);
        } else {
            let ends_line = prev[i].is_some_and(|p| go_ends_line(&toks[p], bytes));
            // Import specs are a set: how they are separated is no matter.
            let spec_start = t.parent.is_some_and(|p| {
                p.kind() == "import_spec" && p.start_byte() == t.node.start_byte()
            });
            // An explicit `;` is what the newline after such a token
            // inserts: dropped, and the next token marked as after a newline.
            let after_semicolon = prev[i].is_some_and(|p| {
                !toks[p].node.is_named()
                    && toks[p].text(bytes) == b";"
                    && prev[p].is_some_and(|q| go_ends_line(&toks[q], bytes))
            });
            if (ends_line || after_semicolon) && !spec_start {
                mark.newline =
                    Some(after_semicolon || gap(toks, bytes, prev[i], i).contains(&b'\n'));
            }
            if !t.node.is_named() && text == b"," {
                mark.drop = trailing_comma(toks, bytes, prev[i], next[i]);
            } else if !t.node.is_named() && text == b";" {
                mark.drop = prev[i].is_some_and(|p| go_ends_line(&toks[p], bytes));
            }
        }
        if mark.drop || mark.keep || mark.newline.is_some() {
            marks.insert(t.node.id(), mark);
        }
    }
    marks
}

/// Whether a newline after `tok` ends a Go statement (the semicolon rule).
pub(super) fn go_ends_line(tok: &Tok, bytes: &[u8]) -> bool {
    tok.node.is_named()
        || matches!(
            tok.text(bytes),
            b"break"
                | b"continue"
                | b"fallthrough"
                | b"return"
                | b"++"
                | b"--"
                | b")"
                | b"]"
                | b"}"
        )
}

pub(super) fn rust_marks(toks: &[Tok], bytes: &[u8]) -> HashMap<usize, Mark, IdHash> {
    let (prev, next) = neighbours(toks);
    let mut marks: HashMap<usize, Mark, IdHash> = HashMap::default();
    for (i, t) in toks.iter().enumerate() {
        let text = t.text(bytes);
        let mut mark = Mark::default();
        if t.comment {
            mark.keep = text.starts_with(b"///")
                || text.starts_with(b"//!")
                || (text.starts_with(b"/**") && text != b"/**/")
                || text.starts_with(b"/*!");
        } else if !t.node.is_named() && text == b"," {
            let parent = t.parent_kind();
            let tuple_like = matches!(
                parent,
                "tuple_type"
                    | "tuple_expression"
                    | "tuple_pattern"
                    | "token_tree"
                    | "token_tree_pattern"
                    | "token_repetition"
                    | "token_repetition_pattern"
                    | "macro_invocation"
            );
            mark.drop = !tuple_like && trailing_comma(toks, bytes, prev[i], next[i]);
        }
        if mark.drop || mark.keep {
            marks.insert(t.node.id(), mark);
        }
    }
    marks
}
