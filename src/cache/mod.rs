//! The BLAKE3 hash cache: what has already been reconciled.
//!
//! A SQLite database at `.notarai/.cache/notarai.db`. Its table
//! `file_cache(path TEXT PRIMARY KEY, blake3_hash TEXT, updated_at INTEGER)`,
//! the same as the existing NotarAI writes (so its caches still read), holds
//! files reviewed for every spec that governs them, keyed by
//! repository-relative path. The table `reviews(spec, path, symbol, kind,
//! hash, blob, updated_at)` holds every record with its blob id
//! ([`crate::record::Record`]): `spec` is `''` for every spec, `symbol` `''`
//! for the whole file. A build that knows only `file_cache` ignores it.
//!
//! Schema 2 adds `made_at` to both tables: `<commit> <hash>`, the commit
//! `HEAD` was at when the row was written (`unborn` before the first commit
//! or outside git) and the hash it vouches for. A row proves a review only
//! with it, and only when it names the row's own hash (a writer that knows
//! nothing of the column, and updates the hash alone, leaves it stale: the
//! row then proves nothing); which commits count is the state's rule
//! (`state::Line`). Rows of schema 1 keep `NULL` there and prove nothing.
//!
//! Several processes share it (two MCP servers and a shell): the database runs
//! in WAL mode with a busy timeout, writes take the lock up front
//! (`BEGIN IMMEDIATE`) and go in one transaction. Reading never fails: a
//! missing, unreadable or corrupt database, or one that is not a regular file
//! (a FIFO would block the opener forever), is a cold cache (a corrupt file is
//! set aside under a new name, with a warning). Writing fails with a
//! [`CacheError`] that says what to do.
//!
//! In a read-only process ([`crate::safe_fs::writes_forbidden`], `notarai mcp
//! --read-only`) nothing of the cache is written: writing and clearing fail,
//! a corrupt database is left where it is, and the database is opened
//! read-only; without SQLite's side files (no writer at work) it is opened
//! `immutable`, so SQLite creates no `-wal` or `-shm` file either.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, params};

use db::{
    READ_ONLY, SchemaState, busy_retried, check_schema, describe, handle_unusable, is_corruption,
    lookup, lookup_records, migrate, open, open_unwritten, set_aside,
};

mod db;
pub mod facts;
mod place;

use crate::record::{HashKind, Record, Scope};
pub use place::{check_location, db_path, make_folder};
use place::{check_location_of, check_regular, check_regular_at, remove_database};

/// Location of the database relative to the project root.
const DB_RELATIVE: &str = crate::layout::DB_FILE;

/// The schema version this build writes (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 2;

/// How long a writer waits for another process's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Above this many keys a lookup reads the whole table once instead of
/// querying key by key.
const BULK_LOOKUP: usize = 4096;

/// Why the cache could not be written or inspected.
#[derive(Debug, thiserror::Error)]
#[error("hash cache {}: {cause}", db.display())]
pub struct CacheError {
    db: PathBuf,
    cause: String,
}

impl crate::error::Diagnose for CacheError {}

/// The hash cache of one project.
#[derive(Debug)]
pub struct Cache {
    db: PathBuf,
    conn: Option<Connection>,
}

/// What `cache status` reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CacheStats {
    /// Path of the database file.
    pub db: PathBuf,
    /// Whether the file exists.
    pub exists: bool,
    /// Number of cached entries.
    pub entries: u64,
    /// Unix seconds of the newest entry.
    pub newest: Option<i64>,
}

/// One row of the cache with the proof of where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cached<T> {
    /// The entry: a hash (`file_cache`) or a record (`reviews`).
    pub entry: T,
    /// `made_at` as stored (`<commit or unborn> <hash>`); `None` in a row
    /// written before the column existed.
    pub made_at: Option<String>,
}

/// The word `made_at` holds for a row written before the first commit (or
/// outside git).
pub const UNBORN: &str = "unborn";

/// The `made_at` value of a row of `hash` written while `HEAD` was at `head`
/// (a commit id, or [`UNBORN`]).
pub fn made_at(head: &str, hash: &str) -> String {
    format!("{head} {hash}")
}

/// The commit (or [`UNBORN`]) a row's `made_at` names, when it vouches for
/// the row's own `hash`; `None` otherwise (no proof).
pub fn made_at_commit<'m>(made_at: Option<&'m str>, hash: &str) -> Option<&'m str> {
    let (head, vouched) = made_at?.split_once(' ')?;
    (vouched == hash && !head.is_empty()).then_some(head)
}

