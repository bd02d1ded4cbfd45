//! What a change means once its symbols are known: each hunk's symbol,
//! whether an anchored spec's symbols are touched (on either side),
//! whether a file changed in formatting or comments only, and which
//! anchors broke (their symbol is gone) and where it likely went.
//!
//! Shared by `get_spec_diff`, `list_affected_specs`, the reconciliation
//! status and `check`: a spec is affected by a changed file when it governs
//! the whole file and the file's program changed (or always, with
//! `include_formatting`), or when it anchors symbols of the file and a hunk
//! touches one of them whose program changed.

use std::collections::{BTreeMap, HashMap, HashSet};
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
    /// Its language (of its path now).
    lang: Option<Lang>,
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
            lang: Lang::of_path(&self.path),
        }
    }

    /// [`Sides::formatting_only`], from the file hashes alone (no
    /// symbols found): what a file no spec anchors needs.
    pub fn formatting_only(&self) -> bool {
        if !self.modified {
            return false;
        }
        let (old, new) =
            symbols::semantic_hash_pair(&self.old_path, &self.old, &self.path, &self.new);
        same_program(self.modified, old, new)
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
    let lang = Lang::of_path(path)?;
    Some(Sides {
        old: symbols::outline_cached(path, old),
        new: symbols::outline_cached(path, new),
        modified: true,
        lang: Some(lang),
    })
}

/// The one test of "formatting or comments only", from a file's two
/// semantic hashes: modified in place, both sides parsed (a token hash,
/// not a bytes hash) and equal. [`Sides::formatting_only`] and
/// [`Contents::formatting_only`] both ask it, so the status (which may
/// only hash tokens) and the diff (which outlines) cannot disagree.
fn same_program(modified: bool, old: symbols::SemanticHash, new: symbols::SemanticHash) -> bool {
    modified && old.tokens && new.tokens && old == new
}

impl Sides {
    /// Whether the file changed in formatting or comments only: modified in
    /// place, both sides parse and their programs are the same (`symbols::program`).
    pub fn formatting_only(&self) -> bool {
        self.old.fallback.is_none()
            && self.new.fallback.is_none()
            && same_program(self.modified, self.old.file_hash, self.new.file_hash)
    }

    /// Whether either side has no outline (the file is then whole-file).
    fn whole_file(&self) -> bool {
        self.old.fallback.is_some() || self.new.fallback.is_some()
    }
}

/// How one spec stands to one changed file: the one verdict the status,
/// `check` and `get_spec_diff` share ([`decide`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Show it: a whole-file spec and a change of its program, or a
    /// hunk touches one of the spec's symbols (and its program
    /// changed, or the hunk may rebind its name).
    Affected,
    /// It changed in formatting or comments only (for an anchored spec:
    /// its symbols did).
    FormattingOnly,
    /// No hunk touches the spec's anchored symbols, on either side, and no
    /// hunk may rebind their names.
    Untouched,
}

/// How one hunk concerns an anchored spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    /// It touches none of the spec's symbols.
    No,
    /// A changed line lies in the extent of one of its symbols (either side).
    Extent,
    /// A changed line outside their extents may rebind one of their names
    /// (`symbols::rebinds`): an assignment, a declaration, an import.
    Rebinds,
}

/// The symbols `anchors` govern in `outline`, with their semantic hashes,
/// as a sorted list (a multiset: a getter and a setter share a name).
fn governed_hashes(outline: &Outline, anchors: &[&Anchor]) -> Vec<(String, [u8; 32])> {
    let mut out: Vec<(String, [u8; 32])> =
        symbols::indices(&symbols::governed_by(anchors, outline))
            .into_iter()
            .map(|i| (outline.symbols[i].name.clone(), outline.symbols[i].hash))
            .collect();
    out.sort();
    out.dedup();
    out
}

