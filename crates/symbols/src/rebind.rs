//! Whether a changed line may rebind a name: a statement outside a
//! symbol's extent that gives the name another value changes what the
//! symbol means to every caller (`check = lambda user: True` after
//! `def check`), so a hunk holding one touches the symbol's anchor.
//!
//! Read line by line, on tokens (strings and comments told apart), and on
//! the side of showing: a line that may rebind the name counts, so a
//! keyword argument in JavaScript, a same-named attribute of another object
//! or a local variable of that name is shown too. The forms, per language:
//!
//! One rule per language, not a list of statements: the name anywhere
//! before an assignment operator on the line (so in any target, nested in
//! an initializer, a class field or a property value: `z = (name = f)`),
//! and the binding keywords. The forms, per language:
//!
//! - **Python**: the name before an assignment operator outside brackets
//!   (`name = `, `a = name = `, `a, name = `, `Owner.name = `,
//!   `obj["name"] = `, augmented, annotated; an `=` inside brackets is a
//!   keyword argument or a default, not a target), a walrus `name :=`, after
//!   `def`, `class`, `del`, `global`, `nonlocal`, `as` (`import x as name`,
//!   `with ... as name`, `except ... as name`), `import name`, in the names
//!   of `from m import ...`, a `for` target, a `case` pattern (a capture),
//!   and any line naming it beside `setattr`, `globals`, `vars`, `__dict__`
//!   or `__setattr__`. Code run from a string and namespaces written by a
//!   computed name (`exec`, `eval`, `globals()`, `setattr`, `sys.modules`,
//!   a function's `__globals__`, a frame's `f_globals`/`f_locals`,
//!   `currentframe`, `from m import *`) may rebind any name: [`rebinds_any`].
//! - **JavaScript / TypeScript**: the name before an assignment operator at
//!   any depth (`name = `, `Owner.prototype.name = `, `[a, name] = `,
//!   `({ name } = obj)`, `const z = (name = f)`, `{ init: (name = f) }`,
//!   compound and logical assignments), an update (`name++`, `--name`),
//!   a `for (name of/in ...)` target,
//!   declared by `var`, `let`, `const` (also later in a list: `let a = 1,
//!   name;`), `function`, `function*`, `class`, `enum`, `interface`,
//!   `namespace`, `module`, `type`, `import` (the names before `from`),
//!   `as`, and any line naming it beside `defineProperty`,
//!   `defineProperties`, `assign`, `Reflect`, `setPrototypeOf`, `__proto__`
//!   or CommonJS's `exports` (`module.exports = { name: f }`). A direct
//!   `eval` may rebind any name.
//! - **Go**: a `//go:linkname` directive naming it (the one way to bind a
//!   function's name to other code). Go has no other: the symbols are
//!   functions, methods, types and constants, none assignable (a
//!   package-level `var` is no symbol), and `:=` declares a local.
//! - **Rust**: the name before an assignment operator outside a `let` (a
//!   `static mut` written in `unsafe`). An item's name is declared once in
//!   its module (a second definition, `use` or `static` of the name does
//!   not compile) and `let` shadows only inside a body.
//!
//! [`alias_of`] finds the names bound to an anchored one (`f = foo`):
//! writes through them count as its own.

use super::lang::Lang;

/// The last segment of a qualified name: `refresh` of `Session.refresh`,
/// `Session::refresh` or `(*Session).refresh`.
pub fn last_segment(qualified: &str) -> &str {
    let tail = qualified.rsplit("::").next().unwrap_or(qualified);
    tail.rsplit('.').next().unwrap_or(tail)
}

/// Whether `line`, one line of a `lang` source, may rebind `name` (the
/// last segment of an anchored symbol's name), as the module header says.
pub fn rebinds(lang: Lang, line: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    match lang {
        Lang::Rust => {
            let toks = tokens(line, Comments::Slashes);
            toks.first() != Some(&Tok::Ident("let")) && assigned(&toks, name, false)
        }
        Lang::Go => {
            line.contains("go:linkname") && tokens(line, Comments::None).contains(&Tok::Ident(name))
        }
        Lang::Python => python(&tokens(line, Comments::Hash), name),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            javascript(&tokens(line, Comments::Slashes), name)
        }
    }
}

