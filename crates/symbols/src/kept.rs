//! What one project keeps of its contents' symbols: the outlines made, the
//! semantic hashes found without an outline, and the facts learned and not
//! yet handed over ([`SymbolCache::take_learned`]). Owned by whoever serves
//! one repository (notarai's `Project`), never a process global: two
//! projects in one process (the tests, a future multi-root server) keep
//! apart, and dropping the project frees what it kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::facts::{ContentKey, Fact, KeptFact};
use super::lang::Lang;
use super::outline::{Outline, SemanticHash, outline};
use super::tokens;

/// A kept content's key: the language and the BLAKE3 of the content.
pub(super) type Key = (Option<Lang>, [u8; 32]);

/// Outlines (and hashes) kept, each map at most this many entries (it is
/// cleared when full).
pub(super) const KEPT_OUTLINES: usize = 4096;

/// The most facts kept waiting for [`SymbolCache::take_learned`] (the
/// oldest are dropped beyond it).
const MAX_LEARNED: usize = 8192;

/// The outline slot of one content: filled once; callers asking for the
/// same content at once wait for one parse.
type Slot = Arc<OnceLock<Arc<Outline>>>;

/// Outlines and semantic hashes kept by content, and the facts learned.
/// Each content is parsed once per cache: the long-lived server asks again
/// and again. Thread-safe: contents are parsed side by side, a map's lock
/// is held only to find or keep an entry.
#[derive(Debug, Default)]
pub struct SymbolCache {
    outlines: Mutex<HashMap<Key, Slot>>,
    hashes: Mutex<HashMap<Key, SemanticHash>>,
    /// Outlines an earlier process kept, still as text, read when asked
    /// for ([`SymbolCache::seed_kept`]).
    unread: Mutex<HashMap<Key, (SemanticHash, String)>>,
    learned: Mutex<Vec<Fact>>,
}

/// The lock of `m`, taken even when a thread panicked holding it (the maps
/// hold only finished values).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The key of `bytes` as the content of `path`.
fn key_of(path: &str, bytes: &[u8]) -> Key {
    (Lang::of_path(path), *blake3::hash(bytes).as_bytes())
}

