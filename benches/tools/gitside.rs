//! Plain `git` answering the same questions as notarai's tools.
//!
//! Each function runs the commands a script would run, in sequence, and
//! returns what they printed; the caller times the whole function.
//!
//! git is given its best chance: before a row is timed the index is
//! refreshed and written back ([`fresh_index`]), so git never re-hashes a
//! stat-dirty file, and each glob is given as git's fastest equivalent
//! pathspec ([`pathspec`]): a plain pathspec, where `*` also matches `/`, so
//! `src/m000/**/*.rs` is `src/m000/*.rs` and `**/*.rs` is `*.rs`, instead of
//! `:(glob)` magic, which git matches more slowly.

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

/// `glob` (a spec's artifact glob) as git's fastest equivalent pathspec: a
/// plain pathspec, in which `*` already matches across `/`, so every `**/`
/// is dropped (`src/**/*.rs` is `src/*.rs`, `**/*.rs` is `*.rs`). Exact for
/// the benchmark's globs, which put `**/` only before a final `*.ext`.
pub fn pathspec(glob: &str) -> String {
    glob.replace("**/", "")
}

/// Give git a fresh index, as a user's repository has after `git status`:
/// `git update-index -q --refresh` (re-stat every tracked file, write the
/// index back) then `git status`. Not timed.
pub fn fresh_index(repo: &Path) -> Result<()> {
    // `--refresh` exits 1 when a file is modified; the index is written anyway.
    Command::new("git")
        .args(["update-index", "-q", "--refresh"])
        .current_dir(repo)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context("running git update-index --refresh")?;
    git(repo, &["status", "--porcelain"])?;
    Ok(())
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

/// The pathspecs of a spec of the synthetic repository, as git's fastest
/// equivalents, the spec file itself included: a module spec governs
/// `src/mNNN/**/*.rs` and `docs/mNNN.md`, the system spec `README.md`, the
/// benchmark's own spec `**/*.rs`.
pub fn spec_pathspecs(spec: &str) -> Vec<String> {
    let name = spec
        .strip_prefix(".notarai/")
        .and_then(|n| n.strip_suffix(".spec.yaml"))
        .unwrap_or(spec);
    let mut out = match name {
        "allrs" => vec![pathspec("**/*.rs")],
        "system" => vec!["README.md".to_owned()],
        module => vec![
            pathspec(&format!("src/{module}/**/*.rs")),
            format!("docs/{module}.md"),
        ],
    };
    out.push(spec.to_owned());
    out
}

/// The whole pass with one git process per question: the changed files
/// (merge-base, diff --name-only, ls-files --others), then for each spec
/// its diff and untracked files with their content ([`spec_diff`] without
/// a second merge-base). Returns the total bytes.
pub fn whole_pass(repo: &Path, base: &str, specs: &[String]) -> Result<usize> {
    let mb = merge_base(repo, base)?;
    let diff = git(repo, &["diff", "--name-only", &mb])?;
    let others = git(repo, &["ls-files", "--others", "--exclude-standard"])?;
    let mut bytes = diff.len() + others.len();
    for spec in specs {
        let pathspecs = spec_pathspecs(spec);
        let diff = git_paths(repo, &["diff", &mb], &pathspecs)?;
        let others = git_paths(
            repo,
            &["ls-files", "--others", "--exclude-standard"],
            &pathspecs,
        )?;
        bytes += diff.len() + others.len();
        for path in String::from_utf8(others)?.lines() {
            bytes += std::fs::read(repo.join(path))
                .with_context(|| format!("reading {path}"))?
                .len();
        }
    }
    Ok(bytes)
}
