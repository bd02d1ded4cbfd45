//! What a change means once its symbols are known: each hunk's symbol,
//! whether an anchored spec's symbols are touched (on either side),
//! whether a file changed in formatting or comments only, and which
//! anchors broke (their symbol is gone) and where it likely went.
//!
//! Shared by `get_spec_diff`, `list_affected_specs`, the reconciliation
//! status and `check`: a spec is affected by a changed file when it governs
//! the whole file and the file's token stream changed (or always, with
//! `include_formatting`), or when it anchors symbols of the file and a hunk
//! touches one of them whose token stream changed.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;

use crate::changes::{
    Base, BlobRead, ChangeKind, ChangeSet, ChangedFile, GitRepo, MAX_DIFF_FILE, Patch,
};
use crate::governance::Governance;
use crate::symbols::{self, Anchor, Lang, Outline, PatchSymbols};

/// Both sides of one changed file, outlined.
pub struct Sides {
    /// The file at the merge base (empty when added).
    pub old: Arc<Outline>,
    /// The file in the work tree (empty when deleted).
    pub new: Arc<Outline>,
    /// Whether the file was modified in place (not added, deleted, renamed).
    modified: bool,
}

/// Both sides' content of one changed file, read but not parsed yet: the
/// reading needs the repository (one thread), the parsing does not.
pub struct Contents {
    old_path: String,
    path: String,
    old: Vec<u8>,
    new: Vec<u8>,
    modified: bool,
}

impl Contents {
    /// Read both sides of `file`: the base's content of its old path, the
    /// work tree's of its path. `None` for a file in a language the outline
    /// does not know (it is whole-file, with nothing to learn), too large,
    /// or unreadable.
    pub fn read(root: &Path, git: &GitRepo, base: &Base, file: &ChangedFile) -> Option<Contents> {
        Lang::of_path(&file.path)?;
        let old_path = file.old_path.as_deref().unwrap_or(&file.path);
        let old = match (file.status, git.read_at_base(base, old_path, MAX_DIFF_FILE)) {
            (ChangeKind::Added, _) | (_, BlobRead::Absent) => Vec::new(),
            (_, BlobRead::Bytes(bytes)) => bytes,
            (_, BlobRead::TooLarge(_)) => return None,
        };
        let new = if file.status == ChangeKind::Deleted {
            Vec::new()
        } else {
            crate::safe_fs::read(root, Path::new(&file.path), MAX_DIFF_FILE).ok()?
        };
        Some(Contents {
            old_path: old_path.to_string(),
            path: file.path.clone(),
            old,
            new,
            modified: file.status == ChangeKind::Modified,
        })
    }

    /// Both sides outlined.
    pub fn outline(&self) -> Sides {
        Sides {
            old: symbols::outline_cached(&self.old_path, &self.old),
            new: symbols::outline_cached(&self.path, &self.new),
            modified: self.modified,
        }
    }

    /// [`Sides::formatting_only`], from the token streams alone (no
    /// symbols found): what a file no spec anchors needs.
    pub fn formatting_only(&self) -> bool {
        if !self.modified {
            return false;
        }
        let (old, new) =
            symbols::semantic_hash_pair(&self.old_path, &self.old, &self.path, &self.new);
        old.tokens && new.tokens && old == new
    }
}

/// Outline both sides of each of `files` on all cores, ahead of a loop
/// that asks [`sides`] for them one by one (which then finds them kept):
/// the contents are read on this thread (the repository), parsed on all.
pub fn outline_ahead(root: &Path, git: &GitRepo, base: &Base, files: &[&ChangedFile]) {
    let read: Vec<Contents> = files
        .iter()
        .filter_map(|file| Contents::read(root, git, base, file))
        .collect();
    with_kept_facts(root, git, read.iter(), || {
        crate::parallel::map(&read, 8, |c| drop(c.outline()), |_| ())
    });
}

