//! What of a syntax tree is the program: the one hashing walk behind every
//! semantic hash (a file's and each symbol's), so "formatting only" means
//! "the same program", never "the same tokens once whitespace and comments
//! are gone".
//!
//! The rule, binding: two contents hash equal only when the change between
//! them provably cannot alter the program; when unsure, they differ. The
//! walk hashes each named node's kind around its children and each token's
//! kind and text, and on top of that keeps, per language, what the language
//! treats as code, and folds only the differences proved equivalent:
//!
//! Kept (a change to them is a change):
//! - **Newlines where a statement can end.** JavaScript/TypeScript:
//!   whether the statement ends right after `return`, `throw`, `break`,
//!   `continue`, `yield`, `async` and the TypeScript modifiers and
//!   declaration words (restricted productions, and TypeScript's "on the
//!   same line" checks): a line break, `;`, `}` or the end next; a newline
//!   before a postfix `++` or `--` (a prefix one may follow a line break),
//!   `=>`, `as`, `satisfies` and a non-null `!`. Go: a
//!   newline after an identifier, a literal, `break` `continue`
//!   `fallthrough` `return`, `++` `--` `)` `]` `}` (the semicolon rule; a
//!   general comment holding a newline counts as one; an explicit `;`
//!   after such a token is the same as the newline). Python: a logical
//!   newline (outside brackets, not after a `\` continuation) before every
//!   token outside brackets, `;` counting as one.
//! - **Python indentation characters**: when any logical line of the file
//!   is indented with a tab or a form feed, every logical line's
//!   indentation is hashed exactly (a tab can raise `TabError`); with
//!   spaces only, the block structure of the tree says it all.
//! - **Whitespace inside strings, templates and JSX text**: a literal is
//!   one token; JSX text is hashed as JSX compiles it (lines trimmed,
//!   blank lines dropped, joined by one space, as Babel and TypeScript do),
//!   computed from the bytes between the element's children, so text
//!   tree-sitter did not make a node of is never lost.
//! - **Comments that are code**: Rust doc comments (`///`, `//!`, `/**`,
//!   `/*!`: doctests run); Go directives (`//go:`, `//line`, `/*line`,
//!   `// +build`, `//export`, `//extern`) and, in a file that imports
//!   `"C"`, every comment (the cgo preamble); Python's coding line (lines
//!   1-2), a shebang and `# type:` comments; JavaScript/TypeScript bundler
//!   and compiler pragmas (`__PURE__`, `__NO_SIDE_EFFECTS__`, `@jsx*`,
//!   `@ts-*`, triple-slash directives, `webpack*` magic comments,
//!   `@vite-ignore`, `@flow`, `sourceMappingURL`). A shebang that the
//!   grammar parses as its own node (Rust, JavaScript) is a token.
//!
//! Folded (proved equivalent, what the formatters change):
//! - A **trailing comma** directly before a closing `)` `]` `}` `>` that
//!   follows an element (not a `,` or an opener: `[,]` is an array of one
//!   hole), except where a trailing comma makes a tuple or a tuple index:
//!   Python subscripts (`d[a,]`), Rust tuples, tuple types and patterns,
//!   and Rust macro token trees (a macro may match on it).
//! - A JavaScript/TypeScript **`;`** whose next token could never continue
//!   the statement (a word other than `in`, `instanceof`, `as`,
//!   `satisfies`, `extends`, `implements`, `of`, `is`; a string or number
//!   start; `{` `}` `@` `#`; the end): automatic semicolon insertion puts
//!   one there, and tree-sitter's tree shows where it did not. Member
//!   separators (`,` `;`) of a TypeScript interface or object type.
//!   Python's `;` (it separates statements like a logical newline), and
//!   the parentheses around the names of a `from ... import (...)`.
//! - **Redundant parentheses** around an expression: the tree's nesting
//!   keeps the grouping. Python: always (parentheses are not in its AST)
//!   but around a `:=` (a statement needs them); an assignment target in
//!   parentheses with no comma (`(a) = b`) is no tuple either.
//!   JavaScript/TypeScript: unless they hold a member access, a call or a
//!   subscript (`(a?.b).c` is not `a?.b.c`), a string or template (a
//!   parenthesised `"use strict"` is no directive) or a sequence;
//!   TypeScript parenthesised types. An arrow function's lone plain
//!   parameter in parentheses (`(x) => x` is `x => x`), `new F` and
//!   `new F()`, a leading `|` or `&` of a union or intersection type.
//! - **Quotes**: a string whose body holds no quote character is the same
//!   string in either quote (JavaScript, TypeScript, Python, including
//!   triple quotes); Python string prefixes are case-insensitive and `u`
//!   is the default. An object literal's key written as a string that is
//!   a plain identifier is that identifier.
//! - **Numbers**: letters in a number are case-insensitive (JavaScript,
//!   Python, Go: `0XFF` is `0xff`, `1E5` is `1e5`); a plain JavaScript
//!   decimal is its value (`0.50`, `.5`, `5.` and `5.0`: not a legacy
//!   octal).
//! - **Go imports**: the specs of one import block in any order.