/// Words that run code built at run time or write a namespace by a
/// computed name, when they stand alone (not an attribute: `re.compile`,
/// `model.eval()` are other functions): a line holding one may rebind any
/// name (Python's `exec("fo" + "o = bar")`, `globals()[n] = f`,
/// `setattr(mod, n, f)`; JavaScript's direct `eval`).
const PY_DYNAMIC: &[&str] = &[
    "exec",
    "eval",
    "compile",
    "globals",
    "locals",
    "vars",
    "setattr",
    "__import__",
];

/// Attributes that reach a namespace by a computed name, wherever they
/// stand (`sys.modules[...]`, `mod.__dict__`, `importlib.import_module`).
/// Function globals and frames reach a module's namespace too
/// (`f.__globals__[n] = g`, `inspect.currentframe().f_globals[n] = g`).
const PY_DYNAMIC_ATTRIBUTES: &[&str] = &[
    "__dict__",
    "__setattr__",
    "import_module",
    "modules",
    "__globals__",
    "f_globals",
    "f_locals",
    "currentframe",
    "_getframe",
];

/// See [`PY_DYNAMIC`]; `Function` counts when called (`new Function(s)`,
/// `Function(s)`), a global object when indexed by a computed name
/// (`globalThis[n] = f`).
const JS_DYNAMIC: &[&str] = &["eval", "Function"];

/// The global objects of JavaScript's hosts: `globalThis[n] = f` writes a
/// script's top-level binding by a computed name.
const JS_GLOBALS: &[&str] = &["globalThis", "window", "self", "global"];

/// Whether `line`, one line of a `lang` source, may rebind every name
/// alike, whichever it spells: `from m import *`, code run from a string,
/// a namespace written by a computed name ([`PY_DYNAMIC`]).
pub fn rebinds_any(lang: Lang, line: &str) -> bool {
    // Most lines spell none of the words: told without tokens.
    let spelled = match lang {
        Lang::Python => {
            PY_DYNAMIC
                .iter()
                .chain(PY_DYNAMIC_ATTRIBUTES)
                .any(|w| line.contains(w))
                || (line.contains("import") && line.contains('*'))
        }
        _ => JS_DYNAMIC
            .iter()
            .chain(JS_GLOBALS)
            .any(|w| line.contains(w)),
    };
    if !spelled {
        return false;
    }
    let (toks, alone) = match lang {
        Lang::Python => (tokens(line, Comments::Hash), PY_DYNAMIC),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            (tokens(line, Comments::Slashes), JS_DYNAMIC)
        }
        Lang::Go | Lang::Rust => return false,
    };
    let next = |i: usize| toks.get(i + 1).copied();
    let dynamic = toks.iter().enumerate().any(|(i, t)| match t {
        Tok::Ident("Function") if lang != Lang::Python => next(i) == Some(Tok::Op("(")),
        Tok::Ident(w) if lang != Lang::Python && JS_GLOBALS.contains(w) => {
            next(i) == Some(Tok::Op("["))
        }
        Tok::Ident(w) if alone.contains(w) => i == 0 || toks[i - 1] != Tok::Op("."),
        Tok::Ident(w) => lang == Lang::Python && PY_DYNAMIC_ATTRIBUTES.contains(w) && i > 0,
        _ => false,
    });
    let star = lang == Lang::Python
        && toks.first() == Some(&Tok::Ident("from"))
        && toks
            .iter()
            .skip_while(|t| **t != Tok::Ident("import"))
            .any(|t| *t == Tok::Op("*"));
    dynamic || star
}

/// The two names of a line that makes one name an alias of another:
/// its one target a plain name, its value a plain name alone (`f = foo`,
/// `const f = foo;`, `var f = foo`, `f := foo`), as `(alias, value)`.
/// Writes through an alias of an anchored name (`f.__defaults__ = ...`)
/// change the anchored symbol.
pub fn alias_of(lang: Lang, line: &str) -> Option<(&str, &str)> {
    let comments = match lang {
        Lang::Python => Comments::Hash,
        _ => Comments::Slashes,
    };
    let toks = tokens(line, comments);
    let declared = toks
        .iter()
        .take_while(|t| matches!(t, Tok::Ident("var" | "let" | "const" | "export")))
        .count();
    let toks = &toks[declared..];
    let toks = toks.strip_suffix(&[Tok::Op(";")]).unwrap_or(toks);
    match toks {
        [Tok::Ident(alias), Tok::Op("=" | ":="), Tok::Ident(value)] => Some((alias, value)),
        _ => None,
    }
}

