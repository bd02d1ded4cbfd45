//! `.notarai/check.yaml`: how a team tunes the gate. Per rule a severity
//! (`error`, `warning`, `notice`, `off`), `fail_on` (the lowest severity
//! that fails), and `ignore` entries (a rule, the paths or the spec it is
//! ignored for, a required reason, an optional `until` date after which the
//! entry no longer applies and is itself reported, `N301 expired-ignore`).
//!
//! Read as a spec is ([`crate::spec::parse_document`]): YAML with
//! positions, checked against the JSON Schema of [`CheckConfig`], every
//! problem a finding at its line and column. A missing file is today's
//! defaults: nothing changes, byte for byte.

use std::collections::BTreeMap;
use std::path::Path;

use globset::GlobSet;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Finding, FindingKind, Severity};
use crate::rules::Code;
use crate::spec;

/// Where the gate's configuration lives, repository-relative.
pub const CHECK_CONFIG: &str = ".notarai/check.yaml";

/// The file as written.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckConfig {
    /// The lowest severity that fails the gate: `error` (the default),
    /// `warning` (as `--strict` does) or `notice`.
    #[serde(default)]
    pub fail_on: Option<Level>,
    /// Per rule, by code (`N104`) or short name (`ungoverned-change`): the
    /// severity its findings get, or `off` to drop them.
    #[serde(default)]
    pub rules: BTreeMap<String, RuleSetting>,
    /// Findings not to report, each with its reason.
    #[serde(default)]
    pub ignore: Vec<IgnoreEntry>,
}

/// A severity a finding can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Fails the gate.
    Error,
    /// Reported; fails with `fail_on: warning` or `--strict`.
    Warning,
    /// For information.
    Notice,
}

impl Level {
    /// The severity, when below error (`fail_on: error` is the default,
    /// and shown as none).
    pub fn below_error(self) -> Option<Severity> {
        match self {
            Level::Error => None,
            Level::Warning => Some(Severity::Warning),
            Level::Notice => Some(Severity::Notice),
        }
    }
}

/// What a rule's findings become.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RuleSetting {
    /// An error.
    Error,
    /// A warning.
    Warning,
    /// A notice.
    Notice,
    /// Not reported.
    Off,
}

/// One suppression.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IgnoreEntry {
    /// The rule, by code (`N104`) or short name.
    pub code: String,
    /// Globs of the files whose findings are ignored (as artifact globs).
    #[serde(default)]
    pub paths: Vec<String>,
    /// The spec whose findings are ignored (its path, `.notarai/x.spec.yaml`).
    #[serde(default)]
    pub spec: Option<String>,
    /// Why, for the reviewer: required.
    pub reason: String,
    /// The last day the entry applies (`YYYY-MM-DD`, UTC); after it the
    /// entry is reported as `N301 expired-ignore` and ignores nothing.
    #[serde(default)]
    pub until: Option<String>,
}

/// The configuration, checked and ready to apply.
#[derive(Debug, Default)]
pub struct Gate {
    /// The lowest severity that fails.
    pub fail_on: Option<Level>,
    rules: BTreeMap<Code, RuleSetting>,
    ignore: Vec<Ignore>,
}

#[derive(Debug)]
struct Ignore {
    code: Code,
    paths: Option<GlobSet>,
    spec: Option<String>,
    reason: String,
    until: Option<(u32, u32, u32)>,
    line: usize,
}

impl Gate {
    /// Read `.notarai/check.yaml` under `root`: `Ok(None)` when there is
    /// none, the findings (with positions) when it is not a valid one.
    pub fn read(root: &Path) -> Result<Option<Gate>, Vec<spec::Finding>> {
        use crate::safe_fs::FsError;
        let bytes =
            match crate::safe_fs::read(root, Path::new(CHECK_CONFIG), spec::MAX_BYTES as u64) {
                Ok(bytes) => bytes,
                Err(FsError::NotFound { .. }) => return Ok(None),
                Err(e) => {
                    return Err(vec![spec::Finding::error(
                        CHECK_CONFIG,
                        1,
                        1,
                        format!("cannot read the file: {e}"),
                    )]);
                }
            };
        let text = String::from_utf8(bytes).map_err(|_| {
            vec![spec::Finding::error(
                CHECK_CONFIG,
                1,
                1,
                "the file is not UTF-8 text",
            )]
        })?;
        Gate::parse(&text).map(Some)
    }

