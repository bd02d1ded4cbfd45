//! The outline rules of symbols.md, one language at a time, on small files.

use super::*;

fn names(path: &str, src: &str) -> Vec<(String, &'static str, u32, u32)> {
    let o = outline(path, src.as_bytes());
    assert!(o.fallback.is_none(), "{path}: {:?}", o.fallback);
    o.symbols
        .iter()
        .map(|s| (s.name.clone(), s.kind, s.start_line, s.end_line))
        .collect()
}

fn at(path: &str, src: &str, a: u32, b: u32) -> String {
    let o = outline(path, src.as_bytes());
    let lines: Vec<Line> = (a..=b)
        .map(|l| {
            let text = src.lines().nth(l as usize - 1).unwrap_or("");
            (l, text.trim().is_empty())
        })
        .collect();
    attribute(&o, &lines).to_string()
}

const RUST: &str = r#"//! Module docs.
use std::fmt;

/// A session.
#[derive(Debug)]
pub struct Session {
    id: u32,
}

impl<'a> Session {
    /// Refresh it.
    pub fn refresh(&mut self) {
        const LOCAL: u8 = 1;
        let _ = LOCAL;
    }
}

impl fmt::Display for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s")
    }
}

pub trait Store {
    fn get(&self) -> u8;
    fn put(&self) {}
}

// plain comment
const LIMIT: usize = 3;
static NAME: &str = "x";
type Id = u32;
enum Kind { A }
mod inner;

#[cfg(test)]
mod tests {
    #[test]
    fn works() {}
}
"#;

#[test]
fn rust_symbols_follow_the_rules() {
    let got = names("src/a.rs", RUST);
    let expect: Vec<(&str, &str, u32, u32)> = vec![
        ("Session", "struct", 4, 8),
        ("Session", "impl", 10, 16),
        ("Session::refresh", "function", 11, 15),
        ("<Session as fmt::Display>", "impl", 18, 22),
        ("<Session as fmt::Display>::fmt", "function", 19, 21),
        ("Store", "trait", 24, 27),
        ("Store::get", "function", 25, 25),
        ("Store::put", "function", 26, 26),
        ("LIMIT", "const", 29, 30),
        ("NAME", "static", 31, 31),
        ("Id", "type", 32, 32),
        ("Kind", "enum", 33, 33),
        ("tests", "module", 36, 40),
        ("tests::works", "function", 38, 39),
    ];
    let got: Vec<(&str, &str, u32, u32)> = got
        .iter()
        .map(|(n, k, a, b)| (n.as_str(), *k, *a, *b))
        .collect();
    assert_eq!(got, expect);
}

#[test]
fn rust_hunks_find_their_symbol() {
    assert_eq!(at("a.rs", RUST, 13, 13), "Session::refresh");
    assert_eq!(at("a.rs", RUST, 11, 11), "Session::refresh"); // doc comment
    assert_eq!(at("a.rs", RUST, 5, 5), "Session"); // attribute
    assert_eq!(at("a.rs", RUST, 1, 2), "<top-level>");
    assert_eq!(
        at("a.rs", RUST, 13, 20),
        "<multiple> Session, <Session as fmt::Display>"
    );
    assert_eq!(at("a.rs", RUST, 31, 32), "<top-level>; adds: NAME, Id");
    // A method added whole inside an impl is the impl's.
    assert_eq!(at("a.rs", RUST, 11, 15), "Session");
    assert_eq!(at("a.rs", RUST, 9, 9), "<top-level>"); // a blank line between
}

const TS: &str = r#"import { x } from "y";

/** A router. */
@Injectable()
export class Router {
  private routes = [];
  text = () => {
    return "a";
  };
  constructor() {}
  get size(): number {
    return 1;
  }
  @Get()
  handle(req: Req) {
    function helper() {}
    const local = () => 1;
  }
}

export interface Opts { a: number }
type Alias = string;
enum Color { Red }
namespace Api {
  export interface Req {}
}
export const LIMIT = 3;
export const make = (a: number) => a;
const api = {
  get() { return 1; },
  put: () => 2,
};
program.command("x").action(() => {
  const inner = 1;
});
export function top() {}
"#;

