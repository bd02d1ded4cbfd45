//! `notarai cache ...`: the hash cache from the shell.
//!
//! One key space with the MCP tools and `notarai check`: paths are given
//! relative to the current folder or absolute, and keyed by
//! repository-relative path. `cache update` records like `notarai
//! reconcile` without `--spec`; `cache changed` prints the paths given that
//! are not reconciled for every spec that governs them.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::error::Context;

use crate::cache::Cache;
use crate::changes::GitRepo;
use crate::project::resolve_root;
use crate::state::Reconciled;

/// The cache subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Record files as reviewed for every spec that governs them, as
    /// `notarai reconcile` without --spec (paths from stdin, one per line,
    /// when none are given).
    Update {
        /// Files to hash, relative to the current folder or absolute, inside the project.
        paths: Vec<String>,
    },
    /// Print the given paths not reconciled in their current content for
    /// every spec that governs them (per the cache and the committed state,
    /// as `notarai check` judges).
    Changed {
        /// Files to check (paths from stdin when none are given).
        paths: Vec<String>,
    },
    /// Show the database path, the number of entries and the newest entry time.
    Status,
    /// Delete the cache database (its -wal/-shm files, the kept facts).
    Clear,
}

/// Run a cache subcommand.
pub fn run(root: Option<PathBuf>, cmd: Command) -> crate::error::Result<ExitCode> {
    let root = resolve_root(root.as_deref())?;
    let mut out = crate::quote::Terminal::new(std::io::stdout().lock());
    match cmd {
        Command::Update { paths } => {
            let paths = paths_or_stdin(paths)?;
            let Some(recorded) =
                super::reconcile::record(&root, paths, None, super::reconcile::Pass::default())?
            else {
                return Ok(ExitCode::from(2));
            };
            writeln!(
                out,
                "Updated {} file(s)",
                recorded.updated + recorded.deleted
            )?;
        }
        Command::Changed { paths } => {
            let paths = paths_or_stdin(paths)?;
            let rels = paths
                .iter()
                .map(|p| super::repo_relative(&root, p))
                .collect::<crate::error::Result<Vec<_>>>()?;
            let mut project = crate::project::Project::new(root.clone());
            let specs = project.specs();
            let git = GitRepo::open(&root).ok();
            let governors: Vec<Vec<&str>> = rels
                .iter()
                .map(|p| {
                    let g = specs.governance();
                    g.governors(p).into_iter().map(|i| g.spec_path(i)).collect()
                })
                .collect();
            let known = match &git {
                Some(git) => {
                    // The base a status would use: reviews that predate it quiet nothing.
                    let state = crate::state::read_lenient(&root);
                    let base = crate::state::choose_base(git, &state, None).ok();
                    Reconciled::with_state(
                        &root,
                        git,
                        base.as_ref().map(|(b, _)| b),
                        rels.iter().map(String::as_str),
                        state,
                    )
                }
                None => Reconciled::lookup(&root, rels.iter().map(String::as_str)),
            };
            let judged = known.judge_specs(
                &root,
                git.as_ref(),
                &rels,
                &governors,
                &crate::progress::Progress::none(),
            )?;
            for (given, reconciled) in paths.iter().zip(judged) {
                if !reconciled.iter().all(|r| *r) {
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
pub(super) fn paths_or_stdin(paths: Vec<String>) -> crate::error::Result<Vec<String>> {
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
