//! `notarai init`: set a repository up for notarai and the coding agents
//! it uses (Claude Code, Codex CLI, Cursor, Gemini CLI, Antigravity CLI,
//! VS Code, opencode, Zed, Windsurf: see [`agents`]), or take it all out again (`--remove`).
//!
//! Two steps so that nothing is half-written: [`plan`] reads every file it
//! would touch, computes its new content (or, for `--remove`, what is left
//! without notarai's part) and checks that each write would be accepted; a
//! file that cannot be read, parsed or written is a problem (with its line
//! and column), and every problem is found in one pass. [`apply`] then
//! writes (or deletes) the files that change, each atomically, or nothing
//! at all when the plan has a problem. An instruction file that is a link
//! to a regular file inside the work tree (`CLAUDE.md -> AGENTS.md`) gets
//! notarai's section in its target.
//!
//! In a git work tree, init also registers `notarai state merge` as the
//! merge driver of the committed reconciliation state (a `.gitattributes`
//! line and `merge.notarai.driver` in the local git config, see
//! [`crate::state::register_merge_driver`]); outside git that is skipped
//! with a note.

use std::path::Path;

use crate::spec;

use generated::Origin;

pub mod agents;
pub mod claude_md;
pub mod fsio;
pub mod generated;
pub mod gitignore;
pub mod hook_if;
pub mod json_edit;
mod planned;
pub mod starter;

pub use planned::{FileChange, InitError, MergeDriver, Outcome, Plan};

/// The git ignore file at the root.
pub const GITIGNORE: &str = ".gitignore";
/// The git attributes file at the root, where the state file's merge driver is named.
pub const GITATTRIBUTES: &str = ".gitattributes";
/// The JSON Schema of the spec format, for editors.
pub const SCHEMA_JSON: &str = crate::layout::SCHEMA_FILE;
/// The short explanation of the spec folder.
pub const SPEC_README: &str = ".notarai/README.md";
/// The starter system spec.
pub const STARTER_SPEC: &str = ".notarai/system.spec.yaml";

/// What registering the merge driver at `root` would change.
fn plan_merge_driver(root: &Path) -> MergeDriver {
    let git = match crate::changes::GitRepo::open(root) {
        Ok(git) => git,
        Err(e) => {
            return MergeDriver::Skipped(format!(
                "merge driver of {} not registered: {e}",
                crate::state::STATE_FILE
            ));
        }
    };
    match crate::state::register_merge_driver(root, &git, true) {
        Ok(setup) => MergeDriver::Planned {
            attributes_existed: root.join(GITATTRIBUTES).exists(),
            attributes: setup.gitattributes_added.then(|| {
                let before = fsio::read_text(root, GITATTRIBUTES)
                    .ok()
                    .flatten()
                    .unwrap_or_default();
                let after = crate::state::with_attributes_line(before.as_bytes());
                (before, String::from_utf8_lossy(&after).into_owned())
            }),
            setup,
        },
        Err(e) => MergeDriver::Skipped(format!(
            "merge driver of {} not registered: {e}",
            crate::state::STATE_FILE
        )),
    }
}

/// How `notarai init` treats files it did not write or that were edited.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Replace an edited or foreign generated file (after saving a `.bak`
    /// copy) instead of writing the new version beside it.
    pub force: bool,
    /// The agents to set up; `None`: those the repository already uses
    /// ([`agents::detect`]) plus Claude Code (with `remove`: every agent).
    pub agents: Option<Vec<agents::AgentId>>,
    /// Take out what notarai added instead of adding it.
    pub remove: bool,
}

/// Collects the plan's files and problems.
struct Planner<'a> {
    root: &'a Path,
    options: Options,
    files: Vec<FileChange>,
    problems: Vec<InitError>,
    notes: Vec<String>,
}