/// The names a line may rebind to change what `anchors` govern in
/// `outline`: the last segment of each symbol they name and of each
/// member of one (`refresh` for `Session` and for `Session.refresh`).
fn rebindable(outline: &Outline, anchors: &[&Anchor], into: &mut Vec<String>) {
    let named = symbols::named_by(anchors, outline);
    for (i, s) in outline.symbols.iter().enumerate() {
        if named[i] || s.parent.is_some_and(|p| named.get(p) == Some(&true)) {
            into.push(symbols::last_segment(&s.name).to_string());
        }
    }
}

/// The distinct identifier-like words of `line`: the only names it may
/// rebind (a name is looked up among the anchored ones, not each anchored
/// name tried against the line).
fn words(line: &str) -> impl Iterator<Item = &str> {
    let mut seen: HashSet<&str> = HashSet::new();
    line.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '\u{200c}' | '\u{200d}')))
        .filter(move |w| !w.is_empty() && seen.insert(w))
}

/// The changed lines (added and removed) of one hunk of `patch`.
fn changed_lines<'p>(patch: &'p str, hunk: &symbols::HunkLines) -> impl Iterator<Item = &'p str> {
    patch
        .get(hunk.header.1..hunk.end)
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.strip_prefix('+').or_else(|| l.strip_prefix('-')))
}

/// How each hunk of `symbols` (read from `patch`) concerns the symbols
/// `anchors` govern: in their extent on either side, or rebinding a name.
pub fn touching(
    sides: &Sides,
    symbols: &PatchSymbols,
    patch: &str,
    anchors: &[&Anchor],
) -> Vec<Touch> {
    let old = symbols::governed_by(anchors, &sides.old);
    let new = symbols::governed_by(anchors, &sides.new);
    let mut names: Vec<String> = Vec::new();
    rebindable(&sides.old, anchors, &mut names);
    rebindable(&sides.new, anchors, &mut names);
    // Plain names are looked up by the words of a line; a name that is
    // not one word (a quoted or computed key) is tried on every line.
    let (names, odd): (HashSet<String>, Vec<String>) = {
        let (plain, odd): (Vec<String>, Vec<String>) = names
            .into_iter()
            .partition(|n| words(n).next() == Some(n.as_str()));
        let mut odd = odd;
        odd.sort();
        odd.dedup();
        (plain.into_iter().collect(), odd)
    };
    symbols
        .hunks
        .iter()
        .map(|h| {
            if h.touched_old.iter().any(|&i| old.get(i) == Some(&true))
                || h.touched_new.iter().any(|&i| new.get(i) == Some(&true))
            {
                return Touch::Extent;
            }
            let rebinds = sides.lang.is_some_and(|lang| {
                changed_lines(patch, &h.lines).any(|line| {
                    // A line with a `*` may bind names it does not spell
                    // (`from m import *`): one anchored name tried on it
                    // tells, as that form binds every name alike.
                    let any = line.contains('*').then(|| names.iter().next()).flatten();
                    words(line)
                        .filter(|w| names.contains(*w))
                        .chain(any.map(String::as_str))
                        .chain(odd.iter().map(String::as_str))
                        .any(|n| symbols::rebinds(lang, line, n))
                })
            });
            if rebinds { Touch::Rebinds } else { Touch::No }
        })
        .collect()
}

