//! The synthetic governed repository, built like `make_repo.py`.
//!
//! Layout (defaults in brackets): `src/mNNN/fK.rs` [200 x 250] and
//! `docs/mNNN.md`, one spec per module `.notarai/mNNN.spec.yaml`, a system
//! spec with every module as a subsystem, a git-ignored `target/debug/` tree
//! [20,000 files], branch `main` as the base and `feature` checked out with
//! committed edits in 40 modules x 8 files, a deleted file, a new committed
//! file, an edited spec, an uncommitted edit and an untracked file.
//!
//! Two additions of the benchmark, both in the base commit on `main` so they
//! are not changes and leave every other case's answer as the script's:
//! `.notarai/allrs.spec.yaml`, a spec governing `**/*.rs`, and, for the
//! scaling row only, `vendor_untouched/`, files no spec governs.
//!
//! The edited modules and files are drawn with Python's own random generator
//! (see [`crate::pyrandom`]), so for the same seed the tree and the changes are
//! identical to the script's; only commit dates and hashes differ.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};

use crate::pyrandom::PyRandom;

/// Path of the spec that governs every `.rs` file.
pub const ALLRS_SPEC: &str = ".notarai/allrs.spec.yaml";

/// Sizes of a synthetic repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepoParams {
    /// Number of modules, each with a spec, a folder of sources and a doc.
    pub modules: usize,
    /// Source files per module.
    pub files_per_module: usize,
    /// Files in the git-ignored `target/` tree.
    pub ignored: usize,
    /// Seed of the Python-compatible generator choosing the edits.
    pub seed: u64,
    /// Files under `vendor_untouched/`, committed on `main`, governed by no spec.
    pub untouched: usize,
}

impl RepoParams {
    /// The folder name that identifies these sizes, so that a changed size
    /// never reuses a repository built for another.
    pub fn dir_name(&self) -> String {
        let mut name = format!(
            "repo-m{}-f{}-i{}-s{}",
            self.modules, self.files_per_module, self.ignored, self.seed
        );
        if self.untouched > 0 {
            name.push_str(&format!("-u{}", self.untouched));
        }
        name
    }

    /// The number of tracked source files of the modules.
    pub fn module_files(&self) -> usize {
        self.modules * self.files_per_module
    }
}

/// Return the repository for `params` under `base`, building it first when it
/// is not there. A build goes to `<name>.tmp` and is renamed when complete, so
/// an interrupted build is never mistaken for a finished one.
pub fn ensure(base: &Path, params: &RepoParams) -> Result<PathBuf> {
    let dir = base.join(params.dir_name());
    if dir.join(".git").is_dir() {
        eprintln!("reusing {}", dir.display());
        return Ok(dir);
    }
    let tmp = base.join(format!("{}.tmp", params.dir_name()));
    if tmp.exists() {
        fs::remove_dir_all(&tmp)
            .with_context(|| format!("removing unfinished {}", tmp.display()))?;
    }
    fs::create_dir_all(base).with_context(|| format!("creating {}", base.display()))?;
    let started = Instant::now();
    eprintln!("building {} ...", dir.display());
    build(&tmp, params)?;
    fs::rename(&tmp, &dir).with_context(|| format!("renaming to {}", dir.display()))?;
    // The index was written seconds ago; refresh it from its final place so
    // that no entry is "racily clean" and git's timings are its steady state.
    settle_index(&dir)?;
    eprintln!("built in {:.1} s", started.elapsed().as_secs_f64());
    Ok(dir)
}

/// Build the repository in `dir`, which must not exist.
pub fn build(dir: &Path, params: &RepoParams) -> Result<()> {
    fs::create_dir(dir).with_context(|| format!("creating {}", dir.display()))?;
    git(dir, &["init", "-q", "-b", "main"])?;
    git(dir, &["config", "user.email", "bench@example.com"])?;
    git(dir, &["config", "user.name", "bench"])?;
    // `git commit` packs the many new objects with `gc --auto`, as it does
    // for the script; in the foreground, so a finished build is quiescent.
    git(dir, &["config", "gc.autoDetach", "false"])?;
    write_base(dir, params)?;
    git(dir, &["add", "-A"])?;
    commit(dir, "base")?;
    git(dir, &["checkout", "-q", "-b", "feature"])?;
    write_feature_commit(dir, params)?;
    git(dir, &["add", "-A"])?;
    commit(dir, "feature work")?;
    write_work_in_progress(dir)?;
    write_ignored(dir, params.ignored)?;
    Ok(())
}

/// The body shared by every source file: 60 small functions.
fn source_body() -> String {
    (0..60)
        .map(|i| format!("fn f{i}(x: u64) -> u64 {{ x.wrapping_mul({i}) ^ 0x{i:04x} }}\n"))
        .collect()
}

/// The spec of module `m`, as the script writes it.
fn module_spec(m: usize) -> String {
    format!(
        "schema_version: '0.7'
intent: Module {m} multiplies numbers.
behaviors:
  - name: multiply_{m}
    given: 'a number'
    then: 'it is multiplied by the file index'
constraints:
  - 'no allocation in module {m}'
invariants:
  - 'f0 is the identity on zero'
artifacts:
  code:
    - path: 'src/m{m:03}/**/*.rs'
      role: 'implementation'
  docs:
    - path: 'docs/m{m:03}.md'
"
    )
}

