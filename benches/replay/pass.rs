//! One reconciliation pass, played deterministically from the installed
//! skill's steps: every tool a step says to call, in the skill's order,
//! every page (`next_cursor`) read, and what the skill says to mark marked.
//!
//! What each named tool means here (the agent's part, with no judgement):
//! - `get_reconciliation_status`: called with the base; when its step says
//!   to stop and `nothing_to_review` is true, the pass records the status's
//!   `housekeeping` files (and snapshots) when there are any, and ends.
//! - `list_affected_specs`: the first call takes stock; a later one (after
//!   fixing an invalid spec) only happens when a spec is invalid, which our
//!   specs never are: that is an error of the replay. When its step says
//!   to call it "Only when the status lists" invalid or deleted specs and
//!   the status lists none, it is not called.
//! - a step without a tool that says to stop when `affected_specs` is empty:
//!   the pass ends when nothing is affected, invalid or deleted.
//! - `get_spec_diff`: per affected spec not `all_reconciled` (from
//!   `list_affected_specs` when it was called, else each spec of the first
//!   status with `unreconciled` files), with the
//!   `exclude_patterns` list the step gives (when it gives one) and, when
//!   the step names `already_read`, the `read_ids` of the diffs read
//!   before; when it names `specs_read`, the specs whose text (`spec`,
//!   `applied`, `system_spec`) an earlier answer of this pass gave, as
//!   `path@text_id`
//!   (one server, one session per pass: a text is held within the pass).
//! - `get_changed_artifacts`: per diffed spec that has a `docs` category,
//!   when its step asks for `artifact_type: "docs"` (a skill that takes the
//!   docs from the diff's `file_categories` asks for none).
//! - `mark_reconciled`: with the base when the step names `base_branch`;
//!   the `files`, `housekeeping` and `already_read` of every diff, the spec files of every `spec_changes`, and the status's
//!   `housekeeping` files (and its `formatting_only` files when the skill's
//!   record step names them).
//! - `get_reconciliation_status` in the record step: skipped when the
//!   record's `left` is 0 and the step says that ends the pass.
//! - `snapshot_state`: then the state file is committed, as the step says.
//! - `emptied_globs` of a diff, when the step names them: the one edit a
//!   replay pass makes (the user approves it): each glob's `- path:` line is
//!   removed from the spec, the spec committed, and recorded with the pass.
//! - `get_governing_specs`: before an edit; a replay pass proposes no other
//!   edit, so it is not called.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Result, bail};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::client::{Server, ToolReply};
use crate::repo::{self, Governed};
use crate::skill::Step;

/// One tool call of a pass.
#[derive(Debug, Clone)]
pub struct Call {
    /// Tool name.
    pub tool: String,
    /// Text bytes of the answer.
    pub bytes: usize,
    /// Milliseconds to the answer.
    pub ms: f64,
    /// The answer (its structured content), for `--dump`.
    pub payload: Value,
}

/// A spec the pass asked to review, with the files it served.
#[derive(Debug, Clone)]
pub struct Flag {
    /// The spec file.
    pub spec: String,
    /// The `files` of its diff (every page).
    pub files: Vec<String>,
    /// The spec files of its `spec_changes`.
    pub spec_changes: Vec<String>,
}

/// What one pass read and did.
#[derive(Debug, Default)]
pub struct PassOutcome {
    /// Every call, in order.
    pub calls: Vec<Call>,
    /// Specs with something to review.
    pub flags: Vec<Flag>,
    /// Files recorded with `mark_reconciled`.
    pub marked: usize,
    /// Where the pass ended early, if it did.
    pub stopped: Option<String>,
}

impl PassOutcome {
    /// Text bytes of every answer.
    pub fn bytes(&self) -> usize {
        self.calls.iter().map(|c| c.bytes).sum()
    }
}

/// `get_reconciliation_status`, the part used.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Status {
    /// Counts over the pass.
    totals: Totals,
    /// Whether the pass can stop here (newer servers).
    nothing_to_review: Option<bool>,
    /// Per affected spec.
    specs: Vec<SpecStatus>,
    /// Specs that fail to load.
    invalid_specs: Vec<Value>,
    /// Specs deleted on the branch.
    deleted_specs: Vec<Value>,
    /// Files changed in formatting or comments only, not recorded yet.
    formatting_only: Vec<String>,
}

