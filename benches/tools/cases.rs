//! The cases of issue 6, each timing notarai against plain git (or, for
//! `mark_reconciled`, against the `blake3` crate alone).
//!
//! Every tool case spawns its own `notarai mcp --root <repo>`, completes the
//! handshake, measures, reads the server's peak memory (`VmHWM`) and closes
//! stdin. Answers are checked against git's (untimed) and any difference is
//! reported as a note, never as a failure: the table is about speed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::client::{Server, ToolReply, peak_rss_kib};
use crate::gitside::{self, pathspec};
use crate::measure::{Series, interleave, timed};
use crate::repo::ALLRS_SPEC;

/// The base branch every case diffs against.
const BASE: &str = "main";
/// The module spec of the single-spec cases.
const MODULE_SPEC: &str = ".notarai/m000.spec.yaml";

/// What every case needs to know.
pub struct Ctx {
    /// The `notarai` binary.
    pub bin: PathBuf,
    /// Where the server's stderr goes.
    pub stderr_log: PathBuf,
    /// Timed rounds per case.
    pub runs: usize,
    /// Limit for one call.
    pub timeout: Duration,
    /// How many files `mark_reconciled` hashes.
    pub mark_files: usize,
}

/// One line of the table.
#[derive(Debug)]
pub struct Row {
    /// What is measured.
    pub case: String,
    /// notarai's side.
    pub notarai: Series,
    /// The baseline's side (git, or blake3 for `mark_reconciled`).
    pub baseline: Series,
    /// Peak resident memory of the server, in KiB.
    pub peak_kib: Option<u64>,
    /// The target of issue 6 for this row.
    pub target: &'static str,
    /// Differences between notarai's and git's answers, and other remarks.
    pub notes: Vec<String>,
}

/// A governed-path question: a spec and the pathspecs git needs for it.
struct SpecQuestion {
    /// The spec's path.
    spec: &'static str,
    /// Its artifact globs as git pathspecs.
    artifacts: Vec<String>,
}

impl SpecQuestion {
    /// `.notarai/m000.spec.yaml`: `src/m000/**/*.rs` and `docs/m000.md`.
    fn module() -> Self {
        SpecQuestion {
            spec: MODULE_SPEC,
            artifacts: vec![pathspec("src/m000/**/*.rs"), "docs/m000.md".to_owned()],
        }
    }

    /// The benchmark's `**/*.rs` spec.
    fn allrs() -> Self {
        SpecQuestion {
            spec: ALLRS_SPEC,
            artifacts: vec![pathspec("**/*.rs")],
        }
    }

    /// Artifacts plus the spec file itself (its own edits are changes too).
    fn with_spec(&self) -> Vec<String> {
        let mut all = self.artifacts.clone();
        all.push(self.spec.to_owned());
        all
    }

    /// Arguments of `get_spec_diff`.
    fn diff_args(&self) -> Value {
        json!({"spec_path": self.spec, "base_branch": BASE})
    }
}

/// Spawn a server on `repo` and complete the handshake.
fn start(ctx: &Ctx, repo: &Path) -> Result<Server> {
    let mut server = Server::spawn(&ctx.bin, repo, &ctx.stderr_log, ctx.timeout)?;
    server.initialize()?;
    Ok(server)
}

/// `(time, bytes)` of a tool reply, for a series.
fn sample(reply: &ToolReply) -> (Duration, usize) {
    (reply.elapsed, reply.bytes)
}

