//! `notarai export-context`: the review context for an LLM without MCP.
//! Calls [`crate::review::export_context`] (the tools' own answers, whole)
//! and renders it as one Markdown document with a table of contents, or as
//! JSON with the tools' fields; prints its size and a token estimate on
//! stderr.
//!
//! `--output FILE` may name a file outside the repository: the user named
//! it explicitly, as `validate PATH` may. Where FILE really lands is
//! resolved first (every link on the way followed): never inside the spec
//! folder `.notarai/`, a `.git` folder or the git directories git finds for
//! the project, however it is reached (an in-repository link to
//! `.notarai/` included). It is written through the one safe writer
//! ([`crate::safe_fs::write_file`]): a FILE named inside the repository is
//! written with the repository as the boundary (a link planted in the
//! repository that leads out is refused, never followed); a FILE elsewhere
//! with its real folder as the boundary (a link at FILE is refused).
//! Errors exit 1, as the other commands'.

use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use crate::error::Context;

use crate::error::Error;

use crate::page::BYTES_PER_TOKEN;
use crate::progress::Progress;
use crate::project::{Project, resolve_root};
use crate::review::{ExportContext, ExportParams, SpecContext, export_context};

/// Output format of `notarai export-context`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// One Markdown document with a table of contents.
    #[default]
    Markdown,
    /// One JSON document: `affected` (list_affected_specs' answer),
    /// `not_affected`, and `specs` (get_spec_diff's answer per spec).
    Json,
}