/// The one verdict on a changed file for one spec, with how each hunk of
/// `symbols` concerns it (`anchors`: the spec's anchors on the file,
/// `None` when it governs the file whole). Behind [`narrow`] (the status,
/// `check`, `list_affected_specs`) and [`view`] (`get_spec_diff`), always
/// from the same sides: the merge base's and the work tree's.
///
/// Quiet only on proof: formatting-only when both sides parse and their
/// programs are the same (`symbols::program`); untouched when no hunk changes a line in an
/// anchored symbol's extent, on either side, and no changed line may
/// rebind an anchored name.
pub fn decide(
    sides: &Sides,
    symbols: &PatchSymbols,
    patch: &str,
    anchors: Option<&[&Anchor]>,
    include_formatting: bool,
) -> (Verdict, Vec<Touch>) {
    let all = || vec![Touch::Extent; symbols.hunks.len()];
    if !include_formatting && sides.formatting_only() {
        return (Verdict::FormattingOnly, all());
    }
    let Some(anchors) = anchors.filter(|_| !sides.whole_file()) else {
        return (Verdict::Affected, all());
    };
    let touched = touching(sides, symbols, patch, anchors);
    let verdict = if touched.iter().all(|t| *t == Touch::No) {
        Verdict::Untouched
    } else if !include_formatting
        && !touched.contains(&Touch::Rebinds)
        && governed_hashes(&sides.old, anchors) == governed_hashes(&sides.new, anchors)
    {
        Verdict::FormattingOnly
    } else {
        Verdict::Affected
    };
    (verdict, touched)
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
/// `file` and its `patch`: [`decide`], and the hunks it keeps.
pub fn view(
    sides: Option<&Sides>,
    patch: Patch,
    anchors: Option<&[&Anchor]>,
    include_formatting: bool,
) -> View {
    let (Some(sides), Patch::Text(text)) = (sides, &patch) else {
        return View::Show(patch);
    };
    let symbols = symbols::patch_symbols(&sides.old, &sides.new, text);
    match decide(sides, &symbols, text, anchors, include_formatting) {
        (Verdict::FormattingOnly, _) => View::FormattingOnly,
        (Verdict::Untouched, _) => View::Untouched,
        (Verdict::Affected, touched) => View::Show(Patch::Text(
            symbols.render(text, |i, _| touched[i] != Touch::No),
        )),
    }
}

/// Hunks of a file governed only through anchors that no anchor of any
/// spec saw: no spec reviews them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct OutsideAnchors {
    /// The file.
    pub path: String,
    /// Each unseen hunk's lines: `12` or `12-14` in the work tree, or
    /// `base 5-7 (removed)` for lines only removed.
    pub lines: Vec<String>,
    /// The first line of the work tree the first unseen hunk changed, when
    /// it added one.
    #[serde(skip)]
    pub first_line: Option<u32>,
}

