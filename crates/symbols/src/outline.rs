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
    /// Whether its extent (or the line after it) meets a range of the file
    /// the parser did not understand ([`Outline::damage`]): its extent and
    /// hash cannot be trusted, and an anchor naming it governs the whole
    /// file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub damaged: bool,
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
    /// Where the file does not parse, when it has errors but was outlined
    /// all the same (a partial outline: tree-sitter's error recovery keeps
    /// the symbols around the damage). The file hash is then its bytes'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damage: Option<Damage>,
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
    /// Whether this outline and `other` (two contents of one file) are the
    /// same program: both parsed (no fallback; a token hash, not a bytes
    /// hash, so no damage either) and their semantic file hashes equal. The
    /// one comparison behind `formatting_only`, from the base or from a
    /// reviewed content.
    pub fn same_program(&self, other: &Outline) -> bool {
        self.fallback.is_none()
            && other.fallback.is_none()
            && self.file_hash.tokens
            && other.file_hash.tokens
            && self.file_hash == other.file_hash
    }

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

    /// The reason lines `lines` (1-based) are no symbol's but the whole
    /// file's: some of them lie in a damaged range, or in a damaged symbol.
    pub fn damaged_at(&self, lines: impl IntoIterator<Item = u32>) -> Option<String> {
        let damage = self.damage.as_ref()?;
        let mut lines: Vec<u32> = lines.into_iter().collect();
        lines.sort_unstable();
        let hit = damage.ranges.iter().any(|r| {
            let at = lines.partition_point(|l| *l < r[0]);
            lines.get(at).is_some_and(|l| *l <= r[1])
        }) || self.symbols.iter().any(|s| {
            s.damaged && {
                let at = lines.partition_point(|l| *l < s.start_line);
                lines.get(at).is_some_and(|l| *l <= s.end_line)
            }
        });
        hit.then(|| damage.says(self.language.unwrap_or("its language")))
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

/// Where a file that was outlined does not parse: the line ranges
/// tree-sitter's error recovery marked (an `ERROR` node's lines, a
/// `MISSING` token's line), merged, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Damage {
    /// The first line (1-based) the parser stopped understanding.
    pub first_line: u32,
    /// The damaged ranges, `[first, last]` lines (1-based, inclusive); at
    /// most [`MAX_DAMAGE_RANGES`], the last one running to the end of the
    /// file past that.
    pub ranges: Vec<[u32; 2]>,
}

impl Damage {
    /// One sentence: where the file stops parsing.
    pub fn says(&self, language: &str) -> String {
        let lines = |r: &[u32; 2]| {
            if r[0] == r[1] {
                r[0].to_string()
            } else {
                format!("{}-{}", r[0], r[1])
            }
        };
        let listed: Vec<String> = self.ranges.iter().take(4).map(lines).collect();
        let more = self.ranges.len().saturating_sub(4);
        format!(
            "the file does not parse as {language} from line {} (the parser stopped understanding it there; damaged lines {}{})",
            self.first_line,
            listed.join(", "),
            if more > 0 {
                format!(" and {more} more ranges")
            } else {
                String::new()
            }
        )
    }

    /// Whether the lines `first..=last` meet a damaged range.
    pub fn meets(&self, first: u32, last: u32) -> bool {
        self.ranges.iter().any(|r| r[0] <= last && first <= r[1])
    }
}

/// The most damaged ranges an outline keeps; past it the last one runs to
/// the end of the file.
pub const MAX_DAMAGE_RANGES: usize = 64;

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
        damage: None,
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

#[cfg(feature = "grammar")]
use super::parse::parse;

/// Without a grammar every file is whole-file.
#[cfg(not(feature = "grammar"))]
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
