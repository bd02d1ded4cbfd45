//! Changes that need no review although no tier says so, by two rules a
//! careful reviewer accepts; each file they quiet is still listed (as
//! housekeeping, with its [`Quiet`] reason) and recorded like the rest.
//!
//! - **Versions**: in a configuration or data file (not source code notarai
//!   parses, not a `docs` artifact), every changed line replaces a line that
//!   differs from it only in version numbers or commit hashes, on lines that
//!   pin something named (a module path or action `owner/name@ref`, or a
//!   commit hash): a dependency, tool or CI action pin moved. What changed is
//!   the dependency's; the diff holds nothing to judge against a spec. A
//!   project's own settings written as bare numbers (`go 1.24`,
//!   `python: '3.13'`) are not pins and stay a review.
//! - **Tests only**: every file that needs a review for a spec is a test the
//!   spec lists (`tests` category or a behavior's `tested_by`), and the spec
//!   itself did not change: the evidence changed, not the behavior.
//!
//! Shared by `get_spec_diff`, `list_affected_specs`, the reconciliation
//! status and `check`, so they agree.

use std::path::Path;

use crate::changes::{ChangeKind, ChangeSet, GitRepo, MAX_DIFF_FILE, Patch};
use crate::governance::Governance;
use crate::state::Reconciled;
use crate::symbols::Lang;

pub use super::results::Quiet;

/// Whether the versions rule may apply to `path` under spec `spec`: not a
/// spec file, not a source file notarai parses, not governed as `docs`.
pub fn versions_apply(governance: &Governance, spec: usize, path: &str) -> bool {
    !crate::spec::is_spec_path(path)
        && Lang::of_path(path).is_none()
        && !governance
            .categories(spec, path)
            .iter()
            .any(|c| c.eq_ignore_ascii_case("docs") || c.eq_ignore_ascii_case("doc"))
}

/// The versions rule for a changed file of `changes`: `true` when it
/// applies and only pins moved, judged on what is new since the content
/// last reviewed for the spec when `known` keeps it (as `get_spec_diff`
/// shows it), else on the diff from the base.
pub fn versions_only_change(
    root: &Path,
    git: &GitRepo,
    changes: &ChangeSet<'_>,
    governance: &Governance,
    spec: usize,
    path: &str,
    known: Option<&Reconciled>,
) -> bool {
    if !versions_apply(governance, spec, path) {
        return false;
    }
    let Some(file) = changes.files.iter().find(|f| f.path == path) else {
        return false;
    };
    let in_place =
        file.old_path.is_none() && matches!(file.status, ChangeKind::Modified | ChangeKind::Added);
    let reviewed = known
        .filter(|_| in_place)
        .and_then(|k| k.reviewed_blob(governance.spec_path(spec), path))
        .and_then(|blob| crate::state::reviewed_content(git, blob));
    let patch = match reviewed {
        Some(old) => {
            let Ok(new) = crate::safe_fs::read(root, Path::new(path), MAX_DIFF_FILE) else {
                return false;
            };
            crate::changes::patch_between(path, &old, &new)
        }
        None if file.status == ChangeKind::Modified => changes.patch(file),
        None => return false,
    };
    matches!(patch, Ok(Patch::Text(text)) if versions_only(&text))
}

/// Whether the unified diff `patch` changes only pinned versions: at least
/// one changed line, and in every hunk each run of removed lines is
/// followed by as many added lines, each equal to its removed line once
/// version numbers and commit hashes are set aside, and each a pin line.
pub fn versions_only(patch: &str) -> bool {
    let mut removed: Vec<&str> = Vec::new();
    let mut added: Vec<&str> = Vec::new();
    let mut any = false;
    let mut in_hunk = false;
    for line in patch.lines() {
        if line.starts_with("@@") {
            in_hunk = true;
            if !pairs_match(&removed, &added) {
                return false;
            }
            removed.clear();
            added.clear();
            continue;
        }
        if !in_hunk {
            continue;
        }
        match line.as_bytes().first() {
            Some(b'-') => {
                if !added.is_empty() {
                    if !pairs_match(&removed, &added) {
                        return false;
                    }
                    removed.clear();
                    added.clear();
                }
                removed.push(&line[1..]);
                any = true;
            }
            Some(b'+') => {
                added.push(&line[1..]);
                any = true;
            }
            Some(b'\\') => {}
            _ => {
                if !pairs_match(&removed, &added) {
                    return false;
                }
                removed.clear();
                added.clear();
            }
        }
    }
    any && pairs_match(&removed, &added)
}

/// One run of removed lines and the added lines after it: the same count,
/// pairwise equal but for versions, on pin lines.
fn pairs_match(removed: &[&str], added: &[&str]) -> bool {
    removed.len() == added.len()
        && removed.iter().zip(added).all(|(old, new)| {
            let (old_shape, old_pin) = shape(old);
            let (new_shape, new_pin) = shape(new);
            old_shape == new_shape && old_pin && new_pin
        })
}

