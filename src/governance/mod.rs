//! Glob governance: which spec governs which file, and through which category.
//!
//! Each spec's artifact globs are compiled once into one [`GlobSet`] (on first
//! use), and each spec knows the literal prefixes its globs can match below.
//! "Which specs govern this file?" tests the prefixes of every spec (string
//! comparisons) and runs the glob sets of the few specs that can match;
//! "does spec S govern this file?" never looks at the other specs. Globs match file paths relative to the root: `*` and `?` stay within
//! one path segment, `**` crosses segments, `{a,b}` alternates, and a pattern
//! with no wildcard (`src/auth`, `docs/auth.md`) matches that path and
//! everything below it, like a git pathspec. Nothing here touches the file
//! system: a deleted file is governed by the same rule as an existing one.
//!
//! The system spec's `exclude` never takes a file away from a spec whose
//! artifacts match it: it only marks the files that no spec governs as
//! intentionally unspecced ([`Governance::is_excluded`]). notarai's own cache
//! folder is the one place no spec governs.

use std::collections::HashMap;
use std::sync::OnceLock;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

pub use crate::glob::{compile, is_under, literal_prefix};
use crate::layout::CACHE_DIR;
use crate::spec::SpecSet;
use crate::symbols::{Anchor, split_anchor};

mod base;
mod quiet;

pub use base::AtBase;
pub use quiet::Housekeeping;
use quiet::Lineage;

/// The category reported for a spec file governing itself.
pub const SELF_CATEGORY: &str = "spec";

/// The part of the repository a question has to look at: git and the file
/// walk are restricted to these literal prefixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Some glob has no literal prefix (`**/*.rs`): the whole repository.
    Everything,
    /// Folders or files (no trailing slash) below which every match lies,
    /// sorted, none inside another.
    Prefixes(Vec<String>),
}

impl Scope {
    /// Whether `path` lies within the scope.
    pub fn contains(&self, path: &str) -> bool {
        match self {
            Scope::Everything => true,
            Scope::Prefixes(prefixes) => prefixes.iter().any(|p| is_under(path, p)),
        }
    }
}

/// A glob that did not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError {
    /// The spec holding the glob.
    pub spec: String,
    /// The glob as written.
    pub glob: String,
    /// The compiler's message.
    pub message: String,
}

/// The governance rules of one spec. Its glob set is compiled on first use:
/// building a regex set is the expensive part, and most questions touch a
/// few specs only.
#[derive(Debug)]
struct SpecRules {
    path: String,
    globs: Vec<Glob>,
    set: OnceLock<GlobSet>,
    /// Category of each glob in `globs`, by index into `categories`.
    glob_category: Vec<usize>,
    /// The anchor (`path#Symbol`) of each glob in `globs`: `None` governs
    /// the whole file.
    glob_anchor: Vec<Option<Anchor>>,
    /// Whether each glob in `globs` is housekeeping: an artifact whose
    /// `tier` is 3 (needs no spec's review) or 4 (derived output).
    glob_housekeeping: Vec<bool>,
    /// Whether the whole spec is housekeeping: its `tier` is `registered`
    /// or `derived` (intent and mapping, no behaviors to check) and it
    /// states no constraints or invariants.
    housekeeping: bool,
    /// The spec's constraints and invariants, lowercased: a file they name
    /// is never quiet ([`Governance::is_named`]).
    rules_text: Vec<String>,
    /// Each glob of `globs` as written (without its anchor), lowercased.
    glob_written: Vec<String>,
    /// The spec's text at the merge base did not load ([`SpecGlobs::unproven`]).
    unproven: bool,
    /// Whether each glob in `globs` lists tests: its category is `tests`
    /// (or `test`), the format's conventional name for them.
    glob_evidence: Vec<bool>,
    /// The `tested_by` paths of the spec's behaviors.
    tested_by: Vec<String>,
    categories: Vec<String>,
    scope: Scope,
}

impl SpecRules {
    fn set(&self) -> &GlobSet {
        self.set.get_or_init(|| build_set(&self.globs))
    }
}

/// Whether an artifact category holds tests: `tests` or `test`, the
/// format's conventional name, in any case.
fn is_tests_category(category: &str) -> bool {
    category.eq_ignore_ascii_case("tests") || category.eq_ignore_ascii_case("test")
}

fn build_set(globs: &[Glob]) -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(glob.clone());
    }
    builder.build().unwrap_or_else(|e| {
        tracing::warn!("cannot build a glob set: {e}");
        GlobSet::empty()
    })
}

/// Compiled governance of a whole spec set. Spec indices are indices into
/// `SpecSet::specs`.
#[derive(Debug)]
pub struct Governance {
    rules: Vec<SpecRules>,
    exclude: GlobSet,
    by_path: HashMap<String, usize>,
    /// Which specs' scopes can hold a path ([`ScopeIndex`]).
    by_scope: ScopeIndex,
    errors: Vec<GlobError>,
}

