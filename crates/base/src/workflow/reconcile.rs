//! The reconciliation pass: checking a branch's changes against its specs.

use super::{Argument, ArgumentKind, Call, Prompt, Step, Workflow};

/// The reconciliation pass, from the status of the branch to the committed
/// state.
pub const RECONCILE: Workflow = Workflow {
    name: "notarai-reconcile",
    description: "Reconcile this branch's changes with the project's NotarAI specs \
                  (.notarai/*.spec.yaml). Use after editing code, docs or specs, before calling \
                  a task done, or when the user asks to check for spec drift or to reconcile.",
    when: "After changing code, docs or specs, and before calling a task done, reconcile",
    pass_name: "A reconciliation pass",
    heading: "Reconcile changes with the specs",
    intro: "Goal: every spec touched by this branch still tells the truth about the files it
governs, and every governed file still does what its spec says. You propose;
the user decides. Never apply an edit to a spec, code or docs without approval.
",
    steps: &[
        Step {
            id: "base",
            title: "Pick the base branch.",
            tool: None,
            brief: None,
            text: "Before the first call, decide the base: omit `base_branch` to
let notarai choose it (on the default branch, the last reconciliation in the
committed state; elsewhere `main` or `master`); pass it when the work merges
into another branch (check `git symbolic-ref refs/remotes/origin/HEAD` or
ask), and use the same base for every call of the pass. Changes are counted
from the merge base, plus uncommitted and untracked files.",
            optional: false,
        },
        Step {
            id: "status",
            title: "Where does the pass stand?",
            tool: Some(Call {
                name: "get_reconciliation_status",
                args: "{base_branch?}",
            }),
            brief: Some("to see, per spec, the changed files not yet reconciled"),
            text: "Call `get_reconciliation_status` (with the base you chose). Begin
your answer with one line: `base <name> (<source>): N changed files, N specs
left, N invalid specs, N deleted specs`. Its `base` says which base it used:
`name`, `source` (`explicit`, `last_reconciliation` or `default_branch`) and
`merge_base`. `specs` lists each spec with something left: its `unreconciled`
files (they need a review) and `housekeeping` files (no review needed: only to
record; `housekeeping_reasons` gives each one's proof: `versions`, only
versions of named dependencies, actions or modules moved; `tests_only`, only
the spec's tests changed; `spec_tier`, a registered or derived spec stating
no constraints; `artifact_tier`, an artifact of tier 3 or 4; a file the
spec's constraints or invariants name is never housekeeping); `totals` counts the files and the `reconciled_specs` with nothing
left. A file counts as reconciled when its content matches this clone's cache
or the committed `.notarai/reconciliation_state.json` for that spec, so a
pass that stopped (or a teammate's pass) is not redone. If `state_problem` is
set, the committed state file is malformed and ignored: report it before
anything else. When `nothing_to_review` is `true`, nothing needs a review: if
the status lists `housekeeping` or `formatting_only` files, record them ({step:record}) and share
({step:snapshot}); say so and stop. Answers are paged to fit your context:
`page` of `pages`; while an answer has a `next_cursor`, call the tool again
with the same arguments plus `cursor: <next_cursor>` until it has none (an
entry marked `continued` carries on the lists of the entry above it). If a
cursor is refused because the changes moved, start again without one.",
            optional: false,
        },
        Step {
            id: "take_stock",
            title: "Invalid or deleted specs?",
            tool: Some(Call {
                name: "list_affected_specs",
                args: "{base_branch?}",
            }),
            brief: Some("when specs are invalid or deleted: what is wrong and what changed"),
            text: "Only when the status lists `invalid_specs` or
`deleted_specs`, call `list_affected_specs` for the details: `changed_files`
(`changed_count` in all), `affected_specs` (each with its `spec_path`,
`intent`, `behaviors`, `constraints`, `invariants`, `matched_files`
(`matched_count` in all), `unreconciled_count` and `housekeeping_count`; a
spec with nothing to review is one line, `all_reconciled`), `invalid_specs`
(each with its `error`), `deleted_specs` and `unreviewable` files.",
            optional: true,
        },
        Step {
            id: "invalid_specs",
            title: "Invalid specs first.",
            tool: None,
            brief: None,
            text: "Each entry of `invalid_specs` is an error of a spec that
fails `notarai validate` (`spec_path` and `error`, as `path:line:col:
message`). A spec that failed to load governs nothing: notarai cannot tell
which files it governs, so nothing about it can be checked until it loads
(one that loaded but has an error across specs, such as a `$ref` to a missing
file, still governs its files). Report each one before anything else, open the file
at that line, propose the fix (run `notarai validate` for every message),
and after the user approves it call `list_affected_specs` again. Never fix a
spec by lowering its `schema_version`. While any spec fails to load, do not
say that nothing is affected: say which specs could not be checked.",
            optional: false,
        },
        Step {
            id: "deleted_specs",
            title: "Deleted specs.",
            tool: None,
            brief: None,
            text: "Each path of `deleted_specs` is a spec removed on this
branch. Confirm with the user that the files it governed are gone too or are
now governed by another spec (moved there on purpose); list any that are
governed by no spec any more. Each entry of `unreviewable` is a changed
file whose name notarai cannot show (not UTF-8): tell the user its lossy
`path` and `reason`; it must be reviewed by hand or renamed.",
            optional: false,
        },
        Step {
            id: "spec_diff",
            title: "For each affected spec.",
            tool: Some(Call {
                name: "get_spec_diff",
                args: "{spec_path, base_branch?}",
            }),
            brief: Some("for each spec with unreconciled files: its changes since last reconciled"),
            text: r#"For each spec the status lists with `unreconciled` files,
call `get_spec_diff` with `{spec_path, already_read, specs_read}` (and
`base_branch` if you passed one), where `already_read` lists the `read_ids`
(`path@id`, copied as given) of the diffs you already read in this pass, and
`specs_read` the specs whose text you hold, each as `path@text_id` with the
`text_id` of the `spec`, `applied` entry or `system_spec` you read (in this
pass or an earlier one of this session); leave out any whose text is no
longer in your context, and it comes again. A bare path counts for nothing
in either list, and a file or spec changed since you read it comes again.
Read the answer:
- `spec` (first page): the spec's intent, behaviors, constraints and
  invariants, to judge the diff against (absent when the spec file itself
  is in `spec_changes`, whose text is whole, or when `spec_held` is `true`:
  you hold it, judge against the text you have).
- `applied` (first page): the constraints and invariants of the
  cross-cutting specs this spec applies, each with its `path`: judge the
  diff against them too (`held: true`: you hold that text).
- `plan` (first page, when the answer has several pages): every changed
  file with its status, lines added and removed, and the pages that hold
  its diff; follow `next_cursor` as in
  {step:status} until you have read every page.
- `diff`: unified diff of the governed non-spec files that changed. A file
  in `since_reconciled` is shown from the content last reconciled for this
  spec (only what is new); `since: "base"` shows the whole branch diff.
- `files`: those files. `skipped_count`: files already reconciled and
  unchanged since (`full_lists: true` lists them in `skipped`).
- `housekeeping`: files that need no review (lock files, changelogs,
  generated output the spec marks with `tier: 3` or `4`; pinned versions
  or tests alone, as `housekeeping_reasons` says): record them.
- `formatting_only` and `outside_anchors`: files changed in comments or
  formatting only, or outside the symbols an anchored spec governs: nothing
  to review; record them.
- `already_read`: files whose diff you read for another spec; judge them
  against this spec from that. `read_ids`: add these to your `already_read`.
  `read_again`: files you had read whose diff is shown again, with why. `shared`: files of this diff other specs
  govern too; judge them against those specs now.
- `file_categories`: the artifact category (`code`, `docs`, ...) of each file.
- `spec_changes`: full text of changed spec files. A changed spec is a
  statement of new intent: check the code against it, not the other way round.
- `system_spec`: the system spec's text (or only its `path` when it is
  already in `spec_changes`), for project-wide constraints.
- `emptied_globs`: globs of the spec that matched only files this change
  deletes: the spec names what is gone; propose removing each (step 9).
Pass `bypass_cache: true` only when the user wants everything re-checked."#,
            optional: false,
        },
        Step {
            id: "docs",
            title: "Check docs, where the spec has them.",
            tool: Some(Call {
                name: "get_changed_artifacts",
                args: "{spec_path, artifact_type}",
            }),
            brief: Some("to list one category's changed files apart from the diff, when needed"),
            text: r#"The spec's changed docs are the files of the
diff whose `file_categories` entry is `docs`: check them with the code, and
ask whether unchanged docs now describe old behavior. Only to list one
category's changed files apart from the diff, call `get_changed_artifacts`
with `{spec_path, artifact_type}`; an answer with a `note` and an empty list
means the spec has no such category."#,
            optional: true,
        },
        Step {
            id: "compare",
            title: "Compare.",
            tool: None,
            brief: Some("compare the diff with the spec's behaviors, constraints and invariants"),
            text: "For every behavior (given/then), constraint and invariant of
the spec, decide from the diff: still true, now violated, or newly added
behavior the spec does not mention. Quote the line of the diff that shows it.",
            optional: false,
        },
        Step {
            id: "propose",
            title: "Propose.",
            tool: None,
            brief: Some(
                "propose updates to spec, code or docs, applying nothing without the user's \
                 approval",
            ),
            text: "Report per spec: what drifted, and one concrete fix each:
edit the spec (intent changed on purpose), edit the code (a regression), or
edit the docs. Show the exact YAML or text you would write. Wait for the
user's answer; apply only what they approve. After editing a spec, make sure
the validation hook reported no errors (or run `notarai validate`).",
            optional: false,
        },
        Step {
            id: "before_edit",
            title: "Before editing a governed file.",
            tool: Some(Call {
                name: "get_governing_specs",
                args: "{paths, lines?}",
            }),
            brief: Some("before editing a governed file, to read what governs it"),
            text: "Before you edit a file (an approved fix, or any other
task), call `get_governing_specs` with `{paths}` (and `lines: \"A-B\"` for a
part of one file): `files` says per path which specs govern it
(`governed_by`, a spec anchored to symbols only where the lines touch them)
and whether it already has `unreconciled` changes; `specs` holds each one's
intent, behaviors, constraints and invariants. Keep the edit within them; when
a spec no longer tells the truth, say so in your proposal rather than
diverging silently.",
            optional: true,
        },
        Step {
            id: "record",
            title: "Record.",
            tool: Some(Call {
                name: "mark_reconciled",
                args: "{files}",
            }),
            brief: Some("with the files reviewed, so the next pass skips them until they change"),
            text: "When the user has accepted the result, call `mark_reconciled`
with `{files}` (and `base_branch` if you passed one): every file of the pass (the `files`, `housekeeping`,
`already_read`, `formatting_only` and `outside_anchors` of each diff, the
spec files in `spec_changes` and any spec you edited, and the `housekeeping` and `formatting_only` files of the status), as
repository-relative paths; for a file whose diff you read, pass its
`path@id` from that answer's `read_ids` instead, so a file changed since you
read it is refused, not recorded (read its diff again then). The next
pass then skips them until they change again. Do not record files of a spec
that could not be checked. Its `left` counts the changed files still to
review for that base: at `0` the pass is done; otherwise call
`get_reconciliation_status` again: what it lists as `unreconciled` is left
for this pass.",
            optional: false,
        },
        Step {
            id: "snapshot",
            title: "Share.",
            tool: Some(Call {
                name: "snapshot_state",
                args: "{force?}",
            }),
            brief: Some("to write .notarai/reconciliation_state.json, to commit with the work"),
            text: "Call `snapshot_state` (or pass `snapshot: true` to
`mark_reconciled`) to write `.notarai/reconciliation_state.json` from what was
reconciled, then, with the user's approval, commit it:
`git add .notarai/reconciliation_state.json && git commit -m \"Reconcile specs\"`.
Teammates, other clones and CI (`notarai check`) then see the pass. If it
refuses a malformed state file, tell the user; pass `force: true` only if they
agree to replace it.",
            optional: false,
        },
    ],
    notes: &[
        "`clear_cache` forgets every reconciled hash; use it only when asked, or when
the cache is clearly wrong.",
        "Keep the answer short: one line per finding that is fine, detail only for drift.",
        "Drift you notice but were not asked to fix (a spec that no longer tells the truth,
a constraint the code breaks): record it with `report_drift` `{spec_path, note, paths?}`
so teammates and CI see it; it closes when that spec is next reconciled.",
        "Do not read whole files the diff already shows; open a file only when the
diff lacks the context to judge a behavior.",
        "A tool's invalid argument (an unknown spec, a base that does not resolve, a bad
cursor) comes back as a result marked `isError` on MCP 2025-11-25 and 2026-07-28, as an
MCP error on older revisions: either way read its message and `hint:` line, correct the
call and retry.",
    ],
    prompt: Prompt {
        name: "reconcile",
        title: "Reconcile changes with the specs",
        arguments: &[
            Argument {
                name: "base_branch",
                description: "The branch this work merges into (optional: notarai chooses the \
                              base when it is not given)",
                required: false,
                narrows: "Base branch: `{value}`. Pass `base_branch: {json}` to every call \
                          of this pass that takes it.",
                kind: ArgumentKind::Branch,
            },
            Argument {
                name: "spec_path",
                description: "One spec to reconcile, e.g. `.notarai/auth.spec.yaml` (optional: \
                              every affected spec when it is not given)",
                required: false,
                narrows: "Only the spec `{value}`: take stock as usual, then check, propose and \
                          record for this spec alone, and say which other specs are affected \
                          and left for another pass.",
                kind: ArgumentKind::SpecPath,
            },
        ],
    },
};