/// Run `parse` over `contents` with what earlier processes learned of the
/// same contents (the cache's [`crate::cache::facts`]): a content this
/// process does not know yet is looked up first, so only the ones never
/// seen are parsed, and what `parse` learned is kept for the next process.
/// Not when git tracks the cache folder: a cloned repository's facts could
/// hide a change.
fn with_kept_facts<'c, R>(
    root: &Path,
    git: &GitRepo,
    contents: impl Iterator<Item = &'c Contents>,
    parse: impl FnOnce() -> R,
) -> R {
    if !git.tracked_cache_files().is_empty() {
        return parse();
    }
    let unknown: Vec<symbols::ContentKey> = contents
        .flat_map(|c| [(&c.old_path, &c.old), (&c.path, &c.new)])
        .filter(|(_, bytes)| !bytes.is_empty())
        .map(|(path, bytes)| symbols::ContentKey::of(path, bytes))
        .filter(|key| !key.is_known())
        .collect();
    if !unknown.is_empty() {
        symbols::seed(crate::cache::facts::recall(root, &unknown));
    }
    let out = parse();
    crate::cache::facts::keep(root, &symbols::take_learned());
    out
}

/// Outline both sides of `file` (the base's content of its old path, the
/// work tree's of its path). `None` for a file in a language the outline
/// does not know: it is whole-file, with nothing to learn.
pub fn sides(root: &Path, git: &GitRepo, base: &Base, file: &ChangedFile) -> Option<Sides> {
    Contents::read(root, git, base, file).map(|c| c.outline())
}

/// Outline two contents of `path` modified in place (the content last
/// reconciled and the work tree's). `None` for a language the outline does
/// not know.
pub fn sides_of(path: &str, old: &[u8], new: &[u8]) -> Option<Sides> {
    Lang::of_path(path)?;
    Some(Sides {
        old: symbols::outline_cached(path, old),
        new: symbols::outline_cached(path, new),
        modified: true,
    })
}

impl Sides {
    /// Whether the file changed in formatting or comments only: modified in
    /// place, both sides parse and their token streams are equal.
    pub fn formatting_only(&self) -> bool {
        self.modified
            && self.old.fallback.is_none()
            && self.new.fallback.is_none()
            && self.old.file_hash == self.new.file_hash
    }

    /// Whether either side has no outline (the file is then whole-file).
    fn whole_file(&self) -> bool {
        self.old.fallback.is_some() || self.new.fallback.is_some()
    }
}

/// How an anchored spec stands to one changed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A hunk touches one of its symbols and its token stream changed.
    Affected,
    /// Its symbols changed in formatting or comments only.
    FormattingOnly,
    /// No hunk touches its symbols.
    Untouched,
}