#[test]
fn typescript_symbols_follow_the_rules() {
    let got: Vec<String> = names("src/a.ts", TS).into_iter().map(|s| s.0).collect();
    assert_eq!(
        got,
        vec![
            "Router",
            "Router.text",
            "Router.constructor",
            "Router.size",
            "Router.handle",
            "Router.handle.helper",
            "Opts",
            "Alias",
            "Color",
            "Api",
            "Api.Req",
            "LIMIT",
            "make",
            "api",
            "api.get",
            "api.put",
            "top"
        ]
    );
    let o = outline("src/a.ts", TS.as_bytes());
    let router = &o.symbols[0];
    assert_eq!((router.start_line, router.end_line), (3, 19));
    let make = o.symbols.iter().find(|s| s.name == "make").unwrap();
    assert_eq!(make.kind, "function");
    let handle = o
        .symbols
        .iter()
        .find(|s| s.name == "Router.handle")
        .unwrap();
    assert_eq!(handle.start_line, 14); // its decorator
    assert_eq!(at("a.ts", TS, 6, 6), "Router");
    assert_eq!(at("a.ts", TS, 33, 35), "<top-level>");
    // TSX parses too.
    let tsx = "export function App() {\n  return <div>hi</div>;\n}\n";
    assert_eq!(names("a.tsx", tsx)[0].0, "App");
}

const JS: &str = r#"const x = require("x");

class Box {
  open() {
    return 1;
  }
  close = () => {};
}

module.exports = { Box };
export const run = function () {};
"#;

#[test]
fn javascript_symbols_follow_the_rules() {
    let got: Vec<String> = names("a.js", JS).into_iter().map(|s| s.0).collect();
    assert_eq!(got, vec!["x", "Box", "Box.open", "Box.close", "run"]);
    assert_eq!(at("a.js", JS, 5, 5), "Box.open");
    assert_eq!(at("a.js", JS, 10, 10), "<top-level>");
}

const PY: &str = r#""""Module docstring."""
import os

LIMIT = 3
name = "x"
__all__ = ["a"]


# A class.
@dataclass
class Server:
    port: int = 1

    def serve(self):
        def inner():
            pass
        return inner

    class Config:
        pass


def main():
    pass


if __name__ == "__main__":
    main()
"#;

#[test]
fn python_symbols_follow_the_rules() {
    let got = names("a.py", PY);
    let got: Vec<(&str, u32, u32)> = got.iter().map(|s| (s.0.as_str(), s.2, s.3)).collect();
    assert_eq!(
        got,
        vec![
            ("LIMIT", 4, 4),
            ("Server", 9, 20),
            ("Server.serve", 14, 17),
            ("Server.serve.inner", 15, 16),
            ("Server.Config", 19, 20),
            ("main", 23, 24),
        ]
    );
    assert_eq!(at("a.py", PY, 12, 12), "Server");
    assert_eq!(at("a.py", PY, 16, 16), "Server.serve.inner");
    assert_eq!(at("a.py", PY, 28, 28), "<top-level>");
    assert_eq!(at("a.py", PY, 5, 5), "<top-level>");
}

const GO: &str = r#"package server

import "fmt"

// Server serves.
type Server struct {
	port int
}

type (
	A int
	B = string
)

const Limit = 3

const (
	X = 1
	Y = 2
)

var v = 1

func (s *Server) Serve() error {
	f := func() {}
	_ = f
	return nil
}

func (s Server) Port() int { return s.port }

func init() {}

func New[T any](x T) *Server {
	return nil
}
"#;

#[test]
fn go_symbols_follow_the_rules() {
    let got: Vec<String> = names("a.go", GO).into_iter().map(|s| s.0).collect();
    assert_eq!(
        got,
        vec![
            "Server",
            "A",
            "B",
            "Limit",
            "X",
            "Y",
            "(*Server).Serve",
            "(Server).Port",
            "init",
            "New"
        ]
    );
    assert_eq!(at("a.go", GO, 5, 5), "Server");
    assert_eq!(at("a.go", GO, 26, 26), "(*Server).Serve");
    assert_eq!(at("a.go", GO, 22, 22), "<top-level>");
    assert_eq!(at("a.go", GO, 18, 19), "<top-level>; adds: X, Y");
}

