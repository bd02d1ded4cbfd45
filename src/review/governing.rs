//! Which specs govern a file before it is edited: `get_governing_specs`,
//! `notarai which`, the `notarai://governing/{path}` resource and the
//! pre-edit hook all read this one answer.
//!
//! Per path (and optionally a line range): the specs whose artifacts match
//! it, through which categories, and, for a spec that anchors symbols
//! (`file#Symbol`), only when no range is given or the range touches one of
//! its symbols; each spec's intent, behaviors, constraints and invariants
//! once; and whether the file has changes since the base that are not
//! reconciled, judged by the one reconciliation answer ([`Reconciled`]) over
//! the changed files git reports (the long-lived server's kept status).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{LineRange, Result, ReviewError, choose_base, pages};
use crate::governance::{Governance, Scope};
use crate::hashing::MAX_HASHED;
use crate::page::MaxTokens;
use crate::project::{Project, Specs};
use crate::repo_path::{Guard, RepoPath};
use crate::spec::Behavior;
use crate::state::{JudgeError, Reconciled};

/// Most paths one question may name.
pub const MAX_PATHS: usize = 200;

/// Parameters of `get_governing_specs`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GoverningParams {
    /// Files about to be read or edited, relative to the repository root
    /// (a file that does not exist yet is answered by the same globs), at
    /// most 200.
    pub paths: Vec<String>,
    /// Only the code at these lines: `A` or `A-B` (1-based, inclusive), for
    /// every path. A spec anchored to symbols (`file#Symbol`) then applies
    /// only when the lines touch one of its symbols; omitted: the whole file.
    #[serde(default)]
    pub lines: Option<String>,
    /// Budget of one page in tokens (3 bytes each); see `next_cursor`.
    #[serde(default)]
    pub max_tokens: Option<MaxTokens>,
    /// The `next_cursor` of the previous page, to get the next one; omit for the first page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// Result of `get_governing_specs`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GoverningSpecs {
    /// One entry per path asked, in the order asked.
    pub files: Vec<GovernedFile>,
    /// Each spec governing at least one of the paths, once, sorted by path,
    /// with the texts that apply to an edit.
    pub specs: Vec<GoverningSpec>,
    /// Why `unreconciled` could not be judged (no git repository, no base
    /// branch), when it could not: then it is `false` for every file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_note: Option<String>,
    /// This page's number, from 1.
    pub page: usize,
    /// Number of pages of the whole answer.
    pub pages: usize,
    /// Pass it as `cursor` (with the same arguments) for the next page;
    /// absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One path of a `get_governing_specs` answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GovernedFile {
    /// The path, repository-relative.
    pub path: String,
    /// The symbols at the lines asked (innermost; empty without `lines`,
    /// for a file with no outline, or lines between symbols).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<String>,
    /// The specs governing it (at those lines), sorted by path.
    pub governed_by: Vec<Governor>,
    /// Governed by no spec and matched by the system spec's `exclude`:
    /// intentionally unspecced.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub excluded: bool,
    /// Changed since the base and not reconciled for every spec governing
    /// it: review the change before (or with) this edit.
    pub unreconciled: bool,
    /// The specs for which its current change is not reconciled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreconciled_for: Vec<String>,
}

/// How one spec governs one path.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Governor {
    /// Path of the spec file.
    pub spec_path: String,
    /// The artifact categories matching the path (`code`, `docs`, ...;
    /// `spec` for a spec file itself).
    pub categories: Vec<String>,
    /// The anchors (`Symbol` patterns) through which it governs the file;
    /// absent when it governs the whole file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchors: Option<Vec<String>>,
}

/// A governing spec's texts.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GoverningSpec {
    /// Path of the spec file.
    pub spec_path: String,
    /// The spec's intent.
    pub intent: String,
    /// The spec's behaviors as written.
    pub behaviors: Vec<Behavior>,
    /// The spec's constraints.
    pub constraints: Vec<String>,
    /// The spec's invariants.
    pub invariants: Vec<String>,
    /// The cross-cutting specs it applies (its own `applies` and its
    /// parents'), whose constraints and invariants hold for its files too:
    /// each is in `specs` as well, once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applies: Vec<String>,
}

/// The MCP tool `get_governing_specs`: the page `params.cursor` names.
pub fn get_governing_specs(
    project: &mut Project,
    params: &GoverningParams,
) -> Result<GoverningSpecs> {
    let lines = params
        .lines
        .as_deref()
        .map(LineRange::parse)
        .transpose()
        .map_err(|e| ReviewError::invalid(format!("lines: {e}")))?;
    let full = governing_specs(project, &params.paths, lines, true)?;
    let args = (&params.paths, &params.lines, params.max_tokens);
    pages::governing(full, &args, params.max_tokens, params.cursor.as_deref())
        .map_err(|e| ReviewError::invalid(e.to_string()))
}

