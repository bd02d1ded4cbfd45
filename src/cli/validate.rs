//! `notarai validate`: check spec files and report each problem with its
//! file, line and column, the offending line, and a hint.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::error::Context;
use serde::Serialize;

use super::output::Format;
use crate::spec::{self, Finding, Severity, SpecSet};

/// Arguments of `notarai validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A spec file, or a folder whose `*.spec.yaml` files are all checked
    /// (default: `.notarai/` under the project root).
    pub path: Option<PathBuf>,

    /// Output format: `text` (`PASS`/`FAIL` per file, then each finding with its source line) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// The outcome for one spec file.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// Path as shown: repository-relative when inside the root.
    pub path: String,
    /// The file's text, for quoting lines (empty when unreadable).
    pub raw: String,
    /// Its findings, sorted by position.
    pub findings: Vec<Finding>,
}

impl FileReport {
    /// Whether the file passes: no error finding.
    pub fn passed(&self) -> bool {
        !self.findings.iter().any(Finding::is_error)
    }
}

/// Run `notarai validate`.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = crate::project::resolve_root(root.as_deref())?;
    let reports = collect(&root, args.path.as_deref())?;
    if reports.is_empty() {
        let place = args
            .path
            .as_deref()
            .map_or_else(|| root.join(spec::SPEC_DIR), Path::to_path_buf);
        eprintln!(
            "warning: no spec file (*.spec.yaml) found under {}",
            place.display()
        );
    }
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Text => write_text(&mut crate::quote::Terminal::new(&mut out), &reports)?,
        Format::Json => {
            super::output::json(&json_report(&reports))?;
        }
    }
    out.flush()?;
    Ok(if reports.iter().all(FileReport::passed) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Check the spec files selected by `path` (a file or folder, relative to
/// the current folder; default `.notarai/` under `root`) in the context of
/// every spec under `root`. Sorted by path. Folders are listed by the one
/// walker ([`crate::walk`]); files are read through the bounded reader
/// ([`crate::safe_fs`]), so a FIFO is refused, a link out of the project is
/// not followed and no more than a spec's limit is read.
pub fn collect(root: &Path, path: Option<&Path>) -> crate::error::Result<Vec<FileReport>> {
    let set = crate::project::load_specs(root);
    let targets: Vec<PathBuf> = match path {
        None => spec_files_below(&root.join(spec::SPEC_DIR)),
        Some(p) => {
            let meta = std::fs::symlink_metadata(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            if meta.is_dir() {
                spec_files_below(p)
            } else {
                vec![p.to_path_buf()]
            }
        }
    };
    let cwd = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .context("cannot read the current folder")?;
    let mut reports = Vec::new();
    for target in targets {
        // Where the path points by name (`..` folded, links not resolved):
        // inside the project, it is read only where it really is inside.
        let named = lexical(&cwd.join(&target));
        reports.push(match named.strip_prefix(root) {
            Ok(rel) => {
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                match crate::safe_fs::check_readable(root, Path::new(&rel), u64::MAX) {
                    Err(
                        e @ (crate::safe_fs::FsError::LinkOutside { .. }
                        | crate::safe_fs::FsError::OutsideRoot { .. }),
                    ) => FileReport {
                        findings: vec![Finding::error(&rel, 1, 1, e.to_string())],
                        path: rel,
                        raw: String::new(),
                    },
                    _ => report_in_root(root, &set, rel),
                }
            }
            Err(_) => {
                // Outside the project: check it on its own, refs relative to its folder.
                let abs = target
                    .canonicalize()
                    .with_context(|| format!("cannot resolve {}", target.display()))?;
                let dir = abs.parent().unwrap_or(Path::new("/"));
                let name = abs
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let shown = target.display().to_string();
                let findings = spec::check_file(dir, &name)
                    .into_iter()
                    .map(|f| Finding {
                        path: shown.clone(),
                        ..f
                    })
                    .collect();
                FileReport {
                    path: shown,
                    raw: read_bounded(dir, &name),
                    findings,
                }
            }
        });
    }
    reports.sort_by(|a, b| a.path.cmp(&b.path));
    reports.dedup_by(|a, b| a.path == b.path);
    Ok(reports)
}

/// `path` with `.` and `..` folded by name, without touching the disk.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The text of a spec file for quoting its lines: read through the bounded
/// reader (at most a spec's limit), empty when it cannot be read.
fn read_bounded(root: &Path, rel: &str) -> String {
    crate::safe_fs::read(root, Path::new(rel), spec::MAX_BYTES as u64)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

fn report_in_root(root: &Path, set: &SpecSet, rel: String) -> FileReport {
    let known = set.get(&rel).is_some() || set.invalid.iter().any(|f| f.path == rel);
    let findings = if known {
        set.findings_for(&rel)
    } else {
        spec::check_file(root, &rel)
    };
    let raw = match set.get(&rel) {
        Some(loaded) => loaded.raw.clone(),
        None => read_bounded(root, &rel),
    };
    FileReport {
        path: rel,
        raw,
        findings,
    }
}

/// Every `*.spec.yaml` below `dir` that the one walker lists (regular files
/// and what is not a link: a FIFO is listed so it is reported, a link is not
/// followed).
fn spec_files_below(dir: &Path) -> Vec<PathBuf> {
    use crate::walk::Kind;
    crate::walk::entries(dir, "", usize::MAX)
        .into_iter()
        .filter(|e| matches!(e.kind, Kind::File | Kind::Other) && e.rel.ends_with(".spec.yaml"))
        .map(|e| e.path)
        .collect()
}

/// Write the text report: `PASS`/`FAIL` per file, then each finding, the
/// line it points at with a `^` under the column, and its hint.
pub fn write_text(out: &mut impl Write, reports: &[FileReport]) -> std::io::Result<()> {
    for report in reports {
        let status = if report.passed() { "PASS" } else { "FAIL" };
        writeln!(out, "{status} {}", report.path)?;
        for finding in &report.findings {
            let rule = finding.code.label();
            match finding.severity {
                Severity::Error => writeln!(out, "{finding} [{rule}]")?,
                Severity::Warning => writeln!(
                    out,
                    "{}:{}:{}: warning: {} [{rule}]",
                    finding.path, finding.line, finding.column, finding.message
                )?,
            }
            if let Some(line) = report.raw.lines().nth(finding.line.saturating_sub(1)) {
                let number = finding.line.to_string();
                let pad = " ".repeat(number.len());
                let marker: String = line
                    .chars()
                    .take(finding.column.saturating_sub(1))
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                writeln!(out, "  {number} | {line}")?;
                writeln!(out, "  {pad} | {marker}^")?;
            }
            if let Some(hint) = &finding.hint {
                writeln!(out, "  hint: {hint}")?;
            }
        }
    }
    Ok(())
}

/// The JSON document of `--format json`.
#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    /// Whether every file passed.
    pub ok: bool,
    /// Each file checked, with its status.
    pub files: Vec<JsonFile<'a>>,
    /// Every finding of every file.
    pub findings: Vec<JsonFinding<'a>>,
}

/// A file in the JSON report.
#[derive(Debug, Serialize)]
pub struct JsonFile<'a> {
    /// The path as shown in text output.
    pub file: &'a str,
    /// `pass` or `fail`.
    pub status: &'static str,
}

/// A finding in the JSON report.
#[derive(Debug, Serialize)]
pub struct JsonFinding<'a> {
    /// The spec file.
    pub file: &'a str,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// `error` or `warning`.
    pub severity: Severity,
    /// The rule's code (`N001`; `notarai explain CODE`).
    pub code: crate::rules::Code,
    /// What is wrong.
    pub message: &'a str,
    /// What to write instead, or null.
    pub hint: Option<&'a str>,
}

/// Build the JSON report of `reports`.
fn json_report(reports: &[FileReport]) -> JsonReport<'_> {
    JsonReport {
        ok: reports.iter().all(FileReport::passed),
        files: reports
            .iter()
            .map(|r| JsonFile {
                file: &r.path,
                status: if r.passed() { "pass" } else { "fail" },
            })
            .collect(),
        findings: reports
            .iter()
            .flat_map(|r| &r.findings)
            .map(|f| JsonFinding {
                file: &f.path,
                line: f.line,
                column: f.column,
                severity: f.severity,
                code: f.code,
                message: &f.message,
                hint: f.hint.as_deref(),
            })
            .collect(),
    }
}
