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

use super::{
    AffectedSpec, AffectedSpecs, ChangedArtifacts, PlanEntry, ReconciliationStatus, SpecDiff,
    SpecFile, SpecStatus,
};
use crate::changes::ChangeKind;
use crate::page::{
    CURSOR_JSON_LEN, CursorError, Layout, MaxTokens, escaped_len, fingerprint, json_len,
    next_cursor, requested_page, split_patch, split_text,
};

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

/// One changed file's diff in a `get_spec_diff` answer.
#[derive(Debug, Clone, Serialize)]
pub struct FilePatch {
    /// The governed paths it covers (both paths of a rename when both are governed).
    pub paths: Vec<String>,
    /// How it changed.
    pub status: ChangeKind,
    /// Its unified diff; `None` when binary or too large to load.
    pub patch: Option<String>,
}

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
    let specs = std::mem::take(&mut full.affected_specs);
    let invalid = std::mem::take(&mut full.invalid_specs);
    let deleted = std::mem::take(&mut full.deleted_specs);
    let changed = std::mem::take(&mut full.changed_files);
    let formatting = std::mem::take(&mut full.formatting_only);
    let broken = std::mem::take(&mut full.broken_anchors);
    full.page = MAX_PAGE;
    full.pages = MAX_PAGE;
    let mut layout = Layout::new(capacity(budget, json_len(&full)));

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
    LaidOut::new(LIST_AFFECTED_SPECS, fp, out)
}

/// Page of `get_reconciliation_status` named by `cursor` (the first
/// without): each spec's `unreconciled` files are cut across pages like
/// `list_affected_specs`' `matched_files`; `base`, `totals` and
/// `state_problem` are on every page.
pub fn status(
    mut full: ReconciliationStatus,
    args: &impl Serialize,
    max_tokens: Option<MaxTokens>,
    cursor: Option<&str>,
) -> Result<ReconciliationStatus, CursorError> {
    let budget = MaxTokens::budget(max_tokens);
    let fp = fingerprint(args, &full);
    let specs = std::mem::take(&mut full.specs);
    let drift = std::mem::take(&mut full.drift_notes);
    full.page = MAX_PAGE;
    full.pages = MAX_PAGE;
    let mut layout = Layout::new(capacity(budget, json_len(&full)));
    let mut spec_at: Vec<(usize, SpecStatus)> = Vec::new();
    for mut spec in specs {
        // The files to review, then the housekeeping ones, cut alike.
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
            let cost = json_len(&file) + 1;
            if cost > layout.room() {
                let continued = SpecStatus {
                    unreconciled: Vec::new(),
                    housekeeping: Vec::new(),
                    continued: true,
                    ..current.1.clone()
                };
                spec_at.push(std::mem::replace(&mut current, (0, continued)));
                layout.new_page();
                layout.consume(json_len(&current.1) + 1);
                current.0 = layout.current();
            }
            layout.consume(cost);
            if housekeeping {
                current.1.housekeeping.push(file);
            } else {
                current.1.unreconciled.push(file);
            }
        }
        spec_at.push(current);
    }
    let drift_at = place_all(&mut layout, &drift);
    let pages = layout.pages();
    let page = requested_page(cursor, GET_RECONCILIATION_STATUS, fp, pages)?;
    full.drift_notes = on_page(drift, &drift_at, page);
    full.specs = spec_at
        .into_iter()
        .filter(|(p, _)| *p == page)
        .map(|(_, s)| s)
        .collect();
    full.page = page + 1;
    full.pages = pages;
    full.next_cursor = next_cursor(GET_RECONCILIATION_STATUS, page, pages, fp);
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

/// Every page of a `get_spec_diff` answer.
pub type SpecDiffPages = LaidOut<SpecDiff>;

/// Every page of a `list_affected_specs` answer.
pub type AffectedPages = LaidOut<AffectedSpecs>;

/// One list field of a page, for placing its items.
type ListField = fn(&mut SpecDiff) -> &mut Vec<String>;

