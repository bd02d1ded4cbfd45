//! `notarai state ...`: the committed reconciliation state from the shell.
//!
//! Thin: parse, call one function of [`crate::state`], print. Errors exit 2.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::output::Format;
use crate::changes::GitRepo;
use crate::project::resolve_root;
use crate::state;

/// The state subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Show `.notarai/reconciliation_state.json`.
    Show {
        /// Output format: `text` (a summary and every entry) or `json`.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Write the state file from the hash cache and the existing state: every
    /// entry that still matches the work tree, with HEAD and the branch.
    Snapshot {
        /// Replace a malformed state file instead of refusing.
        #[arg(long)]
        force: bool,
    },
    /// Remove the state file.
    Reset,
    /// Per affected spec, the unreconciled files and the count of reconciled
    /// ones since the base (JSON; what the MCP status tool answers).
    Status {
        /// The base (default: as `notarai check` chooses it).
        #[arg(long, value_name = "REF")]
        base: Option<String>,
    },
    /// Merge driver for git: `notarai state merge %O %A %B %P` writes the
    /// merge of the three versions to %A (register it with `notarai init`).
    /// Only the state file is merged: for another path (%P), or a side that
    /// does not read as a state file, the three are merged as text into %A
    /// and the command exits 1, so git reports a conflict.
    Merge {
        /// The common ancestor's version (%O).
        base: PathBuf,
        /// Our version (%A); the result is written here.
        ours: PathBuf,
        /// Their version (%B).
        theirs: PathBuf,
        /// The path being merged (%P); without it only the content is checked.
        path: Option<PathBuf>,
    },
}

/// Run a state subcommand; failures print `error: ...` and exit 2.
pub fn run(root: Option<PathBuf>, cmd: Command) -> crate::error::Result<ExitCode> {
    match execute(root, cmd) {
        Ok(code) => Ok(code),
        Err(e) if e.is_broken_pipe() => Err(e),
        Err(e) => {
            eprintln!("{}", crate::quote::terminal_lines(&e.cli_message()));
            Ok(ExitCode::from(2))
        }
    }
}

fn execute(root: Option<PathBuf>, cmd: Command) -> crate::error::Result<ExitCode> {
    // Text from a committed state file (a branch name, a timestamp, paths)
    // is the repository's: escaped on the way out.
    let mut out = crate::quote::Terminal::new(std::io::stdout().lock());
    if let Command::Merge {
        base,
        ours,
        theirs,
        path,
    } = &cmd
    {
        return merge(root.as_deref(), base, ours, theirs, path.as_deref());
    }
    let root = resolve_root(root.as_deref())?;
    match cmd {
        Command::Show { format } => show(&mut out, &root, format)?,
        Command::Snapshot { force } => {
            let git = GitRepo::open(&root)?;
            let summary = state::snapshot(&root, &git, force)?;
            writeln!(
                out,
                "Wrote {}: {} entries ({} new, {} stale dropped) at {} on {}",
                summary.path,
                summary.entries,
                summary.added,
                summary.dropped,
                summary.git_hash.as_deref().map_or("(no commit)", short),
                summary.branch.as_deref().unwrap_or("(detached HEAD)")
            )?;
        }
        Command::Reset => reset(&mut out, &root)?,
        Command::Status { base } => {
            let mut project = crate::project::Project::new(root);
            let status = crate::check::status(
                &mut project,
                base.as_deref(),
                &crate::progress::Progress::none(),
            )?;
            super::output::json(&status)?;
        }
        Command::Merge { .. } => unreachable!("handled above"),
    }
    Ok(ExitCode::SUCCESS)
}

/// `notarai state merge`, run by git at the top of the work tree being
/// merged: 1 on a conflict it leaves to the user.
fn merge(
    root: Option<&std::path::Path>,
    base: &std::path::Path,
    ours: &std::path::Path,
    theirs: &std::path::Path,
    path: Option<&std::path::Path>,
) -> crate::error::Result<ExitCode> {
    let root = resolve_root(root).unwrap_or_else(|_| PathBuf::from("."));
    match state::merge_files(&root, base, ours, theirs, path)? {
        state::MergeOutcome::Merged => Ok(ExitCode::SUCCESS),
        state::MergeOutcome::Conflict(why) => {
            eprintln!(
                "notarai state merge: {}",
                crate::quote::terminal_lines(&why)
            );
            Ok(ExitCode::from(1))
        }
    }
}

/// `notarai state show`: the state file as JSON, or in words.
fn show(out: &mut impl Write, root: &std::path::Path, format: Format) -> crate::error::Result<()> {
    let Some(loaded) = state::read(root)? else {
        writeln!(
            out,
            "no {} yet: reconcile, then run `notarai state snapshot`",
            state::STATE_FILE
        )?;
        return Ok(());
    };
    for w in &loaded.warnings {
        eprintln!("warning: {}", crate::quote::terminal_lines(w));
    }
    let s = &loaded.state;
    if let Format::Json = format {
        let mut json = crate::quote::Terminal::json(std::io::stdout().lock());
        json.write_all(s.to_text().as_bytes())?;
        return Ok(());
    }
    writeln!(out, "{} (schema {})", state::STATE_FILE, s.schema_version)?;
    if let Some(last) = &s.last_reconciliation {
        writeln!(
            out,
            "last reconciliation: {} on {} at {}",
            last.git_hash.as_deref().unwrap_or("(no commit)"),
            last.branch.as_deref().unwrap_or("(detached HEAD)"),
            last.timestamp
        )?;
    }
    writeln!(
        out,
        "{} spec(s), {} file(s) reconciled",
        s.spec_fingerprints.len(),
        s.file_fingerprints.len()
    )?;
    for (path, fingerprint) in s.entries() {
        writeln!(out, "  {path}  {}", short(fingerprint))?;
    }
    Ok(())
}

/// `notarai state reset`: the state file removed through the one safe
/// module (a linked `.notarai` leading outside the project, or into its
/// git directory, deletes nothing).
fn reset(out: &mut impl Write, root: &std::path::Path) -> crate::error::Result<()> {
    let removed = crate::safe_fs::remove_file(root, std::path::Path::new(state::STATE_FILE))
        .map_err(|e| {
            crate::error::Error::internal(format!("cannot remove {}: {e}", state::STATE_FILE))
        })?;
    if removed {
        writeln!(out, "Removed {}", state::STATE_FILE)?;
    } else {
        writeln!(out, "No {} to remove", state::STATE_FILE)?;
    }
    Ok(())
}

/// The first 12 characters of a hash.
fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}
