//! A `get_spec_diff` answer on pages: every page laid out at once (the
//! long-lived server keeps them), or the whole answer on one page for
//! `notarai export-context`.
//!
//! The first pages hold the spec texts, the plan and the lists; the diffs
//! follow. Per-path facts (category, other specs sharing the file, a move
//! out, a diff since the last reconciliation) go on the page of their
//! path's plan entry; lists of paths are placed item by item: nothing
//! unbounded is repeated on every page.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::{GET_SPEC_DIFF, LaidOut, MAX_PAGE, capacity, place_all};
use crate::changes::ChangeKind;
use crate::page::{
    Layout, MaxTokens, escaped_len, fingerprint, json_len, next_cursor, split_patch, split_text,
};
use crate::review::proofs::proofs_of;
use crate::review::{PlanEntry, Quiet, SpecDiff, SpecFile, SystemSpec, Unreviewable};

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

impl FilePatch {
    /// The plan entry of `path`, one of its paths, its diff shown from page
    /// `first` to `last` (`None` when it has no diff).
    fn plan_entry(&self, path: &str, shown: Option<(usize, usize)>) -> PlanEntry {
        let (added, removed) = self
            .patch
            .as_deref()
            .map_or((0, 0), crate::page::line_counts);
        PlanEntry {
            path: path.to_string(),
            status: self.status,
            added,
            removed,
            bytes: self.patch.as_ref().map_or(0, |p| p.len() as u64),
            first_page: shown.map(|s| s.0),
            last_page: shown.map(|s| s.1),
        }
    }
}

/// Every page of a `get_spec_diff` answer.
pub type SpecDiffPages = LaidOut<SpecDiff>;

/// One list field of a page, for placing its items.
type ListField = fn(&mut SpecDiff) -> &mut Vec<String>;

/// What the layout takes out of the whole answer to place item by item;
/// what is left of the answer is on every page.
struct Items {
    files: Vec<String>,
    spec_changes: Vec<SpecFile>,
    system: Option<SystemSpec>,
    categories: BTreeMap<String, String>,
    shared: BTreeMap<String, Vec<String>>,
    moved_out: BTreeMap<String, String>,
    whole: BTreeMap<String, String>,
    since: BTreeSet<String>,
    housekeeping: Vec<String>,
    reasons: BTreeMap<String, Quiet>,
    unreviewable: Vec<Unreviewable>,
    skipped: Vec<String>,
    formatting: Vec<String>,
    outside: Vec<String>,
    binary: Vec<String>,
    large: Vec<String>,
    excluded: Vec<String>,
    already_read: Vec<String>,
    /// Each shown file's `read_ids` entry, by path.
    read_ids: BTreeMap<String, String>,
    read_again: BTreeMap<String, String>,
}

impl Items {
    /// Take the items out of `full`.
    fn take(full: &mut SpecDiff) -> Items {
        use std::mem::take;
        Items {
            files: take(&mut full.files),
            spec_changes: take(&mut full.spec_changes),
            system: full.system_spec.take(),
            categories: take(&mut full.file_categories),
            shared: take(&mut full.shared),
            moved_out: take(&mut full.moved_out),
            whole: take(&mut full.whole_file_because),
            since: take(&mut full.since_reconciled).into_iter().collect(),
            housekeeping: take(&mut full.housekeeping),
            reasons: take(&mut full.housekeeping_reasons),
            unreviewable: take(&mut full.unreviewable),
            skipped: take(&mut full.skipped),
            formatting: take(&mut full.formatting_only),
            outside: take(&mut full.outside_anchors),
            binary: take(&mut full.binary_changes),
            large: take(&mut full.large_changes),
            excluded: take(&mut full.excluded_files),
            already_read: take(&mut full.already_read),
            read_ids: take(&mut full.read_ids)
                .into_iter()
                .map(|entry| {
                    let path = entry.rsplit_once('@').map_or(&*entry, |(p, _)| p);
                    (path.to_string(), entry.clone())
                })
                .collect(),
            read_again: take(&mut full.read_again),
        }
    }

