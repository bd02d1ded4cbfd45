//! A review whose content the file no longer has but whose program it
//! still has (issue 42): the file was edited in comments or formatting
//! only after the review. The comparison (`symbols::Outline::same_program`,
//! the one behind `formatting_only`) and what a snapshot keeps of such a
//! review so that CI, without this machine's cache, judges as it does.

use super::*;
use crate::symbols::{Lang, SymbolCache};

/// Whether `now`, the content of `path` now, is the same program as one
/// of `reviewed` (contents of `path`) other than itself: both parse cleanly and their
/// semantic file hashes are equal ([`crate::symbols::Outline::same_program`]).
pub fn same_program_as_any(
    kept: &SymbolCache,
    path: &str,
    reviewed: &[Vec<u8>],
    now: &[u8],
) -> bool {
    if Lang::of_path(path).is_none() || reviewed.is_empty() {
        return false;
    }
    let outlined = kept.outline(path, now);
    // The content now itself is a review of it (`skipped`), not this rule.
    reviewed
        .iter()
        .filter(|r| r.as_slice() != now)
        .any(|r| kept.outline(path, r).same_program(&outlined))
}

/// One file's sources for [`keep_same_program`]: its path, its proven
/// cache records, the committed records that count, and its content now.
pub(super) struct Candidate<'a> {
    /// The file.
    pub path: &'a str,
    /// This machine's proven cache records of it (`line.rs`).
    pub cached: &'a [Record],
    /// The existing state with the records that predate the base left out.
    pub committed: &'a State,
    /// Its content now (read only when a record asks).
    pub now: &'a dyn Fn() -> Option<Vec<u8>>,
}

/// Keep in `state` the reviews of `c.path` that a snapshot would drop for
/// not holding its content now, when it still has their program: a proven
/// record (a cache row of this line of work, or a committed record that
/// counts) naming a blob git has that hashes to it. A spec (or every spec)
/// that already has a record of the content now is left alone. Returns
/// how many were added (from the cache) and kept (from the state).
pub(super) fn keep_same_program(
    state: &mut State,
    git: &GitRepo,
    c: &Candidate<'_>,
) -> (usize, usize) {
    let now = std::cell::OnceCell::new();
    let same = |blob: Option<&str>, hash: Option<ContentHash>| {
        let (Some(id), Some(hash)) = (blob, hash) else {
            return false;
        };
        let Some(reviewed) = super::blobs::blob_content(git, id) else {
            return false;
        };
        hash.is_hash_of(c.path, &reviewed)
            && now
                .get_or_init(|| (c.now)())
                .as_deref()
                .is_some_and(|now| same_program_as_any(git.symbols(), c.path, &[reviewed], now))
    };
    let (mut added, mut kept) = (0, 0);
    if state.fingerprint(c.path).is_none() {
        let cached = c.cached.iter().find(|r| {
            r.scope == record::Scope::EverySpec
                && r.symbol.is_none()
                && r.hash.kind == HashKind::Bytes
                && same(r.blob.as_deref(), Some(r.hash.clone()))
        });
        if let Some(r) = cached {
            state.insert(c.path, &r.hash.value);
            if let Some(f) = state.file_fingerprints.get_mut(c.path) {
                f.blob = r.blob.clone();
            }
            added += 1;
        } else if let Some(f) = c.committed.file_fingerprints.get(c.path)
            && same(f.blob.as_deref(), Some(ContentHash::bytes(&f.blake3)))
        {
            state
                .file_fingerprints
                .insert(c.path.to_string(), f.clone());
            kept += 1;
        }
    }
    for r in c.cached {
        if let record::Scope::Spec(spec) = &r.scope
            && r.symbol.is_none()
            && state.review_for(spec, c.path).is_none()
            && same(r.blob.as_deref(), Some(r.hash.clone()))
        {
            let review = Review::new(&r.hash, r.blob.clone());
            state
                .spec_reviews
                .entry(spec.clone())
                .or_default()
                .insert(c.path.to_string(), review);
            added += 1;
        }
    }
    for (spec, entries) in &c.committed.spec_reviews {
        if let Some(review) = entries.get(c.path)
            && state.review_for(spec, c.path).is_none()
            && same(review.blob.as_deref(), review.content_hash())
        {
            state
                .spec_reviews
                .entry(spec.clone())
                .or_default()
                .insert(c.path.to_string(), review.clone());
            kept += 1;
        }
    }
    (added, kept)
}
