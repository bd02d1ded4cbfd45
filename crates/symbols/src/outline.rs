//! A file's outline: its symbols with extents, qualified names and
//! semantic hashes, or the reason it has none.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Serialize;

use super::lang::Lang;

/// One named symbol of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Symbol {
    /// Qualified name (`Session::refresh`, `Router.get`, `(*Server).Serve`).
    pub name: String,
    /// What it is: `function`, `method`, `class`, `struct`, `impl`, ...
    pub kind: &'static str,
    /// First line of its extent (1-based), attached comments and attributes included.
    pub start_line: u32,
    /// Last line of its extent (1-based, inclusive).
    pub end_line: u32,
    /// The enclosing symbol, an index into [`Outline::symbols`].
    #[serde(skip)]
    pub parent: Option<usize>,
    /// Semantic hash of its extent (comments, whitespace and its own name dropped).
    #[serde(skip)]
    pub hash: [u8; 32],
}

impl Symbol {
    /// Whether `line` lies within the extent.
    pub fn contains(&self, line: u32) -> bool {
        self.start_line <= line && line <= self.end_line
    }
}

/// A file's outline, or why it has none.
#[derive(Debug, Clone, Serialize)]
pub struct Outline {
    /// The language, when the file is one the outline knows.
    pub language: Option<&'static str>,
    /// Why the file has no outline and counts as one whole-file unit
    /// (`None` when it was parsed).
    pub fallback: Option<String>,
    /// The symbols, in order of their start (a parent before its children).
    pub symbols: Vec<Symbol>,
    /// Separator of qualified names' segments.
    #[serde(skip)]
    pub separator: &'static str,
    /// The semantic hash of the whole file.
    #[serde(skip)]
    pub file_hash: SemanticHash,
    /// The symbols by qualified name, built once on first use
    /// ([`Outline::named`]): a literal anchor is a lookup, not a scan.
    #[serde(skip)]
    pub by_name: OnceLock<HashMap<String, Vec<usize>>>,
}

impl Outline {
    /// The index of every symbol named `name`, in order: a lookup in the
    /// outline's index of names (built once, in time linear in its symbols).
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.by_name
            .get_or_init(|| {
                let mut index: HashMap<String, Vec<usize>> = HashMap::new();
                for (i, s) in self.symbols.iter().enumerate() {
                    index.entry(s.name.clone()).or_default().push(i);
                }
                index
            })
            .get(name)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
    }

    /// Nesting depth of symbol `index` (0 at top level).
    pub fn depth(&self, index: usize) -> usize {
        let mut depth = 0;
        let mut at = self.symbols[index].parent;
        while let Some(p) = at {
            depth += 1;
            at = self.symbols[p].parent;
        }
        depth
    }
}

/// A semantic hash: of the program for a file the outline parses, of
/// the bytes otherwise. The kind keeps the two from ever comparing equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SemanticHash {
    /// Whether the digest is over tokens (`true`) or bytes.
    pub tokens: bool,
    /// BLAKE3 digest.
    pub digest: [u8; 32],
}

impl std::fmt::Display for SemanticHash {
    /// `tokens3:<hex>` or `bytes:<hex>`. `tokens3` is the program's hash
    /// (`symbols/program/`); a record of the `tokens1` hash (the token
    /// stream's, before) never reads as equal to it: the file is shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.tokens { HASH_RULES } else { "bytes" };
        write!(f, "{kind}:{}", blake3::Hash::from(self.digest).to_hex())
    }
}

/// The version of the program hashing rules (`program/`), the prefix of
/// a token hash's text; a change of the rules changes it, and the facts'
/// stamp ([`super::facts::version`]) covers it.
pub const HASH_RULES: &str = "tokens3";

/// The hash of content that has no token stream: its bytes.
pub(super) fn bytes_hash(bytes: &[u8]) -> SemanticHash {
    SemanticHash {
        tokens: false,
        digest: *blake3::hash(bytes).as_bytes(),
    }
}

pub(super) fn fallback(lang: Option<Lang>, bytes: &[u8], reason: String) -> Outline {
    Outline {
        language: lang.map(Lang::name),
        fallback: Some(reason),
        symbols: Vec::new(),
        separator: lang.map_or(".", Lang::separator),
        file_hash: bytes_hash(bytes),
        by_name: OnceLock::new(),
    }
}

/// The symbol kind `kind` names, as the outline spells it (`symbol` for
/// one it does not know).
pub(super) fn static_kind(kind: &str) -> &'static str {
    const KINDS: &[&str] = &[
        "function",
        "method",
        "struct",
        "enum",
        "trait",
        "impl",
        "type",
        "const",
        "static",
        "module",
        "class",
        "interface",
        "namespace",
    ];
    KINDS
        .iter()
        .find(|k| **k == kind)
        .copied()
        .unwrap_or("symbol")
}

/// The outline of `bytes`, the content of `path` (whose extension chooses
/// the language). Never fails: a file the outline cannot read has a
/// [`Outline::fallback`] reason instead of symbols.
pub fn outline(path: &str, bytes: &[u8]) -> Outline {
    let Some(lang) = Lang::of_path(path) else {
        return fallback(
            None,
            bytes,
            "no symbol outline for this kind of file".into(),
        );
    };
    if bytes.len() > MAX_PARSED_BYTES {
        return fallback(
            Some(lang),
            bytes,
            format!(
                "larger than {} MiB: not parsed, hashed by its bytes",
                MAX_PARSED_BYTES >> 20
            ),
        );
    }
    if std::str::from_utf8(bytes).is_err() {
        return fallback(Some(lang), bytes, "not UTF-8 text".into());
    }
    parse(lang, bytes)
}

/// The largest file the outline parses: 1 MiB. A syntax tree costs far
/// more than its text (an 8 MB one-line array is millions of nodes, 1.7 GB),
/// so a larger file is whole-file, hashed by its bytes (every change shows,
/// never formatting-only), and its outline says why.
pub const MAX_PARSED_BYTES: usize = 1024 * 1024;

/// The deepest nesting of symbols the outline keeps: 256 levels. Each
/// symbol's name and hash cost its depth, so a deeper file (5,000 nested
/// functions) is whole-file, and its outline says why.
pub const MAX_NESTING: usize = 256;

/// The most the symbols' extents may add up to, in multiples of the file's
/// size (plus 64 KiB): each symbol's hash walks its extent, so this bounds
/// the outline's work linearly (ordinary code, a class of methods holding
/// a few nested functions, stays within 3 or 4). Past it the file is
/// whole-file, and its outline says why.
pub const NESTED_BYTES_FACTOR: usize = 8;

#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
use super::parse::parse;

/// Without a grammar every file is whole-file.
#[cfg(not(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
)))]
fn parse(lang: Lang, bytes: &[u8]) -> Outline {
    fallback(
        Some(lang),
        bytes,
        format!("notarai was built without the `{}` feature", lang.feature()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_files_fall_back_to_their_bytes() {
        let o = outline("README.md", b"# hi\n");
        assert!(o.fallback.is_some());
        assert!(!o.file_hash.tokens);
        assert!(o.file_hash.to_string().starts_with("bytes:"));
    }
}