impl Planner<'_> {
    /// Read `rel` as text; a problem (and `Err`) when it cannot be read.
    fn read(&mut self, rel: &str) -> Result<Option<String>, ()> {
        // init reads and writes through links (a linked CLAUDE.md stays a
        // link), so a link, or a linked folder, must stay inside the project.
        let root = self
            .root
            .canonicalize()
            .unwrap_or_else(|_| self.root.to_path_buf());
        if let Err(e) = crate::repo_path::RepoPath::resolve(&root, rel) {
            self.problems.push(InitError {
                path: rel.to_string(),
                position: None,
                message: format!("{e}; notarai init writes only inside the project"),
            });
            return Err(());
        }
        fsio::read_text(self.root, rel).map_err(|e| {
            self.problems.push(InitError {
                path: rel.to_string(),
                position: None,
                message: format!("{e:#}"),
            });
        })
    }

    /// The file an instruction file `rel` that is a symbolic link leads to,
    /// relative to the root (`CLAUDE.md -> AGENTS.md`: `AGENTS.md`), when it
    /// is a regular file inside the work tree and outside `.git/`: notarai's
    /// section goes there, since it never writes through a link. `None` when
    /// `rel` is no link, or one that leads elsewhere (refused when the plan
    /// is checked: [`check_writes`]).
    pub(crate) fn link_target(&self, rel: &str) -> Option<String> {
        let path = self.root.join(rel);
        if !path
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            return None;
        }
        let root = self.root.canonicalize().ok()?;
        let target = path.canonicalize().ok().filter(|t| t.is_file())?;
        let inside = target.strip_prefix(&root).ok()?;
        let parts: Vec<&str> = inside
            .components()
            .map(|c| c.as_os_str().to_str())
            .collect::<Option<_>>()?;
        if parts
            .first()
            .is_none_or(|first| *first == crate::layout::GIT_DIR)
        {
            return None;
        }
        Some(parts.join("/"))
    }

    /// When `rel` is a symbolic link [`Planner::link_target`] does not
    /// follow (out of the work tree, into `.git/`, to no regular file): a
    /// problem naming it, and `true`.
    pub(crate) fn refuse_link(&mut self, rel: &str) -> bool {
        let Ok(to) = std::fs::read_link(self.root.join(rel)) else {
            return false;
        };
        self.problems.push(InitError {
            path: rel.to_string(),
            position: None,
            message: format!(
                "a symbolic link to {}, which is not a regular file inside the work tree \
                 (outside it, in .git/, or missing); notarai writes its section only into \
                 such a file: replace the link with a regular file, or with a link to one",
                crate::quote::for_model(&to.to_string_lossy())
            ),
        });
        true
    }

    /// Plan `rel` to hold `new` (`None`: keep it as it is).
    fn record(&mut self, rel: &str, existing: Option<&str>, new: Option<String>) {
        if self.files.iter().any(|f| f.rel == rel) {
            // Planned once already (a file two agents share).
            return;
        }
        let (status, contents) = match (existing, new) {
            (_, None) => (Outcome::Unchanged, None),
            (Some(old), Some(new)) if old == new => (Outcome::Unchanged, None),
            (None, Some(new)) => (Outcome::Created, Some(new)),
            (Some(_), Some(new)) => (Outcome::Updated, Some(new)),
        };
        self.push(rel, status, contents, None);
        if let Some(last) = self.files.last_mut() {
            last.before = existing.map(str::to_string);
        }
    }

    /// Plan `rel` (holding `existing`) to be deleted; a link is kept and
    /// emptied instead (its target is someone's file).
    fn delete(&mut self, rel: &str, existing: &str) {
        if self
            .root
            .join(rel)
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            return self.record(rel, Some(existing), Some(String::new()));
        }
        self.push(rel, Outcome::Removed, None, None);
        if let Some(last) = self.files.last_mut() {
            last.before = Some(existing.to_string());
        }
    }

    /// Add one file to the plan.
    fn push(&mut self, rel: &str, status: Outcome, contents: Option<String>, note: Option<String>) {
        self.files.push(FileChange {
            rel: rel.to_string(),
            status,
            note,
            contents,
            before: None,
        });
    }

    /// A free name for the backup of `rel`: `rel.bak`, else `rel.bak.1`, ...
    fn backup_name(&self, rel: &str) -> String {
        let taken = |name: &str| {
            self.root.join(name).symlink_metadata().is_ok()
                || self.files.iter().any(|f| f.rel == name)
        };
        let first = format!("{rel}{}", generated::BAK_SUFFIX);
        if !taken(&first) {
            return first;
        }
        (1..)
            .map(|n| format!("{first}.{n}"))
            .find(|name| !taken(name))
            .expect("a free backup name")
    }

    /// Replace `rel` (holding `old`) with `new` after saving `old` beside it.
    fn replace_with_backup(&mut self, rel: &str, old: &str, new: String, why: &str) {
        let bak = self.backup_name(rel);
        self.push(&bak, Outcome::Created, Some(old.to_string()), None);
        self.push(
            rel,
            Outcome::Replaced,
            Some(new),
            Some(format!("{why}; its text is saved in {bak}")),
        );
    }

    /// Plan a generated file (or a file with a generated part): `new` is the
    /// whole new text, `replaces` whose text it replaces (`None`: nobody's,
    /// nothing is lost). notarai's own unedited text is updated; an edited or
    /// foreign one is kept and `new` written beside it, or with `--force`
    /// replaced after a backup.
    fn generated(
        &mut self,
        rel: &str,
        existing: Option<&str>,
        new: String,
        replaces: Option<Origin>,
    ) {
        let (old, origin) = match (existing, replaces) {
            (Some(old), Some(origin @ (Origin::Edited | Origin::Foreign))) if old != new => {
                (old, origin)
            }
            _ => return self.record(rel, existing, Some(new)),
        };
        let why = match origin {
            Origin::Edited => "edited since notarai wrote it",
            _ => "not written by notarai",
        };
        if self.options.force {
            return self.replace_with_backup(rel, old, new, why);
        }
        let beside = format!("{rel}{}", generated::NEW_SUFFIX);
        self.push(
            rel,
            Outcome::Kept,
            None,
            Some(format!(
                "{why}, so it is kept; notarai's version is in {beside}. \
                 Compare them (`diff {rel} {beside}`) and merge what you want, \
                 or run `notarai init --force` to replace it (a .bak copy is saved)."
            )),
        );
        if let Ok(existing_beside) = self.read(&beside) {
            self.record(&beside, existing_beside.as_deref(), Some(new));
        }
    }

    /// Plan the JSON Schema file: kept when it is for a newer spec format;
    /// replaced (after a backup unless notarai wrote it) when older; else
    /// like any generated file.
    fn schema(&mut self, rel: &str) {
        let Ok(existing) = self.read(rel) else { return };
        let body = format!("{}\n", spec::json_schema());
        let new = generated::stamp_json(&body);
        let Some(old) = existing.as_deref() else {
            return self.record(rel, None, Some(new));
        };
        let ours = generated::schema_version_of(spec::json_schema_value());
        let theirs = serde_json::from_str::<serde_json::Value>(old)
            .ok()
            .and_then(|v| generated::schema_version_of(&v));
        let origin = own_origin(old, &body);
        match (theirs, ours) {
            (Some(theirs), Some(ours)) if theirs > ours => self.push(
                rel,
                Outcome::Kept,
                None,
                Some(format!(
                    "it is the schema of spec format {}, newer than notarai's {}: kept \
                     (notarai init never downgrades it; delete the file to get notarai's)",
                    generated::version_text(&theirs),
                    generated::version_text(&ours)
                )),
            ),
            (Some(theirs), Some(ours)) if theirs < ours && origin != Origin::Unedited => {
                let why = format!(
                    "it is the schema of spec format {}, older than notarai's {}",
                    generated::version_text(&theirs),
                    generated::version_text(&ours)
                );
                self.replace_with_backup(rel, old, new, &why);
            }
            _ => self.generated(rel, Some(old), new, Some(origin)),
        }
    }
}

