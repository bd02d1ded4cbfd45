//! The attribution step's cost: what `get_spec_diff` adds to a changed file
//! when hunks carry their symbol. For each source file (Rust, TypeScript,
//! JavaScript, Python, Go; under 400 KB) changed by the last N first-parent
//! commits of every clone, both blobs are outlined cold (no kept outline:
//! a long-lived server parses each blob once, so this is its worst case)
//! and the patch annotated, timed in this process with the release
//! build's code.

use std::fmt::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use notarai::symbols;

use crate::{REPOS, git, percentile};

/// Files larger than this are left out (the target's bound).
const LIMIT: usize = 400 * 1024;

/// Extensions the outline knows.
const SOURCE: &[&str] = &[
    ".rs", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".py", ".go",
];

/// Time the attribution step over every clone and render the table.
pub fn run(repos: &Path, n: usize) -> Result<String> {
    let mut times: Vec<f64> = Vec::new();
    let mut bytes_max = 0usize;
    for (name, _) in REPOS {
        let Ok(dir) = crate::clone_dir(repos, name) else {
            continue;
        };
        let list = git(&dir, &["rev-list", "--first-parent", "-n", &n.to_string(), "HEAD"])?;
        for commit in list.lines() {
            let parent = format!("{commit}^1");
            let Ok(names) = git(
                &dir,
                &["diff", "--name-only", "--no-renames", "--diff-filter=M", &parent, commit],
            ) else {
                continue;
            };
            for path in names.lines().filter(|p| SOURCE.iter().any(|e| p.ends_with(e))) {
                let old = git(&dir, &["show", &format!("{parent}:{path}")])?;
                let new = git(&dir, &["show", &format!("{commit}:{path}")])?;
                if old.len() > LIMIT || new.len() > LIMIT {
                    continue;
                }
                bytes_max = bytes_max.max(old.len().max(new.len()));
                let patch = git(&dir, &["diff", "--no-color", &parent, commit, "--", path])?;
                let start = Instant::now();
                let o = symbols::outline(path, old.as_bytes());
                let w = symbols::outline(path, new.as_bytes());
                let annotated = symbols::annotate_patch(&o, &w, &patch);
                std::hint::black_box(annotated);
                times.push(start.elapsed().as_secs_f64() * 1000.0);
            }
        }
    }
    times.sort_by(f64::total_cmp);
    let mut out = format!(
        "### Cost: attribution step per changed file (both blobs outlined cold, patch annotated)\n\n\
         {} files of the last {n} commits of each clone, largest {} KB\n\n\
         | p50 ms | p95 ms | max ms | target |\n| ---: | ---: | ---: | --- |\n",
        times.len(),
        bytes_max / 1024
    );
    let _ = writeln!(
        out,
        "| {:.2} | {:.2} | {:.2} | p95 < 50 ms |",
        percentile(&times, 50.0),
        percentile(&times, 95.0),
        times.last().copied().unwrap_or(0.0)
    );
    Ok(out)
}
