//! The replay repository: a clone of the upstream project at the replay's
//! start, our specs and `notarai init --agents claude` committed on top
//! (tagged `replay-base`), then each upstream change applied as one commit.
//! Also which files the specs govern, to count the changed bytes.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use globset::{GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// The tag of the replay's start: our specs on the upstream start commit.
pub const BASE: &str = "replay-base";

/// One replayed project: where its history comes from and which range.
#[derive(Debug, Clone, Copy)]
pub struct Project {
    /// Short name: the folder under `--repos` and under `specs/`.
    pub name: &'static str,
    /// Language, for the report.
    pub language: &'static str,
    /// Where to clone it from when it is missing.
    pub url: &'static str,
    /// The replay starts after this commit.
    pub start: &'static str,
    /// And ends with this one (first-parent history).
    pub end: &'static str,
}

/// The projects replayed: 30 first-parent changes each for flask and gin
/// (issue 26), 20 for chi and jotai (issue 42: projects nobody here had
/// used, their specs and labels written before notarai ran on them).
pub const PROJECTS: &[Project] = &[
    Project {
        name: "flask",
        language: "Python",
        url: "https://github.com/pallets/flask",
        start: "330123258e8c3dc391cbe55ab1ed94891ca83af3",
        end: "2ac89889f4cc330eabd50f295dcef02828522c69",
    },
    Project {
        name: "gin",
        language: "Go",
        url: "https://github.com/gin-gonic/gin",
        start: "e292e5caa777bce70b66fe08c94cbe9cef3e2ec9",
        end: "dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9",
    },
    Project {
        name: "chi",
        language: "Go",
        url: "https://github.com/go-chi/chi",
        start: "a54874f0e2f12647a19e82ee70dfa8185014100c",
        end: "735ae2b87f8c733d616e809ae86e0985c1bc3350",
    },
    Project {
        name: "jotai",
        language: "TypeScript",
        url: "https://github.com/pmndrs/jotai",
        start: "72bb4498654e7b9e438417d97400c74bbf21cfce",
        end: "1fae77247ae72ab5f2f002dc82a876e61ce26f56",
    },
];

/// Run `git args` in `dir`; its stdout, or an error with its stderr.
pub fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>> {
    git_input(dir, args, None)
}

/// `git args` in `dir` with `input` on stdin.
pub fn git_input(dir: &Path, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>> {
    let mut child = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("running git {}", args.join(" ")))?;
    if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin.write_all(input)?;
    }
    let out = child.wait_with_output()?;
    if !out.status.success() {
        bail!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

/// `git args` as text lines.
pub fn git_lines(dir: &Path, args: &[&str]) -> Result<Vec<String>> {
    Ok(String::from_utf8_lossy(&git(dir, args)?)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect())
}

/// Clone `source` into `work` (replacing it), check out the start on a
/// `replay` branch, copy our specs in, run `notarai init --agents claude`
/// and commit it all as the tag [`BASE`]. Returns the upstream commits to
/// replay, oldest first.
pub fn prepare(
    bin: &Path,
    project: &Project,
    source: &Path,
    specs: &Path,
    work: &Path,
) -> Result<Vec<String>> {
    if work.exists() {
        std::fs::remove_dir_all(work).with_context(|| format!("removing {}", work.display()))?;
    }
    let parent = work.parent().context("work folder has no parent")?;
    std::fs::create_dir_all(parent)?;
    let (src, dst) = (source.to_string_lossy(), work.to_string_lossy());
    git(parent, &["clone", "-q", "--no-checkout", &src, &dst])?;
    for commit in [project.start, project.end] {
        git(work, &["cat-file", "-e", &format!("{commit}^{{commit}}")]).with_context(|| {
            format!(
                "{} lacks commit {commit}: fetch a newer clone of {}",
                source.display(),
                project.url
            )
        })?;
    }
    git(work, &["checkout", "-q", "-b", "replay", project.start])?;
    git(work, &["config", "user.name", "replay"])?;
    git(work, &["config", "user.email", "replay@example.invalid"])?;
    let notarai = work.join(".notarai");
    std::fs::create_dir_all(&notarai)?;
    for entry in std::fs::read_dir(specs)? {
        let path = entry?.path();
        if path.to_string_lossy().ends_with(".spec.yaml") {
            std::fs::copy(
                &path,
                notarai.join(path.file_name().context("no file name")?),
            )?;
        }
    }
    run_notarai(bin, work, &["init", "--agents", "claude"])?;
    git(work, &["add", "-A"])?;
    git(work, &["commit", "-q", "-m", "notarai: specs and init"])?;
    git(work, &["tag", BASE])?;
    let range = format!("{}..{}", project.start, project.end);
    git_lines(work, &["rev-list", "--first-parent", "--reverse", &range])
}

/// Apply the change of upstream commit `commit` (against its first parent)
/// to the work tree and commit it with its subject. Returns the subject.
pub fn apply(work: &Path, commit: &str) -> Result<String> {
    let parent = format!("{commit}^1");
    let patch = git(work, &["diff", "--binary", &parent, commit])?;
    if !patch.is_empty() {
        git_input(work, &["apply", "--index", "--3way"], Some(&patch))
            .with_context(|| format!("applying upstream {commit}"))?;
    }
    let subject = String::from_utf8_lossy(&git(work, &["log", "-1", "--format=%s", commit])?)
        .trim()
        .to_owned();
    let message = format!("{subject}\n\nupstream {commit}");
    git(work, &["commit", "-q", "--allow-empty", "-m", &message])?;
    Ok(subject)
}

/// Run the notarai binary in `work`; its stdout, failing on a non-zero exit.
pub fn run_notarai(bin: &Path, work: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let (code, out) = notarai_status(bin, work, args)?;
    if code != 0 {
        bail!("notarai {} exited with {code}", args.join(" "));
    }
    Ok(out)
}

/// Run the notarai binary in `work`: its exit code and stdout.
pub fn notarai_status(bin: &Path, work: &Path, args: &[&str]) -> Result<(i32, Vec<u8>)> {
    let out = Command::new(bin)
        .args(args)
        .current_dir(work)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    Ok((out.status.code().unwrap_or(-1), out.stdout))
}

/// The part of a spec file the replay needs: its artifact globs by category.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SpecFile {
    /// Category -> artifact refs.
    artifacts: BTreeMap<String, Vec<ArtifactRef>>,
}