/// Run a tool case: spawn, `setup`, interleave `call` with `baseline`,
/// read the peak memory, shut down; `check` compares the first answer.
pub(crate) fn tool_case(
    ctx: &Ctx,
    repo: &Path,
    (case, target): (String, &'static str),
    setup: impl FnOnce(&mut Server) -> Result<()>,
    mut call: impl FnMut(&mut Server) -> Result<ToolReply>,
    baseline: impl FnMut() -> Result<(Duration, usize)>,
    check: impl FnOnce(&Value) -> Vec<String>,
) -> Row {
    let mut server = gitside::fresh_index(repo)
        .and_then(|()| start(ctx, repo))
        .and_then(|mut s| setup(&mut s).map(|()| s));
    let initial = match &server {
        Ok(_) => Series::default(),
        Err(err) => Series::failed(format!("{err:#}")),
    };
    let mut first: Option<Value> = None;
    let (notarai, baseline) = interleave(
        ctx.runs,
        initial,
        || {
            let server = server.as_mut().map_err(|e| anyhow::anyhow!("{e:#}"))?;
            let reply = call(server)?;
            first.get_or_insert_with(|| reply.payload.clone());
            Ok(sample(&reply))
        },
        baseline,
    );
    let mut notes = first.as_ref().map(check).unwrap_or_default();
    let peak_kib = server.as_ref().ok().and_then(Server::peak_rss_kib);
    if let Ok(server) = server
        && let Err(err) = server.shutdown()
    {
        notes.push(format!("shutdown: {err:#}"));
    }
    Row {
        case,
        notarai,
        baseline,
        peak_kib,
        target,
        notes,
    }
}

/// Spawn to `initialize` answer, a fresh process per run; git's counterpart
/// is the start of one git process in the repository (`git rev-parse HEAD`).
pub fn spawn_to_initialize(ctx: &Ctx, repo: &Path) -> Row {
    let mut peak_kib = None;
    let mut notes = Vec::new();
    let (notarai, baseline) = interleave(
        ctx.runs,
        Series::default(),
        || {
            let started = std::time::Instant::now();
            let mut server = Server::spawn(&ctx.bin, repo, &ctx.stderr_log, ctx.timeout)?;
            let reply = server.initialize()?;
            let elapsed = reply.arrived - started;
            let version = reply.result["protocolVersion"].as_str().unwrap_or("");
            if version != notarai::rpc_client::PROTOCOL_VERSION && notes.is_empty() {
                notes.push(format!("initialize answered protocolVersion {version:?}"));
            }
            peak_kib = peak_kib.max(peak_rss_kib(server.pid()));
            server.shutdown()?;
            Ok((elapsed, reply.bytes))
        },
        || timed(|| Ok(gitside::git(repo, &["rev-parse", "HEAD"])?.len())),
    );
    Row {
        case: "spawn to initialize answer (git: git rev-parse HEAD)".into(),
        notarai,
        baseline,
        peak_kib,
        target: "<= 10 ms",
        notes,
    }
}

/// `list_affected_specs {base_branch: main}` against merge-base, diff
/// --name-only and ls-files --others.
pub fn list_affected_specs(ctx: &Ctx, repo: &Path) -> Row {
    tool_case(
        ctx,
        repo,
        (
            "list_affected_specs {base_branch: main}".into(),
            "<= 1.2x git",
        ),
        |_| Ok(()),
        |s| s.call_tool("list_affected_specs", json!({"base_branch": BASE})),
        || timed(|| gitside::changed_files(repo, BASE)),
        |payload| {
            let mut notes = compare(repo, &[], strings(&payload["changed_files"]));
            let specs = payload["affected_specs"].as_array().map_or(0, Vec::len);
            notes.push(format!("{specs} affected specs"));
            notes
        },
    )
}

/// `get_spec_diff` with the cache cleared (untimed) before every call,
/// against merge-base, diff and ls-files --others restricted to its paths.
fn spec_diff_cold(
    ctx: &Ctx,
    repo: &Path,
    question: SpecQuestion,
    case: String,
    target: &'static str,
) -> Row {
    let pathspecs = question.with_spec();
    let args = question.diff_args();
    tool_case(
        ctx,
        repo,
        (case, target),
        |_| Ok(()),
        |s| {
            s.call_tool("clear_cache", json!({}))?;
            s.call_tool("get_spec_diff", args.clone())
        },
        || timed(|| gitside::spec_diff(repo, BASE, &pathspecs)),
        |payload| compare(repo, &pathspecs, diff_paths(payload)),
    )
}

/// Name of the `m000` cold-diff row; `label` tells the repository apart.
pub fn module_diff_case(label: &str) -> String {
    format!("get_spec_diff m000, cold cache{label}")
}

/// `get_spec_diff` of `m000`, cold cache.
pub fn module_diff_cold(ctx: &Ctx, repo: &Path, label: &str, target: &'static str) -> Row {
    let case = module_diff_case(label);
    spec_diff_cold(ctx, repo, SpecQuestion::module(), case, target)
}

/// `get_spec_diff` of the `**/*.rs` spec, cold cache.
pub fn allrs_diff_cold(ctx: &Ctx, repo: &Path) -> Row {
    let case = "get_spec_diff **/*.rs, cold cache".into();
    spec_diff_cold(ctx, repo, SpecQuestion::allrs(), case, "<= 1.5x git")
}

/// `get_spec_diff` of the `**/*.rs` spec after `mark_reconciled` of every
/// file its cold answer listed (setup, untimed); git has no such cache and
/// answers the cold question again.
pub fn allrs_diff_warm(ctx: &Ctx, repo: &Path) -> Row {
    let question = SpecQuestion::allrs();
    let pathspecs = question.with_spec();
    let args = question.diff_args();
    let mut marked = None;
    let mut row = tool_case(
        ctx,
        repo,
        (
            "get_spec_diff **/*.rs, warm (all reconciled)".into(),
            "(none; below cold)",
        ),
        |s| {
            s.call_tool("clear_cache", json!({}))?;
            let cold = s.call_tool("get_spec_diff", args.clone())?;
            let files: Vec<String> = diff_paths(&cold.payload).into_iter().collect();
            marked = Some(files.len());
            s.call_tool("mark_reconciled", json!({"files": files}))?;
            Ok(())
        },
        |s| s.call_tool("get_spec_diff", args.clone()),
        || timed(|| gitside::spec_diff(repo, BASE, &pathspecs)),
        |payload| {
            vec![format!(
                "warm answer: {} files, {} skipped",
                strings(&payload["files"]).len(),
                strings(&payload["skipped"]).len()
            )]
        },
    );
    if let Some(marked) = marked {
        let note = format!("{marked} files marked reconciled first");
        row.notes.insert(0, note);
    }
    row
}

/// `get_changed_artifacts {spec_path: m000}` on a cold cache (cleared before
/// every call, untimed): every governed file; git lists the same with
/// `ls-files --cached --others --exclude-standard -- <artifact globs>`.
pub fn changed_artifacts(ctx: &Ctx, repo: &Path) -> Row {
    let question = SpecQuestion::module();
    let pathspecs = question.artifacts.clone();
    tool_case(
        ctx,
        repo,
        ("get_changed_artifacts m000, cold cache".into(), "(none)"),
        |_| Ok(()),
        |s| {
            s.call_tool("clear_cache", json!({}))?;
            s.call_tool("get_changed_artifacts", json!({"spec_path": question.spec}))
        },
        || timed(|| gitside::governed_files(repo, &pathspecs)),
        |payload| {
            let listed = strings(&payload["changed_artifacts"]).len();
            let mut notes = vec![format!("{listed} changed artifacts")];
            if let Ok(git_list) = gitside::governed_list(repo, &pathspecs)
                && git_list.len() != listed
            {
                notes.push(format!("git lists {} governed files", git_list.len()));
            }
            notes
        },
    )
}

/// `mark_reconciled` of `ctx.mark_files` tracked sources (cache cleared
/// before each call, untimed) against reading and hashing the same files
/// with the `blake3` crate in this process.
pub fn mark_reconciled(ctx: &Ctx, repo: &Path, progress: bool) -> Row {
    let target = if progress {
        "as the row without a token"
    } else {
        "throughput >= 0.7x blake3 (ratio <= 1.43)"
    };
    let files = match gitside::tracked_files(repo, &[pathspec("src/**/*.rs")]) {
        Ok(mut files) => {
            files.truncate(ctx.mark_files);
            files
        }
        Err(err) => {
            let failed = || Series::failed(format!("{err:#}"));
            return Row {
                case: "mark_reconciled".into(),
                notarai: failed(),
                baseline: failed(),
                peak_kib: None,
                target,
                notes: Vec::new(),
            };
        }
    };
    let count = files.len();
    let args = json!({"files": files});
    let token = progress.then_some("bench");
    let calls = std::cell::Cell::new(0usize);
    let reports = std::cell::Cell::new(0usize);
    let with = if progress {
        ", with a progressToken"
    } else {
        ""
    };
    let mut row = tool_case(
        ctx,
        repo,
        (
            format!("mark_reconciled {count} files{with} (baseline: blake3 crate in-process)"),
            target,
        ),
        |_| Ok(()),
        |s| {
            s.call_tool("clear_cache", json!({}))?;
            let before = s.notifications();
            let reply = s.call_tool_with("mark_reconciled", args.clone(), token)?;
            calls.set(calls.get() + 1);
            reports.set(reports.get() + s.notifications() - before);
            Ok(reply)
        },
        || timed(|| hash_all(repo, &files)),
        |payload| match payload["updated"].as_u64() {
            Some(n) if n as usize == count => Vec::new(),
            other => vec![format!("updated: {other:?}, expected {count}")],
        },
    );
    if progress && calls.get() > 0 {
        row.notes.push(format!(
            "{:.1} progress notifications per call",
            reports.get() as f64 / calls.get() as f64
        ));
    }
    row
}

/// `resources/list` on a warm server, every page (the first, untimed, call
/// loads the specs); git lists the same files: `git ls-files` of the spec
/// folder.
pub fn resources_list(ctx: &Ctx, repo: &Path) -> Row {
    let mut listed = 0usize;
    let mut row = tool_case(
        ctx,
        repo,
        (
            "resources/list, every page (warm server; git: ls-files .notarai)".into(),
            "(none)",
        ),
        |_| Ok(()),
        |s| {
            let started = std::time::Instant::now();
            let (mut bytes, mut count) = (0, 0);
            let mut params = json!({});
            loop {
                let page = s.request("resources/list", params)?;
                bytes += page.bytes;
                count += page.result["resources"].as_array().map_or(0, Vec::len);
                match page.result["nextCursor"].as_str() {
                    Some(cursor) => params = json!({"cursor": cursor}),
                    None => break,
                }
            }
            listed = count;
            Ok(ToolReply {
                elapsed: started.elapsed(),
                bytes,
                text_bytes: 0,
                payload: json!({"resources": count}),
            })
        },
        || timed(|| Ok(gitside::git(repo, &["ls-files", "--", ".notarai/*.spec.yaml"])?.len())),
        |_| Vec::new(),
    );
    let in_git = gitside::git(repo, &["ls-files", "--", ".notarai/*.spec.yaml"])
        .map(|out| out.split(|b| *b == b'\n').filter(|l| !l.is_empty()).count());
    row.notes
        .push(format!("{listed} specs listed, git: {in_git:?}"));
    row
}

/// `notarai export-context --base main --format json`, a fresh process per
/// run writing the whole context to a file, cache cleared first (untimed);
/// git answers the same questions as in the whole pass ([`gitside::whole_pass`]
/// over the specs the export found affected).
pub fn export_context(ctx: &Ctx, repo: &Path) -> Row {
    let mut notes = Vec::new();
    if let Err(err) = gitside::fresh_index(repo) {
        notes.push(format!("fresh index: {err:#}"));
    }
    let output = ctx.stderr_log.with_file_name("export-context.json");
    let mut specs: Vec<String> = Vec::new();
    let run = || -> Result<(Duration, usize)> {
        let clear = std::process::Command::new(&ctx.bin)
            .args(["cache", "clear"])
            .current_dir(repo)
            .output()
            .context("spawning notarai cache clear")?;
        anyhow::ensure!(clear.status.success(), "cache clear failed");
        let started = std::time::Instant::now();
        let out = std::process::Command::new(&ctx.bin)
            .args([
                "export-context",
                "--base",
                BASE,
                "--format",
                "json",
                "--output",
            ])
            .arg(&output)
            .current_dir(repo)
            .stdin(std::process::Stdio::null())
            .output()
            .context("spawning notarai export-context")?;
        let elapsed = started.elapsed();
        anyhow::ensure!(
            out.status.success(),
            "notarai export-context exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        Ok((elapsed, std::fs::metadata(&output)?.len() as usize))
    };
    let specs_of_export = || -> Result<Vec<String>> {
        let text = std::fs::read_to_string(&output)?;
        let value: Value = serde_json::from_str(&text)?;
        Ok(value["specs"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s["spec_path"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default())
    };
    let (notarai, baseline) = {
        let specs_cell = std::cell::RefCell::new(&mut specs);
        interleave(ctx.runs, Series::default(), run, || {
            if specs_cell.borrow().is_empty() {
                **specs_cell.borrow_mut() = specs_of_export().unwrap_or_default();
            }
            let specs = specs_cell.borrow().clone();
            timed(|| gitside::whole_pass(repo, BASE, &specs))
        })
    };
    notes.push(format!("{} specs exported", specs.len()));
    Row {
        case: format!("notarai export-context --base {BASE} --format json, fresh process"),
        notarai,
        baseline,
        peak_kib: None,
        target: "(none; the whole pass is the reference)",
        notes,
    }
}

/// Read and BLAKE3-hash every file, one after the other; returns the bytes read.
fn hash_all(repo: &Path, files: &[String]) -> Result<usize> {
    let mut bytes = 0;
    for file in files {
        let data = std::fs::read(repo.join(file)).with_context(|| format!("reading {file}"))?;
        bytes += data.len();
        std::hint::black_box(blake3::hash(&data));
    }
    Ok(bytes)
}

/// Paths named by a `get_spec_diff` answer: `files` and `spec_changes[].path`.
fn diff_paths(payload: &Value) -> BTreeSet<String> {
    let mut paths = strings(&payload["files"]);
    if let Some(changes) = payload["spec_changes"].as_array() {
        paths.extend(
            changes
                .iter()
                .filter_map(|c| c["path"].as_str().map(str::to_owned)),
        );
    }
    paths
}

/// The strings of a JSON array (empty for anything else).
fn strings(value: &Value) -> BTreeSet<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Notes on how `listed` differs from git's changed paths within `pathspecs`.
fn compare(repo: &Path, pathspecs: &[String], listed: BTreeSet<String>) -> Vec<String> {
    let expected = match gitside::changed_set(repo, BASE, pathspecs) {
        Ok(set) => set,
        Err(err) => return vec![format!("git check failed: {err:#}")],
    };
    let mut notes = vec![format!("{} paths, git: {}", listed.len(), expected.len())];
    let missing: Vec<_> = expected.difference(&listed).take(5).cloned().collect();
    let extra: Vec<_> = listed.difference(&expected).take(5).cloned().collect();
    if !missing.is_empty() {
        notes.push(format!("missing vs git: {}", missing.join(", ")));
    }
    if !extra.is_empty() {
        notes.push(format!("not changed per git: {}", extra.join(", ")));
    }
    notes
}

/// The file the after-edit rows rewrite: it already carries an uncommitted
/// edit, so toggling one more line leaves every answer's file list as it was.
const EDITED: &str = "src/m000/f2.rs";

/// Call tool `name`, following `next_cursor` until the answer is complete;
/// the time and bytes are the sum over the pages.
fn call_all_pages(server: &mut Server, name: &str, args: &Value) -> Result<ToolReply> {
    let mut pages = server.pages(name, args.clone())?.into_iter();
    let mut reply = pages.next().context("no page")?;
    for page in pages {
        reply.elapsed += page.elapsed;
        reply.bytes += page.bytes;
        reply.payload = page.payload;
    }
    Ok(reply)
}

/// The agent's whole pass on a fresh server (spawned and initialized
/// untimed for every run): `list_affected_specs`, then every affected spec's
/// full `get_spec_diff` (all pages), cache cleared first (untimed). git
/// answers the same questions, one git process per question
/// ([`gitside::whole_pass`]). Peak memory is the highest of the runs.
pub fn whole_pass(ctx: &Ctx, repo: &Path) -> Row {
    let case =
        "whole pass: list_affected_specs, then every affected spec's full diff (fresh server)";
    let target = "<= 0.25x git; peak <= 64 MB";
    let mut specs: Vec<String> = Vec::new();
    let mut peak_kib = None;
    let mut notes = Vec::new();
    if let Err(err) = gitside::fresh_index(repo) {
        notes.push(format!("fresh index: {err:#}"));
    }
    // The list of questions git is asked: what notarai found affected.
    let (notarai, baseline) = {
        let specs_cell = std::cell::RefCell::new(&mut specs);
        interleave(
            ctx.runs,
            Series::default(),
            || {
                let mut server = start(ctx, repo)?;
                server.call_tool("clear_cache", json!({}))?;
                let result = pass(&mut server, &mut specs_cell.borrow_mut());
                peak_kib = peak_kib.max(server.peak_rss_kib());
                server.shutdown()?;
                result
            },
            || {
                let specs = specs_cell.borrow().clone();
                timed(|| gitside::whole_pass(repo, BASE, &specs))
            },
        )
    };
    notes.push(format!("{} affected specs diffed", specs.len()));
    Row {
        case: case.into(),
        notarai,
        baseline,
        peak_kib,
        target,
        notes,
    }
}

/// One whole pass on `server`: `list_affected_specs`, then every affected
/// spec's full `get_spec_diff` (all pages); the time and bytes of them all.
/// `specs` becomes the affected specs, the questions git is asked.
pub(crate) fn pass(server: &mut Server, specs: &mut Vec<String>) -> Result<(Duration, usize)> {
    let started = std::time::Instant::now();
    let list = server.call_tool("list_affected_specs", json!({"base_branch": BASE}))?;
    let mut bytes = list.bytes;
    let affected: Vec<String> = list.payload["affected_specs"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s["spec_path"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    for spec in &affected {
        let args = json!({"spec_path": spec, "base_branch": BASE});
        bytes += call_all_pages(server, "get_spec_diff", &args)?.bytes;
    }
    let elapsed = started.elapsed();
    *specs = affected;
    Ok((elapsed, bytes))
}

/// A tool question asked three ways, each against the same git commands:
/// on a fresh server (spawned untimed; its first call is timed), and on one
/// long-lived server after one file was edited since its last answer.
pub struct WarmQuestion {
    /// Row label.
    pub label: &'static str,
    /// Tool name.
    pub tool: &'static str,
    /// Tool arguments.
    pub args: Value,
    /// git's side.
    pub git: fn(&Path) -> Result<usize>,
}

/// `list_affected_specs` as a [`WarmQuestion`].
pub fn list_question() -> WarmQuestion {
    WarmQuestion {
        label: "list_affected_specs",
        tool: "list_affected_specs",
        args: json!({"base_branch": BASE}),
        git: |repo| gitside::changed_files(repo, BASE),
    }
}

/// `get_spec_diff` of the `**/*.rs` spec (hash cache left cold) as a [`WarmQuestion`].
pub fn allrs_question() -> WarmQuestion {
    WarmQuestion {
        label: "get_spec_diff **/*.rs",
        tool: "get_spec_diff",
        args: SpecQuestion::allrs().diff_args(),
        git: |repo| gitside::spec_diff(repo, BASE, &SpecQuestion::allrs().with_spec()),
    }
}

/// Where a process keeps what it learned of contents for the next one.
const FACTS: &str = ".notarai/.cache/facts.db";

/// What an earlier process learned of contents (`facts.db`) before a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Facts {
    /// None: a fresh clone, CI, the first session ever.
    None,
    /// Those a first, untimed, run of the same question learned: a later
    /// session on the same branch.
    Kept,
}

impl Facts {
    fn label(self) -> &'static str {
        match self {
            Facts::None => "",
            Facts::Kept => ", facts kept from an earlier process",
        }
    }

    /// Make the repository's facts what `self` says, untimed: removed, or
    /// put back from `saved` (taken after the warm-up run).
    fn prepare(self, repo: &Path, saved: &mut Option<Vec<u8>>) -> Result<()> {
        let path = repo.join(FACTS);
        match self {
            Facts::None => match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
                _ => Ok(()),
            },
            Facts::Kept => {
                if saved.is_none() {
                    *saved = std::fs::read(&path).ok();
                }
                if let Some(bytes) = saved {
                    std::fs::write(&path, bytes)?;
                }
                Ok(())
            }
        }
    }
}

/// The first call of a fresh server (spawned and initialized untimed),
/// with the hash cache cleared and the contents' facts as `facts` says.
pub fn first_call(ctx: &Ctx, repo: &Path, q: &WarmQuestion, facts: Facts) -> Row {
    let mut peak_kib = None;
    let mut notes = Vec::new();
    if let Err(err) = gitside::fresh_index(repo) {
        notes.push(format!("fresh index: {err:#}"));
    }
    let mut saved = None;
    let (notarai, baseline) = interleave(
        ctx.runs,
        Series::default(),
        || {
            let mut server = start(ctx, repo)?;
            // Taken before `clear_cache` removes them with the hash cache.
            facts.prepare(repo, &mut saved)?;
            server.call_tool("clear_cache", json!({}))?;
            facts.prepare(repo, &mut saved)?;
            let reply = server.call_tool(q.tool, q.args.clone())?;
            peak_kib = peak_kib.max(server.peak_rss_kib());
            server.shutdown()?;
            Ok(sample(&reply))
        },
        || timed(|| (q.git)(repo)),
    );
    Row {
        case: format!("{}, first call of a fresh server{}", q.label, facts.label()),
        notarai,
        baseline,
        peak_kib,
        target: "<= 1.0x git",
        notes,
    }
}

/// One long-lived server; before every call (untimed) one tracked file,
/// [`EDITED`], gets one line more or one line less, then the call is timed.
/// git runs after the same kind of edit. The file is restored afterwards.
pub fn after_one_edit(ctx: &Ctx, repo: &Path, q: &WarmQuestion) -> Row {
    let path = repo.join(EDITED);
    let original = std::fs::read(&path);
    let mut notes = Vec::new();
    let mut peak_kib = None;
    let Ok(original) = original else {
        let failed = || Series::failed(format!("cannot read {EDITED}"));
        return Row {
            case: format!("{}, same server, after one file edit", q.label),
            notarai: failed(),
            baseline: failed(),
            peak_kib,
            target: "<= 0.5x git",
            notes,
        };
    };
    let mut toggle = 0usize;
    let mut edit = || -> Result<()> {
        toggle += 1;
        let mut text = original.clone();
        if toggle % 2 == 1 {
            text.extend_from_slice(b"// bench edit\n");
        }
        std::fs::write(&path, text).with_context(|| format!("writing {EDITED}"))
    };
    let server = gitside::fresh_index(repo).and_then(|()| start(ctx, repo));
    let (notarai, baseline) = match server {
        Err(err) => (Series::failed(format!("{err:#}")), Series::default()),
        Ok(mut server) => {
            let edit = std::cell::RefCell::new(&mut edit);
            let result = interleave(
                ctx.runs,
                Series::default(),
                || {
                    (edit.borrow_mut())()?;
                    Ok(sample(&server.call_tool(q.tool, q.args.clone())?))
                },
                || {
                    (edit.borrow_mut())()?;
                    timed(|| (q.git)(repo))
                },
            );
            peak_kib = server.peak_rss_kib();
            if let Err(err) = server.shutdown() {
                notes.push(format!("shutdown: {err:#}"));
            }
            result
        }
    };
    if let Err(err) = std::fs::write(&path, &original) {
        notes.push(format!("restoring {EDITED}: {err}"));
    }
    Row {
        case: format!("{}, same server, after one file edit", q.label),
        notarai,
        baseline,
        peak_kib,
        target: "<= 0.5x git",
        notes,
    }
}

/// `notarai hook validate` on a PostToolUse event naming `file`, a fresh
/// process per run, to its exit; git's counterpart is one git start.
pub fn hook_validate(ctx: &Ctx, repo: &Path, file: &str, target: &'static str) -> Row {
    let event = json!({
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "cwd": repo,
        "tool_input": {"file_path": file},
    })
    .to_string();
    let run = || -> Result<(Duration, usize)> {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let started = std::time::Instant::now();
        let mut child = Command::new(&ctx.bin)
            .args(["hook", "validate"])
            .current_dir(repo)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("spawning notarai hook validate")?;
        child
            .stdin
            .take()
            .context("no stdin")?
            .write_all(event.as_bytes())?;
        let status = child.wait()?;
        let elapsed = started.elapsed();
        anyhow::ensure!(status.success(), "hook validate exited with {status}");
        Ok((elapsed, 0))
    };
    let (notarai, baseline) = interleave(ctx.runs, Series::default(), run, || {
        timed(|| Ok(gitside::git(repo, &["rev-parse", "HEAD"])?.len()))
    });
    Row {
        case: format!("notarai hook validate, event naming {file} (git: git rev-parse HEAD)"),
        notarai,
        baseline,
        peak_kib: None,
        target,
        notes: Vec::new(),
    }
}

/// `notarai check --base main --format json`, a fresh process per run to its
/// exit (the CI gate runs once per job, so no server is warm); git's
/// counterpart is what the gate needs from git: merge-base, `diff
/// --name-only` and `ls-files --others`, on a fresh index.
pub fn check(ctx: &Ctx, repo: &Path, facts: Facts) -> Row {
    let mut notes = Vec::new();
    if let Err(err) = gitside::fresh_index(repo) {
        notes.push(format!("fresh index: {err:#}"));
    }
    let mut peak_kib = None;
    let mut saved = None;
    let run = || -> Result<(Duration, usize)> {
        facts.prepare(repo, &mut saved)?;
        let exited = crate::measure::run_to_exit(
            std::process::Command::new(&ctx.bin)
                .args(["check", "--base", BASE, "--format", "json"])
                .current_dir(repo),
        )
        .context("running notarai check")?;
        // 0: clean, 1: something to reconcile; 2 is a failure of the row.
        anyhow::ensure!(
            matches!(exited.code, Some(0 | 1)),
            "notarai check exited with {:?}",
            exited.code
        );
        peak_kib = peak_kib.max(Some(exited.peak_kib));
        Ok((exited.elapsed, exited.stdout_bytes))
    };
    let (notarai, baseline) = interleave(ctx.runs, Series::default(), run, || {
        timed(|| gitside::changed_files(repo, BASE))
    });
    Row {
        case: format!(
            "notarai check --base {BASE} --format json, fresh process{}",
            facts.label()
        ),
        notarai,
        baseline,
        peak_kib,
        target: "<= 1.5x git",
        notes,
    }
}