use std::collections::HashMap;

use super::lang::{Config, Lang};
use super::parse::IdHash;

/// What the walk knows of a token beyond its kind and text, computed once
/// per tree from the whole token stream (it needs the neighbours).
#[derive(Debug, Clone, Copy, Default)]
struct Mark {
    /// Left out of the hash (a folded `;` or trailing comma).
    drop: bool,
    /// A comment kept as code.
    keep: bool,
    /// Whether a newline precedes the token, where that is code.
    newline: Option<bool>,
    /// The Python indentation before it, as a byte range, when kept.
    indent: Option<(usize, usize)>,
}

/// A parsed content, its tokens marked: what [`Program::hash`] walks.
pub(super) struct Program<'a> {
    config: &'a Config,
    bytes: &'a [u8],
    marks: HashMap<usize, Mark, IdHash>,
}

/// One token of the stream, in the order of the file.
struct Tok<'t> {
    node: tree_sitter::Node<'t>,
    /// Its parent, found by the walk (tree-sitter's own `parent()` searches
    /// from the root each time: quadratic on a file of many statements).
    parent: Option<tree_sitter::Node<'t>>,
    comment: bool,
}

impl Tok<'_> {
    fn parent_kind(&self) -> &'static str {
        self.parent.map_or("", |p| p.kind())
    }
}

impl<'t> Tok<'t> {
    fn text<'b>(&self, bytes: &'b [u8]) -> &'b [u8] {
        &bytes[self.node.start_byte()..self.node.end_byte()]
    }
}

/// Markers in the hashed stream, outside any kind id's use of the bytes.
const NEWLINE: u8 = 0xF1;
const INDENT: u8 = 0xF3;
const JSX_TEXT: u8 = 0xF4;
const EMPTY_ARGUMENTS: &[u8] = b"\xF5()";
const CLOSE: &[u8] = b")";

/// Words after which a JavaScript/TypeScript newline is code.
const JS_RESTRICTED_AFTER: &[&str] = &[
    "return",
    "throw",
    "break",
    "continue",
    "yield",
    "async",
    "abstract",
    "declare",
    "public",
    "private",
    "protected",
    "readonly",
    "static",
    "override",
    "accessor",
    "type",
    "namespace",
    "module",
    "interface",
    "global",
    "get",
    "set",
    "let",
    "enum",
];

/// Tokens before which a JavaScript/TypeScript newline is code.
const JS_RESTRICTED_BEFORE: &[&str] = &["++", "--", "=>", "as", "satisfies"];

/// Words that may continue a JavaScript/TypeScript statement on the next
/// line: a `;` before them is never folded.
const JS_CONTINUING: &[&str] = &[
    "in",
    "instanceof",
    "as",
    "satisfies",
    "extends",
    "implements",
    "of",
    "is",
];