/// The system spec referencing every module spec.
fn system_spec(modules: usize) -> String {
    let subs: String = (0..modules)
        .map(|m| format!("  - $ref: './m{m:03}.spec.yaml'\n"))
        .collect();
    format!(
        "schema_version: '0.7'\nintent: A synthetic system of many modules.\n\
         behaviors:\n  - name: all\n    given: 'anything'\n    then: 'modules multiply'\n\
         artifacts:\n  docs:\n    - path: 'README.md'\n\
         exclude:\n  - 'target/**'\n\
         subsystems:\n{subs}"
    )
}

/// The benchmark's own spec governing every Rust file of the repository.
fn allrs_spec() -> &'static str {
    "schema_version: '0.7'
intent: Every Rust file of the repository, for timing a wide glob.
behaviors:
  - name: compiles
    given: 'any Rust file'
    then: 'it is valid Rust'
artifacts:
  code:
    - path: '**/*.rs'
      role: 'implementation'
"
}

/// Everything of the base commit on `main`.
fn write_base(dir: &Path, params: &RepoParams) -> Result<()> {
    fs::create_dir_all(dir.join(".notarai"))?;
    fs::create_dir_all(dir.join("docs"))?;
    let body = source_body();
    for m in 0..params.modules {
        let module_dir = dir.join(format!("src/m{m:03}"));
        fs::create_dir_all(&module_dir)?;
        for k in 0..params.files_per_module {
            let text = format!("// module {m} file {k}\n{body}");
            fs::write(module_dir.join(format!("f{k}.rs")), text)?;
        }
        let doc = format!("# Module {m}\n\nIt multiplies.\n");
        fs::write(dir.join(format!("docs/m{m:03}.md")), doc)?;
        fs::write(
            dir.join(format!(".notarai/m{m:03}.spec.yaml")),
            module_spec(m),
        )?;
    }
    fs::write(
        dir.join(".notarai/system.spec.yaml"),
        system_spec(params.modules),
    )?;
    fs::write(dir.join(ALLRS_SPEC), allrs_spec())?;
    fs::write(dir.join("README.md"), "# Synthetic\n")?;
    fs::write(dir.join(".gitignore"), "target/\n.notarai/.cache/\n")?;
    write_untouched(dir, params)?;
    Ok(())
}

/// `vendor_untouched/dNNN/fK.txt`, `files_per_module` files per folder:
/// tracked files that no spec governs, for the scaling row.
fn write_untouched(dir: &Path, params: &RepoParams) -> Result<()> {
    let per_dir = params.files_per_module.max(1);
    for i in 0..params.untouched {
        let sub = dir.join(format!("vendor_untouched/d{:03}", i / per_dir));
        if i % per_dir == 0 {
            fs::create_dir_all(&sub)?;
        }
        fs::write(
            sub.join(format!("f{}.txt", i % per_dir)),
            format!("vendored {i}\n"),
        )?;
    }
    Ok(())
}

/// The changes of the `feature` commit: edits drawn at random, a deletion, a
/// new file and an edited spec.
fn write_feature_commit(dir: &Path, params: &RepoParams) -> Result<()> {
    let mut rng = PyRandom::new(params.seed);
    let modules = rng.sample(params.modules, params.modules.min(40));
    for m in modules {
        let files = rng.sample(params.files_per_module, params.files_per_module.min(8));
        for k in files {
            append(
                &dir.join(format!("src/m{m:03}/f{k}.rs")),
                &format!("fn extra_{m}_{k}() {{}}\n"),
            )?;
        }
    }
    let deleted = dir.join("src/m000/f1.rs");
    if deleted.exists() {
        fs::remove_file(&deleted)?;
    }
    fs::create_dir_all(dir.join("src/m000"))?;
    fs::write(dir.join("src/m000/new_committed.rs"), "fn new() {}\n")?;
    append(
        &dir.join(".notarai/m000.spec.yaml"),
        "open_questions:\n  - 'should module 0 divide?'\n",
    )
}

/// Uncommitted edit and untracked file in module 0.
fn write_work_in_progress(dir: &Path) -> Result<()> {
    append(&dir.join("src/m000/f2.rs"), "fn uncommitted() {}\n")?;
    fs::write(dir.join("src/m000/untracked.rs"), "fn untracked() {}\n")?;
    Ok(())
}

/// The ignored build tree: `target/debug/d{i % 100}/junk{i}.rs`.
fn write_ignored(dir: &Path, count: usize) -> Result<()> {
    for d in 0..count.min(100) {
        fs::create_dir_all(dir.join(format!("target/debug/d{d}")))?;
    }
    for i in 0..count {
        fs::write(
            dir.join(format!("target/debug/d{}/junk{i}.rs", i % 100)),
            "junk\n",
        )?;
    }
    Ok(())
}

/// Append `text` to `path`, creating it when missing (Python's `open(.., "a")`).
fn append(path: &Path, text: &str) -> Result<()> {
    let mut file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    file.write_all(text.as_bytes())?;
    Ok(())
}

/// Commit everything staged, never signing.
fn commit(dir: &Path, message: &str) -> Result<()> {
    git(
        dir,
        &["-c", "commit.gpgsign=false", "commit", "-q", "-m", message],
    )
}

/// Wait until the last file write is in the past second, then let
/// `git status` rewrite the index with clean stat data.
fn settle_index(dir: &Path) -> Result<()> {
    std::thread::sleep(std::time::Duration::from_millis(1100));
    git(dir, &["status", "--porcelain", "--untracked-files=no"])
}

/// Run `git args` in `dir`, failing with its stderr when it fails.
fn git(dir: &Path, args: &[&str]) -> Result<()> {
    crate::gitside::git(dir, args).map(drop)
}