/// One spec of the status, the part used.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SpecStatus {
    /// The spec file.
    spec_path: String,
    /// Files that need a review.
    unreconciled_count: usize,
    /// Files that need no review, only recording.
    housekeeping: Vec<String>,
}

/// Its totals.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Totals {
    /// Files left to reconcile.
    unreconciled: usize,
}

/// `list_affected_specs`, the part used.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Affected {
    /// Affected specs (an entry may continue the one above).
    affected_specs: Vec<AffectedSpec>,
    /// Specs that fail to load.
    invalid_specs: Vec<Value>,
    /// Specs deleted on the branch.
    deleted_specs: Vec<Value>,
}

/// One affected spec entry.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct AffectedSpec {
    /// The spec file.
    spec_path: String,
    /// Nothing of it left to review.
    all_reconciled: bool,
}

/// `get_spec_diff`, the part used.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SpecDiff {
    /// Files whose diff is served.
    files: Vec<String>,
    /// Files that need no review, only recording.
    housekeeping: Vec<String>,
    /// Files not diffed again (read for another spec).
    already_read: Vec<String>,
    /// `path@id` of each file whose diff is served.
    read_ids: Vec<String>,
    /// The cross-cutting specs applied, with their ids.
    applied: Vec<SpecText>,
    /// Files changed in formatting or comments only (since reviewed).
    formatting_only: Vec<String>,
    /// Files whose hunks touch none of an anchored spec's symbols.
    outside_anchors: Vec<String>,
    /// Changed spec files, with their text.
    spec_changes: Vec<SpecChange>,
    /// The spec's globs that match only files the change deleted.
    emptied_globs: Vec<String>,
    /// The spec's text, when served.
    spec: Option<SpecText>,
    /// The system spec's text, when served.
    system_spec: Option<SpecText>,
}

/// A spec text served by `get_spec_diff`, the part used.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SpecText {
    /// Its path, when the answer names it (the system spec's).
    path: Option<String>,
    /// The id to name it by in `specs_read`.
    text_id: Option<String>,
}

/// One changed spec file.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SpecChange {
    /// Its path.
    path: String,
}

/// Everything a pass needs besides the server.
pub struct PassInput<'a> {
    /// The replay repository.
    pub work: &'a Path,
    /// The skill's steps.
    pub steps: &'a [Step],
    /// The base every call names.
    pub base: &'a str,
    /// Which spec governs what.
    pub governed: &'a Governed,
}

/// Play one pass on `server`.
pub fn run(server: &mut Server, input: &PassInput<'_>) -> Result<PassOutcome> {
    let mut pass = Pass {
        server,
        input,
        out: PassOutcome::default(),
        affected: None,
        status_specs: None,
        stock_skipped: false,
        extra: BTreeSet::new(),
        diffed: Vec::new(),
        held: BTreeMap::new(),
        read_ids: BTreeSet::new(),
        left: None,
    };
    for step in input.steps {
        if pass.step(step)? {
            break;
        }
    }
    Ok(pass.out)
}

/// The state of a pass in progress.
struct Pass<'s, 'a> {
    /// The server.
    server: &'s mut Server,
    /// The pass's input.
    input: &'s PassInput<'a>,
    /// What it read so far.
    out: PassOutcome,
    /// The take-stock answer (every page merged).
    affected: Option<Affected>,
    /// The specs the first status lists with files to review, and whether
    /// it lists invalid or deleted specs.
    status_specs: Option<(Vec<String>, bool)>,
    /// Whether the skill said to skip `list_affected_specs` (no invalid or
    /// deleted spec).
    stock_skipped: bool,
    /// Files to record that are not a review: housekeeping and files
    /// already read for another spec.
    extra: BTreeSet<String>,
    /// The specs diffed so far, with what they served.
    diffed: Vec<Flag>,
    /// Spec path -> `text_id` of the spec texts read in this pass.
    held: BTreeMap<String, String>,
    /// The `read_ids` of the diffs read in this pass.
    read_ids: BTreeSet<String>,
    /// `left` of the last `mark_reconciled` answer.
    left: Option<usize>,
}