/// The symbols `anchors` govern in `outline`, with their semantic hashes,
/// as a sorted list (a multiset: a getter and a setter share a name).
fn governed_hashes(outline: &Outline, anchors: &[&Anchor]) -> Vec<(String, [u8; 32])> {
    let mut out: Vec<(String, [u8; 32])> = anchors
        .iter()
        .flat_map(|a| a.governed(outline))
        .map(|i| (outline.symbols[i].name.clone(), outline.symbols[i].hash))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Which hunks of `symbols` touch a symbol `anchors` govern, on either side.
pub fn touching(sides: &Sides, symbols: &PatchSymbols, anchors: &[&Anchor]) -> Vec<bool> {
    let old: Vec<usize> = anchors
        .iter()
        .flat_map(|a| a.governed(&sides.old))
        .collect();
    let new: Vec<usize> = anchors
        .iter()
        .flat_map(|a| a.governed(&sides.new))
        .collect();
    symbols
        .hunks
        .iter()
        .map(|h| {
            h.touched_old.iter().any(|i| old.contains(i))
                || h.touched_new.iter().any(|i| new.contains(i))
        })
        .collect()
}

/// How an anchored spec stands to a changed file with `patch`.
pub fn verdict(sides: &Sides, patch: &str, anchors: &[&Anchor]) -> Verdict {
    if sides.whole_file() {
        return Verdict::Affected;
    }
    let symbols = symbols::patch_symbols(&sides.old, &sides.new, patch);
    if !touching(sides, &symbols, anchors).contains(&true) {
        return Verdict::Untouched;
    }
    if governed_hashes(&sides.old, anchors) == governed_hashes(&sides.new, anchors) {
        Verdict::FormattingOnly
    } else {
        Verdict::Affected
    }
}

/// A changed file as one spec sees it.
pub enum View {
    /// Show it, with this patch (hunks attributed, for an anchored spec only
    /// the hunks touching its symbols).
    Show(Patch),
    /// It changed in formatting or comments only.
    FormattingOnly,
    /// None of the spec's anchored symbols is touched.
    Untouched,
}

/// How the spec with `anchors` on this file (`None`: the whole file) sees
/// `file` and its `patch`.
pub fn view(
    sides: Option<&Sides>,
    patch: Patch,
    anchors: Option<&[&Anchor]>,
    include_formatting: bool,
) -> View {
    let (Some(sides), Patch::Text(text)) = (sides, &patch) else {
        return View::Show(patch);
    };
    if !include_formatting && sides.formatting_only() {
        return View::FormattingOnly;
    }
    let symbols = symbols::patch_symbols(&sides.old, &sides.new, text);
    let Some(anchors) = anchors.filter(|_| !sides.whole_file()) else {
        return View::Show(Patch::Text(symbols.render(text, |_, _| true)));
    };
    let touched = touching(sides, &symbols, anchors);
    if !touched.contains(&true) {
        return View::Untouched;
    }
    if !include_formatting
        && governed_hashes(&sides.old, anchors) == governed_hashes(&sides.new, anchors)
    {
        return View::FormattingOnly;
    }
    View::Show(Patch::Text(symbols.render(text, |i, _| touched[i])))
}

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

/// What the symbols say about one whole change set, for every spec.
#[derive(Debug, Default)]
pub struct Narrowed {
    /// Per changed path, the governing specs the change affects.
    pub affected: BTreeMap<String, Vec<usize>>,
    /// Changed files whose token streams are unchanged (formatting,
    /// comments only), affecting no spec unless formatting is included.
    pub formatting_only: Vec<String>,
    /// Anchors whose symbol the change removed.
    pub broken: Vec<BrokenAnchor>,
}

/// Narrow `governed` (each changed path with its governing specs) to the
/// specs each change affects, as the module header says. A path whose
/// list comes back empty affects no spec.
pub fn narrow(
    root: &Path,
    git: &GitRepo,
    base: &Base,
    changes: &ChangeSet<'_>,
    governance: &Governance,
    governed: &[(String, Vec<usize>)],
    include_formatting: bool,
) -> Narrowed {
    let mut out = Narrowed::default();
    let by_path: HashMap<&str, &ChangedFile> = changes
        .files
        .iter()
        .flat_map(|f| f.paths().map(move |p| (p, f)))
        .collect();
    let anchored = |path: &str, governors: &[usize]| {
        governors
            .iter()
            .any(|&g| governance.anchors(g, path).is_some())
    };
    // What each changed file needs, decided before anything is parsed: a
    // file a spec anchors needs its symbols; one modified in place, its
    // token streams (is it formatting only?); any other, nothing.
    let mut needs: BTreeMap<&str, (&ChangedFile, Need)> = BTreeMap::new();
    for (path, governors) in governed {
        let Some(file) = by_path.get(path.as_str()) else {
            continue;
        };
        let need = if anchored(path, governors) {
            Need::Symbols
        } else if !include_formatting && file.status == ChangeKind::Modified {
            Need::Tokens
        } else {
            continue;
        };
        let slot = needs.entry(file.path.as_str()).or_insert((file, need));
        slot.1 = slot.1.max(need);
    }
    let learned = learn(root, git, base, needs.into_values().collect());
    for (path, governors) in governed {
        let learned = by_path
            .get(path.as_str())
            .and_then(|file| learned.get(file.path.as_str()));
        let sides = match learned {
            Some(Learned::FormattingOnly) => {
                out.formatting_only.push(path.clone());
                out.affected.insert(path.clone(), Vec::new());
                continue;
            }
            Some(Learned::Sides(sides)) => sides,
            Some(Learned::Nothing) | None => {
                out.affected.insert(path.clone(), governors.clone());
                continue;
            }
        };
        let file = by_path[path.as_str()];
        if !include_formatting && sides.formatting_only() {
            out.formatting_only.push(path.clone());
            out.affected.insert(path.clone(), Vec::new());
            continue;
        }
        let mut patch: Option<Option<String>> = None;
        let mut kept = Vec::new();
        for &g in governors {
            let Some(anchors) = governance.anchors(g, path) else {
                kept.push(g);
                continue;
            };
            let text = patch.get_or_insert_with(|| match changes.patch(file) {
                Ok(Patch::Text(t)) => Some(t),
                _ => None,
            });
            let verdict = match text {
                Some(t) => verdict(sides, t, &anchors),
                None => Verdict::Affected,
            };
            match verdict {
                Verdict::Affected => kept.push(g),
                Verdict::FormattingOnly if include_formatting => kept.push(g),
                _ => {}
            }
        }
        out.affected.insert(path.clone(), kept);
    }
    out.broken = broken_anchors(root, git, base, governance, governed, &by_path, &learned);
    out.formatting_only.sort();
    out.formatting_only.dedup();
    out
}

/// How much of a changed file [`narrow`] needs to know (ordered: more
/// includes less).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Need {
    /// Whether its token streams are equal.
    Tokens,
    /// Its symbols on both sides.
    Symbols,
}

