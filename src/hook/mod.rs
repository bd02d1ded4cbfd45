//! The post-edit hook's domain: from an agent's event JSON (each agent's
//! shapes in the agents table, `crate::agent::hooks`; read in [`event`]) to the errors of the spec files that were just written, and the
//! answer in the channel that agent shows the model ([`answer`]).
//!
//! Only a spec inside the project can fail the hook; anything else (another
//! file, a path outside the project, a file that is gone, input that is not
//! the expected JSON) is ignored, because a hook that fails on those would
//! only get in the agent's way.
//!
//! "Inside the project" holds whatever the environment: a path that climbs
//! out of the project (`../other/.notarai/x.spec.yaml`) is ignored with or
//! without `CLAUDE_PROJECT_DIR`. Only when nothing names a project (no
//! `--root`, no `CLAUDE_PROJECT_DIR`, no `cwd` in the event) is an absolute
//! path's own project (the folder holding its `.notarai/`) used.

use std::path::{Component, Path, PathBuf};

use crate::spec::{self, Finding, Severity};

pub mod answer;
mod bounded;
pub mod context;
pub mod event;
pub mod index;
pub mod memory;
pub mod patch;
pub mod stop;

pub use answer::answer;
pub use event::HookAgent;

/// Largest event read from stdin; a larger one is ignored.
pub const MAX_INPUT: u64 = 16 * 1024 * 1024;

/// Where the hook looks for the project, besides the event itself.
#[derive(Debug, Clone, Default)]
pub struct HookEnv {
    /// `--root`, when given.
    pub explicit_root: Option<PathBuf>,
    /// The agent's project folder: `CLAUDE_PROJECT_DIR`, else
    /// `GEMINI_PROJECT_DIR`, when set.
    pub project_dir: Option<PathBuf>,
    /// The hook process's own working folder.
    pub process_cwd: Option<PathBuf>,
}

/// What the hook concluded about one file.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Not a spec of this project, or nothing to check; the reason is logged.
    Ignored(&'static str),
    /// A spec with no error (warnings allowed).
    Valid {
        /// Repository-relative path of the spec.
        path: String,
    },
    /// A spec with errors.
    Invalid {
        /// Repository-relative path of the spec.
        path: String,
        /// Its error findings, in the loader's order.
        errors: Vec<Finding>,
    },
}

/// What the hook concluded about one event: the channel of its answer, and
/// one outcome per file the edit wrote (one `Ignored` when the
/// event itself was not read).
#[derive(Debug, Clone)]
pub struct Report {
    /// The channel its answer takes to the model (the shape's, from the
    /// agents table; the agent's first post-edit shape's when the event
    /// was not read).
    pub channel: event::Channel,
    /// One outcome per written file, in the event's order.
    pub outcomes: Vec<Outcome>,
    /// Each project a written spec belongs to, with its specs as loaded
    /// for the check (what follows a spec edit reads them from here).
    pub projects: Vec<(PathBuf, spec::SpecSet)>,
}

impl Report {
    /// The specs with errors: `(path, errors)`.
    pub fn invalid(&self) -> impl Iterator<Item = (&str, &[Finding])> {
        self.outcomes.iter().filter_map(|o| match o {
            Outcome::Invalid { path, errors } => Some((path.as_str(), errors.as_slice())),
            _ => None,
        })
    }
}

