//! Paged answers: what the first page of an answer costs, what each later
//! page costs (the long-lived server cuts them from the answer it keeps),
//! and what reading every page costs, on the default repository and on a
//! branch that adds 30,000 small governed files (issue 28: "a page costs a
//! page").
//!
//! One long-lived server per case. Each round clears the hash cache
//! (untimed: it also forgets the kept answers, so page 1 computes the whole
//! answer again), then times page 1 and every page after it, following
//! `next_cursor`. git answers the whole question once per round. In the
//! fresh-server form each round spawns a server of its own (untimed) and
//! asks at once: its first answer is computed before its watch is ready.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::cases::{Ctx, Row};
use crate::client::Server;
use crate::gitside::{self, pathspec};
use crate::measure::{Series, median, timed};
use crate::repo::ALLRS_SPEC;

/// How many files the big branch adds.
pub const NEW_FILES: usize = 30_000;

/// The branch the big repository's questions are asked on.
const BIG_BRANCH: &str = "big";

/// A copy of the default repository (its commits only, by `git clone`)
/// with branch [`BIG_BRANCH`]: the `feature` branch plus one commit adding
/// [`NEW_FILES`] small `.rs` files spread over the modules (each governed
/// by its module spec and by the `**/*.rs` spec). Built once, then reused.
pub fn ensure_big(default_repo: &Path) -> Result<PathBuf> {
    let name = default_repo
        .file_name()
        .and_then(|n| n.to_str())
        .context("the default repository has no name")?;
    let base = default_repo.parent().context("no parent folder")?;
    let dir = base.join(format!("{name}-new{NEW_FILES}"));
    if dir.join(".git").is_dir() {
        eprintln!("reusing {}", dir.display());
        return Ok(dir);
    }
    let tmp = base.join(format!("{name}-new{NEW_FILES}.tmp"));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).with_context(|| format!("removing {}", tmp.display()))?;
    }
    eprintln!("building {} ...", dir.display());
    let origin = default_repo.to_str().context("non-UTF-8 path")?;
    let tmp_str = tmp.to_str().context("non-UTF-8 path")?;
    gitside::git(
        base,
        &["clone", "-q", "--branch", "feature", origin, tmp_str],
    )?;
    gitside::git(&tmp, &["branch", "-q", "main", "origin/main"])?;
    gitside::git(&tmp, &["config", "user.email", "bench@example.com"])?;
    gitside::git(&tmp, &["config", "user.name", "bench"])?;
    gitside::git(&tmp, &["config", "gc.autoDetach", "false"])?;
    gitside::git(&tmp, &["checkout", "-q", "-b", BIG_BRANCH])?;
    let modules = std::fs::read_dir(tmp.join("src"))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .count()
        .max(1);
    for i in 0..NEW_FILES {
        let folder = tmp.join(format!("src/m{:03}/new", i % modules));
        std::fs::create_dir_all(&folder)?;
        std::fs::write(
            folder.join(format!("n{i:05}.rs")),
            format!("pub fn n{i}() -> u64 {{ {i} }}\n"),
        )?;
    }
    gitside::git(&tmp, &["add", "-A"])?;
    gitside::git(&tmp, &["commit", "-q", "-m", "30,000 new files"])?;
    std::fs::rename(&tmp, &dir).with_context(|| format!("renaming to {}", dir.display()))?;
    gitside::fresh_index(&dir)?;
    Ok(dir)
}

/// git's side of a question: the commands answering it whole, run in `repo`.
type GitAnswer = Box<dyn Fn(&Path) -> Result<usize>>;

/// One paged question: a tool, its arguments and git's whole answer.
pub struct PagedQuestion {
    /// Row label.
    pub label: String,
    /// Tool name.
    pub tool: &'static str,
    /// Tool arguments (no cursor).
    pub args: Value,
    /// git's side: the commands answering the whole question.
    pub git: GitAnswer,
}

/// `get_spec_diff` of the `**/*.rs` spec against `main`.
pub fn allrs(label: &str) -> PagedQuestion {
    PagedQuestion {
        label: format!("get_spec_diff **/*.rs{label}"),
        tool: "get_spec_diff",
        args: json!({"spec_path": ALLRS_SPEC, "base_branch": "main"}),
        git: Box::new(|repo| {
            gitside::spec_diff(repo, "main", &[pathspec("**/*.rs"), ALLRS_SPEC.to_owned()])
        }),
    }
}

/// `list_affected_specs` against `main`.
pub fn list(label: &str) -> PagedQuestion {
    PagedQuestion {
        label: format!("list_affected_specs{label}"),
        tool: "list_affected_specs",
        args: json!({"base_branch": "main"}),
        git: Box::new(|repo| gitside::changed_files(repo, "main")),
    }
}

/// What one round measured.
struct Round {
    first: (Duration, usize),
    later: Vec<(Duration, usize)>,
}

/// Clear the cache (untimed), then read every page, timing each.
fn read_all(server: &mut Server, q: &PagedQuestion) -> Result<Round> {
    server.call_tool("clear_cache", json!({}))?;
    let first = server.call_tool(q.tool, q.args.clone())?;
    let mut cursor = first.payload["next_cursor"].as_str().map(str::to_owned);
    let mut later = Vec::new();
    while let Some(c) = cursor {
        let mut args = q.args.clone();
        args["cursor"] = json!(c);
        let page = server.call_tool(q.tool, args)?;
        if page.payload.get("error").is_some() || page.payload.is_null() {
            bail!("page {} failed: {}", later.len() + 2, page.payload);
        }
        cursor = page.payload["next_cursor"].as_str().map(str::to_owned);
        later.push((page.elapsed, page.bytes));
    }
    Ok(Round {
        first: (first.elapsed, first.bytes),
        later,
    })
}

