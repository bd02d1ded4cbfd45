//! `cargo bench --bench symbols`: issue 27's targets for the symbol outline,
//! measured on real public history.
//!
//! - `attribution`: every hunk of `benches/symbols/labels.tsv` (labelled by
//!   reading the code, see its header) through the release
//!   `notarai symbols PATH --rev REV --lines A-B --format json`; agreement per
//!   language and overall, and every disagreement.
//! - `precision`: the last N commits of each replay repository applied one
//!   by one, each checked with `notarai check --base PARENT --format json`
//!   under two spec sets written as a team would (`specs/<repo>/files`:
//!   globs; `specs/<repo>/anchored`: the same specs, `file#Symbol`): flags
//!   of each, anchored-symbol changes missed (checked against the diff
//!   apart from notarai's affectedness), formatting-only commits that flag.
//! - `cost`: the attribution step `get_spec_diff` adds per changed file
//!   (both blobs outlined cold, the patch annotated), p50/p95/max over the
//!   replayed commits' files under 400 KB.
//!
//! The repositories are clones under one folder (`--repos DIR`, or
//! `NOTARAI_SYMBOLS_REPOS`), named by their last path segment (`DIR/bat`,
//! `DIR/ky`, `DIR/flask`, `DIR/gin`); without it the bench prints
//! `skipped: ...` with the clone commands and succeeds.
//!
//! | option | variable | default |
//! | --- | --- | --- |
//! | `--repos DIR` | `NOTARAI_SYMBOLS_REPOS` | none: skipped |
//! | `--mode M` (`attribution`, `precision`, `cost`, `all`) | `NOTARAI_SYMBOLS_MODE` | `all` |
//! | `--commits N` | `NOTARAI_SYMBOLS_COMMITS` | 400 |
//! | `--replay A,B` (which replays) | `NOTARAI_SYMBOLS_REPLAY` | `gin,flask` |
//! | `--notarai PATH` | `NOTARAI_SYMBOLS_BIN` | this package's binary |

// Tests and benchmarks build repositories as they like: the house's
// file-system and process rules (clippy.toml) are for `src/`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod attribution;
mod cost;
mod replay;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

/// The public repositories the labels and the replay use: (name, clone URL).
pub const REPOS: &[(&str, &str)] = &[
    ("bat", "https://github.com/sharkdp/bat"),
    ("ky", "https://github.com/sindresorhus/ky"),
    ("flask", "https://github.com/pallets/flask"),
    ("gin", "https://github.com/gin-gonic/gin"),
];

/// Usage text for `--help`.
const USAGE: &str = "usage: cargo bench --bench symbols -- --repos DIR \
[--mode attribution|precision|cost|all] [--commits N] [--replay gin,flask] [--notarai PATH]
Each option also reads NOTARAI_SYMBOLS_<NAME>; see benches/symbols/main.rs.";

/// Which parts run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Labelled hunks through `notarai symbols --lines`.
    Attribution,
    /// The replay of real history under two spec sets.
    Precision,
    /// The attribution step's time per changed file.
    Cost,
    /// Everything.
    All,
}

/// Everything the command line and environment decide.
#[derive(Debug)]
struct Options {
    /// Folder of the clones; `None`: skipped.
    repos: Option<PathBuf>,
    /// Which parts run.
    mode: Mode,
    /// Commits replayed per repository.
    commits: usize,
    /// The repositories replayed.
    replay: Vec<String>,
    /// The notarai binary under test.
    bin: PathBuf,
}

