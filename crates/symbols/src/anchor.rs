//! Anchors: an artifact path may end in `#SYMBOL` (`src/auth.rs#Session::refresh`,
//! `src/api/**/*.ts#Router.*`). The spec then governs those symbols of the
//! matched files, not the whole files. A `*` matches within one segment of
//! a qualified name (never across `::` or `.`); an anchor also governs
//! everything nested in the symbols it names.

use std::fmt;

use super::outline::Outline;

/// An artifact path split into its glob and its anchor: the anchor is what
/// follows the last `#`, when that is not empty and holds no `/`.
pub fn split_anchor(path: &str) -> (&str, Option<&str>) {
    match path.rsplit_once('#') {
        Some((glob, anchor)) if !glob.is_empty() && !anchor.is_empty() && !anchor.contains('/') => {
            (glob, Some(anchor))
        }
        _ => (path, None),
    }
}

/// A symbol pattern written after `#`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Anchor {
    pattern: String,
}

/// Why an anchor cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AnchorError(pub String);

impl crate::error::Diagnose for AnchorError {
    fn kind(&self) -> crate::error::ErrorKind {
        crate::error::ErrorKind::InvalidInput
    }
}

impl Anchor {
    /// Read an anchor (the text after `#`).
    pub fn parse(pattern: &str) -> Result<Anchor, AnchorError> {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Err(AnchorError("the anchor after `#` is empty".into()));
        }
        if pattern.contains("**") {
            return Err(AnchorError(format!(
                "anchor `{pattern}`: `**` is not allowed; `*` matches within one name segment"
            )));
        }
        if pattern.len() > MAX_ANCHOR_LEN {
            return Err(AnchorError(format!(
                "anchor `{}…`: longer than {MAX_ANCHOR_LEN} bytes; name a symbol, or a family with one `*`",
                pattern.chars().take(40).collect::<String>()
            )));
        }
        if pattern.bytes().filter(|&b| b == b'*').count() > MAX_STARS {
            return Err(AnchorError(format!(
                "anchor `{pattern}`: more than {MAX_STARS} `*`; name a symbol, or a family with one `*` per segment"
            )));
        }
        Ok(Anchor {
            pattern: pattern.to_string(),
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether the pattern names exactly `name`.
    pub fn matches(&self, name: &str) -> bool {
        wildcard(self.pattern.as_bytes(), name.as_bytes())
    }

    /// Whether the pattern holds no `*`: it names one qualified name,
    /// found by a lookup in the outline's index of names.
    pub fn is_literal(&self) -> bool {
        !self.pattern.contains('*')
    }

    /// The symbols of `outline` this anchor governs: the ones it names and
    /// everything nested in them ([`governed_by`] of this one anchor).
    pub fn governed(&self, outline: &Outline) -> Vec<usize> {
        indices(&governed_by(&[self], outline))
    }

    /// The symbols of `outline` the pattern names exactly: a lookup by
    /// name for a literal anchor, one pass over the symbols for a pattern.
    pub fn named(&self, outline: &Outline) -> Vec<usize> {
        if self.is_literal() {
            return outline.named(&self.pattern).collect();
        }
        (0..outline.symbols.len())
            .filter(|&i| self.matches(&outline.symbols[i].name))
            .collect()
    }

    /// Whether the pattern names at least one symbol of `outline`.
    pub fn names_any(&self, outline: &Outline) -> bool {
        if self.is_literal() {
            return outline.named(&self.pattern).next().is_some();
        }
        outline.symbols.iter().any(|s| self.matches(&s.name))
    }
}

/// Which symbols of `outline` any of `anchors` names, one flag per symbol.
/// Each distinct pattern is used once: a literal one is a lookup by name
/// (its hits, over all the distinct names, are at most the symbols), a
/// pattern with `*` one pass over the symbols. Linear in the anchors and
/// the symbols for literal anchors.
pub fn named_by(anchors: &[&Anchor], outline: &Outline) -> Vec<bool> {
    let mut named = vec![false; outline.symbols.len()];
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for anchor in anchors {
        if !seen.insert(anchor.as_str()) {
            continue;
        }
        if anchor.is_literal() {
            for i in outline.named(anchor.as_str()) {
                named[i] = true;
            }
        } else {
            for (i, s) in outline.symbols.iter().enumerate() {
                if !named[i] && anchor.matches(&s.name) {
                    named[i] = true;
                }
            }
        }
    }
    named
}

/// Which symbols of `outline` `anchors` govern, one flag per symbol: the
/// ones they name and everything nested in them. One pass over the
/// symbols after [`named_by`]: a parent comes before its children, so a
/// symbol is governed when it is named or its parent is (the parent links
/// are walked once, never per symbol per anchor).
pub fn governed_by(anchors: &[&Anchor], outline: &Outline) -> Vec<bool> {
    let mut governed = named_by(anchors, outline);
    for i in 0..governed.len() {
        if !governed[i]
            && let Some(p) = outline.symbols[i].parent
            && p < i
        {
            governed[i] = governed[p];
        }
    }
    governed
}

/// Why `anchors` on `outline` govern the whole file, not symbols: the file
/// has no outline ([`Outline::fallback`]), or it is a partial outline
/// ([`Outline::damage`]) and an anchor names a damaged symbol, or names
/// none (its symbol may lie where the parser stopped understanding the
/// file), or holds a `*` (a symbol it would name may lie there). `None`:
/// the anchors' symbols are all outlined and whole.
pub fn whole_file_because(anchors: &[&Anchor], outline: &Outline) -> Option<String> {
    if let Some(reason) = &outline.fallback {
        return Some(reason.clone());
    }
    let damage = outline.damage.as_ref()?;
    let says = damage.says(outline.language.unwrap_or("its language"));
    for anchor in anchors {
        let named = anchor.named(outline);
        if let Some(&i) = named.iter().find(|&&i| outline.symbols[i].damaged) {
            let s = &outline.symbols[i];
            return Some(format!(
                "`{}` (lines {}-{}) meets a range the parser did not understand: {says}",
                s.name, s.start_line, s.end_line
            ));
        }
        if named.is_empty() {
            return Some(format!(
                "anchor `#{anchor}` names no symbol outlined around the damage, and its symbol may lie there: {says}"
            ));
        }
        if !anchor.is_literal() {
            return Some(format!(
                "anchor `#{anchor}` may name a symbol that lies in the damage: {says}"
            ));
        }
    }
    None
}

/// The indices whose flag is set.
pub fn indices(flags: &[bool]) -> Vec<usize> {
    (0..flags.len()).filter(|&i| flags[i]).collect()
}

impl fmt::Display for Anchor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.pattern)
    }
}