#[test]
fn a_file_that_does_not_parse_is_partial_and_says_why() {
    let o = outline("a.rs", b"fn a() {\n  let x = ;\n}\n");
    assert!(o.fallback.is_none());
    let damage = o.damage.as_ref().unwrap();
    assert!(
        damage
            .says("rust")
            .contains("does not parse as rust from line 2"),
        "{damage:?}"
    );
    assert!(o.symbols.iter().all(|s| s.damaged), "{:?}", o.symbols);
    assert!(!o.file_hash.tokens);
    let text = at("a.rs", "fn a() {\n  let x = ;\n}\n", 2, 2);
    assert!(text.starts_with("<whole-file>"), "{text}");
}

#[test]
fn the_semantic_hash_without_symbols_is_the_outlines_file_hash() {
    // The token-only path (no outline kept) must give what the outline
    // gives, on clean files, broken ones, non-UTF-8 and unknown kinds.
    let cases: [(&str, &[u8]); 7] = [
        ("t1.rs", b"fn a() { let x = 1; } // c\n"),
        ("t2.rs", b"fn a() {\n  let x = ;\n}\n"),
        ("t3.py", b"def f(x):\n    return x  # c\n"),
        ("t4.go", b"package a\nfunc F() {}\n"),
        ("t5.ts", b"export const a = (x: number) => x + 1;\n"),
        ("t6.rs", b"fn a() { \xff }\n"),
        ("t7.txt", b"plain text\n"),
    ];
    let kept = crate::SymbolCache::new();
    for (path, bytes) in cases {
        let fresh = semantic_hash(path, bytes);
        assert_eq!(fresh, outline(path, bytes).file_hash, "{path}");
        // Kept by content: asked again, and once an outline exists.
        assert_eq!(kept.semantic_hash(path, bytes), fresh, "{path}");
        assert_eq!(kept.outline(path, bytes).file_hash, fresh, "{path}");
        assert_eq!(kept.semantic_hash(path, bytes), fresh, "{path}");
    }
}

#[test]
fn the_incremental_pair_gives_the_fresh_hashes() {
    // Edits at the start, the end, in the middle, across lines, growing and
    // shrinking, into a comment, breaking the parse and mending it.
    let base = "// head\nfn a(x: u32) -> u32 {\n    x + 1\n}\n\nfn b() {}\n";
    let edits = [
        "fn z() {}\n// head\nfn a(x: u32) -> u32 {\n    x + 1\n}\n\nfn b() {}\n",
        "// head\nfn a(x: u32) -> u32 {\n    x + 1\n}\n\nfn b() { c(); }\n",
        "// head\nfn a(x: u32) -> u32 {\n    x + 2\n}\n\nfn b() {}\n",
        "// head\nfn a(x: u32) -> u32 {\n    // was x + 1\n    x + 1\n}\n\nfn b() {}\n",
        "// head\nfn a(x: u32) -> u32 {\n    x +\n}\n\nfn b() {}\n",
        "fn b() {}\n",
        "",
        "// head\nfn a(x: u32) -> u32 { x + 1 }\nfn b() {}\n",
    ];
    for (i, new) in edits.iter().enumerate() {
        for (old, new) in [(base, *new), (*new, base)] {
            // Unique paths: nothing kept from another case.
            let (po, pn) = (format!("pair{i}o.rs"), format!("pair{i}n.rs"));
            let want = (
                outline(&po, old.as_bytes()).file_hash,
                outline(&pn, new.as_bytes()).file_hash,
            );
            let got = semantic_hash_pair(&po, old.as_bytes(), &pn, new.as_bytes());
            assert_eq!(got, want, "{old:?} -> {new:?}");
        }
    }
}

#[test]
fn formatting_and_comments_leave_the_semantic_hash_equal() {
    let a = semantic_hash("a.rs", b"fn a() { let x = 1; }\n");
    let b = semantic_hash("a.rs", b"// note\nfn a() {\n    let x = 1; // why\n}\n");
    let c = semantic_hash("a.rs", b"fn a() { let x = 2; }\n");
    assert!(a.tokens);
    assert_eq!(a, b);
    assert_ne!(a, c);
    // Indentation is Python's syntax: moving a line out of a block is a change.
    let p1 = semantic_hash("a.py", b"if a:\n    b()\n    c()\n");
    let p2 = semantic_hash("a.py", b"if a:\n    b()\nc()\n");
    let p3 = semantic_hash("a.py", b"if a:  # x\n    b( )\n    c()\n");
    assert_ne!(p1, p2);
    assert_eq!(p1, p3);
    // Spaces inside a string are content.
    assert_ne!(
        semantic_hash("a.go", b"package a\nconst S = \"a b\"\n"),
        semantic_hash("a.go", b"package a\nconst S = \"a  b\"\n")
    );
}