impl Options {
    /// Defaults, then environment variables, then arguments.
    fn parse(args: impl Iterator<Item = String>) -> Result<Option<Self>> {
        let mut opts = Options {
            repos: None,
            mode: Mode::All,
            commits: 400,
            replay: replay::REPLAYED.iter().map(|r| r.to_string()).collect(),
            bin: PathBuf::from(env!("CARGO_BIN_EXE_notarai")),
        };
        for (key, value) in std::env::vars() {
            if let Some(name) = key.strip_prefix("NOTARAI_SYMBOLS_") {
                let flag = format!("--{}", name.to_ascii_lowercase());
                opts.apply(&flag, Some(value))?;
            }
        }
        let mut args = args;
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-h" | "--help" => {
                    println!("{USAGE}");
                    return Ok(None);
                }
                // What `cargo bench` passes to every bench target.
                "--bench" => {}
                _ => {
                    let value = args.next();
                    opts.apply(&arg, value)?;
                }
            }
        }
        Ok(Some(opts))
    }

    /// Apply one option with its value.
    fn apply(&mut self, flag: &str, value: Option<String>) -> Result<()> {
        let value = value.with_context(|| format!("{flag} needs a value\n{USAGE}"))?;
        match flag {
            "--repos" => self.repos = Some(value.into()),
            "--commits" => {
                self.commits = value
                    .parse()
                    .with_context(|| format!("{flag}: not a number: {value}"))?
            }
            "--notarai" | "--bin" => self.bin = value.into(),
            "--replay" => {
                self.replay = value.split(',').map(|r| r.trim().to_string()).collect();
                if let Some(r) = self
                    .replay
                    .iter()
                    .find(|r| !replay::REPLAYED.contains(&r.as_str()))
                {
                    bail!(
                        "--replay: {r} has no specs; one of {}",
                        replay::REPLAYED.join(", ")
                    );
                }
            }
            "--mode" => {
                self.mode = match value.as_str() {
                    "attribution" => Mode::Attribution,
                    "precision" => Mode::Precision,
                    "cost" => Mode::Cost,
                    "all" => Mode::All,
                    _ => bail!("--mode: attribution, precision, cost or all, not {value}"),
                }
            }
            _ => bail!("unknown option {flag}\n{USAGE}"),
        }
        Ok(())
    }
}

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => return ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            return ExitCode::from(2);
        }
    };
    let Some(repos) = options.repos.as_deref() else {
        println!("skipped: no --repos DIR (or NOTARAI_SYMBOLS_REPOS) with the clones:");
        for (name, url) in REPOS {
            println!("  git clone {url} DIR/{name}");
        }
        println!("then: cargo bench --bench symbols -- --repos DIR");
        return ExitCode::SUCCESS;
    };
    match run(&options, repos) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Run the parts the mode asks for and print their tables.
fn run(options: &Options, repos: &Path) -> Result<()> {
    if !options.bin.is_file() {
        bail!(
            "{} not found; build it with cargo build --release",
            options.bin.display()
        );
    }
    let mode = options.mode;
    if matches!(mode, Mode::Attribution | Mode::All) {
        println!("{}", attribution::run(&options.bin, repos)?);
    }
    if matches!(mode, Mode::Precision | Mode::All) {
        for repo in &options.replay {
            println!(
                "{}",
                replay::run(&options.bin, repos, repo, options.commits)?
            );
        }
    }
    if matches!(mode, Mode::Cost | Mode::All) {
        println!("{}", cost::run(repos, options.commits)?);
    }
    Ok(())
}

/// The clone of `name` under `repos`, or an error with its clone command.
pub fn clone_dir(repos: &Path, name: &str) -> Result<PathBuf> {
    let dir = repos.join(name);
    if !dir.join(".git").exists() {
        let url = REPOS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("<url>", |(_, u)| u);
        bail!(
            "{} is not a clone; run: git clone {url} {}",
            dir.display(),
            dir.display()
        );
    }
    Ok(dir)
}

/// Run `git` in `dir` and return its stdout (an error with stderr when it fails).
pub fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .with_context(|| format!("running git {}", args.join(" ")))?;
    if !out.status.success() {
        bail!(
            "git {} in {}: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The percentile `p` (0..=100) of sorted `values` (nearest rank).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
