//! The paged tools' answers cut into pages: `list_affected_specs`,
//! `get_spec_diff` and `get_changed_artifacts`.
//!
//! Each function takes the whole answer (computed as if unbounded), lays
//! every item out on pages of the budget, and returns the requested page
//! with `page`, `pages` and `next_cursor` filled in. The fingerprint covers
//! the arguments and the whole answer, so a cursor is only honoured while
//! the answer is exactly the one it was cut from.

use std::collections::BTreeMap;

use serde::Serialize;

use super::proofs::proofs_of;
use super::{AffectedSpec, AffectedSpecs, ChangedArtifacts, ReconciliationStatus, SpecStatus};
use crate::page::{
    CURSOR_JSON_LEN, CursorError, Layout, MaxTokens, fingerprint, json_len, next_cursor,
    requested_page,
};

mod spec_diff;

pub use spec_diff::{FilePatch, spec_diff_pages, whole_spec_diff};

const LIST_AFFECTED_SPECS: u8 = 1;
const GET_SPEC_DIFF: u8 = 2;
const GET_CHANGED_ARTIFACTS: u8 = 3;
const GET_RECONCILIATION_STATUS: u8 = 4;
const GET_GOVERNING_SPECS: u8 = 5;

/// Bytes kept free on every page for what is not measured item by item
/// (the `next_cursor` key, separators, page numbers' digits).
const SLACK: usize = 64;

/// The largest page number, as measured when reserving room for page numbers.
const MAX_PAGE: usize = u32::MAX as usize;

/// Room for items on one page once the page's fixed part takes `overhead`.
fn capacity(budget: usize, overhead: usize) -> usize {
    budget
        .saturating_sub(overhead + CURSOR_JSON_LEN + SLACK)
        .max(256)
}

/// Page `page` (from 0) of `list_affected_specs`.
pub fn affected_specs_pages(
    mut full: AffectedSpecs,
    args: &impl Serialize,
    max_tokens: Option<MaxTokens>,
) -> AffectedPages {
    let budget = MaxTokens::budget(max_tokens);
    let fp = fingerprint(args, &full);
    let proofs_room = json_len(&proofs_of(full.quiet_verdicts()));
    let specs = std::mem::take(&mut full.affected_specs);
    let invalid = std::mem::take(&mut full.invalid_specs);
    let deleted = std::mem::take(&mut full.deleted_specs);
    let changed = std::mem::take(&mut full.changed_files);
    let formatting = std::mem::take(&mut full.formatting_only);
    let broken = std::mem::take(&mut full.broken_anchors);
    full.page = MAX_PAGE;
    full.pages = MAX_PAGE;
    let mut layout = Layout::new(capacity(budget, json_len(&full) + proofs_room));

    let mut spec_at: Vec<(usize, AffectedSpec)> = Vec::new();
    for mut spec in specs {
        let files = std::mem::take(&mut spec.matched_files);
        let page = layout.place(json_len(&spec) + 1);
        let mut current = (page, spec);
        for file in files {
            let cost = json_len(&file) + 1;
            if cost > layout.room() {
                let continued = AffectedSpec {
                    spec_path: current.1.spec_path.clone(),
                    intent: String::new(),
                    behaviors: Vec::new(),
                    constraints: Vec::new(),
                    invariants: Vec::new(),
                    matched_files: Vec::new(),
                    matched_count: current.1.matched_count,
                    unreconciled_count: current.1.unreconciled_count,
                    housekeeping_count: current.1.housekeeping_count,
                    all_reconciled: current.1.all_reconciled,
                    continued: true,
                };
                spec_at.push(std::mem::replace(&mut current, (0, continued)));
                layout.new_page();
                layout.consume(json_len(&current.1) + 1);
                current.0 = layout.current();
            }
            layout.consume(cost);
            current.1.matched_files.push(file);
        }
        spec_at.push(current);
    }
    let invalid_at = place_all(&mut layout, &invalid);
    let deleted_at = place_all(&mut layout, &deleted);
    let changed_at = place_all(&mut layout, &changed);
    let formatting_at = place_all(&mut layout, &formatting);
    let broken_at = place_all(&mut layout, &broken);

    let pages = layout.pages();
    let mut out: Vec<AffectedSpecs> = (0..pages)
        .map(|page| {
            let mut p = full.clone();
            p.page = page + 1;
            p.pages = pages;
            p.next_cursor = next_cursor(LIST_AFFECTED_SPECS, page, pages, fp);
            p
        })
        .collect();
    for (page, spec) in spec_at {
        out[page].affected_specs.push(spec);
    }
    for (item, &page) in invalid.into_iter().zip(&invalid_at) {
        out[page].invalid_specs.push(item);
    }
    for (item, &page) in deleted.into_iter().zip(&deleted_at) {
        out[page].deleted_specs.push(item);
    }
    for (item, &page) in changed.into_iter().zip(&changed_at) {
        out[page].changed_files.push(item);
    }
    for (item, &page) in formatting.into_iter().zip(&formatting_at) {
        out[page].formatting_only.push(item);
    }
    for (item, &page) in broken.into_iter().zip(&broken_at) {
        out[page].broken_anchors.push(item);
    }
    for p in &mut out {
        p.quiet_proofs = proofs_of(p.quiet_verdicts());
    }
    LaidOut::new(LIST_AFFECTED_SPECS, fp, out)
}