/// The layout of a `get_spec_diff` answer, every page at once. The first
/// pages hold the spec texts, the plan and the lists; the diffs follow.
/// Laying out a wide diff takes a while: the fingerprint, then each patch
/// measured, planned and split advances `progress`.
pub fn spec_diff_pages(
    mut full: SpecDiff,
    patches: Vec<FilePatch>,
    args: &impl Serialize,
    max_tokens: Option<MaxTokens>,
    progress: &crate::progress::Progress,
) -> SpecDiffPages {
    // Three passes over the patches (measuring, the plan, splitting), each
    // told; one more unit for the fingerprint of the whole answer.
    progress.begin(3 * patches.len() as u64 + 1, "laying out pages");
    let budget = MaxTokens::budget(max_tokens);
    let fp = fingerprint(args, &(&full, &patches));
    progress.advance(1);
    progress.flush();
    let files = std::mem::take(&mut full.files);
    let spec_changes = std::mem::take(&mut full.spec_changes);
    let system = full.system_spec.take();
    let skipped = std::mem::take(&mut full.skipped);
    let formatting = std::mem::take(&mut full.formatting_only);
    let outside = std::mem::take(&mut full.outside_anchors);
    let mut binary = std::mem::take(&mut full.binary_changes);
    let mut large = std::mem::take(&mut full.large_changes);
    let categories = std::mem::take(&mut full.file_categories);
    // Per-path facts go on the page of their path's plan entry; lists of
    // paths are placed like the skipped files: nothing unbounded is
    // repeated on every page.
    let shared = std::mem::take(&mut full.shared);
    let moved_out = std::mem::take(&mut full.moved_out);
    let since: std::collections::BTreeSet<String> = std::mem::take(&mut full.since_reconciled)
        .into_iter()
        .collect();
    let excluded = std::mem::take(&mut full.excluded);
    let housekeeping = std::mem::take(&mut full.housekeeping);
    let mut reasons = std::mem::take(&mut full.housekeeping_reasons);
    let already_read = std::mem::take(&mut full.already_read);
    let unreviewable = std::mem::take(&mut full.unreviewable);
    full.diff.clear();
    full.page = MAX_PAGE;
    full.pages = MAX_PAGE;
    let files_on_every_page = json_len(&files) <= budget / 4;
    let mut overhead = json_len(&full);
    if files_on_every_page {
        overhead += json_len(&files);
    }
    let cap = capacity(budget, overhead);
    let mut layout = Layout::new(cap);

    // Files with a line longer than a page cannot be shown: say so.
    let mut patches = patches;
    for file in &mut patches {
        progress.advance(1);
        if let Some(text) = &file.patch
            && escaped_len(text) > cap
            && split_patch(text, &mut Layout::new(cap)).is_err()
        {
            large.extend(file.paths.iter().cloned());
            file.patch = None;
        }
    }
    large.sort();
    large.dedup();
    binary.sort();
    binary.dedup();

    // Spec texts, in parts when longer than a page.
    let mut spec_at: Vec<(usize, SpecFile)> = Vec::new();
    for spec in spec_changes {
        let shell = SpecFile {
            path: spec.path.clone(),
            content: String::new(),
            deleted: spec.deleted,
        };
        for (page, content) in text_parts(&mut layout, json_len(&shell) + 1, &spec.content) {
            spec_at.push((
                page,
                SpecFile {
                    content,
                    ..shell.clone()
                },
            ));
        }
    }
    let mut system_at: Vec<(usize, super::SystemSpec)> = Vec::new();
    if let Some(system) = system {
        match &system.content {
            None => {
                let page = layout.place(json_len(&system));
                system_at.push((page, system));
            }
            Some(content) => {
                let shell = super::SystemSpec {
                    path: system.path.clone(),
                    content: Some(String::new()),
                };
                for (page, part) in text_parts(&mut layout, json_len(&shell), content) {
                    system_at.push((
                        page,
                        super::SystemSpec {
                            path: system.path.clone(),
                            content: Some(part),
                        },
                    ));
                }
            }
        }
    }

    // The plan, measured with the widest page numbers.
    let mut plan: Vec<(usize, PlanEntry, usize)> = Vec::new();
    for (index, file) in patches.iter().enumerate() {
        progress.advance(1);
        let (added, removed) = file
            .patch
            .as_deref()
            .map_or((0, 0), crate::page::line_counts);
        for path in &file.paths {
            let entry = PlanEntry {
                path: path.clone(),
                status: file.status,
                added,
                removed,
                bytes: file.patch.as_ref().map_or(0, |p| p.len() as u64),
                first_page: file.patch.as_ref().map(|_| MAX_PAGE),
                last_page: file.patch.as_ref().map(|_| MAX_PAGE),
            };
            let mut cost = json_len(&entry) + 1;
            if let Some(category) = categories.get(path) {
                cost += json_len(path) + json_len(category) + 2;
            }
            if let Some(others) = shared.get(path) {
                cost += json_len(path) + json_len(others) + 2;
            }
            if let Some(to) = moved_out.get(path) {
                cost += json_len(path) + json_len(to) + 2;
            }
            if since.contains(path) {
                cost += json_len(path) + 1;
            }
            if !files_on_every_page {
                cost += json_len(path) + 1;
            }
            plan.push((layout.place(cost), entry, index));
        }
    }
    let skipped_at = place_all(&mut layout, &skipped);
    let formatting_at = place_all(&mut layout, &formatting);
    let outside_at = place_all(&mut layout, &outside);
    let binary_at = place_all(&mut layout, &binary);
    let large_at = place_all(&mut layout, &large);
    let excluded_at = place_all(&mut layout, &excluded);
    let housekeeping_at: Vec<usize> = housekeeping
        .iter()
        .map(|p| {
            let reason = reasons.get(p).map_or(0, |r| json_len(p) + json_len(r) + 2);
            layout.place(json_len(p) + 1 + reason)
        })
        .collect();
    let already_read_at = place_all(&mut layout, &already_read);
    let unreviewable_at = place_all(&mut layout, &unreviewable);

    // The diffs.
    let mut diff_pages: BTreeMap<usize, String> = BTreeMap::new();
    let mut spans: Vec<Option<(usize, usize)>> = vec![None; patches.len()];
    for (index, file) in patches.iter().enumerate() {
        progress.advance(1);
        let Some(text) = &file.patch else { continue };
        let pieces = split_patch(text, &mut layout).expect("checked against the page size");
        let first = pieces.first().map_or(layout.current(), |p| p.0);
        let last = pieces.last().map_or(layout.current(), |p| p.0);
        spans[index] = Some((first + 1, last + 1));
        for (page, piece) in pieces {
            diff_pages.entry(page).or_default().push_str(&piece);
        }
    }
    for (_, entry, index) in &mut plan {
        let span = spans[*index];
        entry.first_page = span.map(|s| s.0);
        entry.last_page = span.map(|s| s.1);
    }

    let pages = layout.pages();
    // Every item goes to its page in one sweep.
    let mut out: Vec<SpecDiff> = (0..pages)
        .map(|page| {
            let mut p = full.clone();
            p.page = page + 1;
            p.pages = pages;
            p.next_cursor = next_cursor(GET_SPEC_DIFF, page, pages, fp);
            if page > 0 {
                p.spec = None;
            }
            p
        })
        .collect();
    let mut plans: Vec<Vec<PlanEntry>> = vec![Vec::new(); pages];
    let mut page_of: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (page, entry, _) in plan {
        page_of.insert(entry.path.clone(), page);
        plans[page].push(entry);
    }
    for (page, p) in out.iter_mut().enumerate() {
        p.files = if files_on_every_page {
            files.clone()
        } else {
            plans[page].iter().map(|e| e.path.clone()).collect()
        };
        p.file_categories = plans[page]
            .iter()
            .filter_map(|e| Some((e.path.clone(), categories.get(&e.path)?.clone())))
            .collect();
    }
    for (page, spec) in spec_at {
        out[page].spec_changes.push(spec);
    }
    for (page, system) in system_at {
        out[page].system_spec.get_or_insert(system);
    }
    for (path, others) in shared {
        if let Some(&page) = page_of.get(&path) {
            out[page].shared.insert(path, others);
        }
    }
    for (path, to) in moved_out {
        if let Some(&page) = page_of.get(&path) {
            out[page].moved_out.insert(path, to);
        }
    }
    for path in since {
        if let Some(&page) = page_of.get(&path) {
            out[page].since_reconciled.push(path);
        }
    }
    for (path, &page) in housekeeping.into_iter().zip(&housekeeping_at) {
        if let Some(reason) = reasons.remove(&path) {
            out[page].housekeeping_reasons.insert(path.clone(), reason);
        }
        out[page].housekeeping.push(path);
    }
    let lists: [(Vec<String>, &[usize], ListField); 7] = [
        (excluded, &excluded_at, |p| &mut p.excluded),
        (already_read, &already_read_at, |p| &mut p.already_read),
        (skipped, &skipped_at, |p| &mut p.skipped),
        (formatting, &formatting_at, |p| &mut p.formatting_only),
        (outside, &outside_at, |p| &mut p.outside_anchors),
        (binary, &binary_at, |p| &mut p.binary_changes),
        (large, &large_at, |p| &mut p.large_changes),
    ];
    for (items, at, field) in lists {
        for (item, &page) in items.into_iter().zip(at) {
            field(&mut out[page]).push(item);
        }
    }
    for (item, &page) in unreviewable.into_iter().zip(&unreviewable_at) {
        out[page].unreviewable.push(item);
    }
    for (page, diff) in diff_pages {
        out[page].diff = diff;
    }
    // One page shows every file in `diff`: the plan would only repeat it.
    for (p, plan) in out.iter_mut().zip(plans) {
        p.plan = (pages > 1).then_some(plan);
    }
    LaidOut::new(GET_SPEC_DIFF, fp, out)
}

