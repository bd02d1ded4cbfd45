//! `notarai cache ...`: the hash cache from the shell.
//!
//! The shell commands key the cache by canonical absolute path; the MCP tools
//! key it by repository-relative path. The two key spaces never meet: seed the
//! MCP side with the `mark_reconciled` tool, not with `cache update`.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use crate::cache::Cache;
use crate::hashing::{self, FileHash};
use crate::project::resolve_root;
use crate::repo_path::Guard;

/// The cache subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Hash files and store them, keyed by canonical absolute path (paths
    /// from stdin, one per line, when none are given).
    Update {
        /// Files to hash, relative to the current folder or absolute, inside the project.
        paths: Vec<String>,
    },
    /// Print the given paths whose content differs from the cache or that are
    /// not cached (a path that no longer exists counts as changed).
    Changed {
        /// Files to check (paths from stdin when none are given).
        paths: Vec<String>,
    },
    /// Show the database path, the number of entries and the newest entry time.
    Status,
    /// Delete the cache database (and its -wal/-shm files).
    Clear,
}

/// Run a cache subcommand.
pub fn run(root: Option<PathBuf>, cmd: Command) -> anyhow::Result<ExitCode> {
    let root = resolve_root(root.as_deref())?;
    let mut out = crate::quote::Terminal::new(std::io::stdout().lock());
    match cmd {
        Command::Update { paths } => {
            let paths = paths_or_stdin(paths)?;
            let keyed = keys(&root, &paths)?;
            let files: Vec<&PathBuf> = keyed.iter().map(|(_, fs, _)| fs).collect();
            let mut entries = Vec::with_capacity(keyed.len());
            for ((given, _, key), hash) in keyed.iter().zip(hashing::hash_many(&files)) {
                match hash.with_context(|| format!("cannot read {given}"))? {
                    FileHash::Content(h) => entries.push((key.clone(), h)),
                    FileHash::Missing => tracing::warn!("{given}: no such file; not cached"),
                    FileHash::NotAFile => tracing::warn!("{given}: not a file; not cached"),
                }
            }
            let n = if entries.is_empty() {
                0
            } else {
                Cache::open_write(&root)?.store(&entries)?
            };
            writeln!(out, "Updated {n} file(s)")?;
        }
        Command::Changed { paths } => {
            let paths = paths_or_stdin(paths)?;
            let keyed = keys(&root, &paths)?;
            let files: Vec<(&str, &PathBuf)> = keyed
                .iter()
                .map(|(_, fs, key)| (key.as_str(), fs))
                .collect();
            let compared = Cache::open_read(&root).compare(&files);
            for ((given, _, _), compared) in keyed.iter().zip(compared) {
                let compared = compared.with_context(|| format!("cannot read {given}"))?;
                // A file that is gone or not a file counts as changed.
                let changed = !matches!(compared.now, FileHash::Content(_)) || !compared.reconciled;
                if changed {
                    writeln!(out, "{given}")?;
                }
            }
        }
        Command::Status => {
            let status = Cache::status(&root)?;
            writeln!(out, "database: {}", status.db.display())?;
            if !status.exists {
                writeln!(out, "entries: 0 (no database yet)")?;
            } else {
                writeln!(out, "entries: {}", status.entries)?;
                match status.newest {
                    Some(t) => writeln!(out, "newest: {t} (unix seconds)")?,
                    None => writeln!(out, "newest: none")?,
                }
            }
        }
        Command::Clear => {
            let db = crate::cache::db_path(&root);
            if Cache::clear(&root)? {
                writeln!(out, "Removed {}", db.display())?;
            } else {
                writeln!(out, "No cache database at {}", db.display())?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The given paths, or one path per non-empty line of stdin.
fn paths_or_stdin(paths: Vec<String>) -> anyhow::Result<Vec<String>> {
    if !paths.is_empty() {
        return Ok(paths);
    }
    let mut out = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.context("cannot read paths from stdin")?;
        let line = line.trim_end_matches('\r');
        if !line.is_empty() {
            out.push(line.to_string());
        }
    }
    Ok(out)
}

/// For each given path: the path as given, its file-system path, and its
/// cache key (canonical absolute path). Every path is checked against the
/// project root before anything is read; one outside fails the command.
fn keys(root: &Path, paths: &[String]) -> anyhow::Result<Vec<(String, PathBuf, String)>> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let mut guard = Guard::new(root);
    let mut out = Vec::with_capacity(paths.len());
    // From a folder inside the root, a relative path is resolved relative
    // to the root (`src/../../x` is refused as climbing out, which is what
    // happened), not turned absolute first (which would be refused as
    // "absolute", a confusing reason for a relative path).
    let cwd_in_root = cwd
        .strip_prefix(root)
        .ok()
        .and_then(Path::to_str)
        .map(str::to_string);
    for given in paths {
        let input = match &cwd_in_root {
            Some(rel_cwd) if !Path::new(given).is_absolute() => {
                if rel_cwd.is_empty() {
                    given.clone()
                } else {
                    format!("{rel_cwd}/{given}")
                }
            }
            _ => {
                let absolute = if Path::new(given).is_absolute() {
                    PathBuf::from(given)
                } else {
                    cwd.join(given)
                };
                absolute
                    .to_str()
                    .with_context(|| format!("{given}: path is not UTF-8"))?
                    .to_string()
            }
        };
        // The file itself is hashed without following a link, so only its
        // folder is resolved for the key: a link and its target stay two keys.
        let rel = guard
            .resolve_unfollowed(&input)
            .map_err(|e| anyhow::anyhow!("{given}: {e} (project root: {})", root.display()))?;
        let fs = rel.to_fs(root);
        let key = match (
            fs.parent().and_then(|p| p.canonicalize().ok()),
            fs.file_name(),
        ) {
            (Some(parent), Some(name)) => parent.join(name),
            _ => fs.clone(),
        };
        out.push((given.clone(), fs, key.to_string_lossy().into_owned()));
    }
    Ok(out)
}
