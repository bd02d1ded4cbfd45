//! The scale rows (issue 28): the same questions on the default repository
//! and on one with 10x its files and specs (2,000 modules x 250 files,
//! 2,002 specs: 500,000 files), whose change is the same size (40 modules x
//! 8 files edited, the same deletion, new file, spec edit, uncommitted edit
//! and untracked file). Each question is asked on both, next to git at its
//! best on the same repository, and the table says how much each side grew.
//!
//! Peak memory: `VmHWM` of the server from `/proc/PID/status` before it is
//! shut down (the highest of the runs for a fresh server), or `ru_maxrss` of
//! `wait4` for `notarai check`, a process of its own.

use std::cell::RefCell;
use std::fmt::Write;
use std::path::Path;

use serde_json::{Value, json};

use crate::cases::{self, Ctx, Row, WarmQuestion};
use crate::client::ToolReply;
use crate::gitside::{self, pathspec};
use crate::measure::timed;
use crate::repo::RepoParams;
use crate::report;

/// How many times the default repository's modules the scale repository has.
pub const FACTOR: usize = 10;

/// The base branch every question diffs against.
const BASE: &str = "main";

/// Sizes of the scale repository: [`FACTOR`] x the modules (so the specs),
/// the same files per module, the same ignored tree and seed.
pub fn params(default: &RepoParams) -> RepoParams {
    RepoParams {
        modules: default.modules * FACTOR,
        untouched: 0,
        ..*default
    }
}

/// The target of the rows that must grow with the change, not the repository.
const WITH_THE_CHANGE: &str = "<= 1.5x the default repository";

/// One question of the scale group, asked on a repository.
struct Question {
    /// Row label, without the repository.
    label: &'static str,
    /// The target, judged on the growth from the default repository.
    target: &'static str,
    /// Measure it on a repository.
    run: fn(&Ctx, &Path) -> Row,
}

/// The scale group's questions, in table order.
fn questions() -> Vec<Question> {
    vec![
        Question {
            label: "get_spec_diff m000, first call of a fresh server",
            target: WITH_THE_CHANGE,
            run: |ctx, repo| cases::first_call(ctx, repo, &module_question(), cases::Facts::None),
        },
        Question {
            label: "get_spec_diff m000, warm server (cache cleared before each call)",
            target: WITH_THE_CHANGE,
            run: |ctx, repo| cases::module_diff_cold(ctx, repo, "", WITH_THE_CHANGE),
        },
        Question {
            label: "whole pass, fresh server",
            target: WITH_THE_CHANGE,
            run: cases::whole_pass,
        },
        Question {
            label: "whole pass, warm server (cache cleared before each pass)",
            target: WITH_THE_CHANGE,
            run: whole_pass_warm,
        },
        Question {
            label: "list_affected_specs, first call of a fresh server",
            target: "(reported)",
            run: |ctx, repo| {
                cases::first_call(ctx, repo, &cases::list_question(), cases::Facts::None)
            },
        },
        Question {
            label: "list_affected_specs, warm server (cache cleared before each call)",
            target: "(reported)",
            run: list_warm,
        },
        Question {
            label: "notarai check --base main --format json, fresh process",
            target: "(reported)",
            run: |ctx, repo| cases::check(ctx, repo, cases::Facts::None),
        },
    ]
}

/// `get_spec_diff` of `.notarai/m000.spec.yaml` as a [`WarmQuestion`].
fn module_question() -> WarmQuestion {
    WarmQuestion {
        label: "get_spec_diff m000",
        tool: "get_spec_diff",
        args: json!({"spec_path": ".notarai/m000.spec.yaml", "base_branch": BASE}),
        git: |repo| {
            let pathspecs = [
                pathspec("src/m000/**/*.rs"),
                "docs/m000.md".to_owned(),
                ".notarai/m000.spec.yaml".to_owned(),
            ];
            gitside::spec_diff(repo, BASE, &pathspecs)
        },
    }
}

/// `list_affected_specs` on one long-lived server, the cache (and the kept
/// answers) cleared before each call, untimed.
fn list_warm(ctx: &Ctx, repo: &Path) -> Row {
    cases::tool_case(
        ctx,
        repo,
        (String::new(), "(reported)"),
        |_| Ok(()),
        |s| {
            s.call_tool("clear_cache", json!({}))?;
            s.call_tool("list_affected_specs", json!({"base_branch": BASE}))
        },
        || timed(|| gitside::changed_files(repo, BASE)),
        |payload| {
            let specs = payload["affected_specs"].as_array().map_or(0, Vec::len);
            vec![format!("{specs} affected specs")]
        },
    )
}

