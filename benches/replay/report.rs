//! The replay's figures per repository and overall, as Markdown.

use std::fmt::Write;

use crate::judge::Need;

/// One pass after one upstream change.
#[derive(Debug)]
pub struct PassRow {
    /// Upstream commit (short).
    pub commit: String,
    /// Its subject.
    pub subject: String,
    /// Text bytes of every tool answer of the pass.
    pub read: usize,
    /// `git diff -U0` bytes of the governed files of the change.
    pub changed: usize,
    /// The same without lock files and the files the skill excludes.
    pub changed_kept: usize,
    /// Tool calls.
    pub calls: usize,
    /// Each call's tool and text bytes, in order.
    pub detail: Vec<(String, usize)>,
    /// Slowest call, ms.
    pub max_ms: f64,
}

/// One judged flag.
#[derive(Debug)]
pub struct FlagRow {
    /// Upstream commit (short).
    pub commit: String,
    /// The spec.
    pub spec: String,
    /// Files served.
    pub files: usize,
    /// The verdict.
    pub need: Need,
    /// Why.
    pub reason: String,
}

/// A labelled pair (needed or borderline) that no flag of its pass named.
#[derive(Debug)]
pub struct MissRow {
    /// Upstream commit (short).
    pub commit: String,
    /// The spec.
    pub spec: String,
    /// The label's verdict.
    pub need: Need,
    /// The label's why.
    pub why: String,
}

/// Everything measured on one repository.
#[derive(Debug)]
pub struct RepoReport {
    /// Project name and language.
    pub name: String,
    /// Language.
    pub language: String,
    /// Every pass.
    pub passes: Vec<PassRow>,
    /// Every flag.
    pub flags: Vec<FlagRow>,
    /// Every labelled pair no flag named.
    pub misses: Vec<MissRow>,
    /// The whole-branch pass: text bytes read.
    pub whole_read: usize,
    /// `git diff` (default context) of the governed files of the branch.
    pub whole_diff: usize,
    /// `git diff -U0` of the same.
    pub whole_diff_u0: usize,
    /// `git diff` without lock files and the files the skill excludes.
    pub whole_diff_kept: usize,
    /// `notarai check` after the last pass: exit code and first lines.
    pub check: (i32, String),
    /// `notarai check --strict` after the last pass.
    pub strict: (i32, String),
    /// Bytes of `tools/list` and of the skill (read once per session).
    pub session_bytes: (usize, usize),
    /// Text bytes read per tool over every pass, and its calls.
    pub per_tool: Vec<(String, usize, usize)>,
}

impl RepoReport {
    /// Total read over the passes.
    fn read(&self) -> usize {
        self.passes.iter().map(|p| p.read).sum()
    }

    /// Total changed over the passes.
    fn changed(&self) -> usize {
        self.passes.iter().map(|p| p.changed).sum()
    }

    /// Total changed over the passes, without lock files and the files the skill excludes.
    fn changed_kept(&self) -> usize {
        self.passes.iter().map(|p| p.changed_kept).sum()
    }

    /// The pass furthest over its bound (3x its change + 2 KB).
    fn worst(&self) -> Option<&PassRow> {
        self.passes
            .iter()
            .max_by(|a, b| excess(a).total_cmp(&excess(b)))
    }
}

/// A pass's read over its bound, as a fraction of the bound.
fn excess(p: &PassRow) -> f64 {
    p.read as f64 / (3.0 * p.changed as f64 + 2048.0)
}

/// `a / b` as `1.23x`.
fn ratio(a: usize, b: usize) -> String {
    if b == 0 {
        return "-".into();
    }
    format!("{:.2}x", a as f64 / b as f64)
}

/// Share of flags judged needed, and needed or borderline.
fn shares(flags: &[&FlagRow]) -> (String, String) {
    let n = flags.len();
    if n == 0 {
        return ("-".into(), "-".into());
    }
    let needed = flags.iter().filter(|f| f.need == Need::Needed).count();
    let border = flags.iter().filter(|f| f.need >= Need::Borderline).count();
    let pct = |k: usize| format!("{:.0}% ({k}/{n})", 100.0 * k as f64 / n as f64);
    (pct(needed), pct(border))
}

