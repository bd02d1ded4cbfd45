//! Changes that need no review although their spec governs them, each by
//! a rule that proves the change cannot alter what the spec governs; when
//! no rule proves it, the change is shown. Each file they quiet is still
//! listed (as housekeeping, with its [`Quiet`] reason: its proof) and
//! recorded like the rest.
//!
//! - **Versions** (`versions`): the file has a pin form ([`pins::Form`]:
//!   a lock file, a dependency manifest, a CI workflow, a pre-commit
//!   configuration; not a spec file, not source code notarai parses, not a
//!   `docs` artifact, not a file the spec's constraints or invariants
//!   name), and every changed line replaces a line that is the same pin:
//!   a version attached to the same name by the syntax of its form
//!   (`owner/name@v5`, `module v1.2.3`, `"name": "^1.2"` in dependencies,
//!   a lock file's entry), the rest of the line unchanged. A bare number,
//!   an address, a URL's host, a hash no name owns, a duration, a rate or
//!   a size is no pin: the project's own settings stay a review.
//! - **Tests only** (`tests_only`): every file that needs a review for a
//!   spec is a test the spec lists (`tests` category or a behavior's
//!   `tested_by`) that its constraints and invariants do not name, and the
//!   spec itself did not change: the evidence changed, not the behavior.
//! - **Tiers** (`spec_tier`, `artifact_tier`, from
//!   [`Governance::housekeeping`]): a `registered` or `derived` spec with
//!   no constraints and no invariants, or an artifact of `tier: 3` or `4`,
//!   for a file the spec's constraints and invariants do not name.
//!
//! Shared by `get_spec_diff`, `list_affected_specs`, the reconciliation
//! status and `check`, so they agree.

use std::path::Path;

use crate::changes::{ChangeKind, ChangeSet, GitRepo, MAX_DIFF_FILE, Patch};
use crate::governance::{Governance, Housekeeping};
use crate::state::Reconciled;
use crate::symbols::Lang;

use super::pins;

pub use super::results::Quiet;

/// Whether the versions rule may apply to `path` under spec `spec`: a
/// file with a pin form ([`pins::Form`]: lock files, dependency manifests,
/// CI workflows, pre-commit), not a spec file, not a source file notarai
/// parses, not governed as `docs`, not named by the spec's constraints or
/// invariants.
pub fn versions_apply(governance: &Governance, spec: usize, path: &str) -> bool {
    pins::Form::of(path).is_some()
        && !crate::spec::is_spec_path(path)
        && Lang::of_path(path).is_none()
        && !governance.is_named(spec, path)
        && !governance
            .categories(spec, path)
            .iter()
            .any(|c| c.eq_ignore_ascii_case("docs") || c.eq_ignore_ascii_case("doc"))
}

/// The tier that makes spec `spec` govern `path` as housekeeping, as its
/// [`Quiet`] proof ([`Governance::housekeeping`]).
pub fn tier(governance: &Governance, spec: usize, path: &str) -> Option<Quiet> {
    governance.housekeeping(spec, path).map(|h| match h {
        Housekeeping::SpecTier => Quiet::SpecTier,
        Housekeeping::ArtifactTier => Quiet::ArtifactTier,
    })
}

/// The content of `path` now (the work tree's, or the index's for a
/// skip-worktree entry): the new side of every diff of a changed file.
pub fn content_now(root: &Path, git: &GitRepo, path: &str) -> Option<String> {
    let bytes = match git.skip_worktree_content(path) {
        Some(bytes) => bytes,
        None => crate::safe_fs::read(root, Path::new(path), MAX_DIFF_FILE).ok()?,
    };
    String::from_utf8(bytes).ok()
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
    let Some(new) = content_now(root, git, path) else {
        return false;
    };
    let reviewed = known
        .filter(|_| in_place)
        .and_then(|k| k.reviewed_blob(governance.spec_path(spec), path))
        .and_then(|blob| crate::state::reviewed_content(git, blob));
    let patch = match reviewed {
        Some(old) => crate::changes::patch_between(path, &old, new.as_bytes()),
        None if file.status == ChangeKind::Modified && file.old_path.is_none() => {
            changes.patch(file)
        }
        None => return false,
    };
    matches!(patch, Ok(Patch::Text(text)) if versions_only(path, &text, &new))
}