#[test]
fn a_renamed_symbol_keeps_its_hash() {
    let a = outline("a.ts", b"function load(a) { return a + 1; }\n");
    let b = outline(
        "b.ts",
        b"// moved\nfunction fetch(a) {\n  return a + 1;\n}\n",
    );
    assert_eq!(a.symbols[0].hash, b.symbols[0].hash);
    let c = outline("b.ts", b"function fetch(a) { return a + 2; }\n");
    assert_ne!(a.symbols[0].hash, c.symbols[0].hash);
}

#[test]
fn a_patch_names_each_hunk_symbol() {
    let old = "fn a() {\n    1;\n}\n\nfn b() {\n    2;\n}\n";
    let new = "fn a() {\n    10;\n}\n\nfn b() {\n    2;\n}\n\nfn c() {}\n";
    let patch = "diff --git a/x.rs b/x.rs\n--- a/x.rs\n+++ b/x.rs\n@@ -1,3 +1,3 @@\n fn a() {\n-    1;\n+    10;\n }\n@@ -7,0 +8,2 @@ fn b() {\n+\n+fn c() {}\n";
    let o = outline("x.rs", old.as_bytes());
    let n = outline("x.rs", new.as_bytes());
    let text = annotate_patch(&o, &n, patch);
    assert!(
        text.contains("@@ -1,3 +1,3 @@ symbol: a\n fn a() {\n"),
        "{text}"
    );
    assert!(
        text.contains("@@ -7,0 +8,2 @@ symbol: <top-level>; adds: c\n"),
        "{text}"
    );
    let ps = patch_symbols(&o, &n, patch);
    let only_c = ps.render(patch, |_, h| {
        h.touched_new.iter().any(|&i| n.symbols[i].name == "c")
    });
    assert!(!only_c.contains("symbol: a"), "{only_c}");
    assert!(only_c.starts_with("diff --git"));
    // A function whose every line was rewritten is still that function.
    let old2 = "struct S;\n\nimpl S {\n    fn a(&self) {}\n}\n";
    let new2 = "struct S;\n\nimpl S {\n    fn a(&self) {\n        1;\n    }\n}\n";
    let patch2 = "--- a/x.rs\n+++ b/x.rs\n@@ -4 +4,3 @@\n-    fn a(&self) {}\n+    fn a(&self) {\n+        1;\n+    }\n";
    let text = annotate_patch(
        &outline("x.rs", old2.as_bytes()),
        &outline("x.rs", new2.as_bytes()),
        patch2,
    );
    assert!(text.contains("@@ -4 +4,3 @@ symbol: S::a\n"), "{text}");
    // A pure deletion is read on the old side.
    let patch = "--- a/x.rs\n+++ b/x.rs\n@@ -4,4 +3,0 @@\n-\n-fn b() {\n-    2;\n-}\n";
    let text = annotate_patch(&o, &outline("x.rs", b"fn a() {\n    1;\n}\n"), patch);
    assert!(text.contains("symbol: <top-level>; removes: b"), "{text}");
}

#[test]
fn a_file_over_the_parse_budget_is_hashed_by_its_bytes_and_says_why() {
    let at_limit = format!(
        "const a = [{}0];\n",
        "0,".repeat((MAX_PARSED_BYTES - 16) / 2 - 8)
    );
    assert!(at_limit.len() <= MAX_PARSED_BYTES);
    let parsed = outline("a.js", at_limit.as_bytes());
    assert!(parsed.fallback.is_none(), "{:?}", parsed.fallback);
    assert!(parsed.file_hash.tokens);
    let over = format!("const a = [{}0];\n", "0,".repeat(MAX_PARSED_BYTES / 2 + 1));
    let big = outline("a.js", over.as_bytes());
    assert!(
        big.fallback
            .as_deref()
            .unwrap()
            .contains("larger than 1 MiB"),
        "{:?}",
        big.fallback
    );
    assert!(!big.file_hash.tokens);
    // The file hash agrees with the outline's: bytes, so any change shows.
    assert_eq!(semantic_hash("a.js", over.as_bytes()), big.file_hash);
}