/// The whole answer for `inputs` (validated as [`RepoPath`]s: one outside
/// the repository fails the call, naming it), on one page. With
/// `with_status`, each file's reconciliation is judged (git's changes since
/// the base); without, `unreconciled` is `false` (the pre-edit hook, which
/// must answer in milliseconds from a cold process).
pub fn governing_specs(
    project: &mut Project,
    inputs: &[String],
    lines: Option<LineRange>,
    with_status: bool,
) -> Result<GoverningSpecs> {
    if inputs.is_empty() {
        return Err(ReviewError::invalid("paths: empty")
            .hinted("name at least one file, e.g. `src/main.rs`"));
    }
    if inputs.len() > MAX_PATHS {
        return Err(ReviewError::invalid(format!(
            "paths: {} paths, more than the {MAX_PATHS} one call answers",
            inputs.len()
        ))
        .hinted("ask in batches"));
    }
    let root = project.root().to_path_buf();
    let mut guard = Guard::new(&root);
    let mut paths: Vec<RepoPath> = Vec::with_capacity(inputs.len());
    for input in inputs {
        let path = guard.resolve_unfollowed(input).map_err(|e| {
            ReviewError::invalid(format!("paths: `{}`: {e}", input.escape_debug()))
                .hinted("pass paths inside the repository, relative to its root")
        })?;
        paths.push(path);
    }
    let specs = project.specs();
    let governance = specs.governance();
    let mut files: Vec<GovernedFile> = {
        // Outlines are the repository's to keep; outside git, this call's.
        let own = crate::symbols::SymbolCache::new();
        let kept = project.git().map_or(&own, |git| git.symbols());
        paths
            .iter()
            .map(|p| governed_file(&root, kept, governance, p.as_str(), lines))
            .collect()
    };
    let status_note = match with_status {
        true => judge(project, &specs, &mut files).err(),
        false => None,
    };
    let lineage = crate::spec::Lineage::of(&specs.set);
    let governing: BTreeSet<&str> = files
        .iter()
        .flat_map(|f| f.governed_by.iter().map(|g| g.spec_path.as_str()))
        .collect();
    let applies: BTreeMap<&str, Vec<String>> =
        governing.iter().map(|&p| (p, lineage.applied(p))).collect();
    let mut used: BTreeSet<&str> = governing.clone();
    used.extend(applies.values().flatten().map(String::as_str));
    let texts = specs
        .set
        .specs
        .iter()
        .filter(|s| used.contains(s.path.as_str()))
        .map(|s| GoverningSpec {
            spec_path: s.path.clone(),
            intent: s.spec.intent.clone(),
            behaviors: s.spec.behaviors.clone(),
            constraints: s.spec.constraints.clone(),
            invariants: s.spec.invariants.clone(),
            applies: applies.get(s.path.as_str()).cloned().unwrap_or_default(),
        });
    let mut texts: Vec<GoverningSpec> = texts.collect();
    texts.sort_by(|a, b| a.spec_path.cmp(&b.spec_path));
    Ok(GoverningSpecs {
        files,
        specs: texts,
        status_note,
        page: 1,
        pages: 1,
        next_cursor: None,
    })
}

