//! `cargo bench --bench replay`: the daily loop measured on real history.
//!
//! For each project of `repo::PROJECTS` (flask, gin, chi, jotai): a clone at the replay's
//! start, our specs (`benches/replay/specs/<name>/`) and `notarai init
//! --agents claude` committed and tagged `replay-base`; then each upstream
//! first-parent change applied as one commit, and after each ONE
//! reconciliation pass played from the installed skill (`pass.rs`). Bytes of
//! every tool answer's text vs `git diff -U0` of the governed files of the
//! change; `notarai check` and `check --strict` after the last pass; then
//! one pass over the whole branch (one commit, fresh cache, no state) vs its
//! `git diff`. Review flags are judged by `judge.rs`; a labelled pair no
//! flag named is a miss.
//!
//! | option | variable | default |
//! | --- | --- | --- |
//! | `--repos DIR` | `NOTARAI_REPLAY_REPOS` | none: prints `skipped: ...` |
//! | `--work DIR` | `NOTARAI_REPLAY_WORK` | `/tmp/notarai-replay` |
//! | `--markdown FILE` | `NOTARAI_REPLAY_MARKDOWN` | none |
//! | `--notarai PATH` | `NOTARAI_REPLAY_BIN` | this package's binary |
//! | `--timeout SECS` | `NOTARAI_REPLAY_TIMEOUT` | 120 |
//! | `--dump DIR` | `NOTARAI_REPLAY_DUMP` | none: writes every answer of every pass as `DIR/<project>/<commit>/<n>-<tool>.json` |
//!
//! `DIR` holds one clone per project, named as the project (`DIR/flask`,
//! `DIR/gin`); a clone may be bare.

// Tests and benchmarks build repositories as they like: the house's
// file-system and process rules (clippy.toml) are for `src/`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

#[allow(dead_code)]
#[path = "../tools/client.rs"]
mod client;
mod judge;
mod pass;
mod repo;
mod report;
mod skill;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::json;

use client::Server;
use repo::{BASE, Governed, Project};
use report::{FlagRow, MissRow, PassRow, RepoReport};

/// Everything the command line and environment decide.
#[derive(Debug)]
struct Options {
    /// Folder of the upstream clones.
    repos: Option<PathBuf>,
    /// Where the replay repositories are made.
    work: PathBuf,
    /// Where to write the table too.
    markdown: Option<PathBuf>,
    /// The notarai binary.
    bin: PathBuf,
    /// Limit of one call.
    timeout: Duration,
    /// Where to write every answer, when given.
    dump: Option<PathBuf>,
}

/// Usage text for `--help`.
const USAGE: &str = "usage: cargo bench --bench replay -- --repos DIR [--work DIR] \
[--markdown FILE] [--notarai PATH] [--timeout SECS] [--dump DIR]
Each option also reads NOTARAI_REPLAY_<NAME>; see benches/replay/main.rs.";