/// Misses as `needed, borderline`.
fn missed(misses: &[&MissRow]) -> String {
    let needed = misses.iter().filter(|m| m.need == Need::Needed).count();
    format!("{needed}, {}", misses.len() - needed)
}

/// The summary table, then the worst passes and the judged flags.
pub fn render(header: &str, repos: &[RepoReport]) -> String {
    let mut out = format!("{header}\n\n");
    out.push_str(
        "| repository | passes | read / changed (<= 1.5x) | worst pass: read vs change (<= 3x + 2 KB) \
         | whole branch: read / git diff (<= 1.15x) | review flags | needed (>= 60%) | needed or borderline \
         | missed: needed (0), borderline | `check` after the last pass | `check --strict` \
         | read / changed without lock files (nobody reads them) and the files the skill excludes (<= 1.3x) |\n\
         | --- | ---: | --- | --- | --- | ---: | --- | --- | --- | --- | --- | --- |\n",
    );
    for r in repos {
        let flags: Vec<&FlagRow> = r.flags.iter().collect();
        table_line(&mut out, &r.name, &r.language, r, &flags);
    }
    overall_line(&mut out, repos);
    for r in repos {
        details(&mut out, r);
    }
    out
}

/// One repository's line.
fn table_line(out: &mut String, name: &str, language: &str, r: &RepoReport, flags: &[&FlagRow]) {
    let worst = r.worst().map_or("-".into(), |p| {
        format!(
            "{} B vs {} B ({:.1}x of bound, {})",
            p.read,
            p.changed,
            excess(p),
            p.commit
        )
    });
    let (needed, border) = shares(flags);
    let check = if r.check.0 == 0 { "passes" } else { "fails" };
    let strict = if r.strict.0 == 0 { "passes" } else { "fails" };
    let _ = writeln!(
        out,
        "| {name} ({language}) | {} | {} / {} B = {} | {worst} | {} / {} B = {} | {} | {needed} | {border} | {} | {check} (exit {}) | {strict} (exit {}) | {} / {} B = {} |",
        r.passes.len(),
        r.read(),
        r.changed(),
        ratio(r.read(), r.changed()),
        r.whole_read,
        r.whole_diff,
        ratio(r.whole_read, r.whole_diff),
        flags.len(),
        missed(&r.misses.iter().collect::<Vec<_>>()),
        r.check.0,
        r.strict.0,
        r.read(),
        r.changed_kept(),
        ratio(r.read(), r.changed_kept()),
    );
}

/// The line over every repository.
fn overall_line(out: &mut String, repos: &[RepoReport]) {
    let read: usize = repos.iter().map(RepoReport::read).sum();
    let changed: usize = repos.iter().map(RepoReport::changed).sum();
    let passes: usize = repos.iter().map(|r| r.passes.len()).sum();
    let over = repos
        .iter()
        .flat_map(|r| &r.passes)
        .filter(|p| excess(p) > 1.0)
        .count();
    let whole_read: usize = repos.iter().map(|r| r.whole_read).sum();
    let whole_diff: usize = repos.iter().map(|r| r.whole_diff).sum();
    let flags: Vec<&FlagRow> = repos.iter().flat_map(|r| &r.flags).collect();
    let (needed, border) = shares(&flags);
    let green = repos.iter().filter(|r| r.check.0 == 0).count();
    let strict = repos.iter().filter(|r| r.strict.0 == 0).count();
    let misses: Vec<&MissRow> = repos.iter().flat_map(|r| &r.misses).collect();
    let kept: usize = repos.iter().map(RepoReport::changed_kept).sum();
    let _ = writeln!(
        out,
        "| **overall** | {passes} | {read} / {changed} B = {} | {over} of {passes} passes over the bound | {whole_read} / {whole_diff} B = {} | {} | {needed} | {border} | {} | {green} of {n} pass | {strict} of {n} pass | {read} / {kept} B = {} |",
        ratio(read, changed),
        ratio(whole_read, whole_diff),
        flags.len(),
        missed(&misses),
        ratio(read, kept),
        n = repos.len(),
    );
}

