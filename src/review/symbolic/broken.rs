//! Anchors whose symbol the change removed, and where the same code likely
//! went.

use super::*;

/// An anchor whose symbol the change removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BrokenAnchor {
    /// The spec.
    pub spec_path: String,
    /// The anchored artifact path as written (`glob#Symbol`).
    pub anchor: String,
    /// The file it named symbols in at the base.
    pub file: String,
    /// Where the same symbol (same semantic hash) now is, as an anchor to
    /// write instead (`path#Name`): the likely rename or move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub likely_moved_to: Option<String>,
}

impl BrokenAnchor {
    /// One sentence for a person: what broke and what to write instead.
    pub fn message(&self) -> String {
        match &self.likely_moved_to {
            Some(to) => format!(
                "anchor `#{}` names no symbol in {} any more; the same code is now `{to}` (a likely rename or move): write `{to}`",
                self.anchor, self.file
            ),
            None => format!(
                "anchor `#{}` names no symbol in {} any more: the symbol was removed; point the anchor at its successor or drop it",
                self.anchor, self.file
            ),
        }
    }
}

/// Anchors named at the base and gone now, with where their symbol likely
/// went (the new side of every governed changed file is searched, outlined
/// only when an anchor did break).
pub(super) fn broken_anchors(
    root: &Path,
    git: &GitRepo,
    base: &Base,
    governance: &Governance,
    governed: &[(String, Vec<usize>)],
    by_path: &HashMap<&str, &ChangedFile>,
    learned: &HashMap<&str, Learned>,
) -> Vec<BrokenAnchor> {
    let mut broken: Vec<(String, String, &ChangedFile, &Sides, Vec<usize>)> = Vec::new();
    for (path, governors) in governed {
        let Some(file) = by_path.get(path.as_str()) else {
            continue;
        };
        if path != &file.path && file.old_path.as_deref() != Some(path) {
            continue;
        }
        let Some(Learned::Sides(sides)) = learned.get(file.path.as_str()) else {
            continue;
        };
        if sides.whole_file() {
            continue;
        }
        for &g in governors {
            for anchor in governance.anchors(g, path).unwrap_or_default() {
                let before: Vec<usize> = anchor.named(&sides.old);
                // On a partial outline a symbol not found may lie in the
                // damage: the file is governed whole, nothing is broken.
                let found = anchor.names_any(&sides.new) || sides.new.damage.is_some();
                if before.is_empty() || found && path == &file.path {
                    continue;
                }
                broken.push((
                    governance.spec_path(g).to_string(),
                    anchor.to_string(),
                    file,
                    sides,
                    before,
                ));
            }
        }
    }
    if broken.is_empty() {
        return Vec::new();
    }
    // Where a symbol went: any governed changed file's new side.
    let mut paths: Vec<&ChangedFile> = governed
        .iter()
        .filter_map(|(p, _)| by_path.get(p.as_str()).copied())
        .collect();
    paths.sort_by(|a, b| a.path.cmp(&b.path));
    paths.dedup_by(|a, b| a.path == b.path);
    let news: Vec<(&str, Arc<Outline>)> = paths
        .into_iter()
        .filter_map(|file| {
            let outline = match learned.get(file.path.as_str()) {
                Some(Learned::Sides(sides)) => sides.new.clone(),
                _ => sides(root, git, base, file)?.new,
            };
            Some((file.path.as_str(), outline))
        })
        .collect();
    let mut out: Vec<BrokenAnchor> = Vec::new();
    for (spec_path, anchor, file, sides, before) in broken {
        let entry = BrokenAnchor {
            spec_path,
            anchor,
            file: file.old_path.clone().unwrap_or_else(|| file.path.clone()),
            likely_moved_to: moved_to(&sides.old, &before, &news),
        };
        if !out.contains(&entry) {
            out.push(entry);
        }
    }
    out
}

/// Where the symbols `before` of `old` now are: a symbol with the same
/// semantic hash under another name or in another file.
pub(super) fn moved_to(
    old: &Outline,
    before: &[usize],
    news: &[(&str, Arc<Outline>)],
) -> Option<String> {
    for &i in before {
        let wanted = &old.symbols[i];
        for (path, outline) in news {
            if let Some(s) = outline
                .symbols
                .iter()
                .find(|s| s.hash == wanted.hash && s.kind == wanted.kind)
            {
                return Some(format!("{path}#{}", s.name));
            }
        }
    }
    None
}