/// Whose a whole generated file is: its marker decides, and a file without
/// one whose text is notarai's own, word for word, counts as unedited (it was
/// written before the markers).
fn own_origin(old: &str, body: &str) -> Origin {
    let same = |a: &str, b: &str| a.replace("\r\n", "\n") == b.replace("\r\n", "\n");
    match generated::origin(old) {
        Origin::Unedited => Origin::Unedited,
        _ if same(&generated::unstamped(old), body) => Origin::Unedited,
        Origin::Foreign
            if generated::EARLIER_TEXTS.contains(&generated::text_hash(old).as_str()) =>
        {
            Origin::Unedited
        }
        origin => origin,
    }
}

impl Planner<'_> {
    /// Plan a file whose content is computed from its current text.
    fn derive(&mut self, rel: &str, make: impl FnOnce(Option<&str>) -> Option<String>) {
        if let Ok(existing) = self.read(rel) {
            let new = make(existing.as_deref());
            self.record(rel, existing.as_deref(), new);
        }
    }
}

/// Work out what `notarai init` would write (or, with `--remove`, take
/// out) at `root`, reading but never writing. A file that cannot be read,
/// merged or written is a problem of the plan; everything else is still
/// planned, so that every problem is reported at once, but a plan with a
/// problem is not applied ([`Plan::problems`]).
pub fn plan(root: &Path, options: Options) -> Plan {
    let chosen: Vec<(agents::AgentId, agents::Reason)> = match (&options.agents, options.remove) {
        (Some(list), _) => {
            let mut list = list.clone();
            list.sort();
            list.dedup();
            list.into_iter()
                .map(|a| (a, agents::Reason::Named))
                .collect()
        }
        (None, true) => agents::AgentId::ALL
            .into_iter()
            .map(|a| (a, agents::Reason::Every))
            .collect(),
        (None, false) => agents::detect(root),
    };
    let mut p = Planner {
        root,
        options: options.clone(),
        files: Vec::new(),
        problems: Vec::new(),
        notes: Vec::new(),
    };
    let ids: Vec<agents::AgentId> = chosen.iter().map(|(a, _)| *a).collect();
    let merge_driver = if options.remove {
        agents::setup::plan_remove(&mut p, &ids, options.agents.is_none())
    } else {
        plan_common(&mut p);
        agents::setup::plan_agents(&mut p, &ids);
        plan_merge_driver(root)
    };
    check_writes(&mut p);
    // A file several agents share (AGENTS.md) fails for each of them (none
    // is set up); it is reported once.
    let mut problems: Vec<InitError> = Vec::new();
    for problem in p.problems {
        if !problems.contains(&problem) {
            problems.push(problem);
        }
    }
    Plan {
        root: root.to_path_buf(),
        files: p.files,
        merge_driver,
        agents: chosen,
        notes: p.notes,
        problems,
    }
}

