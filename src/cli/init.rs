//! `notarai init`: plan, report, write.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::init::{self, Options, Outcome};
use crate::project;

/// Arguments of `notarai init`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The agents to set up (comma-separated). Without it: the agents the
    /// repository already uses (their config folders and files) plus Claude
    /// Code; with --remove: every agent.
    #[arg(long, value_delimiter = ',', value_name = "LIST", value_parser = super::agents::parser())]
    pub agents: Option<Vec<super::agents::AgentChoice>>,
    /// Show what would change, and write nothing: per file its status, the
    /// diff of each file of yours that would be edited, and a line count for
    /// each file notarai generates (its skills, schema, plugin).
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run: the full diff of every file, generated ones included.
    #[arg(long, requires = "dry_run")]
    pub diff: bool,
    /// Take out exactly what notarai added (entries, sections, generated
    /// files nobody edited; without --agents also the shared files, the
    /// .gitattributes line and the merge driver).
    #[arg(long)]
    pub remove: bool,
    /// Replace generated files that were edited or not written by notarai
    /// (each is first saved as `<file>.bak`) instead of writing notarai's
    /// version beside them as `<file>.notarai-new`.
    #[arg(long)]
    pub force: bool,
}

/// A unified diff of one file, `a/` and `b/` headers, 3 lines of context.
fn unified(rel: &str, before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{rel}"), &format!("b/{rel}"))
        .to_string()
}

