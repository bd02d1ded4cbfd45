//! `notarai symbols PATH [--rev REV] [--lines A[-B]]`: a file's symbol
//! outline, or the symbol of a line range exactly as a diff hunk is
//! attributed.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::output::Format;
use crate::error::Error;
use crate::repo_path::RepoPath;
use crate::review::{self, LineRange};

/// Arguments of `notarai symbols`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The file (relative to the current folder, inside the repository).
    pub path: PathBuf,

    /// Read the file at this commit (a branch, tag, hash, `HEAD~2`).
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,

    /// Attribute lines A to B (or line A) as a diff hunk is: the innermost
    /// symbol holding them all, `<top-level>` or `<multiple>`. A symbol they
    /// cover whole counts as added when the file one commit earlier (REV's
    /// parent, or HEAD for the work tree) has no symbol of that name.
    #[arg(long, value_name = "A[-B]", value_parser = LineRange::parse)]
    pub lines: Option<LineRange>,

    /// Output format: `text` (one symbol per line: lines, kind, qualified name (indented by nesting)) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Run `notarai symbols`.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = crate::project::resolve_root(root.as_deref())?;
    let root = root.canonicalize().unwrap_or(root);
    let rel = super::repo_relative(&root, &args.path.to_string_lossy())?;
    let path = RepoPath::resolve(&root, &rel).map_err(|e| {
        Error::invalid(format!("{}: {e}", args.path.display()))
            .hinted("notarai reads files of this repository only")
    })?;
    let git = crate::changes::GitRepo::open(&root).ok();
    let answer = review::symbols(&root, git.as_ref(), &path, args.rev.as_deref(), args.lines)?;
    // Symbol names are the repository's: escaped on the way out.
    let mut out = crate::quote::Terminal::new(std::io::stdout().lock());
    match args.format {
        Format::Json => {
            super::output::json(&answer)?;
        }
        Format::Text => {
            let at = args
                .rev
                .as_deref()
                .map(|r| format!(" at {r}"))
                .unwrap_or_default();
            if let Some(reason) = &answer.fallback {
                writeln!(
                    out,
                    "{}{at}: no outline ({reason}); the whole file is one unit",
                    answer.path
                )?;
            }
            if let Some(why) = &answer.whole_file_because {
                writeln!(
                    out,
                    "{}{at}: partial outline: {why}; an anchor naming a symbol marked `damaged` (or one not listed) governs the whole file",
                    answer.path
                )?;
            }
            if let (Some(range), Some(attribution)) = (&answer.lines, &answer.attribution) {
                writeln!(
                    out,
                    "{}:{}-{}: {attribution}",
                    answer.path, range.first, range.last
                )?;
            }
            for entry in answer.symbols.iter().flatten() {
                let s = &entry.symbol;
                writeln!(
                    out,
                    "{:>5}-{:<5} {:<9} {}{}{}",
                    s.start_line,
                    s.end_line,
                    s.kind,
                    "  ".repeat(entry.depth),
                    s.name,
                    if s.damaged { "  (damaged)" } else { "" }
                )?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