/// Every file the plan writes checked as the writer will check it (the
/// folder chain, no link written through, no git directory), so that a run
/// whose write would be refused writes nothing, and a dry run reports the
/// refusal the real run would meet.
fn check_writes(p: &mut Planner) {
    for file in &p.files {
        if file.contents.is_none() {
            continue;
        }
        if let Err(e) = crate::safe_fs::check_write(p.root, Path::new(&file.rel)) {
            p.problems.push(InitError {
                path: file.rel.clone(),
                position: None,
                message: format!("cannot write it: {e}"),
            });
        }
    }
}

/// The spec folder's README, naming the reconcile workflow.
fn spec_readme() -> String {
    include_str!("templates/notarai_readme.md")
        .replace("{reconcile}", crate::workflow::RECONCILE.name)
}

/// The files every setup has: the cache ignored, the schema, the spec
/// folder's README and the starter spec.
fn plan_common(p: &mut Planner) {
    let root = p.root;
    p.derive(GITIGNORE, |old| Some(gitignore::ensure_cache_ignored(old)));
    p.schema(SCHEMA_JSON);
    p.derive(SPEC_README, |old| old.is_none().then(spec_readme));
    let specs = crate::project::load_specs(root);
    if specs.specs.is_empty() && specs.invalid.is_empty() {
        let text = starter::system_spec(&starter::StarterInputs::scan(root));
        p.derive(STARTER_SPEC, |old| old.is_none().then_some(text));
    } else if root.join(STARTER_SPEC).is_file() {
        p.record(STARTER_SPEC, None, None);
    }
}

