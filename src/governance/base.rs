//! A change judged against its specs as they are now and as they were at
//! the merge base: a branch that changes a file and loosens the spec
//! governing it in the same change (a tier added, an anchor narrowed, a
//! constraint dropped) must not quiet the change by its own new text. Every
//! rule a quiet verdict reads is combined so that the verdict holds under
//! both texts: a file either governs is governed, a tier quiets only when
//! both texts give it, an anchor narrows only what both anchor (a glob
//! either governs whole governs it whole), a constraint of either names.

use super::*;
use crate::spec::LoadedSpec;

/// One spec's text at the merge base, as the review found it.
#[derive(Debug, Clone)]
pub enum AtBase {
    /// The same text as now, or no text there (new on the branch: judged
    /// by its new text).
    Unchanged,
    /// A different text, which loads.
    Loaded(Box<LoadedSpec>),
    /// A different text that does not load: nothing quiet can be proven.
    Unloadable,
}

impl Governance {
    /// [`Governance::build`] for judging a change since the merge base:
    /// `at_base[i]` is spec `i`'s text there. A spec whose rules (its own
    /// or those applied to it) differ between the two texts gets the
    /// rules of both ([`merge`]); one whose text there does not load
    /// gets no quiet verdict ([`SpecGlobs::unproven`]). The system spec's
    /// `exclude` keeps only the patterns both texts declare.
    ///
    /// `links` are the repository's symbolic links whose targets lie inside
    /// it (`(link, target)`): a spec governing a link governs its target as
    /// well (with the link's category and anchors, never as housekeeping),
    /// links of links followed a few steps.
    pub fn build_against_base(
        now: &SpecSet,
        at_base: &[AtBase],
        links: &[(String, String)],
    ) -> Governance {
        let mut then = now.clone();
        for (spec, base) in then.specs.iter_mut().zip(at_base) {
            if let AtBase::Loaded(loaded) = base {
                *spec = (**loaded).clone();
            }
        }
        let merged: Vec<SpecGlobs> = with_applied(now)
            .into_iter()
            .zip(with_applied(&then))
            .enumerate()
            .map(|(i, (now, then))| {
                let unproven = matches!(at_base.get(i), Some(AtBase::Unloadable));
                if now == then && !unproven {
                    now
                } else {
                    merge(now, then, unproven)
                }
            })
            .collect();
        let system = now.system_spec();
        let exclude: Vec<String> = match (system, now.system.and_then(|i| at_base.get(i))) {
            (None, _) => Vec::new(),
            (Some(_), Some(AtBase::Unloadable)) => Vec::new(),
            (Some(s), Some(AtBase::Loaded(b))) => s
                .spec
                .exclude
                .iter()
                .filter(|p| b.spec.exclude.contains(p))
                .cloned()
                .collect(),
            (Some(s), _) => s.spec.exclude.clone(),
        };
        let exclude = system.map(|s| (s.path.as_str(), exclude.as_slice()));
        let mut merged = merged;
        for _ in 0..MAX_LINK_STEPS {
            let governance = Governance::from_globs(merged.clone(), exclude);
            if !governance.add_link_targets(&mut merged, links) {
                return governance;
            }
        }
        Governance::from_globs(merged, exclude)
    }

    /// Add to `specs` (what this governance was built from) the target of
    /// every link of `links` a spec governs and does not govern yet;
    /// whether one was added.
    fn add_link_targets(&self, specs: &mut [SpecGlobs], links: &[(String, String)]) -> bool {
        let mut added = false;
        for (link, target) in links {
            for spec in self.governors(link) {
                if self.spec_path(spec) == link || !self.categories(spec, target).is_empty() {
                    continue;
                }
                let category = self.category(spec, link).unwrap_or("code").to_string();
                let literal = globset::escape(target);
                let paths: Vec<String> = match self.anchors(spec, link) {
                    Some(anchors) => anchors
                        .iter()
                        .map(|a| format!("{literal}#{}", a.as_str()))
                        .collect(),
                    None => vec![literal],
                };
                for path in paths {
                    specs[spec].artifacts.push(ArtifactGlob {
                        category: category.clone(),
                        path,
                        housekeeping: false,
                    });
                }
                added = true;
            }
        }
        added
    }
}

/// How many links of links [`Governance::build_against_base`] follows.
const MAX_LINK_STEPS: usize = 8;

/// The rules of one spec under both its texts: every artifact of either
/// (a glob one text anchors and the other governs whole is governed whole,
/// a tier only one text gives leaves the other's glob without it), the
/// spec's tier only when both give it, the tests both list, the
/// constraints and invariants of both. `unproven`: the base text did not
/// load, so the artifacts now are governed whole and no tier holds.
fn merge(now: SpecGlobs, then: SpecGlobs, unproven: bool) -> SpecGlobs {
    let mut artifacts = now.artifacts;
    if unproven {
        for a in &mut artifacts {
            a.path = split_anchor(&a.path).0.to_string();
            a.housekeeping = false;
        }
    } else {
        for a in then.artifacts {
            if !artifacts.contains(&a) {
                artifacts.push(a);
            }
        }
    }
    let mut rules = now.rules;
    for r in then.rules {
        if !rules.contains(&r) {
            rules.push(r);
        }
    }
    SpecGlobs {
        path: now.path,
        housekeeping: now.housekeeping && then.housekeeping && !unproven,
        artifacts,
        tested_by: now
            .tested_by
            .into_iter()
            .filter(|t| !unproven && then.tested_by.contains(t))
            .collect(),
        rules,
        unproven: unproven || now.unproven || then.unproven,
    }
}