impl Cache {
    /// Open the cache for reading. Never fails: when the database is missing
    /// or unusable the cache is cold (every lookup misses), and a corrupt file
    /// is renamed aside with a warning so the next write starts clean.
    pub fn open_read(root: &Path) -> Cache {
        let db = db_path(root);
        if let Err(why) = check_location(root) {
            tracing::warn!("{why}; treating the cache as cold");
            return Cache { db, conn: None };
        }
        if let Some(why) = check_regular(root) {
            tracing::warn!("{why}; treating the cache as cold");
            return Cache { db, conn: None };
        }
        if !db.exists() {
            return Cache { db, conn: None };
        }
        let read_only = crate::safe_fs::writes_forbidden();
        let opened = if read_only {
            open_unwritten(&db)
        } else {
            open(&db, false)
        };
        match opened {
            Ok(conn) => match check_schema(&conn) {
                Ok(SchemaState::Current) | Ok(SchemaState::Empty) => Cache {
                    db,
                    conn: Some(conn),
                },
                Ok(SchemaState::Future(v)) => {
                    tracing::warn!(
                        "hash cache {} was written by a newer notarai (schema {v}); treating it as cold",
                        db.display()
                    );
                    Cache { db, conn: None }
                }
                Err(e) => {
                    drop(conn);
                    handle_unusable(&db, &e, read_only);
                    Cache { db, conn: None }
                }
            },
            Err(e) => {
                handle_unusable(&db, &e, read_only);
                Cache { db, conn: None }
            }
        }
    }

