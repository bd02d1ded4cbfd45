//! The SQLite side of the hash cache: opening the database (read-only,
//! `immutable` without side files, a corrupt one set aside), its schema
//! version, and the lookups by key.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension};

use super::{BULK_LOOKUP, BUSY_TIMEOUT, Cached, SCHEMA_VERSION};
use crate::record::{ContentHash, HashKind, Record, Scope};

pub(super) enum SchemaState {
    /// No `file_cache` table yet.
    Empty,
    Current,
    Future(i64),
}

/// Why a read-only process does not write the cache.
pub(super) const READ_ONLY: &str =
    "this notarai process is read-only (`notarai mcp --read-only`) and does not write the cache";

/// Open the database without writing anything: read-only, and `immutable`
/// (no locks, no side files created) unless a writer's `-wal` or `-shm` is
/// there, whose pages must then be read through them.
pub(super) fn open_unwritten(db: &Path) -> rusqlite::Result<Connection> {
    let side_files = ["-wal", "-shm"]
        .iter()
        .any(|suffix| std::fs::symlink_metadata(format!("{}{suffix}", db.display())).is_ok());
    let mut uri = String::from("file:");
    for byte in db.as_os_str().as_encoded_bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'-' | b'.' | b'_' | b'~' => {
                uri.push(*byte as char)
            }
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri.push_str(if side_files {
        "?mode=ro"
    } else {
        "?immutable=1"
    });
    let conn = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

pub(super) fn open(db: &Path, write: bool) -> rusqlite::Result<Connection> {
    let flags = if write {
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
    } else {
        OpenFlags::SQLITE_OPEN_READ_WRITE
    } | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let conn = match Connection::open_with_flags(db, flags) {
        Ok(conn) => conn,
        // A read-only file or folder: read it as it is.
        Err(_) if !write => Connection::open_with_flags(
            db,
            OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_NOFOLLOW,
        )?,
        Err(e) => return Err(e),
    };
    conn.busy_timeout(BUSY_TIMEOUT)?;
    if write {
        // WAL lets readers go on while one process writes.
        // Switching a new database to WAL takes its lock without waiting:
        // processes creating it together may be told it is busy at once.
        let mode: String =
            busy_retried(|| conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)))?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::debug!("hash cache journal mode is {mode}, not wal");
        }
        conn.execute_batch("PRAGMA synchronous = NORMAL;")?;
    }
    Ok(conn)
}

pub(super) fn check_schema(conn: &Connection) -> rusqlite::Result<SchemaState> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Ok(SchemaState::Future(version));
    }
    let table: Option<String> = conn
        .query_row(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'file_cache'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    if table.is_none() {
        return Ok(SchemaState::Empty);
    }
    // Reading one row proves the table's pages are readable.
    conn.query_row(
        "SELECT path, blake3_hash FROM file_cache LIMIT 1",
        [],
        |_| Ok(()),
    )
    .optional()?;
    Ok(SchemaState::Current)
}

/// Whether `table` has the `made_at` column (a database written before it
/// has none: its rows prove nothing and read as absent).
pub(super) fn has_made_at(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})"))?;
    let names = stmt.query_map([], |r| r.get::<_, String>(1))?;
    for name in names {
        if name? == "made_at" {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Add the `made_at` column to the tables that lack it (a database of
/// schema 1): their rows keep `NULL` there, which proves nothing.
pub(super) fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    for table in ["file_cache", "reviews"] {
        if !has_made_at(conn, table)? {
            conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN made_at TEXT;"))?;
        }
    }
    Ok(())
}

pub(super) fn lookup(
    conn: &Connection,
    keys: &[&str],
) -> rusqlite::Result<HashMap<String, Cached<String>>> {
    let mut map = HashMap::with_capacity(keys.len());
    if !has_made_at(conn, "file_cache")? {
        return Ok(map);
    }
    let row = |r: &rusqlite::Row<'_>| -> rusqlite::Result<(Option<String>, Option<String>)> {
        Ok((r.get(0)?, r.get(1)?))
    };
    if keys.len() > BULK_LOOKUP {
        let wanted: std::collections::HashSet<&str> = keys.iter().copied().collect();
        let mut stmt = conn.prepare("SELECT path, blake3_hash, made_at FROM file_cache")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let path: String = r.get(0)?;
            if wanted.contains(path.as_str()) {
                let hash: Option<String> = r.get(1)?;
                let made_at: Option<String> = r.get(2)?;
                if let Some(entry) = hash {
                    map.insert(path, Cached { entry, made_at });
                }
            }
        }
        return Ok(map);
    }
    let mut stmt =
        conn.prepare_cached("SELECT blake3_hash, made_at FROM file_cache WHERE path = ?1")?;
    for key in keys {
        if let Some((Some(entry), made_at)) = stmt.query_row([key], row).optional()? {
            map.insert((*key).to_string(), Cached { entry, made_at });
        }
    }
    Ok(map)
}

