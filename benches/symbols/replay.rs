//! The precision replay: the last N commits of a public repository, one by
//! one, each checked with `notarai check --base PARENT --format json` under
//! the same specs written twice (`specs/<repo>/files`: the files;
//! `specs/<repo>/anchored`: `file#Symbol` for the functions each spec is
//! about).
//!
//! Besides the flags of each set it verifies, apart from notarai's own
//! affectedness, that no change to an anchored symbol is missed: a hunk of
//! `git diff -U0` whose old or new line range overlaps the symbol's extent
//! in the old or new blob, where the symbol's text (comments and all
//! whitespace dropped) differs between the sides, must flag its spec (an
//! `unreconciled` or `broken_anchor` finding for that file). And that a
//! commit whose governed changes are formatting or comments only (nothing
//! left in `git diff -w` but comment lines) flags nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::git;

/// The repositories replayed (clones under `--repos`).
pub const REPLAYED: &[&str] = &["gin", "flask"];

/// One spec of a set: its file name and its artifact paths.
#[derive(Debug, Clone)]
struct SpecFile {
    /// `name.spec.yaml`.
    name: String,
    /// The YAML text.
    text: String,
    /// `(file, anchor)` of each artifact path.
    artifacts: Vec<(String, Option<String>)>,
}

/// The specs of one set, read from `benches/symbols/specs/<repo>/<set>`.
fn spec_set(repo: &str, set: &str) -> Result<Vec<SpecFile>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/symbols/specs")
        .join(repo)
        .join(set);
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        let text = std::fs::read_to_string(&path)?;
        let artifacts = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- path: '"))
            .filter_map(|l| l.strip_suffix('\''))
            .map(|p| match p.split_once('#') {
                Some((f, a)) => (f.to_string(), Some(a.to_string())),
                None => (p.to_string(), None),
            })
            .collect();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push(SpecFile {
            name,
            text,
            artifacts,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Replace `.notarai/` of `work` with `specs`.
fn write_specs(work: &Path, specs: &[SpecFile]) -> Result<()> {
    let dir = work.join(".notarai");
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    for spec in specs {
        std::fs::write(dir.join(&spec.name), &spec.text)?;
    }
    Ok(())
}

/// What `notarai check` said about one commit under one spec set.
#[derive(Debug, Default)]
struct Checked {
    /// Specs with an `unreconciled` finding.
    flagged: BTreeSet<String>,
    /// `(spec, file)` with an `unreconciled` or `broken_anchor` finding.
    touched: BTreeSet<(String, String)>,
    /// Files reported formatting-only.
    formatting: usize,
}

/// Run `notarai check --base parent` in `work`.
fn check(bin: &Path, work: &Path, parent: &str) -> Result<Checked> {
    let out = Command::new(bin)
        .current_dir(work)
        .args(["check", "--base", parent, "--format", "json"])
        .output()
        .context("running notarai check")?;
    if out.status.code() == Some(2) || out.status.code().is_none() {
        bail!(
            "notarai check --base {parent}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let report: Value = serde_json::from_slice(&out.stdout).context("check json")?;
    let mut checked = Checked::default();
    for f in report["findings"].as_array().into_iter().flatten() {
        let spec = f["spec"].as_str().unwrap_or_default();
        let spec = spec.rsplit('/').next().unwrap_or(spec).to_string();
        let file = f["file"].as_str().unwrap_or_default().to_string();
        match f["kind"].as_str() {
            // The replay's specs are `tier: registered` (intent and files),
            // which `check` reports as housekeeping: the affectedness this
            // measures is the same for both kinds.
            Some("unreconciled" | "housekeeping") => {
                checked.flagged.insert(spec.clone());
                checked.touched.insert((spec, file));
            }
            Some("broken_anchor") => {
                checked.touched.insert((spec, file));
            }
            Some("formatting_only") => checked.formatting += 1,
            _ => {}
        }
    }
    Ok(checked)
}

/// One hunk of `git diff -U0`: old (start, count), new (start, count).
type Hunk = ((u32, u32), (u32, u32));

/// Hunks per file of `git diff -U0` output.
fn hunks(diff: &str) -> BTreeMap<String, Vec<Hunk>> {
    let mut out: BTreeMap<String, Vec<Hunk>> = BTreeMap::new();
    let mut file = String::new();
    for line in diff.lines() {
        if let Some(p) = line.strip_prefix("+++ b/") {
            file = p.to_string();
        } else if let Some(p) = line.strip_prefix("--- a/") {
            file = p.to_string();
        } else if let Some(rest) = line.strip_prefix("@@ -") {
            let Some((ranges, _)) = rest.split_once(" @@") else {
                continue;
            };
            let Some((o, n)) = ranges.split_once(" +") else {
                continue;
            };
            let parse = |s: &str| -> (u32, u32) {
                let (a, b) = s.split_once(',').unwrap_or((s, "1"));
                (a.parse().unwrap_or(0), b.parse().unwrap_or(0))
            };
            out.entry(file.clone())
                .or_default()
                .push((parse(o), parse(n)));
        }
    }
    out
}

/// Whether every changed line of a `-U0` diff is blank or a comment line
/// of its file's language.
fn only_comments(diff: &str) -> bool {
    let mut python = false;
    for line in diff.lines() {
        if let Some(p) = line.strip_prefix("+++ b/") {
            python = p.ends_with(".py");
        } else if line.starts_with("+++") || line.starts_with("---") {
            continue;
        } else if (line.starts_with('+') || line.starts_with('-'))
            && !comment_or_blank(&line[1..], python)
        {
            return false;
        }
    }
    true
}

/// `line` without its trailing comment (`#` in Python, `//` elsewhere),
/// found outside string literals.
fn code_part(line: &str, python: bool) -> &str {
    let bytes = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match quote {
            Some(_) if c == b'\\' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'"' || c == b'\'' || c == b'`' => quote = Some(c),
            None if python && c == b'#' => return &line[..i],
            None if !python && c == b'/' && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            None => {}
        }
        i += 1;
    }
    line
}

/// Whether a line is blank or only a comment (`#` in Python; `//`, or a
/// block comment's `/*`, `*`, `*/` line elsewhere).
fn comment_or_blank(line: &str, python: bool) -> bool {
    let t = code_part(line, python).trim();
    t.is_empty()
        || (!python
            && (t.starts_with("/*") || t.starts_with("*/") || t == "*" || t.starts_with("* ")))
}

/// A symbol's text with comments and every whitespace dropped.
fn normalized(lines: &[&str], python: bool) -> String {
    lines
        .iter()
        .filter(|l| !comment_or_blank(l, python))
        .flat_map(|l| code_part(l, python).chars().filter(|c| !c.is_whitespace()))
        .collect()
}

/// A file's symbols by name: (first line, last line).
type Extents = HashMap<String, (u32, u32)>;

/// Outlines and blobs read once per (rev, file).
struct Reader<'a> {
    /// The notarai binary.
    bin: &'a Path,
    /// The replay work tree.
    work: &'a Path,
    /// (rev, file) -> its extents; `None`: no such file.
    outlines: HashMap<(String, String), Option<Extents>>,
}

impl Reader<'_> {
    /// The extents by name of `file` at `rev`.
    fn outline(&mut self, rev: &str, file: &str) -> Result<Option<&Extents>> {
        let key = (rev.to_string(), file.to_string());
        if !self.outlines.contains_key(&key) {
            let out = Command::new(self.bin)
                .current_dir(self.work)
                .args(["symbols", file, "--rev", rev, "--format", "json"])
                .output()?;
            let value = if out.status.success() {
                let v: Value = serde_json::from_slice(&out.stdout)?;
                Some(
                    v["symbols"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|s| {
                            Some((
                                s["name"].as_str()?.to_string(),
                                (
                                    s["start_line"].as_u64()? as u32,
                                    s["end_line"].as_u64()? as u32,
                                ),
                            ))
                        })
                        .collect(),
                )
            } else {
                None
            };
            self.outlines.insert(key.clone(), value);
        }
        Ok(self.outlines[&key].as_ref())
    }
}

/// Whether `(start, count)` overlaps `[a, b]` (a count of 0 overlaps nothing).
fn overlaps((start, count): (u32, u32), (a, b): (u32, u32)) -> bool {
    count > 0 && start <= b && start + count > a
}

/// Totals of one replay.
#[derive(Debug, Default)]
struct Totals {
    commits: usize,
    governed_commits: usize,
    flags_files: usize,
    flags_anchored: usize,
    anchored_changes: usize,
    missed: Vec<String>,
    formatting_commits: usize,
    formatting_flagged: Vec<String>,
    errors: Vec<String>,
}

/// The replay work tree of `name`: a shared clone of its clone.
fn work_tree(repos: &Path, name: &str) -> Result<PathBuf> {
    let clone = crate::clone_dir(repos, name)?;
    let work = repos.join(".replay").join(name);
    if !work.join(".git").exists() {
        std::fs::create_dir_all(repos.join(".replay"))?;
        git(
            repos,
            &[
                "clone",
                "-q",
                "--shared",
                &clone.to_string_lossy(),
                &work.to_string_lossy(),
            ],
        )?;
    }
    Ok(work)
}

/// Replay the last `n` first-parent commits of `name` and render the result.
pub fn run(bin: &Path, repos: &Path, name: &str, n: usize) -> Result<String> {
    let work = work_tree(repos, name)?;
    let files_set = spec_set(name, "files")?;
    let anchored_set = spec_set(name, "anchored")?;
    let governed: BTreeSet<String> = files_set
        .iter()
        .flat_map(|s| s.artifacts.iter().map(|(f, _)| f.clone()))
        .collect();
    let governed: Vec<&str> = governed.iter().map(String::as_str).collect();
    let head = git(&work, &["rev-parse", "origin/HEAD"])
        .or_else(|_| git(&work, &["rev-parse", "HEAD"]))?;
    let list = git(
        &work,
        &[
            "rev-list",
            "--first-parent",
            "-n",
            &n.to_string(),
            head.trim(),
        ],
    )?;
    let mut commits: Vec<&str> = list.lines().collect();
    commits.reverse();
    let mut t = Totals::default();
    let mut reader = Reader {
        bin,
        work: &work,
        outlines: HashMap::new(),
    };
    for (i, commit) in commits.iter().enumerate() {
        let parent = format!("{commit}^1");
        if git(&work, &["rev-parse", "-q", "--verify", &parent]).is_err() {
            continue;
        }
        if i % 50 == 0 {
            eprintln!("{name}: commit {}/{}", i + 1, commits.len());
        }
        t.commits += 1;
        git(&work, &["checkout", "-q", "-f", "--detach", commit])?;
        let mut args = vec![
            "diff",
            "-U0",
            "--no-color",
            "--no-renames",
            &parent,
            commit,
            "--",
        ];
        args.extend(&governed);
        let diff = git(&work, &args)?;
        if diff.trim().is_empty() {
            // Still checked: a flag here would be a false alarm.
        } else {
            t.governed_commits += 1;
        }
        write_specs(&work, &files_set)?;
        let by_files = check(bin, &work, &parent);
        write_specs(&work, &anchored_set)?;
        let by_anchors = check(bin, &work, &parent);
        let (by_files, by_anchors) = match (by_files, by_anchors) {
            (Ok(f), Ok(a)) => (f, a),
            (Err(e), _) | (_, Err(e)) => {
                t.errors.push(format!("{}: {e:#}", &commit[..10]));
                continue;
            }
        };
        t.flags_files += by_files.flagged.len();
        t.flags_anchored += by_anchors.flagged.len();

        // Formatting or comments only: changed governed files, nothing but
        // comment lines left once whitespace is ignored.
        if !diff.trim().is_empty()
            && only_comments(&whitespace_diff(&work, &parent, commit, &governed)?)
        {
            t.formatting_commits += 1;
            let flagged: BTreeSet<&String> =
                by_files.flagged.iter().chain(&by_anchors.flagged).collect();
            if !flagged.is_empty() {
                t.formatting_flagged.push(format!(
                    "{} flags {}",
                    &commit[..10],
                    flagged.into_iter().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
        }

        // Anchored symbols whose text changed under a hunk.
        let commit_ref = Commit {
            work: &work,
            parent: &parent,
            commit,
        };
        anchored_changes(
            &mut reader,
            &commit_ref,
            &diff,
            &anchored_set,
            &by_anchors,
            &mut t,
        )?;
    }
    Ok(render(name, n, &t))
}

/// `git diff -U0 -w --ignore-blank-lines parent commit -- governed`.
fn whitespace_diff(work: &Path, parent: &str, commit: &str, governed: &[&str]) -> Result<String> {
    let mut args = vec![
        "diff",
        "-U0",
        "-w",
        "--ignore-blank-lines",
        "--no-color",
        "--no-renames",
        parent,
        commit,
        "--",
    ];
    args.extend(governed);
    git(work, &args)
}

/// One replayed commit.
struct Commit<'a> {
    /// The replay work tree.
    work: &'a Path,
    /// `COMMIT^1`.
    parent: &'a str,
    /// The commit.
    commit: &'a str,
}

/// Count the anchored symbols whose text changed under a hunk of `diff`,
/// and record each one the anchored check did not flag.
fn anchored_changes(
    reader: &mut Reader<'_>,
    at: &Commit<'_>,
    diff: &str,
    anchored_set: &[SpecFile],
    by_anchors: &Checked,
    t: &mut Totals,
) -> Result<()> {
    let (work, parent, commit) = (at.work, at.parent, at.commit);
    let file_hunks = hunks(diff);
    for spec in anchored_set {
        for (file, anchor) in &spec.artifacts {
            let (Some(anchor), Some(hs)) = (anchor, file_hunks.get(file)) else {
                continue;
            };
            let old = reader
                .outline(parent, file)?
                .and_then(|o| o.get(anchor).copied());
            let new = reader
                .outline(commit, file)?
                .and_then(|o| o.get(anchor).copied());
            let hit = hs.iter().any(|(o, n)| {
                old.is_some_and(|r| overlaps(*o, r)) || new.is_some_and(|r| overlaps(*n, r))
            });
            if !hit {
                continue;
            }
            let text = |rev: &str, range: Option<(u32, u32)>| -> Result<Option<String>> {
                let Some((a, b)) = range else { return Ok(None) };
                let blob = git(work, &["show", &format!("{rev}:{file}")])?;
                let lines: Vec<&str> = blob.lines().collect();
                let slice =
                    &lines[(a as usize - 1).min(lines.len())..(b as usize).min(lines.len())];
                Ok(Some(normalized(slice, file.ends_with(".py"))))
            };
            if text(parent, old)? == text(commit, new)? {
                continue;
            }
            t.anchored_changes += 1;
            if !by_anchors
                .touched
                .contains(&(spec.name.clone(), file.clone()))
            {
                t.missed
                    .push(format!("{} {file}#{anchor} ({})", &commit[..10], spec.name));
            }
        }
    }
    Ok(())
}

/// The replay's table and lists.
fn render(name: &str, n: usize, t: &Totals) -> String {
    let mut out = format!(
        "### Precision: replay of {name}'s last {n} commits\n\n\
         | measure | value | target |\n| --- | ---: | --- |\n"
    );
    let ratio = if t.flags_files == 0 {
        0.0
    } else {
        t.flags_anchored as f64 / t.flags_files as f64
    };
    let rows = [
        ("commits replayed", t.commits.to_string(), ""),
        (
            "commits changing governed files",
            t.governed_commits.to_string(),
            "",
        ),
        (
            "spec flags, file-level specs",
            t.flags_files.to_string(),
            "",
        ),
        (
            "spec flags, anchored specs",
            t.flags_anchored.to_string(),
            "",
        ),
        ("anchored / file-level", format!("{ratio:.2}"), "<= 0.50"),
        (
            "anchored-symbol changes (diff-checked)",
            t.anchored_changes.to_string(),
            "",
        ),
        ("of which missed", t.missed.len().to_string(), "0"),
        (
            "formatting/comment-only commits",
            t.formatting_commits.to_string(),
            "",
        ),
        (
            "of which flag a spec",
            t.formatting_flagged.len().to_string(),
            "0",
        ),
    ];
    for (m, v, target) in rows {
        let _ = writeln!(out, "| {m} | {v} | {target} |");
    }
    for (title, list) in [
        ("Missed", &t.missed),
        ("Formatting-only commits that flag", &t.formatting_flagged),
        ("Errors", &t.errors),
    ] {
        if !list.is_empty() {
            let _ = writeln!(out, "\n{title}:");
            for l in list {
                let _ = writeln!(out, "- {l}");
            }
        }
    }
    out
}
