//! Every finding's stable code, in one table ([`RULES`]).
//!
//! A finding of `notarai validate`, `notarai check` or `notarai lint` names
//! its rule: a code (`N101`) and a short name (`unreconciled-change`),
//! printed with it in every format. The table is the one source: `notarai
//! explain CODE` prints a row, the table in `docs/check.md` is rendered
//! from it (`tests/it/docs.rs` holds the two together), and
//! `.notarai/check.yaml` names rules by code or name. A code is never
//! reused for another meaning: a code whose rule goes away stays unused.
//!
//! Codes by area: `N0xx` a spec's validity (what `validate` reports),
//! `N1xx` the changes of a branch (`check`), `N2xx` the tests a spec names,
//! `N3xx` the gate's own configuration, `N4xx` spec quality (`lint`).

use serde::{Serialize, Serializer};

/// A rule's code: what a finding is, for a tool and a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// A spec file fails to load or breaks the format.
    InvalidSpec,
    /// `subsystems` `$ref`s form a cycle.
    RefCycle,
    /// An artifact glob matches no file.
    GlobMatchesNothing,
    /// An anchor names no symbol in the files its glob matches.
    AnchorMatchesNothing,
    /// A `tested_by` path names no existing file.
    TestedByMissing,
    /// More than one spec has `subsystems`.
    SecondSystemSpec,
    /// A cross-cutting spec listed under `subsystems`.
    CrossCuttingSubsystem,
    /// No `subsystems`/`applies` chain from the system spec reaches a spec.
    UnreachableSpec,
    /// A governed file changed and is not reconciled.
    UnreconciledChange,
    /// A spec file changed and is not reconciled.
    UnreconciledSpec,
    /// A housekeeping file changed and is not recorded.
    UnrecordedHousekeeping,
    /// A changed file no spec governs.
    UngovernedChange,
    /// Changed lines outside every anchor of the specs governing a file.
    OutsideAnchors,
    /// A changed file governed by several specs.
    SeveralSpecs,
    /// A change in formatting or comments only.
    FormattingOnly,
    /// An anchor whose symbol the change removed.
    BrokenAnchor,
    /// A drift note nobody resolved.
    OpenDriftNote,
    /// git tracks the local hash cache.
    TrackedCache,
    /// A rule file generated from a spec (`notarai rules`) that no longer matches it.
    StaleRuleFile,
    /// A behavior that names no test.
    UntestedBehavior,
    /// A `tested_by` file older than the code it covers.
    StaleTest,
    /// An `ignore` entry of `check.yaml` past its `until` date.
    ExpiredIgnore,
    /// Two specs govern one file and neither says it is shared.
    OverlappingSpecs,
    /// A behavior without `given` or `then`.
    IncompleteBehavior,
    /// An intent too short to say anything, or a placeholder.
    PlaceholderIntent,
    /// Constraints nobody can check: the spec governs no code and names no test.
    UncheckableConstraint,
    /// An anchor into a file notarai cannot outline.
    UnoutlinableAnchor,
}

