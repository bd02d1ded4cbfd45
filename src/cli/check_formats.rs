//! `notarai check`'s formats for a pull request: `markdown`, the body of
//! one sticky comment (found again by its hidden marker, within GitHub's
//! 65,536 characters, truncated with a count), and `sarif`, SARIF 2.1.0
//! for code scanning (the rule table as the tool's rules).

use std::io::Write;

use serde_json::{Value, json};

use crate::check::{CheckReport, Severity};
use crate::quote::{markdown as md, markdown_code as code};
use crate::rules::RULES;

/// The first line of the comment: how the action finds it to edit it.
pub const MARKER: &str = "<!-- notarai-check -->";

/// The most a comment body holds on GitHub (characters; counted here in
/// bytes, which are never fewer).
pub const COMMENT_LIMIT: usize = 65_536;

/// Room kept for the truncation note and the closing lines.
const RESERVE: usize = 1_024;

/// Most specs of the drift score shown (`notarai score` lists them all).
const TOP_SCORES: usize = 5;

/// Most files of a spec named in its row.
const FILES_PER_ROW: usize = 5;

fn label(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Notice => "notice",
    }
}

/// A body that stops taking lines at the limit and counts what it left out.
struct Body {
    text: String,
    left_out: Vec<(usize, &'static str)>,
}

impl Body {
    fn line(&mut self, line: &str) -> bool {
        if self.text.len() + line.len() + 1 + RESERVE > COMMENT_LIMIT {
            return false;
        }
        self.text.push_str(line);
        self.text.push('\n');
        true
    }