    /// What `path`'s plan entry costs beyond the entry: its per-path facts,
    /// and its name in `files` when `files` is not on every page.
    fn facts_cost(&self, path: &String, files_on_every_page: bool) -> usize {
        let mut cost = 0;
        if let Some(category) = self.categories.get(path) {
            cost += json_len(path) + json_len(category) + 2;
        }
        if let Some(others) = self.shared.get(path) {
            cost += json_len(path) + json_len(others) + 2;
        }
        if let Some(to) = self.moved_out.get(path) {
            cost += json_len(path) + json_len(to) + 2;
        }
        if let Some(why) = self.whole.get(path) {
            cost += json_len(path) + json_len(why) + 2;
        }
        if self.since.contains(path) {
            cost += json_len(path) + 1;
        }
        if let Some(entry) = self.read_ids.get(path) {
            cost += json_len(entry) + 1;
        }
        if let Some(why) = self.read_again.get(path) {
            cost += json_len(path) + json_len(why) + 2;
        }
        if !files_on_every_page {
            cost += json_len(path) + 1;
        }
        cost
    }
}

/// The page of each item of the lists, in the order they are placed.
struct ListsAt {
    skipped: Vec<usize>,
    formatting: Vec<usize>,
    outside: Vec<usize>,
    binary: Vec<usize>,
    large: Vec<usize>,
    excluded: Vec<usize>,
    housekeeping: Vec<usize>,
    already_read: Vec<usize>,
    unreviewable: Vec<usize>,
}

/// A plan entry on its page, with the index of its patch.
type Planned = (usize, PlanEntry, usize);

/// The layout of a `get_spec_diff` answer, every page at once. The first
/// pages hold the spec texts, the plan and the lists; the diffs follow.
/// Laying out a wide diff takes a while: the fingerprint, then each patch
/// measured, planned and split advances `progress`.
pub fn spec_diff_pages(
    mut full: SpecDiff,
    mut patches: Vec<FilePatch>,
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
    // Room for the proofs of the quiet verdicts, on any page that gives one.
    let proofs_room = json_len(&proofs_of(full.quiet_verdicts()));
    let mut items = Items::take(&mut full);
    full.diff.clear();
    full.page = MAX_PAGE;
    full.pages = MAX_PAGE;
    let files_on_every_page = json_len(&items.files) <= budget / 4;
    let mut overhead = json_len(&full) + proofs_room;
    if files_on_every_page {
        overhead += json_len(&items.files);
    }
    let cap = capacity(budget, overhead);
    let mut layout = Layout::new(cap);
    cut_unshowable(&mut patches, cap, &mut items.large, progress);
    items.large.sort();
    items.large.dedup();
    items.binary.sort();
    items.binary.dedup();
    let spec_at = place_specs(&mut layout, std::mem::take(&mut items.spec_changes));
    let system_at = place_system(&mut layout, items.system.take());
    let mut plan = place_plan(&mut layout, &patches, &items, files_on_every_page, progress);
    let lists_at = place_lists(&mut layout, &items);
    let diff_pages = place_diffs(&mut layout, &patches, &mut plan, progress);

    let pages = layout.pages();
    let mut out: Vec<SpecDiff> = (0..pages)
        .map(|page| {
            let mut p = full.clone();
            p.page = page + 1;
            p.pages = pages;
            p.next_cursor = next_cursor(GET_SPEC_DIFF, page, pages, fp);
            if page > 0 {
                p.spec = None;
                p.applied.clear();
                p.emptied_globs.clear();
            }
            p
        })
        .collect();
    // Every item goes to its page in one sweep.
    let plans = fill_plans(&mut out, plan, &mut items, files_on_every_page);
    for (page, spec) in spec_at {
        out[page].spec_changes.push(spec);
    }
    for (page, system) in system_at {
        out[page].system_spec.get_or_insert(system);
    }
    fill_lists(&mut out, items, &lists_at);
    for (page, diff) in diff_pages {
        out[page].diff = diff;
    }
    // One page shows every file in `diff`: the plan would only repeat it.
    for (p, plan) in out.iter_mut().zip(plans) {
        p.plan = (pages > 1).then_some(plan);
        p.quiet_proofs = proofs_of(p.quiet_verdicts());
    }
    LaidOut::new(GET_SPEC_DIFF, fp, out)
}

/// Files with a line longer than a page cannot be shown: their patch is
/// dropped and their paths listed in `large`.
fn cut_unshowable(
    patches: &mut [FilePatch],
    cap: usize,
    large: &mut Vec<String>,
    progress: &crate::progress::Progress,
) {
    for file in patches {
        progress.advance(1);
        if let Some(text) = &file.patch
            && escaped_len(text) > cap
            && split_patch(text, &mut Layout::new(cap)).is_err()
        {
            large.extend(file.paths.iter().cloned());
            file.patch = None;
        }
    }
}

