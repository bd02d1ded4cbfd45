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

/// A glob of a form specs write most, matched without building a regex:
/// the same answers as [`compile`]'s globs (a test compares them on every
/// form), for checks that try hundreds of globs once each. `None` for any
/// other form, which [`compile`] handles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Simple {
    /// `dir`, `dir/`, `dir/**`, `file.md`: the path and everything below.
    Under(String),
    /// `dir/**/*.rs`: below the folder, the name ending so.
    UnderEndingWith(String, String),
    /// `**/*.rs`: anywhere, the name ending so.
    EndingWith(String),
}

impl Simple {
    /// The simple form of `pattern`, if it has one.
    pub fn of(pattern: &str) -> Option<Simple> {
        let pattern = normalize(pattern);
        // `}` alone is no wildcard to `has_wildcard`, but globset refuses
        // an unopened alternate: such a pattern is not simple.
        let plain = |s: &str| {
            !s.is_empty()
                && !has_wildcard(s)
                && !s.contains('}')
                && !s.split('/').any(|c| c.is_empty() || c == "..")
        };
        if plain(&pattern) {
            return Some(Simple::Under(pattern));
        }
        if let Some(base) = pattern.strip_suffix("/**")
            && plain(base)
        {
            return Some(Simple::Under(base.to_string()));
        }
        let ending = |s: &str| !s.is_empty() && !has_wildcard(s) && !s.contains(['/', '}']);
        if let Some(end) = pattern.strip_prefix("**/*")
            && ending(end)
        {
            return Some(Simple::EndingWith(end.to_string()));
        }
        if let Some((base, end)) = pattern.split_once("/**/*")
            && plain(base)
            && ending(end)
        {
            return Some(Simple::UnderEndingWith(base.to_string(), end.to_string()));
        }
        None
    }

    /// Whether `path` (relative, forward slashes) matches.
    pub fn is_match(&self, path: &str) -> bool {
        match self {
            Simple::Under(base) => is_under(path, base),
            Simple::UnderEndingWith(base, end) => {
                path.len() > base.len()
                    && path.starts_with(base.as_str())
                    && path.as_bytes()[base.len()] == b'/'
                    && path[base.len() + 1..].ends_with(end.as_str())
            }
            Simple::EndingWith(end) => path.ends_with(end.as_str()),
        }
    }
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
    fn the_simple_forms_match_as_the_compiled_globs_do() {
        let patterns = [
            "src/auth",
            "src/auth/",
            "./src/auth/**",
            "docs/m000.md",
            "src/**/*.rs",
            "src/m000/**/*.rs",
            "**/*.rs",
            "**/*.d.ts",
            "**/*rs",
            "a/**/*x",
            "src/**/*.rs/",
        ];
        let paths = [
            "src/auth",
            "src/auth/login.rs",
            "src/auth/x/y.ts",
            "src/authz.rs",
            "src/a.rs",
            "src/.rs",
            "src/x/y/z.rs",
            "src/x.rs/y.ts",
            "srcx/a.rs",
            "a.rs",
            "deep/er/b.rs",
            "lib/types.d.ts",
            "docs/m000.md",
            "docs/m000.md/x",
            "docs/m000.mdx",
            "src/m000/f1.rs",
            "src/m000/sub/f2.rs",
            "src/m0001/f1.rs",
            "src/m000.rs",
            "a/x",
            "a/b/cx",
            "ax",
            "rs",
            "x.rsx",
        ];
        for pattern in patterns {
            let simple = Simple::of(pattern).unwrap_or_else(|| panic!("{pattern}"));
            for path in paths {
                assert_eq!(
                    simple.is_match(path),
                    matches(pattern, path),
                    "{pattern} on {path}"
                );
            }
        }
        for other in [
            "src/*.rs",
            "src/{a,b}/**",
            "**/test_*.py",
            "src/**/x/*.rs",
            "**",
            "a\\*b/**",
            "../x",
            "src/**/*.{rs,ts}",
            "docs/a}b.md",
            "**/*.r}s",
        ] {
            assert_eq!(Simple::of(other), None, "{other}");
        }
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