    /// A section: its heading and table head, then rows while they fit;
    /// the rows left out are counted under `what`.
    fn section(&mut self, head: &[&str], rows: Vec<String>, what: &'static str) {
        if rows.is_empty() {
            return;
        }
        let total = rows.len();
        let mut shown = 0;
        if head.iter().all(|h| self.line(h)) {
            for row in &rows {
                if !self.line(row) {
                    break;
                }
                shown += 1;
            }
        }
        if shown < total {
            self.left_out.push((total - shown, what));
        }
    }
}

/// The pull request comment: the verdict, per spec what changed and
/// whether it is reconciled, every finding with its rule, the records the
/// branch added to the state (its claims).
pub fn markdown(
    out: &mut impl Write,
    report: &CheckReport,
    base_line: &str,
    scores: &[crate::check::score::SpecScore],
) -> std::io::Result<()> {
    let mut body = Body {
        text: String::new(),
        left_out: Vec::new(),
    };
    body.line(MARKER);
    body.line(&format!(
        "### notarai check: {}",
        if report.failed() {
            "❌ FAIL"
        } else {
            "✅ PASS"
        }
    ));
    body.line("");
    body.line(&summary_line(report, base_line));
    let specs = spec_rows(report);
    body.section(
        &[
            "",
            "#### Per spec",
            "",
            "| spec | done | reconciled | not reconciled | housekeeping |",
            "| --- | --- | ---: | --- | ---: |",
        ],
        specs,
        "specs",
    );
    body.section(
        &[
            "",
            "#### Most likely to have drifted",
            "",
            "| spec | score | parts |",
            "| --- | ---: | --- |",
        ],
        scores
            .iter()
            .take(TOP_SCORES)
            .map(|s| {
                format!(
                    "| {} | {} | {} |",
                    code(&s.spec_path),
                    s.score,
                    md(&super::score::parts(s))
                )
            })
            .collect(),
        "scores",
    );
    let decisions = decision_rows(report);
    body.section(
        &[
            "",
            "#### Decisions on this branch",
            "",
            "| spec | decision | files |",
            "| --- | --- | --- |",
        ],
        decisions,
        "decisions",
    );
    let findings = finding_rows(report);
    body.section(
        &[
            "",
            "#### Findings",
            "",
            "| | rule | where | what |",
            "| --- | --- | --- | --- |",
        ],
        findings,
        "findings",
    );
    let claims = claim_rows(report);
    body.section(
        &[
            "",
            "#### Marked reconciled on this branch",
            "",
            "Review these claims next to the diff.",
            "",
            "| file | record | specs |",
            "| --- | --- | --- |",
        ],
        claims,
        "claims",
    );
    if !body.left_out.is_empty() {
        let parts: Vec<String> = body
            .left_out
            .iter()
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
        body.text.push_str(&format!(
            "\n_Truncated to fit a comment ({COMMENT_LIMIT} characters): {} not shown; `notarai check` lists them all._\n",
            parts.join(", ")
        ));
    }
    out.write_all(body.text.as_bytes())
}

/// The specs section's rows.
fn spec_rows(report: &CheckReport) -> Vec<String> {
    report
        .specs
        .iter()
        .filter(|sp| !sp.continued)
        .map(|sp| {
            let mut files: Vec<String> = sp
                .unreconciled
                .iter()
                .take(FILES_PER_ROW)
                .map(|f| code(f))
                .collect();
            let count = sp.unreconciled_count.max(sp.unreconciled.len());
            if count > FILES_PER_ROW {
                files.push(format!("and {} more", count - FILES_PER_ROW));
            }
            format!(
                "| {} | {} | {} | {} | {} |",
                code(&sp.spec_path),
                if sp.all_reconciled { "✅" } else { "❌" },
                sp.reconciled,
                if files.is_empty() {
                    "-".to_string()
                } else {
                    files.join(", ")
                },
                sp.housekeeping.len()
            )
        })
        .collect()
}

/// The findings section's rows.
fn finding_rows(report: &CheckReport) -> Vec<String> {
    report
        .findings
        .iter()
        .map(|f| {
            let place = match (&f.file, f.line) {
                (Some(file), Some(line)) => code(&format!("{file}:{line}")),
                (Some(file), None) => code(file),
                _ => "-".to_string(),
            };
            format!(
                "| {} | {} | {place} | {} |",
                label(f.severity),
                code(&f.code.label()),
                md(&f.message)
            )
        })
        .collect()
}

/// The claims section's rows.
fn claim_rows(report: &CheckReport) -> Vec<String> {
    report
        .claims
        .iter()
        .map(|c| {
            format!(
                "| {} | {} | {} |",
                code(&c.path),
                c.change.as_str(),
                if c.specs.is_empty() {
                    "-".to_string()
                } else {
                    c.specs
                        .iter()
                        .map(|s| code(s))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )
        })
        .collect()
}

/// The verdict's counts in one sentence.
fn summary_line(report: &CheckReport, base_line: &str) -> String {
    let s = &report.summary;
    let t = &s.totals;
    format!(
        "Against {}. **{} error{}**, {} warning{}, {} notice{}{}; {} of {} changed governed files reconciled.",
        md(base_line),
        s.errors,
        if s.errors == 1 { "" } else { "s" },
        s.warnings,
        if s.warnings == 1 { "" } else { "s" },
        s.notices,
        if s.notices == 1 { "" } else { "s" },
        if s.ignored > 0 {
            format!(", {} ignored by `.notarai/check.yaml`", s.ignored)
        } else {
            String::new()
        },
        t.reconciled,
        t.governed_files
    )
}

/// The decisions section's rows.
fn decision_rows(report: &CheckReport) -> Vec<String> {
    report
        .decisions
        .iter()
        .map(|d| {
            format!(
                "| {} | {} | {} |",
                code(&d.spec_path),
                md(&d.decision.decision),
                if d.decision.paths.is_empty() {
                    "-".to_string()
                } else {
                    d.decision
                        .paths
                        .iter()
                        .map(|p| code(p))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )
        })
        .collect()
}

/// The run as SARIF 2.1.0: every rule of the table, each finding a result
/// with its rule, level and place.
pub fn sarif(report: &CheckReport) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.name,
                "shortDescription": {"text": r.finds},
                "fullDescription": {"text": format!("{} Reported by: {}. Default severity: {}.", r.finds, r.reported_by, r.default.describe())},
                "help": {"text": r.fix},
            })
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let index = RULES.iter().position(|r| r.code == f.code).unwrap_or(0);
            let mut result = json!({
                "ruleId": f.code.id(),
                "ruleIndex": index,
                "level": match f.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Notice => "note",
                },
                "message": {"text": f.message},
            });
            // Code scanning places a result on a file: the finding's, else
            // its spec's (a finding about the whole set has none).
            if let Some(file) = f.file.as_ref().or(f.spec.as_ref()) {
                let mut location =
                    json!({"artifactLocation": {"uri": uri(file), "uriBaseId": "%SRCROOT%"}});
                if let Some(line) = f.line {
                    location["region"] = json!({"startLine": line});
                }
                result["locations"] = json!([{"physicalLocation": location}]);
            }
            result
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "notarai",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

/// A repository path as a relative URI reference: every byte but the
/// unreserved ones and `/` percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