impl<'a> Program<'a> {
    /// The program of `bytes` parsed as the tree under `root` (the whole
    /// file: the marks need every token's neighbours).
    pub(super) fn of(
        config: &'a Config,
        root: tree_sitter::Node<'a>,
        bytes: &'a [u8],
    ) -> Program<'a> {
        let toks = tokens(config, root);
        let marks = match config.lang {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => js_marks(&toks, bytes),
            Lang::Python => python_marks(&toks, bytes),
            Lang::Go => go_marks(&toks, bytes),
            Lang::Rust => rust_marks(&toks, bytes),
        };
        Program {
            config,
            bytes,
            marks,
        }
    }

    fn mark(&self, node: tree_sitter::Node) -> Mark {
        self.marks.get(&node.id()).copied().unwrap_or_default()
    }

    /// Whether `node` is a comment kept as code.
    pub(super) fn is_code_comment(&self, node: tree_sitter::Node) -> bool {
        self.mark(node).keep
    }

    /// Feed the program under `node` to `hasher`, leaving out the node
    /// `skip` (a symbol's own name).
    pub(super) fn hash(
        &self,
        node: tree_sitter::Node,
        skip: Option<usize>,
        hasher: &mut blake3::Hasher,
    ) {
        // One contiguous buffer hashed at the end: BLAKE3 of the
        // concatenation equals the streamed updates, and many tiny updates
        // cost far more.
        let mut buf: Vec<u8> = Vec::with_capacity(node.end_byte() - node.start_byte() + 64);
        self.walk(node, skip, &mut buf);
        hasher.update(&buf);
    }

    /// The walk of [`Program::hash`], with an explicit stack (trees nest
    /// deep: a long chain of `+`).
    fn walk(&self, node: tree_sitter::Node, skip: Option<usize>, buf: &mut Vec<u8>) {
        enum Step<'t> {
            /// A node and its parent (the walk knows it; `parent()` searches).
            Enter(tree_sitter::Node<'t>, Option<tree_sitter::Node<'t>>),
            Bytes(Vec<u8>),
            Static(&'static [u8]),
        }
        let mut stack = vec![Step::Enter(node, None)];
        let mut children: Vec<tree_sitter::Node> = Vec::new();
        let mut cursor = node.walk();
        while let Some(step) = stack.pop() {
            let (n, parent) = match step {
                Step::Bytes(b) => {
                    buf.extend_from_slice(&b);
                    continue;
                }
                Step::Static(b) => {
                    buf.extend_from_slice(b);
                    continue;
                }
                Step::Enter(n, parent) => (n, parent),
            };
            if Some(n.id()) == skip {
                continue;
            }
            let kind = n.kind();
            let mark = self.mark(n);
            if self.config.comments.contains(&kind) {
                if mark.keep {
                    self.prefix(mark, buf);
                    self.leaf(n, parent, buf);
                }
                continue;
            }
            if mark.drop {
                continue;
            }
            if let Some((opener, inner)) = self.transparent(n, parent) {
                if let Some(opener) = opener {
                    self.prefix(self.mark(opener), buf);
                }
                stack.push(Step::Enter(inner, Some(n)));
                continue;
            }
            if n.child_count() == 0 || is_literal(kind) {
                self.prefix(mark, buf);
                self.leaf(n, parent, buf);
                continue;
            }
            if kind == "arguments"
                && is_js(self.config.lang)
                && n.named_child_count() == 0
                && parent.is_some_and(|p| p.kind() == "new_expression")
            {
                buf.extend_from_slice(EMPTY_ARGUMENTS);
                continue;
            }
            buf.extend_from_slice(&n.kind_id().to_le_bytes());
            children.clear();
            children.extend(n.children(&mut cursor));
            match kind {
                "import_spec_list" if self.sortable_imports(&children) => {
                    let mut specs: Vec<Vec<u8>> = Vec::new();
                    for c in &children {
                        let mut one = Vec::new();
                        self.walk(*c, skip, &mut one);
                        specs.push(one);
                    }
                    specs.sort();
                    for s in specs {
                        buf.extend_from_slice(&s);
                    }
                    buf.extend_from_slice(CLOSE);
                    continue;
                }
                "jsx_element" => {
                    let steps = self.jsx_children(&children);
                    stack.push(Step::Static(CLOSE));
                    for s in steps.into_iter().rev() {
                        stack.push(match s {
                            JsxPart::Node(c) => Step::Enter(c, Some(n)),
                            JsxPart::Text(t) => Step::Bytes(t),
                        });
                    }
                    continue;
                }
                _ => {}
            }
            stack.push(Step::Static(CLOSE));
            if kind == "new_expression"
                && is_js(self.config.lang)
                && n.child_by_field_name("arguments").is_none()
            {
                stack.push(Step::Static(EMPTY_ARGUMENTS));
            }
            for c in children.iter().rev() {
                stack.push(Step::Enter(*c, Some(n)));
            }
        }
    }

    /// The mark's markers.
    fn prefix(&self, mark: Mark, buf: &mut Vec<u8>) {
        // A newline where it is code is a marker; its absence is none (so
        // a token whose newline is code on one side only, inside brackets
        // on the other, compares by the newline alone).
        if mark.newline == Some(true) {
            buf.push(NEWLINE);
        }
        if let Some((a, b)) = mark.indent {
            buf.push(INDENT);
            buf.extend_from_slice(&((b - a) as u32).to_le_bytes());
            buf.extend_from_slice(&self.bytes[a..b]);
        }
    }

    /// One token: its kind and its text, made canonical where the
    /// language says two spellings are one.
    fn leaf(&self, n: tree_sitter::Node, parent: Option<tree_sitter::Node>, buf: &mut Vec<u8>) {
        let raw = &self.bytes[n.start_byte()..n.end_byte()];
        let lang = self.config.lang;
        let kind = n.kind();
        let mut kind_id = n.kind_id();
        let text: Vec<u8> = if self.config.comments.contains(&kind) {
            kept_comment(raw)
        } else if kind == "string" && is_js(lang) {
            let canon = js_string(raw);
            if let Some(ident) = object_key(n, parent, &canon) {
                kind_id = self
                    .config
                    .language
                    .id_for_node_kind("property_identifier", true);
                ident.to_vec()
            } else {
                canon
            }
        } else if kind == "string" && lang == Lang::Python {
            python_string(raw)
        } else if kind == "number" && is_js(lang) {
            js_number(raw)
        } else if matches!(
            (lang, kind),
            (Lang::Python, "integer" | "float")
                | (
                    Lang::Go,
                    "int_literal" | "float_literal" | "imaginary_literal"
                )
        ) {
            raw.to_ascii_lowercase()
        } else {
            raw.trim_ascii().to_vec()
        };
        buf.extend_from_slice(&kind_id.to_le_bytes());
        buf.extend_from_slice(&(text.len() as u32).to_le_bytes());
        buf.extend_from_slice(&text);
    }

    /// A node hashed as one of its parts: `(opener, inner)`, the opener's
    /// mark carried over to where the inner part starts.
    fn transparent<'t>(
        &self,
        n: tree_sitter::Node<'t>,
        parent: Option<tree_sitter::Node<'t>>,
    ) -> Option<(Option<tree_sitter::Node<'t>>, tree_sitter::Node<'t>)> {
        let lang = self.config.lang;
        let kind = n.kind();
        match kind {
            "parenthesized_expression" | "parenthesized_type"
                if lang == Lang::Python || is_js(lang) =>
            {
                let inner = self.lone_named(n)?;
                // `(y := f())` may stand as a statement, `y := f()` not.
                let keep = (lang == Lang::Python && inner.kind() == "named_expression")
                    || is_js(lang) && !self.js_parentheses_fold(n, parent, inner);
                if keep {
                    return None;
                }
                Some((n.child(0), inner))
            }
            // `(a) = b` assigns `a`: a parenthesised target with no comma
            // is no tuple (CPython's AST has no trace of the parentheses).
            "tuple_pattern" if lang == Lang::Python && n.child_count() == 3 => {
                let inner = self.lone_named(n)?;
                Some((n.child(0), inner))
            }
            "formal_parameters"
                if is_js(lang) && parent.is_some_and(|p| p.kind() == "arrow_function") =>
            {
                let param = self.lone_named(n)?;
                let ident = match param.kind() {
                    "identifier" => param,
                    "required_parameter" if param.child_count() == 1 => {
                        param.child(0).filter(|c| c.kind() == "identifier")?
                    }
                    _ => return None,
                };
                Some((n.child(0), ident))
            }
            "union_type" | "intersection_type" if is_js(lang) && n.child_count() == 2 => {
                if n.child(0)?.is_named() {
                    return None;
                }
                Some((None, n.child(1)?))
            }
            _ => None,
        }
    }

    /// Whether the parentheses `n` (its parent `parent`) around `inner`
    /// fold away in JavaScript/TypeScript. tree-sitter's grammar is more
    /// lenient than the language's (it takes `-a ** 2`, `a && b ?? c`,
    /// `function(){}()` at a statement's start), and parentheses decide
    /// hoisting (`export default (function …)`), optional chains
    /// (`(a?.b!).c`) and precedence, so they fold only around a name or a
    /// JSX element anywhere, and around any expression but a sequence or an
    /// `in` only in a slot that takes a whole expression and gives it to no
    /// operator: a conditional's parts, a `return` or `throw` value, a
    /// variable's initial value, an assignment's right side, a call's
    /// argument, an array's element, a property's value, a spread, a
    /// template's or JSX's `${…}`. Anywhere else a reformat that adds or
    /// drops them is shown.
    fn js_parentheses_fold(
        &self,
        n: tree_sitter::Node,
        parent: Option<tree_sitter::Node>,
        inner: tree_sitter::Node,
    ) -> bool {
        if n.kind() == "parenthesized_type" {
            return matches!(inner.kind(), "type_identifier" | "predefined_type");
        }
        if JS_ATOMS.contains(&inner.kind()) {
            return true;
        }
        let Some(parent) = parent else { return false };
        let is_field =
            |name: &str| parent.child_by_field_name(name).map(|c| c.id()) == Some(n.id());
        let whole_slot = match parent.kind() {
            "ternary_expression"
            | "conditional_expression"
            | "arguments"
            | "array"
            | "spread_element"
            | "template_substitution"
            | "jsx_expression"
            | "return_statement"
            | "throw_statement" => true,
            "variable_declarator" => is_field("value"),
            "assignment_expression" => is_field("right"),
            "pair" => is_field("value"),
            _ => false,
        };
        let text = &self.bytes[inner.start_byte()..inner.end_byte()];
        whole_slot
            && inner.kind() != "sequence_expression"
            && !text.windows(4).any(|w| w == b" in ")
    }

    /// Whether Go import specs (`children` of an `import_spec_list`) may be
    /// compared in any order: in Go, without a comment among them (a
    /// comment belongs to the spec below it: the cgo preamble's place).
    fn sortable_imports(&self, children: &[tree_sitter::Node]) -> bool {
        self.config.lang == Lang::Go
            && !children
                .iter()
                .any(|c| self.config.comments.contains(&c.kind()))
    }

    /// The one named child of `n` that is not a comment, when there is
    /// exactly one.
    fn lone_named<'t>(&self, n: tree_sitter::Node<'t>) -> Option<tree_sitter::Node<'t>> {
        let mut cursor = n.walk();
        let mut found = None;
        for c in n.named_children(&mut cursor) {
            if self.config.comments.contains(&c.kind()) {
                continue;
            }
            if found.is_some() {
                return None;
            }
            found = Some(c);
        }
        found
    }

    /// A JSX element's children: the elements, expressions and tags as
    /// nodes, the text between them as JSX compiles it.
    fn jsx_children<'t>(&self, children: &[tree_sitter::Node<'t>]) -> Vec<JsxPart<'t>> {
        let mut out = Vec::new();
        let mut text_from: Option<usize> = None;
        for c in children {
            let structural = matches!(
                c.kind(),
                "jsx_element"
                    | "jsx_self_closing_element"
                    | "jsx_expression"
                    | "jsx_opening_element"
                    | "jsx_closing_element"
            );
            if structural {
                if let Some(from) = text_from.take() {
                    let text = jsx_text(&self.bytes[from..c.start_byte()]);
                    if !text.is_empty() {
                        let mut t = vec![JSX_TEXT];
                        t.extend_from_slice(&(text.len() as u32).to_le_bytes());
                        t.extend_from_slice(&text);
                        out.push(JsxPart::Text(t));
                    }
                }
                out.push(JsxPart::Node(*c));
                if c.kind() != "jsx_closing_element" {
                    text_from = Some(c.end_byte());
                }
            }
        }
        out
    }
}