    /// Open the cache for writing, creating the folder and the table.
    pub fn open_write(root: &Path) -> Result<Cache, CacheError> {
        let db = db_path(root);
        let err = |cause: String| CacheError {
            db: db.clone(),
            cause,
        };
        if crate::safe_fs::writes_forbidden() {
            return Err(err(READ_ONLY.into()));
        }
        check_location(root).map_err(err)?;
        if let Some(why) = check_regular(root) {
            return Err(err(why));
        }
        make_folder(root).map_err(|e| {
            err(format!(
                "cannot create the cache folder: {e}; check its permissions"
            ))
        })?;
        let conn = match open(&db, true) {
            Ok(conn) => conn,
            Err(e) if is_corruption(&e) => {
                set_aside(&db);
                open(&db, true).map_err(|e| err(describe(&e)))?
            }
            Err(e) => return Err(err(describe(&e))),
        };
        match check_schema(&conn) {
            Ok(SchemaState::Future(v)) => {
                return Err(err(format!(
                    "written by a newer notarai (schema {v}, this build knows {SCHEMA_VERSION}); upgrade notarai or run `notarai cache clear`"
                )));
            }
            Ok(_) => {}
            Err(e) if is_corruption(&e) => {
                drop(conn);
                set_aside(&db);
                return Cache::open_write(root);
            }
            Err(e) => return Err(err(describe(&e))),
        }
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS file_cache (path TEXT PRIMARY KEY, blake3_hash TEXT, updated_at INTEGER, made_at TEXT);
             CREATE TABLE IF NOT EXISTS reviews (spec TEXT NOT NULL, path TEXT NOT NULL, symbol TEXT NOT NULL DEFAULT '',
               kind TEXT NOT NULL, hash TEXT NOT NULL, blob TEXT, updated_at INTEGER, made_at TEXT, PRIMARY KEY (spec, path, symbol));
             CREATE INDEX IF NOT EXISTS reviews_path ON reviews (path);",
        )
        .map_err(|e| err(describe(&e)))?;
        migrate(&conn).map_err(|e| err(describe(&e)))?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| err(describe(&e)))?;
        if version < SCHEMA_VERSION {
            conn.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION};"))
                .map_err(|e| err(describe(&e)))?;
        }
        Ok(Cache {
            db,
            conn: Some(conn),
        })
    }

    /// Look up the cached hashes of `keys` (reviewed for every spec), each
    /// with its `made_at`; keys not cached are absent from the map. Errors
    /// degrade to misses with a warning.
    pub fn lookup<'k>(
        &self,
        keys: impl IntoIterator<Item = &'k str>,
    ) -> HashMap<String, Cached<String>> {
        let Some(conn) = &self.conn else {
            return HashMap::new();
        };
        let keys: Vec<&str> = keys.into_iter().collect();
        match lookup(conn, &keys) {
            Ok(map) => map,
            Err(e) => {
                tracing::warn!(
                    "hash cache {}: read failed ({}); treating it as cold",
                    self.db.display(),
                    describe(&e)
                );
                HashMap::new()
            }
        }
    }

    /// The records of `paths` (every scope and symbol), by path, each with
    /// its `made_at`. A database without the `reviews` table or its
    /// `made_at` column (written before them) has none; errors degrade to
    /// none with a warning.
    pub fn lookup_records<'k>(
        &self,
        paths: impl IntoIterator<Item = &'k str>,
    ) -> HashMap<String, Vec<Cached<Record>>> {
        let Some(conn) = &self.conn else {
            return HashMap::new();
        };
        let paths: Vec<&str> = paths.into_iter().collect();
        match lookup_records(conn, &paths) {
            Ok(map) => map,
            Err(e) => {
                tracing::warn!(
                    "hash cache {}: read failed ({}); treating it as cold",
                    self.db.display(),
                    describe(&e)
                );
                HashMap::new()
            }
        }
    }

    /// Store `records`, made while `HEAD` was at `head` (a commit id, or
    /// [`UNBORN`]), in one transaction (a record for every spec also in
    /// `file_cache`, which older builds read); `cancelled` is asked right
    /// before the commit (`None`: rolled back, nothing written).
    pub fn store_records(
        &mut self,
        records: &[Record],
        head: &str,
        cancelled: impl Fn() -> bool,
    ) -> Result<Option<usize>, CacheError> {
        let db = self.db.clone();
        let Some(conn) = self.conn.as_mut() else {
            return Err(CacheError {
                db,
                cause: "the cache is not open for writing".into(),
            });
        };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let write = |conn: &mut Connection| -> rusqlite::Result<Option<usize>> {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            {
                let mut review = tx.prepare_cached(
                    "INSERT INTO reviews (spec, path, symbol, kind, hash, blob, updated_at, made_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                     ON CONFLICT(spec, path, symbol) DO UPDATE SET kind = excluded.kind, hash = excluded.hash,
                       blob = excluded.blob, updated_at = excluded.updated_at, made_at = excluded.made_at",
                )?;
                let mut file = tx.prepare_cached(
                    "INSERT INTO file_cache (path, blake3_hash, updated_at, made_at) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT(path) DO UPDATE SET blake3_hash = excluded.blake3_hash, updated_at = excluded.updated_at,
                       made_at = excluded.made_at",
                )?;
                for r in records {
                    let made = made_at(head, &r.hash.value);
                    review.execute(params![
                        r.scope.key(),
                        r.path,
                        r.symbol.as_deref().unwrap_or(""),
                        r.hash.kind.as_str(),
                        r.hash.value,
                        r.blob,
                        now,
                        made
                    ])?;
                    if r.scope == Scope::EverySpec
                        && r.symbol.is_none()
                        && r.hash.kind == HashKind::Bytes
                    {
                        file.execute(params![r.path, r.hash.value, now, made])?;
                    }
                }
            }
            if cancelled() {
                return Ok(None);
            }
            tx.commit()?;
            Ok(Some(records.len()))
        };
        retrying_busy(db, conn, write)
    }

    /// Entry count and newest entry time.
    pub fn status(root: &Path) -> Result<CacheStats, CacheError> {
        let db = db_path(root);
        check_location(root).map_err(|cause| CacheError {
            db: db.clone(),
            cause,
        })?;
        let irregular = check_regular(root);
        if let Some(why) = &irregular {
            tracing::warn!("{why}; treating the cache as cold");
        }
        if irregular.is_some() || !db.exists() {
            return Ok(CacheStats {
                db,
                exists: false,
                entries: 0,
                newest: None,
            });
        }
        let err = |e: rusqlite::Error| CacheError {
            db: db.clone(),
            cause: describe(&e),
        };
        let conn = open(&db, false).map_err(err)?;
        if matches!(check_schema(&conn).map_err(err)?, SchemaState::Empty) {
            return Ok(CacheStats {
                db: db.clone(),
                exists: true,
                entries: 0,
                newest: None,
            });
        }
        let (entries, newest): (i64, Option<i64>) = conn
            .query_row(
                "SELECT COUNT(*), MAX(updated_at) FROM file_cache",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(err)?;
        Ok(CacheStats {
            db: db.clone(),
            exists: true,
            entries: entries as u64,
            newest,
        })
    }

    /// Remove the database and its `-wal`/`-shm` files. Returns whether a
    /// database existed.
    pub fn clear(root: &Path) -> Result<bool, CacheError> {
        let db = db_path(root);
        if crate::safe_fs::writes_forbidden() {
            return Err(CacheError {
                db,
                cause: READ_ONLY.into(),
            });
        }
        check_location(root).map_err(|cause| CacheError {
            db: db.clone(),
            cause,
        })?;
        facts::clear(root);
        let existed = db.exists();
        remove_database(root, &db).map_err(|e| CacheError {
            db: db.clone(),
            cause: format!("cannot remove: {e}"),
        })?;
        Ok(existed)
    }
}

