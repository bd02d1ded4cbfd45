//! Artifact globs: compiling them the one way notarai matches files, and
//! finding the ones that match no file of the repository.

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
    external: bool,
    what: &'static str,
}

fn globs_of(spec: &Spec) -> Vec<GlobAt<'_>> {
    let mut out = Vec::new();
    for (category, refs) in &spec.artifacts {
        for (i, r) in refs.iter().enumerate() {
            out.push(GlobAt {
                pointer: format!("/artifacts/{}/{i}/path", escape(category)),
                pattern: &r.path,
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
                external: r.source.is_some(),
                what: "design asset glob",
            });
        }
    }
    for (i, pattern) in spec.exclude.iter().enumerate() {
        out.push(GlobAt {
            pointer: format!("/exclude/{i}"),
            pattern,
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
/// `files`. All globs are compiled into one set and each file is matched once.
pub(crate) fn check_orphans(
    specs: &[LoadedSpec],
    trees: &[Node],
    files: &[String],
) -> Vec<Finding> {
    let mut builder = GlobSetBuilder::new();
    let mut owners: Vec<usize> = Vec::new();
    let mut sites: Vec<(usize, String, String, &'static str)> = Vec::new();
    for (s, loaded) in specs.iter().enumerate() {
        for g in globs_of(&loaded.spec) {
            if g.external {
                continue;
            }
            let Ok(parts) = glob_parts(g.pattern) else {
                continue; // reported by check_compile
            };
            for part in parts {
                builder.add(part);
                owners.push(sites.len());
            }
            sites.push((s, g.pointer, g.pattern.to_string(), g.what));
        }
    }
    let Ok(set) = builder.build() else {
        return Vec::new();
    };
    let mut matched = vec![false; sites.len()];
    let mut hits = Vec::new();
    for file in files {
        set.matches_into(file.as_str(), &mut hits);
        for &h in &hits {
            matched[owners[h]] = true;
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
