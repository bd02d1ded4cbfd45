//! The PostToolUse hook's domain: from Claude Code's event JSON to the errors
//! of the spec file that was just written.
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

use serde_json::Value;

use crate::spec::{self, Finding, Severity};

/// Largest event read from stdin; a larger one is ignored.
pub const MAX_INPUT: u64 = 16 * 1024 * 1024;

/// Where the hook looks for the project, besides the event itself.
#[derive(Debug, Clone, Default)]
pub struct HookEnv {
    /// `--root`, when given.
    pub explicit_root: Option<PathBuf>,
    /// `CLAUDE_PROJECT_DIR`, when set.
    pub project_dir: Option<PathBuf>,
    /// The hook process's own working folder.
    pub process_cwd: Option<PathBuf>,
}

/// What the hook concluded.
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

/// An absolute folder from an optional string, `None` when empty or relative.
fn absolute(path: Option<&str>) -> Option<PathBuf> {
    path.map(PathBuf::from).filter(|p| p.is_absolute())
}

/// Check the file named by a PostToolUse event.
pub fn check_event(input: &[u8], env: &HookEnv) -> Outcome {
    let Ok(event) = serde_json::from_slice::<Value>(input) else {
        return Outcome::Ignored("stdin is not JSON");
    };
    let Some(file_path) = event
        .pointer("/tool_input/file_path")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
    else {
        return Outcome::Ignored("no tool_input.file_path");
    };
    let event_cwd = absolute(event.get("cwd").and_then(Value::as_str));
    let Some(base) = event_cwd
        .clone()
        .or_else(|| env.project_dir.clone())
        .or_else(|| env.process_cwd.clone())
    else {
        return Outcome::Ignored("no folder to resolve a relative path against");
    };
    let Ok(file) = base.join(file_path).canonicalize() else {
        return Outcome::Ignored("the file does not exist");
    };
    let root = project_root(env, event_cwd.as_deref());
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
            match root_from_spec_path(&file).and_then(|r| Some((r.clone(), relative(&file, &r)?))) {
                Some(found) => found,
                None => return Outcome::Ignored("the file is outside the project"),
            }
        }
        None => return Outcome::Ignored("the file is outside the project"),
    };
    if !spec::is_spec_path(&rel) {
        return Outcome::Ignored("not a spec file");
    }
    check_spec(&root, rel)
}

/// Load the specs at `root` and keep the errors found in the spec at `rel`.
pub fn check_spec(root: &Path, rel: String) -> Outcome {
    // Errors only: the orphaned-glob warnings would list the whole
    // repository on every edit.
    let set = spec::SpecSet::load_with(root, None);
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
    let root = git2::Repository::discover(&start)
        .ok()
        .and_then(|repo| repo.workdir().map(Path::to_path_buf))
        .unwrap_or(start);
    root.canonicalize().ok()
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
            check_event(b"not json", &env),
            Outcome::Ignored(_)
        ));
        assert!(matches!(check_event(b"{}", &env), Outcome::Ignored(_)));
        assert!(matches!(
            check_event(br#"{"tool_input": {"file_path": 3}}"#, &env),
            Outcome::Ignored(_)
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
        };
        assert_eq!(
            render_errors(".notarai/a.spec.yaml", &[finding]),
            "notarai: .notarai/a.spec.yaml has 1 error; fix it:\n\
             .notarai/a.spec.yaml:3:1: unknown key `behaviours`\n  hint: did you mean `behaviors`?\n"
        );
    }
}