/// A line with each version number and commit hash replaced by `\0`, and
/// whether it is a pin line: it names something (`/` or `@` outside the
/// versions) or holds a commit hash.
fn shape(line: &str) -> (String, bool) {
    let mut out = String::with_capacity(line.len());
    let mut pin = false;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String, pin: &mut bool| {
        match version_kind(word) {
            Some(hash) => {
                *pin |= hash;
                out.push('\0');
            }
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in line.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_') {
            word.push(c);
        } else {
            flush(&mut word, &mut out, &mut pin);
            pin |= matches!(c, '/' | '@');
            out.push(c);
        }
    }
    flush(&mut word, &mut out, &mut pin);
    (out, pin)
}

/// `Some(is_hash)` when `word` is a version number (`1.2`, `v0.34.1`,
/// `v6`, `1.2.3-rc.1`) or a commit hash (7 to 64 lowercase hex digits with
/// a letter and a digit); `None` otherwise.
fn version_kind(word: &str) -> Option<bool> {
    let hex = word.len() >= 7
        && word.len() <= 64
        && word
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && word.bytes().any(|b| b.is_ascii_digit())
        && word.bytes().any(|b| b.is_ascii_alphabetic());
    if hex {
        return Some(true);
    }
    let body = word.strip_prefix('v').unwrap_or(word);
    let core_end = body.find(['-', '+']).unwrap_or(body.len());
    let (core, rest) = body.split_at(core_end);
    let parts: Vec<&str> = core.split('.').collect();
    let numeric = !parts.is_empty()
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    let dotted = parts.len() >= 2 || word.starts_with('v');
    let suffix_ok = rest.is_empty()
        || rest[1..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    (numeric && dotted && suffix_ok).then_some(false)
}

/// The tests-only rule: `files` (what needs a review for spec `spec`) is
/// not empty and every one is evidence for it.
pub fn tests_only<'a>(
    governance: &Governance,
    spec: usize,
    mut files: impl Iterator<Item = &'a str>,
) -> bool {
    let mut any = false;
    let all = files.all(|f| {
        any = true;
        governance.is_evidence(spec, f)
    });
    any && all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch(body: &str) -> String {
        format!("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n{body}")
    }

    #[test]
    fn action_and_module_bumps_are_versions_only() {
        assert!(versions_only(&patch(
            " jobs:\n-        uses: actions/checkout@v6\n+        uses: actions/checkout@v7\n steps:\n"
        )));
        assert!(versions_only(&patch(
            "-\tgolang.org/x/net v0.55.0\n-\tgolang.org/x/sys v0.45.0 // indirect\n+\tgolang.org/x/net v0.56.0\n+\tgolang.org/x/sys v0.46.0 // indirect\n"
        )));
        assert!(versions_only(&patch(
            "-      - uses: actions/cache@0400d5f644dc74513175e3cd8d07132dd4860809 # v4.2.4\n+      - uses: actions/cache@0057852bfaa89a56745cba8c7296529d2fc39830 # v4.3.0\n"
        )));
        assert!(versions_only(&patch(
            "-    rev: 45ef068da5f21267bb2a7ec4a623092959f09ce5  # frozen: v0.14.14\n+    rev: 0470f7c8a653e950f7cc5a653204ceb3fde4c02a  # frozen: v0.15.0\n"
        )));
        assert!(versions_only(&patch(
            "-        uses: aquasecurity/trivy-action@0.35.0\n+        uses: aquasecurity/trivy-action@v0.36.0\n"
        )));
    }

    #[test]
    fn anything_else_is_a_review() {
        // The project's own minimum version: a bare number, not a pin.
        assert!(!versions_only(&patch("-go 1.23\n+go 1.24\n")));
        assert!(!versions_only(&patch(
            "-          - {python: '3.13'}\n+          - {python: '3.14'}\n"
        )));
        // A new dependency, a removed one, a changed name.
        assert!(!versions_only(&patch("+\tgithub.com/a/b v1.0.0\n")));
        assert!(!versions_only(&patch("-\tgithub.com/a/b v1.0.0\n")));
        assert!(!versions_only(&patch(
            "-\tgithub.com/a/b v1.0.0\n+\tgithub.com/a/c v1.0.0\n"
        )));
        // A year is not a version; a changed command is not a pin.
        assert!(!versions_only(&patch(
            "-Copyright (c) 2014 M\n+Copyright (c) 2014-present M\n"
        )));
        assert!(!versions_only(&patch(
            "-      - run: uv run --locked tox run\n+      - run: uv run --locked --group dev tox run\n"
        )));
        assert!(!versions_only(""));
    }
}