impl SymbolCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// [`outline`], kept by content: the same bytes in the same language
    /// are parsed once per cache.
    pub fn outline(&self, path: &str, bytes: &[u8]) -> Arc<Outline> {
        let key = key_of(path, bytes);
        self.slot(key)
            .get_or_init(|| {
                let kept = lock(&self.unread).remove(&key);
                if let Some((hash, text)) = kept
                    && let Some(read) = super::facts::outline_of(key.0, hash, &text)
                {
                    return read;
                }
                let made = Arc::new(outline(path, bytes));
                self.learned(Fact {
                    key: ContentKey {
                        lang: key.0,
                        content: key.1,
                    },
                    hash: made.file_hash,
                    outline: Some(made.clone()),
                });
                made
            })
            .clone()
    }

    /// The semantic hash of a file's content ([`super::semantic_hash`]),
    /// kept by content; when no outline of it is kept, only the parse and
    /// the token walk are paid, not the symbols.
    pub fn semantic_hash(&self, path: &str, bytes: &[u8]) -> SemanticHash {
        let key = key_of(path, bytes);
        if let Some(found) = self.known(&key) {
            return found;
        }
        let made = tokens::semantic_hash(path, bytes);
        self.remember(&[(key, made)]);
        made
    }

    /// [`SymbolCache::semantic_hash`] of two contents of one file (the old
    /// one at `old_path`, the new one at `path`), the new one parsed
    /// incrementally from the old one's tree when neither is kept yet
    /// ([`super::semantic_hash_pair`]).
    pub fn semantic_hash_pair(
        &self,
        old_path: &str,
        old: &[u8],
        path: &str,
        new: &[u8],
    ) -> (SemanticHash, SemanticHash) {
        let (old_key, new_key) = (key_of(old_path, old), key_of(path, new));
        match (self.known(&old_key), self.known(&new_key)) {
            (None, None) => {
                let (a, b) = tokens::semantic_hash_pair(old_path, old, path, new);
                self.remember(&[(old_key, a), (new_key, b)]);
                (a, b)
            }
            (old_known, new_known) => (
                old_known.unwrap_or_else(|| self.semantic_hash(old_path, old)),
                new_known.unwrap_or_else(|| self.semantic_hash(path, new)),
            ),
        }
    }

    /// The semantic hash of the content of `path` whose BLAKE3 (hex) is
    /// `bytes_hex`, when this cache has outlined or hashed that content;
    /// `None` otherwise, and for content that did not parse or is in no
    /// language the outline knows (no token hash).
    pub fn known_semantic_hash(&self, path: &str, bytes_hex: &str) -> Option<SemanticHash> {
        let digest: [u8; 32] = blake3::Hash::from_hex(bytes_hex).ok()?.into();
        let hash = self.known(&(Lang::of_path(path), digest))?;
        hash.tokens.then_some(hash)
    }

    /// Whether this cache knows the content's semantic hash (it parsed
    /// it, or was given it).
    pub fn knows(&self, key: &ContentKey) -> bool {
        self.known(&key.as_key()).is_some()
    }

    /// Give this cache facts an earlier process kept: their hashes are
    /// kept at once, their outlines read only when [`SymbolCache::outline`]
    /// asks for one (a damaged one is then parsed again). Nothing given
    /// here is learned again.
    pub fn seed_kept(&self, facts: Vec<KeptFact>) {
        let hashes: Vec<(Key, SemanticHash)> =
            facts.iter().map(|f| (f.key.as_key(), f.hash)).collect();
        self.keep_hashes(&hashes);
        let mut unread = lock(&self.unread);
        for fact in facts {
            if let Some(text) = fact.outline {
                if unread.len() >= KEPT_OUTLINES {
                    unread.clear();
                }
                unread.insert(fact.key.as_key(), (fact.hash, text));
            }
        }
    }

    /// The facts learned by parsing since the last call, to keep for the
    /// next process (facts given by [`SymbolCache::seed_kept`] are not among them).
    pub fn take_learned(&self) -> Vec<Fact> {
        std::mem::take(&mut *lock(&self.learned))
    }

    /// The semantic hash of the content `key` names, when outlined or hashed.
    fn known(&self, key: &Key) -> Option<SemanticHash> {
        let outline = lock(&self.outlines).get(key).and_then(|s| s.get().cloned());
        if let Some(outline) = outline {
            return Some(outline.file_hash);
        }
        lock(&self.hashes).get(key).copied()
    }

    /// The slot of `key` among the kept outlines, made empty when there is
    /// none (the map is cleared when full).
    fn slot(&self, key: Key) -> Slot {
        let mut kept = lock(&self.outlines);
        if kept.len() >= KEPT_OUTLINES {
            kept.clear();
        }
        kept.entry(key).or_default().clone()
    }

    /// Keep hashes (bounded: cleared when full).
    fn keep_hashes(&self, found: &[(Key, SemanticHash)]) {
        let mut hashes = lock(&self.hashes);
        if hashes.len() + found.len() > KEPT_OUTLINES {
            hashes.clear();
        }
        hashes.extend(found.iter().copied());
    }

    /// Keep the hashes found here, and record them as learned.
    fn remember(&self, found: &[(Key, SemanticHash)]) {
        self.keep_hashes(found);
        for &((lang, content), hash) in found {
            self.learned(Fact {
                key: ContentKey { lang, content },
                hash,
                outline: None,
            });
        }
    }

    /// Record what a parse learned.
    fn learned(&self, fact: Fact) {
        let mut learned = lock(&self.learned);
        if learned.len() >= MAX_LEARNED {
            learned.drain(..MAX_LEARNED / 2);
        }
        learned.push(fact);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &[u8] = b"fn a() { let x = 1; }\n";

    #[test]
    fn two_caches_keep_apart() {
        let (one, two) = (SymbolCache::new(), SymbolCache::new());
        let key = ContentKey::of("a.rs", SRC);
        one.outline("a.rs", SRC);
        assert!(one.knows(&key));
        assert!(!two.knows(&key), "a second project learned nothing");
        assert_eq!(one.take_learned().len(), 1);
        assert!(two.take_learned().is_empty());
    }

    #[test]
    fn a_seeded_content_is_known_and_not_learned_again() {
        let first = SymbolCache::new();
        let hash = first.semantic_hash("a.rs", SRC);
        let facts = first.take_learned();
        assert_eq!(facts.len(), 1);
        assert!(first.take_learned().is_empty(), "taken once");
        let next = SymbolCache::new();
        let kept = facts.into_iter().map(|f| KeptFact {
            key: f.key,
            hash: f.hash,
            outline: f.outline_text(),
        });
        next.seed_kept(kept.collect());
        let hex = blake3::hash(SRC).to_hex();
        assert_eq!(next.known_semantic_hash("a.rs", &hex), Some(hash));
        assert_eq!(next.semantic_hash("a.rs", SRC), hash);
        assert!(
            next.take_learned().is_empty(),
            "a seeded content is not parsed"
        );
    }

    /// A kept outline is read when asked for, never parsed again; a
    /// damaged one is a miss of the outline only (parsed again, learned),
    /// its hash still known.
    #[test]
    fn a_kept_outline_is_read_when_asked_for() {
        let first = SymbolCache::new();
        let made = first.outline("a.rs", SRC);
        let fact = first.take_learned().pop().unwrap();
        let kept = |outline: Option<String>| KeptFact {
            key: fact.key,
            hash: fact.hash,
            outline,
        };
        let next = SymbolCache::new();
        next.seed_kept(vec![kept(fact.outline_text())]);
        assert_eq!(next.semantic_hash("a.rs", SRC), made.file_hash);
        assert_eq!(next.outline("a.rs", SRC).symbols, made.symbols);
        assert!(next.take_learned().is_empty(), "read, not parsed");
        let damaged = SymbolCache::new();
        damaged.seed_kept(vec![kept(Some("{".into()))]);
        assert_eq!(damaged.semantic_hash("a.rs", SRC), made.file_hash);
        assert!(damaged.take_learned().is_empty(), "the hash reads alone");
        assert_eq!(damaged.outline("a.rs", SRC).symbols, made.symbols);
        assert_eq!(damaged.take_learned().len(), 1, "parsed again");
    }

    #[test]
    fn the_pair_keeps_both_sides() {
        let kept = SymbolCache::new();
        let new: &[u8] = b"fn a() { let x = 2; }\n";
        let (a, b) = kept.semantic_hash_pair("a.rs", SRC, "a.rs", new);
        assert_eq!(
            (a, b),
            (
                super::super::semantic_hash("a.rs", SRC),
                super::super::semantic_hash("a.rs", new)
            )
        );
        assert!(kept.knows(&ContentKey::of("a.rs", SRC)));
        assert!(kept.knows(&ContentKey::of("a.rs", new)));
        assert_eq!(kept.take_learned().len(), 2);
    }
}
