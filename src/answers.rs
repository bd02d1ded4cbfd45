//! Whole answers the long-lived server keeps, so that pages 2..N of a
//! paged answer cost a page, not the whole answer again.
//!
//! An answer is kept with the [`Token`] of the moment before it was
//! computed: the work tree's generation (`GitRepo::generation`, which moves
//! on every change the watch reports: a file, the index, `HEAD`, git's
//! configuration, an ignore file, the state file, a spec), the load of the
//! specs (a spec the watch cannot see, behind a link or in an ignored
//! folder, is stamped and reloaded) and the stamps of the local hash cache (written by this server or by another process,
//! which the watch does not see). It is served again only while the token
//! is the same, so a kept answer is never served after the work tree moved;
//! without a watch there is no token and nothing is kept. Before the watch
//! of a fresh server is ready, the generation is a fence's
//! (`changes/fence.rs`): its answers are kept, and the next question
//! checks the work tree against what the fence recorded before any is
//! served. This server's own
//! writes (`mark_reconciled`, `clear_cache`, `snapshot_state`,
//! `report_drift`) forget every kept answer and move the token's count of
//! writes when they begin and when they end, so an answer computed while a
//! write ran on another thread is not served after it. Memory is bounded: at most [`MAX_ANSWERS`] answers and
//! [`MAX_BYTES`] of their estimated size, the oldest dropped first.

use std::any::Any;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

/// The most answers kept.
const MAX_ANSWERS: usize = 8;

/// The most bytes (estimated) of kept answers.
pub const MAX_BYTES: usize = 256 * 1024 * 1024;

/// What an answer is valid for: the work tree's generation, this
/// process's count of writes begun and ended, and the hash cache's stamps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    generation: u64,
    writes: u64,
    cache: [Option<(i128, u64, u64)>; 2],
    /// Which load of the specs the answer was made from: a spec the watch
    /// does not see (behind a link, in an ignored folder) moves no
    /// generation, but its stamps reload the specs.
    specs: u64,
}

impl Token {
    /// The token now (`writes`: the process's count of writes begun and
    /// ended; `specs`: the number of the specs' load in use), or `None`
    /// when nothing may be kept (no watch).
    pub fn now(root: &Path, generation: Option<u64>, writes: u64, specs: u64) -> Option<Token> {
        let db = root.join(crate::layout::DB_FILE);
        let wal = db.with_extension("db-wal");
        Some(Token {
            generation: generation?,
            writes,
            cache: [crate::watch::stamp(&db), crate::watch::stamp(&wal)],
            specs,
        })
    }
}

/// One kept answer.
struct Entry {
    key: String,
    token: Token,
    bytes: usize,
    answer: Arc<dyn Any + Send + Sync>,
}

/// The kept answers of one project.
#[derive(Default)]
pub struct Answers {
    entries: VecDeque<Entry>,
}

impl std::fmt::Debug for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|e| (&e.key, &e.token, e.bytes)))
            .finish()
    }
}

impl Answers {
    /// The answer kept under `key`, when it was kept with `token`.
    pub fn get<T: Any + Send + Sync>(&self, key: &str, token: &Token) -> Option<Arc<T>> {
        let entry = self
            .entries
            .iter()
            .find(|e| e.key == key && &e.token == token)?;
        entry.answer.clone().downcast::<T>().ok()
    }

    /// Keep `answer` (about `bytes` large) under `key`, valid for `token`.
    /// An answer larger than [`MAX_BYTES`] is not kept.
    pub fn keep<T: Any + Send + Sync>(
        &mut self,
        key: String,
        token: Token,
        answer: T,
        bytes: usize,
    ) {
        self.entries.retain(|e| e.key != key && e.token == token);
        if bytes > MAX_BYTES {
            return;
        }
        while self.entries.len() >= MAX_ANSWERS
            || self.entries.iter().map(|e| e.bytes).sum::<usize>() + bytes > MAX_BYTES
        {
            if self.entries.pop_front().is_none() {
                break;
            }
        }
        self.entries.push_back(Entry {
            key,
            token,
            bytes,
            answer: Arc::new(answer),
        });
    }

    /// Forget every kept answer (after a write of this server).
    pub fn forget(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(generation: u64) -> Token {
        Token {
            generation,
            writes: 0,
            cache: [None, None],
            specs: 0,
        }
    }

    #[test]
    fn an_answer_is_served_only_for_its_token_and_key() {
        let mut answers = Answers::default();
        answers.keep("a".into(), token(1), 7u32, 4);
        assert_eq!(answers.get::<u32>("a", &token(1)).as_deref(), Some(&7));
        assert!(answers.get::<u32>("a", &token(2)).is_none());
        assert!(answers.get::<u32>("b", &token(1)).is_none());
        assert!(answers.get::<u64>("a", &token(1)).is_none());
        answers.forget();
        assert!(answers.get::<u32>("a", &token(1)).is_none());
    }

    #[test]
    fn memory_is_bounded_oldest_first() {
        let mut answers = Answers::default();
        for i in 0..MAX_ANSWERS + 2 {
            answers.keep(format!("{i}"), token(1), i, 1);
        }
        assert_eq!(answers.entries.len(), MAX_ANSWERS);
        assert!(answers.get::<usize>("0", &token(1)).is_none());
        answers.keep("big".into(), token(1), 0usize, MAX_BYTES + 1);
        assert!(answers.get::<usize>("big", &token(1)).is_none());
        // A newer generation drops what the older one kept.
        answers.keep("new".into(), token(2), 1usize, 1);
        assert_eq!(answers.entries.len(), 1);
    }
}
