//! Which cross-cutting specs apply to a spec: those it pulls in with
//! `applies`, and those its ancestors (the specs listing it under
//! `subsystems`, transitively) pull in: `applies` covers a spec and all its
//! subsystems. Built from the loaded specs ([`Lineage::of`]) or from what
//! the pre-edit hook's index keeps of each ([`Lineage::from_links`]).

use std::collections::HashMap;

use super::{LoadedSpec, SpecSet, resolve_ref};

/// The links of one spec: its path, the specs it lists under `subsystems`
/// and those it pulls in with `applies` (both resolved to paths).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SpecLinks {
    /// Path of the spec file.
    pub path: String,
    /// Paths of its subsystems.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subsystems: Vec<String>,
    /// Paths of the cross-cutting specs it applies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applies: Vec<String>,
}

impl SpecLinks {
    /// The links of `loaded`.
    pub fn of(loaded: &LoadedSpec) -> SpecLinks {
        let resolve = |refs: &mut dyn Iterator<Item = &String>| -> Vec<String> {
            refs.filter_map(|r| resolve_ref(&loaded.path, r)).collect()
        };
        SpecLinks {
            path: loaded.path.clone(),
            subsystems: resolve(
                &mut loaded
                    .spec
                    .subsystems
                    .as_deref()
                    .unwrap_or_default()
                    .iter()
                    .map(|r| &r.reference),
            ),
            applies: resolve(&mut loaded.spec.applies.iter().map(|r| &r.reference)),
        }
    }
}

/// Each spec's parents and the specs it applies, found once.
#[derive(Debug, Default)]
pub struct Lineage {
    parents: HashMap<String, Vec<String>>,
    applies: HashMap<String, Vec<String>>,
}

impl Lineage {
    /// The lineage of every spec of `specs`.
    pub fn of(specs: &SpecSet) -> Lineage {
        Lineage::from_links(specs.specs.iter().map(SpecLinks::of))
    }

    /// The lineage of the specs whose links are `links`.
    pub fn from_links(links: impl IntoIterator<Item = SpecLinks>) -> Lineage {
        let mut lineage = Lineage::default();
        for spec in links {
            for child in spec.subsystems {
                lineage
                    .parents
                    .entry(child)
                    .or_default()
                    .push(spec.path.clone());
            }
            if !spec.applies.is_empty() {
                lineage.applies.insert(spec.path, spec.applies);
            }
        }
        lineage
    }

    /// The paths of the cross-cutting specs applied to the spec at `path`,
    /// its own and inherited, each once, in the order found (the spec's
    /// own first, then its parents', nearest first).
    pub fn applied(&self, path: &str) -> Vec<String> {
        // The spec and its ancestors, each once (a cycle is a load error
        // reported elsewhere; it ends here).
        let mut chain: Vec<&str> = vec![path];
        let mut at = 0;
        while at < chain.len() {
            for parent in self
                .parents
                .get(chain[at])
                .map(Vec::as_slice)
                .unwrap_or_default()
            {
                if !chain.contains(&parent.as_str()) {
                    chain.push(parent);
                }
            }
            at += 1;
        }
        let mut out: Vec<String> = Vec::new();
        for applied in chain.iter().filter_map(|p| self.applies.get(*p)).flatten() {
            if !out.contains(applied) && applied != path {
                out.push(applied.clone());
            }
        }
        out
    }
}

/// The loaded cross-cutting specs applied to `loaded` ([`Lineage::applied`]),
/// each once; an applied path that did not load is left out. `specs` is
/// sorted by path, as the loader leaves it.
pub fn applied_specs<'s>(specs: &'s SpecSet, lineage: &Lineage, path: &str) -> Vec<&'s LoadedSpec> {
    lineage
        .applied(path)
        .iter()
        .filter_map(|p| {
            match specs
                .specs
                .binary_search_by(|s| s.path.as_str().cmp(p.as_str()))
            {
                Ok(i) => Some(&specs.specs[i]),
                // Not sorted after all (a set built by hand): look.
                Err(_) => specs.specs.iter().find(|s| &s.path == p),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(path: &str, subsystems: &[&str], applies: &[&str]) -> SpecLinks {
        SpecLinks {
            path: path.into(),
            subsystems: subsystems.iter().map(|s| s.to_string()).collect(),
            applies: applies.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn applied_is_own_then_inherited_each_once() {
        let lineage = Lineage::from_links([
            links("sys", &["a"], &["sec"]),
            links("a", &["b"], &["log", "sec"]),
            links("b", &[], &["log"]),
            links("c", &[], &[]),
        ]);
        assert_eq!(lineage.applied("b"), ["log", "sec"]);
        assert_eq!(lineage.applied("a"), ["log", "sec"]);
        assert_eq!(lineage.applied("c"), Vec::<String>::new());
    }

    #[test]
    fn a_cycle_ends() {
        let lineage = Lineage::from_links([links("a", &["b"], &["x"]), links("b", &["a"], &[])]);
        assert_eq!(lineage.applied("b"), ["x"]);
    }
}