/// What [`learn`] found of one changed file.
enum Learned {
    /// Its token streams are equal (it needed only that).
    FormattingOnly,
    /// Both sides outlined.
    Sides(Sides),
    /// Nothing: unreadable, too large, another language, or its token
    /// streams differ.
    Nothing,
}

/// Read every file's sides (one thread: the repository), then parse them
/// on all cores, by path.
fn learn<'a>(
    root: &Path,
    git: &GitRepo,
    base: &Base,
    files: Vec<(&'a ChangedFile, Need)>,
) -> HashMap<&'a str, Learned> {
    let read: Vec<(Need, Option<Contents>)> = files
        .iter()
        .map(|(file, need)| (*need, Contents::read(root, git, base, file)))
        .collect();
    let contents = read.iter().filter_map(|(_, c)| c.as_ref());
    let learned = with_kept_facts(root, git, contents, || {
        crate::parallel::map(
            &read,
            8,
            |(need, contents)| match (need, contents) {
                (_, None) => Learned::Nothing,
                (Need::Symbols, Some(c)) => Learned::Sides(c.outline()),
                (Need::Tokens, Some(c)) if c.formatting_only() => Learned::FormattingOnly,
                (Need::Tokens, Some(_)) => Learned::Nothing,
            },
            |_| Learned::Nothing,
        )
    });
    files
        .iter()
        .map(|(file, _)| file.path.as_str())
        .zip(learned)
        .collect()
}

/// Anchors named at the base and gone now, with where their symbol likely
/// went (the new side of every governed changed file is searched, outlined
/// only when an anchor did break).
fn broken_anchors(
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
                if before.is_empty() || anchor.names_any(&sides.new) && path == &file.path {
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
fn moved_to(old: &Outline, before: &[usize], news: &[(&str, Arc<Outline>)]) -> Option<String> {
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

/// The anchors spec `spec` has on `paths` (the paths of one changed file):
/// `None` when it governs any of them whole.
pub fn spec_anchors<'g>(
    governance: &'g Governance,
    spec: usize,
    paths: &[&str],
) -> Option<Vec<&'g Anchor>> {
    let mut out: Vec<&Anchor> = Vec::new();
    for path in paths {
        for anchor in governance.anchors(spec, path)? {
            if !out.contains(&anchor) {
                out.push(anchor);
            }
        }
    }
    Some(out)
}
