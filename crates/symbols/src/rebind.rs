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
//! - **Python**: the name in an assignment's target (`name = `, `a, name = `,
//!   `Owner.name = `, `obj["name"] = `, augmented `name += `, annotated
//!   `name: T = `; an `=` inside brackets is a keyword argument or a
//!   default, not a target), a walrus `name :=`, after `def`, `class`, `del`,
//!   `global`, `nonlocal`, `as` (`import x as name`, `with ... as name`,
//!   `except ... as name`), `import name`, in the names of `from m import
//!   ...` and any `from m import *`, a `for` target, and any line naming it
//!   beside `setattr`, `globals`, `vars`, `__dict__` or `__setattr__`.
//! - **JavaScript / TypeScript**: the name in an assignment's target at any
//!   depth (`name = `, `Owner.name = `, `Owner.prototype.name = `,
//!   `[a, name] = `, `({ name } = obj)`, compound and logical assignments),
//!   declared by `var`, `let`, `const` (also later in a list: `let a = 1,
//!   name;`), `function`, `function*`, `class`, `enum`, `interface`,
//!   `namespace`, `module`, `type`, `import` (the names before `from`), and
//!   any line naming it beside `defineProperty`, `defineProperties`,
//!   `assign`, `Reflect`, `setPrototypeOf` or `__proto__`.
//! - **Go**: a `//go:linkname` directive naming it (the one way to bind a
//!   function's name to other code). Go has no other: a package-level name
//!   is declared once, functions, types and constants are not assignable.
//! - **Rust**: none. An item's name is declared once in its module (a second
//!   definition, `use` or `static` of the name does not compile) and `let`
//!   shadows only inside a body.

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
        Lang::Rust => false,
        Lang::Go => {
            line.contains("go:linkname") && tokens(line, Comments::None).contains(&Tok::Ident(name))
        }
        Lang::Python => python(&tokens(line, Comments::Hash), name),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            javascript(&tokens(line, Comments::Slashes), name)
        }
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
    ">=", "=>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":=", "->", "::", "**", "//",
    "<<", ">>", "??", "||", "&&",
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

/// The index of the first assignment operator, with the bracket depth
/// where it stands.
fn first_assignment(toks: &[Tok<'_>]) -> Option<(usize, usize)> {
    let mut depth: usize = 0;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Op("(" | "[" | "{") => depth += 1,
            Tok::Op(")" | "]" | "}") => depth = depth.saturating_sub(1),
            Tok::Op(op) if ASSIGN.contains(op) => return Some((i, depth)),
            _ => {}
        }
    }
    None
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
    if let Some((at, depth)) = first_assignment(toks)
        && depth == 0
        && toks[..at].iter().any(|t| is_name(t, name))
    {
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
    // A `for` target: the names between `for` and `in`.
    if let Some(i) = toks.iter().position(|t| *t == Tok::Ident("for")) {
        let end = toks[i..]
            .iter()
            .position(|t| *t == Tok::Ident("in"))
            .map_or(toks.len(), |e| i + e);
        if toks[i..end].contains(&Tok::Ident(name)) {
            return true;
        }
    }
    reflective(
        toks,
        name,
        &["setattr", "globals", "vars", "__dict__", "__setattr__"],
    )
}

/// The JavaScript and TypeScript forms of the module header.
fn javascript(toks: &[Tok<'_>], name: &str) -> bool {
    if let Some((at, _)) = first_assignment(toks)
        && toks[..at].iter().any(|t| is_name(t, name))
    {
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
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_segment_of_each_languages_names() {
        assert_eq!(last_segment("check"), "check");
        assert_eq!(last_segment("Session.refresh"), "refresh");
        assert_eq!(last_segment("Session::refresh"), "refresh");
        assert_eq!(last_segment("<Session as Drop>::drop"), "drop");
        assert_eq!(last_segment("(*Server).Serve"), "Serve");
        assert_eq!(last_segment("tests::a.b"), "b");
    }

    #[test]
    fn python_rebindings_count_and_uses_do_not() {
        let yes = [
            "check = lambda user: True",
            "check: Callable = allow",
            "a, check = 1, allow",
            "Session.refresh = lambda self: 2",
            "self.refresh = None",
            "globals()['check'] = allow",
            "setattr(Session, 'refresh', f)",
            "from auth.allow import check",
            "from os.path import *",
            "import allow as check",
            "def check(user): return True",
            "    check += 1",
            "del check",
            "for check in hooks:",
            "if (check := allow):",
            "Session.__dict__['refresh'] = f",
            "obj['check'] = 1",
        ];
        for line in yes {
            let name = if line.contains("refresh") {
                "refresh"
            } else {
                "check"
            };
            assert!(rebinds(Lang::Python, line, name), "{line}");
        }
        let no = [
            "result = check(user)",
            "if check(user) == True:",
            "run(check=True)",
            "# check = lambda user: True",
            "print('check = 1')",
            "x = {'check': 1}",
            "checked = 1",
            "return check",
        ];
        for line in no {
            assert!(!rebinds(Lang::Python, line, "check"), "{line}");
        }
    }

    #[test]
    fn javascript_rebindings_count_and_uses_do_not() {
        let yes = [
            "var isAllowed = () => true;",
            "let isAllowed;",
            "export const isAllowed = () => true;",
            "isAllowed = function () { return true; };",
            "let x = 1, isAllowed;",
            "window.isAllowed = () => true;",
            "Session.prototype.refresh = function () {};",
            "Session.prototype['refresh'] = f;",
            "[a, isAllowed] = pair;",
            "({ isAllowed } = mod);",
            "isAllowed ||= allowAll;",
            "function isAllowed() { return true; }",
            "function* isAllowed() {}",
            "import { allow as isAllowed } from './allow';",
            "import isAllowed from './allow';",
            "Object.defineProperty(Session.prototype, 'refresh', { value: f });",
            "Object.assign(Session.prototype, { refresh });",
        ];
        for line in yes {
            let name = if line.contains("refresh") {
                "refresh"
            } else {
                "isAllowed"
            };
            assert!(rebinds(Lang::JavaScript, line, name), "{line}");
            assert!(rebinds(Lang::TypeScript, line, name), "{line}");
        }
        let no = [
            "const ok = isAllowed({}) === true;",
            "if (isAllowed(user) == false) return;",
            "// isAllowed = () => true;",
            "const s = 'isAllowed = 1';",
            "return isAllowed;",
            "const x = [1, isAllowed];",
            "/* isAllowed = 1 */ run();",
        ];
        for line in no {
            assert!(!rebinds(Lang::JavaScript, line, "isAllowed"), "{line}");
        }
    }

    #[test]
    fn go_binds_a_name_only_by_linkname_and_rust_never() {
        assert!(rebinds(
            Lang::Go,
            "//go:linkname Check other.check",
            "Check"
        ));
        assert!(!rebinds(Lang::Go, "var allowed = Check(true)", "Check"));
        assert!(!rebinds(
            Lang::Go,
            "Check := func() bool { return true }",
            "Check"
        ));
        assert!(!rebinds(Lang::Rust, "let refresh = 1;", "refresh"));
    }
}