    /// Check the text of a `check.yaml`.
    pub fn parse(text: &str) -> Result<Gate, Vec<spec::Finding>> {
        let doc = spec::parse_document::<CheckConfig>(CHECK_CONFIG, text)?;
        let mut errors = Vec::new();
        let at = |pointer: &str, message: String, hint: &str| {
            let (line, column) = doc.position(pointer);
            spec::Finding::error(CHECK_CONFIG, line, column, message).with_hint(hint)
        };
        let unknown = |written: &str| format!("`{written}` is no rule's code or name");
        let list = "`notarai explain` lists every rule";
        let mut rules = BTreeMap::new();
        for (written, setting) in &doc.value.rules {
            match Code::parse(written) {
                Some(code) => {
                    rules.insert(code, *setting);
                }
                None => errors.push(at(
                    &format!("/rules/{}", escape(written)),
                    unknown(written),
                    list,
                )),
            }
        }
        let mut ignore = Vec::new();
        for (i, entry) in doc.value.ignore.iter().enumerate() {
            let here = |key: &str| format!("/ignore/{i}{key}");
            let code = Code::parse(&entry.code);
            if code.is_none() {
                errors.push(at(&here("/code"), unknown(&entry.code), list));
            }
            if entry.reason.trim().is_empty() {
                errors.push(at(
                    &here("/reason"),
                    "the reason is empty".into(),
                    "say why these findings may be ignored: the reviewer reads it",
                ));
            }
            if entry.paths.is_empty() && entry.spec.is_none() {
                errors.push(at(&here(""), "the entry names neither `paths` nor `spec`".into(), "add `paths:` (globs of the files) or `spec:` (a spec's path) so it ignores only what it means to"));
            }
            let until = match entry.until.as_deref().map(parse_date) {
                Some(None) => {
                    errors.push(at(
                        &here("/until"),
                        format!(
                            "`{}` is not a date",
                            entry.until.as_deref().unwrap_or_default()
                        ),
                        "write it as YYYY-MM-DD, e.g. 2027-01-31",
                    ));
                    None
                }
                Some(date) => date,
                None => None,
            };
            let mut globs = globset::GlobSetBuilder::new();
            for (p, pattern) in entry.paths.iter().enumerate() {
                match crate::glob::compile(pattern, true) {
                    Ok(parts) => parts.into_iter().for_each(|g| {
                        globs.add(g);
                    }),
                    Err(reason) => errors.push(at(
                        &here(&format!("/paths/{p}")),
                        format!("`{pattern}` is not a valid glob: {reason}"),
                        "globs match repository-relative paths: `src/**`, `docs/*.md`",
                    )),
                }
            }
            let paths = (!entry.paths.is_empty())
                .then(|| globs.build().ok())
                .flatten();
            if let Some(code) = code {
                ignore.push(Ignore {
                    code,
                    paths,
                    spec: entry.spec.clone(),
                    reason: entry.reason.clone(),
                    until,
                    line: doc.position(&here("")).0,
                });
            }
        }
        if !errors.is_empty() {
            spec::sort_findings(&mut errors);
            return Err(errors);
        }
        Ok(Gate {
            fail_on: doc.value.fail_on,
            rules,
            ignore,
        })
    }

    /// The severity a finding of `code` gets: its own, or the configured
    /// one; `None` when the rule is off.
    pub fn severity(&self, code: Code, own: Severity) -> Option<Severity> {
        match self.rules.get(&code) {
            None => Some(own),
            Some(RuleSetting::Off) => None,
            Some(RuleSetting::Error) => Some(Severity::Error),
            Some(RuleSetting::Warning) => Some(Severity::Warning),
            Some(RuleSetting::Notice) => Some(Severity::Notice),
        }
    }