/// Page of `get_reconciliation_status` named by `cursor` (the first
/// without): each spec's `unreconciled` files are cut across pages like
/// `list_affected_specs`' `matched_files`, and the drift notes, decisions
/// and anchor lists likewise; `base`, `totals`, `state_problem` and
/// `top_scores` are on every page.
pub fn status(
    mut full: ReconciliationStatus,
    args: &impl Serialize,
    max_tokens: Option<MaxTokens>,
    cursor: Option<&str>,
) -> Result<ReconciliationStatus, CursorError> {
    let budget = MaxTokens::budget(max_tokens);
    let fp = fingerprint(args, &full);
    let proofs_room = json_len(&proofs_of(full.quiet_verdicts()));
    let specs = std::mem::take(&mut full.specs);
    let drift = std::mem::take(&mut full.drift_notes);
    let decisions = std::mem::take(&mut full.decisions);
    let outside = std::mem::take(&mut full.outside_anchors);
    let whole = std::mem::take(&mut full.whole_file_because);
    full.page = MAX_PAGE;
    full.pages = MAX_PAGE;
    let mut layout = Layout::new(capacity(budget, json_len(&full) + proofs_room));
    let mut spec_at: Vec<(usize, SpecStatus)> = Vec::new();
    for mut spec in specs {
        // The files to review, then the housekeeping ones, cut alike; each
        // housekeeping file's proof on the page that lists it.
        let mut reasons = std::mem::take(&mut spec.housekeeping_reasons);
        let files: Vec<(bool, String)> = std::mem::take(&mut spec.unreconciled)
            .into_iter()
            .map(|f| (false, f))
            .chain(
                std::mem::take(&mut spec.housekeeping)
                    .into_iter()
                    .map(|f| (true, f)),
            )
            .collect();
        let page = layout.place(json_len(&spec) + 1);
        let mut current = (page, spec);
        for (housekeeping, file) in files {
            let reason = housekeeping.then(|| reasons.remove(&file)).flatten();
            let cost =
                json_len(&file) + 1 + reason.map_or(0, |r| json_len(&file) + json_len(&r) + 2);
            if cost > layout.room() {
                let continued = SpecStatus {
                    unreconciled: Vec::new(),
                    housekeeping: Vec::new(),
                    housekeeping_reasons: BTreeMap::new(),
                    continued: true,
                    ..current.1.clone()
                };
                spec_at.push(std::mem::replace(&mut current, (0, continued)));
                layout.new_page();
                layout.consume(json_len(&current.1) + 1);
                current.0 = layout.current();
            }
            layout.consume(cost);
            if let Some(reason) = reason {
                current.1.housekeeping_reasons.insert(file.clone(), reason);
            }
            if housekeeping {
                current.1.housekeeping.push(file);
            } else {
                current.1.unreconciled.push(file);
            }
        }
        spec_at.push(current);
    }
    let drift_at = place_all(&mut layout, &drift);
    let decisions_at = place_all(&mut layout, &decisions);
    let outside_at = place_all(&mut layout, &outside);
    let whole_at = place_all(&mut layout, &whole);
    let pages = layout.pages();
    let page = requested_page(cursor, GET_RECONCILIATION_STATUS, fp, pages)?;
    full.drift_notes = on_page(drift, &drift_at, page);
    full.decisions = on_page(decisions, &decisions_at, page);
    full.outside_anchors = on_page(outside, &outside_at, page);
    full.whole_file_because = on_page(whole, &whole_at, page);
    full.specs = spec_at
        .into_iter()
        .filter(|(p, _)| *p == page)
        .map(|(_, s)| s)
        .collect();
    full.page = page + 1;
    full.pages = pages;
    full.next_cursor = next_cursor(GET_RECONCILIATION_STATUS, page, pages, fp);
    full.quiet_proofs = proofs_of(full.quiet_verdicts());
    Ok(full)
}