/// Write every file of the plan that changes, each one atomically; nothing
/// at all when the plan has a problem (the run is all or nothing: a file
/// that cannot be read, merged or written stops every write).
pub fn apply(plan: &Plan) -> anyhow::Result<()> {
    if !plan.problems.is_empty() {
        return Ok(());
    }
    for file in &plan.files {
        if let Some(contents) = &file.contents {
            tracing::debug!(path = %file.rel, status = ?file.status, "writing");
            fsio::write_atomic(&plan.root, &file.rel, contents.as_bytes())?;
        } else if file.status == Outcome::Removed {
            tracing::debug!(path = %file.rel, "removing");
            fsio::remove(&plan.root, &file.rel)?;
        }
    }
    match &plan.merge_driver {
        MergeDriver::Planned { .. } if plan.merge_driver.changes() => {
            let git = crate::changes::GitRepo::open(&plan.root)?;
            crate::state::register_merge_driver(&plan.root, &git, false)?;
        }
        MergeDriver::Unregister { configured: true } => {
            let git = crate::changes::GitRepo::open(&plan.root)?;
            crate::state::unregister_merge_driver(&git)?;
        }
        _ => {}
    }
    Ok(())
}

/// Whether `root` lies in a git work tree (change detection needs one).
pub fn in_git_work_tree(root: &Path) -> bool {
    git2::Repository::discover(root).is_ok_and(|repo| repo.workdir().is_some())
}

/// The planned files git ignores (by `.gitignore`, `info/exclude` or the
/// user's excludes file): written, they stay out of every commit, so the
/// team never gets them. Empty outside a git work tree.
pub fn ignored_by_git<'p>(root: &Path, plan: &'p Plan) -> Vec<&'p str> {
    let Ok(repo) = git2::Repository::open(root) else {
        return Vec::new();
    };
    plan.files
        .iter()
        .filter(|f| f.changes() && f.status != Outcome::Removed)
        .map(|f| f.rel.as_str())
        .filter(|rel| repo.is_path_ignored(rel).unwrap_or(false))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_display_puts_the_position_after_the_path() {
        let parse = InitError::from_merge(
            ".mcp.json",
            agents::merge::MergeError::Parse {
                line: 2,
                column: 18,
                message: "key must be a string".into(),
            },
        );
        assert_eq!(
            parse.to_string(),
            ".mcp.json:2:18: not valid JSON: key must be a string"
        );
        let shape = InitError::from_merge(
            ".claude/settings.json",
            agents::merge::MergeError::Shape("x".into()),
        );
        assert_eq!(
            shape.to_string(),
            ".claude/settings.json: unexpected shape: x"
        );
    }

    #[test]
    fn plan_then_apply_then_nothing_left() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("README.md"), "# x\n").unwrap();
        let first = plan(dir.path(), Options::default());
        assert!(first.problems.is_empty());
        assert!(first.files.iter().all(|f| f.status == Outcome::Created));
        assert_eq!(first.files.len(), 9);
        apply(&first).unwrap();
        let second = plan(dir.path(), Options::default());
        assert!(second.is_noop(), "{:?}", second.files);
        let specs = crate::project::load_specs(dir.path());
        assert_eq!(specs.specs.len(), 1);
        assert!(specs.invalid.is_empty() && specs.findings.is_empty());
        assert_eq!(specs.system_spec().unwrap().path, STARTER_SPEC);
    }
}
