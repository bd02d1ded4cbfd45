//! What the outline learned of each content, as facts another process can
//! use: the semantic hash of a content and, when it was outlined, its
//! outline, keyed by language and BLAKE3 of the content.
//!
//! A [`super::SymbolCache`] records every content it parses
//! (`take_learned` hands them over) and can be given the facts an earlier
//! process learned (`seed_kept`): a seeded content is never parsed again. Where they are kept is the
//! caller's business (the hash cache's `content_facts` table); this module
//! only turns them into text and back, stamped with [`version`] so a build
//! whose grammars, queries or hashing differ never reads another's.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use super::kept::Key;
use super::lang::Lang;
use super::outline::{Outline, SemanticHash, Symbol};

/// Bump when the outline or the token hash changes in a way the queries'
/// text does not show (the walk, the extents, what a hash covers).
const FORMAT: u32 = 4;

/// One content's facts.
#[derive(Debug, Clone)]
pub struct Fact {
    /// The content's key: its language (by the path's extension) and its BLAKE3.
    pub key: ContentKey,
    /// Its semantic hash.
    pub hash: SemanticHash,
    /// Its outline, when it was outlined (not only hashed).
    pub outline: Option<Arc<Outline>>,
}

/// A content's key: the language it is read as, and its BLAKE3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ContentKey {
    /// The language (`None`: a file the outline does not know).
    pub lang: Option<Lang>,
    /// BLAKE3 of the bytes.
    pub content: [u8; 32],
}

impl ContentKey {
    /// The key of `bytes` as the content of `path`.
    pub fn of(path: &str, bytes: &[u8]) -> ContentKey {
        ContentKey {
            lang: Lang::of_path(path),
            content: *blake3::hash(bytes).as_bytes(),
        }
    }

    /// The language's name as kept (`""` for none).
    pub fn lang_name(&self) -> &'static str {
        self.lang.map_or("", Lang::name)
    }

    pub(super) fn as_key(&self) -> Key {
        (self.lang, self.content)
    }
}

/// The stamp of this build's facts: its format, every grammar it has (its
/// ABI, version metadata, node kinds, fields and parse table size, so a
/// grammar crate upgraded under the same notarai version changes it), the
/// text of notarai's queries, the hashing rules' version and the outline's
/// limits.
pub fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&FORMAT.to_le_bytes());
        hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
        for lang in Lang::ALL {
            hasher.update(lang.name().as_bytes());
            hasher.update(super::lang::query_text(lang).unwrap_or("-").as_bytes());
            super::lang::grammar_stamp(lang, &mut hasher);
        }
        // The hashing rules and the outline's limits: a build that hashes
        // or outlines differently never trusts what another learned.
        hasher.update(super::outline::HASH_RULES.as_bytes());
        hasher.update(&(super::outline::MAX_PARSED_BYTES as u64).to_le_bytes());
        hasher.update(&(super::outline::MAX_NESTING as u64).to_le_bytes());
        hasher.update(&(super::outline::NESTED_BYTES_FACTOR as u64).to_le_bytes());
        hasher.finalize().to_hex()[..16].to_string()
    })
}

/// An outline as kept: everything but what the key gives back.
#[derive(Serialize, Deserialize)]
struct KeptOutline {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fallback: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    damage: Option<super::outline::Damage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    symbols: Vec<KeptSymbol>,
}

/// A symbol as kept.
#[derive(Serialize, Deserialize)]
struct KeptSymbol {
    name: String,
    kind: String,
    start: u32,
    end: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parent: Option<usize>,
    hash: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    damaged: bool,
}

impl Fact {
    /// The semantic hash as text (`tokens3:<hex>`, `bytes:<hex>`).
    pub fn hash_text(&self) -> String {
        self.hash.to_string()
    }

    /// The outline as text (JSON), when there is one.
    pub fn outline_text(&self) -> Option<String> {
        let outline = self.outline.as_ref()?;
        let kept = KeptOutline {
            fallback: outline.fallback.clone(),
            damage: outline.damage.clone(),
            symbols: outline
                .symbols
                .iter()
                .map(|s| KeptSymbol {
                    name: s.name.clone(),
                    kind: s.kind.to_string(),
                    start: s.start_line,
                    end: s.end_line,
                    parent: s.parent,
                    hash: blake3::Hash::from(s.hash).to_hex().to_string(),
                    damaged: s.damaged,
                })
                .collect(),
        };
        serde_json::to_string(&kept).ok()
    }

    /// A fact back from its kept text; `None` when any part does not read
    /// (a damaged row is a miss, never a wrong answer).
    pub fn from_kept(
        lang: &str,
        content: &[u8],
        hash: &str,
        outline_text: Option<&str>,
    ) -> Option<Fact> {
        let kept = KeptFact::from_kept(lang, content, hash, None)?;
        let outline = match outline_text {
            None => None,
            Some(text) => Some(outline_of(kept.key.lang, kept.hash, text)?),
        };
        Some(Fact {
            key: kept.key,
            hash: kept.hash,
            outline,
        })
    }
}