/// A part of a JSX element's children.
enum JsxPart<'t> {
    Node(tree_sitter::Node<'t>),
    Text(Vec<u8>),
}

fn is_js(lang: Lang) -> bool {
    matches!(lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript)
}

/// String and character literals: hashed as one token, spaces and all.
pub(super) fn is_literal(kind: &str) -> bool {
    matches!(
        kind,
        "string"
            | "string_literal"
            | "raw_string_literal"
            | "char_literal"
            | "template_string"
            | "interpreted_string_literal"
            | "rune_literal"
    )
}

/// Every token under `root` in the order of the file: leaves, literals
/// (one token each) and comments.
fn tokens<'t>(config: &Config, root: tree_sitter::Node<'t>) -> Vec<Tok<'t>> {
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
fn neighbours(toks: &[Tok]) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
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
fn gap<'b>(toks: &[Tok], bytes: &'b [u8], p: Option<usize>, i: usize) -> &'b [u8] {
    let from = p.map_or(0, |p| toks[p].node.end_byte());
    &bytes[from..toks[i].node.start_byte().max(from)]
}

/// Whether `gap` holds a JavaScript line terminator (LF, CR, U+2028, U+2029).
fn js_line_break(gap: &[u8]) -> bool {
    gap.iter().any(|&b| b == b'\n' || b == b'\r')
        || gap
            .windows(3)
            .any(|w| w == "\u{2028}".as_bytes() || w == "\u{2029}".as_bytes())
}

