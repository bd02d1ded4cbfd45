//! The specs a change since the merge base is judged by: as they are now
//! and as they were at the merge base (`governance::AtBase`), so a branch
//! that loosens a spec in the same change as its code is judged by the
//! spec it had to meet. Read once per answer from git, behind the status,
//! `check`, `list_affected_specs` and `get_spec_diff`.

use std::sync::Arc;

use crate::changes::{Base, BlobRead, GitRepo};
use crate::governance::{AtBase, Governance};
use crate::project::Specs;
use crate::spec::{LoadedSpec, SpecSet};

/// Each loaded spec's text at the merge base of `base`: unchanged (or new
/// on the branch), another text that loads, or one that does not (larger
/// than a spec may be, not UTF-8, not a valid spec).
pub fn at_base(git: &GitRepo, base: &Base, set: &SpecSet) -> Vec<AtBase> {
    set.specs
        .iter()
        .map(|now| {
            if git.same_at_base(base, &now.path, now.raw.as_bytes()) {
                return AtBase::Unchanged;
            }
            let limit = crate::spec::MAX_SPEC_BYTES as u64;
            match git.read_at_base(base, &now.path, limit) {
                BlobRead::Absent => AtBase::Unchanged,
                BlobRead::TooLarge(_) => AtBase::Unloadable,
                BlobRead::Bytes(bytes) if bytes == now.raw.as_bytes() => AtBase::Unchanged,
                BlobRead::Bytes(bytes) => match String::from_utf8(bytes) {
                    Ok(raw) => match crate::spec::parse_spec(&now.path, &raw) {
                        Ok(spec) => AtBase::Loaded(Box::new(LoadedSpec {
                            path: now.path.clone(),
                            raw,
                            spec,
                        })),
                        Err(_) => AtBase::Unloadable,
                    },
                    Err(_) => AtBase::Unloadable,
                },
            }
        })
        .collect()
}

/// The governance a change since `base` is judged by
/// ([`Governance::build_against_base`]).
pub fn governance(git: &GitRepo, base: &Base, set: &SpecSet) -> Governance {
    Governance::build_against_base(set, &at_base(git, base, set), &links(git))
}

/// `specs` with the governance a change since `base` is judged by; the
/// same `specs` when no spec changed since the merge base and no spec
/// governs a link.
///
/// A function of the specs, the merge base and the index's links: kept
/// with the specs for the last merge base asked (issue 43: with 2,000 specs
/// each question compiled every spec's globs again).
pub fn specs(specs: Arc<Specs>, git: &GitRepo, base: &Base) -> Arc<Specs> {
    let links = links(git);
    if let Some(judged) = specs.judged_at(base.merge_base, &links) {
        return judged.unwrap_or(specs);
    }
    let at_base = at_base(git, base, &specs.set);
    let governed_link = links
        .iter()
        .any(|(link, _)| !specs.governance().governors(link).is_empty());
    if !governed_link && at_base.iter().all(|a| matches!(a, AtBase::Unchanged)) {
        specs.keep_judged(base.merge_base, links, None);
        return specs;
    }
    let governance = Governance::build_against_base(&specs.set, &at_base, &links);
    let judged = Arc::new(Specs::judged(specs.set.clone(), governance));
    specs.keep_judged(base.merge_base, links, Some(judged.clone()));
    judged
}

/// Every symbolic link in git's index whose target lies inside the
/// repository, as `(link, target)` repository-relative paths. A link to an
/// absolute path or out of the repository is never followed.
pub fn links(git: &GitRepo) -> Vec<(String, String)> {
    git.tracked_links()
        .iter()
        .filter_map(|(link, text)| Some((link.clone(), resolve(link, text)?)))
        .collect()
}

/// The repository-relative path a link at `link` holding `text` points to,
/// `None` when it leaves the repository (absolute, or `..` above the root).
fn resolve(link: &str, text: &str) -> Option<String> {
    if text.starts_with('/') || text.contains('\\') || text.contains('\0') {
        return None;
    }
    let mut parts: Vec<&str> = link.split('/').collect();
    parts.pop();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn links_resolve_inside_the_repository_only() {
        assert_eq!(
            resolve("src/a.py", "../lib/real.py").as_deref(),
            Some("lib/real.py")
        );
        assert_eq!(resolve("a.py", "./b/c.py").as_deref(), Some("b/c.py"));
        assert_eq!(resolve("src/a.py", "../../outside.py"), None);
        assert_eq!(resolve("a.py", "/etc/passwd"), None);
        assert_eq!(resolve("src/a.py", ".."), None);
    }
}