/// The whole pass ([`cases::pass`]) on one long-lived server, the cache
/// cleared before each pass, untimed; git answers the same questions.
fn whole_pass_warm(ctx: &Ctx, repo: &Path) -> Row {
    let specs = RefCell::new(Vec::new());
    let mut row = cases::tool_case(
        ctx,
        repo,
        (String::new(), WITH_THE_CHANGE),
        |_| Ok(()),
        |s| {
            s.call_tool("clear_cache", json!({}))?;
            let (elapsed, bytes) = cases::pass(s, &mut specs.borrow_mut())?;
            Ok(ToolReply {
                elapsed,
                bytes,
                text_bytes: 0,
                payload: Value::Null,
            })
        },
        || {
            let specs = specs.borrow().clone();
            timed(|| gitside::whole_pass(repo, BASE, &specs))
        },
        |_| Vec::new(),
    );
    let diffed = specs.borrow().len();
    row.notes.push(format!("{diffed} affected specs diffed"));
    row
}

/// Both repositories' rows of one question.
pub struct Pair {
    /// Row label, without the repository.
    label: &'static str,
    /// The target.
    target: &'static str,
    /// On the default repository.
    default: Row,
    /// On the scale repository.
    scale: Row,
}

/// Every question whose label holds `wanted` (every one when empty) on
/// the default repository, then on the scale one.
pub fn pairs(ctx: &Ctx, default: &Path, scale: &Path, wanted: &str) -> Vec<Pair> {
    questions()
        .into_iter()
        .filter(|q| q.label.contains(wanted))
        .map(|q| {
            eprintln!("case: scale, {}, default repository", q.label);
            let mut default = (q.run)(ctx, default);
            eprintln!("case: scale, {}, {FACTOR}x repository", q.label);
            let mut scale = (q.run)(ctx, scale);
            default.case = format!("{}, default repository", q.label);
            scale.case = format!("{}, repository with {FACTOR}x the files and specs", q.label);
            // Each row as soon as it is measured: the group takes long.
            eprintln!(
                "{}\n{}",
                report::table_line(&default),
                report::table_line(&scale)
            );
            Pair {
                label: q.label,
                target: q.target,
                default,
                scale,
            }
        })
        .collect()
}

/// Every row of the pairs, for the main table's notes and failures.
pub fn rows(pairs: Vec<Pair>) -> (Vec<Row>, String) {
    let table = render(&pairs);
    let rows = pairs
        .into_iter()
        .flat_map(|p| [p.default, p.scale])
        .collect();
    (rows, table)
}

/// The scale table: each question's time and peak memory on both
/// repositories, git's, and how much each grew.
fn render(pairs: &[Pair]) -> String {
    let mut out = format!(
        "Scale: the default repository and one with {FACTOR}x its files and specs, the same change.\n\n\
         | question | notarai ms | notarai ms, {FACTOR}x | growth | git ms | git ms, {FACTOR}x | growth | \
         {FACTOR}x vs git | peak MB | peak MB, {FACTOR}x | target |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
    );
    for p in pairs {
        let (n1, n10) = (p.default.notarai.median_ms(), p.scale.notarai.median_ms());
        let (g1, g10) = (p.default.baseline.median_ms(), p.scale.baseline.median_ms());
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.label,
            ms(n1),
            ms(n10),
            ratio(n10, n1),
            ms(g1),
            ms(g10),
            ratio(g10, g1),
            ratio(n10, g10),
            mb(p.default.peak_kib),
            mb(p.scale.peak_kib),
            p.target
        );
    }
    out
}

/// A median in milliseconds, or `FAILED`.
fn ms(value: Option<f64>) -> String {
    match value {
        Some(v) if v < 10.0 => format!("{v:.2}"),
        Some(v) => format!("{v:.1}"),
        None => "FAILED".to_owned(),
    }
}

/// `a / b` as `N.NNx`, or `-`.
fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
        _ => "-".to_owned(),
    }
}

/// KiB as MB with one decimal, or `-`.
fn mb(kib: Option<u64>) -> String {
    kib.map_or("-".to_owned(), |k| format!("{:.1}", k as f64 / 1024.0))
}
