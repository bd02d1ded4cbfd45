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
//!   declaration words, `asserts`, `using` (restricted productions, and
//!   TypeScript's "on the same line" checks): a line break, `;`, `}` or the
//!   end next; a newline before a postfix `++` or `--` (a prefix one may
//!   follow a line break), `=>`, `as`, `satisfies`, a type predicate's `is`
//!   and a non-null `!`; a line break after a variance modifier (`in`,
//!   `out`, `modern.rs`). Go: a
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
//!   `// +build`, `//export`, `//extern`), a Go comment with a
//!   `Deprecated:` paragraph (read by `go doc` and linters) and, in a file that imports
//!   `"C"`, every comment (the cgo preamble); Python's coding line (lines
//!   1-2), a shebang and `# type:` comments; JavaScript/TypeScript bundler
//!   and compiler pragmas (`__PURE__`, `__NO_SIDE_EFFECTS__`, `@jsx*`,
//!   `@ts-*`, triple-slash directives, `webpack*` magic comments,
//!   `@vite-ignore`, `@flow`, `sourceMappingURL`); a Go example's
//!   `// Output:` / `// Unordered output:` (its assertion); in every
//!   language a comment holding a lone `\r` (CPython and JavaScript end a
//!   line there: what follows is code). A shebang that the
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

mod marks;
mod spell;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_lines;

use marks::{JS_ATOMS, go_marks, js_marks, lone_cr, python_marks, rust_marks, tokens};
pub(crate) use spell::layout_is_code;
use spell::{js_number, js_string, jsx_text, kept_comment, object_key, python_string};

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
    "asserts",
    "using",
];

/// Tokens before which a JavaScript/TypeScript newline is code (`x`
/// newline `is string` is no type predicate).
const JS_RESTRICTED_BEFORE: &[&str] = &["++", "--", "=>", "as", "satisfies", "is"];

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
        let mut marks = match config.lang {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => js_marks(&toks, bytes),
            Lang::Python => python_marks(&toks, bytes),
            Lang::Go => go_marks(&toks, bytes),
            Lang::Rust => rust_marks(&toks, bytes),
        };
        // A lone carriage return ends a line (CPython's tokenizer,
        // JavaScript): text after it in a comment is code, so a comment
        // holding one is kept, in every language (a sound, simple rule).
        for t in toks.iter().filter(|t| t.comment) {
            // The byte after the token too: a comment ends before the
            // `\n` of a CR LF.
            let end = (t.node.end_byte() + 1).min(bytes.len());
            if lone_cr(&bytes[t.node.start_byte()..end]) {
                marks.entry(t.node.id()).or_default().keep = true;
            }
        }
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