/// The governors of one path (at `lines`, when given).
fn governed_file(
    root: &Path,
    kept: &crate::symbols::SymbolCache,
    governance: &Governance,
    path: &str,
    lines: Option<LineRange>,
) -> GovernedFile {
    let outline = || {
        let bytes = crate::safe_fs::read(root, Path::new(path), MAX_HASHED).ok()?;
        Some(kept.outline(path, &bytes))
    };
    let mut outline_at: Option<Option<std::sync::Arc<crate::symbols::Outline>>> = None;
    let mut governed_by = Vec::new();
    for spec in governance.governors(path) {
        let anchors = governance.anchors(spec, path);
        if let (Some(anchors), Some(range)) = (&anchors, lines) {
            // A file that cannot be read or outlined, or whose anchored
            // symbol lies where it does not parse, is one whole-file unit:
            // the anchored spec applies to any of its lines.
            let touched = match outline_at.get_or_insert_with(outline).as_ref() {
                Some(o) if crate::symbols::whole_file_because(anchors, o).is_none() => {
                    crate::symbols::governed_by(anchors, o)
                        .iter()
                        .zip(&o.symbols)
                        .any(|(&governed, s)| {
                            governed && s.start_line <= range.last && range.first <= s.end_line
                        })
                }
                _ => true,
            };
            if !touched {
                continue;
            }
        }
        governed_by.push(Governor {
            spec_path: governance.spec_path(spec).to_string(),
            categories: governance
                .categories(spec, path)
                .into_iter()
                .map(str::to_string)
                .collect(),
            anchors: anchors.map(|a| a.iter().map(|a| a.as_str().to_string()).collect()),
        });
    }
    governed_by.sort_by(|a, b| a.spec_path.cmp(&b.spec_path));
    let symbols = match lines {
        Some(range) => outline_at
            .get_or_insert_with(outline)
            .as_ref()
            .map(|o| symbols_at(o, range))
            .unwrap_or_default(),
        None => Vec::new(),
    };
    GovernedFile {
        path: path.to_string(),
        symbols,
        excluded: governed_by.is_empty() && governance.is_excluded(path),
        governed_by,
        unreconciled: false,
        unreconciled_for: Vec::new(),
    }
}

/// The innermost symbols of `outline` the range touches: each touched
/// symbol none of whose children is touched.
fn symbols_at(outline: &crate::symbols::Outline, range: LineRange) -> Vec<String> {
    let touched: Vec<bool> = outline
        .symbols
        .iter()
        .map(|s| s.start_line <= range.last && range.first <= s.end_line)
        .collect();
    let mut has_touched_child = vec![false; touched.len()];
    for (i, s) in outline.symbols.iter().enumerate() {
        if let Some(parent) = s.parent
            && touched[i]
        {
            has_touched_child[parent] = true;
        }
    }
    (0..touched.len())
        .filter(|&i| touched[i] && !has_touched_child[i])
        .map(|i| outline.symbols[i].name.clone())
        .collect()
}

/// Mark the files changed since the base and not reconciled for every spec
/// governing them; `Err` says why nothing could be judged.
fn judge(
    project: &mut Project,
    specs: &Specs,
    files: &mut [GovernedFile],
) -> std::result::Result<(), String> {
    let root = project.root().to_path_buf();
    let git = project
        .git()
        .map_err(|e| format!("unreconciled changes not judged: {e}"))?;
    let (base, _) = choose_base(&root, git, None)
        .map_err(|e| format!("unreconciled changes not judged: {}", e.message))?;
    let changes = git
        .changes(&base, &Scope::Everything, false)
        .map_err(|e| format!("unreconciled changes not judged: {e}"))?;
    let changed: BTreeSet<String> = changes.paths().into_iter().collect();
    let asked: Vec<usize> = (0..files.len())
        .filter(|&i| changed.contains(&files[i].path))
        .collect();
    if asked.is_empty() {
        return Ok(());
    }
    let paths: Vec<&str> = asked.iter().map(|&i| files[i].path.as_str()).collect();
    let governors: Vec<Vec<String>> = paths
        .iter()
        .map(|p| {
            specs
                .governance()
                .governors(p)
                .into_iter()
                .map(|g| specs.governance().spec_path(g).to_string())
                .collect()
        })
        .collect();
    let known = Reconciled::trusted(&root, git, Some(&base), paths.iter().copied());
    let judged = known
        .judge_specs(
            &root,
            Some(git),
            &paths,
            &governors,
            &crate::progress::Progress::none(),
        )
        .map_err(|e| match e {
            JudgeError::Io(m) => m,
            JudgeError::Cancelled(c) => c.to_string(),
        })?;
    for ((i, verdicts), specs) in asked.into_iter().zip(judged).zip(governors) {
        let file = &mut files[i];
        if specs.is_empty() {
            continue;
        }
        file.unreconciled_for = specs
            .into_iter()
            .zip(verdicts)
            .filter(|(_, ok)| !ok)
            .map(|(s, _)| s)
            .collect();
        file.unreconciled = !file.unreconciled_for.is_empty();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn innermost_symbols_are_named() {
        let source = b"struct A;\nimpl A {\n    fn one() {}\n    fn two() {}\n}\n";
        let outline = crate::symbols::outline("a.rs", source);
        let at = |first, last| symbols_at(&outline, LineRange { first, last });
        assert_eq!(at(3, 3), vec!["A::one".to_string()]);
        assert_eq!(at(3, 4), vec!["A::one".to_string(), "A::two".to_string()]);
        assert_eq!(at(1, 1), vec!["A".to_string()]);
    }
}
