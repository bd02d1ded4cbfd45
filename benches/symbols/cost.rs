//! The attribution step's cost: what `get_spec_diff` adds to a changed file
//! when hunks carry their symbol. For each source file (Rust, TypeScript,
//! JavaScript, Python, Go; under 400 KB) changed by the last N first-parent
//! commits of every clone, both blobs are outlined cold (no kept outline:
//! a long-lived server parses each blob once, so this is its worst case)
//! and the patch annotated, timed in this process with the release
//! build's code: the best of three runs per file, in wall time and in the
//! thread's CPU time (on a loaded shared machine the wall time mostly
//! measures waiting for a core).

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
    let mut cpu: Vec<f64> = Vec::new();
    // (thread CPU ms, KB of the larger side, repository, path)
    let mut slowest: Vec<(f64, usize, &str, String)> = Vec::new();
    let mut bytes_max = 0usize;
    for (name, _) in REPOS {
        let Ok(dir) = crate::clone_dir(repos, name) else {
            continue;
        };
        let list = git(
            &dir,
            &["rev-list", "--first-parent", "-n", &n.to_string(), "HEAD"],
        )?;
        for commit in list.lines() {
            let parent = format!("{commit}^1");
            let Ok(names) = git(
                &dir,
                &[
                    "diff",
                    "--name-only",
                    "--no-renames",
                    "--diff-filter=M",
                    &parent,
                    commit,
                ],
            ) else {
                continue;
            };
            for path in names
                .lines()
                .filter(|p| SOURCE.iter().any(|e| p.ends_with(e)))
            {
                let old = git(&dir, &["show", &format!("{parent}:{path}")])?;
                let new = git(&dir, &["show", &format!("{commit}:{path}")])?;
                if old.len() > LIMIT || new.len() > LIMIT {
                    continue;
                }
                bytes_max = bytes_max.max(old.len().max(new.len()));
                let patch = git(&dir, &["diff", "--no-color", &parent, commit, "--", path])?;
                let (mut best_wall, mut best_cpu) = (f64::MAX, f64::MAX);
                for _ in 0..3 {
                    let (start, start_cpu) = (Instant::now(), thread_cpu_ms());
                    let o = symbols::outline(path, old.as_bytes());
                    let w = symbols::outline(path, new.as_bytes());
                    let annotated = symbols::annotate_patch(&o, &w, &patch);
                    std::hint::black_box(annotated);
                    best_cpu = best_cpu.min(thread_cpu_ms() - start_cpu);
                    best_wall = best_wall.min(start.elapsed().as_secs_f64() * 1000.0);
                }
                times.push(best_wall);
                cpu.push(best_cpu);
                slowest.push((
                    best_cpu,
                    old.len().max(new.len()) / 1024,
                    name,
                    path.to_string(),
                ));
            }
        }
    }
    times.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let mut out = format!(
        "### Cost: attribution step per changed file (both blobs outlined cold, patch annotated)\n\n\
         {} files of the last {n} commits of each clone, largest {} KB\n\n\
         | time | p50 ms | p95 ms | max ms | target |\n| --- | ---: | ---: | ---: | --- |\n",
        times.len(),
        bytes_max / 1024
    );
    for (label, values) in [("wall", &times), ("thread CPU", &cpu)] {
        let _ = writeln!(
            out,
            "| {label} | {:.2} | {:.2} | {:.2} | p95 < 50 ms |",
            percentile(values, 50.0),
            percentile(values, 95.0),
            values.last().copied().unwrap_or(0.0)
        );
    }
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    out.push_str("\nSlowest files (thread CPU):\n");
    for (ms, kb, repo, path) in slowest.iter().take(8) {
        let _ = writeln!(out, "- {repo} {path} ({kb} KB): {ms:.1} ms");
    }
    Ok(out)
}

/// This thread's CPU time in milliseconds.
fn thread_cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1000.0 + ts.tv_nsec as f64 / 1e6
}
