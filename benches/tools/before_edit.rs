//! The cases of issue 30, "specs before the edit": `get_governing_specs` on
//! a warm server and the pre-edit hook (`notarai hook context`) from a
//! fresh process, each against one git start at its best; and issue 40's
//! stop nudge (`notarai hook stop`) the same way.

use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::cases::{Ctx, Row, tool_case};
use crate::gitside;
use crate::measure::{Series, interleave, timed};

/// Ten files of ten modules: what an agent asks before a multi-file edit.
fn ten_paths() -> Vec<String> {
    (0..10)
        .map(|m| format!("src/m{:03}/f{}.rs", m * 7, m + 2))
        .collect()
}

/// `get_governing_specs {paths: 10 files}` on a server that answered once
/// already (what it keeps: the loaded specs, the compiled globs, the kept
/// status); git's counterpart is `git ls-files -- <the 10 paths>`.
pub fn governing_specs(ctx: &Ctx, repo: &std::path::Path) -> Row {
    let paths = ten_paths();
    let args = json!({"paths": paths});
    tool_case(
        ctx,
        repo,
        (
            "get_governing_specs {10 paths}, warm server (git: git ls-files -- 10 paths)".into(),
            "<= 5 ms",
        ),
        |s| s.call_tool("get_governing_specs", args.clone()).map(|_| ()),
        |s| s.call_tool("get_governing_specs", args.clone()),
        || {
            timed(|| {
                let mut argv = vec!["ls-files", "--"];
                argv.extend(paths.iter().map(String::as_str));
                Ok(gitside::git(repo, &argv)?.len())
            })
        },
        |payload: &Value| {
            let governed = payload["files"].as_array().map_or(0, |f| {
                f.iter().filter(|f| f["governed_by"] != json!([])).count()
            });
            match governed {
                10 => Vec::new(),
                n => vec![format!("{n} of 10 paths governed, expected 10")],
            }
        },
    )
}

/// `notarai hook context --agent claude` on a Claude Code `PreToolUse`
/// event for a governed file, a fresh process per run and a new session
/// each time (so it answers every time), to its exit; git's counterpart is
/// one git start.
pub fn hook_context(ctx: &Ctx, repo: &std::path::Path) -> Row {
    let mut session = 0;
    let mut answered = true;
    let run = || -> Result<(Duration, usize)> {
        use std::io::Write;
        use std::process::{Command, Stdio};
        session += 1;
        let event = json!({
            "session_id": format!("bench-{}-{session}", std::process::id()),
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "cwd": repo,
            "tool_input": {"file_path": "src/m000/f2.rs"},
        })
        .to_string();
        let started = std::time::Instant::now();
        let mut child = Command::new(&ctx.bin)
            .args(["hook", "context", "--agent", "claude"])
            .current_dir(repo)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("spawning notarai hook context")?;
        child
            .stdin
            .take()
            .context("no stdin")?
            .write_all(event.as_bytes())?;
        let out = child.wait_with_output()?;
        let elapsed = started.elapsed();
        anyhow::ensure!(
            out.status.success(),
            "hook context exited with {}",
            out.status
        );
        answered &= !out.stdout.is_empty();
        Ok((elapsed, out.stdout.len()))
    };
    let (notarai, baseline) = interleave(ctx.runs, Series::default(), run, || {
        timed(|| Ok(gitside::git(repo, &["rev-parse", "HEAD"])?.len()))
    });
    Row {
        case: "notarai hook context, PreToolUse for src/m000/f2.rs (git: git rev-parse HEAD)"
            .into(),
        notarai,
        baseline,
        peak_kib: None,
        target: "<= 10 ms",
        notes: match answered {
            true => Vec::new(),
            false => vec!["a run answered nothing".into()],
        },
    }
}

/// One hook process fed `event` on stdin, timed from spawn to exit: the
/// time and what it printed.
fn hook_run(
    ctx: &Ctx,
    repo: &std::path::Path,
    sub: &str,
    event: &Value,
) -> Result<(Duration, Vec<u8>)> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let started = std::time::Instant::now();
    let mut child = Command::new(&ctx.bin)
        .args(["hook", sub, "--agent", "claude"])
        .current_dir(repo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("spawning notarai hook {sub}"))?;
    child
        .stdin
        .take()
        .context("no stdin")?
        .write_all(event.to_string().as_bytes())?;
    let out = child.wait_with_output()?;
    let elapsed = started.elapsed();
    anyhow::ensure!(
        out.status.success(),
        "hook {sub} exited with {}",
        out.status
    );
    Ok((elapsed, out.stdout))
}

/// `notarai hook stop --agent claude` on a Claude Code `Stop` event of a
/// session whose pre-edit hook saw one governed file (untimed, a new
/// session each run, so the stop answers every time: the file is not
/// reconciled), a fresh process, to its exit; git's counterpart is one git
/// start.
pub fn hook_stop(ctx: &Ctx, repo: &std::path::Path) -> Row {
    let mut session = 0;
    let mut answered = true;
    let run = || -> Result<(Duration, usize)> {
        session += 1;
        let id = format!("bench-stop-{}-{session}", std::process::id());
        let pre = json!({
            "session_id": id, "hook_event_name": "PreToolUse", "tool_name": "Edit",
            "cwd": repo, "tool_input": {"file_path": "src/m000/f2.rs"},
        });
        hook_run(ctx, repo, "context", &pre)?;
        let stop = json!({"session_id": id, "hook_event_name": "Stop", "cwd": repo, "stop_hook_active": false});
        let (elapsed, out) = hook_run(ctx, repo, "stop", &stop)?;
        answered &= !out.is_empty();
        Ok((elapsed, out.len()))
    };
    let (notarai, baseline) = interleave(ctx.runs, Series::default(), run, || {
        timed(|| Ok(gitside::git(repo, &["rev-parse", "HEAD"])?.len()))
    });
    Row {
        case: "notarai hook stop, Stop after an edit of src/m000/f2.rs (git: git rev-parse HEAD)"
            .into(),
        notarai,
        baseline,
        peak_kib: None,
        target: "<= 10 ms",
        notes: match answered {
            true => Vec::new(),
            false => vec!["a run answered nothing".into()],
        },
    }
}
