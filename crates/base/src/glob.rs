//! Glob primitives: the one way notarai compiles a glob written in a spec,
//! the literal folder its matches lie below, and "is this path below that
//! one". A leaf module: it imports nothing of notarai.
//!
//! Globs match file paths relative to the repository root, with forward
//! slashes: `*` and `?` stay within one path segment (with
//! `literal_separator`), `**` crosses segments, `{a,b}` alternates, and a
//! pattern with no wildcard (`src/auth`, `docs/auth.md`) matches that path
//! and everything below it, like a git pathspec.

use globset::{Glob, GlobBuilder};

/// Whether `path` is `prefix` itself or lies below it.
pub fn is_under(path: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    path == prefix || (path.starts_with(prefix) && path.as_bytes().get(prefix.len()) == Some(&b'/'))
}

/// Compile an artifact glob. A pattern without wildcards also matches
/// everything below it; `literal_separator` keeps `*` inside one segment.
pub fn compile(pattern: &str, literal_separator: bool) -> Result<Vec<Glob>, String> {
    let pattern = normalize(pattern);
    if pattern.is_empty() {
        return Err("the pattern is empty".to_string());
    }
    let build = |p: &str| {
        GlobBuilder::new(p)
            .literal_separator(literal_separator)
            .backslash_escape(true)
            .empty_alternates(true)
            .build()
            .map_err(|e| e.kind().to_string())
    };
    let mut globs = vec![build(&pattern)?];
    if !has_wildcard(&pattern) || pattern.ends_with("/**") {
        let base = pattern.trim_end_matches("/**");
        if !base.is_empty() && base != pattern {
            globs.push(build(base)?);
        }
        if !has_wildcard(&pattern) {
            globs.push(build(&format!("{pattern}/**"))?);
        }
    }
    Ok(globs)
}

/// Strip a leading `./` and a trailing `/` (a folder pattern means the folder).
fn normalize(pattern: &str) -> String {
    let mut p = pattern.trim();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.trim_end_matches('/').to_string()
}

fn has_wildcard(segment: &str) -> bool {
    segment.contains(['*', '?', '[', '{', '\\'])
}

/// The literal folder (or file) below which every match of `pattern` lies,
/// or `None` when the pattern can match anywhere.
pub fn literal_prefix(pattern: &str) -> Option<String> {
    let pattern = normalize(pattern);
    let literal: Vec<&str> = pattern
        .split('/')
        .take_while(|s| !has_wildcard(s))
        .collect();
    if literal.is_empty() || literal.iter().any(|s| s.is_empty() || *s == "..") {
        return None;
    }
    Some(literal.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use globset::GlobSetBuilder;

    fn matches(pattern: &str, path: &str) -> bool {
        let mut b = GlobSetBuilder::new();
        compile(pattern, true).unwrap().into_iter().for_each(|g| {
            b.add(g);
        });
        b.build().unwrap().is_match(path)
    }

    #[test]
    fn glob_semantics() {
        assert!(matches("src/**", "src/a/b/c.rs"));
        assert!(matches("src/**", "src/a.rs"));
        assert!(!matches("src/**", "srcx/a.rs"));
        assert!(matches("src/*.rs", "src/a.rs"));
        assert!(!matches("src/*.rs", "src/a/b.rs"));
        assert!(matches("src/?.rs", "src/a.rs"));
        assert!(!matches("src/?.rs", "src/ab.rs"));
        assert!(matches("**/*.rs", "a.rs"));
        assert!(matches("**/*.rs", "x/y/a.rs"));
        assert!(matches("src/**/*.rs", "src/a.rs"));
        assert!(matches("{src,lib}/*.rs", "lib/a.rs"));
        assert!(matches("docs/auth.md", "docs/auth.md"));
        assert!(matches("src/auth", "src/auth/x.rs"));
        assert!(!matches("src/auth", "src/authx.rs"));
        assert!(matches("./src/", "src/x.rs"));
    }

    #[test]
    fn prefixes() {
        assert_eq!(
            literal_prefix("src/m000/**/*.rs").as_deref(),
            Some("src/m000")
        );
        assert_eq!(literal_prefix("docs/a.md").as_deref(), Some("docs/a.md"));
        assert_eq!(literal_prefix("**/*.rs"), None);
        assert_eq!(literal_prefix("{a,b}/x"), None);
        assert_eq!(literal_prefix("../../**"), None);
        assert!(is_under("src/a", "src"));
        assert!(!is_under("srca", "src"));
    }
}