/// Run `notarai init`: plan every file first, write what changes (nothing
/// with --dry-run) and list each file; a file that cannot be read, merged
/// or written is reported with its position, nothing at all is written
/// (the files are listed as a dry run lists them), and the exit status is 1.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = project::resolve_root(root.as_deref())?;
    if !root.is_dir() {
        return Err(crate::error::Error::invalid(format!(
            "{} is not a folder",
            root.display()
        )));
    }
    if !args.remove && !init::in_git_work_tree(&root) {
        eprintln!(
            "warning: {} is not in a git repository; notarai init sets it up anyway, \
             but change detection (list_affected_specs, get_spec_diff) needs git: run `git init`",
            root.display()
        );
    }
    let agents = args
        .agents
        .as_ref()
        .map(|list| super::agents::selected(list, &root));
    let options = Options {
        force: args.force,
        agents,
        remove: args.remove,
    };
    let plan = init::plan(&root, options);
    // All or nothing: a plan with a problem writes nothing, and reports
    // what it would have done as a dry run does, word for word.
    let blocked = !plan.problems.is_empty();
    if !args.dry_run {
        init::apply(&plan)?;
    }
    let dry = args.dry_run || blocked;
    // Written with `?`, not `println!`: a reader that stops early
    // (`notarai init --dry-run | head`) ends the report, it does not panic.
    let mut out = crate::quote::Terminal::new(std::io::stdout().lock());
    writeln!(
        out,
        "notarai init{}{} in {}",
        if args.remove { " --remove" } else { "" },
        if args.dry_run { " (dry run)" } else { "" },
        root.display()
    )?;
    let names: Vec<String> = plan
        .agents
        .iter()
        .map(|(a, why)| format!("{} ({why})", a.title()))
        .collect();
    writeln!(out, "agents: {}", names.join(", "))?;
    let width = plan
        .files
        .iter()
        .map(|f| f.status.describe(dry).len())
        .chain(Some(Outcome::Updated.describe(dry).len()))
        .max()
        .unwrap_or(0);
    report_files(&mut out, &plan, dry, args.diff, width)?;
    for rel in init::ignored_by_git(&root, &plan) {
        writeln!(
            out,
            "warning: git ignores {rel}: teammates will not get it; commit it with `git add -f {rel}` or change the ignore rule"
        )?;
    }
    let (driver_changes, configures) = report_driver(&mut out, &plan, dry, width)?;
    for problem in &plan.problems {
        eprintln!(
            "error: {}",
            crate::quote::terminal_lines(&problem.to_string())
        );
    }
    if !plan.notes.is_empty() {
        writeln!(out, "By hand:")?;
        for note in &plan.notes {
            writeln!(out, "  - {note}")?;
        }
    }
    let changed = driver_changes + plan.files.iter().filter(|f| f.changes()).count();
    if blocked {
        eprintln!(
            "error: {} file(s) above cannot be edited, so nothing {} written; \
             fix them (or leave their agents out of --agents) and run notarai init{} again",
            plan.problems.len(),
            if args.dry_run { "would be" } else { "was" },
            if args.remove { " --remove" } else { "" },
        );
        return Ok(ExitCode::FAILURE);
    }
    writeln!(
        out,
        "{}",
        summary(&plan, args.remove, dry, changed, configures)
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Each planned file with its outcome; in a dry run, its diff (notarai's
/// own generated text as a count unless `diff`).
fn report_files(
    out: &mut impl Write,
    plan: &init::Plan,
    dry: bool,
    diff: bool,
    width: usize,
) -> std::io::Result<()> {
    for file in &plan.files {
        writeln!(out, "  {:width$}  {}", file.status.describe(dry), file.rel)?;
        if let Some(note) = &file.note {
            writeln!(out, "  {:width$}    {note}", "")?;
        }
        if dry && file.changes() {
            let before = file.before().unwrap_or("");
            let after = file.after().unwrap_or("");
            let generated = [before, after]
                .iter()
                .any(|t| t.contains(init::generated::MARK));
            if generated && !diff {
                // notarai's own text: a count, the diff behind --diff.
                writeln!(
                    out,
                    "  {:width$}    ({} lines generated by notarai; --diff shows them)",
                    "",
                    after.lines().count()
                )?;
            } else {
                for line in unified(&file.rel, before, after).lines() {
                    writeln!(out, "  {:width$}    {line}", "")?;
                }
            }
        }
    }
    Ok(())
}

/// The last line of the report: what was (or would be) written.
fn summary(plan: &init::Plan, remove: bool, dry: bool, changed: usize, configures: bool) -> String {
    let kept = plan
        .files
        .iter()
        .filter(|f| f.status == Outcome::Kept)
        .count();
    if plan.is_noop() && kept > 0 {
        format!("Nothing to write; {kept} file(s) kept as they are (see above).")
    } else if plan.is_noop() {
        match remove {
            true => "Nothing of notarai's to take out.".into(),
            false => "Already set up: nothing to write.".into(),
        }
    } else if dry {
        let config = match configures {
            true => " and the local git config would change",
            false => "",
        };
        format!("Dry run: {changed} file(s) would change{config}; nothing was written.")
    } else {
        let config = match (configures, remove) {
            (true, false) => " and registered the merge driver in the local git config",
            (true, true) => " and unset the merge driver in the local git config",
            (false, _) => "",
        };
        format!("Wrote {changed} file(s){config}.")
    }
}

/// Print the merge driver's lines; how many files it changes and whether
/// it changes the local git config.
fn report_driver(
    out: &mut impl Write,
    plan: &init::Plan,
    dry: bool,
    width: usize,
) -> std::io::Result<(usize, bool)> {
    match &plan.merge_driver {
        init::MergeDriver::Planned {
            attributes_existed,
            setup,
            attributes,
        } => {
            let status = match (setup.gitattributes_added, attributes_existed) {
                (false, _) => Outcome::Unchanged,
                (true, false) => Outcome::Created,
                (true, true) => Outcome::Updated,
            };
            let config = match setup.driver_configured {
                true => Outcome::Created,
                false => Outcome::Unchanged,
            };
            writeln!(
                out,
                "  {:width$}  {}",
                status.describe(dry),
                init::GITATTRIBUTES
            )?;
            if let (true, Some((before, after))) = (dry, attributes) {
                for line in unified(init::GITATTRIBUTES, before, after).lines() {
                    writeln!(out, "  {:width$}    {line}", "")?;
                }
            }
            writeln!(
                out,
                "  {:width$}  {} (local git config)",
                config.describe(dry),
                crate::state::DRIVER_KEY
            )?;
            Ok((
                usize::from(setup.gitattributes_added),
                setup.driver_configured,
            ))
        }
        init::MergeDriver::Unregister { configured } => {
            let status = if *configured {
                Outcome::Removed
            } else {
                Outcome::Unchanged
            };
            writeln!(
                out,
                "  {:width$}  {} (local git config)",
                status.describe(dry),
                crate::state::DRIVER_KEY
            )?;
            Ok((0, *configured))
        }
        init::MergeDriver::Skipped(why) => {
            writeln!(out, "  note: {why}")?;
            Ok((0, false))
        }
    }
}