/// The spec texts, in parts when longer than a page.
fn place_specs(layout: &mut Layout, spec_changes: Vec<SpecFile>) -> Vec<(usize, SpecFile)> {
    let mut spec_at = Vec::new();
    for spec in spec_changes {
        // Its text and its diff in one entry when they fit on a page.
        let cost = json_len(&spec) + 1;
        if !spec.diff.is_empty() && (cost <= layout.room() || cost <= layout.cap()) {
            spec_at.push((layout.place(cost), spec));
            continue;
        }
        let shell = SpecFile {
            path: spec.path.clone(),
            content: String::new(),
            diff: String::new(),
            deleted: spec.deleted,
        };
        for (page, content) in text_parts(layout, json_len(&shell) + 1, &spec.content) {
            spec_at.push((
                page,
                SpecFile {
                    content,
                    ..shell.clone()
                },
            ));
        }
        // Else its diff after its text, in parts as well (entries with an
        // empty `content`).
        if !spec.diff.is_empty() {
            for (page, diff) in text_parts(layout, json_len(&shell) + 10, &spec.diff) {
                spec_at.push((
                    page,
                    SpecFile {
                        diff,
                        ..shell.clone()
                    },
                ));
            }
        }
    }
    spec_at
}

/// The system spec: its path alone, or its text in parts when longer than
/// a page.
fn place_system(layout: &mut Layout, system: Option<SystemSpec>) -> Vec<(usize, SystemSpec)> {
    let Some(system) = system else {
        return Vec::new();
    };
    let Some(content) = &system.content else {
        let page = layout.place(json_len(&system));
        return vec![(page, system)];
    };
    let shell = SystemSpec {
        path: system.path.clone(),
        content: Some(String::new()),
        text_id: system.text_id.clone(),
    };
    text_parts(layout, json_len(&shell), content)
        .into_iter()
        .map(|(page, part)| {
            let part = SystemSpec {
                path: system.path.clone(),
                content: Some(part),
                text_id: system.text_id.clone(),
            };
            (page, part)
        })
        .collect()
}

/// The plan, each entry measured with the widest page numbers and its
/// path's facts.
fn place_plan(
    layout: &mut Layout,
    patches: &[FilePatch],
    items: &Items,
    files_on_every_page: bool,
    progress: &crate::progress::Progress,
) -> Vec<Planned> {
    let mut plan = Vec::new();
    for (index, file) in patches.iter().enumerate() {
        progress.advance(1);
        let widest = file.patch.as_ref().map(|_| (MAX_PAGE, MAX_PAGE));
        for path in &file.paths {
            let entry = file.plan_entry(path, widest);
            let cost = json_len(&entry) + 1 + items.facts_cost(path, files_on_every_page);
            plan.push((layout.place(cost), entry, index));
        }
    }
    plan
}

/// Every list, item by item, after the plan.
fn place_lists(layout: &mut Layout, items: &Items) -> ListsAt {
    let skipped = place_all(layout, &items.skipped);
    let formatting = place_all(layout, &items.formatting);
    let outside = place_all(layout, &items.outside);
    let binary = place_all(layout, &items.binary);
    let large = place_all(layout, &items.large);
    let excluded = place_all(layout, &items.excluded);
    let housekeeping = items
        .housekeeping
        .iter()
        .map(|p| {
            let reason = items
                .reasons
                .get(p)
                .map_or(0, |r| json_len(p) + json_len(r) + 2);
            layout.place(json_len(p) + 1 + reason)
        })
        .collect();
    let already_read = place_all(layout, &items.already_read);
    let unreviewable = place_all(layout, &items.unreviewable);
    ListsAt {
        skipped,
        formatting,
        outside,
        binary,
        large,
        excluded,
        housekeeping,
        already_read,
        unreviewable,
    }
}

/// The diffs, split at file, hunk and line boundaries, after everything
/// else; each plan entry learns the pages of its diff.
fn place_diffs(
    layout: &mut Layout,
    patches: &[FilePatch],
    plan: &mut [Planned],
    progress: &crate::progress::Progress,
) -> BTreeMap<usize, String> {
    let mut diff_pages: BTreeMap<usize, String> = BTreeMap::new();
    let mut spans: Vec<Option<(usize, usize)>> = vec![None; patches.len()];
    for (index, file) in patches.iter().enumerate() {
        progress.advance(1);
        let Some(text) = &file.patch else { continue };
        let pieces = split_patch(text, layout).expect("checked against the page size");
        let first = pieces.first().map_or(layout.current(), |p| p.0);
        let last = pieces.last().map_or(layout.current(), |p| p.0);
        spans[index] = Some((first + 1, last + 1));
        for (page, piece) in pieces {
            diff_pages.entry(page).or_default().push_str(&piece);
        }
    }
    for (_, entry, index) in plan {
        let span = spans[*index];
        entry.first_page = span.map(|s| s.0);
        entry.last_page = span.map(|s| s.1);
    }
    diff_pages
}

