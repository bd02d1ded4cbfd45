//! One reconciliation record: what was reviewed, for which spec, against
//! what content. The one shape the hash cache, the committed state file and
//! every tool share.
//!
//! A record is `(spec, path, symbol, hash, blob)`:
//! - `spec`: the spec the content was reviewed for, or [`Scope::EverySpec`]
//!   (`mark_reconciled` without `spec_path`, `notarai reconcile` without
//!   `--spec`, `cache update`, and every record written before per-spec
//!   reconciliation existed): reviewed for every spec that governs the file.
//! - `path` and an optional `symbol` (a symbol-level record; none yet).
//! - `hash`: a [`ContentHash`], typed by its [`HashKind`]: the BLAKE3 of the
//!   bytes, or a semantic hash (a token stream's, comments and whitespace
//!   dropped). [`HashKind::current`] is the one place a kind is computed.
//! - `blob`: the git blob id of the reviewed content, so a later diff can
//!   start from it (`get_spec_diff` "since reconciled").
//!
//! A file is reconciled for spec S when a record for S or for every spec
//! holds its current content. Reconciling for one spec never satisfies
//! another: a record for S is looked up only under S.

use std::collections::BTreeMap;

use crate::symbols::SymbolCache;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a content hash was computed.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HashKind {
    /// BLAKE3 of the file's bytes (a symbolic link: of its target text), or
    /// `deleted` for a file reviewed while deleted.
    #[default]
    Bytes,
    /// A hash of the token stream with comments and whitespace dropped, for
    /// the languages notarai parses.
    Semantic,
}

impl HashKind {
    /// The name stored in the cache and the state file.
    pub fn as_str(self) -> &'static str {
        match self {
            HashKind::Bytes => "bytes",
            HashKind::Semantic => "semantic",
        }
    }

    /// The kind a stored name names; `None` for a kind this build does not
    /// know (such a record never matches: the file reads as unreconciled).
    pub fn parse(name: &str) -> Option<HashKind> {
        match name {
            "bytes" | "" => Some(HashKind::Bytes),
            "semantic" => Some(HashKind::Semantic),
            _ => None,
        }
    }

    /// This kind's hash of the content at `path` now, given its bytes hash
    /// `bytes` (hex BLAKE3, or `deleted`). The one place a kind is computed.
    /// A semantic hash (`tokens3:<hex>`, [`crate::symbols::semantic_hash`])
    /// is known for content `kept` outlined; when it is not, the
    /// record does not match and the file is shown for review, never hidden.
    pub fn current(self, kept: &SymbolCache, path: &str, bytes: &str) -> Option<String> {
        match self {
            HashKind::Bytes => Some(bytes.to_string()),
            HashKind::Semantic => kept.known_semantic_hash(path, bytes).map(|h| h.to_string()),
        }
    }
}

/// A hash with its kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ContentHash {
    /// How it was computed.
    pub kind: HashKind,
    /// The hex digest (or `deleted`).
    pub value: String,
}

impl ContentHash {
    /// The bytes hash `value` (a hex BLAKE3, or `deleted`).
    pub fn bytes(value: impl Into<String>) -> ContentHash {
        ContentHash {
            kind: HashKind::Bytes,
            value: value.into(),
        }
    }

    /// Whether this hash is the hash of `content` (the content of `path`):
    /// its bytes' BLAKE3, or its token stream's (a semantic hash over
    /// tokens; content notarai cannot tokenize never matches one).
    pub fn is_hash_of(&self, path: &str, content: &[u8]) -> bool {
        match self.kind {
            HashKind::Bytes => blake3::hash(content).to_hex().as_str() == self.value,
            HashKind::Semantic => {
                let hash = crate::symbols::semantic_hash(path, content);
                hash.tokens && hash.to_string() == self.value
            }
        }
    }

    /// Whether this hash is the content at `path` whose bytes hash now is `bytes`.
    pub fn matches(&self, kept: &SymbolCache, path: &str, bytes: &str) -> bool {
        self.kind
            .current(kept, path, bytes)
            .is_some_and(|now| now == self.value)
    }
}

/// For which specs a record holds.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// Reviewed for every spec that governs the file.
    EverySpec,
    /// Reviewed for this spec only (its repository-relative path).
    Spec(String),
}

impl Scope {
    /// The cache's key: the spec's path, or the empty string for every spec.
    pub fn key(&self) -> &str {
        match self {
            Scope::EverySpec => "",
            Scope::Spec(s) => s,
        }
    }

    /// The scope a cache key names.
    pub fn from_key(key: &str) -> Scope {
        match key {
            "" => Scope::EverySpec,
            s => Scope::Spec(s.to_string()),
        }
    }
}

/// One record: `content` of `path` (or of its `symbol`) reviewed for `scope`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// For which specs.
    pub scope: Scope,
    /// The repository-relative file.
    pub path: String,
    /// A symbol of the file (a symbol-level record), or `None` for the whole file.
    pub symbol: Option<String>,
    /// The reviewed content's hash.
    pub hash: ContentHash,
    /// The git blob id of the reviewed content (absent for a deleted file,
    /// and in records written before blob ids were kept).
    pub blob: Option<String>,
}

/// A per-spec entry of the committed state file (schema "2"):
/// `spec_reviews[spec]["path"]` (or `"path#symbol"`). Read by the state
/// file's bounded reader (`state/parse.rs`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Review {
    /// The hex digest (or `deleted`).
    pub hash: String,
    /// How it was computed: `bytes` (default) or `semantic`; a name this
    /// build does not know is kept and never matches.
    #[serde(skip_serializing_if = "is_bytes")]
    pub kind: String,
    /// The git blob id of the reviewed content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// Keys this version does not know, kept as they were.
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: BTreeMap<String, serde_json::Value>,
}