/// Run the write transaction `write` on `conn`: the busy timeout covers
/// ordinary contention; a few retries cover the rare busy answer SQLite
/// gives without waiting (WAL recovery). Any other failure is the cache's
/// `write failed` error naming `db`.
fn retrying_busy<T>(
    db: PathBuf,
    conn: &mut Connection,
    write: impl Fn(&mut Connection) -> rusqlite::Result<T>,
) -> Result<T, CacheError> {
    busy_retried(|| write(conn)).map_err(|e| CacheError {
        db,
        cause: format!("write failed: {}", describe(&e)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every(path: &str, hash: &str) -> Record {
        Record {
            scope: Scope::EverySpec,
            path: path.into(),
            symbol: None,
            hash: crate::record::ContentHash::bytes(hash),
            blob: None,
        }
    }

    fn store(cache: &mut Cache, records: &[Record]) {
        cache.store_records(records, "c0", || false).unwrap();
    }

    #[test]
    fn round_trip_with_proof_and_clear() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Cache::open_read(dir.path()).lookup(["a"]).is_empty());
        let mut cache = Cache::open_write(dir.path()).unwrap();
        store(&mut cache, &[every("a", "h1"), every("b", "h2")]);
        cache
            .store_records(&[every("a", "h3")], "c1", || false)
            .unwrap();
        let read = Cache::open_read(dir.path());
        let got = read.lookup(["a", "b", "c"]);
        assert_eq!(got["a"].entry, "h3");
        assert_eq!(
            made_at_commit(got["a"].made_at.as_deref(), "h3"),
            Some("c1")
        );
        assert_eq!(
            made_at_commit(got["b"].made_at.as_deref(), "h2"),
            Some("c0")
        );
        // made_at vouches for its own hash only.
        assert_eq!(made_at_commit(got["b"].made_at.as_deref(), "h3"), None);
        assert!(!got.contains_key("c"));
        let records = read.lookup_records(["a"]);
        assert_eq!(records["a"][0].entry.hash.value, "h3");
        let keys: Vec<String> = (0..5000).map(|i| format!("k{i}")).collect();
        let bulk = read.lookup(keys.iter().map(String::as_str).chain(["a"]));
        assert_eq!(bulk.len(), 1);
        assert_eq!(Cache::status(dir.path()).unwrap().entries, 2);
        drop((cache, read));
        assert!(Cache::clear(dir.path()).unwrap());
        assert!(!Cache::clear(dir.path()).unwrap());
    }

    #[test]
    fn schema_one_rows_prove_nothing_and_are_migrated() {
        let dir = tempfile::tempdir().unwrap();
        make_folder(dir.path()).unwrap();
        let conn = Connection::open(db_path(dir.path())).unwrap();
        conn.execute_batch(
            "CREATE TABLE file_cache (path TEXT PRIMARY KEY, blake3_hash TEXT, updated_at INTEGER);
             INSERT INTO file_cache VALUES ('a', 'h', 0);
             PRAGMA user_version = 1;",
        )
        .unwrap();
        drop(conn);
        // Before a write migrates it: no `made_at` column, no proof.
        assert!(Cache::open_read(dir.path()).lookup(["a"]).is_empty());
        let mut cache = Cache::open_write(dir.path()).unwrap();
        let got = Cache::open_read(dir.path()).lookup(["a"]);
        assert_eq!(got["a"].made_at, None, "an old row keeps no proof");
        store(&mut cache, &[every("b", "h")]);
        let got = Cache::open_read(dir.path()).lookup(["b"]);
        assert_eq!(made_at_commit(got["b"].made_at.as_deref(), "h"), Some("c0"));
    }

    #[test]
    fn corrupt_database_is_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_path(dir.path());
        std::fs::create_dir_all(db.parent().unwrap()).unwrap();
        std::fs::write(&db, vec![0x42u8; 8192]).unwrap();
        assert!(Cache::open_read(dir.path()).conn.is_none());
        assert!(!db.exists(), "the corrupt file is moved aside");
        let mut cache = Cache::open_write(dir.path()).unwrap();
        store(&mut cache, &[every("a", "h")]);
    }

    #[test]
    fn future_schema_is_cold_and_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        store(
            &mut Cache::open_write(dir.path()).unwrap(),
            &[every("a", "h")],
        );
        let conn = Connection::open(db_path(dir.path())).unwrap();
        conn.execute_batch("PRAGMA user_version = 99;").unwrap();
        drop(conn);
        assert!(Cache::open_read(dir.path()).conn.is_none());
        let err = Cache::open_write(dir.path()).unwrap_err().to_string();
        assert!(err.contains("newer notarai"), "{err}");
    }
}
