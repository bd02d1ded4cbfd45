//! `get_spec_diff`'s `exclude_patterns`, with the meaning git gives a
//! `:(exclude)` pathspec.

use globset::GlobSetBuilder;

use super::{Result, ReviewError};
use crate::governance;

/// `exclude_patterns` with git's `:(exclude)` pathspec meaning.
///
/// As git matches a pathspec item: a pattern that equals the path, or names a
/// folder above it, matches literally (so `src/x[1].rs` and `app/{id}` need no
/// escaping); otherwise it is a wildcard match over the whole path where `*`
/// and `?` also match `/`, `[...]` is a class, and braces are plain text.
pub(super) struct ExcludeMatcher {
    literals: Vec<String>,
    globs: globset::GlobSet,
}

/// The most patterns `exclude_patterns` takes.
const MAX_PATTERNS: usize = 100;

/// The longest pattern `exclude_patterns` takes, in bytes.
const MAX_PATTERN_LEN: usize = 512;

impl ExcludeMatcher {
    /// The matcher of `patterns`; an empty or malformed one is the
    /// caller's error, named.
    pub(super) fn new(patterns: &[String]) -> Result<ExcludeMatcher> {
        // The answer echoes the patterns on every page (the contract's
        // `excluded`): bounded, so a page stays within its budget.
        if patterns.len() > MAX_PATTERNS || patterns.iter().any(|p| p.len() > MAX_PATTERN_LEN) {
            return Err(ReviewError::invalid(format!(
                "exclude_patterns: at most {MAX_PATTERNS} patterns of at most {MAX_PATTERN_LEN} bytes each"
            ))
            .hinted("exclude a folder with one pattern (`vendor`) or a family with a wildcard (`*.lock`)"));
        }
        let mut literals = Vec::new();
        let mut set = GlobSetBuilder::new();
        for given in patterns {
            let mut pattern = given
                .strip_prefix(":(exclude)")
                .or_else(|| given.strip_prefix(":!"))
                .unwrap_or(given);
            while let Some(rest) = pattern.strip_prefix("./") {
                pattern = rest;
            }
            if pattern.is_empty() {
                return Err(ReviewError::invalid(format!(
                    "exclude_patterns: `{}` is empty and would exclude everything",
                    given.escape_debug()
                )));
            }
            literals.push(pattern.to_string());
            if pattern.contains(['*', '?', '[']) {
                let escaped = pattern.replace('{', "\\{").replace('}', "\\}");
                let glob = globset::GlobBuilder::new(&escaped)
                    .literal_separator(false)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| {
                        ReviewError::invalid(format!(
                            "exclude_patterns: `{}`: {}",
                            given.escape_debug(),
                            e.kind()
                        ))
                    })?;
                set.add(glob);
            }
        }
        let globs = set
            .build()
            .map_err(|e| ReviewError::invalid(format!("exclude_patterns: {e}")))?;
        Ok(ExcludeMatcher { literals, globs })
    }

    /// Whether `path` is excluded.
    pub(super) fn is_match(&self, path: &str) -> bool {
        self.literals
            .iter()
            .any(|lit| governance::is_under(path, lit))
            || self.globs.is_match(path)
    }
}