fn is_bytes(kind: &str) -> bool {
    kind == HashKind::Bytes.as_str()
}

impl Review {
    /// The entry of `hash` and `blob`.
    pub fn new(hash: &ContentHash, blob: Option<String>) -> Review {
        Review {
            hash: hash.value.clone(),
            kind: hash.kind.as_str().into(),
            blob,
            other: BTreeMap::new(),
        }
    }

    /// Its typed hash; `None` when the kind is unknown to this build.
    pub fn content_hash(&self) -> Option<ContentHash> {
        Some(ContentHash {
            kind: HashKind::parse(&self.kind)?,
            value: self.hash.clone(),
        })
    }

    /// Whether it holds the content whose bytes hash now is `bytes`.
    pub fn matches(&self, kept: &SymbolCache, path: &str, bytes: &str) -> bool {
        self.content_hash()
            .is_some_and(|h| h.matches(kept, path, bytes))
    }
}

/// The state file's key of a record: `path`, or `path#symbol`.
pub fn entry_key(path: &str, symbol: Option<&str>) -> String {
    match symbol {
        Some(symbol) => format!("{path}#{symbol}"),
        None => path.to_string(),
    }
}

/// The path and symbol of a state-file key (the inverse of [`entry_key`]).
pub fn split_key(key: &str) -> (&str, Option<&str>) {
    match key.split_once('#') {
        Some((path, symbol)) => (path, Some(symbol)),
        None => (key, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept() -> SymbolCache {
        SymbolCache::new()
    }

    #[test]
    fn kinds_round_trip_and_unknown_never_matches() {
        for kind in [HashKind::Bytes, HashKind::Semantic] {
            assert_eq!(HashKind::parse(kind.as_str()), Some(kind));
        }
        let bytes = ContentHash::bytes("aa");
        assert!(bytes.matches(&kept(), "x", "aa"));
        assert!(!bytes.matches(&kept(), "x", "bb"));
        let semantic = ContentHash {
            kind: HashKind::Semantic,
            value: "aa".into(),
        };
        assert!(
            !semantic.matches(&kept(), "x", "aa"),
            "content never outlined: shown"
        );
        let mut review = Review::new(&bytes, Some("b1".into()));
        assert!(review.matches(&kept(), "x", "aa"));
        review.kind = "future".into();
        assert!(!review.matches(&kept(), "x", "aa"));
        assert_eq!(
            split_key(&entry_key("a.rs", Some("S::f"))),
            ("a.rs", Some("S::f"))
        );
        assert_eq!(Scope::from_key(Scope::EverySpec.key()), Scope::EverySpec);
    }

    #[test]
    fn a_hash_is_of_the_content_it_was_computed_from_only() {
        let reviewed = b"fn a() { 1; }\n";
        let bytes = ContentHash::bytes(blake3::hash(reviewed).to_hex().to_string());
        assert!(bytes.is_hash_of("r.rs", reviewed));
        assert!(!bytes.is_hash_of("r.rs", b"fn a() { 2; }\n"));
        let semantic = ContentHash {
            kind: HashKind::Semantic,
            value: crate::symbols::semantic_hash("r.rs", reviewed).to_string(),
        };
        assert!(semantic.is_hash_of("r.rs", b"fn a() {\n    1;\n}\n"));
        assert!(!semantic.is_hash_of("r.rs", b"fn a() { 2; }\n"));
        // Content with no token stream never holds a semantic hash.
        let text = ContentHash {
            kind: HashKind::Semantic,
            value: crate::symbols::semantic_hash("notes.txt", b"x").to_string(),
        };
        assert!(!text.is_hash_of("notes.txt", b"x"));
    }

    #[test]
    fn a_semantic_record_matches_reformatted_content_once_outlined() {
        let reviewed = b"fn a() { 1; }\n";
        let now = b"// note\nfn a() {\n    1;\n}\n";
        let recorded = ContentHash {
            kind: HashKind::Semantic,
            value: crate::symbols::semantic_hash("r.rs", reviewed).to_string(),
        };
        let bytes_now = blake3::hash(now).to_hex().to_string();
        let kept = kept();
        assert!(
            !recorded.matches(&kept, "r.rs", &bytes_now),
            "not outlined by this cache: shown"
        );
        kept.outline("r.rs", now);
        assert!(recorded.matches(&kept, "r.rs", &bytes_now));
        assert!(
            !recorded.matches(&SymbolCache::new(), "r.rs", &bytes_now),
            "another project's cache knows nothing of it"
        );
        let changed = b"fn a() { 2; }\n";
        kept.outline("r.rs", changed);
        assert!(!recorded.matches(&kept, "r.rs", &blake3::hash(changed).to_hex()));
    }

    #[test]
    fn a_record_of_the_old_token_hash_never_matches() {
        let src = b"fn a() { 1; }\n";
        let now = crate::symbols::semantic_hash("old.rs", src);
        let text = now.to_string();
        assert!(text.starts_with("tokens3:"), "{text}");
        let old = crate::record::ContentHash {
            kind: crate::record::HashKind::Semantic,
            value: text.replacen("tokens3", "tokens2", 1),
        };
        assert!(!old.matches(&kept(), "old.rs", &blake3::hash(src).to_hex()));
    }
}