/// Spawn and initialize a server on `repo` (untimed).
fn spawn(ctx: &Ctx, repo: &Path) -> Result<Server> {
    let mut server = Server::spawn(&ctx.bin, repo, &ctx.stderr_log, ctx.timeout)?;
    server.initialize()?;
    Ok(server)
}

/// One round of a fresh server: spawned (untimed), every page read, its
/// peak memory, shut down.
fn fresh_round(ctx: &Ctx, repo: &Path, q: &PagedQuestion) -> Result<(Round, Option<u64>)> {
    let mut server = spawn(ctx, repo)?;
    let round = read_all(&mut server, q)?;
    let peak = server.peak_rss_kib();
    server.shutdown()?;
    Ok((round, peak))
}

/// Three rows for `q` on `repo`: page 1, each later page (the median of a
/// round's later pages), and every page together; git's whole answer is
/// the baseline of all three. With `fresh`, each round is a fresh server's
/// first answer.
pub fn paged_rows(ctx: &Ctx, repo: &Path, q: &PagedQuestion, fresh: bool) -> Vec<Row> {
    let mut first = Series::default();
    let mut later = Series::default();
    let mut total = Series::default();
    let mut base = Series::default();
    let mut notes = Vec::new();
    let mut peak_kib = None;
    let mut pages = 0usize;
    let mut worst_later = Duration::ZERO;
    let mut ratios: Vec<f64> = Vec::new();
    if let Err(err) = gitside::fresh_index(repo) {
        notes.push(format!("fresh index: {err:#}"));
    }
    let mut shared = if fresh {
        Ok(None)
    } else {
        spawn(ctx, repo).map(Some)
    };
    match shared.as_mut() {
        Err(err) => {
            let failed = || Series::failed(format!("{err:#}"));
            first = failed();
            later = failed();
            total = failed();
        }
        Ok(server) => {
            for round in 0..=ctx.runs {
                let warm_up = round == 0;
                if first.active() {
                    let read = match server.as_mut() {
                        Some(server) => read_all(server, q),
                        None => fresh_round(ctx, repo, q).map(|(r, peak)| {
                            peak_kib = peak_kib.max(peak);
                            r
                        }),
                    };
                    match read {
                        Ok(r) => {
                            pages = r.later.len() + 1;
                            let times: Vec<Duration> = r.later.iter().map(|p| p.0).collect();
                            let sum: Duration = times.iter().sum();
                            let bytes: usize =
                                r.first.1 + r.later.iter().map(|p| p.1).sum::<usize>();
                            if !warm_up {
                                worst_later = worst_later
                                    .max(times.iter().copied().max().unwrap_or(Duration::ZERO));
                                ratios.push(
                                    (r.first.0 + sum).as_secs_f64() / r.first.0.as_secs_f64(),
                                );
                            }
                            first.record(Ok(r.first), warm_up);
                            if !times.is_empty() {
                                let per_page =
                                    r.later.iter().map(|p| p.1).sum::<usize>() / r.later.len();
                                later.record(Ok((median(&times), per_page)), warm_up);
                            }
                            total.record(Ok((r.first.0 + sum, bytes)), warm_up);
                        }
                        Err(err) => {
                            let msg = format!("{err:#}");
                            first.record(Err(anyhow::anyhow!(msg.clone())), warm_up);
                            later.record(Err(anyhow::anyhow!(msg.clone())), warm_up);
                            total.record(Err(anyhow::anyhow!(msg)), warm_up);
                        }
                    }
                }
                if base.active() {
                    base.record(timed(|| (q.git)(repo)), warm_up);
                }
            }
            if let Some(server) = server.take() {
                peak_kib = server.peak_rss_kib();
                if let Err(err) = server.shutdown() {
                    notes.push(format!("shutdown: {err:#}"));
                }
            }
        }
    }
    notes.push(format!(
        "{pages} pages; slowest later page {:.2} ms; every page / first page: {}",
        worst_later.as_secs_f64() * 1000.0,
        if ratios.is_empty() {
            "-".to_owned()
        } else {
            let mut r = ratios.clone();
            r.sort_by(f64::total_cmp);
            format!(
                "median {:.2}x, worst {:.2}x",
                r[r.len() / 2],
                r[r.len() - 1]
            )
        }
    ));
    let server = if fresh {
        "a fresh server each round"
    } else {
        "warm server"
    };
    let base_copy = |s: &Series| Series {
        times: s.times.clone(),
        bytes: s.bytes,
        error: s.error.clone(),
    };
    vec![
        Row {
            case: format!("{}, page 1 (cache cleared, {server})", q.label),
            notarai: first,
            baseline: base_copy(&base),
            peak_kib,
            target: "(reference for the rows below)",
            notes: Vec::new(),
        },
        Row {
            case: format!("{}, each later page (median of a round, {server})", q.label),
            notarai: later,
            baseline: base_copy(&base),
            peak_kib,
            target: "<= 5 ms a page",
            notes: Vec::new(),
        },
        Row {
            case: format!("{}, every page (following next_cursor, {server})", q.label),
            notarai: total,
            baseline: base,
            peak_kib,
            target: "<= 2x its page 1; <= 1.0x git",
            notes,
        },
    ]
}