/// How serious a rule's findings are when nothing configures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultSeverity {
    /// Always this severity.
    Is(&'static str),
    /// Depends on the finding; the words say how.
    Varies(&'static str),
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// The code as a value.
    pub code: Code,
    /// The code as written: `N101`.
    pub id: &'static str,
    /// The short name: `unreconciled-change`.
    pub name: &'static str,
    /// The commands that report it.
    pub reported_by: &'static str,
    /// Its severity when `check.yaml` says nothing.
    pub default: DefaultSeverity,
    /// What it finds, in one sentence.
    pub finds: &'static str,
    /// What to do about it.
    pub fix: &'static str,
}

macro_rules! rule {
    ($code:ident, $id:literal, $name:literal, $by:literal, $default:expr, $finds:literal, $fix:literal) => {
        Rule {
            code: Code::$code,
            id: $id,
            name: $name,
            reported_by: $by,
            default: $default,
            finds: $finds,
            fix: $fix,
        }
    };
}

use DefaultSeverity::{Is, Varies};

/// Every rule, by code. The order is the code's.
pub const RULES: &[Rule] = &[
    rule!(
        InvalidSpec,
        "N001",
        "invalid-spec",
        "validate, check, lint",
        Is("error"),
        "A spec file fails to load: not YAML notarai reads, a key or value the format does not allow, a `$ref` to no file, a glob that does not compile.",
        "Run `notarai validate`: it shows the line and a hint."
    ),
    rule!(
        RefCycle,
        "N002",
        "ref-cycle",
        "validate, check, lint",
        Is("error"),
        "The specs' `subsystems` `$ref`s form a cycle: a spec would contain itself.",
        "Remove one `$ref` of the cycle `validate` prints."
    ),
    rule!(
        GlobMatchesNothing,
        "N003",
        "glob-matches-nothing",
        "validate, check, lint",
        Is("warning"),
        "An artifact glob matches no file of the repository: it governs nothing.",
        "Fix the glob, or remove the entry if the files are gone."
    ),
    rule!(
        AnchorMatchesNothing,
        "N004",
        "anchor-matches-nothing",
        "validate, check, lint",
        Is("warning"),
        "An anchor (`path#Symbol`) names no symbol in the files its glob matches: it governs nothing.",
        "Point it at the symbol's current name (`notarai symbols FILE` lists them)."
    ),
    rule!(
        TestedByMissing,
        "N005",
        "tested-by-missing",
        "validate, check, lint",
        Varies("warning in validate and lint, error in check"),
        "A behavior's `tested_by` names a file that does not exist.",
        "Fix the path (relative to the repository root), or remove the entry."
    ),
    rule!(
        SecondSystemSpec,
        "N006",
        "second-system-spec",
        "validate, check, lint",
        Is("warning"),
        "More than one spec has `subsystems`: only the system spec lists the others.",
        "Keep `subsystems` in the system spec and list the child specs there."
    ),
    rule!(
        CrossCuttingSubsystem,
        "N007",
        "cross-cutting-subsystem",
        "validate, check, lint",
        Is("warning"),
        "A cross-cutting spec is listed under `subsystems`, where it would govern files.",
        "Move its `$ref` under `applies:` of the specs it applies to."
    ),
    rule!(
        UnreachableSpec,
        "N008",
        "unreachable-spec",
        "validate, check, lint",
        Is("warning"),
        "No `subsystems` or `applies` chain from the system spec reaches the spec.",
        "Add `- $ref: ...` for it under `subsystems:` of the system spec (or of a spec it reaches)."
    ),
    rule!(
        UnreconciledChange,
        "N101",
        "unreconciled-change",
        "check",
        Is("error"),
        "A file a spec governs changed since the base and nobody recorded a review of it against that spec.",
        "Review the change against the spec (the reconcile skill, or `notarai export-context`), then `notarai reconcile FILE --snapshot` and commit the state."
    ),
    rule!(
        UnreconciledSpec,
        "N102",
        "unreconciled-spec",
        "check",
        Is("error"),
        "A spec file changed since the base and is not reconciled.",
        "Review the spec's change, then record it with `notarai reconcile SPEC --snapshot`."
    ),
    rule!(
        UnrecordedHousekeeping,
        "N103",
        "unrecorded-housekeeping",
        "check",
        Is("warning"),
        "A file that needs no review (a tier 3 or 4 artifact, a registered or derived spec) changed and is not recorded.",
        "Record it with `notarai reconcile FILE --snapshot`, or turn the rule off in `check.yaml`."
    ),
    rule!(
        UngovernedChange,
        "N104",
        "ungoverned-change",
        "check",
        Varies("the system spec's `coverage.policy`: warning by default"),
        "A changed file no spec governs and no `exclude` of the system spec covers.",
        "Add it to a spec's artifacts, or to the system spec's `exclude`."
    ),
    rule!(
        OutsideAnchors,
        "N105",
        "outside-anchors",
        "check",
        Varies("the system spec's `coverage.policy`: warning by default"),
        "A file governed only through anchors changed at lines no anchor covers: no spec reviews them.",
        "Anchor the symbols those lines change, or govern the file whole."
    ),
    rule!(
        SeveralSpecs,
        "N106",
        "several-specs",
        "check",
        Is("notice"),
        "A changed file is governed by more than one spec: each needs its own review.",
        "Nothing, if intended; otherwise narrow one spec's globs."
    ),
    rule!(
        FormattingOnly,
        "N107",
        "formatting-only",
        "check",
        Is("notice"),
        "A changed file is the same program as before (formatting or comments only), at the merge base or in the content a proven review of it names: it affects no spec.",
        "Nothing; `--include-formatting` counts such files."
    ),
    rule!(
        BrokenAnchor,
        "N108",
        "broken-anchor",
        "check",
        Is("warning"),
        "The change removed or renamed a symbol a spec anchors (`path#Symbol`).",
        "Point the anchor at the symbol's new name or place, or remove it."
    ),
    rule!(
        OpenDriftNote,
        "N109",
        "open-drift-note",
        "check",
        Is("warning"),
        "Drift an agent reported (`report_drift`) is still open.",
        "Resolve it and reconcile the spec: that closes the note."
    ),
    rule!(
        TrackedCache,
        "N110",
        "tracked-cache",
        "check",
        Is("warning"),
        "git tracks notarai's local hash cache (`.notarai/.cache/`); it is ignored, since a branch could pre-mark its own changes.",
        "`git rm -r --cached .notarai/.cache` and commit."
    ),
    rule!(
        StaleRuleFile,
        "N111",
        "stale-rule-file",
        "check",
        Is("warning"),
        "A path-scoped rule file generated from a spec (`notarai rules`: `.claude/rules/`, `.cursor/rules/`, `.github/instructions/`, `.windsurf/rules/`) no longer matches it: stale after a spec edit, orphaned after a spec was deleted, or missing for a spec.",
        "Run `notarai rules` and commit the rule files it writes."
    ),
    rule!(
        UntestedBehavior,
        "N201",
        "untested-behavior",
        "check",
        Varies("one summary notice; a warning each with `--untested`"),
        "A behavior of a `full` 0.8 spec names no test (`tested_by`).",
        "List the tests that verify it under `tested_by`."
    ),
    rule!(
        StaleTest,
        "N202",
        "stale-test",
        "check",
        Is("warning"),
        "A `tested_by` file did not change since the base while code its spec governs did.",
        "Update the test, or confirm it still covers the change."
    ),
    rule!(
        ExpiredIgnore,
        "N301",
        "expired-ignore",
        "check, lint",
        Is("warning"),
        "An `ignore` entry of `.notarai/check.yaml` is past its `until` date: it no longer applies.",
        "Fix what it ignored, or move its `until` with a new reason."
    ),
    rule!(
        OverlappingSpecs,
        "N401",
        "overlapping-specs",
        "lint",
        Is("warning"),
        "Two specs govern the same file and neither artifact entry says the file is shared (`role: shared`).",
        "Narrow one spec's globs, or mark the entry `role: shared` when both must review it."
    ),
    rule!(
        IncompleteBehavior,
        "N402",
        "incomplete-behavior",
        "lint",
        Is("warning"),
        "A behavior whose `given` or `then` is empty: nobody can tell when it holds.",
        "Write the situation (`given`) and the outcome (`then`)."
    ),
    rule!(
        PlaceholderIntent,
        "N403",
        "placeholder-intent",
        "lint",
        Is("warning"),
        "A spec's `intent` is a placeholder (`TODO`, `TBD`, `FIXME`, `XXX`) or under four words.",
        "Say in a sentence what the part is for."
    ),
    rule!(
        UncheckableConstraint,
        "N404",
        "uncheckable-constraint",
        "lint",
        Is("warning"),
        "A spec states constraints or invariants but governs no code and names no test: nothing can show they hold.",
        "Govern the code that carries them out, or name the tests that check them."
    ),
    rule!(
        UnoutlinableAnchor,
        "N405",
        "unoutlinable-anchor",
        "validate, check, lint",
        Is("warning"),
        "An anchor (`path#Symbol`) into a file notarai cannot outline (a language without a grammar, a file it cannot parse or too large): the anchor governs the whole file or nothing.",
        "Govern the file whole (drop `#Symbol`), or fix the file so it parses."
    ),
];

impl Code {
    /// Its row of [`RULES`].
    pub fn rule(self) -> &'static Rule {
        RULES
            .iter()
            .find(|r| r.code == self)
            .expect("every code has its row in RULES")
    }

    /// The code as written: `N101`.
    pub fn id(self) -> &'static str {
        self.rule().id
    }

    /// The short name: `unreconciled-change`.
    pub fn name(self) -> &'static str {
        self.rule().name
    }

    /// `N101 unreconciled-change`.
    pub fn label(self) -> String {
        format!("{} {}", self.id(), self.name())
    }

    /// The rule a user named, by code (any case) or short name.
    pub fn parse(text: &str) -> Option<Code> {
        let text = text.trim();
        RULES
            .iter()
            .find(|r| r.id.eq_ignore_ascii_case(text) || r.name == text)
            .map(|r| r.code)
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl DefaultSeverity {
    /// The words for a person: `error`, or how it varies.
    pub fn describe(self) -> &'static str {
        match self {
            DefaultSeverity::Is(s) | DefaultSeverity::Varies(s) => s,
        }
    }
}

/// The table of every rule in Markdown, as `docs/check.md` shows it.
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| code | name | reported by | default | finds |\n| --- | --- | --- | --- | --- |\n",
    );
    for r in RULES {
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} |\n",
            r.id,
            r.name,
            r.reported_by,
            r.default.describe(),
            r.finds.replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_are_unique_and_in_order() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        let sorted = {
            let mut s = ids.clone();
            s.sort();
            s
        };
        assert_eq!(ids, sorted, "RULES is in code order");
        ids.dedup();
        assert_eq!(ids.len(), RULES.len(), "a code is used once");
        let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), RULES.len(), "a name is used once");
        for r in RULES {
            assert_eq!(r.code.rule().id, r.id, "{} has one row", r.id);
            assert_eq!(Code::parse(r.id), Some(r.code));
            assert_eq!(Code::parse(&r.id.to_lowercase()), Some(r.code));
            assert_eq!(Code::parse(r.name), Some(r.code));
        }
        assert_eq!(Code::parse("N999"), None);
    }
}