pub(super) fn lookup_records(
    conn: &Connection,
    paths: &[&str],
) -> rusqlite::Result<HashMap<String, Vec<Cached<Record>>>> {
    let mut map: HashMap<String, Vec<Cached<Record>>> = HashMap::new();
    let table: Option<String> = conn
        .query_row(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'reviews'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    if table.is_none() || !has_made_at(conn, "reviews")? {
        return Ok(map);
    }
    let row = |r: &rusqlite::Row<'_>| -> rusqlite::Result<Option<Cached<Record>>> {
        let (spec, path, symbol, kind, hash, blob): (
            String,
            String,
            String,
            String,
            String,
            Option<String>,
        ) = (
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        );
        let made_at: Option<String> = r.get(6)?;
        // A kind this build does not know never matches: left out.
        Ok(HashKind::parse(&kind).map(|kind| Cached {
            entry: Record {
                scope: Scope::from_key(&spec),
                path,
                symbol: (!symbol.is_empty()).then_some(symbol),
                hash: ContentHash { kind, value: hash },
                blob,
            },
            made_at,
        }))
    };
    const COLUMNS: &str = "SELECT spec, path, symbol, kind, hash, blob, made_at FROM reviews";
    if paths.len() > BULK_LOOKUP {
        let wanted: std::collections::HashSet<&str> = paths.iter().copied().collect();
        let mut stmt = conn.prepare(COLUMNS)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            if let Some(record) = row(r)?
                && wanted.contains(record.entry.path.as_str())
            {
                map.entry(record.entry.path.clone())
                    .or_default()
                    .push(record);
            }
        }
        return Ok(map);
    }
    let mut stmt = conn.prepare_cached(&format!("{COLUMNS} WHERE path = ?1"))?;
    for path in paths {
        let mut rows = stmt.query([path])?;
        while let Some(r) = rows.next()? {
            if let Some(record) = row(r)? {
                map.entry(record.entry.path.clone())
                    .or_default()
                    .push(record);
            }
        }
    }
    Ok(map)
}

pub(super) fn is_corruption(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt) | Some(ErrorCode::NotADatabase)
    )
}

pub(super) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked)
    )
}

/// `f` again after a short wait, up to five times, while SQLite answers
/// busy without waiting (the busy timeout covers the rest).
pub(super) fn busy_retried<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let mut attempt = 0;
    loop {
        match f() {
            Err(e) if is_busy(&e) && attempt < 5 => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(50 * attempt));
            }
            done => return done,
        }
    }
}

pub(super) fn describe(e: &rusqlite::Error) -> String {
    match e.sqlite_error_code() {
        Some(ErrorCode::ReadOnly) => format!("{e} (the file or its folder is read-only)"),
        Some(ErrorCode::DiskFull) => format!("{e} (free some disk space)"),
        Some(ErrorCode::CannotOpen) => {
            format!("{e} (check that the folder exists and is writable)")
        }
        _ => e.to_string(),
    }
}

/// A database that cannot be read: set it aside when it is corrupt, warn
/// either way; the caller goes on with a cold cache.
pub(super) fn handle_unusable(db: &Path, e: &rusqlite::Error, read_only: bool) {
    if is_corruption(e) && !read_only {
        set_aside(db);
    } else {
        tracing::warn!(
            "hash cache {} cannot be read ({}); treating it as cold",
            db.display(),
            describe(e)
        );
    }
}

pub(super) fn set_aside(db: &Path) {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let aside = PathBuf::from(format!("{}.corrupt-{stamp}", db.display()));
    match crate::safe_fs::rename_aside(db, &aside) {
        Ok(()) => {
            for suffix in ["-wal", "-shm"] {
                if let Some(folder) = db.parent() {
                    let side = PathBuf::from(format!("{}{suffix}", db.display()));
                    let _ = crate::safe_fs::remove_file(folder, &side);
                }
            }
            tracing::warn!(
                "hash cache {} was corrupt; moved it to {} and starting with a cold cache",
                db.display(),
                aside.display()
            );
        }
        Err(e) => tracing::warn!(
            "hash cache {} is corrupt and could not be moved aside ({e}); treating it as cold",
            db.display()
        ),
    }
}