/// The longest anchor pattern, in bytes.
pub const MAX_ANCHOR_LEN: usize = 512;

/// The most `*` one anchor may hold.
pub const MAX_STARS: usize = 8;

/// `*` matches any run of characters other than `.` and `:`. In time
/// linear in `pattern.len() * name.len()` at worst (no backtracking beyond
/// the last `*`): a star never matches a separator, so the separators of
/// `name` are matched by the pattern's own, segment by segment, and within
/// a segment the classic greedy match (remember the last `*`, retry one
/// character further) is exact.
fn wildcard(pattern: &[u8], name: &[u8]) -> bool {
    let is_sep = |b: &u8| matches!(b, b'.' | b':');
    let mut pattern_segments = pattern.split(is_sep);
    let mut name_segments = name.split(is_sep);
    // The separators themselves must agree, in order.
    if !pattern
        .iter()
        .filter(|b| is_sep(b))
        .eq(name.iter().filter(|b| is_sep(b)))
    {
        return false;
    }
    loop {
        match (pattern_segments.next(), name_segments.next()) {
            (None, None) => return true,
            (Some(p), Some(n)) if segment_matches(p, n) => {}
            _ => return false,
        }
    }
}

/// `*` matching any run of `name` (which holds no separator).
fn segment_matches(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, n));
            p += 1;
        } else if p < pattern.len() && pattern[p] == name[n] {
            p += 1;
            n += 1;
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&b| b == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_anchor_is_what_follows_the_last_hash() {
        assert_eq!(
            split_anchor("src/auth.rs#Session::refresh"),
            ("src/auth.rs", Some("Session::refresh"))
        );
        assert_eq!(
            split_anchor("src/api/**/*.ts#Router.*"),
            ("src/api/**/*.ts", Some("Router.*"))
        );
        assert_eq!(split_anchor("src/a#b/c.rs"), ("src/a#b/c.rs", None));
        assert_eq!(split_anchor("src/a.rs#"), ("src/a.rs#", None));
        assert_eq!(split_anchor("src/a.rs"), ("src/a.rs", None));
    }

    #[test]
    fn a_star_stays_within_one_segment() {
        let a = Anchor::parse("Router.*").unwrap();
        assert!(a.matches("Router.get"));
        assert!(!a.matches("Router.get.inner"));
        assert!(!a.matches("Router"));
        let a = Anchor::parse("Session::re*").unwrap();
        assert!(a.matches("Session::refresh"));
        assert!(!a.matches("Session::x::refresh"));
        assert!(
            Anchor::parse("(*Server).Serve")
                .unwrap()
                .matches("(*Server).Serve")
        );
        assert!(Anchor::parse("**").is_err());
        assert!(Anchor::parse(" ").is_err());
    }

    #[test]
    fn the_matcher_agrees_with_a_plain_backtracking_one_and_stays_fast() {
        fn slow(pattern: &[u8], name: &[u8]) -> bool {
            match pattern.split_first() {
                None => name.is_empty(),
                Some((b'*', rest)) => (0..=name.len())
                    .take_while(|&i| i == 0 || !matches!(name[i - 1], b'.' | b':'))
                    .any(|i| slow(rest, &name[i..])),
                Some((c, rest)) => name.first() == Some(c) && slow(rest, &name[1..]),
            }
        }
        let names = [
            "", "a", "ab", "a.b", "a::b", "abc.abd", "aab", "ba", "a.b.c", "x:y",
        ];
        let patterns = [
            "", "*", "a", "a*", "*b", "a*b", "*.*", "a.*", "*::*", "a*c.a*", "**b", "*a*", "a.b.c",
            "x:*",
        ];
        for p in patterns {
            for n in names {
                assert_eq!(
                    wildcard(p.as_bytes(), n.as_bytes()),
                    slow(p.as_bytes(), n.as_bytes()),
                    "{p:?} against {n:?}"
                );
            }
        }
        // The red team's anchor against a 50-letter name: at once.
        let start = std::time::Instant::now();
        let name = "a".repeat(50);
        assert!(!Anchor::parse("*a*a*a*a*a*a*a*b").unwrap().matches(&name));
        assert!(start.elapsed() < std::time::Duration::from_millis(50));
        assert!(
            Anchor::parse("*a*a*a*a*a*a*a*a*a*a*b").is_err(),
            "too many stars"
        );
    }
}