/// Per repository: session costs, the passes over their bound, `check`,
/// and every judged flag.
fn details(out: &mut String, r: &RepoReport) {
    let _ = writeln!(out, "\n### {}\n", r.name);
    let _ = writeln!(
        out,
        "Once per session (not in the ratios): `tools/list` {} B, the skill {} B. \
         Whole branch: `git diff -U0` {} B; `git diff` without lock files and the files the skill excludes {} B \
         (read / that = {}).",
        r.session_bytes.0,
        r.session_bytes.1,
        r.whole_diff_u0,
        r.whole_diff_kept,
        ratio(r.whole_read, r.whole_diff_kept)
    );
    let tools: Vec<String> = r
        .per_tool
        .iter()
        .map(|(tool, bytes, calls)| format!("`{tool}` {bytes} B in {calls} calls"))
        .collect();
    let _ = writeln!(
        out,
        "\nRead per tool over the passes: {}.",
        tools.join(", ")
    );
    let mut over: Vec<&PassRow> = r.passes.iter().filter(|p| excess(p) > 1.0).collect();
    over.sort_by(|a, b| excess(b).total_cmp(&excess(a)));
    let _ = writeln!(out, "\nPasses over 3x their change + 2 KB: {}", over.len());
    for p in over.iter().take(8) {
        let detail: Vec<String> = p
            .detail
            .iter()
            .map(|(tool, bytes)| format!("{} {bytes}", short_tool(tool)))
            .collect();
        let _ = writeln!(
            out,
            "- {} {}: read {} B in {} calls (slowest {:.0} ms), changed {} B: {}",
            p.commit,
            clip(&p.subject),
            p.read,
            p.calls,
            p.max_ms,
            p.changed,
            detail.join(" + ")
        );
    }
    let _ = writeln!(
        out,
        "\n`notarai check` after the last pass: exit {}",
        r.check.0
    );
    let verdict = r.check.1.lines().filter(|l| {
        let t = l.trim_start();
        t.starts_with("error") || t.starts_with("FAIL") || t.starts_with("PASS")
    });
    for line in verdict.take(8) {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(
        out,
        "\n`notarai check --strict` after the last pass: exit {}",
        r.strict.0
    );
    let verdict = r.strict.1.lines().filter(|l| {
        let t = l.trim_start();
        t.starts_with("error") || t.starts_with("FAIL") || t.starts_with("PASS")
    });
    for line in verdict.take(8) {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(
        out,
        "\nLabelled needed or borderline, and no flag named them: {}",
        r.misses.len()
    );
    for m in &r.misses {
        let _ = writeln!(
            out,
            "- {} {}: **{}**: {}",
            m.commit,
            m.spec,
            m.need.label(),
            m.why
        );
    }
    let _ = writeln!(
        out,
        "\nFlags, judged (the rules of benches/replay/judge.rs, and a reviewer's reading in benches/replay/labels.tsv where they differ):"
    );
    for f in &r.flags {
        let _ = writeln!(
            out,
            "- {} {} ({} files): **{}**: {}",
            f.commit,
            f.spec,
            f.files,
            f.need.label(),
            f.reason
        );
    }
}

/// A tool's name without its verb's common prefix, for the per-call lists.
fn short_tool(tool: &str) -> &str {
    match tool {
        "get_reconciliation_status" => "status",
        "list_affected_specs" => "affected",
        "get_spec_diff" => "diff",
        "get_changed_artifacts" => "artifacts",
        "mark_reconciled" => "mark",
        "snapshot_state" => "snapshot",
        other => other,
    }
}

/// At most 60 characters.
fn clip(text: &str) -> String {
    text.chars().take(60).collect()
}