/// Page of `get_changed_artifacts` named by `cursor` (the first without).
pub fn changed_artifacts(
    mut full: ChangedArtifacts,
    args: &impl Serialize,
    max_tokens: Option<MaxTokens>,
    cursor: Option<&str>,
) -> Result<ChangedArtifacts, CursorError> {
    let budget = MaxTokens::budget(max_tokens);
    let fp = fingerprint(args, &full);
    let changed = std::mem::take(&mut full.changed_artifacts);
    full.page = MAX_PAGE;
    full.pages = MAX_PAGE;
    let mut layout = Layout::new(capacity(budget, json_len(&full)));
    let at = place_all(&mut layout, &changed);
    let pages = layout.pages();
    let page = requested_page(cursor, GET_CHANGED_ARTIFACTS, fp, pages)?;
    full.changed_artifacts = on_page(changed, &at, page);
    full.page = page + 1;
    full.pages = pages;
    full.next_cursor = next_cursor(GET_CHANGED_ARTIFACTS, page, pages, fp);
    Ok(full)
}

/// Every page of an answer, laid out once: what the long-lived server
/// keeps, so that each next page is a copy of one page.
#[derive(Debug, Clone)]
pub struct LaidOut<T> {
    /// The tool whose cursors these pages answer.
    tool: u8,
    /// The fingerprint of the whole answer, which its cursors carry.
    fp: [u8; 16],
    /// The pages, first to last.
    pages: Vec<T>,
    /// About how many bytes the pages hold (for the kept answers' bound).
    pub bytes: usize,
}

impl<T: Clone + Serialize> LaidOut<T> {
    fn new(tool: u8, fp: [u8; 16], pages: Vec<T>) -> LaidOut<T> {
        let bytes = pages.iter().map(json_len).sum();
        LaidOut {
            tool,
            fp,
            pages,
            bytes,
        }
    }

    /// The page `cursor` names (the first without).
    pub fn page(&self, cursor: Option<&str>) -> Result<T, CursorError> {
        let page = requested_page(cursor, self.tool, self.fp, self.pages.len())?;
        Ok(self.pages[page].clone())
    }
}

/// Every page of a `list_affected_specs` answer.
pub type AffectedPages = LaidOut<AffectedSpecs>;

/// Page of `get_governing_specs` named by `cursor` (the first without):
/// the files first, then the specs' texts, each whole.
pub fn governing(
    mut full: super::GoverningSpecs,
    args: &impl Serialize,
    max_tokens: Option<MaxTokens>,
    cursor: Option<&str>,
) -> Result<super::GoverningSpecs, CursorError> {
    let budget = MaxTokens::budget(max_tokens);
    let fp = fingerprint(args, &full);
    let files = std::mem::take(&mut full.files);
    let specs = std::mem::take(&mut full.specs);
    full.page = MAX_PAGE;
    full.pages = MAX_PAGE;
    let mut layout = Layout::new(capacity(budget, json_len(&full)));
    let files_at = place_all(&mut layout, &files);
    let specs_at = place_all(&mut layout, &specs);
    let pages = layout.pages();
    let page = requested_page(cursor, GET_GOVERNING_SPECS, fp, pages)?;
    full.files = on_page(files, &files_at, page);
    full.specs = on_page(specs, &specs_at, page);
    full.page = page + 1;
    full.pages = pages;
    full.next_cursor = next_cursor(GET_GOVERNING_SPECS, page, pages, fp);
    Ok(full)
}

/// Place each item of a list; returns each one's page.
fn place_all<T: Serialize>(layout: &mut Layout, items: &[T]) -> Vec<usize> {
    items
        .iter()
        .map(|item| layout.place(json_len(item) + 1))
        .collect()
}

/// The items placed on `page`.
fn on_page<T>(items: Vec<T>, at: &[usize], page: usize) -> Vec<T> {
    items
        .into_iter()
        .zip(at)
        .filter(|(_, p)| **p == page)
        .map(|(item, _)| item)
        .collect()
}
