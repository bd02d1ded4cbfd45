//! The facts one process learned of contents, kept for the next: each
//! content's semantic hash and outline ([`crate::symbols::Fact`]), by
//! language and BLAKE3 of the content, stamped with the build's
//! [`crate::symbols::facts_version`].
//!
//! A database of its own, `.notarai/.cache/facts.db`, beside the hash
//! cache: writing it never moves the hash cache's stamps (which bind the
//! long-lived server's kept answers) and never waits for the hash cache's
//! writers. It is derived data, so it never fails anything: a missing,
//! unreadable, corrupt or busy database is a miss; a write that would wait
//! for another writer is dropped; a read-only process writes nothing. The
//! same checks as the hash cache keep it in real folders and regular files.
//! Bounded: at most [`MAX_FACTS`] rows, the oldest dropped first.
//! Callers must not use it when git tracks the cache folder (a cloned
//! repository could carry facts that hide a change).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use super::db::{open, open_unwritten};
use crate::symbols::{ContentKey, Fact, KeptFact, facts_version};

/// The most facts kept.
const MAX_FACTS: i64 = 20_000;

/// The database's path.
fn path(root: &Path) -> PathBuf {
    root.join(crate::layout::FACTS_FILE)
}

/// Whether the database may be opened: in real folders, a regular file.
fn usable(root: &Path) -> bool {
    super::check_location_of(root, crate::layout::FACTS_FILE).is_ok()
        && super::check_regular_at(&path(root)).is_none()
}

/// The facts kept for `keys` (those found and readable).
pub fn recall(root: &Path, keys: &[ContentKey]) -> Vec<KeptFact> {
    let db = path(root);
    if keys.is_empty() || !usable(root) || !db.is_file() {
        return Vec::new();
    }
    let opened = if crate::safe_fs::writes_forbidden() {
        open_unwritten(&db)
    } else {
        open(&db, false)
    };
    let Ok(conn) = opened else {
        return Vec::new();
    };
    match read(&conn, keys) {
        Ok(facts) => facts,
        Err(e) => {
            tracing::debug!("facts {}: not read ({e})", db.display());
            Vec::new()
        }
    }
}

fn read(conn: &Connection, keys: &[ContentKey]) -> rusqlite::Result<Vec<KeptFact>> {
    let version = facts_version();
    let mut stmt = conn.prepare(
        "SELECT hash, outline FROM facts WHERE version = ?1 AND lang = ?2 AND content = ?3",
    )?;
    let mut out = Vec::new();
    for key in keys {
        let row: Option<(String, Option<String>)> = stmt
            .query_row(params![version, key.lang_name(), &key.content[..]], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        if let Some((hash, outline)) = row
            && let Some(fact) = KeptFact::from_kept(key.lang_name(), &key.content, &hash, outline)
        {
            out.push(fact);
        }
    }
    Ok(out)
}

/// Keep `facts` for the next process; dropped (with a debug line) when
/// the database cannot be written at once.
pub fn keep(root: &Path, facts: &[Fact]) {
    if facts.is_empty() || crate::safe_fs::writes_forbidden() || !usable(root) {
        return;
    }
    if let Err(e) = write(root, facts) {
        // A damaged database is derived data: start it again, once.
        let damaged = e
            .downcast_ref::<rusqlite::Error>()
            .is_some_and(super::db::is_corruption);
        if damaged {
            clear(root);
            if let Err(e) = write(root, facts) {
                tracing::debug!("facts {}: not kept ({e})", path(root).display());
            }
        } else {
            tracing::debug!("facts {}: not kept ({e})", path(root).display());
        }
    }
}

fn write(root: &Path, facts: &[Fact]) -> anyhow::Result<()> {
    super::make_folder(root)?;
    let mut conn = open(&path(root), true)?;
    // Another writer at work: drop these rather than wait.
    conn.busy_timeout(Duration::ZERO)?;
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS facts (version TEXT NOT NULL, lang TEXT NOT NULL,
           content BLOB NOT NULL, hash TEXT NOT NULL, outline TEXT,
           PRIMARY KEY (version, lang, content));",
    )?;
    let version = facts_version();
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    {
        let mut stmt = tx.prepare(
            "INSERT INTO facts (version, lang, content, hash, outline) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (version, lang, content) DO UPDATE SET outline = coalesce(excluded.outline, outline)",
        )?;
        for fact in facts {
            stmt.execute(params![
                version,
                fact.key.lang_name(),
                &fact.key.content[..],
                fact.hash_text(),
                fact.outline_text(),
            ])?;
        }
    }
    tx.execute("DELETE FROM facts WHERE version <> ?1", params![version])?;
    tx.execute(
        "DELETE FROM facts WHERE rowid <= (SELECT max(rowid) FROM facts) - ?1",
        params![MAX_FACTS],
    )?;
    tx.commit()?;
    Ok(())
}

/// Remove the database and its side files (`notarai cache clear`).
pub fn clear(root: &Path) {
    if !usable(root) {
        return;
    }
    let db = path(root);
    if let Err(e) = super::remove_database(root, &db) {
        tracing::debug!("facts {}: not removed ({e})", db.display());
    }
}
