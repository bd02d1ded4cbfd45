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

use crate::changes::{Base, ChangeKind, ChangeSet, ChangedFile, GitRepo, MAX_DIFF_FILE, Patch};
use crate::governance::Governance;
use crate::state::Reconciled;
use crate::symbols::{self, Anchor, Lang, Outline, PatchSymbols, SymbolCache};

mod broken;
mod narrow;
mod reach;
mod reads;
mod rebound;
pub mod reviewed;
mod sides;

use rebound::Rebound;

pub use broken::*;
pub use narrow::*;
pub use sides::*;

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
    /// (`symbols::rebinds`): an assignment, a declaration, an import; or
    /// lies where the parser did not understand the file (it may hold
    /// anything).
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

/// How each hunk of `symbols` (read from `patch`) concerns the symbols
/// `anchors` govern: in their extent on either side, in a range the parser
/// did not understand, or rebinding a name (`rebound.rs`).
pub fn touching(
    sides: &Sides,
    symbols: &PatchSymbols,
    patch: &str,
    anchors: &[&Anchor],
) -> Vec<Touch> {
    let old = symbols::governed_by(anchors, &sides.old);
    let new = symbols::governed_by(anchors, &sides.new);
    let rebound = sides.lang.map(|lang| Rebound::of(lang, sides, anchors));
    let texts = sides.texts.each_ref().map(|t| String::from_utf8_lossy(t));
    let lines = texts.each_ref().map(|t| t.lines().collect::<Vec<&str>>());
    // Lines outside the anchored extents that reach them (`reach.rs`).
    let reaches = |h: &symbols::HunkLines| {
        sides.lang.is_some_and(|lang| {
            reach::reaches(lang, &sides.old, &sides.new, &old, &lines[0], &h.removed)
                || reach::reaches(lang, &sides.new, &sides.old, &new, &lines[1], &h.added)
        })
    };
    // Data an anchored symbol reads, declared outside it (`reads.rs`).
    let reads = reads::Reads::of([(&sides.old, &old, &lines[0]), (&sides.new, &new, &lines[1])]);
    let reads_changed = |h: &symbols::HunkSymbols| {
        reads.reached(&sides.old, &lines[0], &h.lines.removed, &h.touched_old)
            || reads.reached(&sides.new, &lines[1], &h.lines.added, &h.touched_new)
    };
    // Lines the parser did not understand may hold anything (the rest of
    // an anchored body, a rebinding): never quiet.
    let not_understood = |outline: &Outline, lines: &[symbols::Line]| {
        outline
            .damage
            .as_ref()
            .is_some_and(|d| lines.iter().any(|l| d.meets(l.0, l.0)))
    };
    symbols
        .hunks
        .iter()
        .map(|h| {
            if h.touched_old.iter().any(|&i| old.get(i) == Some(&true))
                || h.touched_new.iter().any(|&i| new.get(i) == Some(&true))
            {
                Touch::Extent
            } else if not_understood(&sides.old, &h.lines.removed)
                || not_understood(&sides.new, &h.lines.added)
                || reaches(&h.lines)
                || reads_changed(h)
                || rebound.as_ref().is_some_and(|r| {
                    r.live_elsewhere() || changed_lines(patch, &h.lines).any(|l| r.rebinds(l))
                })
            {
                Touch::Rebinds
            } else {
                Touch::No
            }
        })
        .collect()
}

/// The changed lines (added and removed) of one hunk of `patch`.
fn changed_lines<'p>(patch: &'p str, hunk: &symbols::HunkLines) -> impl Iterator<Item = &'p str> {
    patch
        .get(hunk.header.1..hunk.end)
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.strip_prefix('+').or_else(|| l.strip_prefix('-')))
}

/// The one verdict on a changed file for one spec, with how each hunk of
/// `symbols` concerns it (`anchors`: the spec's anchors on the file,
/// `None` when it governs the file whole). Behind [`narrow`] (the status,
/// `check`, `list_affected_specs`) and [`view`] (`get_spec_diff`), always
/// from the same sides: the merge base's and the work tree's.
///
/// Quiet only on proof: formatting-only when both sides parse and their
/// programs are the same (`symbols::program`); untouched when no hunk changes a line in an
/// anchored symbol's extent or a line the parser did not understand, on
/// either side, no changed line may rebind an anchored name (nor any other
/// line of the file: `rebound.rs`), and the anchored symbols are all there
/// with the same programs on both sides.
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
    let Some(anchors) = anchors.filter(|a| sides.whole_file_because(a).is_none()) else {
        return (Verdict::Affected, all());
    };
    let touched = touching(sides, symbols, patch, anchors);
    // The anchored symbols, each with its program, the same on both sides:
    // lines added around a symbol (`/*` ... `*/`, a docstring's quotes)
    // can remove it without touching a line of it.
    let same = governed_hashes(&sides.old, anchors) == governed_hashes(&sides.new, anchors);
    if !same {
        // The hunks that touch an anchored symbol show why; when none
        // does (the lines around it changed), every hunk is shown.
        let touched = if touched.iter().all(|t| *t == Touch::No) {
            all()
        } else {
            touched
        };
        return (Verdict::Affected, touched);
    }
    let verdict = if touched.iter().all(|t| *t == Touch::No) {
        Verdict::Untouched
    } else if !include_formatting && !touched.contains(&Touch::Rebinds) {
        Verdict::FormattingOnly
    } else {
        Verdict::Affected
    };
    (verdict, touched)
}

