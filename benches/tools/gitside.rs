//! Plain `git` answering the same questions as notarai's tools.
//!
//! Each function runs the commands a script would run, in sequence, and
//! returns what they printed; the caller times the whole function. Pathspecs
//! use `:(glob)` magic so that `**/` means "any folders, or none", as in a
//! spec's artifact globs.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

/// Run `git args` in `repo` and return its stdout.
pub fn git(repo: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new("git")
        .args(args)
        .current_dir(repo)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("running git {}", args.join(" ")))?;
    if !out.status.success() {
        bail!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

/// `git args` with `-- pathspecs` appended.
fn git_paths(repo: &Path, args: &[&str], pathspecs: &[String]) -> Result<Vec<u8>> {
    let mut all: Vec<&str> = args.to_vec();
    all.push("--");
    all.extend(pathspecs.iter().map(String::as_str));
    git(repo, &all)
}

/// `glob` as a git pathspec with glob magic.
pub fn pathspec(glob: &str) -> String {
    format!(":(glob){glob}")
}

/// `git merge-base <base> HEAD`, trimmed.
pub fn merge_base(repo: &Path, base: &str) -> Result<String> {
    let out = git(repo, &["merge-base", base, "HEAD"])?;
    Ok(String::from_utf8(out)?.trim().to_owned())
}

/// What `list_affected_specs` needs from git: the files changed since the
/// merge base (committed, uncommitted, deleted) and the untracked ones.
/// Returns the total bytes git printed.
pub fn changed_files(repo: &Path, base: &str) -> Result<usize> {
    let mb = merge_base(repo, base)?;
    let diff = git(repo, &["diff", "--name-only", &mb])?;
    let others = git(repo, &["ls-files", "--others", "--exclude-standard"])?;
    Ok(diff.len() + others.len())
}

/// What `get_spec_diff` needs from git on a cold cache: the unified diff of
/// the governed paths against the merge base, the untracked governed files,
/// and their contents (read in-process, as a script would `cat` them).
/// Returns the total bytes.
pub fn spec_diff(repo: &Path, base: &str, pathspecs: &[String]) -> Result<usize> {
    let mb = merge_base(repo, base)?;
    let diff = git_paths(repo, &["diff", &mb], pathspecs)?;
    let others = git_paths(
        repo,
        &["ls-files", "--others", "--exclude-standard"],
        pathspecs,
    )?;
    let mut bytes = diff.len() + others.len();
    for path in String::from_utf8(others)?.lines() {
        bytes += std::fs::read(repo.join(path))
            .with_context(|| format!("reading {path}"))?
            .len();
    }
    Ok(bytes)
}

/// What `get_changed_artifacts` answers on a cold cache: every governed file
/// present in the work tree, tracked or untracked and not ignored.
pub fn governed_files(repo: &Path, pathspecs: &[String]) -> Result<usize> {
    let out = git_paths(
        repo,
        &["ls-files", "--cached", "--others", "--exclude-standard"],
        pathspecs,
    )?;
    Ok(out.len())
}

/// The set of paths that differ from the merge base within `pathspecs`
/// (or everywhere when empty), untracked included: the reference answer
/// notarai's file lists are checked against. Not timed.
pub fn changed_set(repo: &Path, base: &str, pathspecs: &[String]) -> Result<BTreeSet<String>> {
    let mb = merge_base(repo, base)?;
    let diff = git_paths(repo, &["diff", "--name-only", &mb], pathspecs)?;
    let others = git_paths(
        repo,
        &["ls-files", "--others", "--exclude-standard"],
        pathspecs,
    )?;
    let mut set = BTreeSet::new();
    for out in [diff, others] {
        set.extend(String::from_utf8(out)?.lines().map(str::to_owned));
    }
    Ok(set)
}

/// The tracked files matching `pathspecs`, sorted as git lists them.
pub fn tracked_files(repo: &Path, pathspecs: &[String]) -> Result<Vec<String>> {
    let out = git_paths(repo, &["ls-files"], pathspecs)?;
    Ok(String::from_utf8(out)?.lines().map(str::to_owned).collect())
}

/// The governed files `governed_files` prints, as a list. Not timed.
pub fn governed_list(repo: &Path, pathspecs: &[String]) -> Result<Vec<String>> {
    let out = git_paths(
        repo,
        &["ls-files", "--cached", "--others", "--exclude-standard"],
        pathspecs,
    )?;
    Ok(String::from_utf8(out)?.lines().map(str::to_owned).collect())
}
