//! Changed files no spec governs: how the system spec's `coverage.policy`
//! counts them, and notarai's own files, which never need a spec.

use std::path::Path;

use crate::changes::ChangeSet;
use crate::spec::{self, SpecSet};

use super::Severity;

/// How the system spec's `coverage.policy` counts a changed file no spec
/// governs: `off` not at all (`None`), `strict` an error, `warn` (the
/// default) a warning; and its `coverage.message`, to append.
pub(super) fn coverage_policy(set: &SpecSet) -> (Option<Severity>, String) {
    let coverage = set.system_spec().and_then(|s| s.spec.coverage.as_ref());
    let severity = match coverage.and_then(|c| c.policy) {
        Some(spec::CoveragePolicy::Off) => None,
        Some(spec::CoveragePolicy::Strict) => Some(Severity::Error),
        Some(spec::CoveragePolicy::Warn) | None => Some(Severity::Warning),
    };
    let message = coverage
        .and_then(|c| c.message.as_deref())
        .map(|m| format!(" ({m})"))
        .unwrap_or_default();
    (severity, message)
}

/// Whether `path` is one of notarai's own files, which no spec needs to
/// govern: its schema, an agent's MCP or hook config that `init` edits, or
/// a file of at most 256 KiB that carries notarai's generated marker (the
/// skills, rules and prompts `init` writes, a `CLAUDE.md` section).
pub(super) fn is_notarais_own(root: &Path, path: &str, configs: &[&str]) -> bool {
    if [crate::layout::SCHEMA_FILE, crate::init::SPEC_README].contains(&path)
        || configs.contains(&path)
    {
        return true;
    }
    // The marker sits at the top or the end of a generated text (a skill's
    // front matter comes first); a bounded, non-blocking read.
    let Ok(head) = crate::safe_fs::read_prefix(root, Path::new(path), 256 * 1024) else {
        return false;
    };
    String::from_utf8_lossy(&head).contains(crate::init::generated::MARK)
}

/// Whether the change of `path` (`.gitignore`, `.gitattributes`) only adds
/// or removes the lines `notarai init` writes there: the cache folder's
/// ignore line and the state file's merge driver line.
pub(super) fn only_notarais_lines(changes: &ChangeSet<'_>, path: &str) -> bool {
    if ![".gitignore", crate::init::GITATTRIBUTES].contains(&path) {
        return false;
    }
    let ours = [
        crate::init::gitignore::CACHE_LINE,
        crate::state::GITATTRIBUTES_LINE,
    ];
    let Some(file) = changes.files.iter().find(|f| f.path == path) else {
        return false;
    };
    let Ok(crate::changes::Patch::Text(text)) = changes.patch(file) else {
        return false;
    };
    text.lines()
        .filter(|l| !l.starts_with("+++") && !l.starts_with("---"))
        .filter_map(|l| l.strip_prefix('+').or_else(|| l.strip_prefix('-')))
        .all(|l| l.trim().is_empty() || ours.contains(&l.trim()))
}