impl OutsideAnchors {
    /// The unseen hunks of `symbols` (`seen[i]`: some spec saw hunk `i`).
    fn of(path: &str, symbols: &PatchSymbols, seen: &[bool]) -> Option<OutsideAnchors> {
        let range = |lines: &[symbols::Line]| match (lines.first(), lines.last()) {
            (Some(a), Some(b)) if a.0 == b.0 => a.0.to_string(),
            (Some(a), Some(b)) => format!("{}-{}", a.0, b.0),
            _ => String::new(),
        };
        let unseen: Vec<&symbols::HunkSymbols> = symbols
            .hunks
            .iter()
            .zip(seen)
            .filter(|(_, seen)| !**seen)
            .map(|(h, _)| h)
            .collect();
        let first = unseen.first()?;
        Some(OutsideAnchors {
            path: path.to_string(),
            lines: unseen
                .iter()
                .map(|h| {
                    if h.lines.added.is_empty() {
                        format!("base {} (removed)", range(&h.lines.removed))
                    } else {
                        range(&h.lines.added)
                    }
                })
                .collect(),
            first_line: first.lines.added.first().map(|l| l.0),
        })
    }
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
    /// Changed files whose programs are the same (formatting,
    /// comments only), affecting no spec unless formatting is included.
    pub formatting_only: Vec<String>,
    /// Anchors whose symbol the change removed.
    pub broken: Vec<BrokenAnchor>,
    /// Files governed only through anchors with hunks no anchor saw.
    pub outside_anchors: Vec<OutsideAnchors>,
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
        // The patch only when a spec anchors the file (a whole-file spec
        // needs no hunk to be affected).
        let text = governors
            .iter()
            .any(|&g| governance.anchors(g, path).is_some())
            .then(|| match changes.patch(file) {
                Ok(Patch::Text(t)) => Some(t),
                _ => None,
            })
            .flatten();
        let symbols = text
            .as_deref()
            .map(|t| symbols::patch_symbols(&sides.old, &sides.new, t));
        let mut kept = Vec::new();
        // Per hunk, whether some governor saw it.
        let mut seen = vec![false; symbols.as_ref().map_or(0, |s| s.hunks.len())];
        let mut whole = false;
        for &g in governors {
            let anchors = governance.anchors(g, path);
            whole |= anchors.is_none();
            let (verdict, touched) = match (&text, &symbols) {
                (Some(t), Some(symbols)) => {
                    decide(sides, symbols, t, anchors.as_deref(), include_formatting)
                }
                _ => (Verdict::Affected, Vec::new()),
            };
            for (seen, touch) in seen.iter_mut().zip(&touched) {
                *seen |= *touch != Touch::No;
            }
            if verdict == Verdict::Affected {
                kept.push(g);
            }
        }
        if !whole
            && !sides.whole_file()
            && let Some(symbols) = &symbols
            && let Some(unseen) = OutsideAnchors::of(path, symbols, &seen)
        {
            out.outside_anchors.push(unseen);
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
    /// Whether its programs are the same (`symbols::program`).
    Tokens,
    /// Its symbols on both sides.
    Symbols,
}

/// What [`learn`] found of one changed file.
enum Learned {
    /// Its programs are the same (`symbols::program`) (it needed only that).
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
    let mut seen: HashSet<&str> = HashSet::new();
    for path in paths {
        for anchor in governance.anchors(spec, path)? {
            if seen.insert(anchor.as_str()) {
                out.push(anchor);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str =
        "def check(user):\n    return user.is_admin\n\n\ndef other():\n    return 2\n";

    /// The verdict for the anchor `check` on `new`, and the unseen hunks.
    fn judge(new: &str) -> (Verdict, Option<OutsideAnchors>) {
        let sides = sides_of("a.py", OLD.as_bytes(), new.as_bytes()).unwrap();
        let patch = crate::changes::patch_between("a.py", OLD.as_bytes(), new.as_bytes()).unwrap();
        let Patch::Text(text) = patch else {
            panic!("a text patch")
        };
        let symbols = symbols::patch_symbols(&sides.old, &sides.new, &text);
        let anchor = Anchor::parse("check").unwrap();
        let (verdict, touched) = decide(&sides, &symbols, &text, Some(&[&anchor]), false);
        let seen: Vec<bool> = touched.iter().map(|t| *t != Touch::No).collect();
        (verdict, OutsideAnchors::of("a.py", &symbols, &seen))
    }

    #[test]
    fn one_verdict_names_its_proof() {
        // Inside the anchor's extent: affected.
        let (v, unseen) = judge(&OLD.replace("user.is_admin", "True"));
        assert_eq!((v, unseen), (Verdict::Affected, None));
        // A comment inside it: formatting only, the whole file too.
        let (v, _) = judge(&OLD.replace("user.is_admin", "user.is_admin  # why"));
        assert_eq!(v, Verdict::FormattingOnly);
        // Elsewhere: untouched, and the hunk is unseen.
        let (v, unseen) = judge(&OLD.replace("return 2", "return 3"));
        assert_eq!(v, Verdict::Untouched);
        let unseen = unseen.unwrap();
        assert_eq!(unseen.lines, vec!["6".to_string()]);
        assert_eq!(unseen.first_line, Some(6));
        // A rebinding elsewhere: affected, nothing unseen.
        let (v, unseen) = judge(&format!("{OLD}\ncheck = other\n"));
        assert_eq!((v, unseen), (Verdict::Affected, None));
        // Lines only removed are named by the base's numbers.
        let (_, unseen) = judge(&OLD.replace("\n\ndef other():\n    return 2\n", "\n"));
        assert_eq!(
            unseen.unwrap().lines,
            vec!["base 4-6 (removed)".to_string()]
        );
    }
}