/// Whether the unified diff `patch` of the file at `path`, whose content
/// now is `new`, changes only pinned versions: the file has a pin form, at
/// least one line changed, and in every hunk each run of removed lines is
/// followed by as many added lines, each pair the same pin
/// ([`pins::pin`]: the same name, the same line once the versions are set
/// aside) with its version moved, each judged by the lines above it in
/// `new`.
pub fn versions_only(path: &str, patch: &str, new: &str) -> bool {
    let Some(form) = pins::Form::of(path) else {
        return false;
    };
    let lines: Vec<&str> = new.lines().collect();
    let mut removed: Vec<&str> = Vec::new();
    // Each added line with its line number (from 0) in `new`.
    let mut added: Vec<(usize, &str)> = Vec::new();
    let mut any = false;
    let mut at: Option<usize> = None;
    // In a lock file or a requirements file a hash moves with its entry's
    // version, never alone (same version, other content): per hunk, a
    // changed hash needs a moved version.
    let hashes_need_a_version = matches!(form, pins::Form::Lock | pins::Form::Requirements);
    let mut hunk = (false, false); // (changed, a version moved)
    let hunk_ok = |hunk: &mut (bool, bool)| {
        let ok = !hashes_need_a_version || !hunk.0 || hunk.1;
        *hunk = (false, false);
        ok
    };
    let pairs =
        |removed: &mut Vec<&str>, added: &mut Vec<(usize, &str)>, hunk: &mut (bool, bool)| {
            hunk.0 |= !removed.is_empty();
            hunk.1 |= removed
                .iter()
                .zip(added.iter())
                .any(|(old, (_, new))| pins::moves_a_version(old, new));
            let ok = removed.len() == added.len()
                && removed.iter().zip(added.iter()).all(|(old, &(n, new))| {
                    let above = &lines[..n.min(lines.len())];
                    lines.get(n) == Some(&new)
                        && match (pins::pin(form, old, above), pins::pin(form, new, above)) {
                            (Some(a), Some(b)) => a == b,
                            _ => false,
                        }
                });
            removed.clear();
            added.clear();
            ok
        };
    for line in patch.lines() {
        if let Some(header) = line.strip_prefix("@@") {
            if !pairs(&mut removed, &mut added, &mut hunk) || !hunk_ok(&mut hunk) {
                return false;
            }
            let Some(start) = new_start(header) else {
                return false;
            };
            at = Some(start);
            continue;
        }
        let Some(n) = at.as_mut() else {
            continue;
        };
        match line.as_bytes().first() {
            Some(b'-') => {
                if !added.is_empty() && !pairs(&mut removed, &mut added, &mut hunk) {
                    return false;
                }
                removed.push(&line[1..]);
                any = true;
            }
            Some(b'+') => {
                added.push((*n, &line[1..]));
                *n += 1;
                any = true;
            }
            Some(b'\\') => {}
            _ => {
                if !pairs(&mut removed, &mut added, &mut hunk) {
                    return false;
                }
                *n += 1;
            }
        }
    }
    any && pairs(&mut removed, &mut added, &mut hunk) && hunk_ok(&mut hunk)
}

/// The first new line (from 0) of a hunk header's rest
/// (` -a,b +c,d @@ ...`).
fn new_start(header: &str) -> Option<usize> {
    let plus = header.split_whitespace().find(|w| w.starts_with('+'))?;
    let start: usize = plus[1..].split(',').next()?.parse().ok()?;
    Some(start.saturating_sub(1))
}