/// One token of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    /// An identifier or keyword.
    Ident(&'a str),
    /// A string literal's content (its quotes dropped).
    Str(&'a str),
    /// An operator or punctuation, the longest known one.
    Op(&'a str),
}

/// Which comments a line's language has.
#[derive(Clone, Copy)]
enum Comments {
    /// None looked for (the whole line is read).
    None,
    /// `#` to the end of the line.
    Hash,
    /// `//` to the end of the line (and `/* */` within it).
    Slashes,
}

/// Operators read as one token, longest first.
const OPS: &[&str] = &[
    ">>>=", "===", "!==", "**=", "//=", "<<=", ">>=", "??=", "||=", "&&=", "...", "==", "!=", "<=",
    ">=", "=>", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":=", "->", "::",
    "**", "//", "<<", ">>", "??", "||", "&&",
];

/// Assignment operators: what stands before one is its target.
const ASSIGN: &[&str] = &[
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", "**=", "//=", "<<=", ">>=", ">>>=",
    "??=", "||=", "&&=",
];

/// The tokens of `line`; a comment ends it, a string runs to its closing
/// quote (or the line's end).
fn tokens(line: &str, comments: Comments) -> Vec<Tok<'_>> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let rest = &line[i..];
        match comments {
            Comments::Hash if c == b'#' => break,
            Comments::Slashes if rest.starts_with("//") => break,
            Comments::Slashes if rest.starts_with("/*") => {
                i += rest.find("*/").map_or(rest.len(), |e| e + 2);
                continue;
            }
            _ => {}
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 {
            let len = rest
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$'))
                .unwrap_or(rest.len());
            out.push(Tok::Ident(&rest[..len]));
            i += len.max(1);
        } else if matches!(c, b'"' | b'\'' | b'`') {
            let body = &rest[1..];
            let mut end = body.len();
            let mut escaped = false;
            for (j, ch) in body.char_indices() {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch as u32 == c as u32 {
                    end = j;
                    break;
                }
            }
            out.push(Tok::Str(&body[..end]));
            i += 1 + (end + 1).min(body.len());
        } else if c.is_ascii_whitespace() || c.is_ascii_digit() {
            i += 1;
        } else {
            let op = OPS
                .iter()
                .find(|op| rest.starts_with(**op))
                .copied()
                .unwrap_or(&rest[..1]);
            out.push(Tok::Op(op));
            i += op.len();
        }
    }
    out
}

/// Whether `tok` is `name`, as an identifier or as a string (`obj["name"]`).
fn is_name(tok: &Tok<'_>, name: &str) -> bool {
    matches!(tok, Tok::Ident(t) | Tok::Str(t) if *t == name)
}

/// Whether `name` stands before an assignment operator anywhere on the
/// line (`z = (name = f)`, `a = name = 1`, `{ init: (name = f) }`): the
/// name may be its target. With `top` only operators outside brackets
/// count (Python: an `=` inside brackets is a keyword argument).
fn assigned(toks: &[Tok<'_>], name: &str, top: bool) -> bool {
    let mut depth: usize = 0;
    let mut seen = false;
    for t in toks {
        match t {
            Tok::Op("(" | "[" | "{") => depth += 1,
            Tok::Op(")" | "]" | "}") => depth = depth.saturating_sub(1),
            Tok::Op(op) if seen && ASSIGN.contains(op) && (!top || depth == 0) => return true,
            t if is_name(t, name) => seen = true,
            _ => {}
        }
    }
    false
}

/// Whether the name is a loop's target: between `for` and its `in` or
/// `of` (`for foo in xs:`, `for (foo of xs)`, `for (const [k, foo] in o)`).
fn loop_target(toks: &[Tok<'_>], name: &str) -> bool {
    toks.iter()
        .enumerate()
        .filter(|(_, t)| **t == Tok::Ident("for"))
        .any(|(i, _)| {
            toks[i + 1..]
                .iter()
                .take_while(|t| !matches!(t, Tok::Ident("in" | "of")))
                .any(|t| *t == Tok::Ident(name))
        })
}

/// Whether the name follows one of `keywords` anywhere on the line.
fn after_keyword(toks: &[Tok<'_>], name: &str, keywords: &[&str]) -> bool {
    toks.windows(2).any(|w| {
        matches!(w[0], Tok::Ident(k) if keywords.contains(&k))
            && matches!(w[1], Tok::Ident(n) if n == name)
    })
}

/// Whether the line names `name` beside one of `calls` (reflection).
fn reflective(toks: &[Tok<'_>], name: &str, calls: &[&str]) -> bool {
    toks.iter()
        .any(|t| matches!(t, Tok::Ident(k) if calls.contains(k)))
        && toks.iter().any(|t| is_name(t, name))
}

/// The Python forms of the module header.
fn python(toks: &[Tok<'_>], name: &str) -> bool {
    if assigned(toks, name, true) {
        return true;
    }
    // A `match` capture pattern binds: `case foo:`, `case [foo]:`,
    // `case {"k": foo}:`, `case X() as foo:`.
    if toks.first() == Some(&Tok::Ident("case")) && toks.contains(&Tok::Ident(name)) {
        return true;
    }
    // A walrus binds in the enclosing scope, inside brackets too.
    if toks
        .windows(2)
        .any(|w| matches!(w[0], Tok::Ident(n) if n == name) && w[1] == Tok::Op(":="))
    {
        return true;
    }
    if after_keyword(
        toks,
        name,
        &["def", "class", "del", "global", "nonlocal", "as", "import"],
    ) {
        return true;
    }
    // `from m import a, name` and `from m import *`.
    if toks.first() == Some(&Tok::Ident("from"))
        && let Some(i) = toks.iter().position(|t| *t == Tok::Ident("import"))
        && toks[i + 1..]
            .iter()
            .any(|t| *t == Tok::Op("*") || *t == Tok::Ident(name))
    {
        return true;
    }
    if loop_target(toks, name) {
        return true;
    }
    reflective(
        toks,
        name,
        &["setattr", "globals", "vars", "__dict__", "__setattr__"],
    )
}

/// The JavaScript and TypeScript forms of the module header.
fn javascript(toks: &[Tok<'_>], name: &str) -> bool {
    if assigned(toks, name, false) || loop_target(toks, name) {
        return true;
    }
    // An update expression writes its operand: `name++`, `--name`.
    if toks.windows(2).any(|w| {
        (is_name(&w[0], name) && matches!(w[1], Tok::Op("++" | "--")))
            || (matches!(w[0], Tok::Op("++" | "--")) && is_name(&w[1], name))
    }) {
        return true;
    }
    if after_keyword(
        toks,
        name,
        &[
            "var",
            "let",
            "const",
            "function",
            "class",
            "enum",
            "interface",
            "namespace",
            "module",
            "type",
            "import",
            "as",
        ],
    ) {
        return true;
    }
    // `function* name`.
    if toks
        .windows(3)
        .any(|w| w[0] == Tok::Ident("function") && w[1] == Tok::Op("*") && w[2] == Tok::Ident(name))
    {
        return true;
    }
    // Later in a declaration list: `let a = 1, name;` (a comma at depth 0).
    let declares = toks
        .iter()
        .any(|t| matches!(t, Tok::Ident("var" | "let" | "const")));
    if declares {
        let mut depth: usize = 0;
        for w in toks.windows(2) {
            match w[0] {
                Tok::Op("(" | "[" | "{") => depth += 1,
                Tok::Op(")" | "]" | "}") => depth = depth.saturating_sub(1),
                Tok::Op(",") if depth == 0 && w[1] == Tok::Ident(name) => return true,
                _ => {}
            }
        }
    }
    // `import a, { b as c, name } from "m"`: the names before `from`.
    if toks.first() == Some(&Tok::Ident("import")) {
        let end = toks
            .iter()
            .position(|t| *t == Tok::Ident("from"))
            .unwrap_or(toks.len());
        if toks[..end].contains(&Tok::Ident(name)) {
            return true;
        }
    }
    reflective(
        toks,
        name,
        &[
            "defineProperty",
            "defineProperties",
            "assign",
            "Reflect",
            "setPrototypeOf",
            "__proto__",
            // CommonJS: `module.exports = { name: f }`, `exports.name = f`.
            "exports",
        ],
    )
}

#[cfg(test)]
#[path = "rebind_tests.rs"]
mod tests;
