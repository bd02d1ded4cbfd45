//! The semantic hash of a content without its symbols: its program
//! ([`super::program`]: the syntax tree with every token the language
//! treats as code) for a language the outline parses (else the bytes);
//! [`super::SymbolCache`] keeps it by content. What a changed file no spec anchors needs (is the change formatting only?), and what
//! the reconciled state compares.

use super::lang::Lang;
use super::outline::{SemanticHash, bytes_hash};

/// The semantic hash of a file's content: its program's hash
/// (`symbols/program/`) for a language the outline parses, else its bytes.
/// Only the parse and the token walk are paid, not the symbols;
/// [`super::SymbolCache::semantic_hash`] keeps it by content.
pub fn semantic_hash(path: &str, bytes: &[u8]) -> SemanticHash {
    match Lang::of_path(path) {
        Some(lang)
            if bytes.len() <= super::outline::MAX_PARSED_BYTES
                && std::str::from_utf8(bytes).is_ok() =>
        {
            grammar::tokens(lang, bytes)
        }
        _ => bytes_hash(bytes),
    }
}

/// [`semantic_hash`] of two contents of one file (the old one at
/// `old_path`, the new one at `path`), the new one parsed incrementally
/// from the old one's tree: the region between
/// their common prefix and suffix is parsed again, the rest reused, which
/// gives the same tree (tree-sitter's incremental parsing) for less work.
pub fn semantic_hash_pair(
    old_path: &str,
    old: &[u8],
    path: &str,
    new: &[u8],
) -> (SemanticHash, SemanticHash) {
    let lang = match Lang::of_path(path) {
        Some(lang)
            if Lang::of_path(old_path) == Some(lang)
                && old.len() <= super::outline::MAX_PARSED_BYTES
                && new.len() <= super::outline::MAX_PARSED_BYTES
                && std::str::from_utf8(old).is_ok()
                && std::str::from_utf8(new).is_ok() =>
        {
            lang
        }
        _ => {
            return (semantic_hash(old_path, old), semantic_hash(path, new));
        }
    };
    grammar::token_pair(lang, old, new)
}

/// The parsing, with the grammars built in.
#[cfg(feature = "grammar")]
mod grammar {
    use super::super::lang::{self, Lang};
    use super::super::outline::{SemanticHash, bytes_hash};
    use super::super::parse::{parse_tree_from, tree_hash};
    use super::super::prepared::{Parsed, parse_prepared};

    /// The file hash the outline gives `bytes`, without finding the symbols.
    pub(super) fn tokens(lang: Lang, bytes: &[u8]) -> SemanticHash {
        let Some(config) = lang::config(lang) else {
            return bytes_hash(bytes);
        };
        match parse_prepared(config, bytes) {
            Some(parsed) => tree_hash(config, &parsed, bytes),
            None => bytes_hash(bytes),
        }
    }

    /// [`tokens`] of `old` and of `new`, `new` parsed from `old`'s tree
    /// edited by the one region where they differ (when neither side has
    /// errors or needed the pre-pass of `modern.rs`: each is then parsed
    /// on its own, as the outline parses it).
    pub(super) fn token_pair(lang: Lang, old: &[u8], new: &[u8]) -> (SemanticHash, SemanticHash) {
        let Some(config) = lang::config(lang) else {
            return (bytes_hash(old), bytes_hash(new));
        };
        let Some(parsed) = parse_prepared(config, old) else {
            return (bytes_hash(old), tokens(lang, new));
        };
        let old_hash = tree_hash(config, &parsed, old);
        if parsed.tree.root_node().has_error() || !parsed.marks.is_empty() {
            return (old_hash, tokens(lang, new));
        }
        let mut tree = parsed.tree;
        tree.edit(&edit_between(old, new));
        let new_hash = match parse_tree_from(config, new, Some(&tree)) {
            Some(new_tree) if !new_tree.root_node().has_error() => tree_hash(
                config,
                &Parsed {
                    tree: new_tree,
                    bytes: std::borrow::Cow::Borrowed(new),
                    marks: Vec::new(),
                },
                new,
            ),
            Some(_) => tokens(lang, new),
            None => bytes_hash(new),
        };
        (old_hash, new_hash)
    }

    /// The one edit that turns `old` into `new`: everything between their
    /// common prefix and their common suffix (which do not overlap).
    fn edit_between(old: &[u8], new: &[u8]) -> tree_sitter::InputEdit {
        let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        let room = old.len().min(new.len()) - prefix;
        let suffix = old
            .iter()
            .rev()
            .zip(new.iter().rev())
            .take(room)
            .take_while(|(a, b)| a == b)
            .count();
        let point = |bytes: &[u8], at: usize| {
            let before = &bytes[..at];
            let row = before.iter().filter(|&&b| b == b'\n').count();
            let column = at
                - before
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
            tree_sitter::Point { row, column }
        };
        tree_sitter::InputEdit {
            start_byte: prefix,
            old_end_byte: old.len() - suffix,
            new_end_byte: new.len() - suffix,
            start_position: point(old, prefix),
            old_end_position: point(old, old.len() - suffix),
            new_end_position: point(new, new.len() - suffix),
        }
    }
}

/// Without a grammar every content is hashed by its bytes.
#[cfg(not(feature = "grammar"))]
mod grammar {
    use super::super::lang::Lang;
    use super::super::outline::{SemanticHash, bytes_hash};

    pub(super) fn tokens(_lang: Lang, bytes: &[u8]) -> SemanticHash {
        bytes_hash(bytes)
    }

    pub(super) fn token_pair(_lang: Lang, old: &[u8], new: &[u8]) -> (SemanticHash, SemanticHash) {
        (bytes_hash(old), bytes_hash(new))
    }
}