/// Check the files named by a post-edit event: read in `agent`'s format
/// when given (see [`event::agent_for`]), else in the format recognised
/// from its fields ([`event::detect`]).
pub fn check_event(input: &[u8], agent: Option<HookAgent>, env: &HookEnv) -> Report {
    // Within a small constant of the input's size: at most
    // `bounded::MAX_NODES` values are built.
    let Some(value) = bounded::parse(input) else {
        let agent = agent.unwrap_or(crate::agent::hooks::COMMON);
        return Report {
            channel: default_channel(agent),
            outcomes: vec![Outcome::Ignored(
                "stdin is not JSON, or not an event (too many values)",
            )],
            projects: Vec::new(),
        };
    };
    let agent = event::agent_for(agent, &value);
    let (edit, channel) = match event::read(agent, event::Moment::PostEdit, &value) {
        Ok(read) => (read.edit, read.event.channel),
        Err(reason) => {
            return Report {
                channel: default_channel(agent),
                outcomes: vec![Outcome::Ignored(reason)],
                projects: Vec::new(),
            };
        }
    };
    // One load of the specs per project, however many of its specs the
    // edit wrote.
    let mut loaded: Vec<(PathBuf, spec::SpecSet)> = Vec::new();
    let outcomes = edit
        .files
        .iter()
        .map(|file| match locate(file, edit.cwd.as_deref(), env) {
            Ok((root, rel)) => {
                let at = match loaded.iter().position(|(r, _)| *r == root) {
                    Some(at) => at,
                    None => {
                        let set = spec::SpecSet::load_with(&root, None);
                        loaded.push((root, set));
                        loaded.len() - 1
                    }
                };
                spec_outcome(&loaded[at].1, rel)
            }
            Err(reason) => Outcome::Ignored(reason),
        })
        .collect();
    Report {
        channel,
        outcomes,
        projects: loaded,
    }
}

/// The channel of `agent`'s first post-edit shape; exit 2 for an agent
/// without one.
fn default_channel(agent: HookAgent) -> event::Channel {
    crate::agent::hooks::hooks(agent)
        .post_edit
        .first()
        .map_or(event::Channel::ExitTwo, |e| e.channel)
}

/// The project root and the repository-relative path of a written spec, or
/// why the file is not one to check.
fn locate(
    file_path: &str,
    event_cwd: Option<&Path>,
    env: &HookEnv,
) -> Result<(PathBuf, String), &'static str> {
    // Most edits are not to a spec: answer those before touching the disk.
    if !file_path.ends_with(".spec.yaml") {
        return Err("not a spec file");
    }
    let Some(base) = event_cwd
        .map(Path::to_path_buf)
        .or_else(|| env.project_dir.clone())
        .or_else(|| env.process_cwd.clone())
    else {
        return Err("no folder to resolve a relative path against");
    };
    let Ok(file) = base.join(file_path).canonicalize() else {
        return Err("the file does not exist");
    };
    let root = project_root(env, event_cwd);
    let (root, rel) = match root
        .as_deref()
        .and_then(|r| Some((r.to_path_buf(), relative(&file, r)?)))
    {
        Some(found) => found,
        // Nothing names the project and the event gave an absolute path:
        // the project is the one whose `.notarai/` holds the file. A
        // relative path is always taken from the project it is relative to.
        None if env.explicit_root.is_none()
            && env.project_dir.is_none()
            && event_cwd.is_none()
            && Path::new(file_path).is_absolute() =>
        {
            root_from_spec_path(&file)
                .and_then(|r| Some((r.clone(), relative(&file, &r)?)))
                .ok_or("the file is outside the project")?
        }
        None => return Err("the file is outside the project"),
    };
    if !spec::is_spec_path(&rel) {
        return Err("not a spec file");
    }
    Ok((root, rel))
}

/// The errors of the spec at `rel` in a loaded set. Errors only: the
/// orphaned-glob warnings would list the whole repository on every edit
/// (the set is loaded without the file list, so there are none).
fn spec_outcome(set: &spec::SpecSet, rel: String) -> Outcome {
    let errors: Vec<Finding> = set
        .invalid
        .iter()
        .chain(&set.findings)
        .filter(|f| f.path == rel && f.severity == Severity::Error)
        .cloned()
        .collect();
    if errors.is_empty() {
        Outcome::Valid { path: rel }
    } else {
        Outcome::Invalid { path: rel, errors }
    }
}