/// A fact as an earlier process kept it, its outline still text:
/// [`SymbolCache::seed_kept`](super::SymbolCache::seed_kept) keeps the
/// hash at once and reads the outline only when it is asked for (most
/// questions need only the hashes: reading every outline cost a fresh
/// server's first question a tenth of its time).
#[derive(Debug, Clone)]
pub struct KeptFact {
    /// The content's key.
    pub key: ContentKey,
    /// Its semantic hash.
    pub hash: SemanticHash,
    /// Its outline as kept (JSON), when it was outlined.
    pub outline: Option<String>,
}

impl KeptFact {
    /// A kept row read back; `None` when its key or hash does not read. Its
    /// outline is read later, on its own: a damaged outline is then a miss
    /// of the outline (the content is parsed again), the hash reads on its
    /// own.
    pub fn from_kept(
        lang: &str,
        content: &[u8],
        hash: &str,
        outline: Option<String>,
    ) -> Option<KeptFact> {
        let lang = match lang {
            "" => None,
            name => Some(Lang::of_name(name)?),
        };
        let key = ContentKey {
            lang,
            content: content.try_into().ok()?,
        };
        Some(KeptFact {
            key,
            hash: parse_hash(hash)?,
            outline,
        })
    }
}

/// The outline kept as `text` for a content in `lang` whose semantic hash
/// is `hash`; `None` when any part does not read.
pub(super) fn outline_of(
    lang: Option<Lang>,
    hash: SemanticHash,
    text: &str,
) -> Option<Arc<Outline>> {
    let kept: KeptOutline = serde_json::from_str(text).ok()?;
    let count = kept.symbols.len();
    let mut symbols = Vec::with_capacity(count);
    for (i, s) in kept.symbols.into_iter().enumerate() {
        if s.parent.is_some_and(|p| p >= i) || s.start > s.end {
            return None;
        }
        symbols.push(Symbol {
            name: s.name,
            kind: super::outline::static_kind(&s.kind),
            start_line: s.start,
            end_line: s.end,
            parent: s.parent,
            hash: blake3::Hash::from_hex(&s.hash).ok()?.into(),
            damaged: s.damaged,
        });
    }
    Some(Arc::new(Outline {
        language: lang.map(Lang::name),
        fallback: kept.fallback,
        damage: kept.damage,
        symbols,
        separator: lang.map_or(".", Lang::separator),
        file_hash: hash,
        by_name: Default::default(),
    }))
}

/// A semantic hash from its text.
fn parse_hash(text: &str) -> Option<SemanticHash> {
    let (kind, hex) = text.split_once(':')?;
    let tokens = match kind {
        "tokens3" => true,
        "bytes" => false,
        _ => return None,
    };
    Some(SemanticHash {
        tokens,
        digest: blake3::Hash::from_hex(hex).ok()?.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_reads_back_as_it_was_and_a_damaged_one_is_a_miss() {
        let source = b"struct A;\nimpl A {\n    /// Doc.\n    fn f(&self) -> u8 { 1 }\n}\n";
        let outline = Arc::new(super::super::outline("src/a.rs", source));
        let fact = Fact {
            key: ContentKey::of("src/a.rs", source),
            hash: outline.file_hash,
            outline: Some(outline.clone()),
        };
        let text = fact.outline_text().unwrap();
        let back = Fact::from_kept("rust", &fact.key.content, &fact.hash_text(), Some(&text))
            .expect("reads back");
        let again = back.outline.unwrap();
        assert_eq!(again.symbols, outline.symbols);
        assert_eq!(again.file_hash, outline.file_hash);
        assert_eq!(again.language, outline.language);
        assert_eq!(again.separator, outline.separator);
        assert_eq!(again.fallback, outline.fallback);
        assert!(outline.symbols.iter().any(|s| s.parent.is_some()));
        // Damaged rows are misses.
        let key = fact.key.content;
        assert!(Fact::from_kept("cobol", &key, &fact.hash_text(), None).is_none());
        assert!(Fact::from_kept("rust", &key[..31], &fact.hash_text(), None).is_none());
        assert!(Fact::from_kept("rust", &key, "tokens9:00", None).is_none());
        // The token-stream hash of older builds is never read as the program's.
        let old = fact.hash_text().replacen("tokens3", "tokens2", 1);
        assert!(Fact::from_kept("rust", &key, &old, None).is_none());
        assert!(Fact::from_kept("rust", &key, &fact.hash_text(), Some("{")).is_none());
        let loop_parent = text.replacen("\"parent\":1", "\"parent\":2", 1);
        assert_ne!(loop_parent, text);
        assert!(Fact::from_kept("rust", &key, &fact.hash_text(), Some(&loop_parent)).is_none());
    }

    #[test]
    fn the_stamp_covers_each_grammar() {
        let stamp = |lang: Lang| {
            let mut hasher = blake3::Hasher::new();
            super::super::lang::grammar_stamp(lang, &mut hasher);
            hasher.finalize()
        };
        assert_eq!(stamp(Lang::Rust), stamp(Lang::Rust));
        let all = Lang::ALL;
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(stamp(*a), stamp(*b), "{a:?} and {b:?}");
            }
        }
    }

    #[test]
    fn the_version_is_stable_within_a_build() {
        assert_eq!(version(), version());
        assert_eq!(version().len(), 16);
    }
}