/// The tests-only rule: `files` (what needs a review for spec `spec`) is
/// not empty and every one is evidence for it that the spec's constraints
/// and invariants do not name ([`Governance::is_named`]).
pub fn tests_only<'a>(
    governance: &Governance,
    spec: usize,
    mut files: impl Iterator<Item = &'a str>,
) -> bool {
    let mut any = false;
    let all = files.all(|f| {
        any = true;
        governance.is_evidence(spec, f) && !governance.is_named(spec, f)
    });
    any && all
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The patch of `path` from `old` to `new` as git writes it, and
    /// whether the versions rule quiets it.
    fn quiet(path: &str, old: &str, new: &str) -> bool {
        match crate::changes::patch_between(path, old.as_bytes(), new.as_bytes()) {
            Ok(Patch::Text(text)) => versions_only(path, &text, new),
            _ => false,
        }
    }

    const WORKFLOW: &str = ".github/workflows/ci.yml";

    #[test]
    fn action_and_module_bumps_are_versions_only() {
        // Real bumps from flask, gin, ky and bat history.
        let ci = "jobs:\n  test:\n    steps:\n        uses: actions/checkout@v6\n      - run: x\n";
        assert!(quiet(WORKFLOW, ci, &ci.replace("@v6", "@v7")));
        let go = "module m\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/net v0.55.0\n\tgolang.org/x/sys v0.45.0 // indirect\n)\n";
        assert!(quiet(
            "go.mod",
            go,
            &go.replace("v0.55.0", "v0.56.0")
                .replace("v0.45.0", "v0.46.0")
        ));
        let cache = "steps:\n      - uses: actions/cache@0400d5f644dc74513175e3cd8d07132dd4860809 # v4.2.4\n";
        assert!(quiet(
            WORKFLOW,
            cache,
            &cache
                .replace(
                    "0400d5f644dc74513175e3cd8d07132dd4860809",
                    "0057852bfaa89a56745cba8c7296529d2fc39830"
                )
                .replace("v4.2.4", "v4.3.0")
        ));
        let hooks = "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: 45ef068da5f21267bb2a7ec4a623092959f09ce5  # frozen: v0.14.14\n    hooks:\n      - id: ruff\n";
        assert!(quiet(
            ".pre-commit-config.yaml",
            hooks,
            &hooks
                .replace(
                    "45ef068da5f21267bb2a7ec4a623092959f09ce5",
                    "0470f7c8a653e950f7cc5a653204ceb3fde4c02a"
                )
                .replace("v0.14.14", "v0.15.0")
        ));
        let trivy = "steps:\n        uses: aquasecurity/trivy-action@0.35.0\n";
        assert!(quiet(
            WORKFLOW,
            trivy,
            &trivy.replace("@0.35.0", "@v0.36.0")
        ));
        let cargo = "[package]\nname = \"x\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1.0.200\"\nclap = { version = \"4.5\", features = [\"derive\"] }\n";
        assert!(quiet(
            "Cargo.toml",
            cargo,
            &cargo
                .replace("1.0.200", "1.0.210")
                .replace("\"4.5\"", "\"4.6\"")
        ));
        let lock = "[[package]]\nname = \"libc\"\nversion = \"0.2.155\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"97b3888a4aecf77e811145cadf6eef5901f4782c53886191b2f693f24761847c\"\n";
        assert!(quiet(
            "Cargo.lock",
            lock,
            &lock.replace("0.2.155", "0.2.158").replace(
                "97b3888a4aecf77e811145cadf6eef5901f4782c53886191b2f693f24761847c",
                "d8cc4b5a9e1e3b4a3c4a5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d"
            )
        ));
    }

    #[test]
    fn anything_else_is_a_review() {
        // The project's own minimum version: a bare number, not a pin.
        let go = "module m\n\ngo 1.23\n";
        assert!(!quiet("go.mod", go, &go.replace("1.23", "1.24")));
        let matrix = "jobs:\n  t:\n    matrix:\n          - {python: '3.13'}\n";
        assert!(!quiet(WORKFLOW, matrix, &matrix.replace("3.13", "3.14")));
        // A new dependency, a removed one, a changed name.
        let req = "require (\n\tgithub.com/a/b v1.0.0\n)\n";
        assert!(!quiet("go.mod", "require (\n)\n", req));
        assert!(!quiet("go.mod", req, "require (\n)\n"));
        assert!(!quiet("go.mod", req, &req.replace("a/b", "a/c")));
        // A year is not a version; a changed command is not a pin.
        assert!(!quiet(
            WORKFLOW,
            "# Copyright (c) 2014 M\n",
            "# Copyright (c) 2014-present M\n"
        ));
        let run = "steps:\n      - run: uv run --locked tox run\n";
        assert!(!quiet(
            WORKFLOW,
            run,
            &run.replace("--locked", "--locked --group dev")
        ));
        // The own version of a package is a release, not a pin.
        let cargo = "[package]\nname = \"x\"\nversion = \"0.1.0\"\n";
        assert!(!quiet(
            "Cargo.toml",
            cargo,
            &cargo.replace("0.1.0", "0.2.0")
        ));
        assert!(!versions_only(WORKFLOW, "", ""));
    }

    #[test]
    fn numbers_of_no_name_in_configuration_are_a_review() {
        // The cases: a host, a duration, a rate, an address range,
        // a password hash, each in a file with no pin form, and in a
        // workflow where they are no `uses:`.
        for (old, new) in [
            (
                "upstream: http://10.0.0.5/api\n",
                "upstream: http://10.6.6.6/api\n",
            ),
            (
                "session_ttl_hours: 0.5 # see docs/auth.md\n",
                "session_ttl_hours: 720.0 # see docs/auth.md\n",
            ),
            (
                "rate_limit = \"100.0/minute\"\n",
                "rate_limit = \"100000.0/minute\"\n",
            ),
            (
                "trusted_proxies: 10.0.0.1/32\n",
                "trusted_proxies: 0.0.0.0/0\n",
            ),
            (
                "admin: 5f4dcc3b5aa765d61d8327deb882cf99 # @admin\n",
                "admin: 0cc175b9c0f1b6a831c399e269772661 # @admin\n",
            ),
        ] {
            for path in ["config/app.yaml", "settings.toml", WORKFLOW, ".env"] {
                assert!(!quiet(path, old, new), "{path}: {old}");
            }
        }
    }
}