/// Each page's plan entries, `files` (every file, or the page's) and
/// categories, then the per-path facts on the page of their path's entry.
/// The plans, page by page.
fn fill_plans(
    out: &mut [SpecDiff],
    plan: Vec<Planned>,
    items: &mut Items,
    files_on_every_page: bool,
) -> Vec<Vec<PlanEntry>> {
    let mut plans: Vec<Vec<PlanEntry>> = vec![Vec::new(); out.len()];
    let mut page_of: HashMap<String, usize> = HashMap::new();
    for (page, entry, _) in plan {
        page_of.insert(entry.path.clone(), page);
        plans[page].push(entry);
    }
    for (page, p) in out.iter_mut().enumerate() {
        p.files = if files_on_every_page {
            items.files.clone()
        } else {
            plans[page].iter().map(|e| e.path.clone()).collect()
        };
        p.file_categories = plans[page]
            .iter()
            .filter_map(|e| Some((e.path.clone(), items.categories.get(&e.path)?.clone())))
            .collect();
    }
    for (path, others) in std::mem::take(&mut items.shared) {
        if let Some(&page) = page_of.get(&path) {
            out[page].shared.insert(path, others);
        }
    }
    for (path, to) in std::mem::take(&mut items.moved_out) {
        if let Some(&page) = page_of.get(&path) {
            out[page].moved_out.insert(path, to);
        }
    }
    for (path, why) in std::mem::take(&mut items.whole) {
        if let Some(&page) = page_of.get(&path) {
            out[page].whole_file_because.insert(path, why);
        }
    }
    for path in std::mem::take(&mut items.since) {
        if let Some(&page) = page_of.get(&path) {
            out[page].since_reconciled.push(path);
        }
    }
    for (path, entry) in std::mem::take(&mut items.read_ids) {
        if let Some(&page) = page_of.get(&path) {
            out[page].read_ids.push(entry);
        }
    }
    for (path, why) in std::mem::take(&mut items.read_again) {
        if let Some(&page) = page_of.get(&path) {
            out[page].read_again.insert(path, why);
        }
    }
    plans
}

/// Each list's items on their pages.
fn fill_lists(out: &mut [SpecDiff], mut items: Items, at: &ListsAt) {
    for (path, &page) in items.housekeeping.into_iter().zip(&at.housekeeping) {
        if let Some(reason) = items.reasons.remove(&path) {
            out[page].housekeeping_reasons.insert(path.clone(), reason);
        }
        out[page].housekeeping.push(path);
    }
    let lists: [(Vec<String>, &[usize], ListField); 7] = [
        (items.excluded, &at.excluded, |p| &mut p.excluded_files),
        (items.already_read, &at.already_read, |p| {
            &mut p.already_read
        }),
        (items.skipped, &at.skipped, |p| &mut p.skipped),
        (items.formatting, &at.formatting, |p| &mut p.formatting_only),
        (items.outside, &at.outside, |p| &mut p.outside_anchors),
        (items.binary, &at.binary, |p| &mut p.binary_changes),
        (items.large, &at.large, |p| &mut p.large_changes),
    ];
    for (list, at, field) in lists {
        for (item, &page) in list.into_iter().zip(at) {
            field(&mut out[page]).push(item);
        }
    }
    for (item, &page) in items.unreviewable.into_iter().zip(&at.unreviewable) {
        out[page].unreviewable.push(item);
    }
}

/// The whole `get_spec_diff` answer on one page: every patch in `diff`,
/// every file in `plan` (its diff on page 1), nothing cut.
pub fn whole_spec_diff(mut full: SpecDiff, patches: Vec<FilePatch>) -> SpecDiff {
    let mut diff = String::new();
    let mut plan = Vec::new();
    for file in &patches {
        let shown = file.patch.as_ref().map(|_| (1, 1));
        for path in &file.paths {
            plan.push(file.plan_entry(path, shown));
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
    full.quiet_proofs = proofs_of(full.quiet_verdicts());
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