impl Pass<'_, '_> {
    /// Play one step; `true` when the pass ends there.
    fn step(&mut self, step: &Step) -> Result<bool> {
        if step.calls.is_empty() {
            return Ok(self.stop_when_nothing_affected(step));
        }
        for tool in &step.calls {
            let stop = match tool.as_str() {
                "get_reconciliation_status" => self.status(step)?,
                "list_affected_specs" => self.take_stock(step)?,
                "get_spec_diff" => self.spec_diffs(step)?,
                "get_changed_artifacts" => self.docs(step)?,
                "mark_reconciled" => self.record()?,
                "snapshot_state" => self.snapshot()?,
                // Before an edit: a replay pass proposes none, so reads nothing.
                "get_governing_specs" => false,
                other => bail!(
                    "the skill's step {:?} calls `{other}`, which the replay does not play: \
                     teach benches/replay/pass.rs what it means",
                    step.title
                ),
            };
            if stop {
                self.out.stopped = Some(step.title.clone());
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A step without a tool that stops the pass when nothing is affected.
    fn stop_when_nothing_affected(&mut self, step: &Step) -> bool {
        let Some(affected) = &self.affected else {
            return false;
        };
        let nothing = affected.affected_specs.is_empty()
            && affected.invalid_specs.is_empty()
            && affected.deleted_specs.is_empty();
        let stop = step.says_stop() && step.text.contains("`affected_specs`") && nothing;
        if stop {
            self.out.stopped = Some(step.title.clone());
        }
        stop
    }

    /// `get_reconciliation_status`, every page; not called after a record
    /// whose `left` is 0 when the step says that ends the pass.
    fn status(&mut self, step: &Step) -> Result<bool> {
        let after_record = step.calls.iter().any(|c| c == "mark_reconciled");
        if after_record && step.text.contains("`left`") && self.left == Some(0) {
            return Ok(false);
        }
        let args = json!({"base_branch": self.input.base});
        let pages: Vec<Status> = self.all_pages("get_reconciliation_status", args)?;
        let left: usize = pages.first().map_or(0, |p| p.totals.unreconciled);
        let nothing = pages
            .first()
            .and_then(|p| p.nothing_to_review)
            .unwrap_or(left == 0);
        let mut to_review = Vec::new();
        let mut troubled = false;
        // What the record step says to record of the status (read from the skill).
        let records_formatting = self.input.steps.iter().any(|s| {
            s.text
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .contains("`formatting_only` files of the status")
                && s.calls.iter().any(|c| c == "mark_reconciled")
        });
        for page in &pages {
            troubled |= !page.invalid_specs.is_empty() || !page.deleted_specs.is_empty();
            if records_formatting {
                self.extra.extend(page.formatting_only.iter().cloned());
            }
            for spec in &page.specs {
                self.extra.extend(spec.housekeeping.iter().cloned());
                if spec.unreconciled_count > 0 && !to_review.contains(&spec.spec_path) {
                    to_review.push(spec.spec_path.clone());
                }
            }
        }
        let first_call = self.affected.is_none() && self.status_specs.is_none();
        if first_call {
            self.status_specs = Some((to_review, troubled));
        }
        if !(first_call && step.says_stop() && nothing) {
            return Ok(false);
        }
        // Nothing to review: record the housekeeping files, share, stop.
        if !self.extra.is_empty() && step.text.contains("housekeeping") {
            self.record()?;
            self.snapshot()?;
        }
        Ok(true)
    }

    fn take_stock(&mut self, step: &Step) -> Result<bool> {
        let troubled = self.status_specs.as_ref().is_some_and(|(_, t)| *t);
        if step.text.contains("Only when the status lists") && !troubled {
            self.stock_skipped = true;
        }
        // The call again after fixing an invalid spec: there was none.
        if self.stock_skipped {
            return Ok(false);
        }
        if let Some(affected) = &self.affected {
            if let Some(invalid) = affected.invalid_specs.first() {
                bail!("a spec of the replay fails to load: {invalid}");
            }
            return Ok(false);
        }
        let args = json!({"base_branch": self.input.base});
        let pages: Vec<Affected> = self.all_pages("list_affected_specs", args)?;
        let mut merged = Affected::default();
        for page in pages {
            merged.affected_specs.extend(page.affected_specs);
            merged.invalid_specs.extend(page.invalid_specs);
            merged.deleted_specs.extend(page.deleted_specs);
        }
        self.affected = Some(merged);
        Ok(false)
    }

    /// `get_spec_diff` of every affected spec not `all_reconciled`.
    fn spec_diffs(&mut self, step: &Step) -> Result<bool> {
        let specs = self.specs_to_review();
        // What the record step says to record (read once, from the skill).
        let step_records_all = self.input.steps.iter().any(|s| {
            s.text.contains("`formatting_only`") && s.calls.iter().any(|c| c == "mark_reconciled")
        });
        let exclude = step.exclude_patterns();
        for spec in specs {
            let mut args = Map::new();
            args.insert("spec_path".into(), json!(spec));
            args.insert("base_branch".into(), json!(self.input.base));
            if let Some(patterns) = &exclude {
                args.insert("exclude_patterns".into(), json!(patterns));
            }
            if step.text.contains("already_read") {
                args.insert("already_read".into(), json!(self.read_ids));
            }
            if step.text.contains("specs_read") && !self.held.is_empty() {
                let held: Vec<String> = self
                    .held
                    .iter()
                    .map(|(p, id)| format!("{p}@{id}"))
                    .collect();
                args.insert("specs_read".into(), json!(held));
            }
            let pages: Vec<SpecDiff> = self.all_pages("get_spec_diff", Value::Object(args))?;
            let mut files = BTreeSet::new();
            let mut spec_changes = BTreeSet::new();
            let mut emptied = Vec::new();
            for page in pages {
                emptied.extend(page.emptied_globs);
                if let Some(id) = page.spec.as_ref().and_then(|t| t.text_id.clone()) {
                    self.held.insert(spec.clone(), id);
                }
                if let Some(SpecText {
                    path: Some(path),
                    text_id: Some(id),
                }) = page.system_spec
                {
                    self.held.insert(path, id);
                }
                for applied in page.applied {
                    if let (Some(path), Some(id)) = (applied.path, applied.text_id) {
                        self.held.insert(path, id);
                    }
                }
                self.read_ids.extend(page.read_ids);
                self.extra.extend(page.housekeeping);
                self.extra.extend(page.already_read);
                if step_records_all {
                    self.extra.extend(page.formatting_only);
                    self.extra.extend(page.outside_anchors);
                }
                files.extend(page.files);
                spec_changes.extend(page.spec_changes.into_iter().map(|c| c.path));
            }
            let flag = Flag {
                spec,
                files: files.into_iter().collect(),
                spec_changes: spec_changes.into_iter().collect(),
            };
            if !flag.files.is_empty() || !flag.spec_changes.is_empty() {
                self.out.flags.push(flag.clone());
            }
            if !emptied.is_empty() && step.text.contains("emptied_globs") {
                self.drop_globs(&flag.spec, &emptied)?;
            }
            self.diffed.push(flag);
        }
        Ok(false)
    }

    /// Remove each of `globs` (its `- path:` line) from `spec`, commit the
    /// spec, and record it with the pass: the edit a faithful pass makes
    /// when a diff says the spec names only deleted files.
    fn drop_globs(&mut self, spec: &str, globs: &[String]) -> Result<()> {
        let path = self.input.work.join(spec);
        let text = std::fs::read_to_string(&path)?;
        let mut kept = String::with_capacity(text.len());
        let mut dropped = 0;
        for line in text.split_inclusive('\n') {
            let item = line.trim().strip_prefix("- path:").map(str::trim);
            let named = item.map(|v| v.trim_matches(|c| c == '\'' || c == '"'));
            if named.is_some_and(|g| globs.iter().any(|x| x == g)) {
                dropped += 1;
            } else {
                kept.push_str(line);
            }
        }
        if dropped != globs.len() {
            bail!("{spec}: found {dropped} of the emptied globs {globs:?} as `- path:` lines");
        }
        std::fs::write(&path, kept)?;
        let message = format!("{spec}: drop {}", globs.join(", "));
        repo::git(
            self.input.work,
            &["commit", "-q", "-m", &message, "--", spec],
        )?;
        self.extra.insert(spec.to_owned());
        Ok(())
    }

    /// The affected specs left to review, in the answer's order, once each.
    fn specs_to_review(&self) -> Vec<String> {
        if self.affected.is_none()
            && let Some((specs, _)) = &self.status_specs
        {
            return specs.clone();
        }
        let mut seen = BTreeSet::new();
        let mut specs = Vec::new();
        for entry in self.affected.iter().flat_map(|a| &a.affected_specs) {
            if !entry.all_reconciled
                && !entry.spec_path.is_empty()
                && seen.insert(entry.spec_path.clone())
            {
                specs.push(entry.spec_path.clone());
            }
        }
        specs
    }

    /// `get_changed_artifacts` for the docs of every diffed spec that has docs.
    fn docs(&mut self, step: &Step) -> Result<bool> {
        if !step.text.contains("artifact_type: \"docs\"") {
            return Ok(false);
        }
        let specs: Vec<String> = self
            .diffed
            .iter()
            .map(|f| f.spec.clone())
            .filter(|s| self.input.governed.has_category(s, "docs"))
            .collect();
        for spec in specs {
            let args =
                json!({"spec_path": spec, "artifact_type": "docs", "base_branch": self.input.base});
            let _: Vec<Value> = self.all_pages("get_changed_artifacts", args)?;
        }
        Ok(false)
    }

    /// `mark_reconciled` of every file served and every changed spec.
    fn record(&mut self) -> Result<bool> {
        let files: BTreeSet<&String> = self
            .diffed
            .iter()
            .flat_map(|f| f.files.iter().chain(&f.spec_changes))
            .chain(&self.extra)
            .collect();
        if files.is_empty() {
            return Ok(false);
        }
        self.out.marked = files.len();
        let mut args = json!({"files": files});
        // As the skill's record step says.
        let with_base = self.input.steps.iter().any(|s| {
            s.calls.iter().any(|c| c == "mark_reconciled") && s.text.contains("base_branch")
        });
        if with_base {
            args["base_branch"] = json!(self.input.base);
        }
        let answer = self.call("mark_reconciled", args)?;
        self.left = answer["left"].as_u64().map(|n| n as usize);
        Ok(false)
    }

    /// `snapshot_state`, then the commit of the state file.
    fn snapshot(&mut self) -> Result<bool> {
        self.call("snapshot_state", json!({}))?;
        let work = self.input.work;
        let state = ".notarai/reconciliation_state.json";
        repo::git(work, &["add", state])?;
        let staged = repo::git(work, &["diff", "--cached", "--name-only"])?;
        if !staged.is_empty() {
            repo::git(work, &["commit", "-q", "-m", "Reconcile specs"])?;
        }
        Ok(false)
    }

    /// Call `tool` and every following page (the client follows
    /// `next_cursor`); each page counted and parsed as `T`.
    fn all_pages<T: DeserializeOwned>(&mut self, tool: &str, args: Value) -> Result<Vec<T>> {
        let mut pages = Vec::new();
        for reply in self.server.pages(tool, args)? {
            let page: T = serde_json::from_value(reply.payload.clone())
                .map_err(|e| anyhow::anyhow!("{tool}: unexpected answer: {e}"))?;
            self.count(tool, reply);
            pages.push(page);
        }
        Ok(pages)
    }

    /// One `tools/call`, counted.
    fn call(&mut self, tool: &str, args: Value) -> Result<Value> {
        let reply = self.server.call_tool(tool, args)?;
        let payload = reply.payload.clone();
        self.count(tool, reply);
        Ok(payload)
    }

    /// Count one answer.
    fn count(&mut self, tool: &str, reply: ToolReply) {
        self.out.calls.push(Call {
            tool: tool.to_owned(),
            bytes: reply.text_bytes,
            ms: reply.elapsed.as_secs_f64() * 1000.0,
            payload: reply.payload,
        });
    }
}
