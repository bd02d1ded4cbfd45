//! A change set narrowed to what each spec's anchors see: the specs
//! affected, the files formatting-only, the broken anchors.

use super::*;

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
    /// Anchored files governed whole, per spec, and why.
    pub whole_file: Vec<WholeFile>,
}

/// Narrow `governed` (each changed path with its governing specs) to the
/// specs each change affects, as the module header says. A path whose
/// list comes back empty affects no spec. With `known` (the reviews that
/// count), a spec a file is shown for from the base is dropped when the
/// file's content now has the same program as a content a proven review
/// for that spec names ([`reviewed::same_as_reviewed`]); a file left with
/// no spec by that rule is listed as formatting-only.
#[allow(clippy::too_many_arguments)]
pub fn narrow(
    root: &Path,
    git: &GitRepo,
    base: &Base,
    changes: &ChangeSet<'_>,
    governance: &Governance,
    governed: &[(String, Vec<usize>)],
    include_formatting: bool,
    known: Option<&Reconciled>,
) -> Narrowed {
    let mut out = from_base(
        root,
        git,
        base,
        changes,
        governance,
        governed,
        include_formatting,
    );
    if let Some(known) = known.filter(|_| !include_formatting) {
        reviewed::quiet_reviewed(root, git, changes, governance, known, &mut out);
    }
    out
}

/// [`narrow`] from the merge base alone: the one verdict of [`decide`].
fn from_base(
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
            if let Some(why) = anchors.as_deref().and_then(|a| sides.whole_file_because(a)) {
                out.whole_file.push(WholeFile {
                    path: path.clone(),
                    spec_path: governance.spec_path(g).to_string(),
                    whole_file_because: why,
                });
            }
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
pub(super) enum Need {
    /// Whether its programs are the same (`symbols::program`).
    Tokens,
    /// Its symbols on both sides.
    Symbols,
}

/// What [`learn`] found of one changed file.
pub(super) enum Learned {
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
pub(super) fn learn<'a>(
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
    let kept = git.symbols();
    let learned = with_kept_facts(root, git, contents, || {
        crate::parallel::map(
            &read,
            8,
            |(need, contents)| match (need, contents) {
                (_, None) => Learned::Nothing,
                (Need::Symbols, Some(c)) => Learned::Sides(c.outline(kept)),
                (Need::Tokens, Some(c)) if c.formatting_only(kept) => Learned::FormattingOnly,
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