/// A changed file as one spec sees it.
pub enum View {
    /// Show it, with this patch (hunks attributed, for an anchored spec only
    /// the hunks touching its symbols), and whether hunks of the file's
    /// patch were left out (outside the anchors, formatting set apart).
    Show(Patch, bool),
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
        return View::Show(patch, false);
    };
    let symbols = symbols::patch_symbols(&sides.old, &sides.new, text);
    match decide(sides, &symbols, text, anchors, include_formatting) {
        (Verdict::FormattingOnly, _) => View::FormattingOnly,
        (Verdict::Untouched, _) => View::Untouched,
        (Verdict::Affected, touched) => View::Show(
            Patch::Text(symbols.render(text, |i, _| touched[i] != Touch::No)),
            touched.contains(&Touch::No),
        ),
    }
}

/// A changed file a spec anchors symbols of, governed whole instead, and
/// why: a side of it has no outline, or its symbol lies where the file
/// does not parse (or cannot be found there).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WholeFile {
    /// The file.
    pub path: String,
    /// The spec whose anchors fell back to the whole file.
    pub spec_path: String,
    /// Why, naming the line the parser stopped understanding when that is
    /// the reason.
    pub whole_file_because: String,
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

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str =
        "def check(user):\n    return user.is_admin\n\n\ndef other():\n    return 2\n";

    /// The verdict for the anchor `check` on `new`, and the unseen hunks.
    fn judge(new: &str) -> (Verdict, Option<OutsideAnchors>) {
        judge_from(OLD, new, "check")
    }

    /// The verdict for `anchor` from `old` to `new`, and the unseen hunks.
    fn judge_from(old: &str, new: &str, anchor: &str) -> (Verdict, Option<OutsideAnchors>) {
        let sides = sides_of(
            &crate::symbols::SymbolCache::new(),
            "a.py",
            old.as_bytes(),
            new.as_bytes(),
        )
        .unwrap();
        let patch = crate::changes::patch_between("a.py", old.as_bytes(), new.as_bytes()).unwrap();
        let Patch::Text(text) = patch else {
            panic!("a text patch")
        };
        let symbols = symbols::patch_symbols(&sides.old, &sides.new, &text);
        let anchor = Anchor::parse(anchor).unwrap();
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

    #[test]
    fn a_rebinding_elsewhere_in_the_file_shows_every_hunk() {
        let guard = |on: &str| format!("{OLD}\n\nON = {on}\nif ON:\n    check = other\n");
        let (v, _) = judge_from(&guard("False"), &guard("True"), "check");
        assert_eq!(v, Verdict::Affected);
        // A member: only a form that reaches a member counts outside its
        // owner; a local of the same name in another function does not.
        const CLS: &str = "class Session:\n    def refresh(self):\n        return 1\n";
        let local = |n: &str| format!("{CLS}\n\ndef third():\n    refresh = 1\n    return {n}\n");
        let (v, _) = judge_from(&local("1"), &local("2"), "Session.refresh");
        assert_eq!(v, Verdict::Untouched);
        let member = |n: &str| format!("{CLS}\n\nif {n}:\n    Session.refresh = len\n");
        let (v, _) = judge_from(&member("False"), &member("True"), "Session.refresh");
        assert_eq!(v, Verdict::Affected);
        // An alias written through.
        let alias = format!("{OLD}\n\nf = check\n");
        let (v, _) = judge_from(&alias, &format!("{alias}f.__defaults__ = (1,)\n"), "check");
        assert_eq!(v, Verdict::Affected);
        // An alias alone changes nothing anchored: a change elsewhere stays
        // outside the anchors.
        let (v, _) = judge_from(&alias, &alias.replace("return 2", "return 3"), "check");
        assert_eq!(v, Verdict::Untouched);
    }
}