/// The specs whose scope can hold a path, found from the path's own
/// folders: a spec scoped to everything, or one with a literal prefix
/// equal to the path or to a folder above it ([`Scope::contains`] is
/// exactly that). A path then costs a few map lookups, not a comparison
/// with each of the specs (2,002 at 10x the benchmark, 20% of a warm
/// `list_affected_specs`).
#[derive(Debug, Default)]
struct ScopeIndex {
    everywhere: Vec<usize>,
    by_prefix: HashMap<String, Vec<usize>>,
}

impl ScopeIndex {
    fn new(rules: &[SpecRules]) -> ScopeIndex {
        let mut index = ScopeIndex::default();
        for (spec, rules) in rules.iter().enumerate() {
            match &rules.scope {
                Scope::Everything => index.everywhere.push(spec),
                Scope::Prefixes(prefixes) => {
                    for prefix in prefixes {
                        let prefix = prefix.trim_end_matches('/');
                        index
                            .by_prefix
                            .entry(prefix.to_string())
                            .or_default()
                            .push(spec);
                    }
                }
            }
        }
        index
    }

    /// The specs whose scope contains `path`, sorted, each once.
    fn holding(&self, path: &str) -> Vec<usize> {
        let mut out = self.everywhere.clone();
        let mut at = path;
        loop {
            if let Some(specs) = self.by_prefix.get(at) {
                out.extend(specs);
            }
            match at.rfind('/') {
                Some(end) => at = &at[..end],
                None => break,
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// What governance reads of one spec: its path, whether it is housekeeping
/// as a whole, and its artifact globs in the spec's order. The long-lived
/// server takes it from each loaded spec ([`SpecGlobs::of`]); the pre-edit
/// hook keeps it in its index so it can answer without parsing the spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecGlobs {
    /// Path of the spec file.
    pub path: String,
    /// The spec's `tier` is `registered` or `derived` and it states no
    /// constraints or invariants and applies no cross-cutting spec: every
    /// file it governs is housekeeping unless its constraints or
    /// invariants name it.
    pub housekeeping: bool,
    /// Its artifacts, category by category (in the spec model's order).
    pub artifacts: Vec<ArtifactGlob>,
    /// The `tested_by` paths of its behaviors.
    #[serde(default)]
    pub tested_by: Vec<String>,
    /// Its constraints and invariants, as written (with those of the
    /// cross-cutting specs it applies, when built from a spec set). Not
    /// kept in the pre-edit hook's index: the hook asks only which specs
    /// govern a file, and a spec's texts would make the index large.
    #[serde(skip)]
    pub rules: Vec<String>,
    /// The spec changed since the merge base and its text there does not
    /// load: no quiet verdict can be proven against it, so every file it
    /// governs is named ([`Governance::is_named`]) and governed whole.
    #[serde(skip)]
    pub unproven: bool,
}

/// One artifact of a spec as governance reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactGlob {
    /// The category it is listed under (`code`, `docs`, ...).
    pub category: String,
    /// The glob as written, with its anchor (`src/auth.rs#Session`) if any.
    pub path: String,
    /// Its `tier` is 3 (needs no review) or 4 (derived output).
    pub housekeeping: bool,
}

impl SpecGlobs {
    /// The governance of one loaded spec.
    pub fn of(loaded: &crate::spec::LoadedSpec) -> SpecGlobs {
        let artifacts = loaded
            .spec
            .artifacts
            .iter()
            .flat_map(|(category, refs)| {
                refs.iter().map(move |artifact| ArtifactGlob {
                    category: category.clone(),
                    path: artifact.path.clone(),
                    housekeeping: matches!(artifact.tier, Some(3 | 4)),
                })
            })
            .collect();
        SpecGlobs {
            path: loaded.path.clone(),
            housekeeping: loaded.spec.tier() != crate::spec::Tier::Full
                && loaded.spec.constraints.is_empty()
                && loaded.spec.invariants.is_empty()
                && loaded.spec.applies.is_empty(),
            artifacts,
            tested_by: loaded
                .spec
                .behaviors
                .iter()
                .flat_map(|b| b.tested_by.iter().map(|t| t.path.clone()))
                .collect(),
            rules: loaded
                .spec
                .constraints
                .iter()
                .chain(&loaded.spec.invariants)
                .cloned()
                .collect(),
            unproven: false,
        }
    }
}

impl SpecGlobs {
    /// Whether this spec may govern `path`, from string comparisons alone
    /// (no glob compiled): it is the spec's own file, or `path` lies below
    /// the literal prefix of one of its globs, or one of its globs has none
    /// (`**/*.rs`). Never false for a path [`Governance::governors`] would
    /// give this spec; true for more (the glob itself is not matched).
    pub fn may_govern(&self, path: &str) -> bool {
        self.path == path
            || self
                .artifacts
                .iter()
                .any(|a| match literal_prefix(split_anchor(&a.path).0) {
                    Some(prefix) => is_under(path, &prefix),
                    None => true,
                })
    }
}

impl Governance {
    /// Compile every spec's artifact globs and the system spec's `exclude`
    /// globs. A glob that does not compile is left out and reported in
    /// [`Governance::errors`].
    pub fn build(specs: &SpecSet) -> Governance {
        let exclude = specs
            .system_spec()
            .map(|system| (system.path.as_str(), system.spec.exclude.as_slice()));
        Governance::from_globs(with_applied(specs), exclude)
    }

    /// [`Governance::build`] from what governance reads of each spec, in
    /// the spec set's order (spec indices are positions in `specs`), and
    /// the system spec's path and `exclude` globs when there is one.
    pub fn from_globs(
        specs: impl IntoIterator<Item = SpecGlobs>,
        exclude: Option<(&str, &[String])>,
    ) -> Governance {
        let mut errors = Vec::new();
        let mut rules = Vec::new();
        let mut by_path = HashMap::new();
        for (index, spec) in specs.into_iter().enumerate() {
            by_path.insert(spec.path.clone(), index);
            rules.push(spec_rules(spec, &mut errors));
        }
        let mut set = GlobSetBuilder::new();
        if let Some((system, patterns)) = exclude {
            for pattern in patterns {
                match compile(pattern, true) {
                    Ok(globs) => globs.into_iter().for_each(|g| {
                        set.add(g);
                    }),
                    Err(message) => errors.push(GlobError {
                        spec: system.to_string(),
                        glob: pattern.clone(),
                        message,
                    }),
                }
            }
        }
        Governance {
            by_scope: ScopeIndex::new(&rules),
            rules,
            exclude: set.build().unwrap_or_else(|_| GlobSet::empty()),
            by_path,
            errors,
        }
    }

    /// Globs that did not compile.
    pub fn errors(&self) -> &[GlobError] {
        &self.errors
    }

    /// Whether `path` is intentionally unspecced (coverage tier 3): governed
    /// by no spec and matched by the system spec's `exclude`, or in
    /// notarai's own cache. A file that a spec's artifacts match is governed
    /// by that spec, excluded or not, so it is never excluded.
    pub fn is_excluded(&self, path: &str) -> bool {
        is_under(path, CACHE_DIR)
            || (self.exclude.is_match(path) && self.governors(path).is_empty())
    }

    /// Every spec governing `path`, as sorted spec indices. Only specs whose
    /// scope (the literal prefixes of their globs) holds the path are
    /// matched, so a path costs string comparisons for most specs and a glob
    /// match for the few that can govern it. A spec file governs itself. The
    /// system spec's `exclude` plays no part: it never takes a file away
    /// from a spec whose artifacts match it.
    pub fn governors(&self, path: &str) -> Vec<usize> {
        let mut specs: Vec<usize> = Vec::new();
        // A spec file governs itself (`by_path` holds every spec's path).
        if self.by_path.contains_key(path) {
            specs.extend(
                self.rules
                    .iter()
                    .enumerate()
                    .filter(|(_, rules)| rules.path == path)
                    .map(|(index, _)| index),
            );
        }
        if !is_under(path, CACHE_DIR) {
            specs.extend(
                self.by_scope
                    .holding(path)
                    .into_iter()
                    .filter(|&index| self.rules[index].set().is_match(path)),
            );
        }
        specs.sort_unstable();
        specs.dedup();
        specs
    }

    /// Every category through which spec `spec` governs `path`, in the
    /// spec's category order (empty when it does not govern it). A spec's own
    /// file has the one category [`SELF_CATEGORY`].
    pub fn categories(&self, spec: usize, path: &str) -> Vec<&str> {
        let rules = &self.rules[spec];
        if rules.path == path {
            return vec![SELF_CATEGORY];
        }
        if is_under(path, CACHE_DIR) || !rules.scope.contains(path) {
            return Vec::new();
        }
        let mut found: Vec<usize> = rules
            .set()
            .matches(path)
            .into_iter()
            .map(|g| rules.glob_category[g])
            .collect();
        found.sort_unstable();
        found.dedup();
        found
            .into_iter()
            .map(|c| rules.categories[c].as_str())
            .collect()
    }

    /// The first of [`Governance::categories`], or `None` when spec `spec`
    /// does not govern `path`. Categories are ordered by name (the spec
    /// model keeps them in a sorted map).
    pub fn category(&self, spec: usize, path: &str) -> Option<&str> {
        self.categories(spec, path).into_iter().next()
    }

    /// How spec `spec` governs `path`: `None` when it governs the whole file
    /// (a matching artifact has no anchor, or the path is the spec itself),
    /// else the anchors (`path#Symbol`) naming the symbols it governs there.
    /// Meaningful only for a path the spec governs.
    pub fn anchors(&self, spec: usize, path: &str) -> Option<Vec<&Anchor>> {
        let rules = &self.rules[spec];
        if rules.path == path || !rules.glob_anchor.iter().any(Option::is_some) {
            return None;
        }
        let mut out: Vec<&Anchor> = Vec::new();
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for g in rules.set().matches(path) {
            match &rules.glob_anchor[g] {
                None => return None,
                Some(anchor) => {
                    if seen.insert(anchor.as_str()) {
                        out.push(anchor);
                    }
                }
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// The part of the repository spec `spec` can govern.
    pub fn scope(&self, spec: usize) -> &Scope {
        &self.rules[spec].scope
    }

    /// The path of spec `spec`'s file.
    pub fn spec_path(&self, spec: usize) -> &str {
        &self.rules[spec].path
    }

    /// The spec index of a spec file path.
    pub fn spec_index(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }
}

/// The rules of one spec: its globs compiled (the glob sets on first use),
/// its literal prefixes; a glob or anchor that does not compile is left out
/// and reported in `errors`.
fn spec_rules(spec: SpecGlobs, errors: &mut Vec<GlobError>) -> SpecRules {
    let mut globs = Vec::new();
    let mut glob_category = Vec::new();
    let mut glob_anchor = Vec::new();
    let mut glob_housekeeping = Vec::new();
    let mut glob_evidence = Vec::new();
    let mut glob_written = Vec::new();
    let mut categories: Vec<String> = Vec::new();
    let mut prefixes = vec![spec.path.clone()];
    let mut everything = false;
    for artifact in &spec.artifacts {
        let category_index = match categories.iter().position(|c| *c == artifact.category) {
            Some(at) => at,
            None => {
                categories.push(artifact.category.clone());
                categories.len() - 1
            }
        };
        let (path, anchor) = split_anchor(&artifact.path);
        let anchor = match anchor.map(Anchor::parse).transpose() {
            Ok(anchor) => anchor,
            Err(e) => {
                errors.push(GlobError {
                    spec: spec.path.clone(),
                    glob: artifact.path.clone(),
                    message: e.to_string(),
                });
                continue;
            }
        };
        let compiled = match compile(path, true) {
            Ok(globs) => globs,
            Err(message) => {
                errors.push(GlobError {
                    spec: spec.path.clone(),
                    glob: artifact.path.clone(),
                    message,
                });
                continue;
            }
        };
        match literal_prefix(path) {
            Some(prefix) => prefixes.push(prefix),
            None => everything = true,
        }
        for glob in compiled {
            globs.push(glob);
            glob_category.push(category_index);
            glob_anchor.push(anchor.clone());
            glob_housekeeping.push(artifact.housekeeping);
            glob_evidence.push(is_tests_category(&artifact.category));
            glob_written.push(path.trim_start_matches("./").to_lowercase());
        }
    }
    let scope = if everything {
        Scope::Everything
    } else {
        Scope::Prefixes(minimize(prefixes))
    };
    SpecRules {
        path: spec.path,
        globs,
        set: OnceLock::new(),
        glob_category,
        glob_anchor,
        glob_housekeeping,
        housekeeping: spec.housekeeping,
        glob_evidence,
        tested_by: spec.tested_by,
        rules_text: spec.rules.iter().map(|r| r.to_lowercase()).collect(),
        unproven: spec.unproven,
        glob_written,
        categories,
        scope,
    }
}

/// What governance reads of every spec of `specs`, with the rules of the
/// cross-cutting specs applied to each.
fn with_applied(specs: &SpecSet) -> Vec<SpecGlobs> {
    let lineage = Lineage::of(specs);
    specs
        .specs
        .iter()
        .map(|loaded| {
            let mut globs = SpecGlobs::of(loaded);
            let applied = lineage.applied_rules(loaded);
            // Rules applied to it, its own or inherited: no tier quiets it.
            globs.housekeeping &= applied.is_empty();
            globs.rules.extend(applied);
            globs
        })
        .collect()
}

/// Sort, dedup, and drop prefixes that lie inside another.
fn minimize(mut prefixes: Vec<String>) -> Vec<String> {
    prefixes.sort();
    prefixes.dedup();
    let mut out: Vec<String> = Vec::with_capacity(prefixes.len());
    for p in prefixes {
        if !out.iter().any(|kept| is_under(&p, kept)) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests;