/// The project root, canonical: `--root`, else `CLAUDE_PROJECT_DIR`, else the
/// git work tree holding the event's `cwd` (or the process's), else that folder.
fn project_root(env: &HookEnv, event_cwd: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = env.explicit_root.as_ref().or(env.project_dir.as_ref()) {
        return dir.canonicalize().ok();
    }
    let start = event_cwd
        .map(Path::to_path_buf)
        .or_else(|| env.process_cwd.clone())?;
    let root = work_tree_of(&start).unwrap_or(start);
    root.canonicalize().ok()
}

/// The git work tree holding `start`. The nearest folder holding a `.git`
/// entry is the work tree git finds; when it also holds the spec folder it
/// is taken at once (a few `lstat`s; opening the repository costs a hook a
/// good part of its time). Anything else (no such folder, or one without
/// a spec folder: a submodule inside a project, a git folder whose work
/// tree is elsewhere through `core.worktree`) is left to git's own
/// discovery.
fn work_tree_of(start: &Path) -> Option<PathBuf> {
    let marked = start
        .ancestors()
        .find(|dir| std::fs::symlink_metadata(dir.join(crate::layout::GIT_DIR)).is_ok());
    if let Some(dir) = marked
        && std::fs::symlink_metadata(dir.join(spec::SPEC_DIR)).is_ok_and(|m| m.is_dir())
    {
        return Some(dir.to_path_buf());
    }
    git2::Repository::discover(start)
        .ok()
        .and_then(|repo| repo.workdir().map(Path::to_path_buf))
}

/// The folder holding the `.notarai` folder that `file` lies in, if any.
fn root_from_spec_path(file: &Path) -> Option<PathBuf> {
    file.ancestors()
        .find(|dir| dir.file_name().is_some_and(|n| n == spec::SPEC_DIR))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

/// `file` relative to `root` with forward slashes, `None` when it is not
/// below `root` or not UTF-8.
fn relative(file: &Path, root: &Path) -> Option<String> {
    let rest = file.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for component in rest.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?),
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The text the hook prints on stderr for a spec with errors: a heading line,
/// then one `path:line:col: message` line per error, each followed by its
/// hint when there is one.
pub fn render_errors(path: &str, errors: &[Finding]) -> String {
    let mut out = format!(
        "notarai: {path} has {} error{}; fix {}:\n",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" },
        if errors.len() == 1 { "it" } else { "them" }
    );
    for error in errors {
        out.push_str(&format!("{error}\n"));
        if let Some(hint) = &error.hint {
            out.push_str(&format!("  hint: {hint}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_use_slashes_and_stay_inside() {
        let root = Path::new("/r");
        assert_eq!(
            relative(Path::new("/r/.notarai/a.spec.yaml"), root).as_deref(),
            Some(".notarai/a.spec.yaml")
        );
        assert_eq!(relative(Path::new("/other/x"), root), None);
        assert_eq!(relative(Path::new("/r"), root), None);
    }

    #[test]
    fn non_json_and_missing_path_are_ignored() {
        let env = HookEnv::default();
        assert!(matches!(
            check_event(b"not json", None, &env).outcomes[..],
            [Outcome::Ignored(_)]
        ));
        assert!(matches!(
            check_event(b"{}", None, &env).outcomes[..],
            [Outcome::Ignored(_)]
        ));
        assert!(matches!(
            check_event(br#"{"tool_input": {"file_path": 3}}"#, None, &env).outcomes[..],
            [Outcome::Ignored(_)]
        ));
    }

    #[test]
    fn render_lists_errors_with_hints() {
        let finding = Finding {
            path: ".notarai/a.spec.yaml".into(),
            line: 3,
            column: 1,
            severity: Severity::Error,
            message: "unknown key `behaviours`".into(),
            hint: Some("did you mean `behaviors`?".into()),
            code: crate::rules::Code::InvalidSpec,
        };
        assert_eq!(
            render_errors(".notarai/a.spec.yaml", &[finding]),
            "notarai: .notarai/a.spec.yaml has 1 error; fix it:\n\
             .notarai/a.spec.yaml:3:1: unknown key `behaviours`\n  hint: did you mean `behaviors`?\n"
        );
    }
}
