//! Artifact globs: compiling them the one way notarai matches files, and
//! finding the ones that match no file of the repository.

use std::collections::HashMap;

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::yaml::{Node, Pos};
use super::{Finding, LoadedSpec, Spec};

/// Compile an artifact glob as notarai matches it everywhere (see
/// [`crate::glob::compile`]): relative to the repository root, `*` and
/// `?` within one path segment, `**` across segments, `{a,b}` alternation,
/// and a pattern with no wildcard also matches everything below it.
pub fn compile_artifact_glob(pattern: &str) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for g in glob_parts(pattern)? {
        builder.add(g);
    }
    builder.build().map_err(|e| e.kind().to_string())
}

fn glob_parts(pattern: &str) -> Result<Vec<Glob>, String> {
    crate::glob::compile(pattern, true)
}

fn escape(part: &str) -> String {
    part.replace('~', "~0").replace('/', "~1")
}

/// One glob written in a spec: its JSON pointer, the pattern, whether it
/// names something outside the repository (`source`), and what it is for.
struct GlobAt<'a> {
    pointer: String,
    pattern: &'a str,
    /// The symbol anchor after `#` (artifacts only).
    anchor: Option<&'a str>,
    external: bool,
    what: &'static str,
}

fn globs_of(spec: &Spec) -> Vec<GlobAt<'_>> {
    let mut out = Vec::new();
    for (category, refs) in &spec.artifacts {
        for (i, r) in refs.iter().enumerate() {
            let (pattern, anchor) = crate::symbols::split_anchor(&r.path);
            out.push(GlobAt {
                pointer: format!("/artifacts/{}/{i}/path", escape(category)),
                pattern,
                anchor,
                external: r.source.is_some(),
                what: "artifact glob",
            });
        }
    }
    if let Some(design) = &spec.design {
        for (i, r) in design.assets.iter().enumerate() {
            out.push(GlobAt {
                pointer: format!("/design/assets/{i}/path"),
                pattern: &r.path,
                anchor: None,
                external: r.source.is_some(),
                what: "design asset glob",
            });
        }
    }
    for (i, pattern) in spec.exclude.iter().enumerate() {
        out.push(GlobAt {
            pointer: format!("/exclude/{i}"),
            pattern,
            anchor: None,
            external: true,
            what: "exclude glob",
        });
    }
    out
}

fn pos_of(tree: &Node, pointer: &str) -> Pos {
    tree.pointer(pointer)
        .map(|n| n.pos)
        .unwrap_or(Pos { line: 1, column: 1 })
}

/// Every glob of a spec must compile.
pub(crate) fn check_compile(rel: &str, spec: &Spec, tree: &Node) -> Vec<Finding> {
    let mut out = Vec::new();
    for g in globs_of(spec) {
        if let Some(Err(e)) = g.anchor.map(crate::symbols::Anchor::parse) {
            let pos = pos_of(tree, &g.pointer);
            out.push(
                Finding::error(rel, pos.line, pos.column, e.to_string())
                    .with_hint("write `path#Name`, `path#Type::method` or `path#Class.*`"),
            );
        }
        if let Err(e) = glob_parts(g.pattern) {
            let pos = pos_of(tree, &g.pointer);
            let reason = e;
            out.push(
                Finding::error(rel, pos.line, pos.column, format!("{} `{}` is not a valid glob: {reason}", g.what, g.pattern))
                    .with_hint("`*` matches within a folder, `**` across folders, `{a,b}` either; escape a literal `[` as `[[]`"),
            );
        }
    }
    out
}