/// Arguments of `notarai export-context`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The branch (or tag, or commit) this branch merges into. Default: as
    /// `check` chooses it.
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,

    /// Only this spec (a path from the repository root); repeat for more.
    /// Default: every affected spec.
    #[arg(long = "spec", value_name = "PATH")]
    pub specs: Vec<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    pub format: Format,

    /// Write to FILE instead of stdout (`-`: stdout). FILE is replaced whole,
    /// never through a link planted in the repository, and never inside
    /// `.notarai/` or `.git/`.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Run `notarai export-context`.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = resolve_root(root.as_deref())?;
    let mut project = Project::new(root.clone());
    let params = ExportParams {
        base_branch: args.base.clone(),
        specs: args.specs.clone(),
    };
    let context = export_context(&mut project, &params, &Progress::none())?;
    let text = match args.format {
        Format::Json => {
            let mut json = serde_json::to_string_pretty(&context)?;
            json.push('\n');
            json
        }
        Format::Markdown => markdown(&context),
    };
    let bytes = text.len() as u64;
    let tokens = bytes.div_ceil(BYTES_PER_TOKEN);
    let place = match args.output.as_deref().filter(|f| *f != Path::new("-")) {
        Some(file) => {
            write_output(&root, file, text.as_bytes())?;
            format!(" to {}", file.display())
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
            String::new()
        }
    };
    eprintln!(
        "export-context: wrote {bytes} bytes{place}, about {tokens} tokens ({BYTES_PER_TOKEN} bytes \
         a token); {} spec(s) to review",
        context.specs.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// Write `contents` to `file` (relative to the current folder) through the
/// safe writer, as the module header says. Where the file really lands is
/// resolved first ([`real_location`]: every link on the way followed), so
/// a link (in the repository or outside it) never leads the export into
/// `.notarai/` or a git directory.
fn write_output(root: &Path, file: &Path, contents: &[u8]) -> crate::error::Result<()> {
    let absolute = std::env::current_dir()
        .context("cannot read the current folder")?
        .join(file);
    let absolute = normalize(&absolute);
    let (Some(_), Some(name)) = (absolute.parent(), absolute.file_name()) else {
        return Err(Error::invalid(format!(
            "--output {}: not a file name",
            file.display()
        )));
    };
    let real = real_location(&absolute);
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    if let Some(place) = forbidden_place(&root, &real) {
        let message = format!(
            "--output {}: notarai does not write its export inside {place}{}",
            file.display(),
            if real == absolute {
                String::new()
            } else {
                format!(" (it leads to {})", real.display())
            }
        );
        return Err(Error::invalid(message).hinted(
            "that folder holds the specs, the state or git's own files; name a file \
             elsewhere (e.g. --output review-context.md), or `-` for stdout",
        ));
    }
    // Named inside the repository: the safe writer refuses a planted link
    // that leads out. Named outside but landing inside: written there.
    let named_inside = absolute.starts_with(&root);
    if named_inside || real.starts_with(&root) {
        let target = if named_inside { &absolute } else { &real };
        return crate::safe_fs::write_file(&root, target, contents)
            .with_context(|| format!("cannot write {}", file.display()));
    }
    let folder = real
        .parent()
        .filter(|f| f.is_dir())
        .with_context(|| format!("--output {}: its folder does not exist", file.display()))?;
    let name = real.file_name().unwrap_or(name);
    crate::safe_fs::write_file(folder, &folder.join(name), contents)
        .with_context(|| format!("cannot write {}", file.display()))
}

/// Where `path` (absolute, folded) really is: its deepest existing
/// ancestor canonicalized (every link resolved), the rest appended; the
/// file itself resolved too when it is a link.
fn real_location(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = at.canonicalize() {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// The folder `real` (a real location) lies in that the export never goes
/// to: the project's spec folder, a `.git` folder anywhere on the way, or
/// the git directories git finds for the project (a linked worktree's and
/// its common one, wherever they are).
fn forbidden_place(root: &Path, real: &Path) -> Option<String> {
    if let Ok(inside) = real.strip_prefix(root)
        && let Some(Component::Normal(top)) = inside.components().next()
        && top.eq_ignore_ascii_case(crate::layout::SPEC_DIR)
    {
        return Some(format!("{}/", top.to_string_lossy()));
    }
    let folders = real.parent()?;
    if folders
        .components()
        .any(|c| c.as_os_str().eq_ignore_ascii_case(crate::layout::GIT_DIR))
    {
        return Some(format!("the git directory {}/", crate::layout::GIT_DIR));
    }
    let repo = git2::Repository::discover(root).ok()?;
    [repo.path(), repo.commondir()]
        .iter()
        .filter_map(|dir| dir.canonicalize().ok())
        .find(|dir| real.starts_with(dir))
        .map(|dir| format!("the git directory {}", dir.display()))
}

/// `path` with `.` and `..` folded lexically (no link is resolved).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

// ------------------------------------------------------------------ markdown

/// The context as one Markdown document: a summary, a table of contents,
/// then per spec its intent, behaviors, constraints, invariants, files and
/// diff.
pub fn markdown(context: &ExportContext) -> String {
    let mut md = String::from("# Review context\n\n");
    md.push_str(&summary(context));
    md.push_str("## Contents\n\n");
    for (n, spec) in context.specs.iter().enumerate() {
        md.push_str(&format!(
            "{}. [{}](#spec-{}) ({} file(s) to review)\n",
            n + 1,
            code(&spec.spec_path),
            n + 1,
            spec.diff.files.len() + spec.diff.spec_changes.len()
        ));
    }
    let extras = extra_sections(context);
    for extra in &extras {
        md.push_str(&format!("- [{}](#{})\n", extra.title, extra.anchor));
    }
    if context.specs.is_empty() {
        md.push_str("\nNothing to review: no affected spec has a file left to reconcile.\n");
    }
    for (n, spec) in context.specs.iter().enumerate() {
        spec_section(&mut md, n + 1, spec, context);
    }
    for extra in &extras {
        md.push_str(&format!(
            "\n<a id=\"{}\"></a>\n## {}\n\n{}\n\n",
            extra.anchor, extra.title, extra.intro
        ));
        for item in &extra.items {
            md.push_str(&format!("- {item}\n"));
        }
    }
    md
}

/// The opening paragraph: the base, the counts.
fn summary(context: &ExportContext) -> String {
    let affected = &context.affected;
    let base = &affected.base;
    format!(
        "Changes since {} (base chosen: {}{}): {} changed file(s), {} affected spec(s), {} \
         with files to review. Files whose current content was already reconciled are left \
         out.\n\n",
        code(&base.name),
        serde_json::to_value(base.source)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        base.merge_base
            .as_deref()
            .map(|m| format!("; merge base `{}`", &m[..m.len().min(12)]))
            .unwrap_or_default(),
        affected.changed_count,
        affected.affected_specs.len(),
        context.specs.len(),
    )
}

/// The sections after the specs that have items.
fn extra_sections(context: &ExportContext) -> Vec<ListSection> {
    let affected = &context.affected;
    let reconciled: Vec<&str> = affected
        .affected_specs
        .iter()
        .filter(|s| s.all_reconciled)
        .map(|s| s.spec_path.as_str())
        .collect();
    let extras = [
        ListSection {
            anchor: "reconciled",
            title: "Already reconciled",
            intro: "Every changed file these specs govern is reconciled:",
            items: reconciled.iter().map(|path| code(path)).collect(),
        },
        ListSection {
            anchor: "not-affected",
            title: "Not affected",
            intro: "No change on this branch touches these specs:",
            items: context.not_affected.iter().map(|path| code(path)).collect(),
        },
        ListSection {
            anchor: "invalid-specs",
            title: "Invalid specs",
            intro: "These fail `notarai validate`; a spec that failed to load governs nothing:",
            items: affected
                .invalid_specs
                .iter()
                .map(|i| format!("{}: {}", code(&i.spec_path), one_line(&i.error)))
                .collect(),
        },
        ListSection {
            anchor: "deleted-specs",
            title: "Deleted specs",
            intro: "These spec files were deleted on this branch:",
            items: affected
                .deleted_specs
                .iter()
                .map(|path| code(path))
                .collect(),
        },
        ListSection {
            anchor: "unreviewable",
            title: "Unreviewable files",
            intro: "These changed files cannot be reviewed:",
            items: affected
                .unreviewable
                .iter()
                .map(|f| format!("{}: {}", code(&f.path), one_line(&f.reason)))
                .collect(),
        },
    ];
    extras.into_iter().filter(|e| !e.items.is_empty()).collect()
}

/// A section after the specs: a list under a heading with an anchor, in the
/// table of contents when it has items.
struct ListSection {
    anchor: &'static str,
    title: &'static str,
    intro: &'static str,
    items: Vec<String>,
}

fn spec_section(md: &mut String, n: usize, spec: &SpecContext, context: &ExportContext) {
    md.push_str(&format!(
        "\n<a id=\"spec-{n}\"></a>\n## {n}. {}\n\n",
        code(&spec.spec_path)
    ));
    if let Some(about) = context
        .affected
        .affected_specs
        .iter()
        .find(|s| s.spec_path == spec.spec_path)
    {
        spec_says(md, about);
    }
    let diff = &spec.diff;
    applied(md, &diff.applied);
    md.push_str("\n### Files to review\n\n");
    for entry in diff.plan.iter().flatten() {
        let category = diff
            .file_categories
            .get(&entry.path)
            .map(|c| format!(", {c}"))
            .unwrap_or_default();
        md.push_str(&format!(
            "- {} ({}, +{} -{}{category})\n",
            code(&entry.path),
            entry.status.as_str(),
            entry.added,
            entry.removed
        ));
    }
    // An entry with a diff part only repeats its spec's path.
    for changed in diff
        .spec_changes
        .iter()
        .filter(|c| !c.content.is_empty() || c.deleted)
    {
        let state = if changed.deleted {
            "deleted"
        } else {
            "changed"
        };
        md.push_str(&format!("- {} (spec, {state})\n", code(&changed.path)));
    }
    for (title, list) in [
        ("Binary, not shown", &diff.binary_changes),
        ("Too large, not shown", &diff.large_changes),
        ("Skipped, already reconciled", &diff.skipped),
    ] {
        if !list.is_empty() {
            md.push_str(&format!("\n{title}:\n\n"));
            for path in list {
                md.push_str(&format!("- {}\n", code(path)));
            }
        }
    }
    if !diff.housekeeping.is_empty() {
        md.push_str("\nHousekeeping, no review needed (record them):\n\n");
        for path in &diff.housekeeping {
            let why = diff
                .housekeeping_reasons
                .get(path)
                .map(|r| format!(" ({})", r.says()))
                .unwrap_or_default();
            md.push_str(&format!("- {}{why}\n", code(path)));
        }
    }
    for changed in diff.spec_changes.iter().filter(|c| !c.deleted) {
        if !changed.content.is_empty() {
            md.push_str(&format!("\n### Spec {}\n\n", code(&changed.path)));
            md.push_str(&fenced("yaml", &changed.content));
        }
        if !changed.diff.is_empty() {
            let path = code(&changed.path);
            md.push_str(&format!("\n### Spec {path} changed since the base\n\n"));
            md.push_str(&fenced("diff", &changed.diff));
        }
    }
    if let Some(system) = &diff.system_spec
        && let Some(content) = &system.content
    {
        md.push_str(&format!("\n### System spec {}\n\n", code(&system.path)));
        md.push_str(&fenced("yaml", content));
    }
    if !diff.diff.is_empty() {
        md.push_str("\n### Diff\n\n");
        md.push_str(&fenced("diff", &diff.diff));
    }
}

/// What the spec says: its intent, behaviors, constraints, invariants.
fn spec_says(md: &mut String, about: &crate::review::AffectedSpec) {
    md.push_str(&format!("### Intent\n\n{}\n", about.intent.trim_end()));
    if !about.behaviors.is_empty() {
        md.push_str("\n### Behaviors\n\n");
        for b in &about.behaviors {
            md.push_str(&format!(
                "- **{}**: given {}, then {}\n",
                b.name,
                one_line(&b.given),
                one_line(&b.then)
            ));
        }
    }
    for (title, items) in [
        ("Constraints", &about.constraints),
        ("Invariants", &about.invariants),
    ] {
        if !items.is_empty() {
            md.push_str(&format!("\n### {title}\n\n"));
            for item in items {
                md.push_str(&format!("- {}\n", one_line(item)));
            }
        }
    }
}

/// The constraints and invariants of the cross-cutting specs the spec
/// applies, under the spec they come from.
fn applied(md: &mut String, applied: &[crate::review::AppliedSpec]) {
    for cross in applied {
        md.push_str(&format!("\n### Applied from {}\n\n", code(&cross.path)));
        for (kind, items) in [
            ("constraint", &cross.constraints),
            ("invariant", &cross.invariants),
        ] {
            for item in items {
                md.push_str(&format!("- {kind}: {}\n", one_line(item)));
            }
        }
    }
}

/// `text` on one line (a Markdown list item).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` as inline code: delimited by a run of backticks longer than any
/// inside it (padded with a space when it starts or ends with one), on one
/// line, so a path with a backtick or a line break keeps its list item whole.
fn code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// `text` in a code fence longer than any run of backticks inside it.
fn fenced(language: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    format!("{fence}{language}\n{text}{newline}{fence}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_the_backticks_inside() {
        assert_eq!(fenced("diff", "+a\n"), "```diff\n+a\n```\n");
        assert_eq!(fenced("", "````x"), "`````\n````x\n`````\n");
    }

    #[test]
    fn inline_code_outgrows_the_backticks_inside() {
        assert_eq!(code(".notarai/a.spec.yaml"), "`.notarai/a.spec.yaml`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`a"), "`` `a ``");
        assert_eq!(code("a\nb"), "`a b`");
    }

    #[test]
    fn normalize_folds_dots() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), Path::new("/a/c"));
    }
}
