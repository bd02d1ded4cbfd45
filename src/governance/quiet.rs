//! What needs no review, as a spec's rules say: its evidence (tests),
//! its housekeeping tiers, and the files its constraints or invariants name
//! (never quiet). The rules `review::quiet` and the tiers quiet a change by.

use super::*;

impl Governance {
    /// Whether `path` is evidence for spec `spec`: a test the spec lists,
    /// through a `tests` (or `test`) category or a behavior's `tested_by`.
    /// A test verifies a behavior; it is not the behavior. Meaningful only
    /// for a path the spec governs.
    pub fn is_evidence(&self, spec: usize, path: &str) -> bool {
        let rules = &self.rules[spec];
        if rules.path == path || rules.unproven {
            return false;
        }
        // A file the spec also governs in any category but tests is no
        // mere evidence: a Rust file whose unit tests a behavior's
        // `tested_by` names, a config or doc the governed code reads.
        if self
            .categories(spec, path)
            .iter()
            .any(|c| !super::is_tests_category(c))
        {
            return false;
        }
        if rules.tested_by.iter().any(|t| t == path) {
            return true;
        }
        if !rules.glob_evidence.contains(&true) || !rules.scope.contains(path) {
            return false;
        }
        let matched = rules.set().matches(path);
        !matched.is_empty() && matched.iter().all(|&g| rules.glob_evidence[g])
    }

    /// Whether spec `spec` governs `path` as housekeeping:
    /// [`Governance::housekeeping`] says why.
    pub fn is_housekeeping(&self, spec: usize, path: &str) -> bool {
        self.housekeeping(spec, path).is_some()
    }

    /// Why spec `spec` governs `path` as housekeeping (listed, but no
    /// review flag), `None` when it does not: the spec's `tier` is
    /// `registered` or `derived` and it states no constraints or
    /// invariants ([`Housekeeping::SpecTier`]), or every artifact of the
    /// spec matching `path` has `tier: 3` (no review needed: a changelog)
    /// or `tier: 4` (derived output: a lock file)
    /// ([`Housekeeping::ArtifactTier`]); in both cases only when the
    /// spec's constraints and invariants do not name the file
    /// ([`Governance::is_named`]). A spec's own file is never housekeeping:
    /// a changed spec is new intent. Meaningful only for a governed path.
    pub fn housekeeping(&self, spec: usize, path: &str) -> Option<Housekeeping> {
        let rules = &self.rules[spec];
        if rules.path == path {
            return None;
        }
        let tier = if rules.housekeeping {
            Housekeeping::SpecTier
        } else {
            if !rules.glob_housekeeping.contains(&true) || !rules.scope.contains(path) {
                return None;
            }
            let matched = rules.set().matches(path);
            if matched.is_empty() || !matched.iter().all(|&g| rules.glob_housekeeping[g]) {
                return None;
            }
            Housekeeping::ArtifactTier
        };
        (!self.is_named(spec, path)).then_some(tier)
    }

    /// Whether spec `spec`'s constraints or invariants name `path`, so no
    /// quiet verdict may hide its changes. A text names a file when it
    /// holds, in any case: the file's path; its file name as a word (not
    /// inside a longer name: `Cargo.toml` names `Cargo.toml` and
    /// `crates/x/Cargo.toml`, not `Cargo.toml.orig`); a folder holding it
    /// written with its trailing slash and not a path through it (`dist/`,
    /// `dist/**`, not `dist/app.js`); or one of the spec's
    /// artifact globs (as written, `dist/**`) that matches it.
    /// Conservative: a file named by chance is reviewed, never hidden. Every
    /// file is named when the spec's text at the merge base did not load.
    pub fn is_named(&self, spec: usize, path: &str) -> bool {
        let rules = &self.rules[spec];
        if rules.unproven {
            return true;
        }
        if rules.rules_text.is_empty() {
            return false;
        }
        let lower = path.to_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        let folders: Vec<&str> = lower
            .match_indices('/')
            .map(|(at, _)| &lower[..=at])
            .collect();
        let globs: Vec<&str> = if rules.glob_written.is_empty() || !rules.scope.contains(path) {
            Vec::new()
        } else {
            rules
                .set()
                .matches(path)
                .into_iter()
                .map(|g| rules.glob_written[g].as_str())
                .filter(|g| !g.is_empty())
                .collect()
        };
        rules.rules_text.iter().any(|text| {
            text.contains(lower.as_str())
                || names_word(text, name)
                || folders.iter().any(|f| names_word(text, f))
                || globs.iter().any(|g| text.contains(g))
        })
    }
}

/// The cross-cutting specs applied to each spec, found once per
/// governance build ([`crate::spec::Lineage`]).
pub(super) struct Lineage<'s> {
    specs: &'s SpecSet,
    lineage: crate::spec::Lineage,
}

impl<'s> Lineage<'s> {
    /// The lineage of every spec of `specs`.
    pub(super) fn of(specs: &'s SpecSet) -> Lineage<'s> {
        Lineage {
            specs,
            lineage: crate::spec::Lineage::of(specs),
        }
    }

    /// The constraints and invariants of the cross-cutting specs `loaded`
    /// pulls in with `applies`, and those its ancestors pull in
    /// (transitively): `applies` covers a spec and all its subsystems, and
    /// they apply to its files as its own rules do.
    pub(super) fn applied_rules(&self, loaded: &crate::spec::LoadedSpec) -> Vec<String> {
        crate::spec::applied_specs(self.specs, &self.lineage, &loaded.path)
            .into_iter()
            .flat_map(|applied| {
                applied
                    .spec
                    .constraints
                    .iter()
                    .chain(&applied.spec.invariants)
                    .cloned()
            })
            .collect()
    }
}

/// Why a spec governs a file as housekeeping ([`Governance::housekeeping`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Housekeeping {
    /// The spec's `tier` is `registered` or `derived` and it states no
    /// constraints or invariants.
    SpecTier,
    /// Every artifact of the spec matching the file has `tier: 3` or `4`.
    ArtifactTier,
}

/// Whether `text` holds `word` (a file name, or a folder with its
/// trailing slash) not inside a longer name or path: no name character,
/// `.` or `/` right before it, and no name character right after it (after
/// a file name, a `.` ends a sentence unless a name character follows it;
/// after a folder, a `.` starts a name). A path through a folder
/// (`tests/test_roles.py`) names its file, not the folder.
pub(super) fn names_word(text: &str, word: &str) -> bool {
    let name_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-');
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let mut after = text[at + word.len()..].chars();
        let next = after.next();
        let ok_before = !before.is_some_and(|c| name_char(c) || matches!(c, '.' | '/'));
        let ok_after = match next {
            None => true,
            Some('.') if !word.ends_with('/') => !after.next().is_some_and(name_char),
            Some(c) => !name_char(c) && c != '.',
        };
        ok_before && ok_after
    })
}