    /// Apply the configuration to `findings` on `today` (`(year, month,
    /// day)`, UTC): the rules' severities, the ignore entries still in
    /// force, and a finding for each expired one. Returns how many findings
    /// the entries ignored.
    pub fn apply(&self, findings: &mut Vec<Finding>, today: (u32, u32, u32)) -> usize {
        let before = findings.len();
        findings.retain(|f| {
            !self
                .ignore
                .iter()
                .any(|i| !i.expired(today) && i.matches(f))
        });
        let ignored = before - findings.len();
        for entry in self.ignore.iter().filter(|i| i.expired(today)) {
            let (y, m, d) = entry.until.unwrap_or_default();
            findings.push(Finding {
                severity: Severity::Warning,
                kind: FindingKind::Config,
                code: Code::ExpiredIgnore,
                spec: None,
                file: Some(CHECK_CONFIG.to_string()),
                line: Some(entry.line),
                message: format!(
                    "the ignore entry for {} expired on {y:04}-{m:02}-{d:02} and ignores nothing now (its reason: {}); fix what it ignored, or move `until` with a new reason",
                    entry.code.label(),
                    entry.reason.trim()
                ),
            });
        }
        findings.retain_mut(|f| match self.severity(f.code, f.severity) {
            Some(s) => {
                f.severity = s;
                true
            }
            None => false,
        });
        ignored
    }
}

impl Ignore {
    fn expired(&self, today: (u32, u32, u32)) -> bool {
        self.until.is_some_and(|until| today > until)
    }

    fn matches(&self, f: &Finding) -> bool {
        f.code == self.code
            && self.spec.as_ref().is_none_or(|s| {
                f.spec.as_deref().map(|x| x.trim_start_matches("./"))
                    == Some(s.trim_start_matches("./"))
            })
            && self
                .paths
                .as_ref()
                .is_none_or(|globs| f.file.as_deref().is_some_and(|file| globs.is_match(file)))
    }
}

/// A JSON pointer's part for `key`.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `YYYY-MM-DD` as (year, month, day), when it is a real date.
fn parse_date(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().splitn(3, '-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (u32, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    (1..=12)
        .contains(&m)
        .then(|| days[m as usize - 1])
        .filter(|&max| d >= 1 && d <= max)
        .map(|_| (y, m, d))
}

/// Today's date in UTC, from the system clock.
pub fn today() -> (u32, u32, u32) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_from_days((secs / 86_400) as i64)
}

/// The civil date (year, month, day) of a day count since 1970-01-01.
pub fn date_of_days(days: i64) -> (u32, u32, u32) {
    civil_from_days(days)
}

/// The civil date of a day count since 1970-01-01 (Howard Hinnant's
/// algorithm).
fn civil_from_days(days: i64) -> (u32, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y as u32, m as u32, d as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_checked_and_today_is_a_date() {
        assert_eq!(parse_date("2027-02-28"), Some((2027, 2, 28)));
        assert_eq!(parse_date("2028-02-29"), Some((2028, 2, 29)));
        assert_eq!(parse_date("2027-02-29"), None);
        assert_eq!(parse_date("2027-13-01"), None);
        assert_eq!(parse_date("27-01-01"), None);
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_819), (2027, 1, 1));
        assert!(
            parse_date(&{
                let (y, m, d) = today();
                format!("{y:04}-{m:02}-{d:02}")
            })
            .is_some()
        );
    }

    #[test]
    fn a_bad_file_is_findings_at_their_positions() {
        let errors = Gate::parse(
            "fail_on: warnings\nrules:\n  N999: off\nignore:\n  - code: N104\n    reason: ' '\n",
        )
        .unwrap_err();
        let at: Vec<(usize, usize)> = errors.iter().map(|f| (f.line, f.column)).collect();
        assert_eq!(errors.len(), 1, "the schema check comes first: {errors:?}");
        assert_eq!(at, [(1, 10)], "{errors:?}");
        assert!(errors[0].message.contains("warnings"), "{errors:?}");
        let errors =
            Gate::parse("rules:\n  N999: off\nignore:\n  - code: N104\n    reason: ' '\n    until: 2027-02-30\n")
                .unwrap_err();
        let lines: Vec<usize> = errors.iter().map(|f| f.line).collect();
        assert_eq!(lines, [2, 4, 5, 6], "{errors:?}");
    }
}