/// One artifact ref (`path` glob).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ArtifactRef {
    /// The glob.
    path: String,
}

/// One spec's globs, per category.
#[derive(Debug)]
struct SpecGlobs {
    /// Repository-relative path of the spec file.
    path: String,
    /// Category name and its compiled globs.
    categories: Vec<(String, GlobSet)>,
}

/// Which spec governs which file, from the spec files' artifact globs,
/// compiled as notarai compiles them (`notarai::glob::compile`).
#[derive(Debug)]
pub struct Governed {
    /// Every spec of the replay.
    specs: Vec<SpecGlobs>,
}

impl Governed {
    /// Read every `.notarai/*.spec.yaml` of `work`.
    pub fn load(work: &Path) -> Result<Governed> {
        let mut specs = Vec::new();
        let folder: PathBuf = work.join(".notarai");
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&folder)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".spec.yaml"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path)?;
            let spec: SpecFile = serde_yaml::from_str(&text)
                .with_context(|| format!("parsing {}", path.display()))?;
            let mut categories = Vec::new();
            for (category, refs) in spec.artifacts {
                let mut set = GlobSetBuilder::new();
                for art in refs {
                    // A symbol anchor (`file#Symbol`) governs (part of) its file.
                    let file = art
                        .path
                        .split_once('#')
                        .map_or(art.path.as_str(), |(f, _)| f);
                    let globs = notarai::glob::compile(file, true)
                        .map_err(|e| anyhow::anyhow!("{}: {}: {e}", path.display(), art.path))?;
                    globs.into_iter().for_each(|g| {
                        set.add(g);
                    });
                }
                categories.push((category, set.build()?));
            }
            let name = path.file_name().context("no file name")?.to_string_lossy();
            specs.push(SpecGlobs {
                path: format!(".notarai/{name}"),
                categories,
            });
        }
        Ok(Governed { specs })
    }

    /// Whether any spec governs `file` (a spec file governs itself).
    pub fn is_governed(&self, file: &str) -> bool {
        self.specs
            .iter()
            .any(|s| s.path == file || s.categories.iter().any(|(_, g)| g.is_match(file)))
    }

    /// The categories through which spec `spec` governs `file`.
    pub fn categories(&self, spec: &str, file: &str) -> Vec<&str> {
        self.specs
            .iter()
            .filter(|s| s.path == spec)
            .flat_map(|s| &s.categories)
            .filter(|(_, g)| g.is_match(file))
            .map(|(c, _)| c.as_str())
            .collect()
    }

    /// Whether spec `spec` lists category `category`.
    pub fn has_category(&self, spec: &str, category: &str) -> bool {
        self.specs
            .iter()
            .any(|s| s.path == spec && s.categories.iter().any(|(c, _)| c == category))
    }
}

/// The governed files among the files changed between `from` and `to`.
pub fn governed_changes(
    work: &Path,
    governed: &Governed,
    from: &str,
    to: &str,
) -> Result<Vec<String>> {
    let files = git_lines(work, &["diff", "--name-only", "--no-renames", from, to])?;
    Ok(files
        .into_iter()
        .filter(|f| governed.is_governed(f))
        .collect())
}

/// A lock file: generated, and read by nobody in a review, so not counted
/// in the economy's "changed" (issue 42).
pub fn is_lock_file(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    matches!(
        name,
        "pnpm-lock.yaml"
            | "package-lock.json"
            | "yarn.lock"
            | "bun.lock"
            | "go.sum"
            | "uv.lock"
            | "poetry.lock"
            | "Cargo.lock"
    )
}

/// Bytes of `git diff <context> from to -- files` (0 when `files` is empty).
pub fn diff_bytes(
    work: &Path,
    context: &str,
    from: &str,
    to: &str,
    files: &[String],
) -> Result<usize> {
    if files.is_empty() {
        return Ok(0);
    }
    let mut args = vec!["diff", "--no-renames", context, from, to, "--"];
    args.extend(files.iter().map(String::as_str));
    Ok(git(work, &args)?.len())
}

/// Per file of `files`, the `-U0` diff lines (`+`/`-`, headers excluded)
/// between `from` and `to`.
pub fn changed_lines(
    work: &Path,
    from: &str,
    to: &str,
    files: &[String],
) -> Result<BTreeMap<String, Vec<String>>> {
    let mut out = BTreeMap::new();
    for file in files {
        let diff = git(work, &["diff", "--no-renames", "-U0", from, to, "--", file])?;
        let lines = String::from_utf8_lossy(&diff)
            .lines()
            .filter(|l| {
                (l.starts_with('+') && !l.starts_with("+++"))
                    || (l.starts_with('-') && !l.starts_with("---"))
            })
            .map(str::to_owned)
            .collect();
        out.insert(file.clone(), lines);
    }
    Ok(out)
}
