//! `notarai init`: plan, report, write.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::init::{self, Options, Outcome};
use crate::project;

/// Arguments of `notarai init`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Show what would change and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace generated files that were edited or not written by notarai
    /// (each is first saved as `<file>.bak`) instead of writing notarai's
    /// version beside them as `<file>.notarai-new`.
    #[arg(long)]
    pub force: bool,
}

/// Run `notarai init`: plan every file first; when a file cannot be merged,
/// report it and write nothing (exit 1); else write what changes and list
/// each file as created, updated or unchanged.
pub fn run(root: Option<PathBuf>, args: Args) -> anyhow::Result<ExitCode> {
    let root = project::resolve_root(root.as_deref())?;
    anyhow::ensure!(root.is_dir(), "{} is not a folder", root.display());
    if !init::in_git_work_tree(&root) {
        eprintln!(
            "warning: {} is not in a git repository; notarai init sets it up anyway, \
             but change detection (list_affected_specs, get_spec_diff) needs git: run `git init`",
            root.display()
        );
    }
    let plan = match init::plan(&root, Options { force: args.force }) {
        Ok(plan) => plan,
        Err(problems) => {
            for problem in &problems {
                eprintln!("error: {problem}");
            }
            eprintln!(
                "error: notarai init wrote nothing; fix the file{} above (it was left untouched) and run it again",
                if problems.len() == 1 { "" } else { "s" }
            );
            return Ok(ExitCode::FAILURE);
        }
    };
    if !args.dry_run {
        init::apply(&plan)?;
    }
    let width = plan
        .files
        .iter()
        .map(|f| f.status.describe(args.dry_run).len())
        .chain(
            matches!(plan.merge_driver, init::MergeDriver::Planned { .. })
                .then(|| Outcome::Updated.describe(args.dry_run).len()),
        )
        .max()
        .unwrap_or(0);
    println!(
        "notarai init{} in {}",
        if args.dry_run { " (dry run)" } else { "" },
        root.display()
    );
    for file in &plan.files {
        println!(
            "  {:width$}  {}",
            file.status.describe(args.dry_run),
            file.rel
        );
        if let Some(note) = &file.note {
            println!("  {:width$}    {note}", "");
        }
    }
    let (driver_changes, configures) = match &plan.merge_driver {
        init::MergeDriver::Planned {
            attributes_existed,
            setup,
        } => {
            let attributes = match (setup.gitattributes_added, attributes_existed) {
                (false, _) => Outcome::Unchanged,
                (true, false) => Outcome::Created,
                (true, true) => Outcome::Updated,
            };
            let config = match setup.driver_configured {
                true => Outcome::Created,
                false => Outcome::Unchanged,
            };
            println!(
                "  {:width$}  {}",
                attributes.describe(args.dry_run),
                init::GITATTRIBUTES
            );
            println!(
                "  {:width$}  {} (local git config)",
                config.describe(args.dry_run),
                crate::state::DRIVER_KEY
            );
            (
                usize::from(setup.gitattributes_added),
                setup.driver_configured,
            )
        }
        init::MergeDriver::Skipped(why) => {
            println!("  note: {why}");
            (0, false)
        }
    };
    let changed = driver_changes
        + plan
            .files
            .iter()
            .filter(|f| {
                matches!(
                    f.status,
                    Outcome::Created | Outcome::Updated | Outcome::Replaced
                )
            })
            .count();
    let kept = plan
        .files
        .iter()
        .filter(|f| f.status == Outcome::Kept)
        .count();
    if plan.is_noop() && kept > 0 {
        println!("Nothing to write; {kept} file(s) kept as they are (see above).");
    } else if plan.is_noop() {
        println!("Already set up: nothing to write.");
    } else if args.dry_run {
        let config = match configures {
            true => " and the local git config would name the merge driver",
            false => "",
        };
        println!("Dry run: {changed} file(s) would change{config}; nothing was written.");
    } else {
        let config = match configures {
            true => " and registered the merge driver in the local git config",
            false => "",
        };
        println!(
            "Wrote {changed} file(s){config}. Open Claude Code here and approve the `notarai` MCP server."
        );
    }
    Ok(ExitCode::SUCCESS)
}