/// Warnings for artifact globs (refs without `source`) that match none of
/// `files`. Each glob is tried only on the files below its literal prefix
/// (a range of the sorted list, found by binary search) and only until its
/// first match, so a repository of many specs and files costs about one
/// look per glob, not every file against every glob.
pub(crate) fn check_orphans(
    specs: &[LoadedSpec],
    trees: &[Node],
    files: &[String],
) -> Vec<Finding> {
    let mut sorted: Vec<&str> = files.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    let mut sites: Vec<(usize, String, String, &'static str)> = Vec::new();
    let mut matched: Vec<bool> = Vec::new();
    // A glob written many times (20,000 anchors on one file) is compiled
    // and tried once.
    let mut seen: HashMap<String, bool> = HashMap::new();
    for (s, loaded) in specs.iter().enumerate() {
        for g in globs_of(&loaded.spec) {
            if g.external {
                continue;
            }
            let hit = match seen.get(g.pattern) {
                Some(&hit) => hit,
                None => {
                    let Some(hit) = matches_any(g.pattern, &sorted) else {
                        continue; // reported by check_compile
                    };
                    seen.insert(g.pattern.to_string(), hit);
                    hit
                }
            };
            matched.push(hit);
            sites.push((s, g.pointer, g.pattern.to_string(), g.what));
        }
    }
    let mut out = Vec::new();
    for ((s, pointer, pattern, what), hit) in sites.into_iter().zip(matched) {
        if hit {
            continue;
        }
        let pos = pos_of(&trees[s], &pointer);
        let hint = match pattern
            .strip_prefix("./")
            .or_else(|| pattern.strip_prefix('/'))
        {
            Some(rest) => format!("globs are relative to the repository root: write `{rest}`"),
            None => {
                "fix the glob or remove the ref; for something outside the repository add `source:`"
                    .to_string()
            }
        };
        out.push(
            Finding::warning(
                crate::rules::Code::GlobMatchesNothing,
                &specs[s].path,
                pos.line,
                pos.column,
                format!("{what} `{pattern}` matches no file in the repository"),
            )
            .with_hint(hint),
        );
    }
    out
}

/// Asked by [`emptied_globs`]: whether some file now below a literal
/// prefix (`None`: anywhere) passes a test of its path.
pub type StillThere<'a> = dyn FnMut(Option<&str>, &dyn Fn(&str) -> bool) -> bool + 'a;

/// The artifact globs of `spec` (as written, anchor included) that match
/// one of `deleted` and no file there now: `still_there` is asked, per
/// glob, its literal prefix (`None`: the whole repository) and a test of a
/// path, and answers whether some file now below that prefix passes it
/// (stopping at the first), so a module's glob looks at its folder and a
/// wildcard one at most until its first match.
pub fn emptied_globs(
    spec: &Spec,
    deleted: &[&str],
    still_there: &mut StillThere<'_>,
) -> Vec<String> {
    let mut deleted = deleted.to_vec();
    deleted.sort_unstable();
    let mut out: Vec<String> = Vec::new();
    for g in globs_of(spec) {
        if g.external || g.what != "artifact glob" {
            continue;
        }
        if matches_any(g.pattern, &deleted) != Some(true) {
            continue;
        }
        let Ok(parts) = glob_parts(g.pattern) else {
            continue;
        };
        let matchers: Vec<_> = parts.iter().map(Glob::compile_matcher).collect();
        let prefix = crate::glob::literal_prefix(g.pattern);
        if still_there(prefix.as_deref(), &|file| {
            matchers.iter().any(|m| m.is_match(file))
        }) {
            continue;
        }
        let written = match g.anchor {
            Some(anchor) => format!("{}#{anchor}", g.pattern),
            None => g.pattern.to_string(),
        };
        if !out.contains(&written) {
            out.push(written);
        }
    }
    out
}

/// Files read per anchored glob, at most, looking for the symbol it names.
const ANCHOR_FILES: usize = 500;

/// A file larger than this is not parsed to check an anchor.
const ANCHOR_FILE_BYTES: u64 = 1024 * 1024;

/// Names scored for the closest-names hints of one check, at most.
const CLOSEST_BUDGET: usize = 200_000;

/// Warnings for anchors (`path#Symbol`) that name no symbol in any file
/// their glob matches, with the closest names as the hint. A glob that
/// matches no file is [`check_orphans`]' warning, not this one.
pub(crate) fn check_anchors(
    root: &std::path::Path,
    specs: &[LoadedSpec],
    trees: &[Node],
    files: &[String],
) -> Vec<Finding> {
    use crate::symbols::Anchor;
    let mut sorted: Vec<&str> = files.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    let mut out = Vec::new();
    let mut matched_by: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut outlines: HashMap<&str, Option<std::sync::Arc<crate::symbols::Outline>>> =
        HashMap::new();
    let mut closest_budget = CLOSEST_BUDGET;
    for (s, loaded) in specs.iter().enumerate() {
        for g in globs_of(&loaded.spec) {
            let (Some(written), false) = (g.anchor, g.external) else {
                continue;
            };
            let (Ok(anchor), Ok(parts)) = (Anchor::parse(written), glob_parts(g.pattern)) else {
                continue; // reported by check_compile
            };
            // The files of a glob and the outline of a file are found once
            // however many anchors name them (20,000 anchors on one file
            // read and hash it once).
            let matched: &Vec<&str> = matched_by
                .entry(g.pattern)
                .or_insert_with(|| anchored_files(&sorted, g.pattern, &parts));
            if matched.is_empty() {
                continue;
            }
            let mut names: Vec<String> = Vec::new();
            let mut no_outline: Vec<String> = Vec::new();
            // Partial outlines where the symbol may lie in the damage, why.
            let mut damaged: Vec<(&str, String)> = Vec::new();
            let mut found = false;
            for file in matched {
                let outline = outlines
                    .entry(file)
                    .or_insert_with(|| read_outline(root, file));
                let Some(outline) = outline else {
                    continue;
                };
                if let Some(reason) = &outline.fallback {
                    no_outline.push(format!("{file}: {reason}"));
                    continue;
                }
                if outline.damage.is_some() {
                    match partial_miss(&anchor, outline) {
                        None => found = true,
                        Some(why) => damaged.push((file, why)),
                    }
                    if found {
                        break;
                    }
                    continue;
                }
                if anchor.names_any(outline) {
                    found = true;
                    break;
                }
                names.extend(outline.symbols.iter().map(|s| s.name.clone()));
            }
            // The closest names are scored within a budget for the whole
            // check (each broken anchor against every name would be
            // anchors x symbols); past it the hint says where to look.
            let scored = names.len().min(closest_budget);
            closest_budget -= scored;
            let names_scored = scored == names.len();
            if found {
                continue;
            }
            let pos = pos_of(&trees[s], &g.pointer);
            if let Some((file, why)) = damaged.first() {
                out.push(damaged_anchor(&specs[s].path, pos, written, file, why));
                continue;
            }
            let hint = if names.is_empty() {
                no_outline_hint(no_outline.first(), outline_languages(matched, &outlines))
            } else if names_scored {
                let closest = closest_names(written, &names);
                format!("closest existing names: {}", closest.join(", "))
            } else {
                format!(
                    "list the names with `notarai symbols {}`",
                    matched.first().copied().unwrap_or_default()
                )
            };
            // No file it matches has an outline: notarai cannot tell a
            // symbol there (`N405`), which is not a misspelt name (`N004`).
            let code = if names.is_empty() && !no_outline.is_empty() {
                crate::rules::Code::UnoutlinableAnchor
            } else {
                crate::rules::Code::AnchorMatchesNothing
            };
            out.push(
                Finding::warning(
                    code,
                    &specs[s].path,
                    pos.line,
                    pos.column,
                    format!(
                        "anchor `#{written}` names no symbol in the {} file{} `{}` matches",
                        matched.len(),
                        if matched.len() == 1 { "" } else { "s" },
                        g.pattern
                    ),
                )
                .with_hint(hint),
            );
        }
    }
    out
}

/// The outline of `file` for the anchor checks (one check reads it once);
/// `None` when it cannot be read.
fn read_outline(
    root: &std::path::Path,
    file: &str,
) -> Option<std::sync::Arc<crate::symbols::Outline>> {
    let bytes = crate::safe_fs::read(root, std::path::Path::new(file), ANCHOR_FILE_BYTES).ok()?;
    Some(std::sync::Arc::new(crate::symbols::outline(file, &bytes)))
}

/// The warning for an anchor whose symbol may lie where `file` does not
/// parse: governed whole, naming the line the parser stopped understanding.
fn damaged_anchor(spec: &str, pos: Pos, written: &str, file: &str, why: &str) -> Finding {
    Finding::warning(
        crate::rules::Code::UnoutlinableAnchor,
        spec,
        pos.line,
        pos.column,
        format!(
            "anchor `#{written}`: `{file}` does not parse where its symbol may lie, so the anchor governs the whole file"
        ),
    )
    .with_hint(format!(
        "{why}; `notarai symbols {file}` shows what was outlined. Once the file parses the anchor governs its symbol again"
    ))
}

/// The files of `sorted` the glob `pattern` (its `parts`) matches, at most
/// [`ANCHOR_FILES`].
fn anchored_files<'a>(sorted: &'a [&'a str], pattern: &str, parts: &[Glob]) -> Vec<&'a str> {
    let matchers: Vec<_> = parts.iter().map(Glob::compile_matcher).collect();
    below(sorted, crate::glob::literal_prefix(pattern).as_deref())
        .iter()
        .filter(|f| matchers.iter().any(|m| m.is_match(f)))
        .take(ANCHOR_FILES)
        .copied()
        .collect()
}

/// On a partial outline, why `anchor` governs the whole file: it names no
/// symbol outside the damage (`None` when it does).
fn partial_miss(
    anchor: &crate::symbols::Anchor,
    outline: &crate::symbols::Outline,
) -> Option<String> {
    let named = anchor.named(outline);
    if named.iter().any(|&i| !outline.symbols[i].damaged) {
        return None;
    }
    Some(crate::symbols::whole_file_because(&[anchor], outline).unwrap_or_default())
}

/// The hint for an anchor whose files have no outline (`why`: the first
/// one's reason); `outlined_kind`: they are of a kind notarai outlines (too
/// large, say), so the advice is not to anchor another kind of file.
fn no_outline_hint(why: Option<&String>, outlined_kind: bool) -> String {
    match why {
        Some(why) if outlined_kind => format!(
            "no symbol outline for the matched files ({why}): the anchor governs the whole file; drop the `#`, or anchor a file notarai outlines"
        ),
        Some(why) => format!(
            "no symbol outline for the matched files ({why}); anchor a Rust, TypeScript, JavaScript, Python or Go file, or drop the `#`"
        ),
        None => "the matched files could not be read".to_string(),
    }
}

/// Whether every matched file outlined so far is in a language notarai
/// outlines (its fallback is about the file, not its kind).
fn outline_languages(
    matched: &[&str],
    outlines: &HashMap<&str, Option<std::sync::Arc<crate::symbols::Outline>>>,
) -> bool {
    matched
        .iter()
        .filter_map(|f| outlines.get(f).and_then(Option::as_ref))
        .all(|o| o.language.is_some())
}

/// The (up to three) names of `names` closest to `wanted`.
pub(crate) fn closest_names(wanted: &str, names: &[String]) -> Vec<String> {
    let mut scored: Vec<(f64, &String)> = names
        .iter()
        .map(|n| {
            let last = n.rsplit([':', '.']).next().unwrap_or(n);
            let want_last = wanted.rsplit([':', '.']).next().unwrap_or(wanted);
            let score =
                strsim::jaro_winkler(wanted, n).max(strsim::jaro_winkler(want_last, last) - 0.05);
            (score, n)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let mut out: Vec<String> = Vec::new();
    for (_, n) in scored {
        if !out.contains(n) {
            out.push(n.clone());
        }
        if out.len() == 3 {
            break;
        }
    }
    out
}

/// Whether the artifact glob `pattern` matches one of `sorted` (sorted
/// paths), trying only those below its literal prefix; `None` when it is
/// no valid glob.
fn matches_any(pattern: &str, sorted: &[&str]) -> Option<bool> {
    let parts = glob_parts(pattern).ok()?;
    let candidates = below(sorted, crate::glob::literal_prefix(pattern).as_deref());
    // A glob of a common form is matched without building its regex (a
    // check of 400 globs built 400 of them, 8 ms).
    if let Some(simple) = crate::glob::Simple::of(pattern) {
        return Some(candidates.iter().any(|file| simple.is_match(file)));
    }
    let matchers: Vec<_> = parts.iter().map(Glob::compile_matcher).collect();
    Some(
        candidates
            .iter()
            .any(|file| matchers.iter().any(|m| m.is_match(file))),
    )
}

/// The files of `sorted` that start with `prefix` (all of them without a
/// prefix): one contiguous range of the sorted list. It may hold a few that
/// are not below the prefix folder (`src/authz.rs` for `src/auth`); the glob
/// itself decides which files match.
fn below<'a>(sorted: &'a [&'a str], prefix: Option<&str>) -> &'a [&'a str] {
    let Some(prefix) = prefix else {
        return sorted;
    };
    let start = sorted.partition_point(|f| *f < prefix);
    let len = sorted[start..].partition_point(|f| f.starts_with(prefix));
    &sorted[start..start + len]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_emptied_glob_is_asked_below_its_literal_prefix_only() {
        let text = "schema_version: '0.7'\nintent: x\ntier: registered\nartifacts:\n  code:\n    - path: 'src/auth/**'\n    - path: 'src/lib.rs#Parser'\n    - path: '**/*.txt'\n    - path: 'docs/*.md'\n    - path: 'vendor/x'\n      source: 'https://example.com/x'\n";
        let (spec, _) = crate::spec::load::parse_text(".notarai/a.spec.yaml", text).unwrap();
        let deleted = ["src/auth/a.rs", "src/lib.rs", "notes/a.txt", "vendor/x"];
        // What stays: one `.txt` file, below no prefix.
        let there = ["deep/b.txt", "src/authz.rs"];
        let mut asked: Vec<Option<String>> = Vec::new();
        let emptied = emptied_globs(&spec, &deleted, &mut |prefix, test| {
            asked.push(prefix.map(str::to_string));
            there
                .iter()
                .filter(|p| prefix.is_none_or(|x| p.starts_with(x)))
                .any(|p| test(p))
        });
        // `docs/*.md` matched nothing deleted, and the external ref is not
        // the repository's: neither is asked about.
        assert_eq!(
            asked,
            vec![
                Some("src/auth".to_string()),
                Some("src/lib.rs".to_string()),
                None
            ]
        );
        // `src/authz.rs` lies in `src/auth`'s range but is not its match.
        assert_eq!(emptied, vec!["src/auth/**", "src/lib.rs#Parser"]);
    }

    #[test]
    fn matching_rules() {
        let g = compile_artifact_glob("src/*.rs").unwrap();
        assert!(g.is_match("src/a.rs"));
        assert!(!g.is_match("src/x/a.rs"));
        let g = compile_artifact_glob("src/**").unwrap();
        assert!(g.is_match("src/x/y/a.rs"));
        let g = compile_artifact_glob("src/auth").unwrap();
        assert!(g.is_match("src/auth"));
        assert!(g.is_match("src/auth/x/y.rs"));
        assert!(!g.is_match("src/authz.rs"));
        let g = compile_artifact_glob("docs/").unwrap();
        assert!(g.is_match("docs/a.md"));
        let g = compile_artifact_glob("{a,b}/*.md").unwrap();
        assert!(g.is_match("b/x.md"));
        assert!(compile_artifact_glob("src/[").is_err());
    }

    #[test]
    fn below_is_the_range_starting_with_the_prefix() {
        let files = [
            "a.md",
            "src/auth.rs",
            "src/auth/x.rs",
            "src/authz.rs",
            "srcx/y.rs",
        ];
        assert_eq!(
            below(&files, Some("src/auth")),
            ["src/auth.rs", "src/auth/x.rs", "src/authz.rs"]
        );
        assert_eq!(below(&files, Some("docs")), [] as [&str; 0]);
        assert_eq!(below(&files, None).len(), files.len());
        // The glob decides within the range: `src/auth` (a folder) matches
        // below it only, so a file that merely shares the prefix is no match.
        let folder = compile_artifact_glob("src/auth").unwrap();
        let range = below(&files[..4], Some("src/auth"));
        assert_eq!(
            range
                .iter()
                .filter(|f| folder.is_match(f))
                .collect::<Vec<_>>(),
            [&"src/auth/x.rs"]
        );
    }
}