/// A trailing comma the language folds: before a closer, after an element.
fn trailing_comma(toks: &[Tok], bytes: &[u8], p: Option<usize>, n: Option<usize>) -> bool {
    let Some(n) = n else { return false };
    let closer = matches!(toks[n].text(bytes), b")" | b"]" | b"}" | b">");
    let after_element =
        p.is_some_and(|p| !matches!(toks[p].text(bytes), b"," | b"(" | b"[" | b"{" | b"<" | b"|"));
    closer && after_element
}

fn js_marks(toks: &[Tok], bytes: &[u8]) -> HashMap<usize, Mark, IdHash> {
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
const JS_ATOMS: &[&str] = &[
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
const JS_CONTEXTUAL: &[&str] = &[
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
fn js_may_end_before(next: &[u8]) -> bool {
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
fn js_code_comment(text: &[u8]) -> bool {
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

fn python_marks(toks: &[Tok], bytes: &[u8]) -> HashMap<usize, Mark, IdHash> {
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
fn python_coding(text: &[u8]) -> bool {
    text.windows(7)
        .any(|w| w.starts_with(b"coding") && matches!(w[6], b':' | b'='))
}

/// Whether the bytes between two Python tokens outside brackets end a
/// logical line: a newline not escaped by a `\` (comments skipped).
fn python_logical_newline(gap: &[u8]) -> bool {
    let mut in_comment = false;
    let mut escaped = false;
    for &b in gap {
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

fn go_marks(toks: &[Tok], bytes: &[u8]) -> HashMap<usize, Mark, IdHash> {
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
                .any(|p| text.starts_with(p));
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
fn go_ends_line(tok: &Tok, bytes: &[u8]) -> bool {
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

fn rust_marks(toks: &[Tok], bytes: &[u8]) -> HashMap<usize, Mark, IdHash> {
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

/// A JavaScript string in one quote style when its body holds no quote.
fn js_string(raw: &[u8]) -> Vec<u8> {
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
fn object_key<'s>(
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
fn python_string(raw: &[u8]) -> Vec<u8> {
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
fn js_number(raw: &[u8]) -> Vec<u8> {
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
fn kept_comment(raw: &[u8]) -> Vec<u8> {
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
pub(super) fn layout_is_code(lang: Lang, bytes: &[u8]) -> Option<&'static str> {
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

fn jsx_text(raw: &[u8]) -> Vec<u8> {
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

#[cfg(test)]
mod tests {
    use super::super::{outline, semantic_hash};

    /// Whether `a` and `b`, as contents of `path`, hash as one program
    /// (both parse: a file with errors is never formatting only).
    fn same(path: &str, a: &str, b: &str) -> bool {
        let (x, y) = (
            semantic_hash(path, a.as_bytes()),
            semantic_hash(path, b.as_bytes()),
        );
        // A file whose layout is code is compared by its bytes.
        for text in [a, b] {
            let lang = super::super::Lang::of_path(path).unwrap();
            if super::layout_is_code(lang, text.as_bytes()).is_none() {
                let h = semantic_hash(path, text.as_bytes());
                assert!(h.tokens, "{path} does not parse: {text:?}");
            }
        }
        x == y
    }

    #[track_caller]
    fn differ(path: &str, pairs: &[(&str, &str)]) {
        for (a, b) in pairs {
            assert!(
                !same(path, a, b),
                "{path}: called the same program:\n{a}\n---\n{b}"
            );
        }
    }

    #[track_caller]
    fn equal(path: &str, pairs: &[(&str, &str)]) {
        for (a, b) in pairs {
            assert!(
                same(path, a, b),
                "{path}: not the same program:\n{a}\n---\n{b}"
            );
        }
    }

    #[test]
    fn javascript_restricted_productions_keep_their_newlines() {
        for path in ["a.js", "a.ts", "a.tsx"] {
            differ(
                path,
                &[
                    (
                        "function f(x) { return (x) }\n",
                        "function f(x) { return\n(x) }\n",
                    ),
                    (
                        "function f(x) { return [x] }\n",
                        "function f(x) { return\n[x] }\n",
                    ),
                    (
                        "function f(x) { return `a` }\n",
                        "function f(x) { return\n`a` }\n",
                    ),
                    (
                        "function f(x) { return -1 }\n",
                        "function f(x) { return\n-1 }\n",
                    ),
                    (
                        "function* f(x) { yield (x) }\n",
                        "function* f(x) { yield\n(x) }\n",
                    ),
                    (
                        "function f(x) { throw x }\n",
                        "function f(x) { throw /*\n*/ x }\n",
                    ),
                    ("a: for (;;) { break a }\n", "a: for (;;) { break\na }\n"),
                    ("let a = b\n++c\n", "let a = b++\nc\n"),
                    (
                        "const f = async function () {}\n",
                        "const f = async\nfunction () {}\n",
                    ),
                ],
            );
        }
        equal(
            "a.js",
            &[
                ("const v = ++x\n", "const v =\n  ++x;\n"),
                (
                    "function f() { return }\n",
                    "function f() {\n  return;\n}\n",
                ),
                (
                    "function f(x) { return (x) }\n",
                    "function f(x) {\n  return x;\n}\n",
                ),
                (
                    "function f(x) { return <div/> }\n",
                    "function f(x) {\n  return (\n    <div />\n  );\n}\n",
                ),
            ],
        );
    }

    #[test]
    fn javascript_formatter_changes_are_the_same_program() {
        equal(
            "a.ts",
            &[
                (
                    "const a = {'b': 'c', d: [1,2,],}\nlet f = x => x\nnew Foo\n",
                    "const a = { b: \"c\", d: [1, 2] };\nlet f = (x) => x;\nnew Foo();\n",
                ),
                ("let x = 0.50 + .5 + 0XFF\n", "let x = 0.5 + 0.5 + 0xff;\n"),
                (
                    "interface I { a: string, b: number }\ntype U = | A | B\n",
                    "interface I {\n  a: string;\n  b: number;\n}\ntype U = A | B;\n",
                ),
                ("a = (b + c) * d\nx = (y)\n", "a = (b + c) * d;\nx = y;\n"),
            ],
        );
        differ(
            "a.js",
            &[
                ("x = (a?.b).c\n", "x = a?.b.c\n"),
                ("(\"use strict\");\n", "\"use strict\";\n"),
                ("x = [,]\n", "x = []\n"),
                ("x = 'a b'\n", "x = 'a  b'\n"),
                ("x = `a ${b} c`\n", "x = `a ${b}  c`\n"),
                ("x = 010\n", "x = 10\n"),
                ("a = b;\n(c)\n", "a = b\n(c)\n"),
                ("a = b;\n`c`\n", "a = b\n`c`\n"),
            ],
        );
    }

    #[test]
    fn jsx_text_is_compared_as_it_compiles() {
        differ(
            "a.jsx",
            &[
                ("x = <a> </a>\n", "x = <a></a>\n"),
                ("x = <a>b c</a>\n", "x = <a>b  c</a>\n"),
                ("x = <a>// b</a>\n", "x = <a>// c</a>\n"),
            ],
        );
        equal(
            "a.jsx",
            &[(
                "x = <a>\n    b\n    c\n  </a>\n",
                "x = (\n  <a>\n    b c\n  </a>\n);\n",
            )],
        );
    }

    #[test]
    fn jsx_fragments_and_attributes_keep_their_text() {
        differ(
            "a.tsx",
            &[
                ("x = <>a b</>\n", "x = <>a  b</>\n"),
                ("x = <> </>\n", "x = <></>\n"),
                ("x = <a b='c d' />\n", "x = <a b='c  d' />\n"),
            ],
        );
        equal("a.tsx", &[("x = <a b='c' />\n", "x = <a b=\"c\" />;\n")]);
    }

    #[test]
    fn a_symbols_hash_keeps_what_the_files_keeps() {
        let hash = |src: &str| outline("a.ts", src.as_bytes()).symbols[0].hash;
        assert_ne!(
            hash("export function f(x) {\n  return (x)\n}\n"),
            hash("export function f(x) {\n  return\n  (x)\n}\n")
        );
        assert_eq!(
            hash("export function f(x) {\n  return (x)\n}\n"),
            hash("export function f(x) {\n  return x;\n}\n")
        );
        let go = |src: &str| outline("a.go", src.as_bytes()).symbols[0].hash;
        assert_ne!(
            go("package a\n\nfunc f() int {\n\treturn g(1)\n}\n"),
            go("package a\n\nfunc f() int {\n\treturn g(1\n\t)\n}\n")
        );
    }

    #[test]
    fn comments_that_are_code_count() {
        differ(
            "a.js",
            &[
                ("x = /*#__PURE__*/ f()\n", "x = f()\n"),
                (
                    "/** @jsx h */\nx = <a/>\n",
                    "/** @jsx React.h */\nx = <a/>\n",
                ),
                ("// @ts-ignore\nx = 1\n", "x = 1\n"),
            ],
        );
        differ(
            "a.go",
            &[
                (
                    "//go:build linux\n\npackage a\n",
                    "//go:build darwin\n\npackage a\n",
                ),
                (
                    "package a\n\n//go:embed a.txt\nvar s string\n",
                    "package a\n\n//go:embed b.txt\nvar s string\n",
                ),
                (
                    "package a\n\n// #include <a.h>\nimport \"C\"\n",
                    "package a\n\n// #include <b.h>\nimport \"C\"\n",
                ),
            ],
        );
        equal(
            "a.go",
            &[(
                "package a\n\n// plain\nfunc f() {}\n",
                "package a\n\n// other\nfunc f() {}\n",
            )],
        );
        differ(
            "a.py",
            &[
                ("# coding: latin-1\nx = 1\n", "# coding: utf-8\nx = 1\n"),
                ("x = []  # type: List[int]\n", "x = []  # type: List[str]\n"),
                ("#!/usr/bin/python2\nx = 1\n", "#!/usr/bin/python3\nx = 1\n"),
            ],
        );
        equal("a.py", &[("x = 1  # note\n", "x = 1  # other note\n")]);
        differ(
            "a.rs",
            &[
                (
                    "/// ```\n/// assert!(true);\n/// ```\nfn a() {}\n",
                    "/// ```\n/// assert!(false);\n/// ```\nfn a() {}\n",
                ),
                ("//! a\nfn a() {}\n", "//! b\nfn a() {}\n"),
                (
                    "#!/usr/bin/env a\nfn a() {}\n",
                    "#!/usr/bin/env b\nfn a() {}\n",
                ),
            ],
        );
        equal("a.rs", &[("// a\nfn a() {}\n", "// b\nfn a() {}\n")]);
        // A doc comment is part of its symbol's hash, a plain comment not.
        let doc =
            |d: &str| outline("a.rs", format!("/// {d}\nfn a() {{}}\n").as_bytes()).symbols[0].hash;
        assert_ne!(doc("x"), doc("y"));
        let plain =
            |d: &str| outline("a.rs", format!("// {d}\nfn a() {{}}\n").as_bytes()).symbols[0].hash;
        assert_eq!(plain("x"), plain("y"));
    }

    #[test]
    fn go_newlines_end_statements() {
        differ(
            "a.go",
            &[(
                "package a\n\nfunc f() int {\n\tx := g(a,\n\t\tb)\n\treturn x\n}\n",
                "package a\n\nfunc f() int {\n\tx := g(a,\n\t\tb\n\t)\n\treturn x\n}\n",
            )],
        );
        equal(
            "a.go",
            &[(
                "package a\n\nfunc g() {\n\tfor i := 0; i < 3; i++ { println(i); }\n}\n",
                "package a\n\nfunc g() {\n\tfor i := 0; i < 3; i++ {\n\t\tprintln(i)\n\t}\n}\n",
            )],
        );
        differ(
            "a.go",
            &[(
                "package a\n\nfunc g() {\n\tfor i := 0; i < 3; i++ { println(i) }\n}\n",
                "package a\n\nfunc g() {\n\tfor i := 0; i < 3; i++ { println(i\n) }\n}\n",
            )],
        );
        equal(
            "a.go",
            &[(
                "package a\nimport (\n\"b\"\n\"a\"\n)\nfunc f() int {\nreturn 0X1F\n}\n",
                "package a\n\nimport (\n\t\"a\"\n\t\"b\"\n)\n\nfunc f() int {\n\treturn 0x1f\n}\n",
            )],
        );
    }

    #[test]
    fn python_lines_and_indentation_are_code() {
        differ(
            "a.py",
            &[
                ("if a:\n    b()\n    c()\n", "if a:\n    b()\n\tc()\n"),
                ("if a:\n\tb()\n", "if a:\n        b()\n"),
                ("x = a \\\n  + b\n", "x = a\n+ b\n"),
                ("print(a)\n", "print\n(a)\n"),
                ("d[a,]\n", "d[a]\n"),
                ("x = (a,)\n", "x = (a)\n"),
                ("(a,) = b\n", "(a) = b\n"),
                ("x = 'a b'\n", "x = 'a  b'\n"),
            ],
        );
        equal(
            "a.py",
            &[
                (
                    "if a:\n    b('x', 0XAB, u'y',)\n    c(); d()\n",
                    "if a:\n    b(\"x\", 0xAB, \"y\")\n    c()\n    d()\n",
                ),
                ("x = aaa + bbb\n", "x = (\n    aaa\n    + bbb\n)\n"),
                (
                    "from a import b, c\n",
                    "from a import (\n    b,\n    c,\n)\n",
                ),
                (
                    "def f(a, b,):\n    return (a)\n",
                    "def f(a, b):\n    return a\n",
                ),
            ],
        );
    }

    /// The red team's changes of the program that an earlier version of
    /// these rules called formatting-only: each is shown now.
    #[test]
    fn the_red_teams_program_changes_are_shown() {
        differ(
            "a.js",
            &[
                (
                    "class A { static;\n x = 1 }\n",
                    "class A { static\n x = 1 }\n",
                ),
                (
                    "class A { get;\n x() { return 1 } }\n",
                    "class A { get\n x() { return 1 } }\n",
                ),
                ("let;\nx = 1\n", "let\nx = 1\n"),
                (
                    "export default function () { return 1 }\n",
                    "export default (function () { return 1 });\n",
                ),
                ("var x = a <!--b\n", "var x = a < !--b\n"),
                ("x = (-a) ** 2\n", "x = -a ** 2\n"),
                ("x = (a && b) ?? c\n", "x = a && b ?? c\n"),
                ("(function(){})()\n", "function(){}()\n"),
                ("x = a || (() => b)\n", "x = a || () => b\n"),
                ("/* turbopackIgnore: true */ x()\n", "x()\n"),
                ("/*@__KEY__*/ x()\n", "x()\n"),
            ],
        );
        differ("a.ts", &[("x = (a?.b!).c\n", "x = a?.b!.c\n")]);
        differ("a.tsx", &[("x = <a>x\ty</a>\n", "x = <a>x y</a>\n")]);
        differ(
            "a.py",
            &[
                ("x: F[a,] = 0\n", "x: F[a] = 0\n"),
                ("f(x for x in y)\n", "f(x for x in y,)\n"),
                ("if a:\n    b()\nc()\n", "if a:\n    b()\n  c()\n"),
            ],
        );
        differ(
            "a.go",
            &[
                (
                    "// +build ignore\n\npackage a\n",
                    "// +build ignore\npackage a\n",
                ),
                (
                    "package a\n\n// #include <stdio.h>\nimport \"C\"\n",
                    "package a\n\n// #include <stdio.h>\n\nimport \"C\"\n",
                ),
                (
                    "package a\n\nfunc f() {\n//line foo.go:100\n}\n",
                    "package a\n\nfunc f() {\n\t//line foo.go:100\n}\n",
                ),
                (
                    "package a\n\nimport (\n\t// #include <stdio.h>\n\t\"C\"\n\t\"fmt\"\n)\n",
                    "package a\n\nimport (\n\t\"C\"\n\t// #include <stdio.h>\n\t\"fmt\"\n)\n",
                ),
            ],
        );
        differ(
            "a.rs",
            &[
                (
                    "fn f() { stringify!(a+b); }\n",
                    "fn f() { stringify!(a + b); }\n",
                ),
                (
                    "/**\nText\n\n    assert!(false);\n*/\npub fn f() {}\n",
                    "/**\nText\n\nassert!(false);\n*/\npub fn f() {}\n",
                ),
            ],
        );
    }

    #[test]
    fn rust_trailing_commas_fold_but_not_in_tuples() {
        equal(
            "a.rs",
            &[("fn a(x: u8,) { f(x,); }\n", "fn a(x: u8) {\n    f(x);\n}\n")],
        );
        differ(
            "a.rs",
            &[
                ("type T = (u8,);\n", "type T = (u8);\n"),
                ("fn a() { let x = (1,); }\n", "fn a() { let x = (1); }\n"),
                ("fn a() { m!(1,); }\n", "fn a() { m!(1); }\n"),
            ],
        );
    }

    #[test]
    fn a_file_with_errors_or_missing_nodes_has_no_program_hash() {
        for (path, src) in [
            ("a.js", "function f() { return 1 "),
            ("a.go", "package a\nfunc f() {\n"),
            ("a.py", "def f(:\n"),
            ("a.rs", "fn a() { let x = ; }"),
        ] {
            assert!(!semantic_hash(path, src.as_bytes()).tokens, "{path}");
        }
    }
}