#[test]
fn symbols_nested_past_the_budget_make_the_file_whole_file() {
    // Padding outside the symbols keeps their extents within
    // NESTED_BYTES_FACTOR times the file: the nesting limit is what counts.
    let nested = |depth: usize| {
        let mut text = format!("// {}\n", "x".repeat(200_000));
        text.extend((0..depth).map(|i| format!("function f{i}() {{\n")));
        text.push_str("return 1;\n");
        text.push_str(&"}\n".repeat(depth));
        text
    };
    let kept = outline("a.js", nested(MAX_NESTING).as_bytes());
    assert!(kept.fallback.is_none(), "{:?}", kept.fallback);
    assert_eq!(kept.symbols.len(), MAX_NESTING);
    let deep = nested(MAX_NESTING + 1);
    let whole = outline("a.js", deep.as_bytes());
    assert!(
        whole
            .fallback
            .as_deref()
            .unwrap()
            .contains("nested deeper than 256 levels"),
        "{:?}",
        whole.fallback
    );
    assert!(!whole.file_hash.tokens);
    assert_eq!(semantic_hash("a.js", deep.as_bytes()), whole.file_hash);
}

#[test]
fn literal_anchors_are_a_lookup_and_governed_is_one_pass() {
    use crate::{Anchor, governed_by, indices};
    let src = "def a():\n    def inner():\n        pass\n\ndef b():\n    pass\n";
    let o = outline("m.py", src.as_bytes());
    let a = Anchor::parse("a").unwrap();
    let star = Anchor::parse("b*").unwrap();
    assert_eq!(a.named(&o), o.named("a").collect::<Vec<_>>());
    assert_eq!(a.governed(&o).len(), 2, "a and a.inner");
    let many: Vec<Anchor> = (0..20_000).map(|_| Anchor::parse("a").unwrap()).collect();
    let mut refs: Vec<&Anchor> = many.iter().collect();
    refs.push(&star);
    assert_eq!(indices(&governed_by(&refs, &o)).len(), 3);
    // Linear: 20,000 literal anchors against 5,000 functions at once.
    let big: String = (0..5_000)
        .map(|i| format!("def f{i}():\n    pass\n"))
        .collect();
    let o = outline("m.py", big.as_bytes());
    let names: Vec<Anchor> = (0..20_000)
        .map(|i| Anchor::parse(&format!("f{}", i % 5_000)).unwrap())
        .collect();
    let refs: Vec<&Anchor> = names.iter().collect();
    let start = std::time::Instant::now();
    assert!(governed_by(&refs, &o).iter().all(|&g| g));
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn symbols_whose_extents_add_up_past_the_budget_make_the_file_whole_file() {
    let nested = |depth: usize, body: usize| {
        let mut text: String = (0..depth)
            .map(|i| format!("function f{i}() {{\n"))
            .collect();
        text.push_str(&format!("x = [{}1];\n", "1,".repeat(body)));
        text.push_str(&"}\n".repeat(depth));
        text
    };
    // A few levels around a large body: kept.
    let kept = outline("a.js", nested(4, 100_000).as_bytes());
    assert!(kept.fallback.is_none(), "{:?}", kept.fallback);
    // Many levels around it: each would walk the body again.
    let deep = nested(NESTED_BYTES_FACTOR + 2, 100_000);
    let whole = outline("a.js", deep.as_bytes());
    assert!(
        whole
            .fallback
            .as_deref()
            .unwrap()
            .contains("nested over 8x"),
        "{:?}",
        whole.fallback
    );
    assert_eq!(semantic_hash("a.js", deep.as_bytes()), whole.file_hash);
}

#[test]
fn a_long_name_around_many_symbols_makes_the_file_whole_file() {
    // Each nested name repeats the outer one: 4,000 x 20 KB of names.
    let outer = "a".repeat(20_000);
    let inner: String = (0..4_000)
        .map(|i| format!("  function g{i}() {{}}\n"))
        .collect();
    let text = format!("function {outer}() {{\n{inner}}}\n");
    let whole = outline("a.js", text.as_bytes());
    assert!(
        whole
            .fallback
            .as_deref()
            .unwrap()
            .contains("extents or names"),
        "{:?}",
        whole.fallback
    );
    assert_eq!(semantic_hash("a.js", text.as_bytes()), whole.file_hash);
    // A short name around them is outlined.
    let text = format!("function outer() {{\n{inner}}}\n");
    assert!(outline("a.js", text.as_bytes()).fallback.is_none());
}