impl Options {
    /// Defaults, then environment variables, then arguments.
    fn parse() -> Result<Option<Options>> {
        let mut opts = Options {
            repos: None,
            work: PathBuf::from("/tmp/notarai-replay"),
            markdown: None,
            bin: PathBuf::from(env!("CARGO_BIN_EXE_notarai")),
            timeout: Duration::from_secs(120),
            dump: None,
        };
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (key, value) in std::env::vars() {
            if let Some(name) = key.strip_prefix("NOTARAI_REPLAY_") {
                pairs.push((format!("--{}", name.to_ascii_lowercase()), value));
            }
        }
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-h" | "--help" => {
                    println!("{USAGE}");
                    return Ok(None);
                }
                "--bench" => {}
                flag => {
                    let value = args
                        .next()
                        .with_context(|| format!("{flag} needs a value\n{USAGE}"))?;
                    pairs.push((flag.to_owned(), value));
                }
            }
        }
        for (flag, value) in pairs {
            match flag.as_str() {
                "--repos" => opts.repos = Some(value.into()),
                "--work" => opts.work = value.into(),
                "--markdown" => opts.markdown = Some(value.into()),
                "--dump" => opts.dump = Some(value.into()),
                "--notarai" | "--bin" => opts.bin = value.into(),
                "--timeout" => {
                    let secs: u64 = value
                        .parse()
                        .with_context(|| format!("--timeout {value}"))?;
                    opts.timeout = Duration::from_secs(secs);
                }
                _ => bail!("unknown option {flag}\n{USAGE}"),
            }
        }
        Ok(Some(opts))
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("replay: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Parse options, replay every project found, print (and write) the table.
fn run() -> Result<()> {
    let Some(opts) = Options::parse()? else {
        return Ok(());
    };
    judge::check_labels()?;
    let how = repo::PROJECTS
        .iter()
        .map(|p| format!("git clone {} DIR/{}", p.url, p.name))
        .collect::<Vec<_>>()
        .join("; ");
    let Some(repos) = &opts.repos else {
        println!(
            "skipped: no upstream clones given. Run: {how}; then \
             cargo bench --bench replay -- --repos DIR (or NOTARAI_REPLAY_REPOS=DIR)"
        );
        return Ok(());
    };
    let specs_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/replay/specs");
    let mut reports = Vec::new();
    for project in repo::PROJECTS {
        let source = repos.join(project.name);
        if !source.exists() {
            println!(
                "skipped {}: {} is missing (git clone {} {})",
                project.name,
                source.display(),
                project.url,
                source.display()
            );
            continue;
        }
        let specs = specs_root.join(project.name);
        let work = opts.work.join(project.name);
        eprintln!("replay: {} into {}", project.name, work.display());
        reports.push(replay(&opts, project, &source, &specs, &work)?);
    }
    if reports.is_empty() {
        println!(
            "skipped: no project found under {} ({how})",
            repos.display()
        );
        return Ok(());
    }
    let header = format!(
        "Daily loop replay: {} upstream changes of {} repositories, one pass after each as the \
         installed skill says (notarai {}).",
        reports.iter().map(|r| r.passes.len()).sum::<usize>(),
        reports.len(),
        env!("CARGO_PKG_VERSION")
    );
    let table = report::render(&header, &reports);
    println!("{table}");
    if let Some(path) = &opts.markdown {
        std::fs::write(path, &table).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Replay one project: the passes, `check`, then the whole-branch pass.
fn replay(
    opts: &Options,
    project: &Project,
    source: &Path,
    specs: &Path,
    work: &Path,
) -> Result<RepoReport> {
    let commits = repo::prepare(&opts.bin, project, source, specs, work)?;
    let (steps, skill_bytes) = skill::read(work)?;
    let tools_order: Vec<&str> = steps
        .iter()
        .flat_map(|s| s.calls.iter().map(String::as_str))
        .collect();
    eprintln!("replay: the skill calls {}", tools_order.join(" -> "));
    let governed = Governed::load(work)?;
    let excluded = skill_excludes(&steps)?;
    let log = work.with_extension("server.log");
    let mut passes = Vec::new();
    let mut flags = Vec::new();
    let mut misses = Vec::new();
    let mut tools_list = 0;
    let mut per_tool: Vec<(String, usize, usize)> = Vec::new();
    for commit in &commits {
        let short = &commit[..8];
        let before = String::from_utf8_lossy(&repo::git(work, &["rev-parse", "HEAD"])?)
            .trim()
            .to_owned();
        let subject = repo::apply(work, commit)?;
        let files = repo::governed_changes(work, &governed, &before, "HEAD")?;
        let changed = repo::diff_bytes(work, "-U0", &before, "HEAD", &files)?;
        let kept: Vec<String> = files
            .iter()
            .filter(|f| !excluded.is_match(f.as_str()) && !repo::is_lock_file(f))
            .cloned()
            .collect();
        let changed_kept = repo::diff_bytes(work, "-U0", &before, "HEAD", &kept)?;
        let lines = repo::changed_lines(work, &before, "HEAD", &files)?;
        let mut server = Server::spawn(&opts.bin, work, &log, opts.timeout)?;
        server.initialize()?;
        tools_list = server.request("tools/list", json!({}))?.bytes;
        let input = pass::PassInput {
            work,
            steps: &steps,
            base: BASE,
            governed: &governed,
        };
        let outcome = pass::run(&mut server, &input)
            .with_context(|| format!("the pass after upstream {short}"))?;
        server.shutdown()?;
        if let Some(dump) = &opts.dump {
            dump_answers(&dump.join(project.name).join(short), &outcome.calls)?;
        }
        for call in &outcome.calls {
            match per_tool.iter_mut().find(|(tool, _, _)| *tool == call.tool) {
                Some(entry) => {
                    entry.1 += call.bytes;
                    entry.2 += 1;
                }
                None => per_tool.push((call.tool.clone(), call.bytes, 1)),
            }
        }
        judge_pass(
            project.name,
            short,
            &outcome,
            &lines,
            &governed,
            &mut flags,
            &mut misses,
        );
        eprintln!(
            "replay: {short} read {} B, changed {} B, {} calls, {} flags",
            outcome.bytes(),
            changed,
            outcome.calls.len(),
            outcome.flags.len()
        );
        passes.push(PassRow {
            commit: short.to_owned(),
            subject,
            read: outcome.bytes(),
            changed,
            changed_kept,
            calls: outcome.calls.len(),
            detail: outcome
                .calls
                .iter()
                .map(|c| (c.tool.clone(), c.bytes))
                .collect(),
            max_ms: outcome.calls.iter().map(|c| c.ms).fold(0.0, f64::max),
        });
    }
    let (code, out) = repo::notarai_status(&opts.bin, work, &["check", "--base", BASE])?;
    let check = (code, String::from_utf8_lossy(&out).into_owned());
    let strict = ["check", "--strict", "--base", BASE];
    let (code, out) = repo::notarai_status(&opts.bin, work, &strict)?;
    let strict = (code, String::from_utf8_lossy(&out).into_owned());
    let whole = whole_branch(opts, project, work, &steps, &governed, &log, &excluded)?;
    Ok(RepoReport {
        name: project.name.to_owned(),
        language: project.language.to_owned(),
        passes,
        flags,
        misses,
        whole_read: whole.read,
        whole_diff: whole.diff,
        whole_diff_u0: whole.diff_u0,
        whole_diff_kept: whole.diff_kept,
        check,
        strict,
        session_bytes: (tools_list, skill_bytes),
        per_tool,
    })
}

/// Judge the flags of one pass (a reviewer's label, else the rules), and
/// record the labelled needed or borderline specs no flag named.
fn judge_pass(
    project: &str,
    short: &str,
    outcome: &pass::PassOutcome,
    lines: &std::collections::BTreeMap<String, Vec<String>>,
    governed: &Governed,
    flags: &mut Vec<FlagRow>,
    misses: &mut Vec<MissRow>,
) {
    for flag in &outcome.flags {
        let (need, reason) = judge::reviewed(project, short, &flag.spec)
            .unwrap_or_else(|| judge::judge(flag, lines, governed));
        flags.push(FlagRow {
            commit: short.to_owned(),
            spec: flag.spec.clone(),
            files: flag.files.len(),
            need,
            reason,
        });
    }
    let flagged: Vec<&str> = outcome.flags.iter().map(|f| f.spec.as_str()).collect();
    misses.extend(
        judge::missed(project, short, &flagged)
            .into_iter()
            .map(|l| MissRow {
                commit: short.to_owned(),
                spec: l.spec,
                need: l.need,
                why: l.why,
            }),
    );
}

/// Every answer of one pass, one file each, in order.
fn dump_answers(dir: &Path, calls: &[pass::Call]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (n, call) in calls.iter().enumerate() {
        let path = dir.join(format!("{:02}-{}.json", n + 1, call.tool));
        let text = serde_json::to_string_pretty(&call.payload)?;
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The `exclude_patterns` the skill gives, as git pathspecs (`*` crosses
/// folders); none when it gives none.
fn skill_excludes(steps: &[skill::Step]) -> Result<globset::GlobSet> {
    let mut set = globset::GlobSetBuilder::new();
    for pattern in steps
        .iter()
        .filter_map(skill::Step::exclude_patterns)
        .flatten()
    {
        set.add(globset::Glob::new(&pattern)?);
    }
    Ok(set.build()?)
}

/// What the whole-branch pass read, and the branch's diffs (governed files).
struct Whole {
    /// Text bytes of every answer of the pass.
    read: usize,
    /// `git diff` (default context).
    diff: usize,
    /// `git diff -U0`.
    diff_u0: usize,
    /// `git diff` without lock files and the files the skill excludes.
    diff_kept: usize,
}

/// The whole branch as one commit on `replay-base`, a fresh cache and no
/// state: one pass; its bytes, and the diffs of the governed files.
fn whole_branch(
    opts: &Options,
    project: &Project,
    work: &Path,
    steps: &[skill::Step],
    governed: &Governed,
    log: &Path,
    excluded: &globset::GlobSet,
) -> Result<Whole> {
    repo::git(work, &["checkout", "-q", "-b", "whole", BASE])?;
    let range = [project.start, project.end];
    let patch = repo::git(work, &["diff", "--binary", range[0], range[1]])?;
    repo::git_input(work, &["apply", "--index", "--3way"], Some(&patch))?;
    repo::git(work, &["commit", "-q", "-m", "the whole branch"])?;
    let head = String::from_utf8_lossy(&repo::git(work, &["rev-parse", "HEAD"])?)
        .trim()
        .to_owned();
    let mut server = Server::spawn(&opts.bin, work, log, opts.timeout)?;
    server.initialize()?;
    server.call_tool("clear_cache", json!({}))?;
    let input = pass::PassInput {
        work,
        steps,
        base: BASE,
        governed,
    };
    let outcome = pass::run(&mut server, &input).context("the whole-branch pass")?;
    server.shutdown()?;
    let files = repo::governed_changes(work, governed, BASE, &head)?;
    let kept: Vec<String> = files
        .iter()
        .filter(|f| !excluded.is_match(f.as_str()) && !repo::is_lock_file(f))
        .cloned()
        .collect();
    Ok(Whole {
        read: outcome.bytes(),
        diff: repo::diff_bytes(work, "-U3", BASE, &head, &files)?,
        diff_u0: repo::diff_bytes(work, "-U0", BASE, &head, &files)?,
        diff_kept: repo::diff_bytes(work, "-U3", BASE, &head, &kept)?,
    })
}
