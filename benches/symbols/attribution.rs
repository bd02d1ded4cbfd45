//! The attribution labelled set: each hunk of `labels.tsv` through
//! `notarai symbols PATH --rev REV --lines A-B --format json`, compared with
//! the label a reader gave it.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// The labels, beside this file.
const LABELS: &str = include_str!("labels.tsv");

/// One labelled hunk.
#[derive(Debug)]
pub struct Label {
    /// `rust`, `typescript`, `python` or `go`.
    pub lang: String,
    /// `owner/name` on GitHub.
    pub repo: String,
    /// The commit the hunk comes from.
    pub commit: String,
    /// The file, relative to the repository root.
    pub path: String,
    /// `new` (lines of the commit) or `old` (a pure deletion: lines of its parent).
    pub side: String,
    /// First and last line on that side.
    pub lines: (u32, u32),
    /// The reader's answer: a name, `<top-level>` or `<multiple> A,B`.
    pub expected: String,
}

impl Label {
    /// The revision the lines are read at.
    pub fn rev(&self) -> String {
        if self.side == "old" {
            format!("{}^", self.commit)
        } else {
            self.commit.clone()
        }
    }
}

/// Every label of `labels.tsv` (comment lines start with `#`).
pub fn labels() -> Result<Vec<Label>> {
    let mut out = Vec::new();
    for (n, line) in LABELS.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 9 {
            bail!("labels.tsv:{}: 9 tab-separated fields expected", n + 1);
        }
        let (a, b) = f[7]
            .split_once('-')
            .with_context(|| format!("labels.tsv:{}: lines A-B", n + 1))?;
        out.push(Label {
            lang: f[0].into(),
            repo: f[1].into(),
            commit: f[2].into(),
            path: f[3].into(),
            side: f[6].into(),
            lines: (a.parse()?, b.parse()?),
            expected: f[8].into(),
        });
    }
    Ok(out)
}

/// notarai's answer in the labels' notation.
pub fn notation(attribution: &Value) -> String {
    let names = |key: &str| {
        let mut v: Vec<String> = attribution[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|n| n.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v.join(",")
    };
    match attribution["kind"].as_str() {
        Some("symbol") => attribution["name"].as_str().unwrap_or("?").to_string(),
        Some("top_level") => "<top-level>".into(),
        Some("multiple") => format!("<multiple> {}", names("touched")),
        Some("whole_file") => format!("<whole-file> {}", attribution["reason"]),
        _ => format!("? {attribution}"),
    }
}

/// Run every label and render the agreement table and the disagreements.
pub fn run(bin: &Path, repos: &Path) -> Result<String> {
    let labels = labels()?;
    // language -> (hunks, agreed)
    let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut wrong = Vec::new();
    for label in &labels {
        let name = label.repo.rsplit('/').next().unwrap_or(&label.repo);
        let dir = crate::clone_dir(repos, name)?;
        let out = Command::new(bin)
            .current_dir(&dir)
            .args(["symbols", &label.path, "--rev", &label.rev(), "--lines"])
            .arg(format!("{}-{}", label.lines.0, label.lines.1))
            .args(["--format", "json"])
            .output()
            .context("running notarai symbols")?;
        let got = if out.status.success() {
            let answer: Value = serde_json::from_slice(&out.stdout)
                .context("notarai symbols --format json: not JSON")?;
            notation(&answer["attribution"])
        } else {
            format!("error: {}", String::from_utf8_lossy(&out.stderr).trim())
        };
        let entry = tally.entry(label.lang.as_str()).or_default();
        entry.0 += 1;
        if got == label.expected {
            entry.1 += 1;
        } else {
            wrong.push(format!(
                "{} {} {} {} {}-{}: expected `{}`, notarai `{}`",
                label.lang,
                name,
                &label.commit[..10],
                label.path,
                label.lines.0,
                label.lines.1,
                label.expected,
                got
            ));
        }
    }
    let mut out = String::from(
        "### Attribution: labelled hunks (`notarai symbols --lines`)\n\n\
         | language | hunks | agree | agreement |\n| --- | ---: | ---: | ---: |\n",
    );
    let (mut all, mut agreed) = (0, 0);
    for (lang, (n, ok)) in &tally {
        all += n;
        agreed += ok;
        let _ = writeln!(out, "| {lang} | {n} | {ok} | {:.1}% |", pct(*ok, *n));
    }
    let _ = writeln!(
        out,
        "| **all** | {all} | {agreed} | **{:.1}%** (target >= 95%) |",
        pct(agreed, all)
    );
    if !wrong.is_empty() {
        out.push_str("\nDisagreements:\n");
        for w in wrong {
            let _ = writeln!(out, "- {w}");
        }
    }
    Ok(out)
}

/// `part` of `whole` in percent.
fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}