/// The whole `get_spec_diff` answer on one page: every patch in `diff`,
/// every file in `plan` (its diff on page 1), nothing cut.
pub fn whole_spec_diff(mut full: SpecDiff, patches: Vec<FilePatch>) -> SpecDiff {
    let mut diff = String::new();
    let mut plan = Vec::new();
    for file in &patches {
        let (added, removed) = file
            .patch
            .as_deref()
            .map_or((0, 0), crate::page::line_counts);
        let shown = file.patch.as_ref().map(|_| 1);
        for path in &file.paths {
            plan.push(PlanEntry {
                path: path.clone(),
                status: file.status,
                added,
                removed,
                bytes: file.patch.as_ref().map_or(0, |p| p.len() as u64),
                first_page: shown,
                last_page: shown,
            });
        }
        if let Some(text) = &file.patch {
            diff.push_str(text);
        }
    }
    full.diff = diff;
    full.plan = Some(plan);
    full.binary_changes.sort();
    full.binary_changes.dedup();
    full.large_changes.sort();
    full.large_changes.dedup();
    full.page = 1;
    full.pages = 1;
    full.next_cursor = None;
    full
}

/// Place a text of `shell` fixed bytes plus `text`: whole when it fits a
/// page, else in consecutive parts, each on its own page.
fn text_parts(layout: &mut Layout, shell: usize, text: &str) -> Vec<(usize, String)> {
    let cost = shell + escaped_len(text);
    if cost <= layout.room() || cost <= layout.cap() {
        return vec![(layout.place(cost), text.to_string())];
    }
    if layout.room() < shell + 64 {
        layout.new_page();
    }
    let first_room = layout.room().saturating_sub(shell);
    let parts = split_text(text, first_room, layout.cap().saturating_sub(shell));
    let mut out = Vec::with_capacity(parts.len());
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            layout.new_page();
        }
        layout.consume(shell + escaped_len(&part));
        out.push((layout.current(), part));
    }
    out
}

/// Place each item of a list; returns each one's page.
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
